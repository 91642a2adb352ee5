# tier: fast
# scripts/gate-report: the gate's work directory (meta.tsv, checks.tsv,
# findings.tsv) as JSON, SARIF 2.1.0 and JUnit XML. The work directories are
# written by hand here, so this needs no build. Sourced by tests/run (uses
# expect, usage_error, pass, fail and $TMP).
# The jq programs name jq's variables in single quotes, on purpose:
# shellcheck disable=SC2016

echo "== scripts/gate-report"
if ! command -v jq >/dev/null 2>&1; then
	fail "gate-report" "jq is not installed (scripts/install-deps installs it)"
	return 0
fi
GR=$TMP/gate-report
GR_TAB=$(printf '\t')
mkdir -p "$GR"

# gr_tsv FILE FIELD...: one line of FILE, its fields joined by tabs.
gr_tsv() {
	local file=$1 IFS=$GR_TAB
	shift
	printf '%s\n' "$*" >>"$file"
}

# gr_meta DIR VARIANT OP SYMBOL FILES VERDICT: meta.tsv with fixed times.
gr_meta() {
	local m=$1/meta.tsv
	mkdir -p "$1"
	: >"$m"
	gr_tsv "$m" variant "$2"
	gr_tsv "$m" op "$3"
	gr_tsv "$m" arch x86_64
	gr_tsv "$m" symbol "$4"
	gr_tsv "$m" files "$5"
	gr_tsv "$m" verdict "$6"
	gr_tsv "$m" seconds 93.40
	gr_tsv "$m" memgate_version v0.3-12-g31035b1
	gr_tsv "$m" started 2025-06-01T10:00:00Z
}

# gr_jq NAME FILE FILTER: the jq filter is true of FILE.
gr_jq() {
	expect "$1" 0 "" jq -e "$3" "$2"
}

# The XML checks use python3 if it runs, else xmllint. The interpreter is
# looked up once: a python3 shim (pyenv) takes a third of a second a call.
GR_PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)

# gr_xml_ok NAME FILE: FILE is well-formed XML; without python3 or xmllint
# the assertion is skipped, saying so.
gr_xml_ok() {
	if [ -n "$GR_PY" ]; then
		expect "$1 (python3)" 0 "" \
			"$GR_PY" -c 'import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])' "$2"
	elif command -v xmllint >/dev/null 2>&1; then
		expect "$1 (xmllint)" 0 "" xmllint --noout "$2"
	else
		echo "SKIP $1: neither python3 nor xmllint is installed"
	fi
}

# gr_xml_text FILE CHECK: the text of that testcase's <failure>, as an XML
# parser reads it back (python3, else xmllint); status 3 without either.
gr_xml_text() {
	if [ -n "$GR_PY" ]; then
		"$GR_PY" -c 'import sys, xml.etree.ElementTree as E
sys.stdout.buffer.write(E.parse(sys.argv[1]).find(".//testcase[@name=\"%s\"]/failure" % sys.argv[2]).text.encode())' "$1" "$2" 2>/dev/null
	elif command -v xmllint >/dev/null 2>&1; then
		xmllint --xpath "string(//testcase[@name='$2']/failure)" "$1" 2>/dev/null
	else
		return 3
	fi
}

# --- an accepted submission: no findings, one check skipped ------------------
GR_OK=$GR/accepted
gr_meta "$GR_OK" cand_erms memcpy mg_x86_64_memcpy_erms impls/x86_64/memcpy_erms.S accepted
gr_tsv "$GR_OK/checks.tsv" build pass 0 2.1 ""
gr_tsv "$GR_OK/checks.tsv" abi pass 120 0.30 ""
gr_tsv "$GR_OK/checks.tsv" sweep pass 2197068 4.6 ""
gr_tsv "$GR_OK/checks.tsv" huge skip 0 0 "cannot reserve the address space"
gr_tsv "$GR_OK/checks.tsv" fuzz pass 81234 60 ""
: >"$GR_OK/findings.tsv"

expect "gate-report: an accepted work directory gives all three reports, silently" 0 "^$" \
	scripts/gate-report "$GR_OK" --json "$GR/ok.json" --sarif "$GR/ok.sarif" --junit="$GR/ok.xml"
gr_jq "gate-report: JSON has the schema, the meta fields and numbers as numbers" "$GR/ok.json" '
	.schema == "memgate-gate-report/1" and .variant == "cand_erms" and .op == "memcpy"
	and .arch == "x86_64" and .symbol == "mg_x86_64_memcpy_erms"
	and .files == ["impls/x86_64/memcpy_erms.S"] and .verdict == "accepted"
	and .seconds == 93.4 and .memgate == "v0.3-12-g31035b1" and .started == "2025-06-01T10:00:00Z"
	and .findings == []'
gr_jq "gate-report: JSON checks keep their order, with cases and seconds as numbers" "$GR/ok.json" '
	[.checks[].name] == ["build", "abi", "sweep", "huge", "fuzz"]
	and all(.checks[]; (.cases | type) == "number" and (.seconds | type) == "number")
	and .checks[2].cases == 2197068 and .checks[1].seconds == 0.3
	and .checks[3] == {name: "huge", status: "skip", cases: 0, seconds: 0, note: "cannot reserve the address space"}'
gr_jq "gate-report: SARIF of a clean run: 2.1.0, one run, no results, no rules" "$GR/ok.sarif" '
	.version == "2.1.0" and ."$schema" == "https://json.schemastore.org/sarif-2.1.0.json"
	and (.runs | length) == 1 and .runs[0].results == [] and .runs[0].tool.driver.rules == []
	and .runs[0].tool.driver.name == "memgate" and .runs[0].tool.driver.version == "0.3-12-g31035b1"
	and .runs[0].automationDetails.id == "memgate-gate/cand_erms/"'
gr_xml_ok "gate-report: JUnit XML of a clean run is well-formed" "$GR/ok.xml"
expect "gate-report: JUnit counts of a clean run" 0 \
	'^<testsuite name="memgate gate: cand_erms" tests="5" failures="0" errors="0" skipped="1" time="93.4"' \
	cat "$GR/ok.xml"
expect "gate-report: JUnit: a skipped check says why" 0 \
	'^    <skipped message="cannot reserve the address space"/>$' cat "$GR/ok.xml"
if [ "$(grep -c '<testcase classname="memgate.gate.cand_erms" name="[a-z]*" time="[0-9.]*"' "$GR/ok.xml")" -eq 5 ]; then
	pass "gate-report: JUnit: one testcase per check"
else
	fail "gate-report: JUnit: one testcase per check" "$(cat "$GR/ok.xml")"
fi

# --- a rejected one: findings with quotes, backslashes, <, &, UTF-8 ----------
GR_BAD=$GR/rejected
GR_DETAIL=$(printf 'dst[1] got 0x46 want 0xfb; "quoted" \\back\\slash <tag> & '\''apos'\'' na\xc3\xafve \xe2\x86\x92 end')
GR_REPRO='build/memgate run --variant=cand_word --len=2 --value="1"'
gr_meta "$GR_BAD" cand_word memset mg_generic_memset_word \
	"impls/generic/memset_word.c impls/x86_64/forward_copy.S" rejected
gr_tsv "$GR_BAD/checks.tsv" build pass 0 1.0 ""
gr_tsv "$GR_BAD/checks.tsv" abi fail 40 0.2 ""
gr_tsv "$GR_BAD/checks.tsv" sweep fail 16393 0.1 "stopped after 3 failures"
gr_tsv "$GR_BAD/checks.tsv" huge error 0 3.0 "the harness died: <SIGKILL> & no output"
gr_tsv "$GR_BAD/checks.tsv" fuzz fail 5000 60 ""
gr_tsv "$GR_BAD/checks.tsv" valgrind skip 0 0 "valgrind is not installed"
gr_tsv "$GR_BAD/findings.tsv" sweep wrong-result "$GR_DETAIL" "" "$GR_REPRO" "cand_word wrong-result dst"
gr_tsv "$GR_BAD/findings.tsv" sweep out-of-bounds-write "dst, 1 byte past the end (at dst+9, len 9)" "" \
	"build/memgate run --variant=cand_word --len=9" "cand_word out-of-bounds-write dst past the end"
gr_tsv "$GR_BAD/findings.tsv" abi abi-violation "reads the upper 32 bits of its int argument c" "" "" \
	"cand_word abi-violation c"
gr_tsv "$GR_BAD/findings.tsv" fuzz out-of-bounds-write "dst, 7 bytes past the end" findings/fuzz/r1/memset/x.in \
	"scripts/repro findings/fuzz/r1/memset/x.in" "cand_word out-of-bounds-write dst past the end"

expect "gate-report: a rejected work directory gives all three reports" 0 "^$" \
	scripts/gate-report "$GR_BAD" --json "$GR/bad.json" --sarif "$GR/bad.sarif" --junit "$GR/bad.xml"
gr_jq "gate-report: JSON findings: kind is the class, all fields kept" "$GR/bad.json" '
	.verdict == "rejected" and (.files | length) == 2 and (.findings | length) == 4
	and [.findings[].kind] == ["wrong-result", "out-of-bounds-write", "abi-violation", "out-of-bounds-write"]
	and .findings[3] == {check: "fuzz", kind: "out-of-bounds-write", detail: "dst, 7 bytes past the end",
		input: "findings/fuzz/r1/memset/x.in", repro: "scripts/repro findings/fuzz/r1/memset/x.in",
		signature: "cand_word out-of-bounds-write dst past the end"}'
if [ "$(jq -r '.findings[0].detail' "$GR/bad.json")" = "$GR_DETAIL" ] &&
	[ "$(jq -r '.findings[0].repro' "$GR/bad.json")" = "$GR_REPRO" ]; then
	pass "gate-report: JSON keeps quotes, backslashes, <, & and UTF-8 byte for byte"
else
	fail "gate-report: JSON keeps quotes, backslashes, <, & and UTF-8 byte for byte" \
		"got: $(jq -r '.findings[0].detail' "$GR/bad.json")"
fi
gr_jq "gate-report: SARIF: one result per finding, each with ruleId, level, location and fingerprint" "$GR/bad.sarif" '
	.version == "2.1.0" and (.runs | length) == 1 and (.runs[0].results | length) == 4
	and all(.runs[0].results[];
		(.ruleId | type) == "string" and .level == "error"
		and .locations[0].physicalLocation.artifactLocation.uri == "impls/generic/memset_word.c"
		and .locations[0].physicalLocation.artifactLocation.uriBaseId == "%SRCROOT%"
		and (.locations[0].physicalLocation.region.startLine | type) == "number"
		and (.partialFingerprints["memgateSignature/v1"] | length) > 0)
	and .runs[0].results[0].partialFingerprints["memgateSignature/v1"] == "cand_word wrong-result dst"'
gr_used=$(cut -f2 "$GR_BAD/findings.tsv" | sort -u | jq -R . | jq -sc .)
gr_jq "gate-report: SARIF: one rule per class used, each complete, level error" "$GR/bad.sarif" "
	([.runs[0].tool.driver.rules[].id] | sort) == $gr_used
	and all(.runs[0].tool.driver.rules[];
		.shortDescription.text != \"\" and .fullDescription.text != \"\" and .help.text != \"\"
		and .defaultConfiguration.level == \"error\")"
gr_jq "gate-report: SARIF: each ruleIndex points at its rule" "$GR/bad.sarif" '
	.runs[0] | .tool.driver.rules as $rules | all(.results[]; $rules[.ruleIndex].id == .ruleId)'
gr_jq "gate-report: SARIF: the message is the detail, then the replay command" "$GR/bad.sarif" "
	.runs[0].results[0].message.text == $(jq -n --arg d "$GR_DETAIL" --arg r "$GR_REPRO" '$d + "\nReplay: " + $r')"
gr_line=$(jq '.runs[0].results[0].locations[0].physicalLocation.region.startLine' "$GR/bad.sarif")
gr_text=$(sed -n "${gr_line}p" impls/generic/memset_word.c)
if [ "$gr_line" -gt 1 ] && [[ $gr_text == *"mg_generic_memset_word("* ]] && [[ $gr_text != *";" ]]; then
	pass "gate-report: SARIF: the region is the symbol's definition (line $gr_line), not its prototype"
else
	fail "gate-report: SARIF: the region is the symbol's definition" "line $gr_line: $gr_text"
fi
gr_xml_ok "gate-report: JUnit XML with quotes, <, & and UTF-8 is well-formed" "$GR/bad.xml"
expect "gate-report: JUnit counts: 6 checks, 3 failed, 1 error, 1 skipped" 0 \
	'^<testsuite name="memgate gate: cand_word" tests="6" failures="3" errors="1" skipped="1" time="93.4"' \
	cat "$GR/bad.xml"
expect "gate-report: JUnit: a failed check gives its finding count and classes" 0 \
	'^    <failure message="2 findings" type="wrong-result, out-of-bounds-write">wrong-result: ' cat "$GR/bad.xml"
expect "gate-report: JUnit: an error is escaped in its attribute" 0 \
	'^    <error message="the harness died: &lt;SIGKILL&gt; &amp; no output"' cat "$GR/bad.xml"
gr_failure=$(gr_xml_text "$GR/bad.xml" sweep)
case $? in
3) echo "SKIP gate-report: JUnit text read back: neither python3 nor xmllint is installed" ;;
*) if [[ $gr_failure == *"wrong-result: $GR_DETAIL"*"replay: $GR_REPRO"* ]]; then
	pass "gate-report: JUnit: the failure reads back as the exact detail and replay command"
else
	fail "gate-report: JUnit: the failure reads back as the exact detail and replay command" "$gr_failure"
fi ;;
esac

# --- where the SARIF location points ------------------------------------------
GR_LOC=$GR/location
cp -r "$GR_BAD" "$GR_LOC"
sed -i "s/^symbol${GR_TAB}.*/symbol${GR_TAB}mg_x86_64_forward_copy/" "$GR_LOC/meta.tsv"
scripts/gate-report "$GR_LOC" --sarif "$GR/loc.sarif" >/dev/null 2>&1
gr_loc=$(jq -r '.runs[0].results[0].locations[0].physicalLocation | "\(.artifactLocation.uri) \(.region.startLine)"' "$GR/loc.sarif")
# The tree's assembly defines its symbols with asmdefs.h's ENTRY().
if [ "$(sed -n "${gr_loc#* }p" "${gr_loc% *}" 2>/dev/null)" = "ENTRY(mg_x86_64_forward_copy)" ]; then
	pass "gate-report: SARIF: a symbol defined in a later file points at its label there ($gr_loc)"
else
	fail "gate-report: SARIF: a symbol defined in a later file points at its label there" "got $gr_loc"
fi
sed -i "s/^symbol${GR_TAB}.*/symbol${GR_TAB}mg_nowhere/" "$GR_LOC/meta.tsv"
scripts/gate-report "$GR_LOC" --sarif "$GR/loc.sarif" >/dev/null 2>&1
gr_jq "gate-report: SARIF: a symbol found nowhere points at line 1 of the first file" "$GR/loc.sarif" '
	.runs[0].results[0].locations[0].physicalLocation
	| .artifactLocation.uri == "impls/generic/memset_word.c" and .region.startLine == 1'

# --- bytes that are not UTF-8, and control characters -------------------------
GR_RAW=$GR/raw
cp -r "$GR_BAD" "$GR_RAW"
gr_tsv "$GR_RAW/findings.tsv" fuzz crash "$(printf 'bad byte \xff\xfe, bell \a, escape \033[0m')" "" "" "cand_word crash pc"
expect "gate-report: bytes that are not UTF-8 and control characters still give reports" 0 "^$" \
	scripts/gate-report "$GR_RAW" --json "$GR/raw.json" --sarif "$GR/raw.sarif" --junit "$GR/raw.xml"
gr_jq "gate-report: JSON and SARIF carry them as U+FFFD and escapes" "$GR/raw.json" \
	'.findings[4].detail == "bad byte \ufffd\ufffd, bell \u0007, escape \u001b[0m"'
gr_xml_ok "gate-report: JUnit XML stays well-formed with control characters" "$GR/raw.xml"

# --- the bench check's own class -------------------------------------------------
GR_SLOW=$GR/slow
cp -r "$GR_OK" "$GR_SLOW"
gr_tsv "$GR_SLOW/checks.tsv" bench fail 0 12.5 "1.31 x the best incumbent at worst, over --max-slowdown 1.10"
gr_tsv "$GR_SLOW/findings.tsv" bench slowdown "up to 1.31x slower than the best incumbent (--max-slowdown 1.10)" "" \
	"build/memgate speed --variant=cand_erms,memcpy_erms" "cand_erms slowdown"
expect "gate-report: a slowdown found by the bench check is reported" 0 "^$" \
	scripts/gate-report "$GR_SLOW" --sarif "$GR/slow.sarif"
gr_jq "gate-report: SARIF: a slowdown has its rule" "$GR/slow.sarif" '
	[.runs[0].tool.driver.rules[].id] == ["slowdown"] and .runs[0].results[0].ruleId == "slowdown"'

# --- bad input: one line, exit 2 -----------------------------------------------
GR_M=$GR/malformed
# gr_broken NAME PATTERN FILE SED-SCRIPT: a copy of the rejected work
# directory with FILE edited by SED-SCRIPT is refused, naming the problem.
gr_broken() {
	rm -rf "$GR_M"
	cp -r "$GR_BAD" "$GR_M"
	sed -i "$4" "$GR_M/$3"
	usage_error "gate-report refuses $1" "$2" scripts/gate-report "$GR_M" --json "$GR/m.json"
}
usage_error "gate-report: no work directory" "^gate-report: no work directory '$GR/nope'$" \
	scripts/gate-report "$GR/nope" --json "$GR/m.json"
usage_error "gate-report: no arguments" "^gate-report: no work directory given" scripts/gate-report
usage_error "gate-report: an unknown option" "^gate-report: unknown option '--html' \(valid: --json, --sarif, --junit\)$" \
	scripts/gate-report "$GR_OK" --html x
usage_error "gate-report: an output that cannot be written" "^gate-report: cannot write '$GR/nope/x.sarif': No such file or directory$" \
	scripts/gate-report "$GR_OK" --sarif "$GR/nope/x.sarif"
rm -rf "$GR_M" && cp -r "$GR_BAD" "$GR_M" && rm "$GR_M/findings.tsv"
usage_error "gate-report: a missing findings.tsv" "^gate-report: .*/findings.tsv: missing$" \
	scripts/gate-report "$GR_M" --json "$GR/m.json"
gr_broken "a check line with 4 fields" "checks.tsv line 3: 4 fields, want 5$" checks.tsv \
	"3s/${GR_TAB}stopped after 3 failures//"
gr_broken "a finding line with 7 fields" "findings.tsv line 2: 7 fields, want 6$" findings.tsv "2s/\$/${GR_TAB}x/"
gr_broken "a meta line without its tab" "meta.tsv line 2: 1 fields, want 2$" meta.tsv "2s/${GR_TAB}/ /"
gr_broken "an unknown status" "checks.tsv line 2: status 'failed' \(valid: pass, fail, skip, n/a, error\)$" checks.tsv \
	"2s/${GR_TAB}fail${GR_TAB}/${GR_TAB}failed${GR_TAB}/"
gr_broken "cases that are not a number" "checks.tsv line 3: cases '16k' \(want a whole number\)$" checks.tsv \
	"3s/16393/16k/"
gr_broken "seconds that are not a number" "meta.tsv: seconds '1m5s' is not a decimal number$" meta.tsv \
	"s/^seconds${GR_TAB}.*/seconds${GR_TAB}1m5s/"
gr_broken "a missing verdict" "meta.tsv: no 'verdict' line$" meta.tsv "/^verdict/d"
gr_broken "an unknown verdict" "meta.tsv: verdict 'maybe' \(valid: accepted, rejected, could-not-judge\)$" meta.tsv \
	"s/^verdict${GR_TAB}.*/verdict${GR_TAB}maybe/"
gr_broken "an unknown class" "findings.tsv line 3: class 'segfault' \(valid: wrong-result, " findings.tsv \
	"3s/abi-violation/segfault/"
gr_broken "a build error found by the fuzzer" "findings.tsv line 4: class 'build-error' for check 'fuzz'" findings.tsv \
	"4s/out-of-bounds-write/build-error/"
gr_broken "a finding of a check that passed" "findings.tsv line 3: check 'abi' has status pass" checks.tsv \
	"2s/${GR_TAB}fail${GR_TAB}/${GR_TAB}pass${GR_TAB}/"
gr_broken "a finding of a check not listed" "findings.tsv line 3: check 'abi' \(not in checks.tsv\)$" checks.tsv "2d"

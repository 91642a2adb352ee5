# tier: fast
# Running on other architectures: the probe that says how (or why not),
# the per-arch loop of make verify, and the seeded random-case driver that
# stands in for the fuzzers where they cannot run. Sourced by tests/run.

echo "== other architectures: probing, SKIPs, the random-case driver"
expect "arch-probe names what is missing" 1 "^needs /nonexistent/qemu-aarch64 \(qemu-user\)$" \
	env QEMU_AARCH64=/nonexistent/qemu-aarch64 scripts/arch-probe aarch64
usage_error "arch-probe: an unknown arch" "unknown arch 'sparc' \(valid: x86_64, i386, aarch64, riscv64, armhf\)" \
	scripts/arch-probe sparc
expect_all "make verify: an arch without its tools is a SKIP with the reason, not a pass" 0 \
	"^== aarch64: SKIP \(needs /nonexistent/qemu-aarch64 \(qemu-user\)\)$" \
	"^make verify: aarch64 SKIP \(needs /nonexistent/qemu-aarch64 \(qemu-user\)\)$" -- \
	env QEMU_AARCH64=/nonexistent/qemu-aarch64 make --no-print-directory verify ARCH=aarch64
expect "arch-probe names what riscv64 is missing" 1 "^needs /nonexistent/qemu-riscv64 \(qemu-user\)$" \
	env QEMU_RISCV64=/nonexistent/qemu-riscv64 scripts/arch-probe riscv64
expect "arch-probe names what armhf is missing" 1 "^needs /nonexistent/qemu-arm \(qemu-user\)$" \
	env QEMU_ARM=/nonexistent/qemu-arm scripts/arch-probe armhf
# riscv64 runs under the faster qemu-riscv64 install-deps puts in
# MEMGATE_QEMU_DIR, unless a plugin is wanted and it loads none: a stand-in
# here (Debian's qemu, its -h without -plugin), on any machine.
if command -v qemu-riscv64 >/dev/null && qemu-riscv64 -h | grep -q '^-plugin'; then
	mkdir -p "$TMP/fastq"
	printf '#!/bin/sh\n[ "$1" = -h ] && exit 0\nexec qemu-riscv64 "$@"\n' >"$TMP/fastq/qemu-riscv64"
	chmod +x "$TMP/fastq/qemu-riscv64"
	expect "arch-probe: riscv64 runs under the qemu in MEMGATE_QEMU_DIR" 0 "^$TMP/fastq/qemu-riscv64 -L " \
		env -u QEMU_RISCV64 MEMGATE_QEMU_DIR="$TMP/fastq" scripts/arch-probe riscv64
	expect "arch-probe --plugins: a qemu that loads plugins, for the misaligned watch" 0 "^qemu-riscv64 -L " \
		env -u QEMU_RISCV64 MEMGATE_QEMU_DIR="$TMP/fastq" scripts/arch-probe --plugins riscv64
else
	skip "arch-probe's choice of qemu-riscv64" "no qemu-riscv64 that loads plugins"
fi

# The oracle cases alone cannot show every count bug (a backward memmove
# faults on its first store): a variant expected to fail only at 4 GiB that
# passes them is a SKIP, not a pass and not a surprise.
expect "--huge=oracle: a variant wrong only at 4 GiB that passes the oracle cases is a SKIP" 0 \
	"^memmove_rep_backward .* SKIP \(4GiB\+ check: only its oracle cases ran\)" \
	$MG verify --variant=memmove_rep_backward --huge=oracle --findings="$TMP/findings"

# The driver, natively: it must find a planted bug, save it before it
# prints it, and survive a variant that kills its process.
RAND=build/random
expect_all "random: finds a planted bug, saves it and says how to replay it" 1 \
	"^memgate: FINDING in bad_memmove_always_forward: wrong-result: " \
	"^  replay:    build/memgate run --variant=bad_memmove_always_forward " \
	"^random: [0-9]+ cases in .* seed 0x7: 1 finding " -- \
	$RAND --variant=bad_memmove_always_forward --seconds=20 --seed=7 --max-findings=1 \
	--findings="$TMP/random"
expect "random: the saved input replays the finding" 1 "^REPRODUCED: bad_memmove_always_forward" \
	scripts/repro --variant=bad_memmove_always_forward "$TMP"/random/memmove/*.in
expect_all "random: a variant that aborts is a crash finding, and the run goes on" 1 \
	"^memgate: FINDING in bad_memcpy_aborts: crash: the harness process died of SIGABRT" \
	"^random: 400 cases in " -- \
	$RAND --variant=bad_memcpy_aborts --cases=400 --seconds=60 --seed=3 --findings="$TMP/random"
expect "random: the same seed gives the same cases" 0 \
	"^random: 3000 cases in .* seed 0x5: 0 findings" $RAND --cases=3000 --seconds=60 --seed=5 \
	--findings="$TMP/random"
usage_error "random: an unknown target" "unknown target 'memfrob' \(valid: memcpy, memmove, memset, page, usercopy, all\)" \
	$RAND --target=memfrob
usage_error "random: a bad number" "bad value 'soon' for --seconds" $RAND --seconds=soon

# The same driver on each foreign arch: a self-test of that arch is found
# under emulation, and scripts/repro --arch replays it there.
for arch in i386 aarch64 riscv64; do
	arch_wanted "$arch" || continue
	if ! how=$(scripts/arch-probe "$arch"); then
		skip "random on $arch" "$how"
		continue
	fi
	make -s ARCH="$arch" all >/dev/null 2>&1 || { fail "random on $arch" "make ARCH=$arch all failed"; continue; }
	# Word-split on purpose: the runner prefix (if any), then the program.
	expect_all "random on $arch: finds the signed-compare memmove" 1 \
		"^memgate: FINDING in bad_memmove_signed_compare: wrong-result: " \
		"^  replay:    ${how:+$how }build/$arch/memgate run --variant=bad_memmove_signed_compare " -- \
		$how build/$arch/random --variant=bad_memmove_signed_compare --seconds=60 --seed=1 \
		--max-findings=1 --findings="$TMP/random-$arch"
	expect "repro --arch=$arch replays it on $arch" 1 \
		"^REPRODUCED: bad_memmove_signed_compare fails this case \(wrong-result\)" \
		scripts/repro --arch="$arch" --variant=bad_memmove_signed_compare \
		"$TMP"/random-$arch/memmove/*.in
done

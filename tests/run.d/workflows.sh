# tier: fast
# .github/workflows/ and action.yml (the composite action): every workflow parses as YAML, every repository path
# a run: step calls exists (scripts/..., .ci/run, `make TARGET` with TARGET
# a rule of the Makefile), and every action is pinned to a version tag (or
# a full commit). Nothing here can run GitHub Actions; this only catches a
# workflow that is broken before it ever runs.
# Sourced by tests/run (uses expect, pass, fail, $TMP).

echo "== the GitHub workflows (.github/workflows)"

# check_workflows ROOT: prints one line per problem, "parse|path|pin: ...".
check_workflows() {
	python3 - "$1" <<'PY'
import glob, os, re, sys
import yaml

root = sys.argv[1]
makefile = open(os.path.join(root, "Makefile")).read() if os.path.exists(os.path.join(root, "Makefile")) else ""
# Make targets: rule heads ("name:" but not "name :=") and .PHONY names.
targets = set(re.findall(r"^([A-Za-z0-9_./-]+)\s*:(?!=)", makefile, re.M))
for line in re.findall(r"^\.PHONY\s*:(.*)$", makefile, re.M):
    targets.update(line.split())
# A repository path a step calls: a word starting with one of these.
path_re = re.compile(r"(?:^|[\s;&|(`])((?:scripts|\.ci|tests)/[A-Za-z0-9_./-]+)")
# make as a command (line start, or after ; & | ( `), not as a word in
# "apt-get install make"; its arguments up to the end of the command.
make_re = re.compile(r"(?:^|[;&|(`])[ \t]*make((?:[ \t]+[^\s;&|)]+)*)", re.M)
pin_re = re.compile(r"@(v[0-9]+(\.[0-9]+)*|[0-9a-f]{40})$")

def steps_of(doc):
    runs = doc.get("runs")
    if isinstance(runs, dict):  # a composite action's steps
        for step in runs.get("steps") or []:
            if isinstance(step, dict):
                yield "runs", step
    for job_name, job in (doc.get("jobs") or {}).items():
        if not isinstance(job, dict):
            continue
        if "uses" in job:  # a reusable workflow
            yield job_name, {"uses": job["uses"]}
        for step in job.get("steps") or []:
            if isinstance(step, dict):
                yield job_name, step

files = sorted(glob.glob(os.path.join(root, ".github/workflows/*.yml")) +
               glob.glob(os.path.join(root, ".github/workflows/*.yaml")))
if not files:
    print("parse: no workflow files in %s/.github/workflows" % root)
actions = [os.path.join(root, "action.yml")]
files += [f for f in actions if os.path.exists(f)]
for f in files:
    name = os.path.relpath(f, root)
    try:
        doc = yaml.safe_load(open(f))
    except yaml.YAMLError as e:
        print("parse: %s: %s" % (name, str(e).replace("\n", " ")))
        continue
    if name == "action.yml":
        runs = doc.get("runs") if isinstance(doc, dict) else None
        if not isinstance(runs, dict) or runs.get("using") != "composite" or not runs.get("steps"):
            print("parse: %s: not a composite action with steps" % name)
            continue
    elif not isinstance(doc, dict) or "jobs" not in doc:
        print("parse: %s: no jobs" % name)
        continue
    for job, step in steps_of(doc):
        run = step.get("run")
        if isinstance(run, str):
            # An action's own files, by the path GitHub gives its checkout.
            run = run.replace("$GITHUB_ACTION_PATH/", " ")
            for path in path_re.findall(run):
                full = os.path.join(root, path)
                if not os.path.isfile(full) or not os.access(full, os.X_OK):
                    print("path: %s, job %s: %s is not an executable file" % (name, job, path))
            for args in make_re.findall(run):
                for word in args.split():
                    if word.startswith("-") or "=" in word:
                        continue
                    if word not in targets:
                        print("path: %s, job %s: make %s: no such rule in the Makefile" % (name, job, word))
        uses = step.get("uses")
        if isinstance(uses, str) and not uses.startswith("./"):
            if uses.startswith("docker://"):
                ok = re.search(r":[A-Za-z0-9_.-]+$|@sha256:[0-9a-f]{64}$", uses[len("docker://"):])
            else:
                ok = pin_re.search(uses)
            if not ok:
                print("pin: %s, job %s: %s is not pinned to a version tag" % (name, job, uses))
PY
}

if ! command -v python3 >/dev/null 2>&1; then
	echo "SKIP the GitHub workflows: python3 is not installed (scripts/install-deps installs python3-yaml)"
elif ! python3 -c 'import yaml' 2>/dev/null; then
	echo "SKIP the GitHub workflows: python3 has no yaml module (scripts/install-deps installs python3-yaml)"
else
	problems=$(check_workflows "$PWD" 2>&1)
	for kind in parse path pin; do
		case $kind in
		parse) what="every workflow parses as YAML" ;;
		path) what="every script and make target a workflow runs exists" ;;
		pin) what="every action a workflow uses is pinned to a version tag" ;;
		esac
		if grep -q "^$kind: " <<<"$problems"; then
			fail "$what" "$(grep "^$kind: " <<<"$problems" | head -n 3 | tr '\n' ';')"
		elif [ -n "$problems" ] && grep -qv '^\(parse\|path\|pin\): ' <<<"$problems"; then
			fail "$what" "the check itself failed: $(head -n 3 <<<"$problems" | tr '\n' ' ')"
		else
			pass "$what"
		fi
	done

	# The checks can fail: a workflow with each kind of mistake.
	bad=$TMP/workflows-bad
	mkdir -p "$bad/.github/workflows" "$bad/scripts"
	printf 'all:\n\ttrue\n' >"$bad/Makefile"
	cat >"$bad/.github/workflows/bad.yml" <<'YML'
on: push
jobs:
  one:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@main
      - run: scripts/no-such-script && make no-such-target
YML
	printf 'on: push\njobs: [unclosed\n' >"$bad/.github/workflows/broken.yml"
	cat >"$bad/action.yml" <<'YML'
name: bad
runs:
  using: composite
  steps:
    - uses: actions/upload-artifact@main
    - shell: bash
      run: '"$GITHUB_ACTION_PATH/scripts/no-action-script"'
YML
	problems=$(check_workflows "$bad" 2>&1)
	if grep -q '^parse: .github/workflows/broken.yml' <<<"$problems" &&
		grep -q '^path: .*scripts/no-such-script is not' <<<"$problems" &&
		grep -q '^path: .*make no-such-target: no such rule' <<<"$problems" &&
		grep -q '^pin: .*actions/checkout@main is not pinned' <<<"$problems" &&
		grep -q '^pin: action.yml, job runs: actions/upload-artifact@main is not pinned' <<<"$problems" &&
		grep -q '^path: action.yml, job runs: scripts/no-action-script is not' <<<"$problems"; then
		pass "the workflow checks catch bad YAML, a missing script or make target, an unpinned action (workflows and action.yml)"
	else
		fail "the workflow checks catch bad YAML, a missing script or make target, an unpinned action (workflows and action.yml)" \
			"got: $(tr '\n' ';' <<<"$problems")"
	fi
fi

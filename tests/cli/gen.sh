#!/usr/bin/env bash
# gen.sh - `dfscope gen` from the command line: help, usage errors, file names, determinism.
# Usage: bash gen.sh <dfscope-binary> <traces-dir>   (the corpus is not needed)
set -u

bin=${1:?usage: gen.sh <dfscope-binary> <traces-dir>}
if [[ ! -x $bin ]]; then
    echo "gen.sh: $bin is not an executable" >&2
    exit 1
fi

work=$(mktemp -d /tmp/dfscope-gen-sh.XXXXXX)
trap 'rm -rf "$work"' EXIT
passed=0
failed=0

ok() { passed=$((passed + 1)); }
ko() { failed=$((failed + 1)); echo "FAIL: $*" >&2; }

# run <name> <expected exit> args...: keeps stdout/stderr in $work/out, $work/err
run() {
    local name=$1 want=$2
    shift 2
    "$bin" "$@" >"$work/out" 2>"$work/err"
    local rc=$?
    if [[ $rc -eq $want ]]; then ok; else ko "$name: exit $rc, expected $want ($(head -c 300 "$work/err"))"; fi
}

expect_usage_error() {
    local name=$1
    shift
    run "$name" 2 gen "$@"
    if [[ -s $work/err ]] && grep -q 'dfscope gen' "$work/err"; then ok; else ko "$name: no message on stderr"; fi
    if [[ ! -s $work/out ]]; then ok; else ko "$name: output on stdout"; fi
}

# --- help ----------------------------------------------------------------------------------
run "gen --help" 0 gen --help
if grep -q 'usage: dfscope gen' "$work/out" && grep -q -- '--format' "$work/out"; then ok; else ko "help text"; fi
run "help gen" 0 help gen
if grep -q 'usage: dfscope gen' "$work/out"; then ok; else ko "help gen text"; fi

# --- usage errors --------------------------------------------------------------------------
expect_usage_error "no output dir" --ranks 2
expect_usage_error "bad format" -o "$work/x" --format v9
expect_usage_error "zero ranks" -o "$work/x" --ranks 0
expect_usage_error "bad size" -o "$work/x" --size 12Q
expect_usage_error "zero size" -o "$work/x" --size 0
expect_usage_error "size and events" -o "$work/x" --size 1M --events 10
expect_usage_error "unknown option" -o "$work/x" --frobnicate
expect_usage_error "missing value" -o "$work/x" --ranks
expect_usage_error "stray argument" -o "$work/x" extra
expect_usage_error "bad workload" -o "$work/x" --workload bert
if [[ ! -e $work/x ]]; then ok; else ko "a usage error created the output directory"; fi

# --- file names of every format ------------------------------------------------------------
names_match() { # <dir> <regex> <count>
    local n
    n=$(ls -A "$1" | grep -c -E "$2")
    [[ $n -eq $3 && $(ls -A "$1" | wc -l) -eq $3 ]]
}

for fmt in 2023 v1 v1-h16 v2 chrome; do
    case $fmt in
        v2) re='^trace-[0-9a-f]{16}-app\.pfw$' ;;
        chrome) re='^rank[0-2]\.trace\.json$' ;;
        *) re='^trace-[0-2]-of-3\.pfw$' ;;
    esac
    dir=$work/$fmt
    run "gen $fmt" 0 gen -o "$dir" --format "$fmt" --ranks 3 --size 600k
    if names_match "$dir" "$re" 3; then ok; else ko "$fmt names: $(ls -A "$dir" | tr '\n' ' ')"; fi
    if [[ ! -s $work/out ]]; then ok; else ko "$fmt: output on stdout"; fi
    # one summary line per file and a total on stderr
    if [[ $(grep -c 'events' "$work/err") -eq 4 ]] && grep -q '^total: 3 files' "$work/err"; then ok; else ko "$fmt summary: $(cat "$work/err")"; fi
done

# --- gzip: names and integrity -------------------------------------------------------------
run "gen v2 gzip" 0 gen -o "$work/v2z" --format v2 --ranks 2 --size 2M --gzip --member-size 256k
if names_match "$work/v2z" '^trace-[0-9a-f]{16}-app\.pfw\.gz$' 2; then ok; else ko "v2 gzip names"; fi
if grep -q 'gzip members' "$work/err"; then ok; else ko "gzip summary"; fi
if command -v gzip >/dev/null; then
    if gzip -t "$work"/v2z/*.gz; then ok; else ko "gzip -t"; fi
    first=$(ls "$work"/v2z/*.gz | head -1)
    if [[ $(gzip -dc "$first" | tail -1 | grep -c '"name":"end"') -eq 1 ]]; then ok; else ko "v2 end record last"; fi
fi
run "gen v1 gzip" 0 gen -o "$work/v1z" --ranks 2 --events 500 --gzip
if names_match "$work/v1z" '^trace-[01]-of-2\.pfw\.gz$' 2; then ok; else ko "v1 gzip names"; fi

# --- determinism, --list, --quiet ----------------------------------------------------------
run "first run" 0 gen -o "$work/d1" --ranks 2 --size 1M --seed 7 -q
if [[ ! -s $work/err ]]; then ok; else ko "--quiet still wrote to stderr"; fi
run "second run" 0 gen -o "$work/d2" --ranks 2 --size 1M --seed 7 --jobs 1 --list -q
if cmp -s "$work/d1/trace-0-of-2.pfw" "$work/d2/trace-0-of-2.pfw" &&
    cmp -s "$work/d1/trace-1-of-2.pfw" "$work/d2/trace-1-of-2.pfw"; then ok; else ko "same seed, different bytes"; fi
if [[ $(wc -l <"$work/out") -eq 2 ]] && grep -q 'trace-1-of-2.pfw$' "$work/out"; then ok; else ko "--list output: $(cat "$work/out")"; fi
run "other seed" 0 gen -o "$work/d3" --ranks 2 --size 1M --seed=8 -q
if ! cmp -s "$work/d1/trace-0-of-2.pfw" "$work/d3/trace-0-of-2.pfw"; then ok; else ko "another seed gave the same bytes"; fi

# --- output errors -------------------------------------------------------------------------
touch "$work/plainfile"
run "unwritable output" 4 gen -o "$work/plainfile/sub" --events 100
if [[ -s $work/err ]]; then ok; else ko "no message for an unwritable output"; fi

echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]

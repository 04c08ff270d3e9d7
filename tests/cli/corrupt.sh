#!/usr/bin/env bash
# corrupt.sh DFSCOPE TRACES - the corrupted-trace suite (tests/corrupt/make_corpus.py): every case
# is read by `dfscope stats --json` and `dfscope analyze --format json`, each under a 20 s
# timeout. Checks: no crash and no hang (the exit code is one the contract allows for the case,
# never a signal or the timeout), the JSON output parses, events_total equals the count of intact
# records before the damage computed independently by the generator, and stderr names the place
# of the damage (file and line or offset).
set -u
DFSCOPE=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
TRACES=${2:-}
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d)
trap 'chmod -R u+rwx "$T" 2>/dev/null; rm -rf "$T"' EXIT
pass=0 fail=0
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

# the interpreter itself, not a version manager's shim (which costs ~0.1 s per start)
PY=$(python3 -c 'import sys; print(sys.executable)') || { echo "SKIP: python3 is needed" >&2; exit 77; }
"$PY" "$HERE/../corrupt/make_corpus.py" "$T/cases" "$TRACES" 2>"$T/gen.err" || {
  cat "$T/gen.err" >&2; echo "FAIL: make_corpus.py" >&2; exit 1; }
grep -v '^make_corpus: [0-9]* cases' "$T/gen.err" >&2

# allowed CODES GOT: is GOT in the comma-separated CODES?
allowed() { case ",$1," in *",$2,"*) return 0 ;; *) return 1 ;; esac; }
# describe an exit code for messages
what() {
  case $1 in 124) echo "timeout (hang)" ;; 12[5-7]) echo "exit $1 (could not run)" ;;
             129|1[3-9][0-9]|2[0-9][0-9]) echo "signal $(( $1 - 128 ))" ;;
             *) echo "exit $1" ;; esac
}

started=$(date +%s)
while IFS=$'\t' read -r name path stats_exits analyze_exits events diag options; do
  [ "$options" = "-" ] && options=""
  # shellcheck disable=SC2086  # options is a list of words
  (cd "$T/cases" && timeout 20 "$DFSCOPE" stats --json --no-progress $options "$path" \
     >"$T/stats.json" 2>"$T/stats.err")
  rc=$?
  if ! allowed "$stats_exits" "$rc"; then
    bad "$name: stats: $(what $rc), expected $stats_exits"; sed 's/^/    /' "$T/stats.err" | head -5 >&2
    continue
  fi
  if [ "$events" != "-" ]; then
    got=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["events_total"])' \
          "$T/stats.json" 2>/dev/null)
    [ "$got" = "$events" ] || { bad "$name: events_total ${got:-(no JSON)}, expected $events"; continue; }
  elif [ "$rc" != 2 ] && ! "$PY" -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/stats.json" 2>/dev/null; then
    bad "$name: stats output is not JSON"; continue
  fi
  if [ "$diag" != "-" ] && ! grep -Eq -- "$diag" "$T/stats.err"; then
    bad "$name: stderr does not name the place (/$diag/)"; sed 's/^/    /' "$T/stats.err" | head -8 >&2
    continue
  fi
  (cd "$T/cases" && timeout 20 "$DFSCOPE" analyze --format json --no-progress $options "$path" \
     >"$T/analyze.json" 2>"$T/analyze.err")
  rc=$?
  if ! allowed "$analyze_exits" "$rc"; then
    bad "$name: analyze: $(what $rc), expected $analyze_exits"; sed 's/^/    /' "$T/analyze.err" | head -5 >&2
    continue
  fi
  if [ "$rc" != 2 ] && ! "$PY" -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/analyze.json" 2>/dev/null; then
    bad "$name: analyze output is not JSON"; continue
  fi
  pass=$((pass + 1))
done < "$T/cases/manifest.tsv"

echo "corrupt.sh: $pass cases passed, $fail failed ($(( $(date +%s) - started )) s)"
[ "$fail" = 0 ]

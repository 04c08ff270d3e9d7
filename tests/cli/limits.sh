#!/usr/bin/env bash
# limits.sh DFSCOPE TRACES - resource bounds (docs/RELIABILITY.md): the record-length limit, running
# out of memory, an output that cannot be written completely, and no quadratic behaviour on many
# distinct names, files and threads. Each check names what it expects.
set -u
DFSCOPE=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok()   { pass=$((pass + 1)); }
bad()  { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
check() { local what=$1; shift; if "$@"; then ok; else bad "$what"; fi; }
code() { # expected-exit description command...
  local want=$1 what=$2; shift 2
  "$@" >"$T/out" 2>"$T/err"; local got=$?
  if [ "$got" = "$want" ]; then ok; else bad "$what: exit $got, expected $want"; head -5 "$T/err" >&2; fi
}
PY=$(python3 -c 'import sys; print(sys.executable)') || { echo "SKIP: python3 is needed" >&2; exit 77; }
json_field() { "$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

# N records with distinct names, categories, threads and files (N/2 file-name definitions).
distinct() {
  "$PY" - "$1" <<'EOF'
import sys
n = int(sys.argv[1])
w = sys.stdout.write
w("[\n")
for i in range(n):
    w('{"id":%d,"name":"fn_%07d_x","cat":"cat%d","pid":%d,"tid":%d,"ts":%d,"dur":5,"ph":"X",'
      '"args":{"fhash":%d,"ret":4}}\n' % (i, i, i % 1000, i % 97, i, 1000000 + i, i))
    if i % 2 == 0:
        w('{"id":%d,"name":"FH","cat":"dftracer","pid":1,"tid":1,"ph":"M",'
          '"args":{"name":"/data/file_%d","value":%d}}\n' % (i, i, i + 1))
w("]\n")
EOF
}

# --- --max-record: the limit is named, the rest is read -----------------------------------------
{ printf '{"id":1,"name":"a","cat":"c","pid":1,"tid":1,"ts":1,"dur":1,"ph":"X"}\n'
  printf '{"id":2,"name":"big","cat":"c","pid":1,"tid":1,"ts":2,"dur":1,"ph":"X","args":{"s":"'
  head -c 300000 /dev/zero | tr '\0' 'x'
  printf '"}}\n{"id":3,"name":"b","cat":"c","pid":1,"tid":1,"ts":3,"dur":1,"ph":"X"}\n'; } > "$T/long.pfw"
code 0 "a 300 KB record under the default limit" "$DFSCOPE" stats --json "$T/long.pfw"
check "all three records read" [ "$(json_field "$T/out" "d['events_total']")" = 3 ]
code 1 "a record over --max-record 64k" "$DFSCOPE" stats --json --max-record 64k "$T/long.pfw"
check "the others are kept" [ "$(json_field "$T/out" "d['events_total']")" = 2 ]
check "record_too_large counted" [ "$(json_field "$T/out" "d['problems']['record_too_large']")" = 1 ]
check "the diagnostic names the limit's problem" grep -q 'record_too_large' "$T/err"
check "the diagnostic names file and line" grep -q 'long.pfw:2 (offset' "$T/err"
code 3 "--strict fails on it" "$DFSCOPE" stats --strict --max-record 64k "$T/long.pfw"
code 2 "--max-record without a number" "$DFSCOPE" stats --max-record lots "$T/long.pfw"
check "the bad value is named" grep -q -- 'lots' "$T/err"

# --- many distinct names: linear time -------------------------------------------------------------
distinct 50000 > "$T/n50k.pfw"
distinct 200000 > "$T/n200k.pfw"
cpu_seconds() { # least CPU seconds (user + system) of three runs of a command; output discarded.
  # CPU time and the best of three keep other work on a loaded machine out of the measure.
  local best="" t
  for _ in 1 2 3; do
    t=$( { TIMEFORMAT='%U %S'; time "$@" >/dev/null 2>&1; } 2>&1 | awk '{print $1 + $2}')
    best=$("$PY" -c "print(min(float('$t'), float('${best:-1e9}')))")
  done
  echo "$best"
}
for cmd in "stats --json --top 0" "analyze --format json"; do
  # shellcheck disable=SC2086
  small=$(cpu_seconds timeout 120 "$DFSCOPE" $cmd "$T/n50k.pfw")
  # shellcheck disable=SC2086
  large=$(cpu_seconds timeout 120 "$DFSCOPE" $cmd "$T/n200k.pfw")
  echo "limits.sh: dfscope $cmd: 50k distinct names ${small} s CPU, 200k ${large} s CPU"
  # Four times the input: linear is about 4x, quadratic 16x. The bound leaves room for a loaded
  # machine and for sanitizer builds; the absolute one catches a slow build with a flat ratio.
  check "dfscope $cmd: 200k distinct names in under 60 s (${large} s)" \
    "$PY" -c "import sys; sys.exit(0 if $large < 60 else 1)"
  check "dfscope $cmd: 4x the names takes less than 10x the time (${small} s -> ${large} s)" \
    "$PY" -c "import sys; sys.exit(0 if $large < 10 * max($small, 0.2) else 1)"
done
code 0 "200k distinct names: stats completes" "$DFSCOPE" stats --json "$T/n200k.pfw"
check "every record counted" [ "$(json_field "$T/out" "d['events_total']")" = 300000 ]
check "every file name resolved" [ "$(json_field "$T/out" "d['files_accessed']")" = 100000 ]

# --- out of memory: exit 4 and a message, never a crash or a half result --------------------------
# Not with sanitizers (their shadow memory needs more address space than any useful limit).
if bash -c 'ulimit -v 60000; "$0" --version; rc=$?; exit $rc' "$DFSCOPE" >/dev/null 2>&1; then
  (ulimit -v 60000; exec "$DFSCOPE" stats --json -j 1 "$T/n200k.pfw") >"$T/out" 2>"$T/err"
  got=$?
  if [ "$got" = 4 ]; then ok; else bad "out of memory: exit $got, expected 4"; head -5 "$T/err" >&2; fi
  check "out of memory is said" grep -q 'out of memory' "$T/err"
  check "no partial result on stdout" [ ! -s "$T/out" ]
  (ulimit -v 60000; exec "$DFSCOPE" analyze --format json -j 1 "$T/n200k.pfw") >"$T/out" 2>"$T/err"
  got=$?
  if [ "$got" = 4 ]; then ok; else bad "analyze out of memory: exit $got, expected 4"; head -5 "$T/err" >&2; fi
else
  echo "limits.sh: out-of-memory checks skipped (the binary does not start under ulimit -v: sanitizers)"
fi

# --- an output that cannot be written whole: exit 4, the previous file intact, no temporary left --
printf 'previous result\n' > "$T/res.json"
(trap '' XFSZ; ulimit -f 64; exec "$DFSCOPE" stats --json --top 0 -o "$T/res.json" "$T/n50k.pfw") \
  >"$T/out" 2>"$T/err"
got=$?
if [ "$got" = 4 ]; then ok; else bad "output over the file size limit: exit $got, expected 4"; head -5 "$T/err" >&2; fi
check "the previous output is untouched" grep -qx 'previous result' "$T/res.json"
check "no temporary file left" [ -z "$(find "$T" -maxdepth 1 -name 'res.json?*')" ]

echo "limits.sh: $pass passed, $fail failed"
[ "$fail" = 0 ]

#!/usr/bin/env bash
# stats.sh DFSCOPE TRACES - end-to-end tests of `dfscope stats` and the CLI conventions.
set -u
DFSCOPE=$1
TRACES=$2
. "$(dirname "$0")/testlib.bash"

# --- conventions ---------------------------------------------------------------------------------
code 0 "--version" "$DFSCOPE" --version
check "--version prints the version" grep -q '^dfscope [0-9]' "$T/out"
code 0 "help" "$DFSCOPE" help
check "help lists stats" grep -q 'stats' "$T/out"
code 0 "help stats" "$DFSCOPE" help stats
check "help stats shows options" grep -q -- '--json' "$T/out"
code 0 "stats --help" "$DFSCOPE" stats --help
code 2 "no command" "$DFSCOPE"
code 2 "unknown command" "$DFSCOPE" frobnicate
check "unknown command is named" grep -q frobnicate "$T/err"
code 2 "unknown option" "$DFSCOPE" stats --frobnicate x
code 2 "no input" "$DFSCOPE" stats
code 2 "bad -j" "$DFSCOPE" stats -j zero x
check "bad -j explained" grep -q -- '-j' "$T/err"
code 2 "missing path" "$DFSCOPE" stats "$T/does-not-exist.pfw"
check "missing path named" grep -q 'does-not-exist.pfw' "$T/err"
code 2 "glob matching nothing" "$DFSCOPE" stats "$T/*.nothing"

# --- a small clean trace -------------------------------------------------------------------------
cat > "$T/a.pfw" <<'X'
[
{"id":1,"name":"HH","cat":"dftracer","pid":7,"tid":7,"ph":"M","args":{"name":"node1","value":11}}
{"id":2,"name":"FH","cat":"dftracer","pid":7,"tid":7,"ph":"M","args":{"name":"/data/f1","value":22}}
{"id":3,"name":"read","cat":"POSIX","pid":7,"tid":7,"ts":1000000,"dur":50,"ph":"X","args":{"hhash":11,"fhash":22,"ret":4096}}
{"id":4,"name":"read","cat":"POSIX","pid":7,"tid":8,"ts":1000100,"dur":30,"ph":"X","args":{"hhash":11,"fhash":22,"ret":4096}}
{"id":5,"name":"compute","cat":"ai_framework","pid":7,"tid":7,"ts":1000200,"dur":1000,"ph":"X"}
]
X
code 0 "clean trace" "$DFSCOPE" stats --json "$T/a.pfw"
cp "$T/out" "$T/a.json"
check "events_total" [ "$(json_field "$T/a.json" "d['events_total']")" = 5 ]
check "complete events" [ "$(json_field "$T/a.json" "d['events_by_phase']['complete']")" = 3 ]
check "metadata events" [ "$(json_field "$T/a.json" "d['events_by_phase']['metadata']")" = 2 ]
check "time span" [ "$(json_field "$T/a.json" "d['time_span_ns']")" = 1200000 ]
check "hosts" [ "$(json_field "$T/a.json" "d['hosts']")" = 1 ]
check "files accessed" [ "$(json_field "$T/a.json" "d['files_accessed']")" = 1 ]
check "threads" [ "$(json_field "$T/a.json" "d['threads']")" = 2 ]
check "top name by time" [ "$(json_field "$T/a.json" "d['names'][0]['name']")" = compute ]
check "read count" [ "$(json_field "$T/a.json" "d['names'][1]['count']")" = 2 ]
check "file entry" [ "$(json_field "$T/a.json" "d['files'][0]['format']")" = json-lines ]
check "no problems" [ "$(json_field "$T/a.json" "len(d['problems'])")" = 0 ]
code 0 "table output" "$DFSCOPE" stats "$T/a.pfw"
check "table has names" grep -q 'compute' "$T/out"

# --- damage: exit 1, --strict exit 3, diagnostics name file and line ------------------------------
printf '{"id":1,"name":"a","cat":"c","pid":1,"tid":1,"ts":1,"dur":1,"ph":"X"}\n{"id":2,"name":\n{"id":3,"name":"b","cat":"c","pid":1,"tid":1,"ts":2,"dur":1,"ph":"X"}\n' > "$T/d.pfw"
code 1 "damaged input" "$DFSCOPE" stats "$T/d.pfw"
check "diagnostic names file:line" grep -q "d.pfw:2" "$T/err"
code 3 "strict" "$DFSCOPE" stats --strict "$T/d.pfw"
code 1 "damaged json" "$DFSCOPE" stats --json -q "$T/d.pfw"
check "quiet" [ ! -s "$T/err" ]
check "events kept around damage" [ "$(json_field "$T/out" "d['events_total']")" = 2 ]
check "bad_line counted" [ "$(json_field "$T/out" "d['problems']['bad_line']")" = 1 ]

# --- duplicates: counted by default, dropped from the analysis with --dedup
line='{"id":1,"name":"a","cat":"c","pid":1,"tid":1,"ts":1,"dur":1,"ph":"X"}'
printf '%s\n%s\n' "$line" "$line" > "$T/dup.pfw"
code 0 "duplicate is a legal variant" "$DFSCOPE" stats --json -q "$T/dup.pfw"
check "duplicate counted" [ "$(json_field "$T/out" "d['problems']['duplicate_record']")" = 1 ]
check "duplicate kept without --dedup" [ "$(json_field "$T/out" "d['names'][0]['count']")" = 2 ]
code 0 "dedup" "$DFSCOPE" stats --json -q --dedup "$T/dup.pfw"
check "duplicate dropped with --dedup" [ "$(json_field "$T/out" "d['names'][0]['count']")" = 1 ]

# --- not a trace and mixed inputs ----------------------------------------------------------------
echo "hello" > "$T/notes.txt"
code 0 "not a trace is skipped" "$DFSCOPE" stats --json "$T/notes.txt" "$T/a.pfw"
check "not_traces counted" [ "$(json_field "$T/out" "d['not_traces']")" = 1 ]
code 2 "missing path among good ones" "$DFSCOPE" stats --json "$T/a.pfw" "$T/nope.pfw"
check "missing path among good ones: named" grep -q 'nope.pfw: No such file' "$T/err"
check "missing path among good ones: nothing read, nothing printed" [ ! -s "$T/out" ]

# --- output files: atomic, never over an input ----------------------------------------------------
code 0 "-o writes a file" "$DFSCOPE" stats --json -o "$T/res.json" "$T/a.pfw"
check "-o file is the JSON" [ "$(json_field "$T/res.json" "d['events_total']")" = 5 ]
check "-o leaves no temp file" [ -z "$(ls "$T" | grep '\.tmp\.')" ]
cp "$T/a.pfw" "$T/keep.pfw"
code 2 "refuses to overwrite an input" "$DFSCOPE" stats -o "$T/a.pfw" "$T/a.pfw"
check "input untouched" cmp -s "$T/a.pfw" "$T/keep.pfw"
code 4 "unwritable output" "$DFSCOPE" stats -o "$T/no/such/dir/out.json" "$T/a.pfw"

# --- progress: off when stderr is not a terminal (above: -q leaves stderr empty), forced on demand
code 0 "forced progress" "$DFSCOPE" stats --progress -q "$T/a.pfw"
check "progress shows files and MB/s" grep -q 'files.*MB/s' "$T/err"
code 0 "no progress" "$DFSCOPE" stats --no-progress -q "$T/a.pfw"
check "no progress output" [ ! -s "$T/err" ]

# --- --timing ----------------------------------------------------------------------------------------
code 0 "timing" "$DFSCOPE" stats --json --timing "$T/a.pfw"
check "timing fields" [ "$(json_field "$T/out" "'peak_rss_kb' in d['timing'] and 'text_mb_per_s' in d['timing']")" = True ]

# --- the corpus: any -j gives the same document ----------------------------------------------------
# (--mix: the corpus holds many unrelated jobs)
if [ -f "$TRACES/MANIFEST.md" ]; then
  "$DFSCOPE" stats --json -q --mix -j 1 "$TRACES" > "$T/j1.json"; c1=$?
  "$DFSCOPE" stats --json -q --mix -j 2 "$TRACES" > "$T/j2.json"; c2=$?
  "$DFSCOPE" stats --json -q --mix -j 3 --chunk 4k "$TRACES" > "$T/j3.json"; c3=$?
  check "corpus exit 1 (it holds damaged files)" [ "$c1$c2$c3" = 111 ]
  check "-j 1 and -j 2 identical" cmp -s "$T/j1.json" "$T/j2.json"
  check "-j 3 with 4k chunks identical" cmp -s "$T/j1.json" "$T/j3.json"
  check "corpus events" [ "$(json_field "$T/j1.json" "d['events_total']")" -gt 600000 ]
else
  echo "SKIP: corpus not found at $TRACES; corpus checks skipped" >&2
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

#!/usr/bin/env bash
# overlap.sh DFSCOPE TRACES - end-to-end tests of `dfscope overlap`.
set -u
DFSCOPE=$1
TRACES=$2
. "$(dirname "$0")/testlib.bash"
# near FILE EXPR VALUE: |EXPR - VALUE| <= 1e-6
near() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if abs(eval(sys.argv[2]) - float(sys.argv[3])) <= 1e-6 else 1)" "$@"; }

# --- conventions ---------------------------------------------------------------------------------
code 0 "overlap --help" "$DFSCOPE" overlap --help
check "help names the classes" grep -q -- '--app-io' "$T/out"
code 0 "help overlap" "$DFSCOPE" help overlap
code 0 "help lists overlap" "$DFSCOPE" help
check "overlap in the command list" grep -q 'overlap' "$T/out"
code 2 "no input" "$DFSCOPE" overlap
code 2 "bad scope" "$DFSCOPE" overlap --scope node x
code 2 "bad method" "$DFSCOPE" overlap --method guess x
code 2 "bad granularity" "$DFSCOPE" overlap --granularity 0s x
code 2 "bad format" "$DFSCOPE" overlap --format xml x
check "bad format named" grep -q "\-\-format is table, json or csv, not 'xml'" "$T/err"
code 2 "class without name" "$DFSCOPE" overlap --class 'cat == "x"' x
code 2 "csv needs -o" "$DFSCOPE" overlap --format csv x
code 2 "missing path" "$DFSCOPE" overlap "$T/nope.pfw"

# --- a small trace: one process, compute on one thread, I/O on another ---------------------------
cat > "$T/a.pfw" <<'X'
[
{"id":1,"name":"HH","cat":"dftracer","pid":7,"tid":7,"ph":"M","args":{"name":"node1","value":11}}
{"id":2,"name":"read","cat":"POSIX","pid":7,"tid":8,"ts":1000000,"dur":100,"ph":"X","args":{"hhash":11,"ret":4096}}
{"id":3,"name":"read","cat":"POSIX","pid":7,"tid":8,"ts":1000150,"dur":100,"ph":"X","args":{"hhash":11,"ret":4096}}
{"id":4,"name":"step","cat":"work","pid":7,"tid":7,"ts":1000050,"dur":150,"ph":"X","args":{"hhash":11}}
X
code 2 "bad predicate is named" "$DFSCOPE" overlap --compute 'cat ==' "$T/a.pfw"
check "the class is named" grep -q 'compute' "$T/err"
code 2 "unknown layer" "$DFSCOPE" overlap --compute no_such_layer "$T/a.pfw"
code 0 "json" "$DFSCOPE" overlap --format json --compute 'cat == "work"' "$T/a.pfw"
cp "$T/out" "$T/a.json"
check "method exact" [ "$(json_field "$T/a.json" "d['method']")" = exact ]
check "per_process keyed host:pid" [ "$(json_field "$T/a.json" "list(d['per_process'])")" = "['node1:7']" ]
check "compute_s" near "$T/a.json" "d['summary']['compute_s']" 0.000150
check "io_s" near "$T/a.json" "d['summary']['io_s']" 0.000200
check "io_compute_overlap_s" near "$T/a.json" "d['summary']['io_compute_overlap_s']" 0.000100
check "unoverlapped_io_s" near "$T/a.json" "d['summary']['unoverlapped_io_s']" 0.000100
check "unoverlapped_compute_s" near "$T/a.json" "d['summary']['unoverlapped_compute_s']" 0.000050
check "total_time_s" near "$T/a.json" "d['summary']['total_time_s']" 0.000250
check "no global by default" [ "$(json_field "$T/a.json" "d['global']")" = None ]
check "max and min" [ "$(json_field "$T/a.json" "'max' in d['summary'] and 'min' in d['summary']")" = True ]
for f in total_time_s app_io_s unoverlapped_app_io_s unoverlapped_app_compute_s compute_s io_s unoverlapped_io_s unoverlapped_compute_s; do
  check "field $f" [ "$(json_field "$T/a.json" "'$f' in d['per_process']['node1:7'] and '$f' in d['summary']['max']")" = True ]
done
check "function sizes" near "$T/a.json" "d['functions']['read']['median']" 4096
code 0 "thread scope" "$DFSCOPE" overlap --format json --scope thread --compute 'cat == "work"' "$T/a.pfw"
check "per_thread" [ "$(json_field "$T/out" "sorted(d['per_thread'])")" = "['node1:7:7', 'node1:7:8']" ]
check "threads: nothing overlaps" near "$T/out" "d['summary']['unoverlapped_io_s']" 0.000200
code 0 "approximate" "$DFSCOPE" overlap --format json --approximate --compute 'cat == "work"' "$T/a.pfw"
check "method approximate" [ "$(json_field "$T/out" "d['method']")" = approximate ]
check "approximate: one bin, busiest threads cancel" near "$T/out" "d['global']['unoverlapped_io_s']" 0.000050
code 0 "extra class" "$DFSCOPE" overlap --format json --compute 'cat == "work"' --class 'reads=func_name == "read"' "$T/a.pfw"
check "extra class fields" near "$T/out" "d['summary']['unoverlapped_reads_s']" 0.000100
code 0 "bins" "$DFSCOPE" overlap --format json --granularity 100us --compute 'cat == "work"' "$T/a.pfw"
check "three bins" [ "$(json_field "$T/out" "len(d['bins'])")" = 3 ]
check "bins sum to the total" near "$T/out" "sum(b['io_s'] for b in d['bins'])" 0.000200
code 0 "table" "$DFSCOPE" overlap --compute 'cat == "work"' "$T/a.pfw"
code 0 "--timing" "$DFSCOPE" overlap --timing --compute 'cat == "work"' "$T/a.pfw"
check "timing line" grep -Eq "^dfscope overlap: [0-9.]+ s wall \(finishing [0-9.]+, writing [0-9.]+\), peak RSS [0-9]+ MB" "$T/err"
check "table has the split of time" grep -q 'Unoverlapped I/O' "$T/out"
check "table names the method" grep -q '^method exact' "$T/out"
code 0 "csv" "$DFSCOPE" overlap --format csv -o "$T/csv" --granularity 100us --compute 'cat == "work"' "$T/a.pfw"
check "overlap.csv" grep -q '^node1:7,process,node1,7,' "$T/csv/overlap.csv"
check "summary row" grep -q '^summary,process' "$T/csv/overlap.csv"
check "bins.csv" [ "$(wc -l < "$T/csv/bins.csv")" = 4 ]
check "functions.csv" grep -q '^read,2,2,8192' "$T/csv/functions.csv"
code 0 "-o file" "$DFSCOPE" overlap --format json -o "$T/res.json" "$T/a.pfw"
check "-o leaves no temp file" [ -z "$(ls "$T" | grep '\.tmp\.')" ]
code 2 "refuses to overwrite an input" "$DFSCOPE" overlap -o "$T/a.pfw" "$T/a.pfw"
code 0 "auto-detection is said" "$DFSCOPE" overlap "$T/a.pfw"
check "preset message" grep -q 'preset posix (auto-detected' "$T/err"

# --- damage: results and exit 1; --strict exit 3 ----------------------------------------------------
printf '[\n{"id":1,"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":1,"dur":1,"ph":"X"}\n{"id":2,"name":\n{"id":3,"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":5,"dur":-3,"ph":"X"}\n' > "$T/d.pfw"
code 1 "damaged input" "$DFSCOPE" overlap --format json -q "$T/d.pfw"
check "events kept around damage" [ "$(json_field "$T/out" "d['allocation']['events']")" = 2 ]
check "negative duration counted" [ "$(json_field "$T/out" "d['records']['negative_durations']")" = 1 ]
code 3 "strict" "$DFSCOPE" overlap --strict -q "$T/d.pfw"
printf 'garbage\n\x00\x01\x02' > "$T/g.pfw"
code 0 "not a trace" "$DFSCOPE" overlap --format json -q "$T/g.pfw"

# --- the fixture: reference/dlio-unet3d-hdf5-8rank.md section 5 --------------------------------------
D="$TRACES/dftracer/dlio-unet3d-hdf5-8rank"
if [ -d "$D" ]; then
  code 0 "fixture" "$DFSCOPE" overlap --format json -q -j 2 --global "$D"
  cp "$T/out" "$T/f.json"
  check "preset dlio" [ "$(json_field "$T/f.json" "d['analysis']['preset']")" = dlio ]
  check "8 processes" [ "$(json_field "$T/f.json" "len(d['per_process'])")" = 8 ]
  check "sum |C|" near "$T/f.json" "d['summary']['compute_s']" 272.355584
  check "sum |I|" near "$T/f.json" "d['summary']['io_s']" 129.028577
  check "sum |A|" near "$T/f.json" "d['summary']['app_io_s']" 150.205885
  check "max |I|" near "$T/f.json" "d['summary']['max']['io_s']" 16.532793
  check "min |A|" near "$T/f.json" "d['summary']['min']['app_io_s']" 17.783298
  check "process 1028567" near "$T/f.json" "d['per_process']['corona171:1028567']['io_s']" 16.131312
  check "synchronous loader" near "$T/f.json" "d['summary']['unoverlapped_io_s']" 129.028577
  check "global |I∩C|" near "$T/f.json" "d['global']['io_compute_overlap_s']" 2.304714
  check "global unoverlapped app compute" near "$T/f.json" "d['global']['unoverlapped_app_compute_s']" 34.214562
  check "total time" near "$T/f.json" "d['summary']['total_time_s']" 56.695354
  check "18K events" [ "$(json_field "$T/f.json" "d['allocation']['events_text']")" = 18K ]
  check "56 I/O threads" [ "$(json_field "$T/f.json" "d['allocation']['io_threads']")" = 56 ]
  check "5 epochs" [ "$(json_field "$T/f.json" "[e['label'] for e in d['epochs']]")" = "['1', '2', '3', '4', '5']" ]
  "$DFSCOPE" overlap --format json -q -j 1 --global "$D" > "$T/f1.json"
  check "-j 1 and -j 2 identical" cmp -s "$T/f.json" "$T/f1.json"
  "$DFSCOPE" overlap --format json -q -j 2 --chunk 64k --hold 100 --global "$D" > "$T/f3.json"
  check "cut files: read once (their processes held whole)" [ "$(json_field "$T/f3.json" "d['analysis']['second_pass']")" = False ]
  check "cut files: same numbers" [ "$(json_field "$T/f3.json" "d['summary'] == $(json_field "$T/f.json" "d['summary']") and d['per_process'] == $(json_field "$T/f.json" "d['per_process']")")" = True ]
  code 0 "approximate fixture" "$DFSCOPE" overlap --format json -q --approximate "$D"
  check "G0 Overall App Level I/O" near "$T/out" "d['global']['app_io_s']" 43.018551
  check "G0 Unoverlapped I/O" near "$T/out" "d['global']['unoverlapped_io_s']" 8.491179
  check "G0 suggestion" near "$T/out" "d['suggested_granularity_s']" 3
  code 0 "g0-exact fixture" "$DFSCOPE" overlap --format json -q --method g0-exact "$D"
  check "G0 exact Overall I/O" near "$T/out" "d['global']['io_s']" 21.436765
  code 0 "fixture table" "$DFSCOPE" overlap -q "$D"
  check "pread metrics" grep -q 'pread .*7,200 .*8 B .*80 B .*16.3 MB .*512 B .*512 B .*146.6 MB' "$T/out"
else
  echo "SKIP: corpus not found at $TRACES; fixture checks skipped" >&2
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

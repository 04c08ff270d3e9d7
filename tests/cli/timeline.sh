#!/usr/bin/env bash
# timeline.sh DFSCOPE TRACES - end-to-end tests of `dfscope timeline`: usage errors, the --window
# forms, well-formed SVG (Python's XML parser, and xmllint when installed), lanes and class
# counts of a hand-built trace, escaping, empty windows, windows outside the trace, atomic output,
# determinism over -j, and windows of the corpus when it is present.
set -u
DFSCOPE=$1
TRACES=$2
. "$(dirname "$0")/testlib.bash"

well_formed() { # FILE: parses as XML
  python3 -c "import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])" "$1" || return 1
  if command -v xmllint >/dev/null; then xmllint --noout "$1" || return 1; fi
}

# --- a hand-built trace: two processes, names that need escaping, B/E pairs, counters --------------
cat >"$T/trace.json" <<'EOF'
[
{"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "trainer <rank 0> & co"}},
{"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": "loop \"main\""}},
{"ph": "M", "name": "thread_name", "pid": 1, "tid": 2, "args": {"name": "loader"}},
{"ph": "X", "cat": "app", "name": "step", "pid": 1, "tid": 1, "ts": 1000000, "dur": 100000},
{"ph": "X", "cat": "app", "name": "wait<batch>", "pid": 1, "tid": 1, "ts": 1000000, "dur": 30000},
{"ph": "X", "cat": "app", "name": "forward & backward", "pid": 1, "tid": 1, "ts": 1030000, "dur": 60000},
{"ph": "X", "cat": "io", "name": "read", "pid": 1, "tid": 2, "ts": 1001000, "dur": 20000},
{"ph": "X", "cat": "io", "name": "read", "pid": 1, "tid": 2, "ts": 1022000, "dur": 5000},
{"ph": "B", "cat": "net", "name": "allreduce", "pid": 2, "tid": 7, "ts": 1090000},
{"ph": "E", "cat": "net", "name": "allreduce", "pid": 2, "tid": 7, "ts": 1095000},
{"ph": "X", "cat": "app", "name": "later", "pid": 2, "tid": 7, "ts": 1300000, "dur": 1000},
{"ph": "C", "name": "cpu", "pid": 1, "ts": 1010000, "args": {"percent": 35}},
{"ph": "C", "name": "cpu", "pid": 1, "ts": 1060000, "args": {"percent": 95}}
]
EOF
CLASSES=(--data-wait 'name.str.startswith("wait")' --compute-host 'name.str.contains("forward")'
         --io 'cat == "io"' --transfer 'cat == "net"')

# --- help and usage errors -----------------------------------------------------------------------
code 0 "timeline --help" "$DFSCOPE" timeline --help
check "help names --window" grep -q -- '--window START:END' "$T/out"
code 0 "help timeline" "$DFSCOPE" help timeline
check "main help lists timeline" sh -c "'$DFSCOPE' help | grep -q '^  timeline'"
code 2 "no input" "$DFSCOPE" timeline -o "$T/x.svg"
check "no input explained" grep -q 'no input' "$T/err"
code 2 "no output" "$DFSCOPE" timeline "$T/trace.json"
check "no output explained" grep -q -- '-o FILE.svg' "$T/err"
for w in "1" "1:2:3" "abc:1" "-1:2" "1x:2" "+:1" "1e3:2" "99999999999999999999:"; do
  code 2 "bad --window '$w'" "$DFSCOPE" timeline "$T/trace.json" -o "$T/x.svg" --window "$w"
  check "bad --window '$w' explained" grep -q -- '--window' "$T/err"
done
code 2 "empty window" "$DFSCOPE" timeline "$T/trace.json" -o "$T/x.svg" -w 2:1
check "empty window explained" grep -q 'empty' "$T/err"
code 2 "bad --lanes" "$DFSCOPE" timeline "$T/trace.json" -o "$T/x.svg" --lanes x
code 2 "bad --width" "$DFSCOPE" timeline "$T/trace.json" -o "$T/x.svg" --width 50
code 2 "bad --depth" "$DFSCOPE" timeline "$T/trace.json" -o "$T/x.svg" --depth 0
code 2 "bad --format" "$DFSCOPE" timeline "$T/trace.json" -o "$T/x.svg" --format xml
code 2 "bad predicate" "$DFSCOPE" timeline "$T/trace.json" -o "$T/x.svg" --io 'cat =='
check "bad predicate names the class" grep -q 'io' "$T/err"
code 2 "missing input" "$DFSCOPE" timeline "$T/nope.json" -o "$T/x.svg"
check "missing input named" grep -q 'nope.json' "$T/err"
check "nothing written on usage errors" [ ! -e "$T/x.svg" ]

# --- the hand-built trace ------------------------------------------------------------------------
code 0 "whole trace" "$DFSCOPE" timeline "$T/trace.json" -o "$T/all.svg" "${CLASSES[@]}" --format json
cp "$T/out" "$T/all.json"
check "whole trace: well-formed" well_formed "$T/all.svg"
check "schema" [ "$(json_field "$T/all.json" "d['schema']")" = "dfscope-timeline/1" ]
check "three lanes" [ "$(json_field "$T/all.json" "d['lanes_total']")" = 3 ]
check "lane names" [ "$(json_field "$T/all.json" "[l['thread'] for l in d['lanes']]")" = "['loop \"main\"', 'loader', '']" ]
check "process name" [ "$(json_field "$T/all.json" "d['lanes'][0]['process']")" = "trainer <rank 0> & co" ]
check "classes" [ "$(json_field "$T/all.json" "[d['spans'][k] for k in ('compute','data_wait','io','transfer','other')]")" = "[1, 1, 2, 1, 2]" ]
check "per-lane classes" [ "$(json_field "$T/all.json" "d['lanes'][1]['spans']['io']")" = 2 ]
check "counter chart" [ "$(json_field "$T/all.json" "(d['counters'], d['samples'])")" = "(1, 2)" ]
check "trace span" [ "$(json_field "$T/all.json" "(d['trace']['start_ns'], d['trace']['end_ns'])")" = "(1000000000, 1301000000)" ]
check "escaped process name" grep -q 'trainer &lt;rank 0&gt; &amp; co' "$T/all.svg"
check "escaped span name" grep -q 'wait&lt;batch&gt;' "$T/all.svg"
check "escaped thread name" grep -q 'loop &quot;main&quot;' "$T/all.svg"
check "hover title" grep -q '<title>forward &amp; backward&#10;compute&#10;start +30.000 ms' "$T/all.svg"
check "counter chart drawn" grep -q '>cpu: percent</text>' "$T/all.svg"

code 0 "table summary" "$DFSCOPE" timeline "$T/trace.json" -o "$T/all2.svg" "${CLASSES[@]}"
check "table names the lanes" grep -q 'trainer <rank 0> & co (pid 1) / loader: 2 spans' "$T/out"
check "table counts the classes" grep -q 'compute 1, data wait 1, I/O 2, transfer 1, other 2' "$T/out"
check "same picture again" cmp -s "$T/all.svg" "$T/all2.svg"
code 0 "-j 1" "$DFSCOPE" timeline -j 1 "$T/trace.json" -o "$T/j1.svg" "${CLASSES[@]}"
check "same picture with -j 1" cmp -s "$T/all.svg" "$T/j1.svg"

# without overrides a plain Chrome trace has no class defaults: everything is "other"
code 0 "defaults" "$DFSCOPE" timeline "$T/trace.json" -o "$T/plain.svg" --format json
check "generic source: other" [ "$(json_field "$T/out" "d['spans']['other']")" = 7 ]

# window forms: relative, open, absolute, with units
code 0 "relative window" "$DFSCOPE" timeline "$T/trace.json" -o "$T/rel.svg" -w +20ms:+60ms --format json
check "relative window resolved" [ "$(json_field "$T/out" "(d['window']['start_ns'], d['window']['end_ns'])")" = "(1020000000, 1060000000)" ]
check "relative window spans" [ "$(json_field "$T/out" "sum(d['spans'].values())")" = 5 ]
check "relative window: well-formed" well_formed "$T/rel.svg"
code 0 "open start" "$DFSCOPE" timeline "$T/trace.json" -o "$T/open.svg" -w :1.05 --format json
check "open start is the trace start" [ "$(json_field "$T/out" "d['window']['start_ns']")" = 1000000000 ]
code 0 "absolute window" "$DFSCOPE" timeline "$T/trace.json" -o "$T/abs.svg" -w 1.0895:1.1 --format json
check "absolute window: the pair only" [ "$(json_field "$T/out" "sum(d['spans'].values())")" = 3 ]
code 0 "lane limit" "$DFSCOPE" timeline "$T/trace.json" -o "$T/lim.svg" --lanes 1 --format json
check "lane limit keeps the busiest" [ "$(json_field "$T/out" "[l['drawn'] for l in d['lanes']]")" = "[True, False, False]" ]
check "lane limit noted" grep -q '2 lanes omitted' "$T/lim.svg"

# a window inside the trace without events, and windows outside it
code 0 "empty window inside" "$DFSCOPE" timeline "$T/trace.json" -o "$T/empty.svg" -w 1.2:1.25
check "empty window: well-formed" well_formed "$T/empty.svg"
check "empty window: said" grep -q 'no events in this window' "$T/empty.svg"
code 2 "window after the trace" "$DFSCOPE" timeline "$T/trace.json" -o "$T/out.svg" -w 5:6
check "outside explained" grep -q 'outside the trace, which spans 1.000000000 to 1.301000000 s' "$T/err"
check "outside: nothing written" [ ! -e "$T/out.svg" ]
code 2 "window after the trace, relative" "$DFSCOPE" timeline "$T/trace.json" -o "$T/out.svg" -w +10s:
check "relative outside: nothing written" [ ! -e "$T/out.svg" ]
echo '[]' >"$T/none.json"
code 2 "no timed events" "$DFSCOPE" timeline "$T/none.json" -o "$T/out.svg"
check "no timed events explained" grep -q 'no timed' "$T/err"
code 2 "no timed events, absolute window" "$DFSCOPE" timeline "$T/none.json" -o "$T/out.svg" -w 1:2
check "no timed events, absolute window explained" grep -q 'no timed' "$T/err"
: >"$T/empty.pfw"
code 2 "an empty file" "$DFSCOPE" timeline "$T/empty.pfw" -o "$T/out.svg" -w 1:2
check "an empty file: nothing written" [ ! -e "$T/out.svg" ]

# output: atomic, never over an input, stdout
echo "previous" >"$T/keep.svg"
code 0 "replace an output" "$DFSCOPE" timeline "$T/trace.json" -o "$T/keep.svg"
check "replaced whole" well_formed "$T/keep.svg"
code 2 "refuse to overwrite the input" "$DFSCOPE" timeline "$T/trace.json" -o "$T/trace.json"
check "input untouched" python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$T/trace.json"
code 4 "unwritable output" "$DFSCOPE" timeline "$T/trace.json" -o "$T/missing-dir/x.svg"
check "unwritable output explained" grep -q 'missing-dir/x.svg' "$T/err"
check "no temporary files left" [ -z "$(ls "$T" | grep '\.tmp\.')" ]
code 0 "stdout" "$DFSCOPE" timeline "$T/trace.json" -o -
check "stdout is the picture" sh -c "head -1 '$T/out' | grep -q '^<?xml'"

# --- the corpus ----------------------------------------------------------------------------------
if [ ! -d "$TRACES" ]; then
  echo "timeline.sh: corpus absent, its checks skipped ($pass passed, $fail failed)"
  [ "$fail" = 0 ] || exit 1
  exit 0
fi
K="$TRACES/kineto/resnet50-dataloader/resnet50_num_workers_0__worker0.1623143089861.pt.trace.json.gz"
code 0 "kineto step" "$DFSCOPE" timeline "$K" -w 1623142623.636318:1623142623.810310 -o "$T/k.svg" --format json
check "kineto: well-formed" well_formed "$T/k.svg"
check "kineto: 4 lanes" [ "$(json_field "$T/out" "d['lanes_total']")" = 4 ]
check "kineto: one data-loader wait" [ "$(json_field "$T/out" "d['spans']['data_wait']")" = 1 ]
check "kineto: lanes" [ "$(json_field "$T/out" "[l['thread'] or l['tid'] for l in d['lanes']]")" = "['stream 7', 'thread 25738 (python)', 'thread 25772 (python)', 'PyTorch Profiler']" ]
check "kineto: small picture" [ "$(stat -c %s "$T/k.svg")" -lt 600000 ]
code 0 "kineto relative" "$DFSCOPE" timeline "$K" -w +176.302ms:+350.294ms -o "$T/k2.svg"
check "relative = absolute" cmp -s "$T/k.svg" "$T/k2.svg"
code 0 "dlio window" "$DFSCOPE" timeline "$TRACES/dftracer/dlio-unet3d-hdf5-8rank" -w +10:+12 --lanes 3 -o "$T/d.svg" --format json
check "dlio: well-formed" well_formed "$T/d.svg"
check "dlio: 3 of 8 lanes" [ "$(json_field "$T/out" "(d['lanes_drawn'], d['lanes_total'])")" = "(3, 8)" ]
check "dlio: I/O seen" [ "$(json_field "$T/out" "d['spans']['io'] > 0")" = True ]
code 0 "composer ranks" "$DFSCOPE" timeline "$TRACES"/composer/ep0-ba5-rank{0,1}.synthetic.json -o "$T/c.svg" --format json
check "composer: counters" [ "$(json_field "$T/out" "(d['counters'], d['samples'])")" = "(6, 36)" ]
check "composer: B/E all paired" [ "$(json_field "$T/out" "(d['unmatched_begin'], d['unmatched_end'])")" = "(0, 0)" ]

echo "timeline.sh: $pass passed, $fail failed"
[ "$fail" = 0 ]

#!/usr/bin/env bash
# dataloader.sh DFSCOPE TRACES - end-to-end tests of `dfscope dataloader` (SageMaker Debugger's
# data-loader analysis). The exact numbers are checked by tests/unit/test_dataloader*.c.
set -u
DFSCOPE=$1
TRACES=$2
. "$(dirname "$0")/testlib.bash"
RES=$TRACES/smdebug/tests/profiler/resources

# --- help and usage errors -----------------------------------------------------------------------
code 0 "dataloader --help" "$DFSCOPE" dataloader --help
check "help names the options" grep -q -- '--getnext REGEX' "$T/out"
code 0 "help dataloader" "$DFSCOPE" help dataloader
check "main help lists dataloader" sh -c "'$DFSCOPE' help | grep -q '^  dataloader'"
code 2 "no input" "$DFSCOPE" dataloader
code 2 "unknown format" "$DFSCOPE" dataloader --format xml x
check "unknown format explained" grep -q 'table, json or csv' "$T/err"
code 2 "bad --max-windows" "$DFSCOPE" dataloader --max-windows -1 x
code 2 "bad --window-events" "$DFSCOPE" dataloader --window-events many x
code 2 "csv without -o" "$DFSCOPE" dataloader --format csv x
check "csv needs a directory" grep -q 'give -o DIR' "$T/err"
code 2 "invalid regex" "$DFSCOPE" dataloader --getnext '(unclosed' x
check "invalid regex named" grep -q "getnext pattern '(unclosed'" "$T/err"
code 2 "missing input" "$DFSCOPE" dataloader "$T/does-not-exist.json"
check "missing input named" grep -q 'does-not-exist' "$T/err"

# --- a synthetic job: GetNext calls with an outlier, system metrics ------------------------------
dataloader_job "$T/job"
code 0 "synthetic job" "$DFSCOPE" dataloader -q "$T/job"
check "GetNext outlier reported" grep -q 'calls: 6, median 100 us, max 900 us; outliers (>= 2 x median): 1' "$T/out"
check "batch outlier reported" grep -q '2020-09-13T12:26:40:040000  2020-09-13T12:26:40:100000              0.060000' "$T/out"
check "window system samples" grep -q 'algo-1            CPUUtilization          cpu0           2          10          20          30' "$T/out"

code 0 "json" "$DFSCOPE" dataloader -q --format json -o "$T/job.json" --windows "$T/win" "$T/job"
check "json schema" [ "$(json_field "$T/job.json" "d['schema']")" = dfscope-dataloader/1 ]
check "json GetNext" [ "$(json_field "$T/job.json" "(d['getnext']['count'], d['getnext']['median_us'], len(d['getnext']['outliers']))")" = "(6, 100, 1)" ]
check "json batch" [ "$(json_field "$T/job.json" "(d['batch_time']['count'], d['batch_time']['median_s'], d['batch_time']['outliers'][0]['BatchTime_in_seconds'])")" = "(5, 0.01, 0.06)" ]
check "json windows" [ "$(json_field "$T/job.json" "[w['kind'] for w in d['windows']]")" = "['getnext', 'batch']" ]
check "json window metric" [ "$(json_field "$T/job.json" "d['windows'][1]['system'][0]['mean']")" = 20 ]
check "json absent sets" [ "$(json_field "$T/job.json" "(d['initializations']['present'], d['workers']['present'])")" = "(False, False)" ]
for f in getnext-1.json getnext-1.svg batch-1.json batch-1.svg; do
  check "window file $f" [ -s "$T/win/$f" ]
done
check "slice is Chrome JSON" python3 -c "
import json,sys; d=json.load(open(sys.argv[1])); ev=d['traceEvents']
assert sum(e['ph']=='X' for e in ev)==3 and sum(e['ph']=='C' for e in ev)==2, ev" "$T/win/batch-1.json"
check "picture is SVG" python3 -c "
import sys, xml.etree.ElementTree as ET; r=ET.parse(sys.argv[1]).getroot(); assert r.tag.endswith('svg')" "$T/win/batch-1.svg"
code 2 "refuses to write over an input" "$DFSCOPE" dataloader -q -o "$T/job/1600000000.algo-1.json" "$T/job"

code 0 "csv" "$DFSCOPE" dataloader -q --format csv -o "$T/csv" "$T/job"
for f in summary outliers rows window_metrics; do
  check "$f.csv written" [ -s "$T/csv/$f.csv" ]
done
check "rows.csv has every GetNext row" [ "$(grep -c '^getnext,' "$T/csv/rows.csv")" = 6 ]
check "summary names batch time" grep -q '^batch_time,,true,5,10000,60000,1,,' "$T/csv/summary.csv"

"$DFSCOPE" dataloader -q -j1 --format json "$T/job" > "$T/j1.json"
"$DFSCOPE" dataloader -q -j2 --format json "$T/job" > "$T/j2.json"
check "same output for any -j" cmp -s "$T/j1.json" "$T/j2.json"

# --- system-metric files: a corrupt last line is skipped, any other is an error ------------------
mkdir -p "$T/mid"
{ head -1 "$T/job/1600000000.algo-1.json"; echo '{"Type": "cpu", "Na'; tail -1 "$T/job/1600000000.algo-1.json"; } \
  > "$T/mid/1600000000.algo-1.json"
code 2 "a corrupt line in the middle" "$DFSCOPE" dataloader "$T/mid"
check "the file is an error" grep -q 'error: .*1600000000.algo-1.json: 1 corrupt lines, not only the last one' "$T/err"
check "the report says rejected" grep -q '^error: system file' "$T/out"

if [ -d "$RES" ]; then
  code 1 "corrupt last line" "$DFSCOPE" dataloader "$RES/1591160699.algo-1.json.corrupt"
  check "skipped line in the output" grep -q 'corrupt last line skipped (13 samples read)' "$T/out"
  check "skipped line in the problem report" grep -q 'bad_line: 1' "$T/err"
  code 3 "corrupt last line under --strict" "$DFSCOPE" dataloader --strict -q "$RES/1591160699.algo-1.json.corrupt"

  code 0 "merge_traces defaults" "$DFSCOPE" dataloader "$RES/merge_traces"
  check "all four analyses absent" [ "$(grep -c 'the events are not present' "$T/out")" = 4 ]
  code 0 "merge_traces DoCompute" "$DFSCOPE" dataloader -q --format json --getnext 'IteratorGetNextOp::DoCompute' "$RES/merge_traces"
  cp "$T/out" "$T/dc.json"
  check "DoCompute numbers" [ "$(json_field "$T/dc.json" "(d['getnext']['median_us'], d['batch_time']['count'], d['batch_time']['median_s'], [o['BatchTime_in_seconds'] for o in d['batch_time']['outliers']])")" = "(32, 39, 0.085156, [2.608205, 2.085947, 1.354669])" ]
  check "user mapping named" [ "$(json_field "$T/dc.json" "d['mappings'][0]['source']")" = user ]

  code 0 "kineto mapping" "$DFSCOPE" dataloader -q "$TRACES/kineto/resnet50-dataloader/resnet50_num_workers_0__worker0.1623143089861.pt.trace.json.gz"
  check "kineto mapping named" grep -q '^  getnext     kineto    concept      1        6' "$T/out"
  check "kineto batch time" grep -q 'batches: 5 in 1 (node, pid) groups, median 176532 us' "$T/out"
fi

echo "dataloader.sh: $pass passed, $fail failed"
[ "$fail" = 0 ]

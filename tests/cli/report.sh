#!/usr/bin/env bash
# report.sh DFSCOPE [TRACES] - `dfscope report` (docs/REPORT.md): the command's options and refusals,
# a generated DLIO-like job (one read, the breakdown summing to the wall, the verdict, insights with
# evidence and remedy, trace strings escaped), then the corpus: the 8-rank DLIO sample is
# input-bound and storage-bound with the pread share as evidence, ResNet-50 with num_workers=0 is
# input-bound with the num_workers remedy and num_workers=4 is not, every page fits 40 lines and
# no insight lacks evidence or remedy (checked on the JSON). Corpus cases are skipped with a
# message when the corpus is absent.
set -u
DFSCOPE=$1
TRACES=${2:-}
source "$(dirname "$0")/testlib.bash"

# The JSON's invariants: schema, the breakdown summing to its wall time, every insight complete.
json_ok() {
  python3 - "$1" <<'EOF'
import json, math, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "dfscope-report/1", d["schema"]
b = d["breakdown"]
if b["parts"]:
    total = sum(p["seconds"] for p in b["parts"])
    assert abs(total - b["wall_time_s"]) <= 1e-6 * max(1, b["wall_time_s"]), (total, b["wall_time_s"])
for i in d["insights"]:
    assert i["id"] and i["severity"] in ("critical", "warning", "info"), i
    assert i["evidence"]["text"] and i["evidence"]["facts"], i["id"]
    assert "n/a" not in i["evidence"]["text"], i["evidence"]["text"]
    assert i["remedy"] and i["command"], i["id"]
    assert any(f.get("condition") for f in i["evidence"]["facts"]), i["id"]
assert d["verdict"]["label"] and d["verdict"]["why"]
assert d["glossary"]["wall time"]
text = open(sys.argv[1]).read()
assert "nan" not in text.lower().replace("nanos", ""), "nan in the JSON"
EOF
}
has_id() { python3 -c "import json,sys; sys.exit(sys.argv[2] not in [i['id'] for i in json.load(open(sys.argv[1]))['insights']])" "$1" "$2"; }
lacks_id() { ! has_id "$@"; }

# --- the command line ----------------------------------------------------------------------------
code 0 "--help" "$DFSCOPE" report --help
check "--help: the rule options" grep -q -- "--param NAME=VALUE" "$T/out"
check "--help: json" grep -q "dfscope-report/1" "$T/out"
code 2 "no input" "$DFSCOPE" report
check "no input: said" grep -q "dfscope report: no input" "$T/err"
code 2 "csv is no report format" "$DFSCOPE" report --format csv "$T"
code 2 "an unknown parameter" "$DFSCOPE" report --param input-bound.shar=0.1 "$T"
check "an unknown parameter: the closest" grep -q "Did you mean 'input-bound.share'" "$T/err"
code 2 "a parameter without a number" "$DFSCOPE" report --param input-bound.share=lots "$T"
code 2 "a missing rule file" "$DFSCOPE" report --rules "$T/none.yaml" "$T"
check "a missing rule file: named" grep -q "none.yaml" "$T/err"
printf 'rules:\n  - id: x\n    colour: red\n' > "$T/bad.yaml"
code 2 "a bad rule file" "$DFSCOPE" report --rules "$T/bad.yaml" "$T"
check "a bad rule file: its place" grep -q "bad.yaml:3:5: unknown key 'colour'" "$T/err"
code 0 "--list-rules" "$DFSCOPE" report --list-rules
check "--list-rules: parameters" grep -q "^  input-bound.share=0.05$" "$T/out"

# --- two jobs: refused as by every reading command, --mix takes them ---------------------------
mkdir -p "$T/two"
echo '[{"name":"step","cat":"c","ph":"X","ts":1700000000000000,"dur":1000,"pid":1,"tid":1}]' > "$T/two/a.json"
echo '[{"name":"step","cat":"c","ph":"X","ts":1700300000000000,"dur":1000,"pid":1,"tid":1}]' > "$T/two/b.json"
code 2 "two jobs" "$DFSCOPE" report -q "$T/two"
check "two jobs: nothing written" [ ! -s "$T/out" ]
check "two jobs: said" grep -q "these inputs hold 2 jobs" "$T/err"
code 0 "two jobs, --mix" "$DFSCOPE" report -q --mix "$T/two"
check "two jobs, --mix: no verdict for a kind the report does not analyse" grep -q "not in this report: Chrome trace-event files" "$T/out"

# --- a generated DLIO-like job, with a call name holding a terminal escape ----------------------
"$DFSCOPE" gen -q -o "$T/gen" --ranks 2 --size 2M >/dev/null 2>&1
sed -i 's/"name":"read","cat":"POSIX"/"name":"re\\u001b[31mad","cat":"POSIX"/' "$T/gen/trace-0-of-2.pfw" "$T/gen/trace-1-of-2.pfw"
code 0 "generated job" "$DFSCOPE" report "$T/gen"
check "generated: input-bound and storage-bound" grep -q "^verdict: INPUT-BOUND, STORAGE-BOUND" "$T/out"
check "generated: one read" sh -c "! grep -q 'read twice' '$T/out'"
check "generated: the breakdown" grep -q "^  data wait not hidden " "$T/out"
check "generated: no raw escape byte" sh -c "! grep -q $'\x1b' '$T/out'"
check "generated: the call name escaped" grep -q 're\\x1b\[31mad\|re\\033\[31mad\|re\\e\[31mad\|re\\u001b\[31mad' "$T/out"
check "generated: at most 40 lines" [ "$(wc -l < "$T/out")" -le 40 ]
code 0 "generated, JSON" "$DFSCOPE" report --format json -o "$T/gen.json" "$T/gen"
check "generated, JSON: nothing on stdout" [ ! -s "$T/out" ]
check "generated, JSON: invariants" json_ok "$T/gen.json"
check "generated, JSON: the escape kept as text" grep -q 're\\u001b\[31mad' "$T/gen.json"
code 0 "generated, a threshold raised" "$DFSCOPE" report --param input-bound.share=0.9 --format json -o "$T/raised.json" "$T/gen"
check "a threshold raised: input-bound no more" lacks_id "$T/raised.json" input-bound
printf 'rules:\n  - id: compute-heavy\n    when: [{metric: compute_share, at_least: 0.5, param: share}]\n    evidence: "compute is {compute_share} of the wall"\n    remedy: "a faster model"\n    command: "dfscope overlap"\n    severity: info\n' > "$T/mine.yaml"
code 0 "generated, --rules" "$DFSCOPE" report --rules "$T/mine.yaml" --format json -o "$T/mine.json" "$T/gen"
check "--rules: the user's rule fired" has_id "$T/mine.json" compute-heavy

# many insights: the page still fits 40 lines, the others counted
printf 'rules:\n' > "$T/many.yaml"
for i in $(seq 1 12); do
  printf '  - id: r%s\n    when: [{metric: ranks, at_least: 1, param: p}]\n    stake: wall_s\n    evidence: "{ranks} ranks"\n    remedy: "none"\n    command: "dfscope stats"\n' "$i" >> "$T/many.yaml"
done
code 0 "many insights" "$DFSCOPE" report -q --rules "$T/many.yaml" "$T/gen"
check "many insights: at most 40 lines" [ "$(wc -l < "$T/out")" -le 40 ]
check "many insights: the others counted" grep -q "^  and [0-9]* more: --format json lists them all" "$T/out"

# --- under mpirun: the answer of one process, written once ------------------------------------
if command -v mpirun >/dev/null; then
  MPIRUN=(mpirun)
  if mpirun --version 2>&1 | grep -q "Open MPI"; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
    MPIRUN+=(--oversubscribe)
  fi
  "$DFSCOPE" report -q "$T/gen" > "$T/one.txt" 2>/dev/null
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" code 0 "2 MPI ranks" timeout 120 "${MPIRUN[@]}" -np 2 "$DFSCOPE" report -q "$T/gen"
  check "2 MPI ranks: the report of one process, once" cmp -s "$T/out" "$T/one.txt"
else
  echo "report.sh: mpirun not found: the MPI case skipped"
fi

# --- the corpus ----------------------------------------------------------------------------------
if [ -z "$TRACES" ] || [ ! -d "$TRACES/dftracer/dlio-unet3d-hdf5-8rank" ]; then
  echo "report.sh: the trace corpus is absent (${TRACES:-no path given}): corpus cases skipped"
else
  DLIO=$TRACES/dftracer/dlio-unet3d-hdf5-8rank
  code 0 "DLIO 8 ranks" "$DFSCOPE" report "$DLIO"
  check "DLIO: input-bound and storage-bound" grep -q "^verdict: INPUT-BOUND, STORAGE-BOUND" "$T/out"
  check "DLIO: 8 processes" grep -q "^job: 8 processes; DFTracer traces: 8 files, 18,279 records (18,039 events, 240 metadata); layers of preset dlio$" "$T/out"
  check "DLIO: the pread share as evidence" grep -q "of the I/O time is pread" "$T/out"
  check "DLIO: at most 40 lines" [ "$(wc -l < "$T/out")" -le 40 ]
  code 0 "DLIO, JSON" "$DFSCOPE" report --format json -o "$T/dlio.json" "$DLIO"
  check "DLIO, JSON: invariants" json_ok "$T/dlio.json"
  check "DLIO, JSON: storage-bound rests on pread" python3 -c "
import json,sys; d=json.load(open(sys.argv[1]))
i=[i for i in d['insights'] if i['id']=='storage-bound'][0]
f=[f for f in i['evidence']['facts'] if f['metric']=='top_io_call_share'][0]
assert f['where']=='pread' and f['value']>0.9 and i['severity']=='critical'" "$T/dlio.json"
  check "DLIO, JSON: layer wall times" python3 -c "
import json,sys; d=json.load(open(sys.argv[1])); l={x['name']:x for x in d['layers']}
assert l['compute']['wall_time_s']>0 and l['posix']['busy_s']>0" "$T/dlio.json"
  code 0 "CM1, 48 ranks of I/O" "$DFSCOPE" report -q --format json -o "$T/cm1.json" "$TRACES/dftracer/cm1-48rank"
  check "CM1, JSON: invariants" json_ok "$T/cm1.json"
  check "CM1: many small files" has_id "$T/cm1.json" many-small-files
  check "CM1: metadata-heavy" has_id "$T/cm1.json" metadata-heavy
  check "CM1: not I/O-bound (its I/O is 0.5 % of the wall time)" python3 -c "
import json,sys; d=json.load(open(sys.argv[1])); assert d['verdict']['label']=='not I/O-bound', d['verdict']" "$T/cm1.json"
  K=$TRACES/kineto/resnet50-dataloader
  code 0 "ResNet-50 num_workers=0" "$DFSCOPE" report -q "$K"/resnet50_num_workers_0_*.pt.trace.json.gz
  check "nw0: input-bound" grep -q "^verdict: INPUT-BOUND" "$T/out"
  check "nw0: the num_workers remedy" grep -q "remedy: set DataLoader(num_workers=N)" "$T/out"
  check "nw0: one read" sh -c "! grep -q 'read twice' '$T/out'"
  check "nw0: at most 40 lines" [ "$(wc -l < "$T/out")" -le 40 ]
  for f in "$K"/resnet50_num_workers_4_*.pt.trace.json.gz; do
    code 0 "ResNet-50 num_workers=4" "$DFSCOPE" report -q "$f"
    check "nw4: not input-bound" sh -c "! grep -q 'INPUT-BOUND' '$T/out'"
    check "nw4: at most 40 lines" [ "$(wc -l < "$T/out")" -le 40 ]
    code 0 "nw4, JSON" "$DFSCOPE" report -q --format json -o "$T/nw4.json" "$f"
    check "nw4, JSON: invariants" json_ok "$T/nw4.json"
    check "nw4, JSON: no input-bound insight" lacks_id "$T/nw4.json" input-bound
  done
  code 0 "Composer, 2 ranks" "$DFSCOPE" report -q "$TRACES"/composer/ep0-ba5-rank*.synthetic.json
  check "Composer: a verdict from its steps" grep -q "^verdict: INPUT-BOUND" "$T/out"
  check "Composer: 2 runs" grep -q "^job: 2 runs; Composer traces: 2 files" "$T/out"
  DASF=$TRACES/dasf/Tutorial_5_Profile-TracePlugin-c096.reconstructed.msgpack
  code 0 "DASF" "$DFSCOPE" report -q --format json -o "$T/dasf.json" "$DASF"
  check "DASF, JSON: invariants" json_ok "$T/dasf.json"
  check "DASF: analysed, 2 workers, getGPUs the bottleneck function" python3 -c "
import json,sys; d=json.load(open(sys.argv[1])); s=d['job']['sources'][0]
assert s['analysed'] and d['job']['ranks']==2 and d['job']['ranks_are']=='workers'
i=[i for i in d['insights'] if i['id']=='task-bottleneck-function'][0]
assert [f for f in i['evidence']['facts'] if f['metric']=='top_function_share'][0]['where']=='getGPUs'" "$T/dasf.json"
  # a critical insight without a verdict label heads the verdict: no "no bottleneck found" above it
  code 0 "smdebug merge_traces" "$DFSCOPE" report -q "$TRACES/smdebug/tests/profiler/resources/merge_traces"
  check "smdebug: the slow first step is the verdict" grep -q "^verdict: SLOW FIRST STEP (1 critical" "$T/out"
  code 0 "DASF, synthetic graph" "$DFSCOPE" report -q "$TRACES/dasf/test_analysis_integration_events.synthetic.msgpack"
  check "DASF, synthetic graph: the bottleneck function first, then critical-path-bound" grep -q "^verdict: BOTTLENECK FUNCTION, CRITICAL-PATH-BOUND" "$T/out"
  code 0 "DASF, resource samples only" "$DFSCOPE" report -q "$TRACES/dasf/Tutorial_5_Profile-ResourceMonitor-c096.reconstructed.msgpack"
  check "DASF, resource samples only: no verdict, why" grep -q "no Compute event found in them" "$T/out"
  SYS=$TRACES/smdebug/tests/profiler/resources/1591160699.algo-1.json
  code 0 "smdebug system metrics" "$DFSCOPE" report -q "$SYS"
  check "smdebug system metrics: a verdict from the profiler rules' numbers" grep -q "^verdict: LOW GPU UTILIZATION" "$T/out"
  code 0 "nw0, JSON" "$DFSCOPE" report -q --format json -o "$T/nw0.json" "$K"/resnet50_num_workers_0_*.pt.trace.json.gz
  check "nw0, JSON: invariants" json_ok "$T/nw0.json"
  check "nw0, JSON: input-bound" has_id "$T/nw0.json" input-bound
  check "nw0, JSON: worker starvation" has_id "$T/nw0.json" worker-starvation
fi

echo "report.sh: $pass passed, $fail failed"
[ "$fail" = 0 ]

#!/usr/bin/env bash
# report_gpu.sh DFSCOPE [TRACES] - the GPU in `dfscope report` (docs/REPORT.md): on profiler traces
# with device events the gpu analysis runs on the report's one read and its rules speak. Two ranks
# whose GPUs wait for the host and run collectives alone are launch-bound and communication-bound
# (the least overlapped rank named); a device that computes almost all of its span is compute-bound
# from the GPU's own numbers; a trace without device events has no GPU metric and its GPU rules are
# not evaluated; a DFTracer trace given after a profiler trace does not replace its rank's GPU
# numbers; ResNet-50 with num_workers=0 stays input-bound, its host wait being the data wait.
# Skipped (77) without the corpus.
set -u
DFSCOPE=$1
TRACES=${2:-}
source "$(dirname "$0")/testlib.bash"

if [ -z "$TRACES" ] || [ ! -d "$TRACES/hta/trace_filter" ]; then
  echo "report_gpu.sh: the trace corpus is absent (${TRACES:-no path given}): skipped"
  exit 77
fi
H=$TRACES/hta

# insight FILE fired ID SEVERITY | where METRIC TEXT | skipped ID METRIC | no-gpu-metric: checks on a
# report's JSON (and that it holds no nan)
insight() {
  python3 - "$@" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
what, want = sys.argv[2], sys.argv[3:]
ids = {i["id"]: i for i in d["insights"]}
skipped = {s["id"]: s["missing_metric"] for s in d["not_evaluated"]}
metrics = {m["metric"]: m for m in d["metrics"]}
if what == "fired":
    i = ids[want[0]]
    assert i["severity"] == want[1], (i["severity"], want)
    for f in i["evidence"]["facts"]:
        assert f["value"] == f["value"] and f["unit"], f
elif what == "where":
    assert metrics[want[0]]["where"] == want[1], metrics[want[0]]
elif what == "skipped":
    assert skipped[want[0]] == want[1], skipped.get(want[0])
elif what == "no-gpu-metric":
    assert not [m for m in metrics if m.startswith("gpu_")], [m for m in metrics if m.startswith("gpu_")]
assert "nan" not in open(sys.argv[1]).read().lower().replace("nanos", "")
EOF
}

code 0 "2 ranks, collectives" "$DFSCOPE" report -q "$H/trace_filter"
check "2 ranks: launch-bound first, then communication-bound" \
  grep -q "^verdict: LOW GPU UTILIZATION, LAUNCH-BOUND, .*COMMUNICATION-BOUND" "$T/out"
check "2 ranks: the host wait as evidence" grep -q "83.4 % of the streams' idle time waits for the host to launch" "$T/out"
check "2 ranks: the collectives' overlap as evidence" grep -q "17.4 % of it under computation (least: rank 0: 14.9 %)" "$T/out"
check "2 ranks: dfscope gpu named" grep -q "^more: .*dfscope gpu" "$T/out"
check "2 ranks: analysed by the gpu too" grep -q "^job: 2 runs; PyTorch or TensorFlow profiler traces: 2 files" "$T/out"
check "2 ranks: at most 40 lines" [ "$(wc -l < "$T/out")" -le 40 ]
code 0 "2 ranks, JSON" "$DFSCOPE" report -q --format json -o "$T/tf.json" "$H/trace_filter"
check "2 ranks, JSON: gpu-comm-exposed critical" insight "$T/tf.json" fired gpu-comm-exposed critical
check "2 ranks, JSON: gpu-host-wait critical" insight "$T/tf.json" fired gpu-host-wait critical
check "2 ranks, JSON: the most idle rank" insight "$T/tf.json" where gpu_idle_share "rank 0: 55.2 %"
check "2 ranks, JSON: the gpu among the analyses" grep -q '"analyses": "layered, overlap, steps, I/O calls, tasks, gpu' "$T/tf.json"

code 0 "ROCm, a device waiting for its launches" "$DFSCOPE" report -q "$H/amd_trace"
check "ROCm: launch-bound" grep -q "^verdict: LAUNCH-BOUND, LOW GPU UTILIZATION" "$T/out"
check "ROCm: the remedy" grep -q "remedy: launch less often from the host: CUDA graphs" "$T/out"

code 0 "a busy device" "$DFSCOPE" report -q --param duplicate-records.min_records=1e9 "$H/ns_resolution_trace"
check "a busy device: compute-bound from the GPU's numbers" grep -q "^verdict: COMPUTE-BOUND (0 critical" "$T/out"
check "a busy device: why" grep -q "the GPUs compute 97.5 % of their span" "$T/out"

code 0 "no device events" "$DFSCOPE" report -q --format json -o "$T/cpu.json" "$H/rank_non_gpu"
check "no device events: no GPU metric" insight "$T/cpu.json" no-gpu-metric
check "no device events: the GPU rules not evaluated" insight "$T/cpu.json" skipped low-gpu-utilization gpu_busy_share
check "no device events: nor the communication's" insight "$T/cpu.json" skipped gpu-comm-exposed gpu_comm_exposed_share

# a DFTracer trace after a profiler trace of rank 0 does not replace its GPU numbers
printf '[\n{"id":"0","name":"read","cat":"POSIX","pid":"1","tid":"1","ts":"1700000000000000","dur":"10","ph":"X","args":{"hostname":"n","fname":"/d/x","ret":"10"}}\n' > "$T/z-trace.pfw"
code 0 "a profiler trace, then a DFTracer trace" "$DFSCOPE" report -q --mix --format json -o "$T/mixed.json" \
  "$H/trace_filter/sampled_rank-0.json.gz" "$T/z-trace.pfw"
check "mixed: the GPU numbers of rank 0 kept" insight "$T/mixed.json" where gpu_idle_share "rank 0: 55.2 %"

K=$TRACES/kineto/resnet50-dataloader
code 0 "ResNet-50 num_workers=0" "$DFSCOPE" report -q --format json -o "$T/nw0.json" "$K"/resnet50_num_workers_0_*.pt.trace.json.gz
check "nw0: its host wait is the data wait (info)" insight "$T/nw0.json" fired gpu-host-wait info
check "nw0: still input-bound" python3 -c "
import json,sys; d=json.load(open(sys.argv[1])); assert d['verdict']['label']=='input-bound, worker starvation', d['verdict']" "$T/nw0.json"

echo "report_gpu.sh: $pass passed, $fail failed"
[ "$fail" = 0 ]

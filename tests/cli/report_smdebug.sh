#!/usr/bin/env bash
# report_smdebug.sh DFSCOPE [TRACES] - SageMaker Debugger system metrics in `dfscope report`
# (docs/REPORT.md): the profiler rules run on the report's one read, their OverallSystemUsage
# numbers become the sys_* metrics, and the samples get a verdict: a node whose GPUs are busy 16.6 %
# at p95 has low GPU utilization (a warning, the verdict); CPU-only samples at 4.3 % have no
# bottleneck; the damaged copy of the first says both; a framework trace with steps is not given
# system metrics. Skipped (77) without the corpus.
set -u
DFSCOPE=$1
TRACES=${2:-}
source "$(dirname "$0")/testlib.bash"

R=$TRACES/smdebug/tests/profiler/resources
if [ -z "$TRACES" ] || [ ! -f "$R/1591160699.algo-1.json" ]; then
  echo "report_smdebug.sh: the trace corpus is absent (${TRACES:-no path given}): skipped"
  exit 77
fi

code 0 "GPU node samples" "$DFSCOPE" report -q "$R/1591160699.algo-1.json"
check "GPU node: low GPU utilization is the verdict" grep -q "^verdict: LOW GPU UTILIZATION (0 critical, 1 warning" "$T/out"
check "GPU node: the quantiles as evidence" grep -q "16.6 % at p95 and 9.9 % at the median (least busy node: algo-1), over 14 system samples" "$T/out"
check "GPU node: analysed (no 'not in this report')" sh -c "! grep -q '^not in this report' '$T/out'"
check "GPU node: dfscope rules named" grep -q "^more: dfscope rules" "$T/out"
check "GPU node: at most 40 lines" [ "$(wc -l < "$T/out")" -le 40 ]
code 0 "GPU node, JSON" "$DFSCOPE" report -q --format json -o "$T/gpu.json" "$R/1591160699.algo-1.json"
check "GPU node, JSON: the metrics" python3 -c "
import json,sys; d=json.load(open(sys.argv[1])); m={x['metric']:x for x in d['metrics']}
assert abs(m['sys_gpu_p95']['value']-0.1663)<1e-9 and m['sys_gpu_p95']['where']=='algo-1', m['sys_gpu_p95']
assert abs(m['sys_cpu_p95']['value']-0.2663)<1e-9 and m['sys_nodes']['value']==1, m
assert 'sys_io_wait_p95' not in m and 'sys_cpu_bottleneck_share' not in m
s={x['id']:x['missing_metric'] for x in d['not_evaluated']}
assert s['sys-io-wait']=='sys_io_wait_p95' and s['sys-cpu-bottleneck']=='sys_cpu_bottleneck_share', s
assert d['job']['sources'][0]['analysed'] and d['verdict']['label']=='low GPU utilization'" "$T/gpu.json"
check "GPU node, JSON: the profiler rules among the analyses" grep -q '"analyses": ".*profiler rules, on one read"' "$T/gpu.json"

code 0 "CPU-only samples" "$DFSCOPE" report -q "$R/test_traces/system/incremental/1591748100.algo-1.json"
check "CPU-only: no bottleneck found, why" grep -q "^  system samples only (no steps): p95 utilization CPU 4.3 %, and no rule fired" "$T/out"
check "CPU-only: the verdict" grep -q "^verdict: NO BOTTLENECK FOUND" "$T/out"

code 1 "damaged samples" "$DFSCOPE" report -q "$R/1591160699.algo-1.json.corrupt"
check "damaged samples: the verdict from the metrics, the damage an insight" grep -q "^verdict: LOW GPU UTILIZATION" "$T/out"
check "damaged samples: the damage is said" grep -q "\[warning\] damaged input" "$T/out"

code 0 "framework trace with steps" "$DFSCOPE" report -q --format json -o "$T/fw.json" "$R/merge_traces"
check "framework trace: no system metric" python3 -c "
import json,sys; d=json.load(open(sys.argv[1]))
assert not [m for m in d['metrics'] if m['metric'].startswith('sys_')]" "$T/fw.json"

echo "report_smdebug.sh: $pass passed, $fail failed"
[ "$fail" = 0 ]

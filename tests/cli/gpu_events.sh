#!/usr/bin/env bash
# gpu_events.sh DFSCOPE - device events of MTIA and CUPTI range-profiler traces are recognised by
# the shared GPU classification (src/analyze/common/gpu_events.h): `steps` measures an MTIA run's
# device utilization (its device ops are kernels) and says that a range-profiler run's device
# events are measurements without timing, instead of "no device event was recognised"; `timeline`
# labels their lanes by device and stream (MTIA 1 / stream 3, GPU 0) instead of by pid and tid.
set -u
DFSCOPE=$1
source "$(dirname "$0")/testlib.bash"
tensorboard() { json_field "$T/out" "d['runs'][0]['tensorboard']['$1']"; } # a key of steps' plugin breakdown

# Two steps of 1000 us; each launches one MTIA device op of 400 us (correlated by args.correlation).
cat > "$T/mtia.json" <<'EOF'
{"schemaVersion": 1, "deviceProperties": [], "distributedInfo": {"backend": "mtia:hccl", "rank": 0, "world_size": 1},
"traceEvents": [
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":100,"tid":100,"ts":1000,"dur":1000},
{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":100,"tid":100,"ts":1010,"dur":100,"args":{"External id":1}},
{"ph":"X","cat":"mtia_runtime","name":"runFunction - job_prep_and_submit_for_execution","pid":100,"tid":100,"ts":1020,"dur":50,"args":{"correlation":11,"External id":1}},
{"ph":"X","cat":"mtia_ccp_events","name":"job_exe_mm","pid":1,"tid":3,"ts":1100,"dur":400,"args":{"device":1,"stream":3,"correlation":11}},
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":100,"tid":100,"ts":2000,"dur":1000},
{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":100,"tid":100,"ts":2010,"dur":100,"args":{"External id":2}},
{"ph":"X","cat":"mtia_runtime","name":"runFunction - job_prep_and_submit_for_execution","pid":100,"tid":100,"ts":2020,"dur":50,"args":{"correlation":12,"External id":2}},
{"ph":"X","cat":"mtia_ccp_events","name":"job_exe_mm","pid":1,"tid":3,"ts":2100,"dur":400,"args":{"device":1,"stream":3,"correlation":12}}
]}
EOF

# CUPTI range profiler: per-kernel counters as events at placeholder times (1 us apart) on device 0.
cat > "$T/ranges.json" <<'EOF'
{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "GPU"}],
"traceEvents": [
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":100,"tid":100,"ts":1000,"dur":100},
{"ph":"X","cat":"cpu_op","name":"aten::conv2d","pid":100,"tid":100,"ts":1010,"dur":50},
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":100,"tid":100,"ts":1100,"dur":100},
{"ph":"X","cat":"cpu_op","name":"aten::conv2d","pid":100,"tid":100,"ts":1110,"dur":50},
{"ph":"X","cat":"cuda_profiler_range","name":"fft2d_r2c_32x32","pid":0,"tid":0,"ts":1000,"dur":1,"args":{"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum":86114304}},
{"ph":"X","cat":"cuda_profiler_range","name":"fft2d_c2r_32x32","pid":0,"tid":0,"ts":1001,"dur":1,"args":{"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum":1024}}
]}
EOF

code 0 "MTIA steps" "$DFSCOPE" steps -q "$T/mtia.json"
check "MTIA: device ops measured (800 us of 2000 us)" grep -q "GPU utilization 40.00 %" "$T/out"
check "MTIA: not 'no device event'" bash -c "! grep -q 'no device event' '$T/out'"
code 0 "MTIA steps, JSON" "$DFSCOPE" steps -q --format json "$T/mtia.json"
check "MTIA JSON: device_events 2" [ "$(tensorboard device_events)" = 2 ]

code 0 "range steps" "$DFSCOPE" steps -q "$T/ranges.json"
check "ranges: n/a, because they are measurements" \
  grep -q "GPU utilization n/a: the run's 2 device events are CUPTI range-profiler measurements" "$T/out"
code 0 "range steps, JSON" "$DFSCOPE" steps -q --format json "$T/ranges.json"
check "ranges JSON: device_events 0" [ "$(tensorboard device_events)" = 0 ]
check "ranges JSON: device_range_events 2" [ "$(tensorboard device_range_events)" = 2 ]

code 0 "MTIA timeline" "$DFSCOPE" timeline -q "$T/mtia.json" -o "$T/mtia.svg"
check "MTIA timeline: the device lane by device and stream" grep -q "MTIA 1 (pid 1) / stream 3" "$T/out"
check "MTIA picture: the same label" grep -q "MTIA 1 (pid 1)" "$T/mtia.svg"
check "MTIA timeline: device ops drawn as compute, as kernels are" grep -q "^spans      compute 4," "$T/out"
code 0 "MTIA timeline, JSON" "$DFSCOPE" timeline -q --format json "$T/mtia.json" -o "$T/mtia.svg"
check "MTIA JSON: process and thread of the device lane" \
  [ "$(json_field "$T/out" "[l['process'] + ' / ' + l['thread'] for l in d['lanes'] if l['pid'] == 1][0]")" = "MTIA 1 / stream 3" ]

code 0 "range timeline" "$DFSCOPE" timeline -q "$T/ranges.json" -o "$T/ranges.svg"
check "range timeline: the device lane is GPU 0" grep -q "GPU 0 (pid 0) / tid 0" "$T/out"

echo "gpu_events.sh: $pass passed, $fail failed"
[ "$fail" = 0 ]

#!/usr/bin/env bash
# steps_device.sh DFSCOPE - a profiler trace whose device time reads 0 says that no device event
# was recognised (GPU utilization n/a, JSON device_events 0) instead of an idle GPU's 0 %; a trace
# with a kernel keeps its utilization and counts it.
set -u
DFSCOPE=$1
source "$(dirname "$0")/testlib.bash"

cat > "$T/cpu.json" <<'EOF'
{"schemaVersion": 1, "traceEvents": [
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":10,"tid":10,"ts":1000,"dur":100},
{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":10,"tid":10,"ts":1010,"dur":50},
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":10,"tid":10,"ts":1100,"dur":100},
{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":10,"tid":10,"ts":1110,"dur":50}
]}
EOF
sed 's/^]}/,{"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":1020,"dur":30,"args":{"device":0,"stream":7}}\n]}/' \
  "$T/cpu.json" > "$T/gpu.json"

code 0 "no device events" "$DFSCOPE" steps -q "$T/cpu.json"
check "no device events: n/a, and why" grep -q "GPU utilization n/a: no device event (kernel, memory copy, memset) was recognised" "$T/out"
check "no device events: no 0 %" bash -c "! grep -q 'GPU utilization 0' '$T/out'"
code 0 "no device events, JSON" "$DFSCOPE" steps -q --format json "$T/cpu.json"
check "JSON: device_events 0" [ "$(json_field "$T/out" "d['runs'][0]['tensorboard']['device_events']")" = 0 ]

code 0 "one kernel" "$DFSCOPE" steps -q "$T/gpu.json"
check "one kernel: its utilization (30 us of 200 us)" grep -q "GPU utilization 15.00 %" "$T/out"
code 0 "one kernel, JSON" "$DFSCOPE" steps -q --format json "$T/gpu.json"
check "JSON: device_events 1" [ "$(json_field "$T/out" "d['runs'][0]['tensorboard']['device_events']")" = 1 ]

echo "steps_device.sh: $pass passed, $fail failed"
[ "$fail" = 0 ]

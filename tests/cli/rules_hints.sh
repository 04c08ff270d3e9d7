#!/usr/bin/env bash
# rules_hints.sh DFSCOPE - a rule not evaluated for want of values says which --param lets it run
# on these inputs (table, details and JSON enable_with), and that setting does make it run; a
# triggered rule carries its recommendation (every rule has one in the JSON).
set -u
DFSCOPE=$1
source "$(dirname "$0")/testlib.bash"

# six snapshots of one node's CPUs and GPU: busy CPUs, an idle GPU (a CPU bottleneck, were it checked)
for i in 0 1 2 3 4 5; do
  t=$((1591160000 + i))
  printf '{"Type": "cpu", "Name":"cpu0", "Dimension": "CPUUtilization", "Value":97,"NodeId":"algo-1","Timestamp":%d.0}\n' "$t"
  printf '{"Type": "cpu", "Name":"cpu1", "Dimension": "CPUUtilization", "Value":95,"NodeId":"algo-1","Timestamp":%d.0}\n' "$t"
  printf '{"Type": "gpu", "Name":"gpu0", "Dimension": "GPUUtilization", "Value":2,"NodeId":"algo-1","Timestamp":%d.0}\n' "$t"
  printf '{"Type": "gpu", "Name":"gpu1", "Dimension": "GPUUtilization", "Value":%d,"NodeId":"algo-1","Timestamp":%d.0}\n' $((60 + 5 * i)) "$t"
done > "$T/1591160000.algo-1.json"

code 0 "rules on six snapshots" "$DFSCOPE" rules -q "$T/1591160000.algo-1.json"
check "table: the setting that runs CPUBottleneck" grep -q "^CPUBottleneck .*needs more than patience=1000) (--param CPUBottleneck.patience=5 runs it)" "$T/out"
check "details: to run it" grep -q "to run it on these inputs: --param CPUBottleneck.patience=5" "$T/out"
check "table: LowGPUUtilization's setting" grep -q "(--param LowGPUUtilization.patience=5 runs it)" "$T/out"
check "table: LoadBalancing's setting (a node's pair of GPUs)" grep -q "^LoadBalancing .*(--param LoadBalancing.patience=5 runs it)" "$T/out"
code 0 "JSON" "$DFSCOPE" rules -q --format json -o "$T/r.json" "$T/1591160000.algo-1.json"
check "JSON: enable_with" [ "$(json_field "$T/r.json" "[r['enable_with'] for r in d['rules'] if r['rule'] == 'CPUBottleneck'][0]")" = "--param CPUBottleneck.patience=5" ]
check "JSON: evaluated rules have no setting" [ "$(json_field "$T/r.json" "[r['enable_with'] for r in d['rules'] if r['rule'] == 'OverallSystemUsage'][0]")" = None ]
check "JSON: every rule has a recommendation" [ "$(json_field "$T/r.json" "all(r['recommendation'] for r in d['rules'])")" = True ]

code 0 "with the setting" "$DFSCOPE" rules -q --param CPUBottleneck.patience=5 "$T/1591160000.algo-1.json"
check "the setting runs it, and it triggers" grep -q "^CPUBottleneck: TRIGGERED" "$T/out"
check "a triggered rule's recommendation" grep -q "recommendation: the GPU idles while the CPUs are busy" "$T/out"
check "no setting once it runs" bash -c "! grep -q '^CPUBottleneck .*runs it)' '$T/out'"

echo "rules_hints.sh: $pass passed, $fail failed"
[ "$fail" = 0 ]

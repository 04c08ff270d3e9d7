#!/usr/bin/env bash
# gpu_critical_path.sh DFSCOPE TRACES - `dfscope gpu --only critical-path`: the worked example of
# docs/GPU.md (a hand-made window whose path and shares are known) in both semantics, and Holistic
# Trace Analysis' own critical-path summaries of three corpus traces (TRACES/../reference/hta/
# critical_path.txt: nodes on the path, nodes and edges of the graph, the share of each class to
# 2 decimals) under --compat hta; then the ways it has no path (no such annotation, too few
# instances, pre-2022 category names), usage errors, the CSV file and hostile window names.
set -u
DFSCOPE=$1
TRACES=${2:-}
REF=$TRACES/../reference/hta
. "$(dirname "$0")/testlib.bash"
field() { json_field "$T/out" "$1"; }

# The window "myiter": aten::mm launches gemm (stream 7), aten::relu launches relu_k while gemm
# still runs, cudaDeviceSynchronize waits for both (Context Sync).
cat > "$T/ex.json" <<'JSON'
{"traceEvents": [
{"ph": "X", "cat": "user_annotation", "name": "myiter", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10, "dur": 30},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 15, "dur": 5, "args": {"correlation": 1}},
{"ph": "X", "cat": "cpu_op", "name": "aten::relu", "pid": 1, "tid": 1, "ts": 45, "dur": 10},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 47, "dur": 3, "args": {"correlation": 2}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "pid": 1, "tid": 1, "ts": 60, "dur": 35, "args": {"correlation": 3}},
{"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 25, "dur": 40, "args": {"stream": 7, "correlation": 1}},
{"ph": "X", "cat": "kernel", "name": "relu_k", "pid": 0, "tid": 7, "ts": 67, "dur": 3, "args": {"stream": 7, "correlation": 2}},
{"ph": "X", "cat": "cuda_sync", "name": "Context Sync", "pid": 0, "tid": -1, "ts": 88, "dur": 2, "args": {"stream": 4294967295, "correlation": 3}}
]}
JSON
SHARES="[(c['class'], c['duration_us'], round(c['pct'], 2)) for c in d['ranks'][0]['critical_path']['bound_by']]"
for sem in hta none; do
  code 0 "example, $sem" "$DFSCOPE" gpu -q --compat $sem --only critical-path --cp-annotation myiter --format json "$T/ex.json"
  check "example $sem: 60 us over 6 nodes" test "$(field "[d['ranks'][0]['critical_path'][k] for k in ('status','window','length_us','path_nodes','graph_nodes','graph_edges','events')]")" = "['ok', 'myiter', 60, 6, 14, 15, 8]"
  check "example $sem: the shares" test "$(field "$SHARES")" = "[('cpu_bound', 5, 8.33), ('gpu_compute_bound', 43, 71.67), ('gpu_kernel_kernel_overhead', 2, 3.33), ('gpu_kernel_launch_overhead', 10, 16.67)]"
done
# HTA's data_load_events: host events whose shortened name the expression finds are data loading
for sem in hta none; do
  code 0 "example, $sem, data loading" "$DFSCOPE" gpu -q --compat $sem --only critical-path --cp-annotation myiter \
    --cp-data-load '::mm$' --format json "$T/ex.json"
  check "example $sem: aten::mm's time on the path is data loading" test "$(field "$SHARES")" = "[('data_loading', 5, 8.33), ('gpu_compute_bound', 43, 71.67), ('gpu_kernel_kernel_overhead', 2, 3.33), ('gpu_kernel_launch_overhead', 10, 16.67)]"
done
code 0 "example, data loading found nowhere" "$DFSCOPE" gpu -q --only critical-path --cp-annotation myiter --cp-data-load '^zzz' --format json "$T/ex.json"
check "nothing found: the shares without the option" test "$(field "$SHARES")" = "[('cpu_bound', 5, 8.33), ('gpu_compute_bound', 43, 71.67), ('gpu_kernel_kernel_overhead', 2, 3.33), ('gpu_kernel_launch_overhead', 10, 16.67)]"
code 0 "example, data loading, table" "$DFSCOPE" gpu -q --only critical-path --cp-annotation myiter --cp-data-load 'mm' "$T/ex.json"
check "table: the headline's CPU share says how much loads data" grep -q '8.33% on the CPU (8.33% loading data)' "$T/out"
check "table: the data-loading row" grep -Eq '^  data loading \(CPU\) +data_loading +5.000 us +8.33% +1$' "$T/out"
code 2 "a bad regular expression" "$DFSCOPE" gpu --only critical-path --cp-data-load 'load(' "$T/ex.json"
check "its error names the option and the expression" grep -q "^dfscope gpu: --cp-data-load: .*load(" "$T/err"
code 0 "example, table" "$DFSCOPE" gpu -q --only critical-path --cp-annotation myiter "$T/ex.json"
check "the table leads with the finding" grep -q '^Rank 0: the critical path of myiter is 60.000 us: 71.67% on the GPU' "$T/out"
check "only the critical path" test "$(grep -c 'Device time per rank' "$T/out")" = 0
code 0 "example, whole trace" "$DFSCOPE" gpu -q --only critical-path --cp-annotation '' --format json "$T/ex.json"
check "an empty annotation is the whole trace" test "$(field "d['ranks'][0]['critical_path']['length_us']")" = 60
rm -rf "$T/csv"
code 0 "example, csv" "$DFSCOPE" gpu -q --compat hta --only critical-path --cp-annotation myiter --format csv -o "$T/csv" "$T/ex.json"
check "one csv file" test "$(ls "$T/csv")" = critical_path.csv
check "csv rows" test "$(sed -n 3p "$T/csv/critical_path.csv")" = "1,0,myiter,gpu_compute_bound,43.0,71.67,2"
code 0 "default sections" "$DFSCOPE" gpu -q --format json "$T/ex.json"
check "not in the default sections" test "$(field "'critical_path' in d['ranks'][0]")" = False

# No path: said per rank, never a failure of the command.
code 0 "no such annotation" "$DFSCOPE" gpu -q --only critical-path --cp-annotation nothing "$T/ex.json"
check "no annotation said" grep -q "^Rank 0: no critical path: no event's name holds the annotation" "$T/out"
code 0 "instance out of range" "$DFSCOPE" gpu -q --only critical-path --cp-annotation myiter --cp-instance 3-4 --format json "$T/ex.json"
check "too few instances said" test "$(field "d['ranks'][0]['critical_path']['status']")" = "fewer instances of the annotation than asked"
code 2 "bad instance" "$DFSCOPE" gpu --only critical-path --cp-instance 2-1 "$T/ex.json"
check "bad instance named" grep -q -- '--cp-instance takes' "$T/err"
code 2 "bad instance text" "$DFSCOPE" gpu --only critical-path --cp-instance -3 "$T/ex.json"
code 2 "bad section" "$DFSCOPE" gpu --only critical "$T/ex.json"
check "sections listed" grep -q 'critical-path' "$T/err"

# A hostile window name is escaped in the table, JSON and CSV.
sed 's/"myiter"/"my\\u001b[31miter\\"x,y"/' "$T/ex.json" > "$T/hostile.json"
code 0 "hostile, table" "$DFSCOPE" gpu -q --only critical-path --cp-annotation my "$T/hostile.json"
check "no raw escape in the table" test "$(grep -c $'\x1b' "$T/out")" = 0
code 0 "hostile, json" "$DFSCOPE" gpu -q --only critical-path --cp-annotation my --format json "$T/hostile.json"
check "the name round-trips in JSON" test "$(field "repr(d['ranks'][0]['critical_path']['window'])")" = "'my\\x1b[31miter\"x,y'"
rm -rf "$T/hcsv"
code 0 "hostile, csv" "$DFSCOPE" gpu -q --only critical-path --cp-annotation my --format csv -o "$T/hcsv" "$T/hostile.json"
check "the name quoted in CSV" grep -q '^0,0,"my.\[31miter""x,y",cpu_bound,' "$T/hcsv/critical_path.csv"

if [ -z "$TRACES" ] || [ ! -f "$REF/critical_path.txt" ]; then
  echo "$pass checks passed, $fail failed (corpus absent: HTA's summaries not compared)"
  [ "$fail" = 0 ]
  exit
fi
# HTA's summary of one trace: "cp_nodes graph_nodes edges" then "class pct" lines (class "" as -).
hta_summary() {
  awk -v want="== $1 rank=0" 'index($0, want) == 1 { on = 1; split($0, f, " ");
      for (i in f) { split(f[i], kv, "="); v[kv[1]] = kv[2] }
      print v["cp_nodes"], v["graph_nodes"], v["edges"]; next }
    /^==/ { on = 0 }
    on && /^ *[0-9.]+$/ { printf "- %.2f\n", $1; next }
    on && NF == 2 && $2 ~ /^[0-9.]+$/ { printf "%s %.2f\n", $1, $2 }' "$REF/critical_path.txt"
}
ours() {
  field "'%d %d %d' % tuple(d['ranks'][0]['critical_path'][k] for k in ('path_nodes','graph_nodes','graph_edges'))"
  field "'\n'.join('%s %.2f' % ('-' if c['class'] == 'dependency' else c['class'], c['pct']) for c in d['ranks'][0]['critical_path']['bound_by'])"
}
ALEX='[param|pytorch.model.alex_net|0|0|0|measure|forward]'
for t in critical_path/simple_add critical_path/alexnet nccl_parser_config; do
  ann=$ALEX; [ "$t" = nccl_parser_config ] && ann=ProfilerStep
  code 0 "$t" "$DFSCOPE" gpu -q --compat hta --only critical-path --cp-annotation "$ann" --cp-instance 1 --format json "$TRACES/hta/$t"
  hta_summary "$t" > "$T/want"
  ours > "$T/got"
  check "$t: HTA's critical path (nodes, graph, shares)" diff "$T/want" "$T/got"
done
# With data-loading events, HTA's cpu_bound share splits in two and the rest stays
code 0 "alexnet, data loading" "$DFSCOPE" gpu -q --compat hta --only critical-path --cp-annotation "$ALEX" --cp-instance 1 \
  --cp-data-load 'conv2d|linear' --format json "$TRACES/hta/critical_path/alexnet"
check "alexnet: cpu_bound 89.42 = 89.40 + data_loading 0.02; the others as HTA's" \
  test "$(ours | tr '\n' ' ')" = "149 418 456 - 0.00 cpu_bound 89.40 data_loading 0.02 gpu_compute_bound 10.36 gpu_kernel_kernel_overhead 0.14 gpu_kernel_launch_overhead 0.08 "
# Pre-2022 traces name the runtime "Runtime": HTA stops, so does --compat hta, saying why; exact
# reads the old spellings.
K=$TRACES/kineto/resnet50-dataloader/resnet50_num_workers_0__worker0.1623143089861.pt.trace.json.gz
code 0 "pre-2022 trace" "$DFSCOPE" gpu -q --compat hta --only critical-path --format json "$K"
check "no path without launch events" test "$(field "d['ranks'][0]['critical_path']['status']")" = "a kernel's launch call is no event of the window (pre-2022 traces name it Runtime)"
code 0 "pre-2022 trace, exact" "$DFSCOPE" gpu -q --only critical-path --format json "$K"
check "exact reads Runtime and Operator" test "$(field "(d['ranks'][0]['critical_path']['status'], d['ranks'][0]['critical_path']['window'])")" = "('ok', 'ProfilerStep#5')"

echo "$pass checks passed, $fail failed"
[ "$fail" = 0 ]

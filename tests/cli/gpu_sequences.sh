#!/usr/bin/env bash
# gpu_sequences.sh DFSCOPE - `dfscope gpu --only sequences`: the worked example of docs/GPU.md
# (three aten::linear operators, two of which launch gemm then bias_add) in both semantics and
# with two minimum lengths, the table's finding, the JSON and the CSV file, nesting (an operator's
# kernels are those of its whole call tree; the shallowest matching operators are the roots), a
# negative duration under --compat hta (HTA's call graph fails), hostile kernel names and usage
# errors.
set -u
DFSCOPE=$1
. "$(dirname "$0")/testlib.bash"
field() { json_field "$T/out" "$1"; }

cat > "$T/seq.json" <<'JSON'
{"traceEvents": [
{"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 0, "dur": 20},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 2, "dur": 3, "args": {"correlation": 1}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 8, "dur": 3, "args": {"correlation": 2}},
{"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 30, "dur": 20},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 32, "dur": 3, "args": {"correlation": 3}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 38, "dur": 3, "args": {"correlation": 4}},
{"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 60, "dur": 10},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 62, "dur": 3, "args": {"correlation": 5}},
{"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 10, "dur": 4, "args": {"stream": 7, "correlation": 1}},
{"ph": "X", "cat": "kernel", "name": "bias_add", "pid": 0, "tid": 7, "ts": 15, "dur": 1, "args": {"stream": 7, "correlation": 2}},
{"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 40, "dur": 5, "args": {"stream": 7, "correlation": 3}},
{"ph": "X", "cat": "kernel", "name": "bias_add", "pid": 0, "tid": 7, "ts": 46, "dur": 1, "args": {"stream": 7, "correlation": 4}},
{"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 70, "dur": 3, "args": {"stream": 7, "correlation": 5}}
]}
JSON
ROWS="[(s['pattern'], s['count'], s['gpu_us'], s['cpu_us']) for s in d['ranks'][0]['kernel_sequences']]"
for sem in hta none; do
  code 0 "example $sem, 2 kernels" "$DFSCOPE" gpu -q --compat $sem --only sequences --seq-operator aten::linear --seq-min-len 2 --format json "$T/seq.json"
  check "example $sem: one pattern twice" test "$(field "$ROWS")" = "[('aten::linear|gemm|bias_add', 2, 11, 40)]"
  code 0 "example $sem, 1 kernel" "$DFSCOPE" gpu -q --compat $sem --only sequences --seq-operator aten::linear --seq-min-len 1 --format json "$T/seq.json"
  check "example $sem: both patterns, by count" test "$(field "$ROWS")" = "[('aten::linear|gemm|bias_add', 2, 11, 40), ('aten::linear|gemm', 1, 3, 10)]"
done
code 0 "table" "$DFSCOPE" gpu -q --only sequences --seq-operator linear --seq-min-len 2 "$T/seq.json"
check "the finding first" test "$(head -1 "$T/out")" = "Rank 0: the most frequent kernel sequence ran 2 times (11.000 us on the GPU, 2 kernels each): aten::linear|gemm|bias_add"
code 0 "default min length" "$DFSCOPE" gpu -q --only sequences "$T/seq.json"
check "none with 3 kernels, said" grep -q '^Rank 0: no kernel sequence: no operator of the kind asked launched enough kernels' "$T/out"
rm -rf "$T/csv"
code 0 "csv" "$DFSCOPE" gpu -q --only sequences --seq-min-len 1 --format csv -o "$T/csv" "$T/seq.json"
check "csv file" test "$(cat "$T/csv/cuda_kernel_sequences.csv")" = ",pattern,count,GPU kernel duration (us),CPU op duration (us),rank
0,aten::linear|gemm|bias_add,2,11.0,40.0,0
1,aten::linear|gemm,1,3.0,10.0,0"
code 0 "default sections" "$DFSCOPE" gpu -q --format json "$T/seq.json"
check "not in the default sections" test "$(field "'kernel_sequences' in d['ranks'][0]")" = False

# Nesting: a module wraps two linears; the module is the shallowest match of "nn" and takes every
# kernel below it, by start; a zero-length operator nests in the longer one starting with it.
cat > "$T/nest.json" <<'JSON'
{"traceEvents": [
{"ph": "X", "cat": "user_annotation", "name": "nn.Module: Block", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
{"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 0, "dur": 40},
{"ph": "X", "cat": "cpu_op", "name": "aten::empty", "pid": 1, "tid": 1, "ts": 0, "dur": 0},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 5, "dur": 3, "args": {"correlation": 1}},
{"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 40, "dur": 40},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 45, "dur": 3, "args": {"correlation": 2}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 50, "dur": 3, "args": {"correlation": 3}},
{"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 7, "ts": 60, "dur": 5, "args": {"stream": 7, "correlation": 2}},
{"ph": "X", "cat": "kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 10, "dur": 5, "args": {"stream": 7, "correlation": 1}},
{"ph": "X", "cat": "kernel", "name": "k3", "pid": 0, "tid": 7, "ts": 70, "dur": 5, "args": {"stream": 7, "correlation": 3}}
]}
JSON
code 0 "nesting" "$DFSCOPE" gpu -q --only sequences --seq-operator nn --format json "$T/nest.json"
check "the module's kernels by start" test "$(field "$ROWS")" = "[('nn.Module: Block|k1|k2|k3', 1, 15, 100)]"
code 0 "nesting, aten" "$DFSCOPE" gpu -q --only sequences --seq-operator aten:: --seq-min-len 1 --format json "$T/nest.json"
check "the linears at depth 1 (aten::empty has no kernel)" test "$(field "$ROWS")" = "[('aten::linear|k1', 1, 5, 40), ('aten::linear|k2|k3', 1, 10, 40)]"

# The backward pass on its own thread moves under the step thread's "## backward ##" range: the
# step is then the one top-level operator, with every kernel.
cat > "$T/bwd.json" <<'JSON'
{"traceEvents": [
{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 5, "dur": 10},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 6, "dur": 2, "args": {"correlation": 1}},
{"ph": "X", "cat": "user_annotation", "name": "## backward ##", "pid": 1, "tid": 1, "ts": 50, "dur": 50},
{"ph": "X", "cat": "cpu_op", "name": "autograd::engine::evaluate_function: MmBackward0", "pid": 1, "tid": 2, "ts": 60, "dur": 20},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 2, "ts": 61, "dur": 2, "args": {"correlation": 2}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 2, "ts": 64, "dur": 2, "args": {"correlation": 3}},
{"ph": "X", "cat": "kernel", "name": "k_fwd", "pid": 0, "tid": 7, "ts": 10, "dur": 4, "args": {"stream": 7, "correlation": 1}},
{"ph": "X", "cat": "kernel", "name": "k_bwd1", "pid": 0, "tid": 7, "ts": 62, "dur": 4, "args": {"stream": 7, "correlation": 2}},
{"ph": "X", "cat": "kernel", "name": "k_bwd2", "pid": 0, "tid": 7, "ts": 70, "dur": 4, "args": {"stream": 7, "correlation": 3}}
]}
JSON
code 0 "backward thread" "$DFSCOPE" gpu -q --only sequences --format json "$T/bwd.json"
check "the step holds the backward kernels" test "$(field "$ROWS")" = "[('ProfilerStep#1|k_fwd|k_bwd1|k_bwd2', 1, 12, 100)]"
code 0 "backward thread, autograd" "$DFSCOPE" gpu -q --only sequences --seq-operator autograd --seq-min-len 2 --format json "$T/bwd.json"
check "the backward operator at its own depth" test "$(field "$ROWS")" = "[('autograd::engine::evaluate_function: MmBackward0|k_bwd1|k_bwd2', 1, 8, 20)]"

# Fractional times round to a -1 µs host event under hta: HTA's call graph stops; exact is fine.
sed -e 's/"ts": 60, "dur": 10}/"ts": 60.6, "dur": 0.3}/' "$T/seq.json" > "$T/neg.json"
code 0 "negative, hta" "$DFSCOPE" gpu -q --compat hta --only sequences --seq-min-len 1 --format json "$T/neg.json"
check "no sequences under hta, said" test "$(field "(d['ranks'][0]['kernel_sequences'], d['ranks'][0]['kernel_sequences_note'])")" = "(None, 'a host event of negative duration (HTA fails)')"
code 0 "negative, exact" "$DFSCOPE" gpu -q --only sequences --seq-operator linear --seq-min-len 2 --format json "$T/neg.json"
check "exact keeps them" test "$(field "len(d['ranks'][0]['kernel_sequences'])")" = 1

# Hostile kernel names: escaped in the table, quoted in CSV, exact in JSON.
sed 's/"name": "bias_add"/"name": "bias\\u001b[2J,\\"x"/' "$T/seq.json" > "$T/hostile.json"
code 0 "hostile table" "$DFSCOPE" gpu -q --only sequences --seq-min-len 2 "$T/hostile.json"
check "no raw escape" test "$(grep -c $'\x1b' "$T/out")" = 0
code 0 "hostile json" "$DFSCOPE" gpu -q --only sequences --seq-min-len 2 --format json "$T/hostile.json"
check "exact name in JSON" test "$(field "repr(d['ranks'][0]['kernel_sequences'][0]['pattern'])")" = "'aten::linear|gemm|bias\\x1b[2J,\"x'"
rm -rf "$T/hcsv"
code 0 "hostile csv" "$DFSCOPE" gpu -q --only sequences --seq-min-len 2 --format csv -o "$T/hcsv" "$T/hostile.json"
check "quoted in CSV" grep -q '^0,"aten::linear|gemm|bias.\[2J,""x",2,' "$T/hcsv/cuda_kernel_sequences.csv"

code 2 "bad min length" "$DFSCOPE" gpu --only sequences --seq-min-len x "$T/seq.json"
check "bad min length named" grep -q -- '--seq-min-len takes a count' "$T/err"

echo "$pass checks passed, $fail failed"
[ "$fail" = 0 ]

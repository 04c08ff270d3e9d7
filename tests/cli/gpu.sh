#!/usr/bin/env bash
# gpu.sh DFSCOPE - `dfscope gpu` on hand-made traces with known answers: the worked example of
# docs/GPU.md in both semantics (every section), traces without device events (said, with the
# commands that read them), ROCm runtime calls whose stream is "0x0", durations rounded to -1 µs
# under --compat hta, several ranks, the CSV directory, -j invariance and usage errors. The corpus
# parity with HTA is tests/cli/gpu_hta_corpus.sh.
set -u
DFSCOPE=$1
. "$(dirname "$0")/testlib.bash"
field() { json_field "$T/out" "$1"; }

# Two profiler steps; the second launches gemm_a at 120 us (HTA drops it with the last step).
cat > "$T/a.json" <<'JSON'
{"distributedInfo": {"rank": 0}, "traceEvents": [
{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": 100, "dur": 100},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 10, "dur": 5, "args": {"correlation": 1}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 12, "dur": 3, "args": {"correlation": 4}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 16, "dur": 4, "args": {"correlation": 2}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 70, "dur": 5, "args": {"correlation": 3}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 110, "dur": 5, "args": {"correlation": 6}},
{"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": 1, "tid": 1, "ts": 30, "dur": 5, "args": {"correlation": 5}},
{"ph": "X", "cat": "kernel", "name": "gemm_a", "pid": 0, "tid": 7, "ts": 20, "dur": 30, "args": {"stream": 7, "correlation": 1}},
{"ph": "X", "cat": "kernel", "name": "gemm_a", "pid": 0, "tid": 7, "ts": 55, "dur": 10, "args": {"stream": 7, "correlation": 2}},
{"ph": "X", "cat": "kernel", "name": "relu", "pid": 0, "tid": 7, "ts": 80, "dur": 10, "args": {"stream": 7, "correlation": 3}},
{"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce", "pid": 0, "tid": 20, "ts": 40, "dur": 40, "args": {"stream": 20, "correlation": 4}},
{"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy HtoD (Pageable -> Device)", "pid": 0, "tid": 21, "ts": 100, "dur": 10, "args": {"stream": 21, "correlation": 5, "memory bandwidth (GB/s)": 2.0}},
{"ph": "X", "cat": "kernel", "name": "gemm_a", "pid": 0, "tid": 7, "ts": 120, "dur": 10, "args": {"stream": 7, "correlation": 6}},
{"ph": "X", "cat": "gpu_user_annotation", "name": "fwd", "pid": 0, "tid": 7, "ts": 20, "dur": 70}
]}
JSON

# --- the command -----------------------------------------------------------------------------------
code 0 "gpu --help" "$DFSCOPE" gpu --help
check "help names the sections" grep -q 'temporal, kernels, overlap, idle,' "$T/out"
code 0 "help lists gpu" "$DFSCOPE" help
check "help lists gpu" grep -q '^  gpu ' "$T/out"
code 2 "bad --only" "$DFSCOPE" gpu --only temporal,trace-diff "$T/a.json"
check "bad --only named" grep -q "'trace-diff' is none of them" "$T/err"
code 2 "bad --compat" "$DFSCOPE" gpu --compat pandas "$T/a.json"
code 2 "csv needs -o DIR" "$DFSCOPE" gpu --format csv "$T/a.json"
code 2 "no input" "$DFSCOPE" gpu
code 2 "missing input" "$DFSCOPE" gpu "$T/nothing.json"

# --- HTA's numbers: the last step and what it launched dropped ------------------------------------
code 0 "hta json" "$DFSCOPE" gpu -q --compat hta --format json "$T/a.json"
check "schema" test "$(field "d['schema'], d['semantics']")" = "('dfscope-gpu/1', 'hta')"
check "hta rows after the filter" test "$(field "d['ranks'][0]['rows']")" = 12
check "hta temporal" test "$(field "[d['ranks'][0]['temporal'][k] for k in ('idle_us','compute_us','non_compute_us','kernel_time_us','idle_pct','compute_pct','non_compute_pct')]")" = "[10, 50, 30, 90, 11.11, 55.56, 33.33]"
check "hta by type" test "$(field "[(t['kernel_type'], t['sum_us'], t['percentage']) for t in d['ranks'][0]['kernel_types']]")" = "[('COMPUTATION', 30, 37.5), ('COMMUNICATION', 20, 25), ('COMPUTATION overlapping COMMUNICATION', 20, 25), ('MEMORY', 10, 12.5)]"
check "hta by name" test "$(field "[(k['name'], k['sum_us'], k['max_us'], k['min_us'], round(k['stddev_us'], 6), k['mean_us']) for k in d['ranks'][0]['kernels'] if k['name'] == 'gemm_a']")" = "[('gemm_a', 40, 30, 10, 14.142136, 20)]"
check "hta overlap" test "$(field "d['ranks'][0]['comm_comp_overlap_pct']")" = 50
check "hta idle of stream 7" test "$(field "[(i['category'], i['idle_us'], i['ratio']) for i in d['ranks'][0]['idle'] if i['stream'] == 7]")" = "[('host_wait', 15, 0.75), ('kernel_wait', 5, 0.25), ('other', 0, 0)]"
check "hta queue of stream 7: [1,2,1,0,1,0]" test "$(field "[(q['count'], round(q['mean'], 6), round(q['std'], 6), q['p25'], q['p50'], q['max']) for q in d['ranks'][0]['queue_length'] if q['stream'] == 7]")" = "[(6, 0.833333, 0.752773, 0.25, 1, 2)]"
check "hta queue of stream 20: [1,0]" test "$(field "[(q['count'], q['mean']) for q in d['ranks'][0]['queue_length'] if q['stream'] == 20]")" = "[(2, 0.5)]"
check "hta memory bandwidth" test "$(field "[(b['name'], b['count'], b['mean_gbps']) for b in d['ranks'][0]['memory_bw']]")" = "[('Memcpy HtoD', 1, 2)]"
check "hta launch statistics" test "$(field "[d['ranks'][0]['launch'][k] for k in ('count', 'cpu_duration_mean_us', 'gpu_duration_mean_us', 'launch_delay_mean_us', 'launch_delay_max_us')]")" = "[5, 4.4, 20, 27, 65]"
check "hta annotations" test "$(field "[(a['name'], a['sum_us'], a['stddev_us']) for a in d['ranks'][0]['annotations']]")" = "[('fwd', 70, 0)]"
check "hta idle of a one-kernel stream" test "$(field "[(i['category'], i['count'], i['ratio']) for i in d['ranks'][0]['idle'] if i['stream'] == 20]")" = "[('other', 0, None)]"

# --- exact: the whole trace ----------------------------------------------------------------------
code 0 "exact json" "$DFSCOPE" gpu -q --format json "$T/a.json"
check "exact semantics named" test "$(field "d['semantics']")" = exact
check "exact temporal keeps the last step" test "$(field "[d['ranks'][0]['temporal'][k] for k in ('idle_us','compute_us','non_compute_us','kernel_time_us')]")" = "[20, 60, 30, 110]"
check "exact by type, over the whole trace" test "$(field "[(t['kernel_type'], t['sum_us'], round(t['percentage'], 2)) for t in d['ranks'][0]['kernel_types']]")" = "[('COMPUTATION', 40, 44.44), ('COMMUNICATION', 20, 22.22), ('COMPUTATION overlapping COMMUNICATION', 20, 22.22), ('MEMORY', 10, 11.11)]"
check "exact overlap" test "$(field "d['ranks'][0]['comm_comp_overlap_pct']")" = 50
check "exact queue: gemm_a#3 launched at 110, started at 120" test "$(field "[(q['count'], q['max']) for q in d['ranks'][0]['queue_length'] if q['stream'] == 7]")" = "[(8, 2)]"
check "exact annotations: one range has no stddev" test "$(field "[(a['name'], a['count'], a['stddev_us']) for a in d['ranks'][0]['annotations']]")" = "[('fwd', 1, None)]"
check "exact by name: statistics of kernels" test "$(field "[(k['count'], k['sum_us'], k['max_us'], k['min_us'], k['mean_us']) for k in d['ranks'][0]['kernels'] if k['name'] == 'gemm_a']")" = "[(3, 50, 30, 10, 16.666666666666668)]"
check "exact: one kernel has no stddev" test "$(field "[k['stddev_us'] for k in d['ranks'][0]['kernels'] if k['name'] == 'relu']")" = "[None]"
check "exact idle: the host launched gemm_a#3 at 110 after relu ended" test "$(field "[(i['category'], i['idle_us']) for i in d['ranks'][0]['idle'] if i['stream'] == 7]")" = "[('host_wait', 45), ('kernel_wait', 5), ('other', 0)]"
code 0 "table" "$DFSCOPE" gpu -q "$T/a.json"
check "table leads with the answer" sh -c "head -1 '$T/out' | grep -q 'Rank 0: the device idles 18.2% of its 110.000 us span'"
check "table names the biggest idle cause, summed over the rank's streams" \
  grep -qF "Biggest idle cause: waiting for the host to launch (host_wait), 45.000 us summed over 3 streams (90.0% of the streams' idle time)." "$T/out"
check "table without nan" sh -c "! grep -qi 'nan' '$T/out'"
check "overlap in the table" grep -q 'rank 0: 50.00%' "$T/out"

# --- --only, csv, -j --------------------------------------------------------------------------------
code 0 "only temporal" "$DFSCOPE" gpu -q --only temporal --format json "$T/a.json"
check "only temporal: no kernels" test "$(field "sorted(d['ranks'][0].keys())")" = "['device_rows', 'file', 'rank', 'rows', 'temporal']"
code 0 "csv dir" "$DFSCOPE" gpu -q --compat hta --format csv -o "$T/csv" "$T/a.json"
check "eleven csv files (ten of HTA's, the kernels per annotation)" test "$(ls "$T/csv" | wc -l)" = 11
check "launch statistics of rank 0" test "$(sed -n 2p "$T/csv/cuda_kernel_launch_stats_describe_0.csv")" = "count,5.0,5.0,5.0,5.0"
check "temporal csv as HTA's" test "$(sed -n 2p "$T/csv/temporal_breakdown.csv")" = "0,0,10.0,50.0,30.0,90.0,11.11,55.56,33.33"
check "names csv quotes a name with a comma" sh -c "grep -q '\"Memcpy' '$T/csv/gpu_kernel_breakdown_1.csv' || grep -q '^3,Memcpy HtoD (Pageable -> Device),' '$T/csv/gpu_kernel_breakdown_1.csv'"
code 0 "j1" "$DFSCOPE" gpu -q -j 1 --format json "$T/a.json"; cp "$T/out" "$T/j1"
code 0 "j2" "$DFSCOPE" gpu -q -j 2 --format json "$T/a.json"
check "-j does not change the answer" cmp -s "$T/j1" "$T/out"

# --- several ranks: the rank of distributedInfo, ascending ----------------------------------------
sed 's/"rank": 0/"rank": 3/' "$T/a.json" > "$T/r3.json"
code 0 "two ranks" "$DFSCOPE" gpu -q --compat hta --format json "$T/r3.json" "$T/a.json"
check "ranks ascending" test "$(field "[r['rank'] for r in d['ranks']]")" = "[0, 3]"
check "across ranks: the slowest (a tie: the first)" test "$(field "d['across_ranks']['ranks'], d['across_ranks']['slowest_span_us']")" = "(2, {'rank': 0, 'value': 90})"
code 0 "two ranks table" "$DFSCOPE" gpu -q "$T/r3.json" "$T/a.json"
check "most idle rank named" grep -q '^Most idle, rank 0' "$T/out"
check "the spread across ranks" grep -q '^Across 2 ranks: span 110.000 us (rank 0) to 110.000 us (rank 0, the slowest);' "$T/out"

# --- no device events --------------------------------------------------------------------------------
cat > "$T/host.json" <<'JSON'
{"traceEvents": [
{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10, "dur": 5},
{"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 20, "dur": 5}
]}
JSON
code 0 "no device events" "$DFSCOPE" gpu "$T/host.json"
check "no device events said" grep -q 'No device events' "$T/out"
check "and which command reads them" grep -q "dfscope steps" "$T/out"
check "warned on stderr" grep -q 'no device (GPU) event' "$T/err"
code 0 "no device events, json" "$DFSCOPE" gpu -q --format json "$T/host.json"
check "json: no device rows" test "$(field "d['ranks'][0]['device_rows']")" = 0
code 0 "no device events, csv" "$DFSCOPE" gpu -q --compat hta --format csv -o "$T/none" "$T/host.json"
check "HTA's failing tables not written" test ! -e "$T/none/temporal_breakdown.csv"

# --- device work that takes no time: no share, and said so -----------------------------------------
cat > "$T/zero.json" <<'JSON'
{"traceEvents": [
{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 10, "dur": 0, "args": {"stream": 7, "correlation": 1}},
{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 20, "dur": 5}
]}
JSON
code 0 "zero span" "$DFSCOPE" gpu -q "$T/zero.json"
check "zero span said" grep -q 'The device work takes no time' "$T/out"
check "zero span: n/a, not nan" sh -c "! grep -qi 'nan' '$T/out'"
code 0 "zero span json" "$DFSCOPE" gpu -q --format json "$T/zero.json"
check "zero span: null shares" test "$(field "d['ranks'][0]['temporal']['idle_pct']")" = None

# --- ROCm: runtime calls carry stream "0x0" (no stream), kernels run on stream 0 ------------------
cat > "$T/rocm.json" <<'JSON'
{"traceEvents": [
{"ph": "X", "cat": "cuda_runtime", "name": "hipLaunchKernel", "pid": 1, "tid": 1, "ts": 0, "dur": 50, "args": {"stream": "0x0", "correlation": 1}},
{"ph": "X", "cat": "kernel", "name": "Cijk_gemm", "pid": 2, "tid": 0, "ts": 10, "dur": 10, "args": {"stream": 0, "correlation": 1}},
{"ph": "X", "cat": "kernel", "name": "Cijk_gemm", "pid": 2, "tid": 0, "ts": 30, "dur": 10, "args": {"stream": 0, "correlation": 2}}
]}
JSON
code 0 "rocm hta" "$DFSCOPE" gpu -q --compat hta --format json "$T/rocm.json"
check "rocm: the runtime call is no device work" test "$(field "[d['ranks'][0]['temporal'][k] for k in ('kernel_time_us','compute_us','idle_us')]")" = "[30, 20, 10]"
check "rocm: stream 0 is a stream" test "$(field "[i['stream'] for i in d['ranks'][0]['idle']]")" = "[0, 0]"

# --- rounding: fractional times become whole µs under hta, a duration can become -1 ---------------
cat > "$T/round.json" <<'JSON'
{"traceEvents": [
{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 90, "dur": 30},
{"ph": "X", "cat": "kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 100.4, "dur": 2.3, "args": {"stream": 7, "correlation": 1}},
{"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 7, "ts": 105.0, "dur": 0.5, "args": {"stream": 7, "correlation": 2}},
{"ph": "X", "cat": "kernel", "name": "k3", "pid": 0, "tid": 7, "ts": 106.6, "dur": 0.3, "args": {"stream": 7, "correlation": 3}}
]}
JSON
code 0 "rounded hta" "$DFSCOPE" gpu -q --compat hta --format json "$T/round.json"
check "hta: (101,1) (105,0) (107,-1)" test "$(field "[d['ranks'][0]['temporal'][k] for k in ('kernel_time_us','idle_us','compute_us')]")" = "[5, 5, 0]"
check "hta: k3 lasts -1 us" test "$(field "[k['sum_us'] for k in d['ranks'][0]['kernels'] if k['name'] == 'k3']")" = "[-1]"
code 0 "rounded exact" "$DFSCOPE" gpu -q --format json "$T/round.json"
check "exact: ns precision" test "$(field "[round(d['ranks'][0]['temporal'][k], 6) for k in ('kernel_time_us','idle_us','compute_us')]")" = "[6.5, 3.4, 3.1]"
code 0 "rounded table" "$DFSCOPE" gpu -q "$T/round.json"
check "table scales durations" grep -q '6.500 us' "$T/out"

echo "$pass checks passed, $fail failed"
[ "$fail" = 0 ]

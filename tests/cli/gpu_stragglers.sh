#!/usr/bin/env bash
# gpu_stragglers.sh DFSCOPE - `dfscope gpu --only stragglers`: the worked example of docs/GPU.md
# (two ranks, three 100 us steps, one all-reduce per step that rank 1 starts 20 us later) in both
# semantics (hta drops the last step) with one and two candidates; the table's finding, the JSON and
# the CSV file; why there is no answer (one rank, no steps, no collective) and usage errors.
set -u
DFSCOPE=$1
. "$(dirname "$0")/testlib.bash"
field() { json_field "$T/out" "$1"; }

mkrank() { # RANK DELAY(us) [NAME]: three steps, each launching one all-reduce DELAY us in
  local name=${3:-ncclKernel_AllReduce_RING_LL_Sum_float} sep="" s i=1
  { printf '{"distributedInfo": {"rank": %s}, "traceEvents": [\n' "$1"
    for s in 0 100 200; do
      printf '%s{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%s", "pid": 1, "tid": 1, "ts": %s, "dur": 100},\n' "$sep" $i $s
      printf '{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": %s, "dur": 5, "args": {"correlation": %s}},\n' $((s + 10)) $i
      printf '{"ph": "X", "cat": "kernel", "name": "%s", "pid": 0, "tid": 20, "ts": %s, "dur": 30, "args": {"stream": 20, "correlation": %s}}\n' "$name" $((s + $2)) $i
      sep=","; i=$((i + 1))
    done
    printf ']}\n'; } > "$T/rank$1.json"
}
mkrank 0 20
mkrank 1 40
RANKS="[(x['rank'], x['late_steps']) for x in d['stragglers']['ranks']]"
code 0 "hta, 1 candidate" "$DFSCOPE" gpu -q --compat hta --only stragglers --stragglers 1 --format json "$T/rank0.json" "$T/rank1.json"
check "hta: rank 1, late in both kept steps" test "$(field "($RANKS, d['stragglers']['steps'])")" = "([(1, 2)], 2)"
code 0 "hta, 2 candidates" "$DFSCOPE" gpu -q --compat hta --only stragglers --format json "$T/rank0.json" "$T/rank1.json"
check "hta: both ranks" test "$(field "$RANKS")" = "[(0, 2), (1, 2)]"
code 0 "exact, 1 candidate" "$DFSCOPE" gpu -q --only stragglers --stragglers 1 --format json "$T/rank0.json" "$T/rank1.json"
check "exact: every step counts" test "$(field "($RANKS, d['stragglers']['steps'], d['stragglers']['mean_step_us'])")" = "([(1, 3)], 3, 100)"
check "the metric collective" test "$(field "(d['stragglers']['metric_kernel'], d['stragglers']['stream'])")" = "('ncclKernel_AllReduce_RING_LL_Sum_float', 20)"
code 0 "table" "$DFSCOPE" gpu -q --only stragglers --stragglers 1 "$T/rank0.json" "$T/rank1.json"
check "the finding first" test "$(head -1 "$T/out")" = "Stragglers: rank 1 (late in 3 of 3 steps)."
rm -rf "$T/csv"
code 0 "csv" "$DFSCOPE" gpu -q --only stragglers --stragglers 1 --format csv -o "$T/csv" "$T/rank0.json" "$T/rank1.json"
check "csv file" test "$(cat "$T/csv/stragglers.csv")" = ",rank,late_steps,steps,metric_kernel,stream
0,1,3,3,ncclKernel_AllReduce_RING_LL_Sum_float,20"
code 0 "default sections" "$DFSCOPE" gpu -q --format json "$T/rank0.json" "$T/rank1.json"
check "not in the default sections" test "$(field "'stragglers' in d")" = False

# No answer: said, exit 0.
code 0 "one rank" "$DFSCOPE" gpu -q --only stragglers "$T/rank0.json"
check "one rank said" grep -q '^Stragglers: none found: fewer than two ranks.' "$T/out"
sed 's/ProfilerStep#/Step /' "$T/rank0.json" > "$T/nostep0.json"; sed 's/ProfilerStep#/Step /' "$T/rank1.json" > "$T/nostep1.json"
code 0 "no steps" "$DFSCOPE" gpu -q --only stragglers "$T/nostep0.json" "$T/nostep1.json"
check "no steps said" grep -q '^Stragglers: none found: no profiler steps' "$T/out"
mkrank 0 20 gemm; mkrank 1 40 gemm
code 0 "no collective" "$DFSCOPE" gpu -q --only stragglers --format json "$T/rank0.json" "$T/rank1.json"
check "no collective said" test "$(field "d['stragglers']['status']")" = "no collective (ncclKernel...) of at least 1% of a step"

code 2 "zero candidates" "$DFSCOPE" gpu --only stragglers --stragglers 0 "$T/rank0.json"
check "zero candidates named" grep -q -- '--stragglers takes a count of ranks' "$T/err"

echo "$pass checks passed, $fail failed"
[ "$fail" = 0 ]

#!/usr/bin/env bash
# gpu_queue_blocked.sh DFSCOPE TRACES - `dfscope gpu --only queue`: the time each stream's queue of
# launched kernels is at or above --queue-full (HTA's get_time_spent_blocked_on_full_queue) on a
# hand-built trace: at the queue's maximum and one past it, every stream (exact) against HTA's one
# row per rank (the last stream), relative to the rank's trace (exact: first start to last end; hta:
# to the last start); the table's finding, JSON, CSV, a trace without launches; then, on the
# corpus, which stream HTA's row names against HTA's own queue-length maxima. The corpus part is
# skipped, said, when ../shared/traces is absent.
set -u
DFSCOPE=$1
TRACES=${2:-}
. "$(dirname "$0")/testlib.bash"
field() { json_field "$T/out" "$1"; }

# Stream 7: four launches at 0, 1, 2, 3 us, their kernels at 10, 15, 20, 25 (5 us each): lengths 1,
# 2, 3, 4, 3, 2, 1, 0. Stream 20: a launch at 4, its kernel at 6 (2 us): 1, 0.
{ printf '{"traceEvents": [\n'
  i=1
  for ts in 0 1 2 3; do
    printf '{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": %s, "dur": 1, "args": {"correlation": %s}},\n' $ts $i
    printf '{"ph": "X", "cat": "kernel", "name": "k%s", "pid": 0, "tid": 7, "ts": %s, "dur": 5, "args": {"stream": 7, "correlation": %s}},\n' $i $((10 + 5 * (i - 1))) $i
    i=$((i + 1))
  done
  printf '{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 4, "dur": 1, "args": {"correlation": 5}},\n'
  printf '{"ph": "X", "cat": "kernel", "name": "k5", "pid": 0, "tid": 20, "ts": 6, "dur": 2, "args": {"stream": 20, "correlation": 5}}\n'
  printf ']}\n'; } > "$T/q.json"
BLOCKED="(d['ranks'][0]['queue_blocked']['threshold'], [(s['stream'], s['blocked_us'], s['relative']) for s in d['ranks'][0]['queue_blocked']['streams']])"

code 0 "at the maximum" "$DFSCOPE" gpu -q --only queue --queue-full 4 --format json "$T/q.json"
check "4: from the 4th launch to the first start, of 30 us" test "$(field "$BLOCKED")" = "(4, [(7, 7, 0.23333333333333334)])"
code 0 "one past the maximum" "$DFSCOPE" gpu -q --only queue --queue-full 5 --format json "$T/q.json"
check "5: no stream" test "$(field "$BLOCKED")" = "(5, [])"
code 0 "three" "$DFSCOPE" gpu -q --only queue --queue-full 3 --format json "$T/q.json"
check "3: 1 + 7 + 5 us" test "$(field "$BLOCKED")" = "(3, [(7, 13, 0.43333333333333335)])"
code 0 "one, exact" "$DFSCOPE" gpu -q --only queue --queue-full 1 --format json "$T/q.json"
check "1, exact: every stream" test "$(field "$BLOCKED")" = "(1, [(7, 25, 0.8333333333333334), (20, 2, 0.06666666666666667)])"
code 0 "one, hta" "$DFSCOPE" gpu -q --compat hta --only queue --queue-full 1 --format json "$T/q.json"
check "1, hta: HTA's row, the last stream, of 25 us (the last start)" test "$(field "$BLOCKED")" = "(1, [(20, 2, 0.08)])"
code 0 "default" "$DFSCOPE" gpu -q --only queue --format json "$T/q.json"
check "default threshold 1024" test "$(field "$BLOCKED")" = "(1024, [])"
check "queue_length unchanged" test "$(field "[q['stream'] for q in d['ranks'][0]['queue_length']]")" = "[7, 20]"

code 0 "table" "$DFSCOPE" gpu -q --only queue --queue-full 1 "$T/q.json"
check "the finding leads the section" test "$(sed -n '4,6p' "$T/out")" = "  Stream 7 held 1 or more launched kernels for 25.000 us (83.33% of the rank's trace).
  Stream 20 held 1 or more launched kernels for 2.000 us (6.67% of the rank's trace).
  (a launch into a full queue blocks the host in the launch call)"
code 0 "table, none" "$DFSCOPE" gpu -q --only queue "$T/q.json"
check "none said" grep -q '^  No stream held 1,024 or more launched kernels: the host never blocked on a full queue\.$' "$T/out"

rm -rf "$T/csv"
code 0 "csv" "$DFSCOPE" gpu -q --compat hta --only queue --queue-full 1 --format csv -o "$T/csv" "$T/q.json"
check "csv: HTA's columns" test "$(cat "$T/csv/queue_blocked.csv")" = ",rank,stream,duration_at_max_queue_length,relative_duration_at_max_queue_length
0,0,20,2.0,0.08"
rm -rf "$T/csv"
code 0 "csv, none" "$DFSCOPE" gpu -q --only queue --format csv -o "$T/csv" "$T/q.json"
check "no file when no stream is full" test ! -e "$T/csv/queue_blocked.csv"

printf '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 0, "dur": 5, "args": {"stream": 7, "correlation": 9}}]}\n' > "$T/none.json"
code 0 "no launch" "$DFSCOPE" gpu -q --only queue --queue-full 1 "$T/none.json"
check "no launch: n/a, no nan" sh -c "grep -q '^  n/a: no launch call' '$T/out' && ! grep -qi nan '$T/out'"
code 0 "no launch json" "$DFSCOPE" gpu -q --only queue --queue-full 1 --format json "$T/none.json"
check "no launch: no stream" test "$(field "$BLOCKED")" = "(1, [])"
code 2 "zero" "$DFSCOPE" gpu --only queue --queue-full 0 "$T/q.json"
check "zero refused" grep -q -- '--queue-full takes a count of kernels' "$T/err"

# --- the corpus: HTA's row is the last stream whose queue reached the threshold -------------------
REF=$TRACES/../reference/hta
if [ -z "$TRACES" ] || [ ! -d "$TRACES/hta" ] || [ ! -d "$REF" ]; then
  echo "corpus checks skipped: the corpus (../shared/traces and ../shared/reference/hta) is absent"
else
  for pair in "trace_filter hta/trace_filter/sampled_rank-0.json.gz hta/trace_filter/sampled_rank-1.json.gz" \
              "ns_resolution_trace hta/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz" \
              "kineto_tb_plugin_nw0 kineto/resnet50-dataloader/resnet50_num_workers_0__worker0.1623143089861.pt.trace.json.gz"; do
    set -- $pair
    name=$1; shift
    inputs=(); for f in "$@"; do inputs+=("$TRACES/$f"); done
    # thresholds: 3, 9, each rank's largest maximum, one past it, and HTA's default
    for full in $(/usr/bin/python3 - "$REF/$name/queue_length_summary.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))[3:]
top = max(int(float(r[-1])) for r in rows)
print(*sorted({3, 9, top, top + 1, 1024}))
PY
    ); do
      code 0 "$name: --queue-full $full" "$DFSCOPE" gpu -q --compat hta --only queue --queue-full "$full" --format json "${inputs[@]}"
      check "$name, $full: HTA's row is the last stream that reached it" /usr/bin/python3 - "$T/out" "$REF/$name/queue_length_summary.csv" "$full" <<'PY'
import csv, json, sys
full = int(sys.argv[3])
reached = {}
for r in list(csv.reader(open(sys.argv[2])))[3:]:
    if float(r[-1]) >= full:
        reached[int(r[0])] = max(reached.get(int(r[0]), -1), int(r[1]))
got = {k['rank']: [s['stream'] for s in k['queue_blocked']['streams']] for k in json.load(open(sys.argv[1]))['ranks']}
want = {rank: ([reached[rank]] if rank in reached else []) for rank in got}
ok = got == want and all(s['blocked_us'] >= 0 and 0 <= s['relative'] <= 1
                         for k in json.load(open(sys.argv[1]))['ranks'] for s in k['queue_blocked']['streams'])
sys.exit(0 if ok else 1)
PY
    done
  done
  # exact: every stream whose queue reached the threshold, by its own queue lengths
  code 0 "exact corpus" "$DFSCOPE" gpu -q --only queue --queue-full 5 --format json "$TRACES/hta/trace_filter/sampled_rank-0.json.gz"
  check "exact: the streams whose maximum reaches 5" test "$(field "[s['stream'] for s in d['ranks'][0]['queue_blocked']['streams']] == [q['stream'] for q in d['ranks'][0]['queue_length'] if q['max'] >= 5]")" = True
fi

echo "$pass checks passed, $fail failed"
[ "$fail" = 0 ]

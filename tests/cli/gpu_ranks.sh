#!/usr/bin/env bash
# gpu_ranks.sh DFSCOPE - which rank each input of `dfscope gpu` is, and what happens when several
# inputs are one rank (docs/GPU.md "Ranks"), on hand-built Kineto traces: two profiling windows of
# one process (no distributedInfo, far apart) are measured apart, each labelled by its file, never
# as one timeline and never one dropped; files naming the same rank likewise, in input order;
# under --compat hta the later file of a rank replaces the earlier (as HTA loads a folder) and the
# replaced file no longer decides whether HTA's last-step filter runs; the CSV launch statistics
# go to one file when two entries share a rank (their per-rank files would have one name); a file
# that is no trace (notes beside the traces) is no rank.
set -u
DFSCOPE=$1
. "$(dirname "$0")/testlib.bash"
field() { json_field "$T/out" "$1"; }
entries="[(r['rank'], r['file'].rsplit('/', 1)[-1], r['temporal']['kernel_time_us']) for r in d['ranks']]"

# two windows of one process 6 minutes apart, without distributedInfo: 1.52 ms and 2.52 ms of device time
kineto 0 2 "" norank 1000000 > "$T/worker0.1.json"
kineto 0 3 "" norank 361000000 > "$T/worker0.2.json"
code 0 "two windows" "$DFSCOPE" gpu -q --format json "$T/worker0.1.json" "$T/worker0.2.json"
check "two windows: measured apart, in input order" \
  test "$(field "$entries")" = "[(0, 'worker0.1.json', 1520), (0, 'worker0.2.json', 2520)]"
code 0 "two windows, the other order" "$DFSCOPE" gpu -q --format json "$T/worker0.2.json" "$T/worker0.1.json"
check "two windows: input order" \
  test "$(field "$entries")" = "[(0, 'worker0.2.json', 2520), (0, 'worker0.1.json', 1520)]"
code 0 "two windows, table" "$DFSCOPE" gpu -q --only temporal,kernels "$T/worker0.1.json" "$T/worker0.2.json"
check "table: the rows labelled by file" grep -q '^  0 (worker0.1.json)  *1.520 ms' "$T/out"
check "table: the second window" grep -q '^  0 (worker0.2.json)  *2.520 ms' "$T/out"
check "table: sections labelled by file" grep -q '^Rank 0 (worker0.2.json), kernels by name' "$T/out"
check "table: said" grep -q 'each is measured apart,$' "$T/out"
check "table: no 6-minute span" test "$(grep -c " min " "$T/out")" = 0
check "table: the rank column fits the labels (span under its head)" \
  /usr/bin/python3 -c "import sys; l=open('$T/out').read().split('\n'); h=[x for x in l if x.lstrip().startswith('rank ') and 'span' in x][0]; r=[x for x in l if x.startswith('  0 (worker0.1.json)')][0]; sys.exit(0 if h.index('span') + 4 == r.index(' ms') + 3 else 1)"
code 0 "two windows, the whole table" "$DFSCOPE" gpu -q "$T/worker0.1.json" "$T/worker0.2.json"
check "the idle cause says the streams are of two files of one rank" \
  grep -q '^Biggest idle cause: .* summed over the 6 streams of 2 files of rank 0 (' "$T/out"

# files naming one rank, beside another rank: by rank, then input order
kineto 3 2 "" "" 1000000 > "$T/b-rank3.json"
kineto 3 3 "" "" 2000000 > "$T/a-rank3.json"
kineto 1 2 "" "" 1000000 > "$T/c-rank1.json"
code 0 "one rank twice" "$DFSCOPE" gpu -q --format json "$T/b-rank3.json" "$T/a-rank3.json" "$T/c-rank1.json"
check "one rank twice: by rank, then input order" \
  test "$(field "[(r['rank'], r['file'].rsplit('/', 1)[-1]) for r in d['ranks']]")" = "[(1, 'c-rank1.json'), (3, 'b-rank3.json'), (3, 'a-rank3.json')]"
code 0 "one rank twice, table" "$DFSCOPE" gpu -q --only overlap "$T/b-rank3.json" "$T/a-rank3.json" "$T/c-rank1.json"
check "a rank of its own keeps its bare number" grep -q '^  rank 1: ' "$T/out"
check "a shared rank is labelled" grep -q '^  rank 3 (a-rank3.json): ' "$T/out"

# CSV: the launch statistics of entries sharing a rank in one file
code 0 "csv" "$DFSCOPE" gpu -q --format csv -o "$T/csv" "$T/b-rank3.json" "$T/a-rank3.json" "$T/c-rank1.json"
check "csv: one launch file" test -f "$T/csv/cuda_kernel_launch_stats_describe.csv"
check "csv: no per-rank launch file" test ! -e "$T/csv/cuda_kernel_launch_stats_describe_3.csv"
check "csv: both entries of rank 3 in it" \
  test "$(grep -c '^3,count,' "$T/csv/cuda_kernel_launch_stats_describe.csv")" = 2

# --compat hta: the later file of a rank counts, as HTA loads a folder; said
code 0 "hta: one rank twice" "$DFSCOPE" gpu -q --compat hta --format json "$T/worker0.1.json" "$T/worker0.2.json"
check "hta: the later file counts" \
  test "$(field "[r['file'].rsplit('/', 1)[-1] for r in d['ranks']]")" = "['worker0.2.json']"
code 0 "hta: table" "$DFSCOPE" gpu -q --compat hta --only temporal "$T/worker0.1.json" "$T/worker0.2.json"
check "hta: said" grep -q 'the later one counts' "$T/out"
check "hta: the bare rank number" grep -q '^Rank 0: ' "$T/out"

# ...and the replaced file takes no part: one step name in the file that counts, so HTA's
# last-step filter does not run (the replaced file's ProfilerStep#2 does not make it run)
kineto 0 2 "" "" 1000000 > "$T/replaced.json"
kineto 0 1 "" "" 5000000 > "$T/counts.json"
code 0 "hta: replaced alone" "$DFSCOPE" gpu -q --compat hta --format json "$T/counts.json"
alone=$(field "[(r['rows'], r['last_step_dropped']) for r in d['ranks']]")
check "hta: one step name: no filter" test "$alone" = "[(13, False)]"
code 0 "hta: replaced" "$DFSCOPE" gpu -q --compat hta --format json "$T/replaced.json" "$T/counts.json"
check "hta: the replaced file does not decide the filter" \
  test "$(field "[(r['rows'], r['last_step_dropped']) for r in d['ranks']]")" = "$alone"

# a file beside the traces that is no trace (notes, a checker's output) is no rank: it replaces none
mkdir -p "$T/folder"
kineto 0 2 "" "" 1000000 > "$T/folder/rank0.json"
echo "results checked by hand" > "$T/folder/zz-notes.txt"
for sem in none hta; do
  code 0 "not a trace ($sem)" "$DFSCOPE" gpu -q --compat "$sem" --format json "$T/folder"
  check "not a trace ($sem): no rank" test "$(field "[r['file'].rsplit('/', 1)[-1] for r in d['ranks']]")" = "['rank0.json']"
done

echo "gpu_ranks: $pass passed, $fail failed"
[ "$fail" = 0 ]

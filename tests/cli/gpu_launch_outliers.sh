#!/usr/bin/env bash
# gpu_launch_outliers.sh DFSCOPE TRACES - `dfscope gpu --only launch`: HTA's three classes of launched
# kernels (short: call <= 50 us and kernel shorter than the call; runtime: call > 50 us; delay:
# launch delay > 100 us) on a hand-built trace with values at and just past each threshold, in both
# semantics (hta rounds the file's fractional call to 50 us); the table's findings, the JSON
# objects, the CSV file, the options; a trace without launches and one without outliers (no nan);
# then, on the corpus, the classes against HTA's own launch statistics (sums = mean x count, the
# worst = the max). The corpus part is skipped, said, when ../shared/traces is absent.
set -u
DFSCOPE=$1
TRACES=${2:-}
. "$(dirname "$0")/testlib.bash"
field() { json_field "$T/out" "$1"; }

# corr: call ts, call dur, kernel ts, kernel dur (us); the kernels run on stream 7.
#  1: 0 50 150 10      cpu at 50 (short, not runtime), delay 100 (at: not a delay outlier)
#  2: 200 51 352 60    cpu 51 (runtime), delay 101 (delay)
#  3: 500 10 510 10    kernel as long as its call: not short; delay 0
#  4: 600 20 600 5     short; the kernel starts before the call ends: delay 0
#  5: 700 80 1000 100  runtime, delay 220
#  6: 1099.999 50.001 1250.001 10   exact: runtime by 1 ns, delay 100.001 (1 ns past); hta rounds the
#     file (a start with a fraction): call [1100, 1150) of 50 us, short; kernel [1251, 1260), delay 101
launches() {
  local sep="" c
  printf '{"traceEvents": [\n'
  while read -r c cts cdur kts kdur; do
    printf '%s{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": %s, "dur": %s, "args": {"correlation": %s}},\n' "$sep" "$cts" "$cdur" "$c"
    printf '{"ph": "X", "cat": "kernel", "name": "k%s", "pid": 0, "tid": 7, "ts": %s, "dur": %s, "args": {"stream": 7, "correlation": %s}}\n' "$c" "$kts" "$kdur" "$c"
    sep=","
  done
  printf ']}\n'
}
launches > "$T/l.json" <<'EOF'
1 0 50 150 10
2 200 51 352 60
3 500 10 510 10
4 600 20 600 5
5 700 80 1000 100
6 1099.999 50.001 1250.001 10
EOF
CLS="[(c, d['ranks'][0]['launch']['outliers'][c]['count'], d['ranks'][0]['launch']['outliers'][c]['total_us'], [w['correlation'] for w in d['ranks'][0]['launch']['outliers'][c]['worst']]) for c in ('short', 'runtime', 'delay')]"

code 0 "exact json" "$DFSCOPE" gpu -q --only launch --format json "$T/l.json"
check "exact: the three classes" test "$(field "$CLS")" = "[('short', 2, 70, [1, 4]), ('runtime', 3, 181.001, [5, 2, 6]), ('delay', 3, 421.001, [5, 2, 6])]"
check "exact: shares and thresholds" test "$(field "(d['ranks'][0]['launch']['outliers']['short']['share_pct'], d['ranks'][0]['launch']['outliers']['runtime_threshold_us'], d['ranks'][0]['launch']['outliers']['delay_threshold_us'])")" = "(33.333333333333336, 50, 100)"
check "exact: a worst row" test "$(field "d['ranks'][0]['launch']['outliers']['runtime']['worst'][2]")" = "{'name': 'k6', 'correlation': 6, 'launch_ts_us': 1099.999, 'cpu_duration_us': 50.001, 'gpu_duration_us': 10, 'launch_delay_us': 100.001}"
check "the statistics' keys unchanged" test "$(field "[k for k in d['ranks'][0]['launch'] if not k.startswith(('cpu_', 'gpu_', 'launch_delay_'))]")" = "['count', 'outliers']"

code 0 "hta json" "$DFSCOPE" gpu -q --compat hta --only launch --format json "$T/l.json"
check "hta: the call of 50.001 us is 50 us: short, not runtime" test "$(field "$CLS")" = "[('short', 3, 120, [1, 6, 4]), ('runtime', 2, 131, [5, 2]), ('delay', 3, 422, [5, 2, 6])]"

# Thresholds: at a value it is no outlier, 1 ns past it is.
code 0 "at the thresholds" "$DFSCOPE" gpu -q --only launch --launch-runtime 80us --launch-delay 220us --format json "$T/l.json"
check "at 80 us and 220 us: none (and 3 short)" test "$(field "[(c, n) for c, n, t, w in $CLS]")" = "[('short', 3), ('runtime', 0), ('delay', 0)]"
code 0 "just below the thresholds" "$DFSCOPE" gpu -q --only launch --launch-runtime 79.999us --launch-delay 219.999us --format json "$T/l.json"
check "1 ns past: corr 5 in both" test "$(field "[(c, n, w) for c, n, t, w in $CLS][1:]")" = "[('runtime', 1, [5]), ('delay', 1, [5])]"

code 0 "table" "$DFSCOPE" gpu -q --only launch "$T/l.json"
check "the findings lead the section" test "$(sed -n '4,6p' "$T/out")" = "  3 of 6 launches (50.00%) waited over 100.000 us for the device: 421.001 us of delay (the device was busy or its queue full).
  3 of 6 launches (50.00%) spent over 50.000 us in the launch call: 181.001 us in those calls.
  2 of 6 kernels (33.33%) ran shorter than their launch call of at most 50.000 us: 70.000 us in those calls (launch-bound: fuse them or use CUDA graphs)."
check "the worst delays, with the kernel and when" grep -q '^      220.000 us    80.000 us   100.000 us            5     700.000 us  k5$' "$T/out"
check "table without nan" sh -c "! grep -qi 'nan' '$T/out'"

rm -rf "$T/csv"
code 0 "csv" "$DFSCOPE" gpu -q --only launch --format csv -o "$T/csv" "$T/l.json"
check "csv: one row per outlier and class" test "$(cat "$T/csv/cuda_kernel_launch_outliers.csv")" = ",rank,class,name,correlation,launch_ts(us),cpu_duration,gpu_duration,launch_delay
0,0,short,k1,1,0.0,50.0,10.0,100.0
1,0,short,k4,4,600.0,20.0,5.0,0.0
2,0,runtime,k5,5,700.0,80.0,100.0,220.0
3,0,runtime,k2,2,200.0,51.0,60.0,101.0
4,0,runtime,k6,6,1099.999,50.001,10.0,100.001
5,0,delay,k5,5,700.0,80.0,100.0,220.0
6,0,delay,k2,2,200.0,51.0,60.0,101.0
7,0,delay,k6,6,1099.999,50.001,10.0,100.001"

# No outlier: said, no CSV file of outliers.
launches > "$T/calm.json" <<'EOF'
1 0 10 10 10
2 20 10 30 20
EOF
code 0 "no outlier" "$DFSCOPE" gpu -q --only launch "$T/calm.json"
check "no outlier said" grep -q '^  0 of 2 launches (0.00%) waited over 100.000 us for the device\.$' "$T/out"
rm -rf "$T/csv"
code 0 "no outlier csv" "$DFSCOPE" gpu -q --only launch --format csv -o "$T/csv" "$T/calm.json"
check "no outlier file" test ! -e "$T/csv/cuda_kernel_launch_outliers.csv"

# No launch at all (kernels without their calls): n/a in the table, zeros and null in JSON.
printf '{"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 0, "dur": 5, "args": {"stream": 7, "correlation": 9}}]}\n' > "$T/none.json"
code 0 "no launch" "$DFSCOPE" gpu -q --only launch "$T/none.json"
check "no launch said" grep -q '^  n/a: no launch call of the list has its device work in the trace$' "$T/out"
check "no launch: no nan" sh -c "! grep -qi 'nan' '$T/out'"
code 0 "no launch json" "$DFSCOPE" gpu -q --only launch --format json "$T/none.json"
check "no launch: count 0, share null" test "$(field "[(d['ranks'][0]['launch']['outliers'][c]['count'], d['ranks'][0]['launch']['outliers'][c]['share_pct']) for c in ('short', 'runtime', 'delay')]")" = "[(0, None), (0, None), (0, None)]"

code 2 "bad threshold" "$DFSCOPE" gpu --only launch --launch-delay 0 "$T/l.json"
check "bad threshold named" grep -q -- '--launch-delay takes a duration' "$T/err"

# --- the corpus: the classes add up to HTA's launch statistics ------------------------------------
REF=$TRACES/../reference/hta
if [ -z "$TRACES" ] || [ ! -d "$TRACES/hta" ] || [ ! -d "$REF" ]; then
  echo "corpus checks skipped: the corpus (../shared/traces and ../shared/reference/hta) is absent"
else
  for pair in "kineto_tb_plugin_nw0 kineto/resnet50-dataloader/resnet50_num_workers_0__worker0.1623143089861.pt.trace.json.gz" \
              "nccl_parser_config hta/nccl_parser_config/nccl_data.json.gz" \
              "critical_path_alexnet hta/critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz"; do
    set -- $pair
    ref=$REF/$1/cuda_kernel_launch_stats_describe_0.csv
    # every launch is a runtime outlier over 1 ns: the sum of the calls is HTA's mean x count, and
    # the sum of the delays too (zero delays add nothing); the worst are HTA's maxima
    code 0 "$1: 1 ns thresholds" "$DFSCOPE" gpu -q --compat hta --only launch --launch-runtime 1ns --launch-delay 1ns --format json "$TRACES/$2"
    check "$1: sums and maxima are HTA's" /usr/bin/python3 - "$T/out" "$ref" <<'PY'
import csv, json, sys
d = json.load(open(sys.argv[1]))['ranks'][0]['launch']
ref = {r[0]: r[1:] for r in csv.reader(open(sys.argv[2]))}
n, cpu_mean, delay_mean = float(ref['count'][1]), float(ref['mean'][1]), float(ref['mean'][3])
o = d['outliers']
close = lambda a, b: abs(a - b) <= 1e-9 * max(1.0, abs(b))
ok = (o['runtime']['count'] == n and close(o['runtime']['total_us'], cpu_mean * n)
      and close(o['delay']['total_us'], delay_mean * n)
      and o['runtime']['worst'][0]['cpu_duration_us'] == float(ref['max'][1])
      and o['delay']['worst'][0]['launch_delay_us'] == float(ref['max'][3]))
sys.exit(0 if ok else 1)
PY
    max_cpu=$(awk -F, '$1 == "max" {print $3}' "$ref")
    code 0 "$1: at HTA's longest call" "$DFSCOPE" gpu -q --compat hta --only launch --launch-runtime "${max_cpu%.0}us" --format json "$TRACES/$2"
    check "$1: none past the longest call" test "$(field "d['ranks'][0]['launch']['outliers']['runtime']['count']")" = 0
  done
fi

echo "$pass checks passed, $fail failed"
[ "$fail" = 0 ]

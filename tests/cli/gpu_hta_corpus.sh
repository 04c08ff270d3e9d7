#!/usr/bin/env bash
# gpu_hta_corpus.sh DFSCOPE TRACES - `dfscope gpu --compat hta` reproduces Holistic Trace Analysis'
# CSV files on every corpus trace HTA was run on (TRACES/../reference/hta): the temporal breakdown,
# both kernel breakdowns, the communication/computation overlap, both idle-time tables, the
# queue-length and memory-bandwidth summaries, the launch statistics of each rank and the GPU
# user-annotation breakdown. µs values
# and rounded percentages must be byte-identical; other floats (means, standard deviations of the
# by-name, queue, bandwidth, launch and annotation tables) equal to 1e-9 relative, as HTA sums them in another order. A CSV HTA did not write
# (its analysis failed) must not be written either. Skips when the corpus is absent.
set -u
DFSCOPE=$1
TRACES=$2
REF=$TRACES/../reference/hta
. "$(dirname "$0")/testlib.bash"
if [ ! -d "$TRACES/hta" ] || [ ! -d "$REF" ]; then
  echo "skipped: the corpus (../shared/traces and ../shared/reference/hta) is absent"
  exit 77
fi

# Numbers of two CSV files equal: fields byte-identical, or both non-integral numbers within 1e-9.
same_csv() {
  python3 - "$1" "$2" <<'PY'
import csv, sys
def num(x):
    try:
        return float(x)
    except ValueError:
        return None
a = list(csv.reader(open(sys.argv[1])))
b = list(csv.reader(open(sys.argv[2])))
bad = len(a) != len(b)
for ra, rb in zip(a, b):
    bad |= len(ra) != len(rb)
    for x, y in zip(ra, rb):
        if x == y:
            continue
        fx, fy = num(x), num(y)
        close = fx is not None and fy is not None and not fx.is_integer() and not fy.is_integer() \
            and abs(fx - fy) <= 1e-9 * max(abs(fx), abs(fy))
        if not close:
            print("differs: %r vs %r" % (x[:80], y[:80]))
            bad = True
sys.exit(1 if bad else 0)
PY
}

TABLES="temporal_breakdown.csv gpu_kernel_breakdown_0.csv gpu_kernel_breakdown_1.csv comm_comp_overlap.csv
        idle_time_breakdown_0.csv idle_time_breakdown_1.csv queue_length_summary.csv memory_bw_summary.csv
        gpu_user_annotation_breakdown.csv"
K=$TRACES/kineto/resnet50-dataloader
parity() { # NAME INPUT...: one reference folder
  local name=$1; shift
  rm -rf "$T/$name"
  code 0 "$name: gpu --compat hta" "$DFSCOPE" gpu -q --compat hta --format csv -o "$T/$name" "$@"
  local launch
  launch=$(cd "$REF/$name" && ls cuda_kernel_launch_stats_describe_*.csv)
  for f in $TABLES $launch; do
    if [ -f "$REF/$name/$f" ]; then
      check "$name/$f equals HTA's" same_csv "$T/$name/$f" "$REF/$name/$f"
    else
      check "$name/$f not written (HTA's analysis fails)" test ! -e "$T/$name/$f"
    fi
  done
}
parity trace_filter "$TRACES/hta/trace_filter"
parity amd_trace "$TRACES/hta/amd_trace"
parity critical_path_alexnet "$TRACES/hta/critical_path/alexnet"
parity critical_path_simple_add "$TRACES/hta/critical_path/simple_add"
parity nccl_parser_config "$TRACES/hta/nccl_parser_config"
parity ns_resolution_trace "$TRACES/hta/ns_resolution_trace"
parity rank_non_gpu "$TRACES/hta/rank_non_gpu"
parity triton_example "$TRACES/hta/triton_example"
parity kineto_tb_plugin_nw0 "$K/resnet50_num_workers_0__worker0.1623143089861.pt.trace.json.gz"
parity kineto_tb_plugin_nw4 "$K/resnet50_num_workers_4__worker0.1623212756351.pt.trace.json.gz"

# The rows HTA keeps after its last-iteration filter (its report.txt) are the rows counted here.
code 0 "trace_filter json" "$DFSCOPE" gpu -q --compat hta --format json "$TRACES/hta/trace_filter"
check "rows after HTA's filter" test "$(json_field "$T/out" "[r['rows'] for r in d['ranks']]")" = "[2403, 2339]"
rows() { # WANT INPUT: the rows of one rank after the filter, as report.txt has them
  code 0 "rows of $2" "$DFSCOPE" gpu -q --compat hta --only temporal --format json "$2"
  check "rows after HTA's filter: $2" test "$(json_field "$T/out" "d['ranks'][0]['rows']")" = "$1"
}
rows 36209 "$TRACES/hta/ns_resolution_trace"
rows 110 "$TRACES/hta/amd_trace"
rows 867 "$TRACES/hta/critical_path/alexnet"
rows 837 "$TRACES/hta/critical_path/simple_add"
rows 17952 "$TRACES/hta/nccl_parser_config"
rows 2467 "$TRACES/hta/rank_non_gpu"
rows 7 "$TRACES/hta/triton_example"
rows 37223 "$K/resnet50_num_workers_0__worker0.1623143089861.pt.trace.json.gz"
rows 34923 "$K/resnet50_num_workers_4__worker0.1623212756351.pt.trace.json.gz"

# Pieces do not change answers: a plain file cut into 64 KiB ranges read by two workers.
gzip -dc "$TRACES/hta/trace_filter/sampled_rank-0.json.gz" > "$T/rank0.json"
code 0 "whole" "$DFSCOPE" gpu -q -j 1 --compat hta --format json "$T/rank0.json"; cp "$T/out" "$T/whole.json"
code 0 "in pieces" "$DFSCOPE" gpu -q -j 2 --chunk 64k --compat hta --format json "$T/rank0.json"
check "pieces give the same answer" cmp -s "$T/whole.json" "$T/out"

echo "$pass checks passed, $fail failed"
[ "$fail" = 0 ]

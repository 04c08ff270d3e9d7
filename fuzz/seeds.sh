#!/usr/bin/env bash
# seeds.sh OUT [TRACES] - seed corpora for the fuzz targets, one folder per target under OUT,
# made from the shared trace corpus (default ../shared/traces beside the checkout): small files
# whole, slices of large ones (whole lines, and cuts inside a line), and hand-written inputs for the
# predicate, preset, command-line and timeline targets, among them the hostile inputs of issue 29:
# timestamps at and past the edges of int64 (1e400, NaN, Infinity, +-9223372036854775807,
# 18446744073709551615), events 292 years apart, ts + dur overflowing, --window texts, regular
# expressions that backtrack exponentially, and YAML nested a thousand levels deep. Re-running
# replaces the seeds (not what the fuzzers added to the corpus folders they run on).
set -eu   # no pipefail: `zcat | head` ends zcat with SIGPIPE on purpose
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: seeds.sh OUT [TRACES]}
traces=${2:-$here/../../shared/traces}
mkdir -p "$out"
out=$(cd "$out" && pwd)
for t in lines chrome gzip dasf predicate preset cli timeline; do
  rm -rf "$out/$t.seeds"
  mkdir -p "$out/$t.seeds"
done
seed() { # target name: stdin becomes a seed (it may run in a pipeline's subshell: no counters)
  local n
  n=$(find "$out/$1.seeds" -type f | wc -l)
  cat > "$out/$1.seeds/$(printf '%03d' $((n + 1)))-$2"
}

if [ -d "$traces/dftracer" ]; then
  T=$traces
  # --- DFTracer lines: heads, middles and tails of each generation, one cut inside a line ---------
  f=$T/dftracer/dlio-unet3d-hdf5-8rank/trace-0-of-8.pfw
  head -n 40 "$f" | seed lines dlio-head
  sed -n '500,540p' "$f" | seed lines dlio-middle
  tail -n 30 "$f" | seed lines dlio-tail
  head -c 3000 "$f" | seed lines dlio-cut
  head -n 40 "$T/dftracer/legacy-2023/dfanalyzer_test.pfw" | seed lines legacy-2023
  seed lines legacy-graph < "$T/dftracer/legacy-2023/examples_graph_visualization_test_data1.pfw"
  seed lines v1-crashed < "$T/dftracer/edge-cases/synthetic-v1-crashed.pfw"
  zcat "$T/dftracer/edge-cases/synthetic-v2-multimember.pfw.gz" | seed lines v2
  zcat "$T/dftracer/edge-cases/synthetic-v2-truncated-tail.pfw.gz" 2>/dev/null | seed lines v2-torn || true
  zcat "$T/dftracer/cm1-48rank/cm1-DEFAULT-3537780-preload.pfw.gz" | head -n 50 | seed lines cm1-head
  zcat "$T/dftracer/cm1-48rank/cm1-DEFAULT-3537780-preload.pfw.gz" | sed -n '4000,4040p' | seed lines cm1-middle
  s=$T/smdebug/tests/profiler/resources
  seed lines smdebug-system < "$s/1591160699.algo-1.json"
  seed lines smdebug-corrupt < "$s/1591160699.algo-1.json.corrupt"
  # --- Chrome JSON: arrays and object forms of every dialect, small ones whole ------------------
  for f in "$T"/chrome-json/*.json; do seed chrome "$(basename "$f")" < "$f"; done
  seed chrome composer < "$T/composer/ep0-ba5-rank0.synthetic.json"
  seed chrome smdebug-model < "$s/1589314018481947000_1234-testhost_model_timeline.json"
  seed chrome horovod < "$s/horovod_timeline_small.json"
  seed chrome python-timeline < "$s/merge_traces/framework/pevents/2020071317/1594662614815222_905-b88ab1bb8259_model_timeline.json"
  seed chrome pythontimeline < "$s/test_traces/framework/pevents/2020051923/1589930988000000_4487_0000_pythontimeline.json"
  zcat "$T/hta/triton_example/triton_example.json.gz" | head -c 12000 | seed chrome kineto-triton
  zcat "$T/hta/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz" | head -c 12000 | seed chrome kineto-cpu
  zcat "$T/kineto/resnet50-dataloader/resnet50_num_workers_0__worker0.1623143089861.pt.trace.json.gz" |
    head -c 8000 | seed chrome kineto-head
  zcat "$s/tfprofiler_local_missing_metadata/framework/tensorflow/detailed_profiling/2020080513/000000000/plugins/profile/2020_08_05_13_37_44/ip-172-31-19-241.trace.json.gz" |
    head -c 12000 | seed chrome tf-profiler
  # --- gzip: real small files, and members made here (one, several, named, cut) ------------------
  seed gzip v2-multimember < "$T/dftracer/edge-cases/synthetic-v2-multimember.pfw.gz"
  seed gzip v2-truncated < "$T/dftracer/edge-cases/synthetic-v2-truncated-tail.pfw.gz"
  seed gzip triton < "$T/hta/triton_example/triton_example.json.gz"
  seed gzip cpu-only < "$T/hta/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"
  head -n 20 "$T/dftracer/dlio-unet3d-hdf5-8rank/trace-0-of-8.pfw" | gzip -9 -n | seed gzip one-member
  { head -n 10 "$T/dftracer/dlio-unet3d-hdf5-8rank/trace-1-of-8.pfw" | gzip -1 -n
    sed -n '11,20p' "$T/dftracer/dlio-unet3d-hdf5-8rank/trace-1-of-8.pfw" | gzip -n
    printf '' | gzip -n; } | seed gzip three-members
  tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
  head -n 5 "$T/dftracer/legacy-2023/dfanalyzer_test.pfw" > "$tmp/named.pfw"
  gzip -c "$tmp/named.pfw" | seed gzip fname
  head -n 30 "$T/dftracer/legacy-2023/dfanalyzer_test.pfw" | gzip -n | head -c 700 | seed gzip cut
  { head -n 3 "$T/dftracer/legacy-2023/dfanalyzer_test.pfw" | gzip -n; printf 'garbage\n'; } |
    seed gzip trailing-garbage
  # --- DASF msgpack: every file, and the first records alone --------------------------------------
  for f in "$T"/dasf/*.msgpack; do
    seed dasf "$(basename "$f")" < "$f"
    head -c 400 "$f" | seed dasf "cut-$(basename "$f")"
  done
fi

# --- hand-written inputs -------------------------------------------------------------------------
printf 'trace: {"name": "Compute", "timestamp": 20.0, "duration": 5.0, "phase": "X", "process_id": "c096", "thread_id": "w-1", "args": {"key": "k"}}\nsome log line\ntrace:{"name": "Managed Memory", "timestamp": 30, "phase": "I", "process_id": 0}\n' |
  seed lines dasf-text
printf '{"id":"1","name":"read","cat":"POSIX","pid":"7","tid":"x","ts":"10","dur":"NaN","ph":"X","args":{"fname":"a\\u00e9\\ud83d\\ude00","n":123456789012345678901234567890}}\n{"id":2,"name":"open","ph":"X","ts":1e3,"dur":-1}{"id":3,"name":"glued"}\n' |
  seed lines odd-values
printf '[{"name":"a","ph":"B","ts":1,"pid":1,"tid":1},\n{"name":"a","ph":"E","ts":2,"pid":1,"tid":1},{}]' | seed chrome array-one-line
printf '{"traceEvents":[{"name":"x","ph":"X","ts":1,"dur":2,"pid":"p","tid":"t"}],"schemaVersion":1,"baseTimeNanoseconds":1700000000000000000,"deviceProperties":[{"id":0}]}' |
  seed chrome kineto-mini

for p in 'io_cat == 1' 'io_cat == 3 and func_name.str.contains("open") and ~func_name.str.contains("dir")' \
         'func_name.isin(["DLIOBenchmark.initialize", "DLIOBenchmark.run"])' \
         'cat == "data_loader" & ~func_name.isin(["loop.iter", "loop.yield"])' \
         'cat.str.contains("posix|stdio")' 'file_name.str.startswith("/data") | (pid >= -3 and tid != 4)' \
         'not (host == "node1" or proc_name < "b") and acc_pat.isin([1, 2,])' "cat == 'a\\'b\\\\'" 'None' ''; do
  printf '%s' "$p" | seed predicate expr
done
printf 'io_cat == 1\ncat == "POSIX"\nfunc_name.str.contains("^re(ad|cv)$")\n~(io_cat == 2)\n' | seed predicate set

for f in "$here"/../presets/*.yaml; do seed preset "$(basename "$f")" < "$f"; done
printf 'name: mine\nbase: dlio\nlayers:\n  - {name: app, display: App, predicate: "cat == \\"x\\"", parent: null}\n' | seed preset base
printf 'compute_{time_metric} / (app_{time_metric} + {epsilon})' | seed preset formula
printf '(a_time + -b) * 2.5e3 / {time_interval} - (c)' | seed preset formula

for args in 'stats' 'stats\n--json' 'stats\n--json\n--top\n0\n-j\n2' 'stats\n-o\nout.json\n--json' \
            'stats\n--strict\n--dedup\n--examples\n0' 'stats\n--max-record\n4k\n--chunk\n1k\n@\nb.json' \
            'stats\n-vq\n--timing\n*' 'analyze\n--format\njson' 'analyze\n--format\ncsv\n-o\ncsvdir' \
            'analyze\n--preset\nposix\n--views\ntime_range,proc_name\n--granularity\n5s' \
            'analyze\n--compat\ndfanalyzer-sum\n--keep-ignored' 'analyze\n--list-presets' \
            'analyze\n--show-preset\ndlio' 'analyze\n--preview\n1k\n--timing' 'help\nstats' '--version' \
            'tasks\n--help' 'overlap\n--help' 'gen\n--help' 'frobnicate'; do
  printf -- "$args" | seed cli args
done
# --- hostile numbers (issue 29, items 1 and 2): as DFTracer lines, Chrome arrays and timelines ------
# "ts" values, one trace each, beside an ordinary event; then pairs 292 years apart, and ts + dur
# past INT64_MAX (in us, the unit of both formats).
hostile_ts='1e400 NaN Infinity -Infinity 9223372036854775807 -9223372036854775807 -9223372036854775808
  18446744073709551615 9223372036854775 "9223372036854775807" 1.7976931348623157e308 -0 4.9e-324'
n=0
for ts in $hostile_ts; do
  n=$((n + 1))
  printf '{"id":1,"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":10,"dur":5,"ph":"X"}\n{"id":2,"name":"write","cat":"POSIX","pid":1,"tid":1,"ts":%s,"dur":%s,"ph":"X"}\n' "$ts" "$ts" |
    seed lines "ts-$n"
  printf '{"traceEvents":[{"name":"a","cat":"cpu_op","ph":"X","ts":10,"dur":1,"pid":1,"tid":1},{"name":"b","cat":"kernel","ph":"X","ts":%s,"dur":1,"pid":1,"tid":2},{"name":"c","ph":"C","ts":%s,"pid":1,"args":{"v":%s}}]}' "$ts" "$ts" "$ts" |
    seed chrome "ts-$n"
done
apart='{"traceEvents":[{"name":"a","cat":"cpu_op","ph":"X","ts":10,"dur":1,"pid":1,"tid":1},{"name":"b","cat":"cpu_op","ph":"X","ts":9223372036854775,"dur":1,"pid":1,"tid":1}]}'
overflow='{"id":1,"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":9223372036854775000,"dur":9223372036854775000,"ph":"X"}
{"id":2,"name":"open","cat":"POSIX","pid":1,"tid":1,"ts":9223372036854,"dur":9223372036854775807,"ph":"X"}
{"id":3,"name":"close","cat":"POSIX","pid":1,"tid":1,"ts":-9223372036854775807,"dur":-9223372036854775807,"ph":"X"}'
begin_end='[{"name":"s","ph":"B","ts":-9223372036854775807,"pid":1,"tid":1},{"name":"s","ph":"E","ts":9223372036854775807,"pid":1,"tid":1},{"name":"x","ph":"X","ts":1,"dur":18446744073709551615,"pid":1,"tid":1}]'
printf '%s' "$apart" | seed chrome apart-292-years
printf '%s' "$begin_end" | seed chrome begin-end-apart
printf '%s\n' "$overflow" | seed lines ts-plus-dur-overflow

# --- timeline: a --window line (and width, depth, lanes), then a trace or, after a NUL, binary spans
for w in ':' '+1.5:+2' '+500ms:+700ms' '0:9223372036' '1623142623.636:1623142623.812' ':+1ns' '+0:+0.000000001' \
         '9223372036.854775807:' '0:9223372036.854775807' '+9223372036854775807ns:' '1h:2h' '-5:' '::' '+1e3:'; do
  { printf '%s\n' "$w"; printf '%s' "$apart"; } | seed timeline window
done
{ printf ': 200 1 1\n'; printf '%s' "$begin_end"; } | seed timeline begin-end
{ printf ': 2000 64 0\n'; printf '%s\n' "$overflow"; } | seed timeline overflow
for ts in $hostile_ts; do
  printf ':\n{"traceEvents":[{"name":"a","ph":"X","ts":10,"dur":1,"pid":1,"tid":1},{"name":"b","ph":"X","ts":%s,"dur":1,"pid":1,"tid":1}]}' "$ts" |
    seed timeline ts
done
if [ -d "$traces/dftracer" ]; then
  { printf ':\n'; head -n 40 "$traces/dftracer/dlio-unet3d-hdf5-8rank/trace-0-of-8.pfw"; } | seed timeline dlio
  { printf '+1ms:+3ms 600\n'; cat "$traces/chrome-json/$(ls "$traces/chrome-json" | head -1)"; } | seed timeline chrome
fi
if command -v python3 >/dev/null; then # binary spans: int64 start and dur, lane, kind, name (fuzz_timeline.c)
  python3 - "$out/timeline.seeds" <<'PY'
import struct, sys
M, m = 2**63 - 1, -2**63
sets = {
  "spans": [(0, 10, 0, 0), (5, 100, 1, 1), (50, 1, 2, 2), (60, 0, 3, 3), (70, 30, 4, 4), (80, 7, 5, 5)],
  "edges": [(m, M, 0, 0), (M, M, 1, 1), (m, 1, 2, 2), (M - 1, 1, 3, 5), (0, -1, 4, 0), (-5, 10, 5, 1)],
  "apart": [(10, 1, 0, 0), (9223372036854775000, 1, 1, 0), (0, 2**62, 2, 3)],
}
for k, (name, recs) in enumerate(sets.items()):
    for window in (":", "0:9223372036", "+1ns:+3ns"):
        body = b"".join(struct.pack("<qqBBH", s, d, l, c, 7) for s, d, l, c in recs)
        open("%s/9%02d-bin-%s-%d" % (sys.argv[1], k, name, len(window)), "wb").write(window.encode() + b"\n\0" + body)
PY
fi

# --- regular expressions that backtrack exponentially (issue 29, item 5) ---------------------------
for p in 'func_name.str.contains("(a+)+$|X")' 'cat.str.contains("(x+x+)+y")' \
         'func_name.str.contains("^(a|aa)+$") | file_name.str.contains("(.*a){12}")'; do
  printf '%s' "$p" | seed predicate redos
done

# --- deep YAML (issue 29, item 6): flow, mixed and block nesting far past 64 levels, and at 64 -----
deep() { local i; for ((i = 0; i < $2; i++)); do printf '%s' "$1"; done; }
{ printf 'name: deep\ndefinitions: '; deep '[' 30000; printf '\n'; } | seed preset deep-flow
{ printf 'name: deep\nbase: posix\ndefinitions: '; deep '{a: [' 3000; printf '\n'; } | seed preset deep-mixed
{ printf 'name: deep\ndefinitions:\n'; deep '- ' 10000; printf 'x\n'; } | seed preset deep-block
{ printf 'name: deep\nbase: posix\ndefinitions: '; deep '[' 63; printf 1; deep ']' 63; printf '\n'; } | seed preset deep-64

echo "seeds in $out/*.seeds: $(find "$out" -path '*.seeds/*' -type f | wc -l) files"

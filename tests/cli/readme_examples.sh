#!/usr/bin/env bash
# readme_examples.sh DFSCOPE TRACES - the README's example commands, run on the corpus (its folders
# standing for the README's placeholders), in the default mode: each exits 0 or 1 (damage in
# the corpus is reported, not fatal), prints no nan or inf and no scientific notation in a table;
# an analyze example's table leads its layers with their wall time, and no layer's wall time is over
# the job's span (checked on the same command's JSON).
# Each example checked here must still be in the README (the list follows it).
set -u
DFSCOPE=$1
TRACES=${2:-}
source "$(dirname "$0")/testlib.bash"
README=$(dirname "$0")/../../README.md
if [ -z "$TRACES" ] || [ ! -f "$TRACES/MANIFEST.md" ]; then
  echo "readme_examples.sh: skipped (no corpus at $TRACES)"
  exit 77
fi
D=$TRACES/dftracer/dlio-unet3d-hdf5-8rank
K=$TRACES/kineto/resnet50-dataloader
# one job per example, as the README means (a folder of several jobs is refused without --mix)
R=$TRACES/smdebug/tests/profiler/resources/merge_traces
# "README line | the command run here"
examples=(
  "dfscope stats traces/|stats $D"
  "dfscope analyze traces/|analyze $D"
  "dfscope analyze --views time_range,proc_name --granularity 5s --format json -o out.json traces/|analyze --views time_range,proc_name --granularity 5s $D"
  "dfscope overlap traces/|overlap $D"
  "dfscope tasks dasf_db/ -o out/|tasks $TRACES/dasf/Tutorial_5_Profile-*"
  "dfscope steps resnet50*.pt.trace.json.gz|steps $K/resnet50_num_workers_4_*"
  "dfscope dataloader smdebug_run/|dataloader $R"
  "dfscope rules smdebug_run/|rules $R"
  "dfscope timeline trace.json --window +1.2:+1.4 -o step.svg|timeline $K/resnet50_num_workers_0__worker0.1623143089861.pt.trace.json.gz --window +0.5:+0.7 -o $T/step.svg"
  "dfscope timeline trace.json --slowest-step -o slow.svg|timeline $K/resnet50_num_workers_0__worker0.1623143089861.pt.trace.json.gz --slowest-step -o $T/slow.svg"
)
for e in "${examples[@]}"; do
  line=${e%%|*}
  run=${e#*|}
  check "README still shows: $line" grep -qF -- "$line" "$README"
  # shellcheck disable=SC2086
  "$DFSCOPE" $run > "$T/out" 2> "$T/err"
  rc=$?
  check "$run: exit 0 or 1 (got $rc)" [ "$rc" -le 1 ]
  check "$run: no nan or inf" bash -c "! grep -qiwE 'nan|-nan|inf|-inf' '$T/out' '$T/err'"
  check "$run: no scientific notation" bash -c "! grep -qE '[0-9]e[+-][0-9]' '$T/out'"
  case $run in
  analyze*)
    check "$run: the layer table has a Wall column" grep -q "Wall" "$T/out"
    # shellcheck disable=SC2086
    "$DFSCOPE" $run --format json -o "$T/a.json" 2>/dev/null
    check "$run: no layer's wall time over the job's span" json_field "$T/a.json" \
      "all(L['wall_time_s'] is not None and L['wall_time_s'] <= d['raw_stats']['job_time_s'] + 1e-9
           for v in d['views'].values() if v['columns'][0] != 'file_name'
           for L in v['summary']['layers'].values()) or exit(1)"  >/dev/null
    ;;
  esac
done

echo "readme_examples.sh: $pass passed, $fail failed"
[ "$fail" = 0 ]

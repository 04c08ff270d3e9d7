#!/usr/bin/env bash
# steps.sh DFSCOPE TRACES - end-to-end tests of `dfscope steps`. The exact reference numbers are
# checked by tests/unit/test_steps_corpus.c; this checks the command line, the formats and exits.
set -u
DFSCOPE=$1
TRACES=$2
. "$(dirname "$0")/testlib.bash"

# --- conventions ---------------------------------------------------------------------------------
code 0 "steps --help" "$DFSCOPE" steps --help
check "help names the concept options" grep -q -- '--data-wait PRED' "$T/out"
code 0 "help steps" "$DFSCOPE" help steps
code 0 "help lists steps" "$DFSCOPE" help
check "steps in the command list" grep -q '^  steps' "$T/out"
code 2 "no input" "$DFSCOPE" steps
code 2 "bad format" "$DFSCOPE" steps --format xml x
code 2 "bad threshold" "$DFSCOPE" steps --threshold 150 x
code 2 "bad storage threshold" "$DFSCOPE" steps --storage-threshold -1 x
code 2 "bad outlier factor" "$DFSCOPE" steps --outlier-factor 0.5 x
code 2 "bad head" "$DFSCOPE" steps --head 1.5 x
touch "$T/x.json" # a path that exists: a missing one is said first (errors_help.sh)
code 2 "bad predicate" "$DFSCOPE" steps --step 'name ==' "$T/x.json"
check "bad predicate names the concept" grep -q 'the step predicate' "$T/err"
code 2 "unknown column" "$DFSCOPE" steps --io 'nosuch == 1' "$T/x.json"
check "unknown column named" grep -q 'io predicate' "$T/err"
code 2 "missing path" "$DFSCOPE" steps "$T/nope.json"
check "missing path named" grep -q 'nope.json' "$T/err"
code 0 "concepts" "$DFSCOPE" steps --concepts
check "concepts list Kineto's step" grep -q 'ProfilerStep#' "$T/out"
check "concepts list what is unavailable" grep -q '(unavailable)' "$T/out"
code 0 "concepts with an override" "$DFSCOPE" steps --concepts --io off
check "io off everywhere" sh -c "! grep -q 'POSIX' '$T/out'"

# --- a small generic trace with user predicates --------------------------------------------------
cat > "$T/g.json" <<'X'
[
{"ph":"X","cat":"app","name":"iteration","pid":1,"tid":1,"ts":1000,"dur":100},
{"ph":"X","cat":"app","name":"wait","pid":1,"tid":1,"ts":1000,"dur":60},
{"ph":"X","cat":"app","name":"iteration","pid":1,"tid":1,"ts":2000,"dur":100},
{"ph":"X","cat":"app","name":"wait","pid":1,"tid":1,"ts":2000,"dur":60},
{"ph":"X","cat":"app","name":"iteration","pid":1,"tid":1,"ts":3000,"dur":100},
{"ph":"X","cat":"app","name":"wait","pid":1,"tid":1,"ts":3000,"dur":60}
]
X
code 0 "generic without predicates" "$DFSCOPE" steps --format json -q -o "$T/g0.out" "$T/g.json"
check "no steps without predicates" [ "$(json_field "$T/g0.out" "d['runs'][0]['steps']")" = 0 ]
check "data wait unavailable is null" [ "$(json_field "$T/g0.out" "d['runs'][0]['data_wait_fraction']")" = None ]
code 0 "generic with predicates" "$DFSCOPE" steps --format json -q --step 'name == "iteration"' \
  --data-wait 'name == "wait"' -o "$T/g1.out" "$T/g.json"
check "schema" [ "$(json_field "$T/g1.out" "d['schema']")" = dfscope-steps/1 ]
check "three steps" [ "$(json_field "$T/g1.out" "d['runs'][0]['steps']")" = 3 ]
check "one counted step" [ "$(json_field "$T/g1.out" "d['runs'][0]['counted_steps']")" = 1 ]
check "wait fraction 0.6" [ "$(json_field "$T/g1.out" "d['runs'][0]['data_wait_fraction']")" = 0.6 ]
check "input bound" [ "$(json_field "$T/g1.out" "d['runs'][0]['input_bound']")" = True ]
check "compute unavailable is null" [ "$(json_field "$T/g1.out" "d['runs'][0]['per_step'][0]['compute_host_ns']")" = None ]
code 0 "a higher threshold" "$DFSCOPE" steps --format json -q --step 'name == "iteration"' \
  --data-wait 'name == "wait"' --threshold 70 -o "$T/g2.out" "$T/g.json"
check "not input bound above 60 %" [ "$(json_field "$T/g2.out" "d['runs'][0]['input_bound']")" = False ]
code 0 "csv" "$DFSCOPE" steps --format csv -q --step 'name == "iteration"' "$T/g.json"
check "csv: header and three rows" [ "$(wc -l < "$T/out")" = 4 ]
check "csv header" sh -c "head -1 '$T/out' | grep -q '^run,rank,source,step,mode,epoch,warmup,last,start_ns,end_ns,step_time_ns,'"
code 2 "refuses to write over an input" "$DFSCOPE" steps -q -o "$T/g.json" "$T/g.json"
check "input untouched" grep -q iteration "$T/g.json"
code 4 "unwritable output" "$DFSCOPE" steps -q -o "$T/no/such/dir/out.json" "$T/g.json"
echo "not a trace at all" > "$T/junk.txt"
code 0 "not a trace" "$DFSCOPE" steps --format json -q -o "$T/j.out" "$T/junk.txt"
check "no runs for a non-trace" [ "$(json_field "$T/j.out" "len(d['runs'])")" = 0 ]

# --- the corpus ----------------------------------------------------------------------------------
if [ ! -f "$TRACES/MANIFEST.md" ]; then
  echo "corpus absent: $pass checks passed, corpus checks skipped"
  [ "$fail" = 0 ] || exit 1
  exit 77
fi
K=$TRACES/kineto/resnet50-dataloader
NW0=$K/resnet50_num_workers_0__worker0.1623143089861.pt.trace.json.gz
NW4=$K/resnet50_num_workers_4__worker0.1623213129365.pt.trace.json.gz
# two runs of different jobs side by side: --mix
code 0 "kineto table" "$DFSCOPE" steps -q --mix --details "$NW0" "$NW4"
check "table: nw0 input-bound" sh -c "grep -E '^  input_bound +yes' '$T/out' | wc -l | grep -qx 1"
check "table: the plugin's breakdown" grep -q 'TensorBoard plugin step breakdown' "$T/out"
check "table: the plugin's nw0 average" grep -q '177592 98589 (55.51%)' "$T/out"
check "table: the plugin's recommendation" grep -q '33.4% of the step time is in DataLoader' "$T/out"
check "table: pin_memory remedy" grep -q 'pin_memory=True' "$T/out"
code 0 "kineto json" "$DFSCOPE" steps --format json -q --mix -o "$T/k.json" "$NW0" "$NW4"
check "two runs" [ "$(json_field "$T/k.json" "len(d['runs'])")" = 2 ]
check "nw0 input-bound" [ "$(json_field "$T/k.json" "d['runs'][0]['input_bound']")" = True ]
check "nw4 not input-bound" [ "$(json_field "$T/k.json" "d['runs'][1]['input_bound']")" = False ]
check "nw0 six steps" [ "$(json_field "$T/k.json" "d['runs'][0]['steps']")" = 6 ]
check "nw0 wait fraction 40.14 %" [ "$(json_field "$T/k.json" "round(100 * d['runs'][0]['data_wait_fraction'], 2)")" = 40.14 ]
check "nw0 step_time_s" [ "$(json_field "$T/k.json" "round(d['runs'][0]['step_time_s'], 6)")" = 0.177159 ]
check "kineto io is null" [ "$(json_field "$T/k.json" "d['runs'][0]['all']['io_ns']")" = None ]
check "nw0 per-step table" [ "$(json_field "$T/k.json" "d['runs'][0]['per_step'][0]['data_wait_ns']")" = 68694000 ]
check "plugin DataLoader average" [ "$(json_field "$T/k.json" "d['runs'][0]['tensorboard']['average_us']['DataLoader']")" = 59262 ]
code 0 "data wait off" "$DFSCOPE" steps --format json -q --data-wait off -o "$T/off.json" \
  "$TRACES/composer/ep0-ba5-rank1.synthetic.json"
check "verdict unavailable without D" [ "$(json_field "$T/off.json" "d['runs'][0]['verdicts']['input_bound']['state']")" = unavailable ]

code 0 "composer" "$DFSCOPE" steps --format json -q -o "$T/c.json" "$TRACES/composer/ep0-ba5-rank0.synthetic.json"
check "composer input-bound" [ "$(json_field "$T/c.json" "d['runs'][0]['input_bound']")" = True ]
check "composer rule not evaluated" [ "$(json_field "$T/c.json" "d['runs'][0]['verdicts']['composer_input_bound']['state']")" = not_evaluated ]
check "composer rank" [ "$(json_field "$T/c.json" "d['runs'][0]['rank']")" = 0 ]

code 0 "dlio" "$DFSCOPE" steps --format json -q -o "$T/d.json" "$TRACES/dftracer/dlio-unet3d-hdf5-8rank"
check "eight ranks" [ "$(json_field "$T/d.json" "len(d['runs'])")" = 8 ]
check "every rank storage-bound" [ "$(json_field "$T/d.json" "all(r['verdicts']['storage_bound']['state'] == 'yes' for r in d['runs'])")" = True ]
check "all-rank epoch windows" [ "$(json_field "$T/d.json" "d['totals']['epoch_window_ns']")" = 439442298000 ]
"$DFSCOPE" steps --format json -q -j 1 "$TRACES/dftracer/dlio-unet3d-hdf5-8rank" > "$T/j1"
"$DFSCOPE" steps --format json -q -j 2 --chunk 64k "$TRACES/dftracer/dlio-unet3d-hdf5-8rank" > "$T/j2"
check "-j 1 and -j 2 (in pieces) identical" cmp -s "$T/j1" "$T/j2"
code 0 "dlio table" "$DFSCOPE" steps -q --head 3 "$TRACES/dftracer/dlio-unet3d-hdf5-8rank/trace-0-of-8.pfw"
check "epoch table" grep -q 'epochs (ms)' "$T/out"
check "head limits the rows" grep -q '22 more steps' "$T/out"

echo "$pass checks passed, $fail failed"
[ "$fail" = 0 ]

#!/usr/bin/env bash
# rules.sh DFSCOPE TRACES - end-to-end tests of `dfscope rules` (SageMaker Debugger profiler
# rules). The exact numbers are checked by tests/unit/test_rules.c and test_rules_corpus.c.
set -u
DFSCOPE=$1
TRACES=$2
. "$(dirname "$0")/testlib.bash"

# --- help and usage errors -----------------------------------------------------------------------
code 0 "rules --help" "$DFSCOPE" rules --help
check "help names --param" grep -q -- '--param R.N=V' "$T/out"
code 0 "help rules" "$DFSCOPE" help rules
check "main help lists rules" sh -c "'$DFSCOPE' help | grep -q '^  rules'"
code 0 "--list" "$DFSCOPE" rules --list
check "--list names every rule" [ "$(grep -c '^[A-Z]' "$T/out")" = 10 ]
check "--list shows defaults" grep -q 'threshold_p95 *70' "$T/out"
code 2 "no input" "$DFSCOPE" rules
code 2 "unknown rule" "$DFSCOPE" rules --rules Bogus x
check "unknown rule named" grep -q "unknown rule 'Bogus'" "$T/err"
code 2 "unknown parameter" "$DFSCOPE" rules --param StepOutlier.nope=1 x
check "unknown parameter named" grep -q "no parameter 'nope'" "$T/err"
code 2 "bad parameter value" "$DFSCOPE" rules --param LowGPUUtilization.window=0 x
check "bad value explained" grep -q 'an integer >= 1' "$T/err"
code 2 "malformed --param" "$DFSCOPE" rules --param threshold=3 x
code 2 "unknown compat" "$DFSCOPE" rules --compat pandas x
code 2 "unknown format" "$DFSCOPE" rules --format xml x
code 2 "missing input" "$DFSCOPE" rules "$T/does-not-exist.json"
check "missing input named" grep -q 'does-not-exist' "$T/err"

# --- a hand-built system-metric file: no corpus needed -------------------------------------------
for i in 0 1 2; do
  printf '{"Type":"gpu","Name":"gpu0","Dimension":"GPUUtilization","Value":5,"NodeId":"algo-1","Timestamp":160000000%d.0}\n' $i
  printf '{"Type":"io","Name":"","Dimension":"I/OWaitPercentage","Value":90,"NodeId":"algo-1","Timestamp":160000000%d.0}\n' $i
done > "$T/1600000000.algo-1.json"
code 0 "rules on a system file" "$DFSCOPE" rules -q "$T/1600000000.algo-1.json"
check "first line names the mode" sh -c "head -1 '$T/out' | grep -q '^mode: clean'"
check "missing inputs are explained" grep -q 'no CPUUtilization samples' "$T/out"
code 0 "patience lowered" "$DFSCOPE" rules -q --rules IOBottleneck --param IOBottleneck.patience=2 --format csv "$T/1600000000.algo-1.json"
check "csv header" sh -c "head -1 '$T/out' | grep -qx 'rule,evaluated,reason,RuleTriggered,Violations,Datapoints,RuleParameters,windows,summary'"
check "3 of 3 snapshots are bottlenecks: triggered" grep -q '^IOBottleneck,true,,1,3,3,' "$T/out"
code 0 "json to a file" "$DFSCOPE" rules -q --format json -o "$T/r.json" "$T/1600000000.algo-1.json"
check "json written atomically" sh -c "[ -s '$T/r.json' ] && [ ! -s '$T/out' ]"
check "json schema" [ "$(json_field "$T/r.json" "d['schema']")" = dfscope-rules/1 ]
check "json has every rule" [ "$(json_field "$T/r.json" "len(d['rules'])")" = 10 ]
check "json evaluated flag" [ "$(json_field "$T/r.json" "[r['evaluated'] for r in d['rules'] if r['rule']=='LowGPUUtilization'][0]")" = False ]
check "json reason" [ "$(json_field "$T/r.json" "[r['reason'] for r in d['rules'] if r['rule']=='BatchSize'][0]")" = "no CPUUtilization samples" ]
check "json RuleParameters" [ "$(json_field "$T/r.json" "repr([r['RuleParameters'] for r in d['rules'] if r['rule']=='LoadBalancing'][0])")" = "'threshold:0.2\\npatience:1000'" ]
code 2 "output over an input refused" "$DFSCOPE" rules -q -o "$T/1600000000.algo-1.json" "$T/1600000000.algo-1.json"
check "the input is intact" [ "$(wc -l < "$T/1600000000.algo-1.json")" = 6 ]
code 4 "unwritable output" "$DFSCOPE" rules -q -o "$T/no/such/dir/r.json" "$T/1600000000.algo-1.json"
code 0 "compatible mode" "$DFSCOPE" rules -q --compat smdebug --rules LoadBalancing "$T/1600000000.algo-1.json"
check "compat named" sh -c "head -1 '$T/out' | grep -q '^mode: compatible'"

# --- the corpus ----------------------------------------------------------------------------------
RES="$TRACES/smdebug/tests/profiler/resources"
if [ ! -d "$RES" ]; then
  echo "SKIP: corpus not found at $TRACES"
  [ "$fail" = 0 ] || exit 1
  exit 77
fi
code 1 "corrupt last line: damage reported, exit 1" "$DFSCOPE" rules "$RES/1591160699.algo-1.json.corrupt"
check "bad_line reported" grep -q 'bad_line' "$T/err"
check "13 samples read" grep -q '^data: 13 system samples' "$T/out"
code 3 "--strict fails on the corrupt file" "$DFSCOPE" rules -q --strict "$RES/1591160699.algo-1.json.corrupt"
code 0 "merge_traces with a lowered step minimum" "$DFSCOPE" rules -q --format json --rules StepOutlier \
  --param StepOutlier.min_steps=29 -o "$T/so.json" "$RES/merge_traces"
check "StepOutlier threshold 5,194,595.6 us" [ "$(json_field "$T/so.json" "round(d['rules'][0]['Details']['step_details'][0]['threshold'] * 1e6, 1)")" = 5194595.6 ]
check "40 datapoints" [ "$(json_field "$T/so.json" "d['rules'][0]['Datapoints']")" = 40 ]
"$DFSCOPE" rules -q -j 1 --format json "$RES" > "$T/j1" 2>/dev/null
"$DFSCOPE" rules -q -j 2 --format json "$RES" > "$T/j2" 2>/dev/null
check "-j 1 and -j 2 identical" cmp -s "$T/j1" "$T/j2"

echo "rules.sh: $pass passed, $fail failed"
[ "$fail" = 0 ]

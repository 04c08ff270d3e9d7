#!/usr/bin/env bash
# timeline_steps.sh DFSCOPE TRACES - `timeline --step N` and `--slowest-step` draw a training step
# without typing its times: the window is the step `dfscope steps` lists (the slowest: the longest
# steady step of any run; step N: that step on every run that has it); a missing step, no steps,
# or two ways of choosing the window are usage errors that say what to give; a window outside the
# trace suggests relative bounds.
set -u
DFSCOPE=$1
TRACES=${2:-}
source "$(dirname "$0")/testlib.bash"

"$DFSCOPE" gen -o "$T/g" --format v1 --ranks 2 --size 1M --seed 3 >/dev/null 2>&1
"$DFSCOPE" steps -q --format json "$T/g" > "$T/steps.json"
# steps' own answer, computed here: [start, end] of the slowest steady step, and of step 3 on every run
read -r slow_start slow_end slow_num <<< "$(python3 - "$T/steps.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
steps = [s for r in d['runs'] for s in r['per_step']]
steady = [s for s in steps if not s['warmup'] and not s['last']] or steps
best = None
for s in steady:  # the first of equals, in run order
    if best is None or s['end_ns'] - s['start_ns'] > best['end_ns'] - best['start_ns']:
        best = s
print(best['start_ns'], best['end_ns'], best['step'])
EOF
)"
read -r s3_start s3_end <<< "$(python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
firsts = [next(s for s in r['per_step'] if s['step'] == 3) for r in d['runs']]
print(min(s['start_ns'] for s in firsts), max(s['end_ns'] for s in firsts))" "$T/steps.json")"

window() { python3 -c "import json,sys; w=json.load(open(sys.argv[1]))['window']; print(w['start_ns'], w['end_ns'])" "$T/out"; }

code 0 "--slowest-step" "$DFSCOPE" timeline --format json --slowest-step -o "$T/slow.svg" "$T/g"
check "--slowest-step: the window is steps' slowest steady step" [ "$(window)" = "$slow_start $slow_end" ]
check "--slowest-step: said on stderr" grep -q "window: step $slow_num of rank [01], the slowest of 44 (" "$T/err"
check "--slowest-step: the picture names the step" grep -q "step $slow_num of rank [01], the slowest" "$T/slow.svg"

code 0 "--step 3" "$DFSCOPE" timeline --format json --step 3 -o "$T/s3.svg" "$T/g"
check "--step 3: the window spans step 3 of both runs" [ "$(window)" = "$s3_start $s3_end" ]
check "--step 3: said on stderr" grep -q "window: step 3 on 2 runs (" "$T/err"
check "--step 3: drawn" grep -q "<svg" "$T/s3.svg"

code 2 "--step past the last" "$DFSCOPE" timeline --step 9999 -o "$T/x.svg" "$T/g"
check "--step past the last: the numbers there are" grep -q "no step has that number; the 44 steps are numbered 1 to 22" "$T/err"
check "--step past the last: nothing written" [ ! -e "$T/x.svg" ]
code 2 "--step and --window" "$DFSCOPE" timeline --step 3 -w +0:+1 -o "$T/x.svg" "$T/g"
check "--step and --window: give one" grep -q "each choose the window: give one" "$T/err"
code 2 "--slowest-step and --step" "$DFSCOPE" timeline --slowest-step --step 3 -o "$T/x.svg" "$T/g"
code 2 "--step takes a number" "$DFSCOPE" timeline --step x -o "$T/x.svg" "$T/g"
check "--step x: says so" grep -q "\-\-step takes a step number" "$T/err"

# a trace without steps
printf '[\n{"name":"a","cat":"c","ph":"X","pid":1,"tid":1,"ts":10,"dur":5}\n]\n' > "$T/nosteps.json"
code 2 "--slowest-step without steps" "$DFSCOPE" timeline --slowest-step -o "$T/x.svg" "$T/nosteps.json"
check "without steps: says so and what to give" grep -q "no training step found in these inputs.*give a --window" "$T/err"

code 2 "a window outside the trace" "$DFSCOPE" timeline -w 5:6 -o "$T/x.svg" "$T/g"
check "outside: suggests relative bounds" grep -q "relative to the trace's start is written +START:+END" "$T/err"

if [ -n "$TRACES" ] && [ -f "$TRACES/MANIFEST.md" ]; then
  K=$TRACES/kineto/resnet50-dataloader/resnet50_num_workers_0__worker0.1623143089861.pt.trace.json.gz
  code 0 "kineto --slowest-step" "$DFSCOPE" timeline --slowest-step -o "$T/k.svg" "$K"
  check "kineto: step 8, 181.259 ms (as steps lists it)" grep -q "window: step 8 of .*the slowest of 6 (181.259 ms)" "$T/err"
else
  echo "timeline_steps.sh: corpus check skipped (no $TRACES/MANIFEST.md)" >&2
fi

echo "timeline_steps.sh: $pass passed, $fail failed"
[ "$fail" = 0 ]

#!/usr/bin/env bash
# steps_job.sh DFSCOPE - `dfscope steps` leads with the job: its runs and steps, one verdict over
# every run (exposed data wait over the counted steps), the verdicts that hold on some runs with
# what they mean; several runs then give one line each, slowest mean step first, the slowest
# run's remedies, and --details for every run's report. One run: the job lines, then its report.
set -u
DFSCOPE=$1
source "$(dirname "$0")/testlib.bash"

"$DFSCOPE" gen -o "$T/g" --format v1 --ranks 3 --size 1500K --seed 11 >/dev/null 2>&1
"$DFSCOPE" steps -q --format json "$T/g" > "$T/s.json"
# the runs by mean counted step time, slowest first (ties in run order), and the job's exposed share
read -r order share <<< "$(python3 - "$T/s.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
def mean(r):
    a = r['counted'] if r['counted']['steps'] else r['all']
    return a['step_time_ns'] // a['steps']
runs = sorted(enumerate(d['runs']), key=lambda ir: (-mean(ir[1]), ir[0]))
step = sum((r['counted'] if r['counted']['steps'] else r['all'])['step_time_ns'] for r in d['runs'])
wait = sum((r['counted'] if r['counted']['steps'] else r['all'])['exposed_data_wait_ns'] for r in d['runs'])
print(','.join(r['name'] for _, r in runs), '%.1f' % (100 * wait / step))
EOF
)"

code 0 "three runs" "$DFSCOPE" steps -q "$T/g"
check "first line: the job" grep -q "^job: 3 runs, 66 steps, step time .* summed over the runs (mean step " <(head -1 "$T/out")
check "second line: the job's verdict" grep -qE "^verdict: (INPUT-BOUND|not input-bound): data wait not hidden by compute is $share % of the step time \(threshold 5 %\)" <(sed -n 2p "$T/out")
check "a verdict that holds says what it means" grep -q "input_bound on 3 of 3 runs: exposed data wait above the threshold" "$T/out"
check "runs table, slowest first" [ "$(awk '/^runs, slowest first/{f=1; getline; next} f && /^  trace-/{printf "%s%s", s, $1; s=","}' "$T/out")" = "$order" ]
check "the slowest run's remedies" grep -q "^remedies (the slowest run, ${order%%,*})" "$T/out"
check "details on request" grep -q -- "--details$" "$T/out"
check "no per-run report without --details" bash -c "! grep -q '^run trace-' '$T/out'"
check "short: at most 40 lines" [ "$(wc -l < "$T/out")" -le 40 ]

code 0 "--details" "$DFSCOPE" steps -q --details "$T/g"
check "--details: the job first" grep -q "^job: 3 runs" <(head -1 "$T/out")
check "--details: every run's report" [ "$(grep -c '^run trace-' "$T/out")" = 3 ]

code 0 "one run" "$DFSCOPE" steps -q "$T/g/trace-0-of-3.pfw"
check "one run: the job first" grep -q "^job: 1 run, 22 steps, step time [0-9.]* s (mean step " <(head -1 "$T/out")
check "one run: its report follows" grep -q "^run trace-0-of-3.pfw" "$T/out"
check "one run: no runs table" bash -c "! grep -q '^runs, slowest first' '$T/out'"

# traces without steps: said in words, never a table of empty runs or a nan
{ echo '['; echo '{"id":0,"name":"HH","cat":"dftracer","pid":7,"tid":7,"ph":"M","args":{"name":"n1","value":1}}'
  echo '{"id":1,"name":"read","cat":"POSIX","pid":7,"tid":7,"ts":100,"dur":10,"ph":"X","args":{"hhash":1,"fname":"/d/f","size":1}}'
} > "$T/a.pfw"
cp "$T/a.pfw" "$T/b.pfw"
code 0 "no steps in two runs" "$DFSCOPE" steps -q "$T/a.pfw" "$T/b.pfw"
check "no steps: the verdict says so" grep -q "^verdict: not evaluated: no training step found" "$T/out"
check "no steps: no table of empty runs" grep -q "^no run has a step; why, for each run: --details" "$T/out"
code 0 "no steps, --details" "$DFSCOPE" steps -q --details "$T/a.pfw"
check "no steps: no nan in the verdicts" bash -c "! grep -qiw nan '$T/out'"
check "no steps: words instead" grep -q "slow_fetches  *not_evaluated  no step has a data wait to compare" "$T/out"

# sums read in the unit that fits them, not thousands of ms
code 0 "sums auto-scaled" "$DFSCOPE" steps -q --details "$T/g/trace-0-of-3.pfw"
check "sums auto-scaled: step time in s" grep -qE "^  all steps +22 steps, step time [0-9]+\.[0-9]{3} s, data wait" "$T/out"

echo "steps_job.sh: $pass passed, $fail failed"
[ "$fail" = 0 ]

#!/usr/bin/env bash
# kinds.sh DFSCOPE TRACES - a command given traces of a kind it finds nothing in (analyze on a
# profiler trace, steps on a POSIX I/O trace) says so before its report: what it did not find,
# what the inputs are, and the commands that read them; the exit code stays 0 and the report is
# still written. -q keeps it quiet; a command that found something says nothing of the kind.
set -u
DFSCOPE=$1
TRACES=${2:-}
source "$(dirname "$0")/testlib.bash"

# A Chrome trace of two spans on one thread (no DFTracer categories, no steps).
cat > "$T/chrome.json" <<'EOF'
[
{"name":"kernel_a","cat":"gpu","ph":"X","pid":1,"tid":1,"ts":10,"dur":5},
{"name":"kernel_b","cat":"gpu","ph":"X","pid":1,"tid":1,"ts":20,"dur":5}
]
EOF
# A DFTracer v1 trace of POSIX calls only (no epochs, steps or data loader).
{
  echo '['
  echo '{"id":1,"name":"HH","cat":"dftracer","pid":7,"tid":7,"ph":"M","args":{"name":"node1","value":5692}}'
  for i in 2 3 4 5; do
    printf '{"id":%d,"name":"read","cat":"POSIX","pid":7,"tid":7,"ts":%d,"dur":10,"ph":"X","args":{"hhash":5692,"fname":"/d/f%d","size":4096}}\n' \
      "$i" $((i * 100)) "$i"
  done
  echo ']'
} > "$T/posix.pfw"

warned() { grep -q "warning: $1" "$T/err"; }

code 0 "analyze on a Chrome trace: exit 0" "$DFSCOPE" analyze "$T/chrome.json"
check "analyze: says no event is in a layer" warned "no event matches a layer of preset"
check "analyze: names the kind" grep -q "They are Chrome trace-event files (1 file, 2 events)" "$T/err"
check "analyze: suggests timeline" grep -q "dfscope timeline .*a picture of a time window" "$T/err"
check "analyze: never suggests itself" bash -c "! grep -q '^    dfscope analyze' '$T/err'"
check "analyze: the report is still written" grep -q "Time Period Summary" "$T/out"

code 0 "overlap --format json on a Chrome trace: exit 0" "$DFSCOPE" overlap --format json "$T/chrome.json"
check "overlap: says no event is in a class" warned "no event is in any class"
check "overlap: stdout stays JSON" python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$T/out"

code 0 "steps on a POSIX trace: exit 0" "$DFSCOPE" steps "$T/posix.pfw"
check "steps: says no step" warned "no training step found"
check "steps: names DFTracer traces" grep -q "They are DFTracer traces (1 file," "$T/err"
check "steps: suggests analyze" grep -q "dfscope analyze .*by I/O layer" "$T/err"
check "steps: the analyses of that kind, once each" [ "$(grep -c '^    dfscope ' "$T/err")" = 3 ]

code 0 "dataloader on a POSIX trace" "$DFSCOPE" dataloader "$T/posix.pfw"
check "dataloader: says no data-loader event" warned "no data-loader event found"
code 0 "rules on a POSIX trace" "$DFSCOPE" rules "$T/posix.pfw"
check "rules: says no rule could be evaluated" warned "no rule could be evaluated"

# a command of the inputs' own kind that found nothing points at its selecting options
code 0 "overlap whose classes match nothing" "$DFSCOPE" overlap --io 'cat == "none"' --compute 'cat == "none"' \
  --app-io none "$T/posix.pfw"
check "own kind: check the options" grep -q "'overlap' reads this kind: check the options" "$T/err"

code 0 "-q: quiet" "$DFSCOPE" analyze -q "$T/chrome.json"
check "-q: no warning" bash -c "! grep -q warning '$T/err'"
code 0 "a command that found something" "$DFSCOPE" analyze "$T/posix.pfw"
check "found something: no warning" bash -c "! grep -q warning '$T/err'"

if [ -n "$TRACES" ] && [ -f "$TRACES/MANIFEST.md" ]; then
  code 0 "analyze on the Kineto corpus" "$DFSCOPE" analyze --mix "$TRACES/kineto/resnet50-dataloader"
  check "kineto: PyTorch profiler traces, 3 files" grep -q "They are PyTorch or TensorFlow profiler traces (3 files, 218,566 events)" "$T/err"
  check "kineto: steps suggested" grep -q "dfscope steps .*training steps" "$T/err"
  code 0 "tasks suggested for DASF databases" "$DFSCOPE" overlap --mix "$TRACES/dasf"
  check "dasf: tasks" grep -q "dfscope tasks .*DASF" "$T/err"
else
  echo "kinds.sh: corpus checks skipped (no $TRACES/MANIFEST.md)" >&2
fi

echo "kinds.sh: $pass passed, $fail failed"
[ "$fail" = 0 ]

# testlib.bash - what the CLI test scripts share (sourced; not a test itself: ctest runs *.sh).
# After sourcing: $T is a temporary directory removed at exit, and pass/fail count the checks.
pass=0 fail=0
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

ok()   { pass=$((pass + 1)); }
bad()  { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
check() { # description, then a command that must succeed
  local what=$1; shift
  if "$@"; then ok; else bad "$what"; fi
}
code() { # expected-exit description command... (stdout in $T/out, stderr in $T/err)
  local want=$1 what=$2; shift 2
  "$@" >"$T/out" 2>"$T/err"; local got=$?
  if [ "$got" = "$want" ]; then ok; else bad "$what: exit $got, expected $want"; cat "$T/err" >&2; fi
}
# json_field FILE EXPR: EXPR is Python over the document `d`, e.g. "d['events_total']"
json_field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }
# dataloader_job DIR: a synthetic SageMaker Debugger job: six GetNext calls (one outlier, 900 us
# against 100) and two system-metric samples: one GetNext and one batch-time outlier window.
dataloader_job() {
  mkdir -p "$1"
  {
    echo '['
    echo '{"name": "process_name", "ph": "M", "pid": 0, "args": {"start_time_since_epoch_in_micros": 1600000000000000}},'
    echo '{"name": "process_name", "ph": "M", "pid": 2, "args": {"name": "DataLoaderIter"}},'
    for ts in 10000 20000 30000 40000 100000 110000; do
      dur=100; [ $ts = 40000 ] && dur=900
      echo "{\"name\": \"_MultiProcessingDataLoaderIter::GetNext\", \"ph\": \"X\", \"pid\": 2, \"ts\": $ts, \"dur\": $dur, \"args\": {\"worker_id\": 1}},"
    done
    echo '{"name": "Step:ModeKeys.TRAIN", "ph": "X", "pid": 4, "ts": 0, "dur": 200000}'
    echo ']'
  } > "$1/1600000000200000_algo-1_pythontimeline.json"
  cat > "$1/1600000000.algo-1.json" <<'EOF'
{"Type": "cpu", "Name": "cpu0", "Dimension": "CPUUtilization", "Value": 10, "NodeId": "algo-1", "Timestamp": 1600000000.0405}
{"Type": "cpu", "Name": "cpu0", "Dimension": "CPUUtilization", "Value": 30, "NodeId": "algo-1", "Timestamp": 1600000000.06}
EOF
}

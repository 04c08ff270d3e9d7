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

# kineto RANK STEPS FRACTION [norank] [START_US]: a Kineto trace of one rank on stdout: per
# profiler step (1 ms from START_US, default 1000000) an operator launching three kernels on stream
# 7, a collective on stream 20 that starts later on higher ranks, a copy on stream 21 and a GPU
# user annotation; FRACTION (e.g. ".5") is added to the copies' start (HTA then rounds the whole
# file). norank: no distributedInfo.
kineto() {
  awk -v r="$1" -v steps="$2" -v frac="$3" -v norank="${4:-}" -v start="${5:-1000000}" 'BEGIN {
    printf "{%s\"traceEvents\": [\n", norank ? "" : "\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": " r "}, "
    sep = ""
    for (s = 1; s <= steps; s++) {
      t = start + (s - 1) * 1000; c = s * 10
      ev("user_annotation", "ProfilerStep#" s, 1, 1, t, 1000, "")
      ev("cpu_op", "aten::linear", 1, 1, t + 5, 250, "")
      for (k = 0; k < 3; k++) {
        ev("cuda_runtime", "cudaLaunchKernel", 1, 1, t + 10 + 80 * k, 5, "\"correlation\": " (c + k))
        ev("kernel", "gemm_" k, 0, 7, t + 30 + 80 * k + r, 50 + 3 * k + r % 2, "\"stream\": 7, \"correlation\": " (c + k))
      }
      ev("cuda_runtime", "cudaLaunchKernel", 1, 1, t + 300, 5, "\"correlation\": " (c + 5))
      ev("kernel", "ncclKernel_AllReduce_RING_LL_Sum_float", 0, 20, t + 400 + 11 * r + 5 * (s % 3), 120 + 4 * r,
         "\"stream\": 20, \"correlation\": " (c + 5))
      ev("cuda_runtime", "cudaMemcpyAsync", 1, 1, t + 500, 6, "\"correlation\": " (c + 6))
      ev("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", 0, 21, (t + 520) frac, 30,
         "\"stream\": 21, \"correlation\": " (c + 6) ", \"memory bandwidth (GB/s)\": " (1.5 + r))
      ev("gpu_user_annotation", "fwd", 0, 7, t + 30, 300, "")
    }
    printf "\n]}\n"
  }
  function ev(cat, name, pid, tid, ts, dur, args) {
    printf "%s{\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", \"pid\": %d, \"tid\": %d, \"ts\": %s, \"dur\": %d%s}",
      sep, cat, name, pid, tid, ts, dur, args == "" ? "" : ", \"args\": {" args "}"
    sep = ",\n"
  }'
}

# mpi_launcher DFSCOPE: for the MPI tests, MPIRUN (the launcher with the flags this machine needs)
# and `mpi NP COMMAND...`; exits 77 (skipped) without mpirun or when DFSCOPE was built without MPI.
mpi_launcher() {
  command -v mpirun >/dev/null || { echo "SKIP: mpirun not found (apt-get install openmpi-bin or mpich)"; exit 77; }
  MPIRUN=(mpirun)
  if mpirun --version 2>&1 | grep -q "Open MPI"; then
    # Open MPI refuses root unless told, and more ranks than cores unless told (CI: 2 cores)
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export OMPI_MCA_rmaps_base_oversubscribe=1
    MPIRUN+=(--oversubscribe)
  fi
  export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" # the MPI library's own leaks
  mpi() { timeout 120 "${MPIRUN[@]}" -np "$@"; }

  echo '{"name":"x","cat":"c","pid":1,"tid":1,"ts":1,"dur":1,"ph":"X"}' > "$T/tiny.pfw"
  mpi 2 "$1" stats --mpi-stats "$T/tiny.pfw" >/dev/null 2>"$T/probe"
  grep -q "mpi rank 1/2" "$T/probe" || { echo "SKIP: dfscope was built without MPI (cmake -DDFS_MPI=ON with an MPI library)"; cat "$T/probe"; exit 77; }
}

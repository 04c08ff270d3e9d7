#!/usr/bin/env bash
# mixed_jobs.sh DFSCOPE [TRACES] - inputs of several jobs (docs/CLI.md, "Inputs from several jobs"):
# every reading command but merge refuses them (exit 2, no result, each job named with its span
# and files) unless --mix; inputs of one job, relative clocks and --mix run as before. Small
# generated inputs first; then the corpus cases (skipped with a message when it is absent).
set -u
DFSCOPE=$1
TRACES=${2:-}
source "$(dirname "$0")/testlib.bash"

# trace FILE START_US DUR_US: a Chrome trace of one step (times in microseconds since the epoch)
trace() { echo "[{\"name\":\"step\",\"cat\":\"c\",\"ph\":\"X\",\"ts\":$2,\"dur\":$3,\"pid\":1,\"tid\":1}]" > "$1"; }
DAY=86400000000 HOUR=3600000000
T0=1700000000000000 # 2023-11-14T22:13:20Z
mkdir -p "$T/two" "$T/one" "$T/long" "$T/far"
trace "$T/two/monday.json" $T0 1000000
trace "$T/two/thursday.json" $((T0 + 3 * DAY)) 2000000
trace "$T/one/rank0.json" $T0 1000000
trace "$T/one/rank1.json" $((T0 + HOUR / 2)) 1000000 # half an hour later: the same job
trace "$T/rel.json" 5 10                              # starts near 0: a relative clock
# a 5-hour run and a file 3 hours after its end: a pause shorter than the run, the same job
trace "$T/long/a.json" $T0 $((5 * HOUR))
trace "$T/long/b.json" $((T0 + 8 * HOUR)) 1000000
# ... but 6 hours after a 5-hour run: another job
trace "$T/far/a.json" $T0 $((5 * HOUR))
trace "$T/far/b.json" $((T0 + 11 * HOUR)) 1000000

# --- two jobs days apart: refused, each named -------------------------------------------------
code 2 "two jobs" "$DFSCOPE" stats -q "$T/two"
check "two jobs: nothing on stdout" [ ! -s "$T/out" ]
check "two jobs: counted" grep -q "^dfscope stats: these inputs hold 2 jobs" "$T/err"
check "two jobs: the first with its span" grep -q "job 1: 2023-11-14T22:13:20Z .. 2023-11-14T22:13:21Z (1.000 s), 1 file:" "$T/err"
check "two jobs: the second with its span" grep -q "job 2: 2023-11-17T22:13:20Z .. 2023-11-17T22:13:22Z (2.000 s), 1 file:" "$T/err"
check "two jobs: files named" sh -c "grep -A1 'job 1:' '$T/err' | grep -q 'two/monday.json' && grep -A1 'job 2:' '$T/err' | grep -q 'two/thursday.json'"
check "two jobs: how to go on" grep -q "Analyze one job at a time (name its files or folder), or give --mix" "$T/err"
code 2 "two jobs, -o" "$DFSCOPE" stats -q -o "$T/never.txt" "$T/two"
check "two jobs: -o not written" [ ! -e "$T/never.txt" ]
code 2 "two jobs, JSON" "$DFSCOPE" stats --json "$T/two"
check "two jobs: no JSON" [ ! -s "$T/out" ]

# --- --mix: analysed together, as before ------------------------------------------------------------
code 0 "--mix" "$DFSCOPE" stats -q --mix --json "$T/two"
check "--mix: both files' events" [ "$(json_field "$T/out" "d['events_total']")" = 2 ]

# --- one job, relative clocks -------------------------------------------------------------------
code 0 "one job" "$DFSCOPE" stats -q --json "$T/one"
check "one job: both files" [ "$(json_field "$T/out" "d['events_total']")" = 2 ]
"$DFSCOPE" stats -q --json --mix "$T/one" > "$T/one-mix.json"
check "one job: --mix changes nothing" cmp -s "$T/out" "$T/one-mix.json"
code 0 "a pause shorter than the run" "$DFSCOPE" stats -q "$T/long"
code 2 "a pause longer than the run and an hour" "$DFSCOPE" stats -q "$T/far"
check "far: 2 jobs" grep -q "hold 2 jobs" "$T/err"
check "far: hours" grep -q "(5.0 hours), 1 file:" "$T/err"
code 0 "a relative clock joins no job" "$DFSCOPE" stats -q "$T/one" "$T/rel.json"
check "stats: its span is the job's, not one from 1970" grep -q "Time span 2023-11-14T22:13:20Z .. 2023-11-14T22:43:21Z" "$T/out"
code 0 "report: the same inputs" "$DFSCOPE" report -q "$T/one" "$T/rel.json"
check "report: its span is the job's, not one from 1970" grep -q "span: 2023-11-14T22:13:20Z .. 2023-11-14T22:43:21Z (30.017 min wall time)" "$T/out"
check "report: the file off the wall clock is an insight (rule clock-problems at its threshold, 1 file)" \
  grep -q "\[warning\] files off the wall clock: 1 file(s) beside wall-clock traces run on a clock that is not the wall clock (relative, or before 2000; first: $T/rel.json)" "$T/out"
check "report: an input-health warning is no verdict" bash -c "! head -1 '$T/out' | grep -qi 'wall clock'"
code 0 "report: the job's files alone" "$DFSCOPE" report -q "$T/one"
check "report: no file off the clock, no insight (0 files, below the threshold)" bash -c "! grep -q 'off the wall clock' '$T/out'"
code 2 "a relative clock and two jobs" "$DFSCOPE" stats -q "$T/two" "$T/rel.json"
check "relative file counted" grep -q "and 1 file without wall-clock times (relative clocks), of no job in particular" "$T/err"

# --- every reading command but merge refuses; --help shows --mix --------------------------------
for cmd in stats analyze overlap steps gpu dataloader rules tasks timeline; do
  extra=()
  [ "$cmd" = timeline ] && extra=(-o "$T/t.svg")
  code 2 "$cmd: two jobs" "$DFSCOPE" "$cmd" -q "${extra[@]}" "$T/two"
  check "$cmd: says so" grep -q "^dfscope $cmd: these inputs hold 2 jobs" "$T/err"
  check "$cmd: no result" [ ! -s "$T/out" ]
  "$DFSCOPE" "$cmd" --mix -q "${extra[@]}" "$T/two" >/dev/null 2>"$T/err"; rc=$?
  check "$cmd --mix: not refused (exit $rc)" [ "$rc" -le 1 ]
  check "$cmd --help: --mix" sh -c "'$DFSCOPE' $cmd --help | grep -q -- '--mix '"
done
[ -e "$T/t.svg" ] && rm -f "$T/t.svg"
code 0 "merge joins files of several jobs" "$DFSCOPE" merge -q -o "$T/m.json" "$T/two"
check "merge --help: no --mix" sh -c "! '$DFSCOPE' merge --help | grep -q -- '--mix'"

# --- DASF: a database is a job (its clocks are per host) ----------------------------------------
"$DFSCOPE" gen -q -o "$T/dasf" --format dasf --ranks 2 --events 20
code 0 "one DASF database over two hosts" "$DFSCOPE" tasks -q -o "$T/tasks1" "$T/dasf"
mkdir -p "$T/dasf2"
cp "$T/dasf/dasf-TracePlugin-node00.msgpack" "$T/dasf2/first-TracePlugin-node00.msgpack"
cp "$T/dasf/dasf-TracePlugin-node01.msgpack" "$T/dasf2/second-TracePlugin-node00.msgpack"
code 2 "two DASF databases" "$DFSCOPE" tasks -q -o "$T/tasks2" "$T/dasf2"
check "DASF: databases named" sh -c "grep -q \"job 1: DASF database 'first' (per-host clocks), 1 file:\" '$T/err' && grep -q \"job 2: DASF database 'second'\" '$T/err'"
check "DASF: nothing written" [ ! -e "$T/tasks2" ]
code 0 "two DASF databases, --mix" "$DFSCOPE" tasks -q --mix -o "$T/tasks3" "$T/dasf2"

# --- under MPI: rank 0 names the jobs, every rank exits 2 ----------------------------------------
if command -v mpirun >/dev/null; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
  export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" # the MPI library's own leaks
  timeout 120 mpirun -np 2 "$DFSCOPE" stats --mpi-stats "$T/two/monday.json" >/dev/null 2>"$T/probe"
  if grep -q "mpi rank 1/2" "$T/probe"; then
    code 2 "MPI: two jobs" timeout 120 mpirun -np 2 "$DFSCOPE" stats "$T/two"
    check "MPI: said once" [ "$(grep -c 'these inputs hold 2 jobs' "$T/err")" = 1 ]
    check "MPI: no result" [ ! -s "$T/out" ]
  fi
fi

# --- the corpus: the issue's three cases -------------------------------------------------------------
if [ -z "$TRACES" ] || [ ! -f "$TRACES/MANIFEST.md" ]; then
  echo "mixed_jobs.sh: corpus not found at ${TRACES:-(none)}: corpus cases skipped ($pass passed, $fail failed)"
  [ "$fail" = 0 ] || exit 1
  exit 77
fi
R=$TRACES/smdebug/tests/profiler/resources
code 2 "rules on smdebug's runs" "$DFSCOPE" rules -q "$TRACES/smdebug"
check "rules: seven runs" grep -q "hold 7 jobs" "$T/err"
check "rules: no MaxInitializationTime over two months" bash -c "! grep -q MaxInitializationTime '$T/out'"
check "rules: the system metrics of June 3 are a job" grep -q "job 4: 2020-06-03T05:04:59" "$T/err"
code 0 "rules on one smdebug run" "$DFSCOPE" rules -q "$R/merge_traces"
code 2 "stats over the whole corpus" "$DFSCOPE" stats -q "$TRACES"
check "stats: no span from 1970" bash -c "! grep -q 1970 '$T/out'"
code 2 "tasks on unrelated DASF databases" "$DFSCOPE" tasks -q "$TRACES/dasf"
check "tasks: three databases" grep -q "hold 3 jobs" "$T/err"
check "tasks: the tutorial's two files are one" grep -q "DASF database 'Tutorial_5_Profile' (per-host clocks), 2 files:" "$T/err"
code 0 "tasks on one DASF database" "$DFSCOPE" tasks -q "$TRACES"/dasf/Tutorial_5_Profile-*
code 0 "the ranks of one Composer job and their merge" "$DFSCOPE" stats -q "$TRACES/composer"
code 0 "48 CM1 ranks" "$DFSCOPE" stats -q "$TRACES/dftracer/cm1-48rank"

echo "mixed_jobs.sh: $pass passed, $fail failed"
[ "$fail" = 0 ]

#!/usr/bin/env bash
# run.sh BUILD SECONDS RESULTS [TARGET...] - runs each fuzz target of BUILD (a -DDFS_FUZZ=ON build)
# for SECONDS, one after the other (one process: the machine is shared), on a corpus kept in
# BUILD/corpus/TARGET (seeded by seeds.sh from BUILD/corpus/TARGET.seeds), and appends a line per
# target to the markdown table RESULTS: executions, executions per second, edges covered,
# features, corpus size, outcome. A crash, leak, timeout or broken invariant leaves the input in
# BUILD/fuzz-artifacts/ and makes the script fail (after the other targets have run).
set -u
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: run.sh BUILD SECONDS RESULTS [TARGET...]}
seconds=${2:?seconds}
results=${3:?results file}
shift 3
targets=${*:-lines chrome gzip dasf predicate preset cli timeline}
build=$(cd "$build" && pwd)
corpus=$build/corpus
artifacts=$build/fuzz-artifacts
mkdir -p "$artifacts"
for t in $targets; do # seeds for every target (a corpus made before a target existed lacks its own)
  [ -d "$corpus/$t.seeds" ] || { "$here/seeds.sh" "$corpus" >/dev/null; break; }
done

max_len() {
  case $1 in
    gzip) echo 65536 ;; preset) echo 32768 ;; predicate|cli) echo 4096 ;; *) echo 16384 ;;
  esac
}
dict() {
  case $1 in
    lines|chrome|timeline) echo "-dict=$here/json.dict" ;; predicate|preset) echo "-dict=$here/predicate.dict" ;;
    cli) echo "-dict=$here/cli.dict" ;;
  esac
}

if [ ! -f "$results" ]; then
  { echo "| date | target | seconds | executions | exec/s | edges (cov) | features (ft) | corpus | outcome |"
    echo "|---|---|---|---|---|---|---|---|---|"; } > "$results"
fi
failed=0
for t in $targets; do
  bin=$build/fuzz_$t
  if [ ! -x "$bin" ]; then echo "run.sh: $bin is missing" >&2; failed=1; continue; fi
  mkdir -p "$corpus/$t"
  log=$build/fuzz-$t.log
  # -close_fd_mask=3: the CLI target prints usage and reports; libFuzzer keeps its own stderr.
  nice -n 10 "$bin" "$corpus/$t" "$corpus/$t.seeds" -max_total_time="$seconds" \
    -max_len="$(max_len "$t")" $(dict "$t") -timeout=20 -rss_limit_mb=2048 -print_final_stats=1 \
    -close_fd_mask=3 -artifact_prefix="$artifacts/$t-" > "$log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  last=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -1)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<< "$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<< "$last")
  corp=$(sed -n 's/.* corp: \([0-9]*\/[0-9a-zA-Z]*\).*/\1/p' <<< "$last")
  if [ $rc = 0 ]; then outcome="no finding"; else
    outcome="FAILED (exit $rc; see $(basename "$log"), $(ls -t "$artifacts" | grep "^$t-" | head -1))"
    failed=1
  fi
  echo "| $(date -u +%Y-%m-%dT%H:%MZ) | $t | $seconds | ${execs:-?} | ${rate:-?} | ${cov:-?} | ${ft:-?} | ${corp:-?} | $outcome |" >> "$results"
  echo "fuzz_$t: ${execs:-?} runs, ${rate:-?}/s, cov ${cov:-?}, ft ${ft:-?}: $outcome"
done
exit $failed

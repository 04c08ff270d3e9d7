#!/usr/bin/env bash
# gpu_mpi.sh DFSCOPE TRACES - `dfscope gpu` under mpirun (docs/MPI.md, docs/GPU.md "Cost"): on 1,
# 2 and 3 ranks the output (table, JSON, every CSV file; exact and --compat hta; the default
# sections and critical-path, sequences, stragglers) is byte-identical to the plain run, on
# hand-built multi-rank Kineto traces (fractional timestamps, a rank without distributedInfo, a
# trace rank split over two files) and on the corpus (HTA's traces, the Kineto ResNet-50 folder);
# the ranks read different files (--mpi-stats), and a damaged file ends every rank with the
# plain run's exit code and message. Skipped (77) without mpirun or without MPI in the build;
# the corpus parts are skipped when TRACES is absent.
set -u
DFSCOPE=$1
TRACES=${2:-}
. "$(dirname "$0")/testlib.bash"

mpi_launcher "$DFSCOPE"

# same LABEL NP ARGS...: on NP ranks, the exit code, stdout and every CSV file are the plain run's
same() {
  local what=$1 np=$2; shift 2
  local -a args=("$@")
  local csv=""
  if [[ " $* " == *" --format csv "* ]]; then csv=1; fi
  rm -rf "$T/one" "$T/many"
  if [ -n "$csv" ]; then
    "$DFSCOPE" gpu -q -o "$T/one" "${args[@]}" >"$T/one.out" 2>"$T/one.err"
  else
    "$DFSCOPE" gpu -q "${args[@]}" >"$T/one.out" 2>"$T/one.err"
  fi
  local want=$?
  if [ -n "$csv" ]; then
    mpi "$np" "$DFSCOPE" gpu -q -o "$T/many" "${args[@]}" >"$T/many.out" 2>"$T/many.err"
  else
    mpi "$np" "$DFSCOPE" gpu -q "${args[@]}" >"$T/many.out" 2>"$T/many.err"
  fi
  local got=$?
  if [ "$got" != "$want" ]; then bad "$what on $np ranks: exit $got, expected $want"; tail -3 "$T/many.err" >&2; return; fi
  if ! cmp -s "$T/one.out" "$T/many.out"; then bad "$what on $np ranks: output differs"; diff "$T/one.out" "$T/many.out" | head -5 >&2; return; fi
  if [ -n "$csv" ] && ! diff -r "$T/one" "$T/many" >/dev/null; then bad "$what on $np ranks: CSV files differ"; return; fi
  if [ "$want" = 0 ] && [ ! -s "$T/one.out" ] && [ -z "$csv" ]; then bad "$what: the plain run wrote nothing"; return; fi
  ok
}

# every LABEL INPUT...: the comparisons of one set of inputs (each format and semantics on 2 or 3
# ranks; one rank for the JSON)
every() {
  local label=$1; shift
  same "$label: json" 1 --format json "$@"
  same "$label: json" 2 --format json "$@"
  same "$label: json hta" 3 --format json --compat hta "$@"
  same "$label: table" 3 "$@"
  same "$label: table hta" 2 --compat hta "$@"
  same "$label: csv" 2 --format csv "$@"
  same "$label: csv hta" 3 --format csv --compat hta "$@"
  same "$label: graphs json" 3 --format json --only critical-path,sequences,stragglers "$@"
  same "$label: graphs table hta" 2 --compat hta --only critical-path,sequences,stragglers "$@"
}

# --- hand-built traces -----------------------------------------------------------------------------
mkdir -p "$T/job" "$T/split" "$T/norank"
for r in 0 1 2 3 4; do kineto "$r" 4 "" > "$T/job/rank$r.json"; done
kineto 5 4 .5 > "$T/job/rank5.json"                 # HTA rounds this file to whole µs
gzip -c "$T/job/rank3.json" > "$T/job/rank3.json.gz" && rm "$T/job/rank3.json"
every "six ranks" "$T/job"

# one trace rank over two files (two profiling windows), a rank without distributedInfo
kineto 0 3 "" > "$T/split/a-rank0.json"
kineto 1 2 "" > "$T/split/b-rank1-early.json"
kineto 1 4 .25 > "$T/split/c-rank1-late.json"
kineto 2 3 "" norank > "$T/split/d-norank.json"
every "rank split over two files" "$T/split"
same "rank split, files in the other order" 2 --format json "$T/split/c-rank1-late.json" "$T/split/b-rank1-early.json" "$T/split/a-rank0.json"
same "rank split, files in the other order, hta" 3 --format json --compat hta "$T/split/c-rank1-late.json" "$T/split/b-rank1-early.json" "$T/split/a-rank0.json"

# --- the ranks read different files --------------------------------------------------------------
mpi 3 "$DFSCOPE" gpu -q --mpi-stats --format json "$T/job" >/dev/null 2>"$T/err"
check "--mpi-stats: one line per rank" [ "$(grep -c 'mpi rank [0-2]/3: pieces=' "$T/err")" = 3 ]
check "--mpi-stats: every file read once, by one rank" \
  [ "$(grep -o 'pieces=[0-9]*' "$T/err" | awk -F= '{s += $2} END {print s}')" = 6 ]
check "--mpi-stats: every rank reads some" [ "$(grep -c 'pieces=0 ' "$T/err")" = 0 ]
check "--mpi-stats: the balance line" grep -q 'mpi 3 ranks (.*): bytes max/mean' "$T/err"

# --- a damaged file: the plain run's exit code (1) and message, from every rank ---------------------
mkdir -p "$T/damaged"
cp "$T/job/rank0.json" "$T/job/rank1.json" "$T/damaged/"
head -c 3000 "$T/job/rank2.json" > "$T/damaged/rank2.json"
"$DFSCOPE" gpu --format json "$T/damaged" >"$T/one.out" 2>"$T/one.err"
want=$?
check "damaged file: the plain run exits 1, not $want" [ "$want" = 1 ]
mpi 3 "$DFSCOPE" gpu --format json "$T/damaged" >"$T/many.out" 2>"$T/many.err"
got=$?
check "damaged file: every rank exits $want, not $got" [ "$got" = "$want" ]
check "damaged file: the same result" cmp -s "$T/one.out" "$T/many.out"
check "damaged file: the same problem report" diff <(grep -Fx -f "$T/one.err" "$T/many.err") "$T/one.err"
check "damaged file: the common code is said" grep -q 'all 3 ranks exit with code 1' "$T/many.err"

# --- the corpus ------------------------------------------------------------------------------------
if [ -n "$TRACES" ] && [ -d "$TRACES/hta" ] && [ -d "$TRACES/kineto" ]; then
  every "HTA trace_filter (2 ranks)" "$TRACES/hta/trace_filter"
  every "Kineto ResNet-50 (windows of one process)" --mix "$TRACES/kineto/resnet50-dataloader"
  same "HTA corpus, every file" 2 --format json --mix "$TRACES/hta"
  same "HTA corpus, every file, hta" 3 --format json --mix --compat hta "$TRACES/hta"
  same "HTA corpus, every file, csv hta" 2 --format csv --mix --compat hta "$TRACES/hta"
  same "HTA corpus: several jobs refused as by one process" 3 --format json "$TRACES/hta"
else
  echo "note: trace corpus not found at ${TRACES:-(none)}: only hand-built traces are checked"
fi

echo "gpu_mpi: $pass passed, $fail failed"
[ "$fail" = 0 ]

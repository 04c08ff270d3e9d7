#!/usr/bin/env bash
# mpi.sh DFSCOPE TRACES - distributed runs under mpirun (docs/MPI.md): the JSON of `stats`,
# `analyze`, `overlap` and `steps` on 2 and 3 ranks equals the single-process run (identical
# integers and texts, other numbers within 1e-12 relative, by tests/tools/jsoncmp.c), on the corpus
# and on generated traces (also with files cut between ranks); -np 1 is byte-identical to no MPI;
# an unreadable input, a missing path and an output that cannot be written end every rank with the
# same code and a clear message, without hanging. Skipped (77) without mpirun or without MPI in
# the build. Fields that say how a run went, not what it found, are not compared: flushes,
# second_pass, second_pass_reason (overlap, analyze) and timing (stats --timing, not used here).
# `steps` has no such field: its JSON is compared whole (the ignored names do not occur in it);
# its corpus cases are the inputs of test_steps_corpus and cli/steps.sh (Kineto, Composer with
# a merged trace, smdebug with nodes spread over ranks, DLIO, legacy DLIO).
set -u
DFSCOPE=$1
TRACES=$2
. "$(dirname "$0")/testlib.bash"
CMP="$(dirname "$DFSCOPE")/dfs_jsoncmp"

mpi_launcher "$DFSCOPE"
[ -x "$CMP" ] || { echo "FAIL: $CMP not built"; exit 1; }

IGNORE=(-i flushes -i second_pass -i second_pass_reason)

# same DESCRIPTION NP ARGS...: the run on NP ranks gives the single-process JSON and exit code
same() {
  local what=$1 np=$2; shift 2
  "$DFSCOPE" "$@" >"$T/one.json" 2>"$T/one.err"; local want=$?
  mpi "$np" "$DFSCOPE" "$@" >"$T/many.json" 2>"$T/many.err"; local got=$?
  if [ "$got" != "$want" ]; then bad "$what on $np ranks: exit $got, expected $want"; tail -5 "$T/many.err" >&2; return; fi
  if "$CMP" "${IGNORE[@]}" "$T/one.json" "$T/many.json" 2>"$T/cmp"; then ok; else bad "$what on $np ranks: JSON differs"; head -5 "$T/cmp" >&2; fi
}

COMMANDS=("stats --json" "analyze --format json" "analyze --format json --views time_range,proc_name"
          "analyze --format json --compat dfanalyzer --views time_range,proc_name" "overlap --format json"
          "overlap --format json --granularity 1s --scope thread")

# --- the corpus ----------------------------------------------------------------------------------
if [ -d "$TRACES/dftracer" ]; then
  for d in dlio-unet3d-hdf5-8rank legacy-2023 cm1-48rank; do
    for cmd in "${COMMANDS[@]}"; do
      for np in 2 3; do
        # shellcheck disable=SC2086
        same "$d: $cmd" "$np" $cmd -q "$TRACES/dftracer/$d"
      done
    done
  done
else
  echo "note: trace corpus not found at $TRACES: only generated traces are checked"
fi

# --- steps: finished runs travel; smdebug nodes spread over ranks travel as events ---------------
if [ -d "$TRACES/dftracer" ]; then
  for d in dftracer/dlio-unet3d-hdf5-8rank dftracer/legacy-2023 kineto/resnet50-dataloader composer smdebug; do
    for np in 2 3; do
      same "$d: steps --format json" "$np" steps --format json -q --mix "$TRACES/$d"
    done
  done
fi

# --- generated traces: plain and gzipped, whole and cut between ranks (DFSCOPE_MPI_PIECE) ------
"$DFSCOPE" gen -q -o "$T/v1" --format v1 --ranks 3 --size 6M --seed 3
"$DFSCOPE" gen -q -o "$T/v2" --format v2 --gzip --member-size 64k --ranks 4 --size 4M --seed 4
for g in v1 v2; do
  for cmd in "${COMMANDS[@]}" "overlap --format json --approximate" "steps --format json"; do
    # shellcheck disable=SC2086
    same "generated $g: $cmd" 3 $cmd -q "$T/$g"
  done
done
export DFSCOPE_MPI_PIECE=256k # files of 2 MiB in 8 pieces: cut between ranks where allowed
for cmd in "stats --json" "analyze --format json --compat dfanalyzer --views time_range,proc_name" \
           "overlap --format json --approximate" "analyze --format json" "overlap --format json" \
           "steps --format json"; do
  # shellcheck disable=SC2086
  same "generated v1 cut: $cmd" 3 $cmd -q "$T/v1"
done
mpi 3 "$DFSCOPE" stats -q --mpi-stats "$T/v1" >/dev/null 2>"$T/err"
check "--mpi-stats: one line per rank" [ "$(grep -c 'mpi rank [0-2]/3: pieces=' "$T/err")" = 3 ]
check "--mpi-stats: files cut in pieces" [ "$(grep -o 'pieces=[0-9]*' "$T/err" | awk -F= '{s += $2} END {print s}')" -gt 3 ]
check "--mpi-stats: the balance line" grep -q 'mpi 3 ranks (.*): bytes max/mean' "$T/err"
unset DFSCOPE_MPI_PIECE

# --- one rank is the plain run, byte for byte (-j 1: several threads may order float sums apart) -
for cmd in "stats --json" "analyze --format json" "overlap --format json" "steps --format json"; do
  # shellcheck disable=SC2086
  "$DFSCOPE" $cmd -j 1 -q "$T/v1" >"$T/plain.json" 2>/dev/null
  # shellcheck disable=SC2086
  mpi 1 "$DFSCOPE" $cmd -j 1 -q "$T/v1" >"$T/np1.json" 2>/dev/null
  check "-np 1 $cmd is byte-identical" cmp -s "$T/plain.json" "$T/np1.json"
done

# --- failures: every rank ends with the same code and says why, nobody hangs ---------------------
mkdir -p "$T/bad"
cp "$T"/v1/* "$T/bad/"
ln -s /proc/self/mem "$T/bad/trace-9-unreadable.pfw" # as root too: reading it at 0 fails (EIO)
if [ "$(id -u)" != 0 ]; then
  cp "$T/v1/trace-0-of-3.pfw" "$T/bad/trace-8-noperm.pfw" && chmod 000 "$T/bad/trace-8-noperm.pfw"
fi
for cmd in stats analyze overlap steps; do
  mpi 3 "$DFSCOPE" $cmd "$T/bad" >"$T/out" 2>"$T/err"
  got=$?
  check "unreadable input ($cmd): exit 2 from every rank, not $got" [ "$got" = 2 ]
  check "unreadable input ($cmd): the reading rank names the file" grep -q 'rank [0-2] cannot read .*trace-9-unreadable.pfw' "$T/err"
  check "unreadable input ($cmd): the report names it" grep -q 'unreadable: ' "$T/err"
  check "unreadable input ($cmd): the common code is said" grep -q 'all 3 ranks exit with code 2' "$T/err"
  check "unreadable input ($cmd): results are still written" [ -s "$T/out" ]
done
"$DFSCOPE" stats --json "$T/bad" >"$T/one.json" 2>/dev/null
mpi 2 "$DFSCOPE" stats --json "$T/bad" >"$T/many.json" 2>/dev/null
check "unreadable input: the JSON is still the single-process one" "$CMP" "$T/one.json" "$T/many.json"
"$DFSCOPE" steps --format json "$T/bad" >"$T/one.json" 2>/dev/null
mpi 2 "$DFSCOPE" steps --format json "$T/bad" >"$T/many.json" 2>"$T/err"
got=$?
check "unreadable input (steps, 2 ranks): exit 2 from every rank, not $got" [ "$got" = 2 ]
check "unreadable input (steps, 2 ranks): the file is named" grep -q 'rank [01] cannot read .*trace-9-unreadable.pfw' "$T/err"
check "unreadable input (steps, 2 ranks): the JSON is the single-process one" "$CMP" "$T/one.json" "$T/many.json"

mpi 3 "$DFSCOPE" stats "$T/v1" "$T/no-such-dir" >"$T/out" 2>"$T/err"
got=$?
check "missing path: exit 2 from every rank, not $got" [ "$got" = 2 ]
check "missing path: named once (by rank 0)" [ "$(grep -c 'no-such-dir' "$T/err")" = 1 ]
mpi 3 "$DFSCOPE" stats "$T/no-such-dir" >"$T/out" 2>"$T/err"
check "nothing to read: exit 2 from every rank" [ $? = 2 ]
mpi 2 "$DFSCOPE" stats -o "$T/no-such-dir/out.txt" "$T/v1" >"$T/out" 2>"$T/err"
got=$?
check "unwritable output: exit 4 from every rank, not $got" [ "$got" = 4 ]
check "unwritable output: said" grep -q 'all 2 ranks exit with code 4' "$T/err"
mpi 2 "$DFSCOPE" stats -o "$T/v1/trace-0-of-3.pfw" "$T/v1" >"$T/out" 2>"$T/err"
check "output over an input: refused on every rank" [ $? = 2 ]
check "output over an input: said once" [ "$(grep -c 'refusing to write' "$T/err")" = 1 ]
mpi 2 "$DFSCOPE" steps --step 'name ==' "$T/v1" >"$T/out" 2>"$T/err"
check "bad predicate (steps): exit 2 from every rank" [ $? = 2 ]
check "bad predicate (steps): said once" [ "$(grep -c 'step predicate' "$T/err")" = 1 ]
mpi 2 "$DFSCOPE" analyze --preset no-such-preset "$T/v1" >"$T/out" 2>"$T/err"
check "bad preset: exit 2 from every rank" [ $? = 2 ]
check "bad preset: said once" [ "$(grep -c 'no-such-preset' "$T/err")" = 1 ]

echo "mpi: $pass passed, $fail failed"
[ "$fail" = 0 ]

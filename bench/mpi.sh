#!/usr/bin/env bash
# bench/mpi.sh DFSCOPE - strong scaling of the distributed commands (docs/MPI.md): the same input
# on 1 and 2 MPI ranks of one thread each, against the plain run (no MPI, -j 1).
#
# Inputs: bench/out/v1 and bench/out/v2gz (about 2 GB of text each, made by bench/run.sh; made
# here the same way when missing). For each input and command: median wall seconds of RUNS runs
# without MPI, with `mpirun -np 1` and with `mpirun -np 2`, the speedup (np 1 / np 2) and its
# efficiency (speedup / 2) - the three interleaved run by run -; then one more 2-rank run with
# --mpi-stats for what each rank did: its
# read time, its combine time (the census and the tree, waiting for slower ranks included) and the
# bytes it sent up the tree. Results: a markdown table on stdout and in bench/out/mpi.md.
# Skipped (exit 0 with a note) when mpirun is missing or dfscope was built without MPI.
set -euo pipefail
DFSCOPE=${1:?usage: bench/mpi.sh path/to/dfscope}
DFSCOPE=$(readlink -f "$DFSCOPE")
cd "$(dirname "$0")"
OUT=${OUT:-out}
RUNS=${RUNS:-3}
SIZE=${SIZE:-2G}
mkdir -p "$OUT"

command -v mpirun >/dev/null || { echo "bench/mpi.sh: mpirun not found: skipped" >&2; exit 0; }
MPIRUN=(mpirun)
if mpirun --version 2>&1 | grep -q "Open MPI"; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  MPIRUN+=(--oversubscribe --bind-to none)
fi
echo '{"name":"x","cat":"c","pid":1,"tid":1,"ts":1,"dur":1,"ph":"X"}' > "$OUT/mpi-probe.pfw"
if ! "${MPIRUN[@]}" -np 2 "$DFSCOPE" stats --mpi-stats "$OUT/mpi-probe.pfw" 2>&1 >/dev/null | grep -q "mpi rank 1/2"; then
  echo "bench/mpi.sh: $DFSCOPE was built without MPI: skipped" >&2
  exit 0
fi

gen() { # dir format extra... (as bench/run.sh)
  local dir=$1; shift
  if [ ! -f "$OUT/$dir.done-$SIZE" ]; then
    rm -rf "${OUT:?}/$dir"; mkdir -p "$OUT/$dir"
    echo "generating $OUT/$dir ($SIZE, $*)" >&2
    "$DFSCOPE" gen -o "$OUT/$dir" --ranks 16 --size "$SIZE" --seed 7 "$@"
    touch "$OUT/$dir.done-$SIZE"
  fi
}
gen v1 --format v1
gen v2gz --format v2 --gzip

now() { date +%s.%N; }
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
seconds() { local s t; s=$(now); "$@" >/dev/null 2>&1; t=$(now); echo "$t - $s" | bc -l; }
# measure ARGS...: "plain np1 np2", the median wall seconds of RUNS runs of dfscope ARGS without
# MPI, on 1 rank and on 2 ranks; the three are interleaved run by run, so that a machine that gets
# busier or quieter during the measurement affects them alike.
measure() {
  local k
  rm -f "$OUT"/mpi-t.*
  for _ in $(seq "$RUNS"); do
    seconds "$DFSCOPE" "$@" >> "$OUT/mpi-t.0"
    seconds "${MPIRUN[@]}" -np 1 "$DFSCOPE" "$@" >> "$OUT/mpi-t.1"
    seconds "${MPIRUN[@]}" -np 2 "$DFSCOPE" "$@" >> "$OUT/mpi-t.2"
  done
  for k in 0 1 2; do median < "$OUT/mpi-t.$k"; done | paste -sd' '
  rm -f "$OUT"/mpi-t.*
}
field() { # field NAME RANK FILE: NAME=value on rank RANK's --mpi-stats line
  awk -v r="mpi rank $2/" -v f="$1=" 'index($0, r) { for (i = 1; i <= NF; i++) if (index($i, f) == 1) print substr($i, length(f) + 1) }' "$3"
}

machine="$(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
library=$("${MPIRUN[@]}" -np 2 "$DFSCOPE" stats --mpi-stats "$OUT/mpi-probe.pfw" 2>&1 >/dev/null | sed -n 's/.*mpi 2 ranks (\(.*\)).*/\1/p')
{
  echo "Machine: $machine; MPI: $library"
  echo "Date: $(date -u +%Y-%m-%dT%H:%MZ); dfscope $("$DFSCOPE" --version | cut -d' ' -f2); runs per figure: $RUNS (median); load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  echo "| input | command | no MPI -j 1 s | -np 1 s | -np 2 s | speedup | efficiency | rank 0 / 1 read s | rank 0 / 1 combine s | bytes sent by rank 1 | load after |"
  echo "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
} > "$OUT/mpi.md"

COMMANDS=("stats" "analyze --preset dlio --views time_range,proc_name --compat dfanalyzer"
          "analyze --preset dlio --views time_range,proc_name" "overlap --preset dlio")
for input in v1 v2gz; do
  cat "$OUT/$input"/* > /dev/null # warm the page cache
  for cmd in "${COMMANDS[@]}"; do
    read -ra args <<< "$cmd"
    args+=(-j 1 -q --no-progress "$OUT/$input")
    read -r t0 t1 t2 <<< "$(measure "${args[@]}")"
    "${MPIRUN[@]}" -np 2 "$DFSCOPE" "${args[@]}" --mpi-stats 2>"$OUT/mpi-stats.txt" >/dev/null || true
    printf '| %s | `%s` | %.2f | %.2f | %.2f | %.2f | %.2f | %s / %s | %s / %s | %s | %s |\n' "$input" "$cmd" \
      "$t0" "$t1" "$t2" "$(echo "$t1 / $t2" | bc -l)" "$(echo "$t1 / $t2 / 2" | bc -l)" \
      "$(field read_s 0 "$OUT/mpi-stats.txt")" "$(field read_s 1 "$OUT/mpi-stats.txt")" \
      "$(field combine_s 0 "$OUT/mpi-stats.txt")" "$(field combine_s 1 "$OUT/mpi-stats.txt")" \
      "$(numfmt --to=si "$(field sent 1 "$OUT/mpi-stats.txt")")B" "$(cut -d' ' -f1 /proc/loadavg)" >> "$OUT/mpi.md"
  done
done
rm -f "$OUT/mpi-probe.pfw" "$OUT/mpi-stats.txt"
cat "$OUT/mpi.md"

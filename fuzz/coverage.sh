#!/usr/bin/env bash
# coverage.sh CORPUS OUT [TARGET...] - the lines of the library each fuzz target's corpus reaches:
# builds the targets with clang's source-based coverage (OUT/build, no sanitizers), replays
# CORPUS/TARGET (and CORPUS/TARGET.seeds) once, and writes OUT/TARGET.txt (llvm-cov report of the
# files that target exercises) and one summary line per target on stdout.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
corpus=$(cd "${1:?usage: coverage.sh CORPUS OUT [TARGET...]}" && pwd)
out=${2:?out}
shift 2
targets=${*:-lines chrome gzip dasf predicate preset cli timeline}
mkdir -p "$out"
out=$(cd "$out" && pwd)
CC=clang cmake -S "$here/.." -B "$out/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDFS_FUZZ=ON \
  -DDFS_FUZZ_COVERAGE=ON -DBUILD_TESTING=OFF -DDFS_WERROR=OFF >/dev/null
cmake --build "$out/build" -j 2 --target $(for t in $targets; do echo "fuzz_$t"; done) >/dev/null
src=$here/../src
files() { # the library files a target is about
  case $1 in
    lines) echo "$src/parse/framer.c $src/parse/record*.c $src/parse/json.c" ;;
    chrome) echo "$src/parse/framer.c $src/parse/record*.c $src/parse/json.c" ;;
    gzip) echo "$src/read/gzip.c" ;;
    dasf) echo "$src/parse/dasf.c" ;;
    predicate) echo "$src/analyze/common/predicate.c" ;;
    preset) echo "$src/analyze/common/preset*.c" ;;
    cli) echo "$src/cli/*.c" ;;
    timeline) echo "$src/analyze/timeline/*.c $src/output/timeline_*.c" ;;
  esac
}
for t in $targets; do
  dirs=$corpus/$t
  [ -d "$corpus/$t.seeds" ] && dirs="$dirs $corpus/$t.seeds"
  mkdir -p "$out/$t.work"
  (cd "$out/$t.work" && LLVM_PROFILE_FILE="$out/$t.profraw" "$out/build/fuzz_$t" -runs=0 \
     -close_fd_mask=3 $dirs >/dev/null 2>&1) || true
  llvm-profdata merge -sparse "$out/$t.profraw" -o "$out/$t.profdata"
  # shellcheck disable=SC2046
  llvm-cov report "$out/build/fuzz_$t" -instr-profile="$out/$t.profdata" $(files "$t") > "$out/$t.txt"
  echo "$t: $(tail -1 "$out/$t.txt" | awk '{print "regions " $4 ", functions " $7 ", lines " $10}')"
done

#!/usr/bin/env bash
# bench/python.sh BUILD - the Python package's events() against `dfscope stats` and against
# pandas.read_json(lines=True) (docs/PERFORMANCE.md, "Python"). Run by `make bench`, not in CI.
#
# Input: the generated DFTracer v1 run of bench/run.sh (bench/out/v1, SIZE, default 2G) or, with
# PY_DIR=DIR, any directory of .pfw files. For -j JOBS (default 2): median of RUNS runs of
#   stats     dfscope stats -j JOBS DIR
#   events    dfscope.open(DIR, jobs=JOBS).events()  (ts, dur, pid, tid, name, cat)
#   read_json pandas.read_json(lines=True) of the first PANDAS_FILES files (default 1; pandas
#             holds every record as Python objects, about 10x the text in memory), with the
#             framing "[" and "]" lines removed, against events() of the same files.
# The Python calls are timed inside the interpreter (its start and `import pandas` left out);
# peak RSS of each process, and the bytes of the columns events() returns.
set -euo pipefail
BUILD=$(readlink -f "${1:?usage: bench/python.sh BUILD}")
cd "$(dirname "$0")"
SIZE=${SIZE:-2G}
RUNS=${RUNS:-3}
export JOBS=${JOBS:-2}
PANDAS_FILES=${PANDAS_FILES:-1}
DIR=${PY_DIR:-out/v1}
PY=/usr/bin/python3
export PYTHONPATH=$BUILD/python
if [ -z "${PY_DIR:-}" ] && [ ! -f "out/v1.done-$SIZE" ]; then
  rm -rf out/v1 && mkdir -p out/v1
  "$BUILD/dfscope" gen -q -o out/v1 --ranks 16 --size "$SIZE" --seed 7 --format v1
  touch "out/v1.done-$SIZE"
fi
mkdir -p out/python
measure() { # label command... -> "label seconds peak_kib"
  local label=$1; shift
  for _ in $(seq "$RUNS"); do
    /usr/bin/time -f '%e %M' -o out/python/time "$@" >/dev/null 2>&1
    cat out/python/time
  done | sort -n | awk -v l="$label" '{t[NR]=$1; m[NR]=$2} END {i=int((NR+1)/2); print l, t[i], m[i]}'
}
# timed LABEL CODE FILES...: "LABEL seconds peak_kib" of CODE (over `files`), timed in-process
timed() {
  local label=$1 code=$2; shift 2
  for _ in $(seq "$RUNS"); do
    $PY -c "import os, resource, sys, time
import dfscope, pandas
files = sys.argv[1:]
t = time.perf_counter()
$code
print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)" "$@"
  done | sort -n | awk -v l="$label" '{t[NR]=$1; m[NR]=$2} END {i=int((NR+1)/2); printf "%s %.3f %d\n", l, t[i], m[i]}'
}
events='df = dfscope.open(files, jobs=int(os.environ["JOBS"])).events()'
mapfile -t files < <(find "$DIR" -name '*.pfw' | sort)
bytes=$(cat "${files[@]}" | wc -c)
head_files=("${files[@]:0:$PANDAS_FILES}")
head_bytes=$(cat "${head_files[@]}" | wc -c)
for f in "${head_files[@]}"; do grep -v '^[][]$' "$f"; done > out/python/head.jsonl
cols=$($PY -c 'import os, sys, dfscope
print(dfscope.open(sys.argv[1:], jobs=int(os.environ["JOBS"])).events().memory_usage(index=False).sum())' "${files[@]}")
{
  echo "input: $DIR, ${#files[@]} files, $bytes bytes; -j $JOBS; median of $RUNS runs"
  echo "columns returned by events(): $cols bytes"
  measure stats "$BUILD/dfscope" stats -j "$JOBS" --no-progress "${files[@]}"
  timed events "$events" "${files[@]}"
  echo "pandas on ${#head_files[@]} file(s), $head_bytes bytes:"
  timed events_head "$events" "${head_files[@]}"
  RUNS=1 timed read_json 'pandas.read_json(files[0], lines=True)' out/python/head.jsonl
} | tee out/python/results.txt
rm -f out/python/head.jsonl

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
#             framing "[" line removed, against events() of the same files.
# Peak RSS of each, and the bytes of the columns events() returns.
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
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
measure() { # label command... -> "label seconds peak_kib"
  local label=$1; shift
  for _ in $(seq "$RUNS"); do
    /usr/bin/time -f '%e %M' -o out/python/time "$@" >/dev/null 2>&1
    cat out/python/time
  done | sort -n | awk -v l="$label" '{t[NR]=$1; m[NR]=$2} END {i=int((NR+1)/2); print l, t[i], m[i]}'
}
events_py='import os, sys, dfscope; df = dfscope.open(sys.argv[1:], jobs=int(os.environ["JOBS"])).events(); print(df.memory_usage(index=False).sum())'
mapfile -t files < <(find "$DIR" -name '*.pfw' | sort)
bytes=$(cat "${files[@]}" | wc -c)
head_files=("${files[@]:0:$PANDAS_FILES}")
head_bytes=$(cat "${head_files[@]}" | wc -c)
for f in "${head_files[@]}"; do grep -v '^\[$' "$f"; done > out/python/head.jsonl
cols=$($PY -c "$events_py" "${files[@]}" | tail -1)
{
  echo "input: $DIR, ${#files[@]} files, $bytes bytes; -j $JOBS; median of $RUNS runs"
  echo "columns returned by events(): $cols bytes"
  measure stats "$BUILD/dfscope" stats -j "$JOBS" --no-progress "${files[@]}"
  measure events $PY -c "$events_py" "${files[@]}"
  echo "pandas on ${#head_files[@]} file(s), $head_bytes bytes:"
  measure events_head $PY -c "$events_py" "${head_files[@]}"
  RUNS=1 measure read_json $PY -c 'import sys, pandas; pandas.read_json(sys.argv[1], lines=True)' out/python/head.jsonl
} | tee out/python/results.txt
rm -f out/python/head.jsonl

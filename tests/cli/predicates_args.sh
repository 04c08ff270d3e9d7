#!/usr/bin/env bash
# predicates_args.sh DFSCOPE TRACES - event arguments (args.KEY) in the commands' predicates:
# overlap's classes, a preset's layers and derived metrics in analyze, steps' and timeline's
# concepts select by argument, with exact numbers; where an event is classified after reading
# (its file name defined later in the trace, a B/E pair, a file's kind known at the end, pieces
# read by other MPI ranks) the answer is the one of an event classified at once, at -j 1 and 2;
# the bounds on argument tests say so and exit 2. The corpus is not needed.
set -u
DFSCOPE=$1
. "$(dirname "$0")/testlib.bash"
CMP="$(dirname "$DFSCOPE")/dfs_jsoncmp"

# Three reads: stream 3 on /data/f1, stream 7 on /data/f1, stream 7 on /data/f2. In late.pfw the
# file table comes after the reads (the classification waits for it); in early.pfw before.
reads='{"id":3,"name":"read","cat":"POSIX","pid":7,"tid":7,"ts":1000000,"dur":50,"ph":"X","args":{"hhash":11,"fhash":22,"ret":4096,"stream":3}}
{"id":4,"name":"read","cat":"POSIX","pid":7,"tid":8,"ts":1000100,"dur":30,"ph":"X","args":{"hhash":11,"fhash":22,"ret":4096,"stream":7,"queue":"hi"}}
{"id":5,"name":"read","cat":"POSIX","pid":7,"tid":8,"ts":1000200,"dur":20,"ph":"X","args":{"hhash":11,"fhash":23,"ret":100,"stream":"7","queue":"lo"}}'
files='{"id":2,"name":"FH","cat":"dftracer","pid":7,"tid":7,"ph":"M","args":{"name":"/data/f1","value":22}}
{"id":6,"name":"FH","cat":"dftracer","pid":7,"tid":7,"ph":"M","args":{"name":"/data/f2","value":23}}'
host='{"id":1,"name":"HH","cat":"dftracer","pid":7,"tid":7,"ph":"M","args":{"name":"node1","value":11}}'
printf '[\n%s\n%s\n%s\n]\n' "$host" "$reads" "$files" >"$T/late.pfw"
printf '[\n%s\n%s\n%s\n]\n' "$host" "$files" "$reads" >"$T/early.pfw"

# --- overlap: a class by argument and file name ------------------------------------------------
cls='x=args.stream == 7 & file_name.str.contains("f1")'
for j in 1 2; do
  for f in early late; do
    code 0 "overlap -j $j, $f file table: a class by argument" \
      "$DFSCOPE" overlap -j "$j" --preset posix --class "$cls" --format json "$T/$f.pfw"
    check "overlap -j $j, $f: the class holds the one stream-7 read of f1 (30 us)" \
      /usr/bin/python3 -c "import json,sys; d=json.load(open('$T/out'))['summary']; sys.exit(0 if d['x_events']==1 and d['x_sum_s']==3e-05 else 1)"
  done
done
"$DFSCOPE" overlap --preset posix --class "$cls" "$T/late.pfw" >"$T/table" 2>&1
check "overlap's table: the class's time is 30 us" grep -Eq '^  x +30\.000 us' "$T/table"
code 0 "overlap: a string argument and a numeric string" \
  "$DFSCOPE" overlap --preset posix --class 'lo=args.queue == "lo" & args.stream >= 7' "$T/late.pfw"
check "overlap: the numeric string '7' compares as 7 (20 us)" grep -Eq '^  lo +20\.000 us' "$T/out"

# --- analyze: layers and derived metrics by argument ---------------------------------------------
cat >"$T/p.yaml" <<'YAML'
base: posix
name: byargs
time_boundary: hot
layers:
  - name: hot
    predicate: 'args.stream == 7'
    derived:
      - {name: f1, predicate: 'file_name.str.contains("f1")'}
      - {name: hi, predicate: 'args.queue == "hi"'}
  - name: cold
    predicate: 'args.stream < 7'
YAML
layer_counts() { # FILE: "hot=N cold=N" from analyze's JSON
  /usr/bin/python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rows = {}
def walk(x):
    if isinstance(x, dict):
        if "layer" in x and "count" in x:
            rows.setdefault(x["layer"], x["count"])
        for v in x.values():
            walk(v)
    elif isinstance(x, list):
        for v in x:
            walk(v)
walk(d)
print(" ".join(f"{k}={rows[k]}" for k in sorted(rows)))
PY
}
for j in 1 2; do
  code 0 "analyze -j $j: a preset whose layers read arguments (file table late)" \
    "$DFSCOPE" analyze -j "$j" --preset "$T/p.yaml" --format json "$T/late.pfw"
  cp "$T/out" "$T/late-$j.json"
  "$DFSCOPE" analyze -j "$j" --preset "$T/p.yaml" --format json "$T/early.pfw" >"$T/early-$j.json" 2>/dev/null
  check "analyze -j $j: the same JSON with the file table early or late" \
    "$CMP" -i flushes -i second_pass -i second_pass_reason "$T/early-$j.json" "$T/late-$j.json"
done
"$DFSCOPE" analyze --preset "$T/p.yaml" "$T/late.pfw" >"$T/table" 2>&1
check "analyze: layer hot counts the two stream-7 reads" grep -Eq '^  hot Count +2$' "$T/table"
check "analyze: layer cold counts the stream-3 read" grep -Eq '^  cold Count +1$' "$T/table"
check "analyze: the run is not 'left out'" bash -c "! grep -q 'fall in no layer' '$T/table'"
code 0 "analyze: CSV with the derived metrics" "$DFSCOPE" analyze --preset "$T/p.yaml" --format csv -o "$T/csv" "$T/late.pfw"
check "analyze: derived metrics by file name (1) and by a string argument (1) within layer hot" \
  /usr/bin/python3 -c "import csv,sys; r=list(csv.DictReader(open('$T/csv/time_range.csv')))[0]; sys.exit(0 if (r['hot_f1_count_sum'], r['hot_hi_count_sum']) == ('1', '1') else 1)"

# --- steps: concepts by argument -----------------------------------------------------------------
/usr/bin/python3 - >"$T/st.pfw" <<'PY'
import json
print("[")
t, i = 1000000, 0
for s in range(6):
    kind = "train" if s % 3 else "eval"
    for ev in ({"name": "step", "cat": "loop", "ts": t, "dur": 10000, "args": {"kind": kind, "step": s}},
               {"name": "fetch", "cat": "io", "ts": t, "dur": 2000 + 1000 * s, "args": {"stream": s % 2}},
               {"name": "gemm", "cat": "cpu", "ts": t + 6000, "dur": 3000, "args": {}}):
        print(json.dumps(dict(ev, id=i, pid=1, tid=1, ph="X")))
        i += 1
    t += 10000
print("]")
PY
for j in 1 2; do
  code 0 "steps -j $j: steps and data wait chosen by argument" \
    "$DFSCOPE" steps -j "$j" --step 'name == "step" & args.kind == "train"' \
    --data-wait 'name == "fetch" & args.stream == 1' --compute 'cat == "cpu"' "$T/st.pfw"
  check "steps -j $j: the four train steps" grep -q '^job: 1 run, 4 steps, step time 40.000 ms' "$T/out"
  check "steps -j $j: data wait of the stream-1 fetches in train steps (3 + 7 ms)" \
    grep -q 'data wait 10.000 ms (25.00 %)' "$T/out"
done

# --- timeline: a concept by argument, on complete events and on B/E pairs ------------------------
/usr/bin/python3 - "$T/st.pfw" >"$T/be.pfw" <<'PY'
import json, sys
lines = [l for l in open(sys.argv[1]) if l.startswith("{")]
print("[")
for l in lines:
    e = json.loads(l)
    if e["name"] == "fetch":  # as a B/E pair: the arguments ride on the B record
        b = dict(e, ph="B"); b.pop("dur")
        x = {"name": "fetch", "cat": "io", "pid": 1, "tid": 1, "ph": "E", "ts": e["ts"] + e["dur"]}
        print(json.dumps(b)); print(json.dumps(x))
    else:
        print(json.dumps(e))
print("]")
PY
for f in st be; do
  code 0 "timeline, $f: data wait by argument" \
    "$DFSCOPE" timeline --data-wait 'name == "fetch" & args.stream == 1' --format json -o "$T/$f.svg" "$T/$f.pfw"
  check "timeline, $f: the three stream-1 fetches are data wait" \
    /usr/bin/python3 -c "import json,sys; d=json.load(open('$T/out')); sys.exit(0 if d['spans']['data_wait']==3 else 1)"
done

# --- bounds and errors ---------------------------------------------------------------------------
many=$(/usr/bin/python3 -c "print(' | '.join(f'args.k == {i}' for i in range(33)))")
code 2 "overlap: 33 distinct argument tests are refused" "$DFSCOPE" overlap --preset posix --class "x=$many" "$T/late.pfw"
check "the refusal names the class and the bound" grep -q 'class x.*too many distinct argument tests.*at most 32' "$T/err"
check "nothing on stdout" [ ! -s "$T/out" ]
code 2 "steps: a bad argument test names the concept" "$DFSCOPE" steps --compute 'args.x >= "a"' "$T/st.pfw"
check "steps: the concept and the reason" grep -q "compute_host.*compare.*'==' or '!='" "$T/err"

# --- under MPI: pieces read by other ranks, their events waiting for a file table ----------------
if command -v mpirun >/dev/null && [ -x "$CMP" ]; then
  MPIRUN=(mpirun)
  if mpirun --version 2>&1 | grep -q "Open MPI"; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
    MPIRUN+=(--oversubscribe)
  fi
  export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
  # Two files on two ranks: a.pfw's reads of file 77 wait for its definition, which is in b.pfw,
  # read by the other rank; they travel to the rank that finishes with their answered tests.
  mkdir -p "$T/two"
  /usr/bin/python3 - "$T/two" <<'PY'
import json, sys
def write(path, pid, fhash, streams, table):
    with open(path, "w") as f:
        f.write("[\n")
        f.write(json.dumps({"id": 0, "name": "HH", "cat": "dftracer", "pid": pid, "tid": pid, "ph": "M",
                            "args": {"name": "node1", "value": 11}}) + "\n")
        for i in range(200):
            f.write(json.dumps({"id": i + 1, "name": "read", "cat": "POSIX", "pid": pid, "tid": pid + i % 3,
                                "ts": 1000000 + 100 * i, "dur": 40 + i % 7, "ph": "X",
                                "args": {"hhash": 11, "fhash": fhash(i), "ret": 4096, "stream": i % streams}}) + "\n")
        for name, value in table:
            f.write(json.dumps({"id": 1000 + value, "name": "FH", "cat": "dftracer", "pid": pid, "tid": pid,
                                "ph": "M", "args": {"name": name, "value": value}}) + "\n")
        f.write("]\n")
write(sys.argv[1] + "/a.pfw", 7, lambda i: 77 if i % 2 else 22, 5, [("/data/f1", 22)])
write(sys.argv[1] + "/b.pfw", 8, lambda i: 77, 3, [("/data/f7", 77)])
PY
  cat >"$T/two.yaml" <<'YAML'
base: posix
name: two
time_boundary: x
layers:
  - name: x
    predicate: 'args.stream >= 3 & file_name.str.contains("f7")'
  - name: y
    predicate: 'args.stream == 2'
YAML
  mpirun_same() { # DESCRIPTION ARGS...: 2 ranks give the single process's JSON
    local what=$1; shift
    "$DFSCOPE" "$@" >"$T/one.json" 2>/dev/null
    DFSCOPE_MPI_PIECE=4k timeout 120 "${MPIRUN[@]}" -np 2 "$DFSCOPE" "$@" >"$T/many.json" 2>"$T/many.err"
    check "$what: 2 MPI ranks give one process's JSON" \
      "$CMP" -i flushes -i second_pass -i second_pass_reason "$T/one.json" "$T/many.json"
  }
  twocls=(--class 'x=args.stream >= 3 & file_name.str.contains("f7")' --class 'y=args.stream == 2')
  "$DFSCOPE" overlap --format json --preset posix "${twocls[@]}" "$T/two" >"$T/one.json" 2>/dev/null
  check "two files: the classes select reads (the checks below compare something)" \
    /usr/bin/python3 -c "import json,sys; d=json.load(open('$T/one.json'))['summary']; sys.exit(0 if (d['x_events'], d['y_events'])==(40, 106) else 1)"
  mpirun_same "overlap" overlap --format json --preset posix "${twocls[@]}" "$T/two"
  mpirun_same "analyze" analyze --format json --preset "$T/two.yaml" "$T/two"
  /usr/bin/python3 - >"$T/steps.pfw" <<'PY'
import json
print("[")
t, i = 1000000, 0
for s in range(150):  # about 40 kB: a run cut in pieces of 4 kB over two ranks
    kind = "train" if s % 3 else "eval"
    for ev in ({"name": "step", "cat": "loop", "ts": t, "dur": 10000, "args": {"kind": kind, "step": s}},
               {"name": "fetch", "cat": "io", "ts": t, "dur": 2000 + 100 * (s % 9), "args": {"stream": s % 2}},
               {"name": "gemm", "cat": "cpu", "ts": t + 6000, "dur": 3000, "args": {}}):
        print(json.dumps(dict(ev, id=i, pid=1, tid=1, ph="X")))
        i += 1
    t += 10000
print("]")
PY
  mpirun_same "steps" steps --format json --step 'name == "step" & args.kind == "train"' \
    --data-wait 'name == "fetch" & args.stream == 1' --compute 'cat == "cpu"' "$T/steps.pfw"
  check "steps: the 100 train steps" grep -q '"steps": 100' "$T/one.json"
else
  echo "(MPI part skipped: mpirun or dfs_jsoncmp not found)"
fi

echo "predicates_args: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

#!/usr/bin/env bash
# merge.sh DFSCOPE TRACES - end-to-end tests of `dfscope merge`. The event-level checks are in
# tests/unit/test_merge.c and tests/unit/test_merge_corpus.c; here: options, exit codes, the
# files written (atomic, gzip, never over an input) and strict JSON as Python reads it.
set -u
DFSCOPE=$1
TRACES=$2
. "$(dirname "$0")/testlib.bash"
C=$TRACES/composer
R0=$C/ep0-ba5-rank0.synthetic.json
R1=$C/ep0-ba5-rank1.synthetic.json
REF=$C/merged_trace.from_synthetic.json

# --- help and usage errors (no corpus needed) ----------------------------------------------------
code 0 "merge --help" "$DFSCOPE" merge --help
check "help names the options" grep -q -- '--compat composer' "$T/out"
check "main help lists merge" sh -c "'$DFSCOPE' help | grep -q '^  merge'"
echo '[{"name":"a","ph":"X","ts":1,"dur":1,"pid":1,"tid":1}]' > "$T/a.json"
code 2 "no input" "$DFSCOPE" merge -o "$T/o.json"
code 2 "no output" "$DFSCOPE" merge "$T/a.json"
check "missing output explained" grep -q -- '-o OUT' "$T/err"
code 2 "unknown compat" "$DFSCOPE" merge --compat chrome -o "$T/o.json" "$T/a.json"
code 2 "memory too small" "$DFSCOPE" merge --memory 1k -o "$T/o.json" "$T/a.json"
check "memory explained" grep -q '64k' "$T/err"
code 2 "bad memory" "$DFSCOPE" merge --memory lots -o "$T/o.json" "$T/a.json"
code 2 "bad tmpdir" "$DFSCOPE" merge --tmpdir "$T/nowhere" -o "$T/o.json" "$T/a.json"
code 2 "bad format" "$DFSCOPE" merge --format xml -o "$T/o.json" "$T/a.json"
code 2 "missing input" "$DFSCOPE" merge -o "$T/o.json" "$T/does-not-exist.json"
check "missing input named" grep -q 'does-not-exist' "$T/err"
cp "$T/a.json" "$T/keep.json"
code 2 "output over an input" "$DFSCOPE" merge -o "$T/a.json" "$T/a.json"
check "the input is untouched" cmp -s "$T/a.json" "$T/keep.json"
code 4 "unwritable output" "$DFSCOPE" merge -q -o "$T/no/such/dir/o.json" "$T/a.json"
code 0 "one small file" "$DFSCOPE" merge -q -o "$T/o.json" "$T/a.json"
check "strict JSON" python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$T/o.json"
# A file without an absolute clock (DASF: monotonic time) is merged unaligned, with a warning on
# stderr (not with -q) and in the report either way.
"$DFSCOPE" gen --format dasf --ranks 1 --events 20 -o "$T/dasf" >/dev/null 2>&1
code 0 "a relative-time file" "$DFSCOPE" merge -o "$T/o2.json" "$T/a.json" "$T/dasf"
check "the warning names the file" grep -q 'dasf-TracePlugin-node00.msgpack: times are relative' "$T/err"
code 0 "a relative-time file, quiet" "$DFSCOPE" merge -q -o "$T/o2.json" "$T/a.json" "$T/dasf"
check "the report keeps the warning" grep -q 'relative to an unknown start' "$T/out"
check "-q keeps warnings off stderr" sh -c "! grep -q 'warning' '$T/err'"

if [ ! -f "$R0" ]; then
  echo "SKIP: corpus not found at $TRACES" >&2
  [ "$fail" = 0 ] || exit 1
  exit 77
fi

# --- Composer: byte for byte, and the default mode -------------------------------------------
code 0 "compat composer" "$DFSCOPE" merge --compat composer -o "$T/compat.json" "$R0" "$R1"
check "compat reproduces Composer's merge byte for byte" cmp -s "$T/compat.json" "$REF"
check "summary names the mode" grep -q '^mode: composer' "$T/out"
check "no temporary file left" sh -c "[ \$(ls '$T' | grep -c 'tmp') = 0 ]"

code 0 "default merge" "$DFSCOPE" merge -o "$T/m.json" "$R0" "$R1"
check "summary counts" grep -q '^total: 126 events read, 124 written, 2 dropped, 10 metadata records inserted' "$T/out"
sorted_py='
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"]
meta = [e for e in ev if e["ph"] == "M"]
rest = [e for e in ev if e["ph"] != "M"]
assert ev[:len(meta)] == meta, "metadata first"
ts = [e["ts"] for e in rest]
assert ts == sorted(ts), "sorted by ts"
pids = sorted(e["pid"] for e in ev)
print(len(ev), pids.count(0), pids.count(1), d["displayTimeUnit"])
'
check "valid, sorted, 134 events, 67/67" sh -c "[ \"\$(python3 -c '$sorted_py' '$T/m.json')\" = '134 67 67 ms' ]"
code 0 "stats reads the merge" "$DFSCOPE" stats --json "$T/m.json"
check "stats: 134 events, no problem at all" python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['events_total']==134 and d['unparsable_total']==0 and d['problems']=={}" "$T/out"

# --- gzip, the JSON summary, spills, threads ---------------------------------------------------
code 0 "gzip output" "$DFSCOPE" merge -q --format json -o "$T/m.json.gz" "$R0" "$R1"
check "gzip is valid" gzip -t "$T/m.json.gz"
check "gzip holds the same trace" sh -c "zcat '$T/m.json.gz' | cmp -s - '$T/m.json'"
check "JSON summary schema" python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['schema']=='dfscope-merge/1' and d['events_out']==124 and d['files'][1]['clock_shift_ns']==-1400000" "$T/out"
code 0 "stats reads the gzip merge" "$DFSCOPE" stats "$T/m.json.gz"

K=$TRACES/hta/critical_path/alexnet
code 0 "spilling merge" "$DFSCOPE" merge --memory 64k --tmpdir "$T" -o "$T/s.json" "$R0" "$K" "$R1"
check "spills are reported" grep -q '^spilled: ' "$T/out"
code 0 "in-memory merge" "$DFSCOPE" merge -o "$T/s2.json" "$R0" "$K" "$R1"
check "spilled and in-memory outputs are identical" cmp -s "$T/s.json" "$T/s2.json"
check "no spill file left" sh -c "[ \$(ls '$T' | grep -c dfscope-merge) = 0 ]"
code 0 "one thread" "$DFSCOPE" merge -q -j 1 -o "$T/s3.json" "$R0" "$K" "$R1"
check "-j 1 and -j 2 identical" cmp -s "$T/s.json" "$T/s3.json"

# --- damaged input ------------------------------------------------------------------------------
head -c 5000 "$R0" > "$T/cut.json"
code 1 "truncated input" "$DFSCOPE" merge -o "$T/cut-out.json" "$T/cut.json" "$R1"
check "damage reported" grep -q 'incomplete_file\|bad_line\|truncated' "$T/err"
check "merge of damaged input is valid JSON" python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$T/cut-out.json"
code 3 "strict" "$DFSCOPE" merge --strict -q -o "$T/cut-out2.json" "$T/cut.json"
code 1 "compat on truncated input" "$DFSCOPE" merge --compat composer -o "$T/cut-compat.json" "$T/cut.json" "$R1"
check "compat output of damaged input is valid JSON" python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$T/cut-compat.json"

echo "merge.sh: $pass passed, $fail failed"
[ "$fail" = 0 ]

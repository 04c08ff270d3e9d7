#!/usr/bin/env bash
# tasks.sh DFSCOPE TRACES - end-to-end tests of `dfscope tasks` (DASF task analyses) and of
# `dfscope gen --format dasf`. The exact numbers are checked by tests/unit/test_dasf_tasks_corpus.c.
set -u
DFSCOPE=$1
TRACES=$2
. "$(dirname "$0")/testlib.bash"

# --- help and usage errors -----------------------------------------------------------------------
code 0 "tasks --help" "$DFSCOPE" tasks --help
check "help names the options" grep -q -- '--compat dasf' "$T/out"
code 0 "help tasks" "$DFSCOPE" help tasks
check "main help lists tasks" sh -c "'$DFSCOPE' help | grep -q '^  tasks'"
code 2 "no input" "$DFSCOPE" tasks
code 2 "unknown compat" "$DFSCOPE" tasks --compat pandas x
check "unknown compat explained" grep -q 'compat' "$T/err"
code 2 "unknown format" "$DFSCOPE" tasks --format xml x
code 2 "unknown analysis" "$DFSCOPE" tasks -a nonsense x
check "unknown analysis named" grep -q 'nonsense' "$T/err"
code 2 "bad --head" "$DFSCOPE" tasks --head -1 x
code 2 "bad --bucket" "$DFSCOPE" tasks --bucket 0 x
code 2 "missing input" "$DFSCOPE" tasks "$T/does-not-exist.msgpack"
check "missing input named" grep -q 'does-not-exist' "$T/err"

# --- a generated database ------------------------------------------------------------------------
code 0 "gen --format dasf" "$DFSCOPE" gen --format dasf -o "$T/db" --ranks 2 --events 400 -q
check "gen wrote two files per host" [ "$(ls "$T/db" | wc -l)" = 4 ]
check "gen names the plugin files" [ -f "$T/db/dasf-TracePlugin-node00.msgpack" ]
check "gen names the monitor files" [ -f "$T/db/dasf-ResourceMonitor-node01.msgpack" ]
code 2 "gen dasf refuses gzip" "$DFSCOPE" gen --format dasf -o "$T/dbz" --events 10 --gzip
"$DFSCOPE" gen --format dasf -o "$T/db2" --ranks 2 --events 400 -q
check "gen is deterministic" diff -r "$T/db" "$T/db2"

code 0 "default mode" "$DFSCOPE" tasks -q "$T/db"
check "first line names the default mode" sh -c "head -1 '$T/out' | grep -q '^mode: default'"
for banner in "Function bottleneck" "Task bottleneck" "Task balance" "Critical path"; do
  check "default prints $banner" grep -q "^====================$banner====================\$" "$T/out"
done
check "report ends like DASF's" sh -c "tail -1 '$T/out' | grep -qx 'Analyses finished!'"
check "critical path over the 8 stages" grep -q 'over 8 of' "$T/out"

# An empty -o names no directory (fuzz_cli: the directory walk read past a one-byte name).
code 4 "tasks -o ''" "$DFSCOPE" tasks -q -o '' "$T/db"
check "an empty -o is said" grep -q 'cannot create a directory with an empty name' "$T/err"
code 0 "compatible mode" "$DFSCOPE" tasks --compat dasf -q -o "$T/csv" "$T/db"
check "first line names the compatible mode" sh -c "head -1 '$T/out' | grep -q '^mode: compatible'"
check "compat has no critical path by default" sh -c "! grep -q 'Critical path' '$T/out'"
check "head 30 rows" [ "$(sed -n '/Task bottleneck/,/^=*$/p' "$T/out" | wc -l)" = 33 ]
for f in function_bottleneck task_bottleneck task_balance; do
  check "$f.csv written" [ -s "$T/csv/$f.csv" ]
done
check "function CSV header is DASF's" sh -c "head -1 '$T/csv/function_bottleneck.csv' | grep -qx ',Host,GPU,Function,Duration (s),Percentage of total time (%),Mean GPU Utilization (%),Mean GPU Memory Used (GB),Mean Data Size (MB),Mean Throughput (MB/s),Num Tasks (chunks),Mean Task time (s)'"
check "task CSV has every task" [ "$(($(wc -l < "$T/csv/task_bottleneck.csv") - 1))" = 800 ]
check "no temporary files left" sh -c "[ \$(ls '$T/csv' | wc -l) = 3 ]"

"$DFSCOPE" tasks -q -j 1 "$T/db" > "$T/j1"
"$DFSCOPE" tasks -q -j 2 "$T/db" > "$T/j2"
check "-j 1 and -j 2 identical" cmp -s "$T/j1" "$T/j2"

code 0 "analyses as DASF's nargs" "$DFSCOPE" tasks -q -a task_balance function_bottleneck "$T/db"
check "-a keeps DASF's order" sh -c "grep '^====================[A-Z]' '$T/out' | head -1 | grep -q Function"
check "-a selects" sh -c "! grep -q 'Task bottleneck' '$T/out'"
code 0 "-a with commas and -d" "$DFSCOPE" tasks -q -a critical_path,task_balance -d "$T/db"
check "-a critical_path" grep -q 'Critical path' "$T/out"

code 0 "json" "$DFSCOPE" tasks -q --format json --head 3 "$T/db"
check "json parses" python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['mode']=='default' and len(d['tables']['task_bottleneck']['rows'])==3 and d['tables']['task_bottleneck']['rows_total']==800" "$T/out"

code 0 "graphml" "$DFSCOPE" tasks -q -a critical_path --graph "$T/g.graphml" "$T/db"
check "graphml written" grep -q '<graphml' "$T/g.graphml"
check "graphml nodes" [ "$(grep -c '<node ' "$T/g.graphml")" -ge 800 ]
code 0 "dot" "$DFSCOPE" tasks -q -a critical_path --graph "$T/g.dot" "$T/db"
check "dot written" grep -q '^digraph dasf' "$T/g.dot"
code 2 "graph over an input refused" "$DFSCOPE" tasks -q --graph "$T/db/dasf-TracePlugin-node00.msgpack" "$T/db"
check "input kept" [ -s "$T/db/dasf-TracePlugin-node00.msgpack" ]
code 0 "fill seconds" "$DFSCOPE" tasks -q -a task_balance --fill-seconds --bucket 0.1 "$T/db"

# --- damage: a torn last record ---------------------------------------------------------------------
cp "$T/db/dasf-TracePlugin-node00.msgpack" "$T/torn.msgpack"
truncate -s -100 "$T/torn.msgpack"
code 1 "torn record: exit 1" "$DFSCOPE" tasks --compat dasf "$T/torn.msgpack"
check "torn record reported" grep -q 'torn_record' "$T/err"
check "torn record: tables still printed" grep -q 'Analyses finished!' "$T/out"
code 3 "torn record with --strict" "$DFSCOPE" tasks --strict -q "$T/torn.msgpack"

# --- the older text format ----------------------------------------------------------------------------
printf '%s\n' 'trace: {"name": "Dask task", "phase": "X", "timestamp": 1674000000.5, "process_id": "c096", "thread_id": "worker-c096-1", "data": {"key": "x"}, "duration": 0.25}' \
  'trace: {"name": "Waiting", "phase": "X", "timestamp": 1674000001.5, "process_id": "c096", "thread_id": "worker-c096-1", "data": {"key": "x"}, "duration": 0.5}' > "$T/legacy.log"
code 0 "legacy text" "$DFSCOPE" tasks -q "$T/legacy.log"
check "legacy says so" grep -q 'legacy DASF text format' "$T/out"
check "legacy per-name table" grep -q '====Event durations====' "$T/out"

# --- the corpus ---------------------------------------------------------------------------------------
D=$TRACES/dasf
if [ -f "$D/test_analysis_setUp_events.synthetic.msgpack" ]; then
  code 0 "tutorial pair" "$DFSCOPE" tasks --compat dasf -o "$T/tut" "$D/Tutorial_5_Profile-ResourceMonitor-c096.reconstructed.msgpack" "$D/Tutorial_5_Profile-TracePlugin-c096.reconstructed.msgpack"
  check "tutorial getGPUs row" grep -q '^0,c096,2,tGPUs-42237764-1836-4be8-ae62,0.050518035888671875,100.0,0,0.0,0.0,0.0,1,0.050518035888671875$' "$T/tut/function_bottleneck.csv"
  check "tutorial balance" sh -c "tail -1 '$T/tut/task_balance.csv' | grep -qx '0,0,16'"
  code 0 "monitor alone" "$DFSCOPE" tasks --compat dasf "$D/Tutorial_5_Profile-ResourceMonitor-c096.reconstructed.msgpack"
  check "monitor alone: no Compute said" grep -q 'no Compute events' "$T/out"
else
  echo "SKIP: DASF corpus not found at $D; corpus checks skipped" >&2
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

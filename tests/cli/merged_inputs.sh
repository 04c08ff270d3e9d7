#!/usr/bin/env bash
# merged_inputs.sh DFSCOPE TRACES - a merged trace given beside the traces it was made from
# (read/merges.h) is left out of every command that analyses one job, said in one line, and read
# again with --keep-merged; a near-merge (one event missing, one arg changed, one event added) is
# read like any other input. Recognised by content: the merge here is named like a rank.
set -u
DFSCOPE=$1
TRACES=$2
. "$(dirname "$0")/testlib.bash"

# Two ranks of a Chrome array trace and their merge: rank 1 shifted by -700 us (as Composer
# aligns ranks), numbers re-spelled (2.0 as 2), untimed sort-index records added, and the events
# of a "PyTorch Profiler (0)" thread dropped, as Composer's merger does.
python3 - "$T" <<'PY'
import json, os, sys
t = sys.argv[1]
def rank(r, shift=0):
    ev = [{"name": "process_name", "ph": "M", "ts": 1714000000000000 + shift, "pid": r, "tid": 7,
           "args": {"name": "Rank %d" % r}}]
    for i in range(40):
        ev.append({"name": "event/batch", "cat": "", "ph": "X", "ts": 1714000000000100 + 1000 * i + 300 * r + shift,
                   "dur": 900 - r, "pid": r, "tid": 7, "args": {"epoch": 0, "batch": i, "loss": 2.0 + r}})
    ev.append({"name": "junk", "ph": "X", "pid": r, "tid": "PyTorch Profiler (0)", "ts": 1714000000000000, "dur": 1})
    return ev
def write(path, ev, indent=None):
    with open(os.path.join(t, path), "w") as f:
        f.write("[\n" + ",\n".join((" " * (indent or 0)) + json.dumps(e) for e in ev) + "\n]\n")
merged = [{"name": "thread_sort_index", "ph": "M", "pid": 0, "tid": 7, "args": {"sort_index": 99999}}]
for r, shift in ((0, 0), (1, -700)):
    for e in rank(r, shift):
        if e["tid"] == "PyTorch Profiler (0)":
            continue
        if "loss" in e.get("args", {}):
            e["args"]["loss"] = int(e["args"]["loss"])
        merged.append(e)
os.makedirs(os.path.join(t, "job"))
write("job/rank0.json", rank(0))
write("job/rank1.json", rank(1))
write("job/rank2.json", merged, indent=4)  # the merge, named like a rank
for name, change in (("missing", lambda m: m.pop(5)), ("changed", lambda m: m[6]["args"].update(batch=99)),
                     ("added", lambda m: m.append(dict(m[7], ts=m[7]["ts"] + 1)))):
    d = os.path.join(t, name)
    os.makedirs(d)
    near = json.loads(json.dumps(merged))
    change(near)
    write(name + "/rank0.json", rank(0))
    write(name + "/rank1.json", rank(1))
    write(name + "/rank2.json", near, indent=4)
PY

for cmd in stats steps report; do
  code 0 "$cmd leaves the merge out" "$DFSCOPE" $cmd "$T/job"
  check "$cmd says which file and why, in one line" \
    test "$(grep -c "left out $T/job/rank2.json, a merge of the 2 inputs rank0.json, rank1.json (the same events, counted once); --keep-merged reads it too" "$T/err")" = 1
done
code 0 "stats --json" "$DFSCOPE" stats --json "$T/job"
check "two inputs are read, their events once" test "$(json_field "$T/out" "d['inputs'], d['events_total']")" = "(2, 84)"
code 0 "--keep-merged" "$DFSCOPE" stats --keep-merged --json "$T/job"
check "--keep-merged reads all three" test "$(json_field "$T/out" "d['inputs']")" = 3
check "--keep-merged says nothing of merges" test "$(grep -c 'left out' "$T/err")" = 0
code 0 "-q" "$DFSCOPE" stats -q "$T/job"
check "-q leaves it out in silence" test "$(grep -c 'left out' "$T/err")" = 0
check "-q still leaves it out" grep -q '^2 inputs' "$T/out"
code 0 "the merge with one source only" "$DFSCOPE" stats "$T/job/rank0.json" "$T/job/rank2.json"
check "is no merge of the inputs given" test "$(grep -c 'left out' "$T/err")" = 0
for near in missing changed added; do
  code 0 "near-merge ($near)" "$DFSCOPE" stats "$T/$near"
  check "a near-merge ($near) is read" grep -q '^3 inputs' "$T/out"
  check "a near-merge ($near) is not said left out" test "$(grep -c 'left out' "$T/err")" = 0
done

# The report lists what it left out: a line under the job, the JSON's job.left_out, and the page's
# input health, the name escaped for each (a hostile file name for the merge).
mkdir -p "$T/hostile"
cp "$T/job/rank0.json" "$T/job/rank1.json" "$T/hostile/"
evil='<img src=x onerror=alert(1)>&"q.json'
cp "$T/job/rank2.json" "$T/hostile/$evil"
code 0 "report leaves the hostile-named merge out" "$DFSCOPE" report -q "$T/hostile"
check "the report's table names it under the job" \
  grep -qF "left out: $T/hostile/$evil, a merge of the 2 inputs rank0.json, rank1.json (the same events, counted once); --keep-merged reads it too" "$T/out"
code 0 "report --format json" "$DFSCOPE" report -q --format json "$T/hostile"
check "the JSON's job.left_out holds its path and why" \
  test "$(json_field "$T/out" "[(x['path'].endswith('/' + '''$evil'''), x['why']) for x in d['job']['left_out']]")" = \
  "[(True, 'a merge of the 2 inputs rank0.json, rank1.json (the same events, counted once)')]"
code 0 "report -o page.html" "$DFSCOPE" report -q -o "$T/page.html" "$T/hostile"
check "the page says it in its input health, escaped" \
  grep -qF 'Left out: <code>'"$T"'/hostile/&lt;img src=x onerror=alert(1)&gt;&amp;&quot;q.json</code>, a merge of the 2 inputs' "$T/page.html"
check "the page holds no raw tag from the name" bash -c "! grep -qF '<img src=x' '$T/page.html'"
code 0 "report --keep-merged" "$DFSCOPE" report -q --format json --keep-merged "$T/hostile"
check "--keep-merged: nothing left out" test "$(json_field "$T/out" "d['job']['left_out']")" = "[]"

# The merge of generated traces by `dfscope merge`, and Composer's own merge in the corpus.
"$DFSCOPE" gen -q -o "$T/gen" --format chrome --ranks 2 --events 300 &&
  "$DFSCOPE" merge "$T/gen"/rank0.trace.json "$T/gen"/rank1.trace.json -o "$T/gen/all.json" >/dev/null
code 0 "a dfscope merge beside its inputs" "$DFSCOPE" stats "$T/gen"
check "is left out" grep -q "left out $T/gen/all.json, a merge of the 2 inputs rank0.trace.json, rank1.trace.json" "$T/err"
if [ -d "$TRACES/composer" ]; then
  code 0 "composer corpus" "$DFSCOPE" report "$TRACES/composer"
  check "Composer's merge is left out" grep -q "left out .*merged_trace.from_synthetic.json, a merge of the 2 inputs" "$T/err"
  check "the report counts 2 runs" grep -q '^job: 2 runs' "$T/out"
else
  echo "note: the corpus is absent; its Composer merge was not checked"
fi
echo "merged_inputs: $pass passed, $fail failed"
[ "$fail" = 0 ]

#!/usr/bin/env bash
# analyze.sh DFSCOPE TRACES - end-to-end tests of `dfscope analyze`: options, errors and exit
# codes, the three output formats, presets, and the README table on the corpus fixture.
set -u
DFSCOPE=$1
TRACES=$2
. "$(dirname "$0")/testlib.bash"

# --- a small generated trace (no corpus needed) ------------------------------------------------
"$DFSCOPE" gen -o "$T/gen" --format v1 --ranks 2 --size 2M --seed 3 >/dev/null 2>&1
G="$T/gen"

code 0 "analyze --help" "$DFSCOPE" analyze --help
check "help names --compat" grep -q -- '--compat' "$T/out"
code 0 "help analyze" "$DFSCOPE" help analyze
code 2 "no input" "$DFSCOPE" analyze
code 2 "bad --compat" "$DFSCOPE" analyze --compat g4 "$G"
check "bad --compat named" grep -q "g4" "$T/err"
code 2 "bad view" "$DFSCOPE" analyze --views time_range,bogus "$G"
check "bad view named" grep -q "bogus" "$T/err"
code 2 "bad granularity" "$DFSCOPE" analyze --granularity 5parsecs "$G"
code 2 "zero granularity" "$DFSCOPE" analyze --granularity 0 "$G"
code 2 "bad format" "$DFSCOPE" analyze --format xml "$G"
check "bad format named" grep -q "\-\-format is table, json or csv, not 'xml'" "$T/err"
code 2 "csv without -o" "$DFSCOPE" analyze --format csv "$G"
code 2 "unknown preset" "$DFSCOPE" analyze --preset nosuch "$G"
code 2 "missing input" "$DFSCOPE" analyze "$T/does-not-exist.pfw"
check "missing input named" grep -q "does-not-exist.pfw" "$T/err"
code 0 "--list-presets" "$DFSCOPE" analyze --list-presets
for p in posix dlio dlio-g2 ai auto; do check "list has $p" grep -q "^$p " "$T/out"; done
code 0 "--show-preset dlio" "$DFSCOPE" analyze --show-preset dlio
check "shown preset is YAML with layers" grep -q "^layers:" "$T/out"
code 2 "--show-preset unknown" "$DFSCOPE" analyze --show-preset nosuch

# a user preset with an error points at its line
printf 'base: dlio\nlayers:\n  - name: app\n    predicate: func_name ==\n' > "$T/bad.yaml"
code 2 "bad user preset" "$DFSCOPE" analyze --preset "$T/bad.yaml" "$G"
check "bad user preset: file and line" grep -q "bad.yaml:4" "$T/err"

# --timing: wall time, the part spent finishing (merging, views) and writing, peak RSS on stderr
code 0 "analyze --timing" "$DFSCOPE" analyze --timing "$G"
check "timing line" grep -Eq "^dfscope analyze: [0-9.]+ s wall \(finishing [0-9.]+, writing [0-9.]+\), peak RSS [0-9]+ MB" "$T/err"

# auto-detection is announced; table output has the layer breakdown
code 0 "analyze generated" "$DFSCOPE" analyze "$G"
check "preset auto-detected (dlio)" grep -q "preset dlio (auto-detected" "$T/err"
check "table has a layer breakdown" grep -q "Layer Breakdown" "$T/out"
check "table names the semantics" grep -q "semantics exact" "$T/out"

# JSON: schema, every requested view, rows match columns
code 0 "json" "$DFSCOPE" analyze --format json --views time_range,proc_name,file_name,host,pid,tid -o "$T/a.json" "$G"
check "json schema" [ "$(json_field "$T/a.json" "d['schema']")" = "dfscope-analyze/1" ]
check "json views" [ "$(json_field "$T/a.json" "list(d['views'])")" = "['time_range', 'proc_name', 'file_name', 'host_name', 'proc_id', 'thread_id']" ]
check "json raw_stats" [ "$(json_field "$T/a.json" "d['raw_stats']['time_resolution_ns']")" = "1000000" ]
check "json rows have every column" [ "$(json_field "$T/a.json" "all(len(r) == len(v['columns']) for v in d['views'].values() for r in v['rows'])")" = "True" ]
check "json layer fields" [ "$(json_field "$T/a.json" "sorted(d['views']['time_range']['summary']['layers']['posix'])[:4]")" = "['busy_process_time_s', 'bytes_per_process_s', 'count', 'display']" ]
check "same counts in time and process views" [ "$(json_field "$T/a.json" "all(d['views']['time_range']['summary']['layers'][l]['count'] == d['views']['proc_name']['summary']['layers'][l]['count'] for l in d['views']['time_range']['summary']['layers'])")" = "True" ]

# -j does not change the answer
"$DFSCOPE" analyze -q --format json -j 1 --compat dfanalyzer --views time_range,proc_name "$G" > "$T/j1.json"
"$DFSCOPE" analyze -q --format json -j 3 --chunk 64k --compat dfanalyzer --views time_range,proc_name "$G" > "$T/j3.json"
check "same JSON at -j1 and -j3 with 64 KiB pieces" cmp -s "$T/j1.json" "$T/j3.json"
# the default semantics and every view: a thread cut between workers has cells in several of them
ALL=(analyze -q --format json --no-stream --views time_range,proc_name,file_name,host,pid,tid "$G")
"$DFSCOPE" "${ALL[@]}" -j 1 > "$T/j1x.json"
"$DFSCOPE" "${ALL[@]}" -j 3 --chunk 64k > "$T/j3x.json"
check "exact, every view: same JSON at -j1 and -j3 with 64 KiB pieces" cmp -s "$T/j1x.json" "$T/j3x.json"

# CSV: one file per view plus its summary, headers prefixed by layer
code 0 "csv" "$DFSCOPE" analyze -q --format csv -o "$T/csv" --views time_range,proc_name "$G"
check "csv files" [ -f "$T/csv/time_range.csv" ] && [ -f "$T/csv/proc_name.csv" ] && [ -f "$T/csv/time_range_summary.csv" ]
check "csv header" grep -q "^time_range,app_count_sum," "$T/csv/time_range.csv"
check "csv summary header" grep -q "^layer,process_time_s,count," "$T/csv/time_range_summary.csv"

# never write over an input
cp "$G"/*0-of-2.pfw "$T/in.pfw"
code 2 "output over input refused" "$DFSCOPE" analyze -o "$T/in.pfw" "$T/in.pfw"
check "input intact" [ -s "$T/in.pfw" ]

# a trace whose first lines do not hold the earliest event: a second pass gives the same answer
{ echo "["; grep '^{' "$T/in.pfw" | tac; } > "$T/rev.pfw"
"$DFSCOPE" analyze -q --preset dlio --format json --granularity 0.3 "$T/in.pfw" > "$T/fwd.json"
"$DFSCOPE" analyze -q --preset dlio --format json --granularity 0.3 --preview 4k "$T/rev.pfw" > "$T/rev.json"
check "reordered lines: a second pass ran" [ "$(json_field "$T/rev.json" "d['analysis']['second_pass']")" = "True" ]
check "reordered lines: same time_range rows" [ "$(json_field "$T/fwd.json" "d['views']['time_range']['rows']")" = "$(json_field "$T/rev.json" "d['views']['time_range']['rows']")" ]
code 2 "bad --preview" "$DFSCOPE" analyze --preview 0 "$T/in.pfw"

# --- exact u_: streaming flushes (docs/ANALYZE.md, Memory and speed) --------------------------
# answers never depend on the flushes; out-of-order input falls back to a pass without them
CMP="$(dirname "$DFSCOPE")/dfs_jsoncmp"
"$DFSCOPE" gen -o "$T/s" --format v1 --ranks 2 --size 4M --seed 5 >/dev/null 2>&1
S=("$DFSCOPE" analyze -q --preset dlio --format json --views time_range,proc_name,host_name)
"${S[@]}" --no-stream "$T/s" > "$T/s-all.json"
"${S[@]}" --hold 64 "$T/s" > "$T/s-flushed.json"
check "streamed: flushes were done" [ "$(json_field "$T/s-flushed.json" "d['analysis']['flushes'] > 0")" = "True" ]
check "streamed: no second pass" [ "$(json_field "$T/s-flushed.json" "d['analysis']['second_pass']")" = "False" ]
check "streamed: --no-stream flushes nothing" [ "$(json_field "$T/s-all.json" "d['analysis']['flushes']")" = "0" ]
check "streamed: same answers as --no-stream" "$CMP" -r 0 -i flushes "$T/s-all.json" "$T/s-flushed.json"
check "streamed: -j 1 gives the same answers" "$CMP" -r 0 -i flushes "$T/s-all.json" <("${S[@]}" --hold 64 -j 1 "$T/s")
# one file written backwards: events arrive behind the watermark
f=$(ls "$T/s"/*.pfw | head -1)
mkdir -p "$T/back" && { grep '"ph":"M"' "$f"; grep -v '"ph":"M"' "$f" | tac; } > "$T/back/one.pfw"
"${S[@]}" --no-stream "$T/back" > "$T/back-all.json"
"${S[@]}" --hold 64 "$T/back" > "$T/back-flushed.json"
check "out of order: a second pass ran" [ "$(json_field "$T/back-flushed.json" "d['analysis']['second_pass']")" = "True" ]
check "out of order: the reason is given" grep -q '"second_pass_reason":"events arrived behind the streaming watermark"' "$T/back-flushed.json"
check "out of order: same answers" "$CMP" -r 0 -i flushes -i second_pass -i second_pass_reason "$T/back-all.json" "$T/back-flushed.json"
# files cut into pieces for the workers: their processes are held whole, not flushed, and the
# pieces merge exactly without a second pass (one whole file beside them still streams)
mkdir -p "$T/cut" && cp "$T/s"/*.pfw "$T/cut/" && "$DFSCOPE" gen -o "$T/cut/whole" --format v1 --ranks 1 --size 1600K --seed 9 >/dev/null 2>&1
# (--mix: the generated sets start at different times, which are different jobs)
"${S[@]}" --mix --no-stream "$T/cut" > "$T/cut-all.json"
"${S[@]}" --mix --hold 64 -j 3 --chunk 1700K "$T/cut" > "$T/cut-flushed.json" # the 2 MB files in two pieces
check "cut files: no second pass" [ "$(json_field "$T/cut-flushed.json" "d['analysis']['second_pass']")" = "False" ]
check "cut files: the whole file was flushed" [ "$(json_field "$T/cut-flushed.json" "d['analysis']['flushes'] > 0")" = "True" ]
check "cut files: same answers" "$CMP" -r 0 -i flushes "$T/cut-all.json" "$T/cut-flushed.json"
code 2 "bad --hold" "$DFSCOPE" analyze --hold 0 "$T/s"

# --- the corpus fixture: the README table, digit for digit --------------------------------------
FIX="$TRACES/dftracer/dlio-unet3d-hdf5-8rank"
if [ -d "$FIX" ]; then
  code 0 "README table" "$DFSCOPE" analyze --preset dlio-g2 --compat dfanalyzer-sum "$FIX"
  check "README: Reader POSIX (Lustre) row" grep -Eq "Reader POSIX \(Lustre\) +127\.812 \( 45%\) +10,432 \( 48%\) +81\.620 111833\.161 \( 46%\) +874\.982" "$T/out"
  check "README: App row" grep -Eq "App +441\.967 \(----\) +8 \(----\) +0\.018" "$T/out"
  check "README: Fetch Data row" grep -Eq "Fetch Data +126\.179 \( 16%\) +160 \( 25%\) +1\.268" "$T/out"
  check "README: Total Count" grep -Eq "Total Count \(sum of layer counts\) +count +15,901" "$T/out"
  code 0 "G3 numbers" "$DFSCOPE" analyze --preset dlio --compat dfanalyzer "$FIX"
  check "G3: POSIX - Reader row" grep -Eq "POSIX - Reader +18\.346 \( 55%\) +10,432 \( 60%\) +568\.637 111833\.161 \( 59%\) +6095\.909" "$T/out"
  # Kineto files give their clock (baseTimeNanoseconds) at their end: a second pass with the
  # final clocks, which must settle (no error, exit 0); --mix: the folder holds two runs
  code 0 "kineto with auto layers" "$DFSCOPE" analyze -q --mix --preset auto --format json -o "$T/k.json" "$TRACES/kineto"
  check "kineto: second pass" [ "$(json_field "$T/k.json" "d['analysis']['second_pass']")" = "True" ]
  check "kineto: auto layers" [ "$(json_field "$T/k.json" "'kernel' in d['views']['time_range']['summary']['layers']")" = "True" ]
else
  echo "corpus absent ($FIX): fixture checks skipped" >&2
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

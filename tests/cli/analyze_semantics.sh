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

# --- an event spanning several bins counts in each only its overlap (--compat: in its start bin) --
# one thread: a read of 3.5 s from 1 s past the origin, a read of 0.1 s at 4.6 s, a compute at 1 s.
cat >"$T/split.pfw" <<'TRACE'
[
{"id":0,"name":"read","cat":"POSIX","pid":7,"tid":7,"ts":1000000,"dur":3500000,"ph":"X","args":{"hostname":"h1","fname":"/d/a","ret":4096}}
{"id":1,"name":"read","cat":"POSIX","pid":7,"tid":7,"ts":4600000,"dur":100000,"ph":"X","args":{"hostname":"h1","fname":"/d/a","ret":4096}}
{"id":2,"name":"compute","cat":"compute","pid":7,"tid":7,"ts":1000000,"dur":1000000,"ph":"X","args":{"hostname":"h1"}}
]
TRACE
bins() { # FILE: the time view's (bin, posix_time_sum) pairs
  json_field "$1" "[(r[0], r[d['views']['time_range']['columns'].index('posix_time_sum')]) for r in d['views']['time_range']['rows']]"
}
"$DFSCOPE" analyze --preset posix --format json -o "$T/split.json" "$T/split.pfw" 2>/dev/null
check "default: the 3.5 s read split over bins 0-3" [ "$(bins "$T/split.json")" = "[(0, 1), (1, 1), (2, 1), (3, 0.6)]" ]
check "default: the layer's time is the bins' sum" \
  [ "$(json_field "$T/split.json" "d['views']['time_range']['summary']['layers']['posix']['process_time_s']")" = "3.6" ]
"$DFSCOPE" analyze --preset posix --compat dfanalyzer --format json -o "$T/split-compat.json" "$T/split.pfw" 2>/dev/null
check "--compat dfanalyzer: each read wholly in its start bin" [ "$(bins "$T/split-compat.json")" = "[(0, 3.5), (3, 0.1)]" ]

# --- u <= time under one aggregation (the issue's 4-process trace: u 1.76 s next to time 0.61 s) --
"$DFSCOPE" analyze --views time_range,proc_name,host_name --format json -o "$T/u.json" "$T/gen4" 2>/dev/null
# (the older keys u_time_s and time_s, a build before the default's labels, fail as they should)
u_le_time() {
  json_field "$T/u.json" "all(L.get('u_process_time_s', L.get('u_time_s')) is None or
    L.get('u_process_time_s', L.get('u_time_s')) <= L.get('busy_process_time_s', -1) <= L.get('process_time_s', -2)
    for v in d['views'].values() for L in v['summary']['layers'].values()) or exit(1)" >/dev/null
}
check "u_process_time_s <= busy_process_time_s <= process_time_s in every view and layer" u_le_time

# --- the invariants over the corpus's DFTracer traces and generated ones --------------------------
D="$TRACES/dftracer"
corpus=("$D/dlio-unet3d-hdf5-8rank" "$D/cm1-48rank" "$D"/legacy-2023/*.pfw "$D"/edge-cases/*)
[ -d "$D/dlio-unet3d-hdf5-8rank" ] || corpus=()
check "invariants (tests/tools/check_analyze_invariants.py)" python3 "$(dirname "$0")/../tools/check_analyze_invariants.py" \
  "$DFSCOPE" "$T/gen4" "gen:--format v2 --ranks 3 --events 2000 --seed 7 --gzip" \
  "gen:--format 2023 --workload resnet50 --ranks 2 --events 1500 --seed 9" "${corpus[@]}"

echo "analyze_semantics: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

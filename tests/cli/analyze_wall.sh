#!/usr/bin/env bash
# analyze_wall.sh DFSCOPE TRACES - the default mode's wall time of a layer: the union of its events
# over processes and threads, never more than the job's span, the same at any -j and pass, its
# time bins adding up to it; the table leads with it; --compat outputs do not carry it.
set -u
DFSCOPE=$1
TRACES=$2
. "$(dirname "$0")/testlib.bash"

# Three processes on two hosts read at overlapping times: pid 7 [1, 3) s and [3.5, 4) s, pid 8
# [2, 4.5) s, pid 9 (host h2) [6, 6.25) s, with a zero-length read. The reads' union is [1, 4.5) and
# [6, 6.25): 3.75 s of wall time in a 5.25 s job, against 5.25 process-seconds.
cat >"$T/three.pfw" <<'TRACE'
[
{"id":0,"name":"read","cat":"POSIX","pid":7,"tid":7,"ts":1000000,"dur":2000000,"ph":"X","args":{"hostname":"h1","fname":"/d/a","ret":4096}}
{"id":1,"name":"read","cat":"POSIX","pid":7,"tid":7,"ts":3500000,"dur":500000,"ph":"X","args":{"hostname":"h1","fname":"/d/a","ret":4096}}
{"id":2,"name":"read","cat":"POSIX","pid":8,"tid":8,"ts":2000000,"dur":2500000,"ph":"X","args":{"hostname":"h1","fname":"/d/b","ret":4096}}
{"id":3,"name":"read","cat":"POSIX","pid":9,"tid":9,"ts":6000000,"dur":250000,"ph":"X","args":{"hostname":"h2","fname":"/d/c","ret":4096}}
{"id":4,"name":"read","cat":"POSIX","pid":9,"tid":9,"ts":6100000,"dur":0,"ph":"X","args":{"hostname":"h2","fname":"/d/c","ret":0}}
]
TRACE
layer() { # FILE KEY: the posix layer's summary value in the time view
  json_field "$1" "d['views']['time_range']['summary']['layers']['posix']['$2']"
}
"$DFSCOPE" analyze --preset posix --format json -o "$T/w.json" "$T/three.pfw" 2>/dev/null
check "wall time is the union over processes: 3.75 s" [ "$(layer "$T/w.json" wall_time_s)" = "3.75" ]
check "process-seconds stay the sum: 5.25" [ "$(layer "$T/w.json" process_time_s)" = "5.25" ]
check "the document says the wall times were measured" \
  [ "$(json_field "$T/w.json" "d['analysis']['wall_time_measured']")" = "True" ]
wall_bins() { # FILE: the time view's (bin, posix_wall_time) pairs
  json_field "$1" "[(r[0], r[d['views']['time_range']['columns'].index('posix_wall_time')]) for r in d['views']['time_range']['rows']]"
}
check "per 1 s bin: the union's overlap with the bin" \
  [ "$(wall_bins "$T/w.json")" = "[(0, 1), (1, 1), (2, 1), (3, 0.5), (5, 0.25)]" ]
"$DFSCOPE" analyze --preset posix --granularity 2 --format json -o "$T/w2.json" "$T/three.pfw" 2>/dev/null
check "per 2 s bin: the same union, other bins" [ "$(wall_bins "$T/w2.json")" = "[(0, 2), (1, 1.5), (2, 0.25)]" ]
for view in proc_name host_name proc_id thread_id; do
  "$DFSCOPE" analyze --preset posix --views "$view" --format json -o "$T/v.json" "$T/three.pfw" 2>/dev/null
  check "$view view: the same wall time" \
    [ "$(json_field "$T/v.json" "d['views']['$view']['summary']['layers']['posix']['wall_time_s']")" = "3.75" ]
done
"$DFSCOPE" analyze --preset posix --views file_name --format json -o "$T/f.json" "$T/three.pfw" 2>/dev/null
check "file_name view: no wall time (it holds only events with a file name)" \
  [ "$(json_field "$T/f.json" "d['views']['file_name']['summary']['layers']['posix']['wall_time_s']")" = "None" ]

# --- the table leads the layer columns with it, and the legend defines it -----------------------
"$DFSCOPE" analyze --preset posix "$T/three.pfw" >"$T/table" 2>/dev/null
check "table: a Wall column" grep -q "Wall" "$T/table"
check "table: the POSIX layer's wall time, 3.750 s" grep -Eq "^  POSIX - All +3\.750 s " "$T/table"
check "table: the legend defines wall" grep -q "Wall: the time during which at least one process was in the layer" "$T/table"

# --- past the bound on busy periods: n/a, said, everything else unchanged ------------------------
"$DFSCOPE" analyze --preset posix --wall-periods 1 -j 1 --format json -o "$T/over.json" "$T/three.pfw" 2>/dev/null
check "over --wall-periods: wall_time_measured false" \
  [ "$(json_field "$T/over.json" "d['analysis']['wall_time_measured']")" = "False" ]
check "over --wall-periods: wall_time_s null" [ "$(layer "$T/over.json" wall_time_s)" = "None" ]
check "over --wall-periods: the bins' wall times null" [ "$(wall_bins "$T/over.json")" = "[(0, None), (1, None), (2, None), (3, None), (5, None)]" ]
check "over --wall-periods: process-seconds unchanged" [ "$(layer "$T/over.json" process_time_s)" = "5.25" ]
"$DFSCOPE" analyze --preset posix --wall-periods 1 -j 1 "$T/three.pfw" >"$T/over.txt" 2>/dev/null
check "over --wall-periods: the table says n/a and why" \
  bash -c "grep -Eq '^  POSIX - All +n/a ' '$T/over.txt' && grep -q 'Wall: not measured (n/a): the layers were busy in more than 1 separate periods' '$T/over.txt'"
code 2 "--wall-periods 0 is refused" "$DFSCOPE" analyze --wall-periods 0 "$T/three.pfw"
check "--wall-periods 0: the message says what it takes" grep -q "wall-periods takes a positive number" "$T/err"

# --- --compat keeps DFAnalyzer's document ---------------------------------------------------------
"$DFSCOPE" analyze --preset posix --compat dfanalyzer --format json -o "$T/c.json" "$T/three.pfw" 2>/dev/null
check "--compat: no wall_time_s" [ "$(json_field "$T/c.json" "'wall_time_s' in str(d)")" = "False" ]
check "--compat: no wall column" [ "$(json_field "$T/c.json" "any('wall' in c for c in d['views']['time_range']['columns'])")" = "False" ]

# --- the issue's job: no layer's wall time over the job span, at any -j or pass ------------------
"$DFSCOPE" gen -o "$T/gen" --format v1 --ranks 4 --events 4000 --seed 3 -q
"$DFSCOPE" analyze -j 1 --format json -o "$T/j1.json" "$T/gen" 2>/dev/null
"$DFSCOPE" analyze -j 2 --format json -o "$T/j2.json" "$T/gen" 2>/dev/null
"$DFSCOPE" analyze -j 2 --no-stream --chunk 64k --format json -o "$T/j2c.json" "$T/gen" 2>/dev/null
walls() { json_field "$1" "sorted((k, L['wall_time_s']) for k, L in d['views']['time_range']['summary']['layers'].items())"; }
check "-j 1 and -j 2: the same wall times" [ "$(walls "$T/j1.json")" = "$(walls "$T/j2.json")" ]
check "read in pieces without streaming: the same wall times" [ "$(walls "$T/j1.json")" = "$(walls "$T/j2c.json")" ]
check "every layer's wall time <= the job's span, and busy for 4 ranks > the span" \
  json_field "$T/j1.json" "(all(L['wall_time_s'] <= d['raw_stats']['job_time_s'] for L in d['views']['time_range']['summary']['layers'].values())
    and max(L['process_time_s'] for L in d['views']['time_range']['summary']['layers'].values()) > d['raw_stats']['job_time_s']) or exit(1)" >/dev/null

# --- the 8-rank DLIO sample (corpus) -------------------------------------------------------------
S="$TRACES/dftracer/dlio-unet3d-hdf5-8rank"
if [ -d "$S" ]; then
  "$DFSCOPE" analyze --format json -o "$T/s.json" "$S" 2>/dev/null
  check "8-rank DLIO sample: App's wall time 55.246 s <= the job's 56.695 s (its process-s 441.967)" \
    [ "$(json_field "$T/s.json" "round(d['views']['time_range']['summary']['layers']['app']['wall_time_s'], 3)")" = "55.246" ]
else
  echo "corpus absent ($S): the DLIO sample's check skipped" >&2
fi

echo "analyze_wall: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

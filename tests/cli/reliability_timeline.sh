#!/usr/bin/env bash
# reliability_timeline.sh DFSCOPE TRACES - bounds of `timeline`, `overlap` and `analyze` whatever the
# input (docs/RELIABILITY.md): a window up to the whole int64 clock draws a bounded axis, times no
# int64 holds are damage where they are parsed, lanes beyond the drawing limit share one row, and
# time bins beyond their limit are refused before the work with a coarser granularity suggested.
# Every input is built here and small; every run is under `timeout`, so a hang fails, not stalls.
# DFSCOPE_LONG_TESTS=1 adds a check of some 3 million bins (a minute under ASan).
set -u
DFSCOPE=$1
source "$(dirname "$0")/testlib.bash"
PY=$(python3 -c 'import sys; print(sys.executable)') || { echo "SKIP: python3 is needed" >&2; exit 77; }
json_field() { "$PY" -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }
run() { timeout "${RUN_TIMEOUT:-60}" "$DFSCOPE" "$@"; } # a hang shows as exit 124

# Two complete events of a Chrome array: ts1, ts2 in µs (written as given, any JSON number).
two_events() {
  printf '[\n{"name":"a","cat":"c","ph":"X","pid":1,"tid":1,"ts":%s,"dur":1},\n' "$1"
  printf '{"name":"b","cat":"c","ph":"X","pid":1,"tid":1,"ts":%s,"dur":1}\n]\n' "$2"
}
grid_lines() { grep -c '<line' "$1"; }

# --- item 1: the axis of a window as wide as the clock ------------------------------------------
two_events 10 9223372036854775 > "$T/far.json"        # 292 years apart: the issue's trace
two_events 10 9223372036854774 > "$T/far-end.json"    # the same, ending just inside the clock
two_events -9223372036854775 10 > "$T/far-neg.json"   # the same, before the epoch
# the far event of the issue's trace ends past the int64 ns clock: damage, said; the rest drawn
code 1 "two events 292 years apart: the far end is damage" run timeline -o "$T/far.svg" "$T/far.json"
check "its end is named as outside the clock" grep -q 'ts + dur outside the int64 ns range' "$T/err"
check "the axis has a bounded number of grid lines" [ "$(grid_lines "$T/far.svg" 2>/dev/null || echo 0)" -le 200 ]
code 0 "two events 292 years apart are drawn" run timeline -o "$T/far-end.svg" "$T/far-end.json"
check "their axis has a bounded number of grid lines" [ "$(grid_lines "$T/far-end.svg" 2>/dev/null || echo 0)" -le 200 ]
check "no temporary file left" [ -z "$(ls "$T" | grep '\.tmp\.')" ]
code 0 "the same before the epoch, in a window" run timeline -w 0:9223372036 -o "$T/far-neg.svg" "$T/far-neg.json"
check "its axis is bounded too" [ "$(grid_lines "$T/far-neg.svg" 2>/dev/null || echo 0)" -le 200 ]
# the whole of that trace is longer than the clock measures: said, not drawn wrong
code 2 "a whole trace longer than 292 years" run timeline -o "$T/far-neg.svg" "$T/far-neg.json"
check "the window's length is named" grep -q 'longer than 292 years' "$T/err"
two_events 1000000 1000010 > "$T/small.json"
for w in 0:9223372036 0:9223372036.854775807; do
  code 0 "--window $w on an ordinary trace" run timeline -w "$w" -o "$T/w.svg" "$T/small.json"
  check "--window $w: bounded grid" [ "$(grid_lines "$T/w.svg" 2>/dev/null || echo 0)" -le 200 ]
done
code 2 "a relative window beyond the clock" run timeline -w +0:+9223372036.854 -o "$T/w.svg" "$T/small.json"
check "said so" grep -q "beyond the clock's range" "$T/err"
for px in 200 20000; do
  code 0 "--width $px over the whole clock" run timeline --width "$px" -w 0:9223372036.854775807 -o "$T/w.svg" \
    "$T/small.json"
  check "--width $px: at most one grid line per 100 px" [ "$(grid_lines "$T/w.svg")" -le $((px / 100 + 2)) ]
done
# a B/E pair whose duration no int64 holds: not a span, counted as skipped
printf '[\n{"name":"p","ph":"B","pid":1,"tid":1,"ts":-9223372036854775},\n{"name":"p","ph":"E","pid":1,"tid":1,"ts":9223372036854775},\n{"name":"a","ph":"X","pid":1,"tid":1,"ts":5,"dur":1}\n]\n' > "$T/be.json"
code 0 "a B/E pair 584 years long" run timeline -w 0:0.001 --format json -o "$T/be.svg" "$T/be.json"
check "the pair is left out as a bad time" [ "$(json_field "$T/out" "d['bad_time']")" = 1 ]

# --- item 1: timestamps no int64 ns holds are damage where they are parsed ------------------------
for v in 1e400 NaN Infinity -Infinity 9223372036854775807 -9223372036854775807 18446744073709551615; do
  two_events 10 "$v" > "$T/v.json"
  code 1 "ts $v: damage (exit 1)" run stats --json "$T/v.json"
  check "ts $v: counted as time_overflow" [ "$(json_field "$T/out" "d['problems'].get('time_overflow', 0)")" = 1 ]
  check "ts $v: the diagnostic names file and line" grep -q 'v.json:3 (offset' "$T/err"
  code 1 "ts $v: timeline draws the rest" run timeline --format json -o "$T/v.svg" "$T/v.json"
  check "ts $v: one span in the picture" [ "$(json_field "$T/out" "sum(d['spans'].values())")" = 1 ]
  printf '[\n{"name":"a","cat":"c","ph":"X","pid":1,"tid":1,"ts":10,"dur":%s}\n]\n' "$v" > "$T/d.json"
  code 1 "dur $v: damage (exit 1)" run stats --json "$T/d.json"
  check "dur $v: counted as time_overflow" [ "$(json_field "$T/out" "d['problems'].get('time_overflow', 0)")" = 1 ]
done

# --- item 9: lanes beyond what a picture draws share one row -------------------------------------
# 1,500 threads, one span each (thread i busy for i+1 µs): the busiest 1000 are drawn on their own.
"$PY" - "$T/lanes.json" <<'PYEOF'
import sys
with open(sys.argv[1], "w") as f:
    f.write("[\n" + ",\n".join('{"name":"f","ph":"X","pid":1,"tid":%d,"ts":%d,"dur":%d}' % (i, 1000 + 7 * i, i + 1)
                                for i in range(1500)) + "\n]\n")
PYEOF
code 0 "1,500 lanes" run timeline -j 1 -o "$T/lanes.svg" "$T/lanes.json"
check "1000 drawn, 500 in one row" grep -q "lanes      1000 drawn of 1500, 500 more together in one row" "$T/out"
check "the row is labelled" grep -q '>500 other lanes</text>' "$T/lanes.svg"
check "a note says why" grep -q "500 lanes beyond the busiest 1000 share the last row" "$T/lanes.svg"
check "the busiest thread is drawn" grep -q '>tid 1499<' "$T/lanes.svg"
check "the least busy is not" [ "$(grep -c '>tid 0<' "$T/lanes.svg")" = 0 ]
check "the least busy is marked in the summary" grep -q '^  ~ pid 1 / tid 0: 1 span$' "$T/out"
for j in 2 3; do
  code 0 "1,500 lanes at -j $j" run timeline -j "$j" -o "$T/lanes-$j.svg" "$T/lanes.json"
  check "-j $j draws the same picture" cmp -s "$T/lanes.svg" "$T/lanes-$j.svg"
done
code 0 "1,500 lanes, JSON" run timeline --format json -o "$T/lanes.svg" "$T/lanes.json"
check "lanes_other_row in the JSON" [ "$(json_field "$T/out" "d['lanes_other_row']")" = 500 ]
check "every lane is listed" [ "$(json_field "$T/out" "len(d['lanes'])")" = 1500 ]
code 0 "--lanes 10 of 1,500" run timeline --lanes 10 -o "$T/lanes.svg" "$T/lanes.json"
check "--lanes 10: ten drawn, no other row" grep -q "^lanes      10 drawn of 1500$" "$T/out"
check "--lanes 10: the rest left out as before" grep -q "1,490 lanes omitted" "$T/lanes.svg"
code 0 "--width 20000: 200 lanes on their own" run timeline --width 20000 -o "$T/lanes.svg" "$T/lanes.json"
check "--width 20000: 200 drawn" grep -q "lanes      200 drawn of 1500, 1300 more" "$T/out"
# a window given absolutely (one reading, then the second for the lanes) and B/E pairs on the lanes
"$PY" - "$T/pairs.json" <<'PYEOF'
import sys
with open(sys.argv[1], "w") as f:
    recs = []
    for i in range(1200):
        recs.append('{"name":"p","ph":"B","pid":2,"tid":%d,"ts":%d}' % (i, 1000 + i))
        recs.append('{"name":"p","ph":"E","pid":2,"tid":%d,"ts":%d}' % (i, 3000 + 3 * i))
    f.write("[\n" + ",\n".join(recs) + "\n]\n")
PYEOF
code 0 "1,200 lanes of B/E pairs, absolute window" run timeline -w 0:1 -o "$T/pairs.svg" "$T/pairs.json"
check "B/E lanes: 1000 drawn, 200 in one row" grep -q "lanes      1000 drawn of 1200, 200 more" "$T/out"

# --- item 9: time bins beyond the bound are refused before the work --------------------------------
# 3 processes, each busy for 1 s in 10 ms calls (300 POSIX reads and 300 compute calls): spread
# over bins, 1ns asks for about 4e9 (the run's second and each process's), 100ns for 4e7, 1us
# for 3.7e6 (fits).
"$PY" - "$T/bins.pfw" <<'PYEOF'
import sys
with open(sys.argv[1], "w") as f:
    f.write("[\n")
    i = 0
    for pid in (1, 2, 3):
        for k in range(100):
            ts = 1000000 + 10000 * k
            f.write('{"id":%d,"name":"read","cat":"POSIX","pid":%d,"tid":%d,"ts":%d,"dur":4000,"ph":"X","args":{"ret":4096}}\n' % (i, pid, pid, ts))
            f.write('{"id":%d,"name":"step","cat":"ai_framework","pid":%d,"tid":%d,"ts":%d,"dur":5000,"ph":"X"}\n' % (i + 1, pid, pid, ts + 4500))
            i += 2
PYEOF
# Refused where events are spread over their bins (overlap's exact engines, analyze's default)...
for cmd in "overlap --granularity 1ns" "overlap --scope thread --granularity 1ns" \
           "analyze --format json --granularity 1ns" "analyze --format csv -o $T/csv --granularity 1ns" \
           "analyze --granularity 1ns" "overlap --granularity 100ns"; do
  # shellcheck disable=SC2086
  code 2 "$cmd: refused (exit 2)" run $cmd "$T/bins.pfw"
  check "$cmd: the bound is named" grep -q 'time bins .*more than the 4000000 an analysis keeps' "$T/err"
  check "$cmd: a coarser granularity is suggested" grep -q 'use --granularity [0-9]*[mun]*s or coarser' "$T/err"
  check "$cmd: nothing on stdout" [ ! -s "$T/out" ]
done
check "the suggestion is the finest that fits: 1us" grep -q 'use --granularity 1us or coarser' "$T/err"
check "a refused CSV run leaves no folder" [ ! -e "$T/csv" ]
# ...not where a bin holds the events that start in it (their number bounds the bins)
# analyze's time view holds its table whole: at 10us its 90,000 rows (the bins holding events) of 1,117 values pass that bound
code 2 "analyze --format json --granularity 10us: the time view is refused (exit 2)" \
  run analyze --format json --granularity 10us "$T/bins.pfw"
check "the view's bound is named, with a granularity that fits" \
  grep -q 'makes a time_range view of 90000 rows of 1117 values, more than the 67108864 values a view keeps: use --granularity 20us or coarser' "$T/err"
for cmd in "overlap --granularity 1us" "analyze --format json --granularity 20us" "overlap --granularity 1ms" \
           "overlap --method approximate --granularity 1ns" "overlap --method g0-exact --granularity 1ns" \
           "analyze --compat dfanalyzer --granularity 1ns"; do
  # shellcheck disable=SC2086
  code 0 "$cmd: fits" run $cmd "$T/bins.pfw"
done
# a sparse run, two traces a year apart: the bins are where the events are, not the whole span
"$PY" - "$T/sparse.pfw" <<'PYEOF'
import sys
with open(sys.argv[1], "w") as f:
    f.write("[\n")
    for i, ts in enumerate((1000000, 1000000 + 365 * 86400 * 10**6)):
        f.write('{"id":%d,"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":%d,"dur":4000,"ph":"X"}\n' % (i, ts))
PYEOF
code 0 "a year between two events at 1 s bins" run overlap --granularity 1s "$T/sparse.pfw"
code 0 "the same through analyze" run analyze --format json --granularity 1s "$T/sparse.pfw"
# the same answer at any -j (the refusal does not depend on how the work is split)
for j in 1 2 3; do
  code 2 "overlap --granularity 1ns -j $j" run overlap -j "$j" --granularity 1ns "$T/bins.pfw"
  grep -v preset "$T/err" > "$T/refusal-$j"
done
check "-j 1, 2 and 3 give the same refusal" cmp -s "$T/refusal-1" "$T/refusal-3"

# One process written to two files, read by two workers over the same time: together they may
# count its bins twice and pass the bound while the run does not (a second reading then settles
# it). Whatever happens, the answer is the one of -j 1. About 3 million bins a run, 15 s each under
# ASan: with DFSCOPE_LONG_TESTS=1 only.
[ "${DFSCOPE_LONG_TESTS:-0}" = 1 ] && for f in a b; do
  "$PY" - "$T/dup-$f.pfw" "$f" <<'PYEOF'
import sys
off = 0 if sys.argv[2] == "a" else 5000
with open(sys.argv[1], "w") as f:
    f.write("[\n")
    for k in range(150):
        f.write('{"id":%d,"name":"read","cat":"POSIX","pid":7,"tid":7,"ts":%d,"dur":9000,"ph":"X"}\n' % (k, 1000000 + 10000 * k + off))
PYEOF
done
same_answer() { "$PY" -c "
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for d in (a, b):
    d.pop('analysis', None)
sys.exit(0 if a == b else 1)" "$@"; }
[ "${DFSCOPE_LONG_TESTS:-0}" = 1 ] && {
code 0 "one process in two files, -j 1" run overlap -j 1 --format json --granularity 1us "$T/dup-a.pfw" "$T/dup-b.pfw"
mv "$T/out" "$T/dup-1.json"
for k in 1 2 3; do
  code 0 "one process in two files, -j 2 (run $k)" run overlap -j 2 --format json --granularity 1us \
    "$T/dup-a.pfw" "$T/dup-b.pfw"
  check "-j 2 (run $k) answers as -j 1" same_answer "$T/dup-1.json" "$T/out"
done
}

echo "reliability_timeline.sh: $pass passed, $fail failed"
[ "$fail" = 0 ]

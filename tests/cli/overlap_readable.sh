#!/usr/bin/env bash
# overlap_readable.sh DFSCOPE - `overlap` tables say what their columns aggregate: the wall span
# apart from the class times, the epoch table's process-second sums named as such, column names
# in words; --scope global shows each value once.
set -u
DFSCOPE=$1
source "$(dirname "$0")/testlib.bash"

"$DFSCOPE" gen -o "$T/g" --format v1 --ranks 2 --size 1M --seed 5 >/dev/null 2>&1
code 0 "overlap" "$DFSCOPE" overlap -q "$T/g"
check "span, not total, and marked wall" grep -qE '^  epoch \(procs\) +span +compute +I/O' "$T/out"
check "the second header line" grep -qE '^ +\(wall\) +alone +w/o I/O +alone +w/o app I/O' "$T/out"
check "the epoch sums are named process-seconds" grep -q "summed over the processes (process-seconds: they can exceed the span)" "$T/out"
check "no abbreviations" bash -c "! grep -q 'unovl' '$T/out'"

code 0 "--scope global" "$DFSCOPE" overlap -q --scope global "$T/g"
check "global: one value column" [ "$(sed -n '/^Split of Time/,/^$/p' "$T/out" | grep '^  Compute ' | awk '{print NF}')" = 3 ] # name, value, unit
check "global: no max/min header" bash -c "! sed -n '/^Split of Time/,/^\$/p' '$T/out' | grep -q ' max '"

echo "overlap_readable.sh: $pass passed, $fail failed"
[ "$fail" = 0 ]

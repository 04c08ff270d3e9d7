#!/usr/bin/env bash
# clock_labels.sh DFSCOPE TRACES - times counted from the run's first event (overlap's bins,
# analyze's job start) are told as offsets, never as 1970 dates, when an input's clock is off the
# wall clock (a trace whose times start near 0) beside wall-clock traces; wall-clock inputs alone
# keep their times of day (UTC).
set -u
DFSCOPE=$1
TRACES=$2
. "$(dirname "$0")/testlib.bash"

# POSIX calls of two processes: wall/ on 2023-10-23 (epoch microseconds), near0/ from 10 us.
io() { # FILE PID FIRST_TS
  {
    echo '['
    for i in 0 1 2 3 4 5; do
      echo "{\"name\":\"read\",\"cat\":\"POSIX\",\"ph\":\"X\",\"ts\":$(($3 + 1000 * i)),\"dur\":400,\"pid\":$2,\"tid\":$2,\"args\":{\"size\":4096}},"
    done
    echo "{\"name\":\"write\",\"cat\":\"POSIX\",\"ph\":\"X\",\"ts\":$(($3 + 9000)),\"dur\":300,\"pid\":$2,\"tid\":$2,\"args\":{\"size\":8192}}"
    echo ']'
  } > "$1"
}
mkdir -p "$T/mixed" "$T/wall"
io "$T/mixed/a.json" 1 1698080323775554
io "$T/mixed/b.json" 2 10
io "$T/wall/a.json" 1 1698080323775554
io "$T/wall/c.json" 3 1698080323785554

code 0 "overlap, one input near 0" "$DFSCOPE" overlap --granularity 1h "$T/mixed"
check "overlap's bins are not dated 1970" test "$(grep -c 1970 "$T/out")" = 0
check "overlap's bins are offsets" grep -q '^  +0 s ' "$T/out"
check "overlap says the clock is relative" grep -q "bin start: from the run's first event; the trace's clock is relative" "$T/out"
# 1 s bins 54 years from the start: each bin's label its own, to the second, in the column
code 0 "overlap 1 s bins, one input near 0" "$DFSCOPE" overlap --granularity 1s "$T/mixed"
sed -n '/^Time bins/,/^  (span/p' "$T/out" | grep '^  +' > "$T/labels"
check "bins of 1 s far from the start: labels in seconds" grep -q '^  +1,698,080,323 s ' "$T/labels"
check "each bin's label its own" test "$(awk '{print $1, $2}' "$T/labels" | sort | uniq -d | wc -l)" = 0
check "the labels fit their column: every span ends under the header's" python3 - "$T/out" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().split("\nTime bins")[1].splitlines()
end = lines[1].index("span") + len("span")
rows = [l for l in lines if l.startswith("  +")]
ends = [m.end() if m else -1 for m in (re.match(r"  \+\S+( (s|min|h))?\s+\S+ \S+", l) for l in rows)]
sys.exit(not rows or any(e != end for e in ends))
PY
code 0 "analyze, one input near 0" "$DFSCOPE" analyze "$T/mixed"
check "analyze's job start is not dated 1970" test "$(grep -c 1970 "$T/out")" = 0
check "analyze's job start is an offset, said so (not cut)" grep -q "Job Start .. End .* on the trace's relative clock (no date)$" "$T/out"

code 0 "overlap, wall clocks" "$DFSCOPE" overlap --granularity 1h "$T/wall"
check "overlap's bins are times of day" grep -q '^  2023-10-23T16:58:43.775554Z ' "$T/out"
code 0 "analyze, wall clocks" "$DFSCOPE" analyze "$T/wall"
check "analyze's job start is a date" grep -q 'Job Start (UTC) *2023-10-23T16:58:43.775554Z' "$T/out"

if [ -d "$TRACES/dftracer/legacy-2023" ]; then
  code 0 "overlap on legacy-2023" "$DFSCOPE" overlap --granularity 1h "$TRACES/dftracer/legacy-2023"
  check "legacy-2023's bins are not dated 1970" test "$(grep -c 1970 "$T/out")" = 0
else
  echo "note: the corpus is absent; legacy-2023 was not checked"
fi
echo "clock_labels: $pass passed, $fail failed"
[ "$fail" = 0 ]

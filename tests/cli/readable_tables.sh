#!/usr/bin/env bash
# readable_tables.sh DFSCOPE TRACES - the tables of `analyze` and `overlap` read without the
# source: durations in the unit that fits (min for minutes, never 6 decimals of seconds), sizes
# and rates with their units, counts grouped, times of day in ISO 8601 (UTC) on absolute clocks
# and said offsets on relative ones, n/a (never NA or nan) with a line saying why, the terms
# defined in a footer; --compat and the machines' outputs keep their numbers.
set -u
DFSCOPE=$1
TRACES=${2:-}
source "$(dirname "$0")/testlib.bash"

# fixed-point seconds with 4 or more decimals, outside ISO times (whose fraction has 9 digits)
not() { ! "$@"; }
long_decimals() { sed -E 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z//g' "$1" | grep -qE '(^|[^0-9.])[0-9]+\.[0-9]{4,}'; }
# a missing value spelled as a machine would
machine_na() { grep -qwE 'NA|nan|NaN|-?inf' "$1"; }
exponent() { grep -qE '[0-9]e[-+]?[0-9]' "$1"; }

"$DFSCOPE" gen -o "$T/g" --format v1 --ranks 2 --size 1M --seed 5 >/dev/null 2>&1

# --- analyze ------------------------------------------------------------------------------------
code 0 "analyze" "$DFSCOPE" analyze -q --views time_range,proc_name "$T/g"
cp "$T/out" "$T/a.txt"
check "analyze: no 4+ decimals" not long_decimals "$T/a.txt"
check "analyze: no NA or nan" not machine_na "$T/a.txt"
check "analyze: no exponent" not exponent "$T/a.txt"
check "analyze: job start in ISO 8601 UTC" grep -qE '^  Job Start \(UTC\) +20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]+Z$' "$T/a.txt"
check "analyze: job time with its unit" grep -qE '^  Job Time +[0-9.,]+ (ms|s|min|h)$' "$T/a.txt"
check "analyze: sizes with units" grep -qE '^  POSIX - All Size +[0-9.,]+ (B|KB|MB|GB|TB)$' "$T/a.txt"
check "analyze: rates with units" grep -qE 'Bandwidth per process +[0-9.,]+ (B|KB|MB|GB|TB)/s$' "$T/a.txt"
check "analyze: layer times with units" grep -qE '^  POSIX - All +[0-9.,]+ (us|ms|s|min|h) +[0-9.,]+ (us|ms|s|min|h) \(' "$T/a.txt"
check "analyze: n/a for layers without sizes" grep -qE '^  Compute +.* n/a ' "$T/a.txt"
for term in "Process time:" "Busy:" "Unoverlapped:" "n/a:" "(----):" "Units:"; do
  check "analyze: the footer defines $term" grep -qF "  $term" <(sed -n '/^What the columns mean:/,$p' "$T/a.txt")
done
check "analyze: the findings come before the legend" [ "$(grep -n 'Layer Breakdown' "$T/a.txt" | head -1 | cut -d: -f1)" -lt "$(grep -n '^What the columns mean' "$T/a.txt" | cut -d: -f1)" ]

# --compat keeps DFAnalyzer's spelling (tests compare it with published tables)
code 0 "analyze --compat" "$DFSCOPE" analyze -q --compat dfanalyzer "$T/g"
check "compat: Unit column and %.3f seconds" grep -qE '^  Job Time +seconds +[0-9]+\.[0-9]{3}$' "$T/out"
check "compat: no footer" bash -c "! grep -q '^What the columns mean' '$T/out'"

# --- overlap ------------------------------------------------------------------------------------
code 0 "overlap" "$DFSCOPE" overlap -q --granularity 5s --global "$T/g"
cp "$T/out" "$T/o.txt"
check "overlap: no 4+ decimals" not long_decimals "$T/o.txt"
check "overlap: no NA or nan" not machine_na "$T/o.txt"
check "overlap: no exponent" not exponent "$T/o.txt"
check "overlap: split times with units" grep -qE '^  Total Time +[0-9.,]+ (ms|s|min|h) ' "$T/o.txt"
check "overlap: bin starts in ISO 8601 UTC" grep -qE '^  20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z +[0-9.,]+ (us|ms|s|min)' <(sed -n '/^Time bins/,/^$/p' "$T/o.txt")
check "overlap: the bin column says UTC" grep -q 'bin start (UTC)' "$T/o.txt"
check "overlap: function sizes with units" grep -qE '^  (pread|read) .* [0-9.,]+ (B|KB|MB|GB)$' "$T/o.txt"

# a relative clock (a TensorFlow profiler trace counts from its own zero): offsets, said so
printf '{"metadata":{"highres-ticks":true},"traceEvents":[%s,%s]}\n' \
  '{"name":"read","cat":"posix","ph":"X","pid":1,"tid":1,"ts":1000,"dur":500}' \
  '{"name":"read","cat":"posix","ph":"X","pid":1,"tid":1,"ts":3000000,"dur":2000}' > "$T/rel.json"
code 0 "analyze (relative clock)" "$DFSCOPE" analyze -q --preset posix "$T/rel.json"
check "relative clock: offsets, said so, no date" grep -qE "^  Job Start \.\. End +1\.000 ms \.\. 3\.002 s on the trace's relative clock \(no date\)$" "$T/out"
check "relative clock: no 1970 date" not grep -q '1970-' "$T/out"
code 0 "overlap (relative clock)" "$DFSCOPE" overlap -q --granularity 1s "$T/rel.json"
check "relative clock: bin starts are offsets" grep -qE '^  \+(0 s|[0-9.,]+ (s|min|h)) ' "$T/out"
check "relative clock: said so" grep -q "the trace's clock is relative" "$T/out"
check "relative clock: n/a said why" grep -q "n/a: the function's calls carry no size" "$T/out"
code 0 "stats (relative clock)" "$DFSCOPE" stats -q "$T/rel.json"
check "stats: a relative span is offsets, no 1970 date" grep -qE '^Time span 1\.000 ms \.\. 3\.002 s on a relative clock, no date \(3\.001 s\)$' "$T/out"
code 0 "stats (absolute clock)" "$DFSCOPE" stats -q "$T/g"
check "stats: an absolute span in ISO 8601 UTC" grep -qE '^Time span 20[0-9]{2}-[0-9-]{5}T[0-9:.]+Z \.\. 20[0-9]{2}-[0-9-]{5}T[0-9:.]+Z \([0-9.,]+ (s|min|h)\)$' "$T/out"

# --- rules: the details' numbers in fixed notation ---------------------------------------------
dataloader_job "$T/sm"
code 0 "rules" "$DFSCOPE" rules -q "$T/sm"
check "rules: no exponent" not exponent "$T/out"
check "rules: no nan" not machine_na "$T/out"
# (a trace of 2 ms: 10 us bins over the generated one's 40 s would be 4 million bins, gigabytes)
printf '[\n{"id":0,"name":"read","cat":"POSIX","pid":7,"tid":7,"ts":1000,"dur":2000,"ph":"X","args":{"hostname":"h","fname":"/d/a","ret":4096}}\n]\n' >"$T/short.pfw"
code 0 "analyze at 10us bins" "$DFSCOPE" analyze -q --preset posix --granularity 10us "$T/short.pfw"
check "analyze: the granularity in fixed notation" grep -q 'granularity 10.000 us$' "$T/out"

# --- the corpus -----------------------------------------------------------------------------------
FIX="$TRACES/dftracer/dlio-unet3d-hdf5-8rank"
if [ -n "$TRACES" ] && [ -d "$FIX" ]; then
  code 0 "fixture analyze" "$DFSCOPE" analyze -q "$FIX"
  check "fixture: 441.967 process-s read as minutes" grep -qE '^  App +55\.246 s 7\.366 min \(----\)' "$T/out"
  check "fixture: 111833 MiB read as 117.3 GB" grep -qE '^  POSIX - All Size +117\.3 GB$' "$T/out"
  check "fixture: 13.997 ms, not 0.014" grep -qE '^  Checkpoint +5\.411 ms 13\.997 ms ' "$T/out"
  check "fixture: job start" grep -qE '^  Job Start \(UTC\) +2025-04-14T06:25:12\.976874Z$' "$T/out"
  check "fixture: ops grouped" grep -qE '^  POSIX - Checkpoint .* 3,268\.686 ' "$T/out"
  code 0 "fixture overlap" "$DFSCOPE" overlap -q "$FIX"
  check "fixture: n/a for unsized functions" grep -qE '^  close +801( +n/a){6}$' "$T/out"
  check "fixture: n/a said why" grep -q "n/a: the function's calls carry no size" "$T/out"
  check "fixture: pread sizes" grep -qE '^  pread +7,200 +8 B +80 B +16\.3 MB +512 B +512 B +146\.6 MB$' "$T/out"
  check "fixture overlap: no NA" not machine_na "$T/out"
else
  echo "corpus absent: fixture checks skipped" >&2
fi

# --- timeline's summary: the window from the trace's start and as dates on an epoch clock ------
printf '[{"name":"a","ph":"X","ts":1623142623460016,"dur":500000,"pid":1,"tid":1},{"name":"b","ph":"X","ts":1623142624460016,"dur":1000,"pid":1,"tid":1}]' >"$T/epoch.json"
code 0 "timeline on an epoch clock" "$DFSCOPE" timeline -q "$T/epoch.json" -w +0.25:+0.5 -o "$T/epoch.svg"
check "timeline: the window from the trace's start and in UTC" \
  grep -qF "window     +250.000 ms to +500.000 ms from the trace's start (250.000 ms): 2021-06-08T08:57:03.710016Z to 2021-06-08T08:57:03.960016Z" "$T/out"
check "timeline: the trace's span and dates" \
  grep -qF "trace      1.001 s: 2021-06-08T08:57:03.460016Z to 2021-06-08T08:57:04.461016Z (UTC)" "$T/out"
printf '[{"name":"a","ph":"X","ts":1000,"dur":500,"pid":1,"tid":1}]' >"$T/relative.json"
code 0 "timeline on a relative clock" "$DFSCOPE" timeline -q "$T/relative.json" -o "$T/relative.svg"
check "timeline: a relative clock is said, no date" \
  grep -qF "trace      500.000 us: 0.001000000 s to 0.001500000 s on the trace's clock (no date)" "$T/out"

# --- steps' verdict details: durations in the unit that fits (2.198 s, not 2198.xxx ms) -----------
if [ -n "$TRACES" ] && [ -d "$FIX" ]; then
  code 0 "steps --details on the DLIO sample" "$DFSCOPE" steps -q --details "$FIX"
  check "steps details: the slowest step in seconds" grep -qE '^ +step 1 +2\.198 s  from 2025-04-14T06:25:14' "$T/out"
  check "steps details: no step listed with 1,000 ms or more" bash -c "! grep -E ' from [0-9]{4}-' '$T/out' | grep -qE '[0-9]{4}\.[0-9]{3} ms'"
fi

echo "readable_tables.sh: $pass passed, $fail failed"
[ "$fail" = 0 ]

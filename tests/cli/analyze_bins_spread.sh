#!/usr/bin/env bash
# analyze_bins_spread.sh DFSCOPE TRACES - the bound on time bins counts the time cells that events
# longer than a bin spread into: four processes each reading for 1,000 s make a run of 1,000,000
# bins at 1 ms, but their read layer would hold 4,000,000 more cells (gigabytes) if analyze took
# it; it refuses before measuring, names a granularity that fits, and that one is taken.
set -u
DFSCOPE=$1
TRACES=$2
. "$(dirname "$0")/testlib.bash"

{
  echo '['
  for p in 1 2 3 4; do
    echo "{\"id\":$p,\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":$p,\"tid\":$p,\"ts\":1000000,\"dur\":1000000000,\"ph\":\"X\",\"args\":{\"hostname\":\"h\",\"fname\":\"/d/$p\",\"ret\":4096}}"
  done
  echo ']'
} >"$T/long.pfw"

for j in 1 3; do
  rc=0
  "$DFSCOPE" analyze -j "$j" --preset posix --granularity 1ms -o "$T/out$j.txt" "$T/long.pfw" 2>"$T/err$j" || rc=$?
  check "-j $j: 1 ms is refused as a usage error (exit 2)" [ "$rc" = 2 ]
  check "-j $j: nothing is written" [ ! -e "$T/out$j.txt" ]
  check "-j $j: the refusal counts the cells long events reach" \
    grep -q 'makes 5000001 time bins (the run.s 1000.000 s, and 4000000 more that events longer than a bin reach), more than the 4000000 an analysis keeps: use --granularity 2ms or coarser' "$T/err$j"
done
check "the verdict is the same at -j 1 and -j 3" cmp -s "$T/err1" "$T/err3"

rc=0
"$DFSCOPE" analyze --preset posix --granularity 2ms -o "$T/ok.txt" "$T/long.pfw" 2>"$T/err" || rc=$?
check "the granularity named is taken (exit 0)" [ "$rc" = 0 ]
check "and measures the reads whole: 4,000 s of process time" grep -q 'POSIX - All .* 1.111 h' "$T/ok.txt"

# The time view's table is held whole until written: a row per bin, a few hundred values per
# layer; 500,000 rows (the bins holding events) of 267 values pass its bound, said before the view is built.
for j in 1 2; do
  rc=0
  "$DFSCOPE" analyze -j "$j" --preset posix --granularity 2ms --format json -o "$T/v$j.json" "$T/long.pfw" 2>"$T/verr$j" || rc=$?
  check "-j $j: a 500,000-row time view is refused (exit 2), nothing written" [ "$rc" = 2 ] && [ ! -e "$T/v$j.json" ]
  check "-j $j: the refusal names the view's size and a granularity that fits" \
    grep -q 'granularity 2ms makes a time_range view of 500000 rows of 267 values, more than the 67108864 values a view keeps: use --granularity 5ms or coarser, or --views without time_range' "$T/verr$j"
done
rc=0
"$DFSCOPE" analyze --preset posix --granularity 2ms --views proc_name --format json -o "$T/p.json" "$T/long.pfw" 2>/dev/null || rc=$?
check "views without time_range are taken at 2 ms" [ "$rc" = 0 ]
check "with the reads whole: 4,000 process-seconds" \
  [ "$(json_field "$T/p.json" "d['views']['proc_name']['summary']['layers']['posix']['process_time_s']")" = "4000" ]
rc=0
"$DFSCOPE" analyze --preset posix --granularity 1ms --compat dfanalyzer -o "$T/compat.txt" "$T/long.pfw" 2>/dev/null || rc=$?
check "--compat keeps an event in its start bin: nothing spreads, 1 ms is taken" [ "$rc" = 0 ]
# The report's page keeps the same time view: a read of 300,000 s makes 300,000 rows of 267 values
# at the default 1 s, refused with the report's own --granularity named; 5 s gives the page.
echo '[{"id":1,"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":1000000,"dur":300000000000,"ph":"X","args":{"hostname":"h","fname":"/d/1","ret":4096}}]' >"$T/days.pfw"
code 2 "report page of a 3.5-day read at 1 s: refused" "$DFSCOPE" report -q --preset posix -o "$T/days.html" "$T/days.pfw"
check "report: the bound named, with a --granularity that fits" \
  grep -q 'granularity 1s makes a time_range view of 300000 rows of 267 values, more than the 67108864 values a view keeps: use --granularity 2s or coarser' "$T/err"
check "report: no page written" [ ! -e "$T/days.html" ]
code 0 "report --granularity 5s: the page" "$DFSCOPE" report -q --preset posix --granularity 5s -o "$T/days.html" "$T/days.pfw"
check "report: the page is written" [ -s "$T/days.html" ]
code 0 "report on the terminal needs no time view: 1 s is taken" "$DFSCOPE" report -q --preset posix "$T/days.pfw"

echo "analyze_bins_spread: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

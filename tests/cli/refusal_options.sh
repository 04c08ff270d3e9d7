#!/usr/bin/env bash
# refusal_options.sh DFSCOPE - a refusal names only options of the command that was run: the time
# view's bound (a read of 3.5 days at 1 s bins) offers report --granularity alone (report has no
# --views), and analyze (JSON, every row kept) --granularity or --views.
set -u
DFSCOPE=$1
. "$(dirname "$0")/testlib.bash"

# Each --option a message names is one the command's --help lists.
names_own_options() { # CMD
  local o ok=0
  "$DFSCOPE" "$1" --help >"$T/help" 2>&1
  for o in $(grep -o -- '--[a-z][a-z-]*' "$T/err" | sort -u); do
    grep -q -- "$o\b" "$T/help" || { echo "  $1 has no $o" >&2; ok=1; }
  done
  return $ok
}

echo '[{"id":1,"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":1000000,"dur":300000000000,"ph":"X","args":{"hostname":"h","fname":"/d/1","ret":4096}}]' >"$T/days.pfw"

code 2 "report page at 1 s: refused" "$DFSCOPE" report -q --preset posix -o "$T/days.html" "$T/days.pfw"
check "report: a --granularity that fits" grep -q 'use --granularity 2s or coarser$' "$T/err"
check "report: no views offered" test "$(grep -c 'views' "$T/err")" = 0
check "report: only report's options named" names_own_options report

code 2 "analyze at 1 s: refused" "$DFSCOPE" analyze -q --format json --preset posix --granularity 1s "$T/days.pfw"
check "analyze: --granularity or --views" grep -q 'use --granularity 2s or coarser, or --views without time_range$' "$T/err"
check "analyze: only analyze's options named" names_own_options analyze
code 0 "analyze --views proc: no time view, no bound" "$DFSCOPE" analyze -q --preset posix --granularity 1s --format json --views proc "$T/days.pfw"

echo "refusal_options: $pass passed, $fail failed"
[ "$fail" = 0 ]

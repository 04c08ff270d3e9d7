#!/usr/bin/env bash
# dedup_insight.sh DFSCOPE - under --dedup the report's input-health insight says what was dropped
# (info), never to read with --dedup; without it the duplicates stay a warning with that remedy.
set -u
DFSCOPE=$1
. "$(dirname "$0")/testlib.bash"

# Eight POSIX reads and one record written twice.
{
  echo '['
  for i in 0 1 2 3 4 5 6 7; do
    echo "{\"id\":$i,\"name\":\"read\",\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":$((1698080323775554 + 1000 * i)),\"dur\":400,\"ph\":\"X\",\"args\":{\"hostname\":\"h\",\"fname\":\"/d/1\",\"ret\":4096}}"
  done
  echo '{"id":3,"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":1698080326775554,"dur":400,"ph":"X","args":{"hostname":"h","fname":"/d/1","ret":4096}}'
  echo '{"id":3,"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":1698080326775554,"dur":400,"ph":"X","args":{"hostname":"h","fname":"/d/1","ret":4096}}'
} > "$T/t.pfw"

code 0 "report --dedup" "$DFSCOPE" report -q --dedup "$T/t.pfw"
check "--dedup: the insight says what was dropped" \
  grep -q '\[info\] duplicate records dropped: 1 record(s) repeating an earlier one byte for byte were dropped (--dedup): no number counts them' "$T/out"
check "--dedup: never told to read with --dedup" test "$(grep -c 'read with --dedup' "$T/out")" = 0
check "--dedup: no duplicate warning" test "$(grep -c '\[warning\] duplicate records' "$T/out")" = 0
code 0 "report --dedup --format json" "$DFSCOPE" report -q --dedup --format json "$T/t.pfw"
check "--dedup JSON: the info insight alone" \
  test "$(json_field "$T/out" "[i['id'] for i in d['insights'] if 'dup' in i['id']]")" = "['duplicates-dropped']"

code 0 "report without --dedup" "$DFSCOPE" report -q "$T/t.pfw"
check "without --dedup: a warning, with --dedup as the remedy" grep -q '\[warning\] duplicate records: 1 record(s) repeat' "$T/out"
check "without --dedup: the remedy" grep -q 'remedy: read with --dedup to drop them' "$T/out"

code 0 "stats --dedup" "$DFSCOPE" stats --dedup "$T/t.pfw"
check "stats --dedup: the problem report says what was dropped" \
  grep -q '1 exact duplicate record dropped (--dedup): not counted as events, in no analysis' "$T/err"
check "stats --dedup: never told to use --dedup" test "$(grep -c -- '--dedup drops' "$T/err")" = 0

echo "dedup_insight: $pass passed, $fail failed"
[ "$fail" = 0 ]

#!/usr/bin/env bash
# locations.sh DFSCOPE - problems found at the end of a stream (a missing ']', a comma at the end,
# an object form not closed) name where the end is: the offset past the last byte, whatever -j and
# however the file is cut into pieces, plain or gzipped (offset 0 was no location a user could use).
set -u
DFSCOPE=$1
source "$(dirname "$0")/testlib.bash"

{ echo '['; for i in $(seq 1 3000); do
    printf '{"id":%d,"name":"a","cat":"c","ph":"X","pid":1,"tid":1,"ts":%d,"dur":1}\n' "$i" "$i"
  done; } > "$T/open.pfw"
size=$(stat -c %s "$T/open.pfw")
gzip -k "$T/open.pfw"
for args in "-j 1" "-j 2 --chunk 64k" "-j 3 --chunk 16k"; do
  for f in open.pfw open.pfw.gz; do
    # shellcheck disable=SC2086
    code 0 "$f $args" "$DFSCOPE" stats -v --problems full $args "$T/$f"
    check "$f $args: missing ']' at the end (offset $size)" grep -q "$f (offset $size): no closing ']' before the end" "$T/err"
  done
done

printf '[\n{"id":1,"name":"a","cat":"c","ph":"X","pid":1,"tid":1,"ts":1,"dur":1},\n' > "$T/comma.json"
csize=$(stat -c %s "$T/comma.json")
code 0 "a comma at the end" "$DFSCOPE" stats -v --problems full "$T/comma.json"
check "the comma's problem names the end (offset $csize)" grep -q "comma.json (offset $csize): comma at the end" "$T/err"

printf '{"traceEvents": [\n{"name":"a","cat":"c","ph":"X","pid":1,"tid":1,"ts":1,"dur":1}' > "$T/obj.json"
osize=$(stat -c %s "$T/obj.json")
"$DFSCOPE" stats -v --problems full "$T/obj.json" > /dev/null 2> "$T/err"
check "an object not closed names the end (offset $osize)" grep -q "obj.json (offset $osize): the trace object is not closed by the end" "$T/err"

echo "locations.sh: $pass passed, $fail failed"
[ "$fail" = 0 ]

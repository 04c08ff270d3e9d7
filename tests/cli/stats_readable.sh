#!/usr/bin/env bash
# stats_readable.sh DFSCOPE - `stats` names what a user would otherwise read as a blank: events
# without a category or a name are listed under "(none)".
set -u
DFSCOPE=$1
source "$(dirname "$0")/testlib.bash"

printf '[\n{"name":"a","cat":"c","ph":"X","pid":1,"tid":1,"ts":1,"dur":5},\n{"name":"","ph":"X","pid":1,"tid":1,"ts":10,"dur":2}\n]\n' > "$T/t.json"
code 0 "stats" "$DFSCOPE" stats -q "$T/t.json"
check "a missing category reads (none)" grep -qE '^  \(none\) +1 ' <(sed -n '/^Categories/,/^$/p' "$T/out")
check "no blank category row" bash -c "! sed -n '/^Categories/,/^\$/p' '$T/out' | grep -qE '^ {30,}[0-9]'"

echo "stats_readable.sh: $pass passed, $fail failed"
[ "$fail" = 0 ]

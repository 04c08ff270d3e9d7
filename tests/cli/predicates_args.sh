#!/usr/bin/env bash
# predicates_args.sh DFSCOPE TRACES - a predicate reading event arguments (args.KEY) where the
# analysis's rows carry none is refused, naming where it came from, instead of silently selecting
# nothing through it: overlap's classes, steps' concepts, a preset file's layers. The corpus is not
# needed.
set -u
DFSCOPE=$1
. "$(dirname "$0")/testlib.bash"

cat >"$T/t.pfw" <<'TRACE'
[
{"id":0,"name":"read","cat":"POSIX","pid":7,"tid":7,"ts":1000000,"dur":2000,"ph":"X","args":{"hostname":"h","fname":"/d/a","ret":4096,"stream":3}}
{"id":1,"name":"step","cat":"ai_framework","pid":7,"tid":7,"ts":1003000,"dur":5000,"ph":"X"}
]
TRACE
why='event arguments (args.KEY) are not available to this command.s predicates'

code 2 "overlap --class with args: a usage error" "$DFSCOPE" overlap --preset posix --class 'x=args.stream >= 0' "$T/t.pfw"
check "overlap: the class is named with the reason" grep -q "class x: $why" "$T/err"
check "overlap: nothing on stdout" [ ! -s "$T/out" ]
code 2 "overlap --class with args among columns: refused too" \
  "$DFSCOPE" overlap --preset posix --class 'x=cat == "POSIX" | args["a b"] == 1' "$T/t.pfw"
code 2 "steps --compute with args: a usage error" "$DFSCOPE" steps --compute 'args.x == 1' "$T/t.pfw"
check "steps: the concept is named with the reason" grep -q "compute_host predicate: $why" "$T/err"

cat >"$T/p.yaml" <<'YAML'
name: withargs
layers:
  - name: reads
    predicate: 'args.stream == 3'
YAML
code 2 "a preset file whose layer reads args: refused" "$DFSCOPE" analyze --preset "$T/p.yaml" "$T/t.pfw"
check "the preset error names the predicate's place" grep -q "predicate: $why" "$T/err"

code 0 "the same class on a column is taken" "$DFSCOPE" overlap --preset posix --class 'x=cat == "POSIX"' "$T/t.pfw"
echo "predicates_args: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

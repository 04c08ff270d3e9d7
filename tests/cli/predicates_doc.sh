#!/usr/bin/env bash
# predicates_doc.sh DFSCOPE TRACES - the examples of docs/PREDICATES.md give the numbers it prints:
# every row of the table under "Examples on the demo sample" is run as an `overlap --class` on the
# sample `make demo` generates, and the class's event count must be the row's. The corpus is not
# needed.
set -u
DFSCOPE=$1
here=$(dirname "$0")
. "$here/testlib.bash"
doc="$here/../../docs/PREDICATES.md"

code 0 "the demo sample" "$DFSCOPE" gen -o "$T/sample" --format v1 --ranks 8 --size 64M --seed 1
check "the document names the sample's generator" \
    grep -qF 'dfscope gen -o sample --format v1 --ranks 8 --size 64M' "$doc"

# One "PREDICATE<TAB>COUNT" line per table row ("\|" in a cell is Markdown for "|").
sed -n '/^## Examples on the demo sample/,$p' "$doc" |
    sed -n 's/^| `\(.*\)` | \([0-9,]*\) |$/\1\t\2/p' | sed 's/\\|/|/g' >"$T/rows"
check "the table has examples" test "$(wc -l <"$T/rows")" -ge 8

args=() i=0
while IFS=$'\t' read -r pred _; do
  i=$((i + 1))
  args+=(--class "ex$i=$pred")
done <"$T/rows"
code 0 "the examples parse and run" "$DFSCOPE" overlap -q "${args[@]}" "$T/sample"
i=0
while IFS=$'\t' read -r pred want; do
  i=$((i + 1))
  got=$(awk -v n="ex$i" '$1 == n { print $2; exit }' "$T/out")
  check "'$pred' selects $want events (got '${got}')" test "$got" = "$want"
done <"$T/rows"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

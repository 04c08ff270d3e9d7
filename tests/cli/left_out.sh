#!/usr/bin/env bash
# left_out.sh DFSCOPE - `analyze` says when a preset leaves much of a trace out: more than 5 % of the
# post-read events or of their time in no layer gives a warning with the counts, the largest
# categories left out, the preset's layers that name them and how to count them; the JSON has
# "left_out" in the default mode (the compatible documents keep DFAnalyzer's shape); a trace the
# preset covers gets no warning; events the preset's left_out selects are counted apart, with its
# reason, and not warned about.
set -u
DFSCOPE=$1
source "$(dirname "$0")/testlib.bash"

# a preset whose one layer reads the dataset's POSIX calls only
cat > "$T/data.yaml" <<'EOF'
base: posix
name: data-only
description: POSIX calls on the dataset only
time_boundary: io
layers:
  - name: io
    display: Dataset I/O
    predicate: 'cat == "posix_reader" | (cat == "posix_lustre" & file_name.str.contains("/data/"))'
    parent: null
EOF
# 1 read under /data, 15 under /p/lustre1 (94 % left out), and 2 STDIO calls
trace() {
  echo '['
  echo '{"id":0,"name":"HH","cat":"dftracer","pid":7,"tid":7,"ph":"M","args":{"name":"n1","value":1}}'
  printf '{"id":1,"name":"read","cat":"POSIX","pid":7,"tid":7,"ts":100,"dur":10,"ph":"X","args":{"hhash":1,"fname":"/data/f0","size":4096}}\n'
  for i in $(seq 2 "$1"); do
    printf '{"id":%d,"name":"read","cat":"POSIX","pid":7,"tid":7,"ts":%d,"dur":10,"ph":"X","args":{"hhash":1,"fname":"/p/lustre1/f%d","size":4096}}\n' "$i" $((i * 100)) "$i"
  done
}
trace 16 > "$T/lustre.pfw"
code 0 "mostly left out" "$DFSCOPE" analyze --preset "$T/data.yaml" "$T/lustre.pfw"
check "the warning counts them" grep -q "warning: 15 of 16 events (93.8 %), 93.8 % of their time, fall in no layer of preset data-only" "$T/err"
# the posix preset's post-read rules name a POSIX call by its file's tier: posix_reader under /data
check "the category and its time" grep -q "Most left out: posix_lustre, 15 events, 150.000 us" "$T/err"
check "the layer that names it, with its predicate" grep -qF 'its layer io selects cat == "posix_reader" | (cat == "posix_lustre" & file_name.str.contains("/data/"))' "$T/err"
check "how to count them" grep -q "To count them: a preset whose layers select them (dfscope analyze --show-preset data-only" "$T/err"
check "the report is still written" [ -s "$T/out" ]

code 0 "JSON" "$DFSCOPE" analyze -q --format json --preset "$T/data.yaml" "$T/lustre.pfw"
check "JSON: left_out.events" [ "$(json_field "$T/out" "d['left_out']['events']")" = 15 ]
check "JSON: left_out.time_share" [ "$(json_field "$T/out" "round(d['left_out']['time_share'], 4)")" = 0.9375 ]
check "JSON: warned" [ "$(json_field "$T/out" "d['left_out']['warned']")" = True ]
check "JSON: by category" [ "$(json_field "$T/out" "d['left_out']['categories'][0]['category']")" = posix_lustre ]
code 0 "compat JSON" "$DFSCOPE" analyze -q --compat dfanalyzer --format json --preset "$T/data.yaml" "$T/lustre.pfw"
check "compat JSON keeps DFAnalyzer's shape" [ "$(json_field "$T/out" "'left_out' in d")" = False ]

code 0 "-q" "$DFSCOPE" analyze -q --preset "$T/data.yaml" "$T/lustre.pfw"
check "-q: no warning" bash -c "! grep -q warning '$T/err'"
code 0 "the whole trace in the layers" "$DFSCOPE" analyze --preset posix "$T/lustre.pfw"
check "covered: no warning" bash -c "! grep -q 'fall in no layer' '$T/err'"

# --- events a preset leaves out on purpose (its left_out): counted apart, not warned about --------
{ sed 's/^name: data-only/name: data-aside/' "$T/data.yaml"; cat <<'EOF'
left_out:
  - predicate: 'cat == "posix_lustre"'
    reason: 'the scratch tier <is> not the dataset'
EOF
} > "$T/lustre-aside.yaml"
code 0 "left out on purpose" "$DFSCOPE" analyze --preset "$T/lustre-aside.yaml" "$T/lustre.pfw"
check "on purpose: no warning" bash -c "! grep -q 'fall in no layer' '$T/err'"
check "on purpose: the table says how many and why" \
  grep -qF "left out on purpose by preset data-aside: 15 events in no layer, since the scratch tier <is> not the dataset" "$T/out"
code 0 "on purpose, JSON" "$DFSCOPE" analyze -q --format json --preset "$T/lustre-aside.yaml" "$T/lustre.pfw"
check "JSON: left_out.events counts only the rest" [ "$(json_field "$T/out" "d['left_out']['events']")" = 0 ]
check "JSON: on_purpose events, time and reason" \
  [ "$(json_field "$T/out" "(d['left_out']['on_purpose']['events'], d['left_out']['on_purpose']['time_s'], d['left_out']['on_purpose']['reasons'])")" = "(15, 0.00015, ['the scratch tier <is> not the dataset'])" ]
# a left_out entry needs both keys, and a predicate that parses
printf 'base: posix\nname: x\nleft_out:\n  - predicate: %s\n' "'cat == \"a\"'" > "$T/no-reason.yaml"
code 2 "left_out without a reason" "$DFSCOPE" analyze --preset "$T/no-reason.yaml" "$T/lustre.pfw"
check "the message names the entry and what it needs" grep -q "left_out entry: needs 'predicate' and 'reason'" "$T/err"
printf 'base: posix\nname: x\nleft_out:\n  - {predicate: "cat ==", reason: r}\n' > "$T/bad-pred.yaml"
code 2 "left_out with a bad predicate" "$DFSCOPE" analyze --preset "$T/bad-pred.yaml" "$T/lustre.pfw"
check "the message names the left_out predicate" grep -q "bad-pred.yaml:4:.*left_out: predicate" "$T/err"

echo "left_out.sh: $pass passed, $fail failed"
[ "$fail" = 0 ]

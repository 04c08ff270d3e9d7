#!/usr/bin/env bash
# skeleton.sh DFSCOPE TRACES - what every command gets from the command skeleton (cli/skeleton.c):
# -h and --help on stdout, an unknown option, a missing value, a bad --format value and no input
# are usage errors (exit 2, said on stderr naming the command, nothing on stdout); and what the
# declarations give (cli/options.c): choices, constants, sizes, percentages, --format csv's -o DIR,
# the default usage line and exit codes. No corpus needed: a two-event trace is written here.
set -u
DFSCOPE=$1
. "$(dirname "$0")/testlib.bash"

usage_error() { # what, command args...: exit 2, the command named on stderr, stdout empty
  local what=$1 cmd=$2
  code 2 "$cmd: $what" "$DFSCOPE" "${@:2}"
  check "$cmd: $what: said on stderr" grep -q "dfscope $cmd" "$T/err"
  check "$cmd: $what: nothing on stdout" [ ! -s "$T/out" ]
}

touch "$T/in.json"
for cmd in stats analyze overlap tasks steps gpu dataloader timeline merge rules gen; do
  for h in -h --help; do
    code 0 "$cmd $h" "$DFSCOPE" "$cmd" "$h"
    check "$cmd $h: usage" grep -q "^usage: dfscope $cmd" "$T/out"
    check "$cmd $h: this help" grep -q -- '-h, --help *this help' "$T/out"
  done
  code 0 "help $cmd" "$DFSCOPE" help "$cmd"
  check "help $cmd: the same text as --help" cmp -s "$T/out" <("$DFSCOPE" "$cmd" --help)
  usage_error "unknown option" "$cmd" --no-such-option -o "$T/o" "$T/in.json"
  usage_error "missing value" "$cmd" "$T/in.json" -o
  case $cmd in
    gen) usage_error "bad --format" gen -o "$T/g" --format xml
         usage_error "no output directory" gen --ranks 1 ;;
    *) usage_error "bad --format" "$cmd" --format xml -o "$T/o" "$T/in.json"
       usage_error "no input" "$cmd" -o "$T/o" ;;
  esac
done

# --help: the usage line and the exit codes by default
for cmd in stats analyze overlap tasks steps gpu dataloader rules; do
  "$DFSCOPE" "$cmd" --help >"$T/out"
  check "$cmd --help: the default usage line" grep -qx "usage: dfscope $cmd \[options\] PATH\.\.\." "$T/out"
done
for cmd in stats analyze overlap; do
  "$DFSCOPE" "$cmd" --help >"$T/out"
  check "$cmd --help: the exit codes" grep -q '^Exit codes: 0 ok, 1 damaged input skipped' "$T/out"
done

# choices: a bad value says what the option takes
bad_value() { # command, option, value, what stderr says
  usage_error "bad $2" "$1" "$2" "$3" "$T/in.json"
  check "$1 $2 $3: $4" grep -qF -- "$4" "$T/err"
}
bad_value overlap --method fast "--method takes exact, approximate or g0-exact, not 'fast'"
bad_value overlap --scope node "--scope takes process, thread or global, not 'node'"
bad_value analyze --compat dasf "--compat takes dfanalyzer or dfanalyzer-sum, not 'dasf'"
bad_value tasks --compat smdebug "--compat knows only 'dasf', not 'smdebug'"
bad_value tasks --graph-format svg "--graph-format is graphml or dot, not 'svg'"
bad_value merge --compat dasf "--compat knows only 'composer', not 'dasf'"
bad_value rules --compat composer "--compat knows only 'smdebug', not 'composer'"
# sizes with a lower bound, percentages, a size's own syntax
bad_value analyze --hold 0 "--hold takes a positive number of intervals (e.g. 1M), not '0'"
bad_value overlap --hold 1x "--hold takes a positive number of intervals (e.g. 1M), not '1x'"
bad_value stats --chunk 4095 "--chunk takes a size of at least 4k (e.g. 32M), not '4095'"
bad_value stats --examples 1001 "--examples takes a number from 0 to 1000, not '1001'"
bad_value steps --threshold 101 "--threshold takes a percentage from 0 to 100, not '101'"
usage_error "bad --ranks" gen --ranks 0x10001 -o "$T/g"
check "gen --ranks: the help line" grep -qx "Run 'dfscope gen --help' for the options." "$T/err"
usage_error "bad --size" gen --size 0 -o "$T/g"
# --format csv writes a directory: -o DIR is required
for cmd in analyze overlap dataloader; do
  usage_error "csv without -o" "$cmd" --format csv "$T/in.json"
  check "$cmd: csv needs -o DIR" grep -q -- "--format csv writes .*: give -o DIR" "$T/err"
done

# the values reach the analyses
printf '%s\n' '{"traceEvents":[{"name":"r","cat":"posix","ph":"X","ts":1,"dur":2,"pid":1,"tid":1},' \
  '{"name":"c","cat":"compute","ph":"X","ts":2,"dur":5,"pid":1,"tid":1}]}' >"$T/t.json"
code 0 "overlap --approximate" "$DFSCOPE" overlap --approximate --scope thread --format json "$T/t.json"
check "--approximate: the method" grep -q '"method":"approximate"' "$T/out"
check "--scope thread: the scope" grep -q '"scope":"thread"' "$T/out"
code 0 "overlap --method g0-exact" "$DFSCOPE" overlap --method g0-exact --format json "$T/t.json"
check "--method g0-exact: the method" grep -q '"method":"g0-exact"' "$T/out"
code 0 "analyze --compat dfanalyzer-sum" "$DFSCOPE" analyze --compat dfanalyzer-sum --format json "$T/t.json"
check "--compat dfanalyzer-sum: the semantics" grep -q '"semantics":"dfanalyzer-sum"' "$T/out"
code 0 "steps --threshold 12.5" "$DFSCOPE" steps --threshold 12.5 --format json "$T/t.json"
check "--threshold 12.5: a fraction" grep -q '"wait_threshold": *0.125' "$T/out"
code 0 "stats --progress --no-progress" "$DFSCOPE" stats --progress --no-progress "$T/t.json"
check "--no-progress after --progress: no progress" bash -c "! grep -q 'files,' '$T/err'"
code 0 "stats --progress" "$DFSCOPE" stats --progress "$T/t.json"
check "--progress: progress" grep -q '1/1 files' "$T/err"
code 0 "gen --ranks 0x2" "$DFSCOPE" gen -q --list --ranks 0x2 --events 40 -o "$T/g"
check "gen --ranks 0x2: two files" [ "$(wc -l <"$T/out")" -eq 2 ]

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

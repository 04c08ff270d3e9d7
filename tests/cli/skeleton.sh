#!/usr/bin/env bash
# skeleton.sh DFSCOPE TRACES - what every command gets from the command skeleton (cli/skeleton.c):
# -h and --help on stdout, an unknown option, a missing value, a bad --format value and no input
# are usage errors (exit 2, said on stderr naming the command, nothing on stdout). No corpus needed.
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
for cmd in stats analyze overlap tasks steps dataloader timeline merge rules gen; do
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

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

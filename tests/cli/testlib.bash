# testlib.bash - what the CLI test scripts share (sourced; not a test itself: ctest runs *.sh).
# After sourcing: $T is a temporary directory removed at exit, and pass/fail count the checks.
pass=0 fail=0
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

ok()   { pass=$((pass + 1)); }
bad()  { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
check() { # description, then a command that must succeed
  local what=$1; shift
  if "$@"; then ok; else bad "$what"; fi
}
code() { # expected-exit description command... (stdout in $T/out, stderr in $T/err)
  local want=$1 what=$2; shift 2
  "$@" >"$T/out" 2>"$T/err"; local got=$?
  if [ "$got" = "$want" ]; then ok; else bad "$what: exit $got, expected $want"; cat "$T/err" >&2; fi
}
# json_field FILE EXPR: EXPR is Python over the document `d`, e.g. "d['events_total']"
json_field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))" "$@"; }

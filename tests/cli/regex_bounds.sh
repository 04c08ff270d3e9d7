#!/usr/bin/env bash
# regex_bounds.sh DFSCOPE TRACES - a regular expression that would backtrack for minutes (the
# issue's `(a+)+$|X` on names of 40 a's) stops at its bound (analyze/common/predicate.h) and fails
# the command with exit 2 and a message naming the predicate, in every command that evaluates
# predicates (overlap, analyze, steps, timeline, dataloader; under mpirun too when available),
# writing no output; an ordinary pattern on the same names still gives its answer.
set -u
DFSCOPE=$1
. "$(dirname "$0")/testlib.bash"

EVIL='name.str.contains("(a+)+$|X")'
# Three complete POSIX events named aaa...aX<n> (40 a's): PCRE2's default limits make each search
# cost about 0.1 s and answer "no match".
python3 - "$T" <<'EOF'
import json, sys
for part in range(2):
    ev = [{"name": "a" * 40 + "X%d" % (3 * part + i), "cat": "POSIX", "ph": "X", "ts": 10 * i, "dur": 5,
           "pid": 1 + part, "tid": 1} for i in range(3)]
    json.dump({"traceEvents": ev}, open("%s/names%d.json" % (sys.argv[1], part), "w"))
EOF
IN=("$T/names0.json" "$T/names1.json")

refused() { # description 'message text' command...: exit 2, the message on stderr, nothing on stdout
  local what=$1 msg=$2; shift 2
  code 2 "$what" timeout 60 "$@"
  check "$what: the message names the predicate" grep -qF -- "$msg" "$T/err"
  check "$what: the message names the bound" grep -q "gave up on func_name 'aaaa.*(42 bytes): over [0-9]* backtracking steps" "$T/err"
  check "$what: nothing on stdout" [ ! -s "$T/out" ]
}

refused "overlap --io" "dfscope overlap: class io: predicate $EVIL: the regular expression '(a+)+\$|X'" \
  "$DFSCOPE" overlap --io "$EVIL" "${IN[@]}"
refused "overlap -j 2" "class io: predicate $EVIL" "$DFSCOPE" overlap -j 2 --io "$EVIL" "${IN[@]}"
refused "overlap -o" "class io: predicate $EVIL" "$DFSCOPE" overlap --io "$EVIL" -o "$T/ov.txt" "${IN[@]}"
check "overlap -o: no output file" [ ! -e "$T/ov.txt" ]
refused "steps --io" "dfscope steps: concept io: predicate $EVIL" "$DFSCOPE" steps --io "$EVIL" "${IN[@]}"
refused "timeline --io" "dfscope timeline: concept io: predicate $EVIL" \
  "$DFSCOPE" timeline --io "$EVIL" -o "$T/t.svg" "${IN[@]}"
check "timeline: no picture" [ ! -e "$T/t.svg" ]
refused "dataloader --getnext" "dfscope dataloader: the getnext pattern '(a+)+\$|X': the regular expression" \
  "$DFSCOPE" dataloader --getnext '(a+)+$|X' "${IN[@]}"
cat > "$T/redos.yaml" <<EOF
name: redos
base: posix
layers:
  - name: posix
    display: POSIX
    predicate: 'cat.str.contains("posix|stdio")'
    parent: null
    derived:
      - {name: evil, predicate: '$EVIL'}
EOF
refused "analyze --preset" "dfscope analyze: layer posix, derived metric evil: predicate $EVIL" \
  "$DFSCOPE" analyze --preset "$T/redos.yaml" "${IN[@]}"

# The same names under an ordinary pattern: every event is I/O.
code 0 "overlap with an ordinary pattern" "$DFSCOPE" overlap --format json --io 'name.str.contains("a+X")' "${IN[@]}"
check "the ordinary pattern finds the 6 events" [ "$(json_field "$T/out" "d['summary']['io_events']" 2>/dev/null)" = 6 ]

# Under mpirun a rank's failure travels to rank 0, and every rank exits 2.
if command -v mpirun >/dev/null; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
  export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
  if timeout 120 mpirun -np 2 "$DFSCOPE" stats --mpi-stats "${IN[0]}" 2>&1 >/dev/null | grep -q "mpi rank 1/2"; then
    for cmd in overlap steps; do
      code 2 "$cmd on 2 ranks" timeout 120 mpirun -np 2 "$DFSCOPE" "$cmd" --io "$EVIL" "${IN[@]}"
      check "$cmd on 2 ranks: the message names the predicate" grep -q "dfscope $cmd: rank [01]: .*predicate" "$T/err"
    done
  fi
fi

echo "regex_bounds.sh: $pass passed, $fail failed"
[ "$fail" = 0 ]

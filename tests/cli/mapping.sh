#!/usr/bin/env bash
# mapping.sh DFSCOPE TRACES - reading under an address-space limit (ulimit -v): plain files are read
# with read() instead of mapped, and said so (unmapped_read); merge fits its sort budget to the
# limit, and spills sooner when memory runs short anyway; steps fits where it used to need twice its
# kept events; the same outputs as without a limit.
# Files that change while read are tested in tests/unit/test_mapping.c (a hook at a known point).
set -u
DFSCOPE=$1
here=$(dirname "$0")
. "$here/testlib.bash"

# Sanitizers' shadow memory needs more address space than any useful limit.
if ! bash -c 'ulimit -v 100000; "$0" --version' "$DFSCOPE" >/dev/null 2>&1; then
  echo "mapping.sh: skipped (the binary does not start under ulimit -v: sanitizers)"
  exit 77
fi

code 0 "a 64 MB trace" "$DFSCOPE" gen -o "$T/g" --ranks 1 --size 64M -j 1 -q
trace=$T/g/trace-0-of-1.pfw
limited() { # KiB, then the command
  local kib=$1; shift
  (ulimit -v "$kib"; exec "$@")
}

# --- stats: read with read(), the same counts, and said --------------------------------------------
code 0 "stats without a limit" "$DFSCOPE" stats --json -j 1 "$trace"
events=$(json_field "$T/out" "d['events_total']")
code 0 "stats under ulimit -v 150000" limited 150000 "$DFSCOPE" stats --json -j 1 "$trace"
check "every event read under the limit" [ "$(json_field "$T/out" "d['events_total']")" = "$events" ]
check "reading without mapping is said" grep -q 'unmapped_read: 1' "$T/err"
check "with the limit named" grep -q 'ulimit -v): read with read(), not mapped' "$T/err"

# --- merge: the default budget fits the limit; a budget too large for it spills sooner ------------
code 0 "merge without a limit" "$DFSCOPE" merge -j 2 -o "$T/free.json" "$trace"
code 0 "merge under ulimit -v 120000" limited 120000 "$DFSCOPE" merge -j 2 -o "$T/fit.json" "$trace"
check "the budget fitted to the limit is said" grep -q 'ulimit -v): sorting in [0-9]* MiB, not 256 MiB' "$T/err"
# glibc opened a 64 MiB thread arena when the two readers contended, which took the room the budget
# counted on: about one run in two spilled early, one in thirty failed. One arena under a limit:
short=0
for _ in 1 2 3 4 5 6; do
  limited 120000 "$DFSCOPE" merge -j 2 -o "$T/fit6.json" "$trace" >"$T/o6" 2>&1 || short=$((short + 100))
  grep -q 'memory ran short' "$T/o6" && short=$((short + 1))
done
check "six runs under the limit: none fails or runs short of the budget" [ "$short" = 0 ]
check "the same merged trace" cmp -s "$T/free.json" "$T/fit.json"
# Not checked here: a --memory far above the limit (1G under 100000). Two readers then race for
# the last megabytes, and a parser allocation that fails is counted as a bad line instead of
# ending the run (an open bug of the memory-limit class); the outcome depends on timing.

# --- steps: the kept events are turned into intervals in place, not copied ---------------------------
code 0 "steps without a limit" "$DFSCOPE" steps -j 1 "$trace"
cp "$T/out" "$T/steps.free"
code 0 "steps under ulimit -v 80000" limited 80000 "$DFSCOPE" steps -j 1 "$trace"
check "the same steps report" cmp -s "$T/steps.free" "$T/out"

echo "mapping.sh: $pass passed, $fail failed"
[ "$fail" = 0 ]

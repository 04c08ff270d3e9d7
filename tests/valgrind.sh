#!/usr/bin/env bash
# valgrind.sh BUILD [JOBS] - every unit test program of BUILD (a plain Debug build, no sanitizers)
# under valgrind memcheck, JOBS at a time: any memory error or definite/indirect leak fails the
# test (--error-exitcode=1). Nothing is suppressed. Exit 77 (skipped: no trace corpus) counts as
# skipped. Logs in BUILD/valgrind/TEST.log. Run directly rather than through ctest, whose per-test
# timeout (300 s) is too short for the corpus tests under valgrind.
set -u
build=${1:?usage: valgrind.sh BUILD [JOBS]}
jobs=${2:-2}
command -v valgrind >/dev/null || { echo "valgrind.sh: valgrind is not installed (apt-get install valgrind)" >&2; exit 1; }
mkdir -p "$build/valgrind"
one() {
  local t=$1 name s rc
  name=$(basename "$t")
  s=$(date +%s)
  valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect \
    --show-leak-kinds=definite,indirect --track-origins=yes -q "$t" >"$2/valgrind/$name.log" 2>&1
  rc=$?
  case $rc in
    0) echo "ok      $name ($(( $(date +%s) - s )) s)" ;;
    77) echo "skipped $name" ;;
    *) echo "FAILED  $name (exit $rc, $(( $(date +%s) - s )) s): $2/valgrind/$name.log"; return 1 ;;
  esac
}
export -f one
find "$build/tests" -maxdepth 1 -type f -name 'test_*' -perm -u+x | sort |
  xargs -P "$jobs" -I{} bash -c 'one "$@"' _ {} "$build" | tee "$build/valgrind/summary.txt"
! grep -q '^FAILED' "$build/valgrind/summary.txt"

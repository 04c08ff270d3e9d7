#!/usr/bin/env bash
# check_docs_test.sh DFSCOPE ROOT - shows that tests/tools/check_docs.py finds each kind of problem
# it is for: it copies the real README.md, docs/, presets/, src/ and fuzz/ (a link target) into a
# scratch tree, checks that the tree with the citations and options that are allowed passes, then
# adds one problem of each kind and expects exit 1 and a finding that names each.
set -u
DFSCOPE=${1:?usage: check_docs_test.sh DFSCOPE ROOT}
ROOT=${2:?usage: check_docs_test.sh DFSCOPE ROOT}
CHECK="$ROOT/tests/tools/check_docs.py"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0 n=0

fresh() {
  rm -rf "$tmp/t" && mkdir -p "$tmp/t"
  cp -r "$ROOT/README.md" "$ROOT/docs" "$ROOT/presets" "$ROOT/src" "$ROOT/fuzz" "$tmp/t/"
}

expect() { # LABEL, EXIT, TEXT: the checker's exit status and a line of its output
  n=$((n + 1))
  out=$(python3 "$CHECK" "$DFSCOPE" "$tmp/t" 2>&1); rc=$?
  if [ "$rc" != "$2" ] || ! grep -qF -- "$3" <<< "$out"; then
    echo "FAIL: $1: exit $rc (want $2), output:"; echo "$out" | sed 's/^/  /'
    fails=$((fails + 1))
  fi
}

# Allowed: comments may cite the spec (developers have it); other programs' options are theirs.
fresh
printf '/* spec/overlap.md section 3 */\nstatic int x;\n' > "$tmp/t/src/y.c"
echo '`cmake --build build -j 2` then `dfscope analyze --preset dlio t/`' >> "$tmp/t/README.md"
expect "the real tree, with allowed citations and options, passes" 0 "0 problems"

# One problem of each kind, all in one tree; each must be found.
echo 'The rule is in spec/overlap.md.' >> "$tmp/t/docs/FORMATS.md"
echo 'As said in §4.2.' >> "$tmp/t/docs/MERGE.md"
echo 'This is quirk 12 of the reference.' >> "$tmp/t/docs/ANALYZE.md"
echo '# see layered-analysis.md' >> "$tmp/t/presets/posix.yaml"
printf 'static const char *m = "see ../shared/traces";\n' > "$tmp/t/src/x.c"
echo 'Use `--preset-show NAME`.' >> "$tmp/t/docs/PRESETS.md"
echo '`dfscope stats --preset dlio traces/`' >> "$tmp/t/docs/CLI.md"
echo 'See [the steps](STEPS.md#no-such-heading) and [this](NOSUCH.md).' >> "$tmp/t/docs/TIMELINE.md"
out=$(python3 "$CHECK" "$DFSCOPE" "$tmp/t" 2>&1); rc=$?
n=$((n + 1))
[ "$rc" = 1 ] || { echo "FAIL: problems found but exit $rc"; fails=$((fails + 1)); }
for want in "docs/FORMATS.md:" "spec/'" "docs/MERGE.md:" "cites '§'" "cites 'quirk 1" \
            "presets/posix.yaml:" "src/x.c:1: a message cites '../shared'" \
            "no dfscope command has an option --preset-show" "'dfscope stats' has no option --preset" \
            "STEPS.md#no-such-heading: no heading" "NOSUCH.md leads to no file" \
            "problems in"; do
  n=$((n + 1))
  grep -qF -- "$want" <<< "$out" || { echo "FAIL: not found: $want"; fails=$((fails + 1)); }
done
[ "$fails" -eq 0 ] || echo "$out" | sed 's/^/  /'
if grep -q 'src/y.c\|cmake' <<< "$out"; then
  echo "FAIL: an allowed citation or option was reported"; fails=$((fails + 1))
fi

echo "check_docs_test.sh: $((n - fails)) of $n cases as expected"
[ "$fails" -eq 0 ]

#!/usr/bin/env bash
# docs.sh DFSCOPE TRACES - docs/CLI.md's option tables are what the binary declares
# (scripts/cli-doc.sh regenerates them); the corpus is not needed.
set -u
DFSCOPE=$1
here=$(dirname "$0")
. "$here/testlib.bash"

check "docs/CLI.md agrees with the binary (run scripts/cli-doc.sh)" \
    bash "$here/../../scripts/cli-doc.sh" --check "$DFSCOPE" "$here/../../docs/CLI.md"
code 2 "markdown of an unknown command" "$DFSCOPE" help --markdown nosuch
for cmd in stats analyze overlap tasks steps gpu dataloader timeline merge rules gen; do
  code 0 "markdown of $cmd" "$DFSCOPE" help --markdown "$cmd"
  check "$cmd: a table of options" grep -q '^| option | meaning |$' "$T/out"
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

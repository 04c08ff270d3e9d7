#!/usr/bin/env bash
# check_layers_test.sh ROOT - shows that tests/tools/check_layers.py fails on each kind of break of
# the layering rule: it copies the real docs/ARCHITECTURE.md beside a small tree of src/ files,
# breaks the rule one way at a time, and expects exit 1 and the message that names the break.
set -u
ROOT=${1:?usage: check_layers_test.sh ROOT}
CHECK="$ROOT/tests/tools/check_layers.py"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0 n=0

# A tree that keeps the rule: an analysis on common, output on the analysis, cli on output.
good_tree() {
  rm -rf "$tmp/t" && mkdir -p "$tmp/t/docs" && cp "$ROOT/docs/ARCHITECTURE.md" "$tmp/t/docs/"
  # every folder the document names, so that each row of its table has a folder
  for d in $(grep -o '^| `src/[a-z_/]*/`' "$ROOT/docs/ARCHITECTURE.md" | sed 's/^| `src\///; s/\/`$//' | sort -u); do
    mkdir -p "$tmp/t/src/$d" && echo '#include "dfscope.h"' > "$tmp/t/src/$d/x.c"
  done
  echo '#include "util/arena.h"' > "$tmp/t/src/analyze/common/c.c"
  printf '#include "analyze/common/c.h"\n#include "analyze/layered/layered_internal.h"\n' > "$tmp/t/src/analyze/layered/l.c"
  echo '#include "analyze/layered/layered.h"' > "$tmp/t/src/output/o.c"
  echo '#include "output/o.h"' > "$tmp/t/src/cli/m.c"
}

expect() { # LABEL, EXIT, TEXT: the checker's exit status and a line of its output
  n=$((n + 1))
  out=$(python3 "$CHECK" "$tmp/t" 2>&1); rc=$?
  if [ "$rc" != "$2" ] || ! grep -qF -- "$3" <<< "$out"; then
    echo "FAIL: $1: exit $rc (want $2), output:"; echo "$out" | sed 's/^/  /'
    fails=$((fails + 1))
  fi
}

good_tree
expect "a tree that keeps the rule" 0 "keep the layering"

good_tree; echo '#include "analyze/layered/layered.h"' >> "$tmp/t/src/read/x.c"
expect "a lower layer including a higher one" 1 "src/read/x.c: includes analyze/layered/layered.h"

good_tree; echo '#include "analyze/overlap/overlap.h"' >> "$tmp/t/src/analyze/layered/x.c"
expect "an analysis including another" 1 "src/analyze/layered/ may not include src/analyze/overlap/"

good_tree; echo '#include "analyze/layered/layered.h"' >> "$tmp/t/src/analyze/common/x.c"
expect "common including an analysis" 1 "src/analyze/common/x.c: includes analyze/layered/layered.h"

good_tree; echo '#include "analyze/layered/layered_internal.h"' >> "$tmp/t/src/output/x.c"
expect "a private header of another folder" 1 "a private header of another folder"

good_tree; mkdir -p "$tmp/t/src/newlayer" && echo 'int x;' > "$tmp/t/src/newlayer/n.c"
expect "a folder the table does not name" 1 "src/newlayer/: no row"

good_tree; rm -rf "$tmp/t/src/wire"
expect "a row naming no folder" 1 "src/wire/: a row of the 'may include' table names no folder"

good_tree; sed -i 's/^| `src\/util\/` | (nothing but itself) |$/| `src\/util\/` | `src\/model\/` |/' "$tmp/t/docs/ARCHITECTURE.md"
echo '#include "model/m.h"' >> "$tmp/t/src/util/x.c"; echo '#include "util/u.h"' >> "$tmp/t/src/model/x.c"
expect "a cycle the table allows" 1 "include cycle between folders"

good_tree; sed -i '/may include/,$d' "$tmp/t/docs/ARCHITECTURE.md"
expect "no table" 2 "no 'may include' table"

echo "check_layers_test: $((n - fails)) passed, $fails failed"
[ "$fails" = 0 ]

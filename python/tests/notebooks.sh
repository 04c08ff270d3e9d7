#!/usr/bin/env bash
# notebooks.sh EXAMPLES - runs every notebook of EXAMPLES top to bottom with Debian's nbconvert
# (python3 kernel) into a temporary directory; fails on the first cell that raises. Exit 77
# (skipped) when nbconvert or the kernel is not installed.
set -u
dir=$1
if ! command -v jupyter-nbconvert >/dev/null || ! /usr/bin/python3 -c 'import ipykernel, matplotlib' 2>/dev/null; then
  echo "notebooks: skipped (jupyter-nbconvert, python3-ipykernel or python3-matplotlib missing: scripts/deps.sh test)"
  exit 77
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
export JUPYTER_PLATFORM_DIRS=1
rc=0
for nb in "$dir"/*.ipynb; do
  if (cd "$dir" && jupyter-nbconvert --to notebook --execute --ExecutePreprocessor.timeout=240 \
        --ExecutePreprocessor.kernel_name=python3 --output-dir "$out" "$nb" >"$out/log" 2>&1); then
    echo "ok: $(basename "$nb")"
  else
    echo "FAIL: $(basename "$nb")"; tail -30 "$out/log"; rc=1
  fi
done
exit $rc

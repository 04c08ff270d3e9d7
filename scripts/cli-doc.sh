#!/usr/bin/env bash
# cli-doc.sh - regenerates the option tables of docs/CLI.md from the binary's declarations, or
# checks them (--check: exit 1 and a diff when the document and the binary disagree).
# A block is the text between
#   <!-- dfscope help --markdown NAME -->      and      <!-- end of generated block -->
# and is replaced by the output of `dfscope help --markdown NAME`.
# Usage: scripts/cli-doc.sh [--check] DFSCOPE [docs/CLI.md]
set -euo pipefail

check=0
if [[ ${1:-} == --check ]]; then
    check=1
    shift
fi
bin=${1:?usage: cli-doc.sh [--check] DFSCOPE [docs/CLI.md]}
doc=${2:-$(dirname "$0")/../docs/CLI.md}

new=$(mktemp)
trap 'rm -f "$new"' EXIT
in_block=0
while IFS= read -r line || [[ -n $line ]]; do
    if [[ $in_block -eq 1 ]]; then
        [[ $line == '<!-- end of generated block -->' ]] || continue
        in_block=0
    fi
    printf '%s\n' "$line" >>"$new"
    if [[ $line =~ ^'<!-- dfscope help --markdown '([a-z-]+)' -->'$ ]]; then
        "$bin" help --markdown "${BASH_REMATCH[1]}" >>"$new"
        in_block=1
    fi
done <"$doc"
if [[ $in_block -eq 1 ]]; then
    echo "cli-doc.sh: $doc: a generated block is not closed" >&2
    exit 1
fi

if [[ $check -eq 1 ]]; then
    if ! diff -u "$doc" "$new"; then
        echo "cli-doc.sh: $doc disagrees with $bin: run scripts/cli-doc.sh $bin" >&2
        exit 1
    fi
elif ! cmp -s "$doc" "$new"; then
    cp "$new" "$doc"
    echo "cli-doc.sh: $doc regenerated"
fi

#!/usr/bin/env python3
"""check_layers.py ROOT - whether every #include under ROOT/src keeps the layering rule.

The rule is not written here: it is the "may include" table of docs/ARCHITECTURE.md, so that the
document a newcomer reads and the check that enforces it cannot drift apart. Each row names a
folder (`src/read/`; `src/analyze/*/` stands for every analysis folder) and the folders its files
may include besides their own and include/dfscope.h. The check then enforces:

  1. a file includes only its own folder, the folders its row allows, and the public header;
  2. a private header (*_internal.h) is included only by files of its own folder;
  3. there is no include cycle between folders (so none between files of different analyses);
  4. every folder under src/ that holds code has a row, and every row names a folder that exists.

Exit status 0 when the tree keeps the rule, 1 with one line per violation otherwise, 2 when the
table cannot be read.
"""
import os
import re
import sys

ROW = re.compile(r"^\|\s*`(src/[a-z_/*]+/)`\s*\|([^|]*)\|\s*$")
FOLDER = re.compile(r"`(src/[a-z_/*]+/)`")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def read_table(doc):
    """{folder pattern: set of folder patterns it may include}, from the table's rows."""
    rules = {}
    in_table = False
    with open(doc, encoding="utf-8") as f:
        for line in f:
            if line.startswith("| folder") and "may include" in line:
                in_table = True
                continue
            if in_table and not line.startswith("|"):
                break
            m = ROW.match(line) if in_table else None
            if m:
                rules[m.group(1)] = set(FOLDER.findall(m.group(2)))
    return rules


def folder_of(path):
    return os.path.dirname(path) + "/"


def matches(pattern, folder):
    """src/analyze/*/ matches every analysis folder but src/analyze/common/."""
    if pattern.endswith("/*/"):
        base = pattern[:-2]
        rest = folder[len(base):] if folder.startswith(base) else ""
        return rest.count("/") == 1 and rest != "common/"
    return pattern == folder


def rule_for(rules, folder):
    for pattern in rules:
        if matches(pattern, folder):
            return pattern
    return None


def allowed(rules, src_folder, dst_folder):
    if src_folder == dst_folder:
        return True
    pattern = rule_for(rules, src_folder)
    return any(matches(p, dst_folder) for p in rules.get(pattern, ()))


def find_cycle(edges):
    """A cycle in the folder graph as a list of folders, or None."""
    state = {}

    def visit(node, stack):
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if not state.get(nxt):
                found = visit(nxt, stack)
                if found:
                    return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if not state.get(node):
            found = visit(node, [])
            if found:
                return found
    return None


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    doc = os.path.join(root, "docs", "ARCHITECTURE.md")
    rules = read_table(doc)
    if not rules:
        print(f"check_layers: no 'may include' table in {doc}", file=sys.stderr)
        return 2
    problems = []
    edges = {}
    code_folders = set()
    for dirpath, _, names in os.walk(os.path.join(root, "src")):
        for name in sorted(names):
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.relpath(os.path.join(dirpath, name), root)
            src_folder = folder_of(path)
            code_folders.add(src_folder)
            if rule_for(rules, src_folder) is None:
                continue  # reported once per folder below
            with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
                text = f.read()
            for target in INCLUDE.findall(text):
                if target == "dfscope.h" or target == "dfscope_problems.def" or "/" not in target:
                    continue
                dst_folder = folder_of("src/" + target)
                if dst_folder != src_folder:
                    edges.setdefault(src_folder, set()).add(dst_folder)
                if not allowed(rules, src_folder, dst_folder):
                    problems.append(f"{path}: includes {target}, but {src_folder} may not include "
                                    f"{dst_folder} (docs/ARCHITECTURE.md)")
                elif target.endswith("_internal.h") and dst_folder != src_folder:
                    problems.append(f"{path}: includes {target}, a private header of another folder")
    for folder in sorted(code_folders):
        if rule_for(rules, folder) is None:
            problems.append(f"{folder}: no row in the 'may include' table of docs/ARCHITECTURE.md")
    for pattern in sorted(rules):
        if not any(matches(pattern, f) for f in code_folders):
            problems.append(f"{pattern}: a row of the 'may include' table names no folder with code")
    cycle = find_cycle(edges)
    if cycle:
        problems.append("include cycle between folders: " + " -> ".join(cycle))
    for p in problems:
        print(p)
    if not problems:
        print(f"check_layers: {sum(len(v) for v in edges.values())} folder dependencies over "
              f"{len(code_folders)} folders keep the layering of docs/ARCHITECTURE.md")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

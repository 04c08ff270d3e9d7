#!/usr/bin/env python3
"""check_docs.py DFSCOPE ROOT - the product documentation is self-contained and names real options.

Two rules, each a list of findings (FILE:LINE: what is wrong) and exit 1 when any is found:

1. No citation of what a user of the repository cannot open: the development specs and reference
   numbers (`spec/`, `reference/`, `../shared`, their file names), their section marks and numbers
   (`§`, "section 4", "quirk 12"). Checked in README.md, docs/*.md, the shipped presets (printed by
   `analyze --show-preset`), every command's help, and the string literals of src/ (messages and
   report text; comments are for developers, who have the specs, and are not checked).
2. Every `--option` that README.md or docs/*.md names exists in the CLI. Where the line names the
   command (`dfscope analyze ... --views`), the option must be one of that command's; otherwise it
   must be an option of some command. Options of other programs on the same line (cmake, srun,
   valgrind, ...) are recognised by the nearest program name before them and skipped.
3. Every relative link of README.md and docs/*.md leads somewhere: the file exists, and a `#anchor`
   names a heading of the target (GitHub's rule: lower case, punctuation dropped, spaces to `-`).

The options are read from the binary (`dfscope CMD --help`), so the check follows the CLI as built.
"""
import re
import subprocess
import sys
from pathlib import Path

CITATION = re.compile(
    r"\.\./shared|/work/shared|(?<![\w/.-])(?:spec|reference)/|§"
    r"|\b[Ss]ections? \d|\b[Qq]uirks? #?\d"
    r"|(?<![\w/.-])(?:formats|layered-analysis|overlap|training-loop|dasf-tasks|gpu-analyses"
    r"|performance-notes|dlio-unet3d-hdf5-8rank|dasf)\.md\b")

OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
# Programs whose own options docs mention; the nearest program name before an option owns it.
PROGRAM = re.compile(r"\b(dfscope|cmake|ctest|make|mpirun|mpiexec|srun|sbatch|SBATCH|perf|valgrind"
                     r"|git|python3?|gcc|clang|apt-get)\b")
# What `dfscope` itself takes before a command (`dfscope --version`, `dfscope help --markdown CMD`).
TOP_LEVEL = {"--version", "--help", "--markdown"}


def run(binary, *args):
    return subprocess.run([binary, *args], capture_output=True, text=True, check=False).stdout


def commands(binary):
    """The command names listed by `dfscope help`."""
    names, listing = [], False
    for line in run(binary, "help").splitlines():
        if line.strip() == "commands:":
            listing = True
        elif listing and re.match(r"^  [a-z]+ ", line):
            names.append(line.split()[0])
        elif listing and names and not line.strip():
            break
    return names


def options_of(helps):
    """Each command's options, as its --help names them (shared ones included)."""
    return {c: set(OPTION.findall(text)) | {"--help"} for c, text in helps.items()}


def find_citations(name, text, findings):
    for no, line in enumerate(text.splitlines(), 1):
        for m in CITATION.finditer(line):
            findings.append(f"{name}:{no}: cites '{m.group(0)}', which a user cannot open: "
                            "say what it means instead")


def c_string_literals(text):
    """(line, literal) of every string literal outside comments and character constants."""
    out, i, n, line = [], 0, len(text), 1
    while i < n:
        ch = text[i]
        if text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            line += text.count("\n", i, end)
            i = end
        elif text.startswith("//", i):
            i = text.find("\n", i)
            i = n if i < 0 else i
        elif ch in "\"'":
            j = i + 1
            while j < n and text[j] != ch:
                j += 2 if text[j] == "\\" else 1
            if ch == '"':
                out.append((line, text[i + 1:j]))
            line += text.count("\n", i, j)
            i = j + 1
        else:
            line += ch == "\n"
            i += 1
    return out


def logical_lines(text):
    """Lines of a Markdown file, with shell continuations (`\\` at the end) joined to the next."""
    pending, start = "", 0
    for no, line in enumerate(text.splitlines(), 1):
        if not pending:
            start = no
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        yield start, pending + line
        pending = ""
    if pending:
        yield start, pending


def check_options(name, text, per_cmd, findings):
    every = set().union(*per_cmd.values()) | TOP_LEVEL
    # a document that shows dfscope refusing a mistyped option (its "unknown option '--prest'"
    # message) names that option on purpose
    mistyped = set(re.findall(r"unknown option '(--[\w-]+)'", text))
    for no, line in logical_lines(text):
        owners = list(PROGRAM.finditer(line))
        for m in OPTION.finditer(line):
            opt = m.group(0)
            if opt in mistyped:
                continue
            before = [p for p in owners if p.end() <= m.start()]
            if before and before[-1].group(1) != "dfscope":
                continue  # another program's option
            if before:
                rest = line[before[-1].end():m.start()].split()
                cmd = rest[0] if rest else ""
                if cmd in per_cmd:
                    if opt not in per_cmd[cmd]:
                        findings.append(f"{name}:{no}: 'dfscope {cmd}' has no option {opt}")
                    continue
                if cmd == "help" or not rest:
                    if opt not in TOP_LEVEL and opt not in every:
                        findings.append(f"{name}:{no}: dfscope has no option {opt}")
                    continue
            if opt not in every:
                findings.append(f"{name}:{no}: no dfscope command has an option {opt}")


MD_LINK = re.compile(r"\]\(([^)\s]+)\)")


def heading_anchors(path):
    anchors, fenced = set(), False
    for line in path.read_text(encoding="utf-8").splitlines():
        fenced ^= line.startswith("```")
        m = None if fenced else re.match(r"^#{1,6} (.*)", line)
        if m:
            anchors.add(re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-"))
    return anchors


def check_links(path, rel, text, findings):
    for no, line in enumerate(text.splitlines(), 1):
        for m in MD_LINK.finditer(line):
            target = m.group(1)
            if re.match(r"^[a-z]+:", target):
                continue  # a URL
            file_part, _, anchor = target.partition("#")
            dest = path.parent / file_part if file_part else path
            if not dest.exists():
                findings.append(f"{rel}:{no}: the link {target} leads to no file")
            elif anchor and dest.suffix == ".md" and anchor not in heading_anchors(dest):
                findings.append(f"{rel}:{no}: the link {target}: no heading with that anchor")


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: check_docs.py DFSCOPE ROOT")
    binary, root = sys.argv[1], Path(sys.argv[2])
    cmds = commands(binary)
    if not cmds:
        sys.exit(f"check_docs.py: '{binary} help' lists no commands")
    helps = {c: run(binary, c, "--help") for c in cmds}
    per_cmd = options_of(helps)
    findings = []
    docs = [root / "README.md", *sorted((root / "docs").glob("*.md"))]
    for path in docs:
        text = path.read_text(encoding="utf-8")
        rel = path.relative_to(root).as_posix()
        find_citations(rel, text, findings)
        check_options(rel, text, per_cmd, findings)
        check_links(path, rel, text, findings)
    for path in sorted((root / "presets").glob("*.yaml")):
        find_citations(path.relative_to(root).as_posix(), path.read_text(encoding="utf-8"), findings)
    for cmd, text in helps.items():
        find_citations(f"dfscope {cmd} --help", text, findings)
    for path in sorted((root / "src").rglob("*.[ch]")):
        rel = path.relative_to(root).as_posix()
        for no, literal in c_string_literals(path.read_text(encoding="utf-8", errors="replace")):
            for m in CITATION.finditer(literal):
                findings.append(f"{rel}:{no}: a message cites '{m.group(0)}', which a user cannot open")
    for f in findings:
        print(f)
    print(f"check_docs.py: {len(findings)} problems in {len(docs)} documents, "
          f"{len(cmds)} commands' help, presets and messages")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env bash
# errors_help.sh DFSCOPE TRACES - errors that help: a mistyped command, option or value gets "did
# you mean" (util/suggest.c, one rule for all) and an unknown value lists the valid ones; every
# named path is checked before anything else is said or read; on a terminal the problem report
# comes after the results, in a few lines, and --problems full gives every example. No corpus
# needed: a small trace with damage is written here. The terminal is `script` (util-linux).
set -u
DFSCOPE=$1
. "$(dirname "$0")/testlib.bash"

"$DFSCOPE" gen -o "$T/gen" --format v1 --ranks 1 --size 64k --seed 5 >/dev/null 2>&1
F=$(ls "$T"/gen/*.pfw | head -1)
cp "$F" "$T/damaged.pfw"
printf 'not json 1\nnot json 2\nnot json 3\n{"id":1,"name":"cut' >>"$T/damaged.pfw"
D="$T/damaged.pfw"

says() { # description, fixed text stderr must hold
  check "$1" grep -qF -- "$2" "$T/err"
}
usage() { # description, fixed text on stderr, command args...: exit 2, nothing on stdout
  local what=$1 text=$2; shift 2
  code 2 "$what" "$DFSCOPE" "$@"
  says "$what: says \"$text\"" "$text"
  check "$what: nothing on stdout" [ ! -s "$T/out" ]
}

# --- commands: git's words -----------------------------------------------------------------------
usage "analyse" "dfscope: 'analyse' is not a command. Did you mean 'analyze'?" analyse "$D"
usage "help analyse" "dfscope: 'analyse' is not a command. Did you mean 'analyze'?" help analyse
usage "stast" "Did you mean 'stats'?" stast "$D"
usage "a unique prefix" "Did you mean 'dataloader'?" data "$D"
usage "far from every command" "dfscope: 'frobnicate' is not a command. See 'dfscope help'." frobnicate

# --- long options of every command, the shared ones too ------------------------------------------
usage "analyze --prest" "dfscope analyze: unknown option '--prest'. Did you mean '--preset'?" analyze --prest posix "$D"
usage "overlap --prest" "Did you mean '--preset'?" overlap --prest posix "$D"
usage "stats --jsn" "dfscope stats: unknown option '--jsn'. Did you mean '--json'?" stats --jsn "$D"
usage "steps --data-wiat" "Did you mean '--data-wait'?" steps --data-wiat 'cat == "x"' "$D"
usage "timeline --widht" "Did you mean '--width'?" timeline --widht 300 -o "$T/t.svg" "$D"
usage "merge --tmpdri" "Did you mean '--tmpdir'?" merge --tmpdri /tmp -o "$T/m.json" "$D"
usage "rules --parma" "Did you mean '--param'?" rules --parma x "$D"
usage "dataloader --getnxt" "Did you mean '--getnext'?" dataloader --getnxt x "$D"
usage "gen --worklaod" "Did you mean '--workload'?" gen --worklaod unet3d -o "$T/g2"
usage "tasks --stirct (shared)" "dfscope tasks: unknown option '--stirct'. Did you mean '--strict'?" tasks --stirct "$D"
usage "--hepl" "Did you mean '--help'?" stats --hepl
usage "an ambiguous prefix names its options" "'--c' is ambiguous; it could be --compute, --class, --chunk" overlap --c x "$D"
usage "a value to a flag" "dfscope stats: --json takes no value" stats --json=yes "$D"
usage "a missing value names the option" "dfscope stats: --top needs a value (N;" stats "$D" --top
usage "an unknown letter in a cluster" "dfscope stats: unknown option '-Z' (see 'dfscope stats --help')" stats --json -Zq "$D"
usage "a value to a flag with a letter" "dfscope stats: --quiet takes no value" stats --quiet=1 "$D"
usage "far from every option" "dfscope stats: unknown option '--frobnicate' (see 'dfscope stats --help')" stats --frobnicate "$D"

# --- values: the valid ones, and the closest -----------------------------------------------------
usage "a mistyped view" "unknown view 'tme_range'; the views are time_range (time), proc_name (proc), file_name (file), host_name (host), proc_id (pid), thread_id (tid). Did you mean 'time_range'?" analyze --views tme_range "$D"
usage "an unknown view lists them" "unknown view 'bogus'; the views are time_range (time)," analyze --views time,bogus "$D"
usage "a mistyped preset" "unknown preset 'poxis' (shipped: posix, dlio, dlio-g2, ai, auto, posix-g2; a file path contains '/' or ends in .yaml). Did you mean 'posix'?" analyze --preset poxis "$D"
usage "a mistyped shipped preset" "no shipped preset named 'dlo'; the shipped presets are posix, dlio, dlio-g2, ai, auto, posix-g2. Did you mean 'dlio'?" analyze --show-preset dlo
usage "a mistyped format" "--format is table, json or csv, not 'jsno'. Did you mean 'json'?" analyze --format jsno "$D"
usage "a mistyped choice" "--scope takes process, thread or global, not 'thred'. Did you mean 'thread'?" overlap --scope thred "$D"
usage "a mistyped compat mode" "not 'dfanalyser'. Did you mean 'dfanalyzer'?" analyze --compat dfanalyser "$D"
usage "a mistyped tasks analysis" "unknown analysis 'critical_pth'; the analyses are function_bottleneck, task_bottleneck, task_balance, critical_path, or all. Did you mean 'critical_path'?" tasks -a critical_pth -- "$D"
usage "a mistyped rule" "unknown rule 'LowGPUUtilisation'. Did you mean 'LowGPUUtilization'?" rules --rules LowGPUUtilisation "$D"
usage "a mistyped gen format" "unknown format 'chrme' (2023, v1, v1-h16, v2, chrome, dasf). Did you mean 'chrome'?" gen --format chrme -o "$T/g3"
usage "a mistyped column" "unknown column 'nme' at column 1 (did you mean 'name'?)" steps --io 'nme == "read"' "$D"
usage "an unknown column lists them" "(the columns are name, cat, func_name," steps --io 'nosuch == 1' "$D"
usage "a mistyped layer" "'posx' is neither a predicate nor a layer of preset posix (its layers: posix). Did you mean 'posix'?" overlap --preset posix --io posx "$D"
printf 'base: dlo\n' >"$T/base.yaml"
usage "a mistyped base preset" "base: 'dlo' is not a shipped preset (shipped: posix, dlio, dlio-g2, ai, auto, posix-g2). Did you mean 'dlio'?" analyze --preset "$T/base.yaml" "$D"
printf 'base: dlio\npost_read: {io_cat: {reed: []}}\n' >"$T/key.yaml"
usage "a mistyped preset key" "unknown key 'reed' in post_read.io_cat (expected one of: read, write, metadata, pctl, ipc, sync). Did you mean 'read'?" analyze --preset "$T/key.yaml" "$D"

# --- missing paths: before anything else, all of them, nothing read ------------------------------
code 2 "missing paths" "$DFSCOPE" analyze "$D" "$T/nope1.pfw" "$T/nope2/*.pfw"
check "missing paths: the first line names the first" grep -q "^dfscope analyze: $T/nope1.pfw: No such file or directory\$" <(head -1 "$T/err")
says "missing paths: the pattern named" "nope2/*.pfw"
check "missing paths: nothing else said (no preset line)" [ "$(wc -l <"$T/err")" = 2 ]
check "missing paths: nothing on stdout" [ ! -s "$T/out" ]
code 2 "a missing path among good ones" "$DFSCOPE" stats --json "$D" "$T/nope.pfw"
check "a missing path among good ones: no partial result" [ ! -s "$T/out" ]
check "a missing path among good ones: no problem report" [ "$(wc -l <"$T/err")" = 1 ]
for cmd in overlap steps dataloader rules tasks merge timeline; do
  code 2 "$cmd: a missing path" "$DFSCOPE" "$cmd" -o "$T/never" "$T/nope.pfw" "$D"
  says "$cmd: a missing path: named" "dfscope $cmd: $T/nope.pfw: No such file or directory"
  check "$cmd: a missing path: nothing written" [ ! -e "$T/never" ]
done

# --- the problem report ---------------------------------------------------------------------------
code 1 "into a file: the full report, as before" "$DFSCOPE" stats "$D"
says "into a file: every kind with its examples" "dfscope: bad_line: 4"
check "into a file: every example" [ "$(grep -c 'unparsable line' "$T/err")" = 4 ]
code 1 "--problems brief into a file" "$DFSCOPE" stats --problems brief "$D"
says "--problems brief: one line of counts" "dfscope: problems: incomplete_file 1, bad_line 4"
check "--problems brief: at most four lines" [ "$(wc -l <"$T/err")" -le 4 ]
says "--problems brief: the way to the full list" "dfscope: every example: --problems full"
usage "--problems takes brief or full" "--problems takes brief or full, not 'ful'. Did you mean 'full'?" stats --problems ful "$D"

if command -v script >/dev/null; then
  tty() { # command...: its output on a terminal in $T/tty; its exit code
    script -qec "$(printf '%q ' "$@")" /dev/null >"$T/tty.raw"
    local rc=$?
    tr -d '\r' <"$T/tty.raw" >"$T/tty"
    return $rc
  }
  tty "$DFSCOPE" stats --no-progress "$D"
  check "terminal: the exit code of the command" [ $? = 1 ]
  results=$(grep -n '^Events' "$T/tty" | head -1 | cut -d: -f1)
  summary=$(grep -n '^dfscope: problems: ' "$T/tty" | cut -d: -f1)
  check "terminal: the results are there" [ -n "$results" ]
  check "terminal: the summary comes after the results" [ -n "$summary" ] && [ "${summary:-0}" -gt "${results:-0}" ]
  check "terminal: the summary is the end, in at most four lines" [ "$(tail -n +"${summary:-1}" "$T/tty" | wc -l)" -le 4 ]
  check "terminal: the summary says how to see every example" grep -q -- '--problems full$' <(tail -1 "$T/tty")
  check "terminal: nothing of the full report" [ "$(grep -c 'unparsable line' "$T/tty")" -le 1 ]
  tty "$DFSCOPE" stats --no-progress --problems full "$D"
  full=$(grep -n '^dfscope: bad_line: 4' "$T/tty" | cut -d: -f1)
  check "terminal, --problems full: every example" [ "$(grep -c 'unparsable line' "$T/tty")" = 4 ]
  check "terminal, --problems full: after the results" [ -n "$full" ] && [ "${full:-0}" -gt "$(grep -n '^Events' "$T/tty" | head -1 | cut -d: -f1)" ]
  tty "$DFSCOPE" stats --no-progress -q "$D"
  check "terminal, -q: no report" [ "$(grep -c '^dfscope' "$T/tty")" = 0 ]
else
  echo "script (util-linux) not found: the terminal checks are skipped" >&2
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

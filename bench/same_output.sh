#!/usr/bin/env bash
# bench/same_output.sh NEW OLD - whether two dfscope builds give the same answers, over every
# command and every corpus folder. Each case runs both binaries with the same arguments in the same
# scratch directory and compares, byte for byte, what they leave: the exit code, stdout, stderr
# (the problem reports) and every file the command writes (SVG pictures, merged traces, CSV
# folders, task graphs, outlier windows, generated traces).
#
# Commands: stats (table, --json, --strict), analyze (JSON and terminal tables: the three
# semantics and all six views, presets dlio and dlio-g2 on DFTracer inputs; the auto-detected
# preset and CSV on every input), overlap (table, JSON, CSV, thread and global scope, bins, the
# approximate and g0-exact methods), steps, dataloader (with outlier windows), rules, tasks (with
# task graphs and CSV), timeline (the SVG and its summary, a window), merge (plain, gzipped with
# spilled sorted runs, Composer's byte-for-byte mode), gen (every format, gzipped or not), the
# listings (presets, rules, concepts), usage errors, and the help of dfscope and of each command.
#
# Inputs: every corpus folder under ../shared/traces (dftracer/*, chrome-json, composer, dasf,
# hta/*, kineto, smdebug/*; each one skipped when absent), bench/out/v1's first file when
# bench/run.sh made it, and small traces the OLD binary's `gen` writes into the scratch folder (v1,
# v1-h16 gzipped, v2 gzipped, 2023, Chrome JSON, DASF). Every command runs on every input: a
# command that does not apply to an input must still answer it the same way.
#
# Knobs:
#   SAME_OUTPUT_INPUTS="PATH..."  these inputs instead of the corpus folders and generated traces
#                                 (gen, help and usage cases still run)
#   SAME_OUTPUT_QUICK=1           every case once at -j 1; by default analyze and overlap run at
#                                 -j 1, at -j 3 with 64 KiB pieces and at -j 2 with --hold 2000
#                                 (streaming flushes), every other command at -j 1 and -j 2
#   SAME_OUTPUT_STRICT_HELP=1     a help text that differs fails the run; by default it is reported
#                                 as HELP-DIFFERENT and does not (help may be regenerated from a table)
#
# What is left out of the comparison, because it may differ between equal answers: analyze's and
# overlap's JSON is parsed and printed canonically without timings, peak RSS and the streaming
# bookkeeping (flushes, second_pass, second_pass_reason); the timing lines of stderr are dropped
# (see `untimed`); merge's spill counts are masked at -j > 1 (see `unspilled`). Everything else is
# compared as written. A case whose NEW run succeeds (exit 0 or
# 1) with JSON asked for and no JSON printed, or with no output at all, fails as NOT JSON or EMPTY.
#
# The scratch folder (mktemp -d) holds every file the commands write and is removed on exit,
# Ctrl-C included. Exit status 0 when every output is the same, 1 when some differ, 2 on a usage
# error. A summary line counts the cases per command.
set -u
shopt -s dotglob # a file a command leaves behind counts even when its name starts with a dot
usage="usage: bench/same_output.sh NEW OLD"
NEW=${1:?$usage}
OLD=${2:?$usage}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CORPUS=$ROOT/../shared/traces
QUICK=${SAME_OUTPUT_QUICK:-0}
STRICT_HELP=${SAME_OUTPUT_STRICT_HELP:-0}

# The runs happen inside the scratch folder, so the binaries are named by absolute path.
absolute() {
  case $1 in
    */*) [ -x "$1" ] && echo "$(cd "$(dirname "$1")" && pwd)/$(basename "$1")" ;;
    *) command -v "$1" ;;
  esac
}
for side in NEW OLD; do
  bin=$(absolute "${!side}") || bin=
  if [ -z "$bin" ] || [ ! -x "$bin" ]; then
    echo "bench/same_output.sh: $side binary '${!side}' is not an executable" >&2
    exit 2
  fi
  printf -v "$side" '%s' "$bin"
done

out=$(mktemp -d "${TMPDIR:-/tmp}/same_output.XXXXXX") || exit 2
# On exit: the JSON reader below is told to end (its stdin closed) and waited for, then the
# scratch folder goes. A signal ends the script through exit, so that this runs then too.
# shellcheck disable=SC2317 # called by the trap
finish() {
  if [ -n "${JSONPROC_PID:-}" ]; then
    local pid=$JSONPROC_PID
    eval "exec ${JSONPROC[1]}>&-"
    wait "$pid" 2> /dev/null
  fi
  rm -rf "$out"
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# One Python process for the whole run answers JSON questions (a Python start per case cost more
# than most of the runs): "check PATH" says whether PATH holds JSON; "canonical PATH" writes
# PATH.canonical, the document printed canonically without timings, peak RSS and the streaming
# bookkeeping. It ignores Ctrl-C and ends when the script does (its stdin closes).
coproc JSONPROC {
  exec python3 -u -c '
import json, re, signal, sys
signal.signal(signal.SIGINT, signal.SIG_IGN)
drop = re.compile(r"^(elapsed_s|flushes|second_pass|second_pass_reason|wall_s|cpu_s|peak_rss[a-z_]*)$")
def strip(v):
    if isinstance(v, dict):
        return {k: strip(x) for k, x in v.items() if not drop.match(k)}
    return [strip(x) for x in v] if isinstance(v, list) else v
for line in sys.stdin:
    verb, path = line.rstrip("\n").split(" ", 1)
    try:
        with open(path, "rb") as f:
            doc = json.loads(f.read())
    except ValueError:
        print("bad")
        continue
    if verb == "canonical":
        with open(path + ".canonical", "w") as f:
            f.write(json.dumps(strip(doc), sort_keys=True, indent=0) + "\n")
    print("ok")
'
}
json_ask() { # VERB PATH: true when PATH holds JSON
  local reply=
  echo "$1 $2" >&"${JSONPROC[1]}"
  read -r reply <&"${JSONPROC[0]}"
  [ "$reply" = ok ]
}
echo '{}' > "$out/probe.json"
if ! json_ask check "$out/probe.json"; then
  echo "bench/same_output.sh: python3 is needed to read JSON" >&2
  exit 2
fi

# stderr without its timing lines: analyze's and overlap's --timing line (wall time, peak RSS) and
# the time and rate closing gen's total line. Progress lines never appear: stderr is a file here.
untimed() {
  sed -E -e '/^dfscope (analyze|overlap): [0-9.]+ s wall /d' \
    -e 's/^(total: .*\)) in [0-9.]+ s, [0-9.]+ MB\/s$/\1 in (time)/' "$1"
}

# run_side SIDE BIN ARGS...: one run in a fresh $out/w, the same path for both binaries so that
# messages naming output files agree; stdout and stderr land in $out/SIDE.stdout and .stderr, the
# files it wrote in $out/SIDE, its exit code in RC_SIDE.
run_side() {
  local side=$1 bin=$2
  shift 2
  mkdir "$out/w"
  (cd "$out/w" && exec "$bin" "$@" > "$out/$side.stdout" 2> "$out/$side.stderr")
  printf -v "RC_$side" '%d' $?
  mv "$out/w" "$out/$side"
}
wrote() { # SIDE: whether the run left any file or folder
  local written=("$out/$1"/*)
  [ -e "${written[0]}" ]
}

# merge's spill bookkeeping with its numbers masked: at -j > 1 how many sorted runs the reading
# threads spill (and so the intermediate merge passes, and the bytes: a buffer kept in memory
# before another thread's first spill is never spilled) depends on which thread read which file
# when; the merged trace does not. Masked in the summary line of the table and the three JSON keys.
unspilled() {
  sed -E -e 's/^spilled: .* runs, .*$/spilled: (varies)/' \
    -e 's/^( *"(runs_spilled|bytes_spilled|merge_passes)": )[0-9]+/\1(varies)/' "$1"
}

# same_output FILTER: whether the two runs match - exit codes, stdout (canonical JSON, or merge's
# spill numbers masked when SPILL_VARIES, compared only when the bytes differ), stderr (timing lines
# dropped only when the bytes differ) and the files written (diff -r: names, folders, bytes).
same_output() {
  [ "$RC_NEW" = "$RC_OLD" ] || return 1
  if ! cmp -s "$out/NEW.stdout" "$out/OLD.stdout"; then
    if [ "$1" = canonical ]; then
      json_ask canonical "$out/NEW.stdout" && json_ask canonical "$out/OLD.stdout" || return 1
      cmp -s "$out/NEW.stdout.canonical" "$out/OLD.stdout.canonical" || return 1
    else
      [ "$SPILL_VARIES" = 1 ] || return 1
      cmp -s <(unspilled "$out/NEW.stdout") <(unspilled "$out/OLD.stdout") || return 1
    fi
  fi
  if ! cmp -s "$out/NEW.stderr" "$out/OLD.stderr"; then
    cmp -s <(untimed "$out/NEW.stderr") <(untimed "$out/OLD.stderr") || return 1
  fi
  if wrote NEW || wrote OLD; then
    diff -rq "$out/NEW" "$out/OLD" > /dev/null || return 1
  fi
}

# The start of each difference: exit codes, stdout (canonical when both are JSON), stderr, files
# (gunzipped when .gz).
show_difference() {
  [ "$RC_NEW" = "$RC_OLD" ] || echo "  exit $RC_NEW (NEW) and $RC_OLD (OLD)"
  local new=$out/NEW.stdout old=$out/OLD.stdout
  if [ -e "$new.canonical" ] && [ -e "$old.canonical" ]; then new=$new.canonical old=$old.canonical; fi
  if [ "$SPILL_VARIES" = 1 ]; then
    diff <(unspilled "$new") <(unspilled "$old")
  else
    diff "$new" "$old"
  fi | head -8 | sed 's/^/  stdout: /'
  diff <(untimed "$out/NEW.stderr") <(untimed "$out/OLD.stderr") | head -6 | sed 's/^/  stderr: /'
  diff -rq "$out/NEW" "$out/OLD" | sed "s|$out/||g; s/^/  files: /"
  (cd "$out/NEW" && find . -type f | LC_ALL=C sort) | while IFS= read -r f; do
    if [ ! -f "$out/OLD/$f" ] || cmp -s "$out/NEW/$f" "$out/OLD/$f"; then continue; fi
    case $f in
      *.gz) diff <(gzip -dc "$out/NEW/$f") <(gzip -dc "$out/OLD/$f") ;;
      *) diff "$out/NEW/$f" "$out/OLD/$f" ;;
    esac | head -6 | sed "s|^|  $f: |"
  done
}

declare -A cases differ
COMMANDS=()
rc=0 n=0 help_differ=0
# compare COMMAND LABEL FILTER ARGS...: FILTER is canonical (analyze's and overlap's JSON), json
# (compared as printed, but it must parse) or text. COMMAND only groups the counts; help's cases
# differ as HELP-DIFFERENT.
compare() {
  local command=$1 label=$2 filter=$3
  shift 3
  rm -rf "${out:?}/NEW" "${out:?}/OLD" "$out"/*.canonical
  SPILL_VARIES=0
  if [ "$command" = merge ]; then # parallel unless -j 1
    SPILL_VARIES=1
    local prev='' arg
    for arg in "$@"; do
      [ "$prev $arg" = "-j 1" ] && SPILL_VARIES=0
      prev=$arg
    done
  fi
  run_side NEW "$NEW" "$@"
  run_side OLD "$OLD" "$@"
  [ -n "${cases[$command]:-}" ] || { COMMANDS+=("$command"); cases[$command]=0; differ[$command]=0; }
  cases[$command]=$((cases[$command] + 1))
  n=$((n + 1))
  local verdict=
  if [ "$command" != help ] && [ "$RC_NEW" -le 1 ]; then
    if [ "$filter" != text ] && ! json_ask check "$out/NEW.stdout"; then
      verdict="NOT JSON"
    elif [ ! -s "$out/NEW.stdout" ] && ! wrote NEW; then
      verdict=EMPTY
    fi
  fi
  if [ -z "$verdict" ] && ! same_output "$filter"; then
    verdict=DIFFERENT
    [ "$command" = help ] && verdict=HELP-DIFFERENT
  fi
  [ -n "$verdict" ] || return 0
  echo "$verdict: $label"
  [ "$verdict" = EMPTY ] || [ "$verdict" = "NOT JSON" ] || show_difference
  differ[$command]=$((differ[$command] + 1))
  if [ "$verdict" = HELP-DIFFERENT ]; then
    help_differ=$((help_differ + 1))
    [ "$STRICT_HELP" = 1 ] && rc=1
  else
    rc=1
  fi
}

if [ "$QUICK" = 1 ]; then
  J_STREAM=("-j 1")
  J_OTHER=("-j 1")
else
  J_STREAM=("-j 1" "-j 3 --chunk 64K" "-j 2 --hold 2000")
  J_OTHER=("-j 1" "-j 2")
fi

# Inputs: a path, a name for the labels, and a kind (dftracer gets analyze's whole matrix).
IN_PATH=() IN_NAME=() IN_KIND=()
add_input() { IN_PATH+=("$1"); IN_NAME+=("$2"); IN_KIND+=("$3"); }
kind_of() {
  case $1 in
    *dftracer*|*.pfw|*.pfw.gz) echo dftracer ;;
    *) if compgen -G "$1/*.pfw*" > /dev/null; then echo dftracer; else echo other; fi ;;
  esac
}
generate() { # NAME, then gen's options: a small trace written by OLD, inside the scratch folder
  local name=$1
  shift
  if ! "$OLD" gen -q -o "$out/gen/$name" "$@"; then
    echo "bench/same_output.sh: OLD's gen $* failed" >&2
    exit 2
  fi
}
if [ -n "${SAME_OUTPUT_INPUTS:-}" ]; then
  read -r -a paths <<< "$SAME_OUTPUT_INPUTS"
  for p in "${paths[@]}"; do
    add_input "$(cd "$(dirname "$p")" && pwd)/$(basename "$p")" "$p" "$(kind_of "$p")"
  done
else
  for d in "$CORPUS"/dftracer/*/ "$CORPUS"/chrome-json/ "$CORPUS"/composer/ "$CORPUS"/dasf/ \
    "$CORPUS"/hta/*/ "$CORPUS"/kineto/ "$CORPUS"/smdebug/*/; do
    [ -d "$d" ] || continue
    d=${d%/}
    add_input "$d" "${d#"$CORPUS"/}" "$(kind_of "$d")"
  done
  v1=$ROOT/bench/out/v1/trace-0-of-16.pfw
  [ -e "$v1" ] && add_input "$v1" bench/out/v1/trace-0-of-16.pfw dftracer
  generate v1 --format v1 --ranks 4 --events 4000
  generate v1-h16 --format v1-h16 --gzip --workload resnet50 --ranks 3 --events 3000 --seed 2
  generate v2 --format v2 --gzip --member-size 64k --ranks 3 --events 4000 --seed 3
  generate 2023 --format 2023 --ranks 2 --events 3000 --seed 4
  generate chrome --format chrome --ranks 2 --events 3000 --seed 5
  generate dasf --format dasf --ranks 2 --events 400 --seed 6
  for g in v1 v1-h16 v2 2023; do add_input "$out/gen/$g" "gen:$g" dftracer; done
  for g in chrome dasf; do add_input "$out/gen/$g" "gen:$g" other; done
fi
if [ ${#IN_PATH[@]} -eq 0 ]; then
  echo "bench/same_output.sh: no inputs (no ../shared/traces; or set SAME_OUTPUT_INPUTS)" >&2
  exit 2
fi

started=$(date +%s)
VIEWS=time_range,proc_name,file_name,host,pid,tid

# $j is split on purpose below: it holds -j N and the options that go with it.
# shellcheck disable=SC2086
for i in "${!IN_PATH[@]}"; do
  p=${IN_PATH[$i]} name=${IN_NAME[$i]} kind=${IN_KIND[$i]}
  for j in "${J_STREAM[@]}"; do
    if [ "$kind" = dftracer ]; then
      for mode in exact dfanalyzer dfanalyzer-sum; do
        compat=()
        [ "$mode" != exact ] && compat=(--compat "$mode")
        compare analyze "analyze $mode $j $name" canonical analyze "${compat[@]}" $j \
          --views $VIEWS --format json -q "$p"
        for preset in dlio dlio-g2; do
          compare analyze "analyze table $preset $mode $j $name" text analyze --preset $preset \
            "${compat[@]}" $j --views $VIEWS -q "$p"
        done
      done
    fi
    # The preset detected from the categories, and the problem report on stderr.
    compare analyze "analyze auto $j $name" canonical analyze $j --views $VIEWS --format json "$p"
    compare analyze "analyze auto table 500ms $j $name" text analyze $j --views $VIEWS \
      --granularity 500ms "$p"
    compare analyze "analyze csv $j $name" text analyze $j --views $VIEWS --format csv -o csv -q "$p"

    compare overlap "overlap $j $name" canonical overlap --preset dlio $j --format json -q "$p"
    compare overlap "overlap table $j $name" text overlap --preset dlio $j -q "$p"
    compare overlap "overlap auto thread global 1s $j $name" canonical overlap $j --scope thread \
      --global --granularity 1s --format json "$p"
    compare overlap "overlap approximate $j $name" text overlap $j --method approximate -q "$p"
    compare overlap "overlap g0-exact $j $name" canonical overlap $j --method g0-exact \
      --scope global --format json -q "$p"
    compare overlap "overlap csv $j $name" text overlap --preset dlio $j --granularity 1s \
      --format csv -o csv -q "$p"
  done

  for j in "${J_OTHER[@]}"; do
    compare stats "stats $j $name" text stats $j "$p"
    compare stats "stats json $j $name" json stats $j --json --top 0 -v --examples 2 "$p"

    compare steps "steps $j $name" text steps $j "$p"
    compare steps "steps json $j $name" json steps $j --format json "$p"
    compare steps "steps csv $j $name" text steps $j --format csv -q "$p"
    compare steps "steps concepts $j $name" text steps $j --concepts "$p"
    compare steps "steps thresholds json $j $name" json steps $j --head 0 --include-flagged \
      --threshold 1 --outlier-factor 1.5 --format json -q "$p"

    compare dataloader "dataloader $j $name" text dataloader $j "$p"
    compare dataloader "dataloader json $j $name" json dataloader $j --format json -q "$p"
    compare dataloader "dataloader csv $j $name" text dataloader $j --format csv -o csv -q "$p"
    compare dataloader "dataloader windows $j $name" text dataloader $j --windows win \
      --max-windows 3 --window-events 5 -q "$p"

    compare rules "rules $j $name" text rules $j "$p"
    compare rules "rules json $j $name" json rules $j --format json -q "$p"
    compare rules "rules csv $j $name" text rules $j --format csv -q "$p"
    compare rules "rules smdebug json $j $name" json rules $j --compat smdebug --format json -q "$p"

    compare tasks "tasks $j $name" text tasks $j "$p"
    compare tasks "tasks json $j $name" json tasks $j --format json -q "$p"
    compare tasks "tasks dasf $j $name" text tasks $j --compat dasf -q "$p"
    compare tasks "tasks all json csv graphml $j $name" json tasks $j -a all --head 0 \
      --fill-seconds --bucket 0.5 --format json -o csv --graph graph.graphml -q "$p"
    compare tasks "tasks dot $j $name" text tasks $j --graph graph.dot -q "$p"

    compare timeline "timeline $j $name" text timeline $j -o timeline.svg "$p"
    compare timeline "timeline json $j $name" json timeline $j --format json --lanes 8 \
      --width 600 --depth 3 --title "same output" -o timeline.svg -q "$p"
    compare timeline "timeline window $j $name" text timeline $j -w +100ms:+2s -o window.svg -q "$p"

    compare merge "merge $j $name" text merge $j -o merged.json "$p"
    compare merge "merge json gz spilled $j $name" json merge $j --format json --memory 64k \
      --tmpdir . -o merged.json.gz -q "$p"
    compare merge "merge composer $j $name" text merge $j --compat composer -o composer.json -q "$p"
  done
  compare stats "stats strict $name" text stats -j 1 --strict -q "$p"
done

# gen: every format, plain and gzipped, and the other options; the files and the listing compared.
# shellcheck disable=SC2086
for j in "${J_OTHER[@]}"; do
  for format in 2023 v1 v1-h16 v2 chrome dasf; do
    for gz in "" --gzip; do
      compare gen "gen $format $gz $j" text gen $j -o g --format $format $gz --ranks 3 --events 1500 --list
    done
  done
  compare gen "gen resnet50 size $j" text gen $j -o g --workload resnet50 --size 512k --seed 9 --list
  compare gen "gen v2 members $j" text gen $j -o g --format v2 --gzip --member-size 32k \
    --ranks 2 --events 3000
  compare gen "gen quiet $j" text gen $j -o g --ranks 1 --events 500 -q
done

# Listings and usage errors: ordinary outputs, compared strictly.
DLIO=$CORPUS/dftracer/dlio-unet3d-hdf5-8rank
[ -d "$DLIO" ] || DLIO=${IN_PATH[0]}
compare dfscope "dfscope --version" text --version
compare dfscope "dfscope bogus" text bogus
compare analyze "analyze --list-presets" text analyze --list-presets
for preset in posix dlio dlio-g2 ai; do
  compare analyze "analyze --show-preset $preset" text analyze --show-preset $preset
done
compare rules "rules --list" text rules --list
compare stats "stats without input" text stats
compare stats "stats missing file" text stats /nonexistent/trace.pfw
compare analyze "analyze bad format" text analyze --format nope "$DLIO"
compare analyze "analyze bad preset" text analyze --preset nope "$DLIO"
compare overlap "overlap bad predicate" text overlap --compute 'cat ==' "$DLIO"
compare timeline "timeline without -o" text timeline "$DLIO"
compare merge "merge without -o" text merge "$DLIO"
# A copy of its own, in case a binary did write over its input.
generate guard --format chrome --ranks 1 --events 200
compare merge "merge over its input" text merge -o "$out/gen/guard/rank0.trace.json" "$out/gen/guard"
compare gen "gen without -o" text gen
compare gen "gen bad format" text gen -o g --format nope

# Help: dfscope's own and each command's, by every spelling; the commands are those OLD's help lists.
read -r -a command_names <<< "$("$OLD" help | awk '/^commands:/ { on = 1; next }
  on && /^  [a-z]/ { printf "%s ", $1 } on && /^$/ { exit }')"
[ ${#command_names[@]} -gt 0 ] || command_names=(stats analyze overlap tasks steps dataloader timeline merge rules gen)
compare help "dfscope" text
compare help "dfscope help" text help
compare help "dfscope --help" text --help
compare help "dfscope -h" text -h
compare help "dfscope help bogus" text help bogus
for command in "${command_names[@]}"; do
  compare help "dfscope help $command" text help "$command"
  compare help "dfscope $command --help" text "$command" --help
  compare help "dfscope $command -h" text "$command" -h
  # The answer to an unknown option is a usage error, not help: compared strictly.
  compare "$command" "$command --bogus-option" text "$command" --bogus-option "$DLIO"
done

summary=
for command in "${COMMANDS[@]}"; do
  summary+="${summary:+, }$command ${cases[$command]}"
  if [ "${differ[$command]}" -gt 0 ]; then
    summary+=" ($(
      [ "$command" = help ] && echo "${differ[$command]} HELP-DIFFERENT" || echo "${differ[$command]} differ"
    ))"
  fi
done
verdict="all the same"
[ $rc != 0 ] && verdict="some differ"
[ $rc = 0 ] && [ $help_differ -gt 0 ] && verdict="all the same except $help_differ help texts (HELP-DIFFERENT)"
echo "bench/same_output.sh: $n outputs compared, ${#IN_PATH[@]} input(s), in $(($(date +%s) - started)) s" \
  "($summary): $verdict"
exit $rc

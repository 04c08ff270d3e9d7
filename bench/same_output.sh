#!/usr/bin/env bash
# bench/same_output.sh NEW OLD - whether two dfscope builds give the same answers: the JSON of
# analyze (its three semantics, all six views) and of overlap, and analyze's terminal tables (the
# three semantics, all six views, presets dlio and dlio-g2: a table run aggregates only what the
# tables show), each at -j 1, at -j 3 with 64 KiB
# pieces and at -j 2 with `--hold 2000` (streaming flushes), on the corpus's dlio 8-rank,
# legacy-2023 and cm1-48rank traces (../shared/traces, skipped when absent) and one bench v1 file
# (bench/out/v1, made by bench/run.sh; skipped when absent).
#
# SAME_OUTPUT_INPUTS (paths separated by spaces) replaces those inputs.
#
# For changes meant to speed things up without changing any answer. The JSON is parsed and
# printed canonically, without what may differ between equal answers: timings, peak RSS, and the
# streaming bookkeeping (flushes, second_pass, second_pass_reason). An output that is empty or
# not JSON fails the comparison. Exit status 0 when every output is the same, 1 otherwise.
set -u
NEW=${1:?usage: bench/same_output.sh NEW OLD}
OLD=${2:?usage: bench/same_output.sh NEW OLD}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
TRACES=$ROOT/../shared/traces/dftracer
INPUTS=()
if [ -n "${SAME_OUTPUT_INPUTS:-}" ]; then
  read -r -a INPUTS <<< "$SAME_OUTPUT_INPUTS"
else
  for t in dlio-unet3d-hdf5-8rank legacy-2023 cm1-48rank; do
    [ -e "$TRACES/$t" ] && INPUTS+=("$TRACES/$t")
  done
  [ -e "$ROOT/bench/out/v1/trace-0-of-16.pfw" ] && INPUTS+=("$ROOT/bench/out/v1/trace-0-of-16.pfw")
fi
if [ ${#INPUTS[@]} -eq 0 ]; then
  echo "bench/same_output.sh: no inputs (neither ../shared/traces nor bench/out/v1; or set SAME_OUTPUT_INPUTS)" >&2
  exit 2
fi
canonical() {
  python3 -c '
import json, re, sys
drop = re.compile(r"^(elapsed_s|flushes|second_pass|second_pass_reason|wall_s|cpu_s|peak_rss[a-z_]*)$")
def strip(v):
    if isinstance(v, dict):
        return {k: strip(x) for k, x in v.items() if not drop.match(k)}
    return [strip(x) for x in v] if isinstance(v, list) else v
text = sys.stdin.read()
try:
    print(json.dumps(strip(json.loads(text)), sort_keys=True, indent=0))
except ValueError:
    print("NOT JSON (%d bytes)" % len(text))
'
}
# A table is compared as printed: it holds no timings.
as_text() { cat; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
rc=0 n=0
compare() { # LABEL, FILTER (canonical or as_text), then the dfscope arguments
  local label=$1 filter=$2
  shift 2
  local side=NEW
  for bin in "$NEW" "$OLD"; do
    "$bin" "$@" 2>/dev/null | $filter > "$out/$side.json"
    echo "exit ${PIPESTATUS[0]}" >> "$out/$side.json"
    side=OLD
  done
  n=$((n + 1))
  if grep -q '^NOT JSON' "$out/NEW.json"; then
    echo "NOT JSON: $label"
    rc=1
  elif [ "$(wc -l < "$out/NEW.json")" -le 1 ]; then
    echo "EMPTY: $label"
    rc=1
  elif ! cmp -s "$out/NEW.json" "$out/OLD.json"; then
    echo "DIFFERENT: $label"
    diff "$out/NEW.json" "$out/OLD.json" | head -6
    rc=1
  fi
}
for input in "${INPUTS[@]}"; do
  for j in "-j 1" "-j 3 --chunk 64K" "-j 2 --hold 2000"; do
    for mode in exact dfanalyzer dfanalyzer-sum; do
      compat=()
      [ "$mode" != exact ] && compat=(--compat "$mode")
      # shellcheck disable=SC2086
      compare "analyze $mode $j $input" canonical analyze "${compat[@]}" $j \
        --views time_range,proc_name,file_name,host,pid,tid --format json -q "$input"
      for preset in dlio dlio-g2; do
        # shellcheck disable=SC2086
        compare "analyze table $preset $mode $j $input" as_text analyze --preset $preset "${compat[@]}" $j \
          --views time_range,proc_name,file_name,host,pid,tid -q "$input"
      done
    done
    # shellcheck disable=SC2086
    compare "overlap $j $input" canonical overlap --preset dlio $j --format json -q "$input"
  done
done
echo "bench/same_output.sh: $n outputs compared, $([ $rc = 0 ] && echo all the same || echo some differ)"
exit $rc

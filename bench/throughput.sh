#!/usr/bin/env bash
# bench/throughput.sh DFSCOPE [DIR...] - each reading command's throughput against the machine's
# own baselines, measured in the same rounds: `wc -l` on plain text, `igzip -dc` on gzip.
#
# For each input directory (default: bench/out/v1 and bench/out/v2gz, made by bench/run.sh) and
# -j 1 and -j 2, ROUNDS rounds (default 5); a round times the baseline and every command once, in
# an order that turns from round to round, so that none always runs first or after the same one.
# Per command and -j it prints:
#   wall s        the median and the fastest of the rounds (noise on a shared host only slows a run)
#   CPU s         user + system time, median (what the work costs, whatever else the host runs)
#   MB/s, M ev/s  decompressed text and events per wall second (median run)
#   per core      MB/s and M events/s per CPU second: the speed of one core on this command
#   x baseline    the baseline's median wall time over the command's (1.0: as fast as the baseline
#                 at the same parallelism; `wc -l` reads and counts, parsing nothing)
#   -j1/-j2       the speedup of -j 2 over -j 1 by median wall time (2.0 is perfect on 2 cores)
#   peak RSS      of one more run, MB
# The baselines run as -j processes over the input's files. A gzip input named NAMEgz given with its
# plain twin NAME also gets the gzip path's cost against inflating plus parsing (see the end). Commands: stats; analyze --preset posix
# --views time_range,proc_name; overlap. COMMANDS can name a subset ("stats analyze").
# Output: a markdown table on stdout (bench/run.sh keeps it in bench/out/results.md).
set -euo pipefail
DFSCOPE=$(readlink -f "${1:?usage: bench/throughput.sh path/to/dfscope [DIR...]}")
shift
cd "$(dirname "$0")"
ROUNDS=${ROUNDS:-5}
COMMANDS=${COMMANDS:-stats analyze overlap}
DIRS=("$@")
[ ${#DIRS[@]} -gt 0 ] || DIRS=(out/v1 out/v2gz)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
fastest() { sort -g | head -1; }
files_of() { find "$1" -type f | sort; }
is_gzip() { [ -n "$(find "$1" -type f -name '*.gz' | head -1)" ]; }

baseline() { # dir j: every file of dir, by j processes
  local n; n=$(files_of "$1" | wc -l)
  if is_gzip "$1"; then files_of "$1" | xargs -P "$2" -n 1 igzip -dc
  else files_of "$1" | xargs -P "$2" -n $(( (n + $2 - 1) / $2 )) wc -l; fi
}
command_of() { # name dir j: the dfscope command line
  case $1 in
    stats) echo "$DFSCOPE stats -j $3 --no-progress -q $2" ;;
    analyze) echo "$DFSCOPE analyze -j $3 --no-progress -q --preset posix --views time_range,proc_name $2" ;;
    overlap) echo "$DFSCOPE overlap -j $3 --no-progress -q $2" ;;
    *) echo "unknown command $1" >&2; exit 2 ;;
  esac
}
timed() { # label cmd...: appends "wall cpu" of one run to $TMP/label
  local label=$1; shift
  /usr/bin/time -o "$TMP/time" -f '%e %U %S' "$@" >/dev/null 2>&1 || true
  awk '{printf "%.3f %.3f\n", $1, $2 + $3}' "$TMP/time" >> "$TMP/$label"
}
col() { cut -d' ' -f"$1" "$TMP/$2"; }
nonzero() { awk -v t="$1" 'BEGIN {print (t > 0.001 ? t : 0.001)}'; } # below time(1)'s resolution

echo "Machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "Date: $(date -u +%Y-%m-%dT%H:%MZ); dfscope $("$DFSCOPE" --version | cut -d' ' -f2); $ROUNDS interleaved rounds per figure"
echo
echo "| input | command | -j | wall s (median / fastest) | CPU s | MB/s | M events/s | MB/s per core | M events/s per core | x baseline | -j1/-j2 | peak RSS MB |"
echo "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"
for dir in "${DIRS[@]}"; do
  name=$(basename "$dir")
  "$DFSCOPE" stats --json --no-progress -q "$dir" > "$TMP/describe.json" 2>/dev/null || true
  bytes=$(awk -F'[:,]' '/"bytes"/ {s += $2} END {printf "%.0f\n", s}' "$TMP/describe.json")
  events=$(awk -F'[:,]' '/"events_total"/ && !n {print $2 + 0; n = 1}' "$TMP/describe.json")
  if is_gzip "$dir"; then bname="igzip -dc"; else bname="wc -l"; fi
  cat $(files_of "$dir") > /dev/null # warm the page cache
  labels=(baseline $COMMANDS)
  for j in 1 2; do
    for r in $(seq "$ROUNDS"); do
      n=${#labels[@]}
      for k in $(seq 0 $((n - 1))); do
        l=${labels[$(( (k + r) % n ))]}
        if [ "$l" = baseline ]; then timed "baseline.$j" bash -c "$(declare -f files_of is_gzip baseline); baseline $dir $j"
        else timed "$l.$j" $(command_of "$l" "$dir" "$j"); fi
      done
    done
  done
  for l in "${labels[@]}"; do
    for j in 1 2; do
      wall=$(col 1 "$l.$j" | median); best=$(col 1 "$l.$j" | fastest); cpu=$(col 2 "$l.$j" | median)
      bwall=$(col 1 "baseline.$j" | median)
      wall=$(nonzero "$wall"); cpu=$(nonzero "$cpu")
      scale=$(echo "$(col 1 "$l.1" | median) / $(col 1 "$l.2" | median)" | bc -l)
      label=$([ "$l" = baseline ] && echo "$bname (baseline)" || echo "$l")
      rss=
      if [ "$l" != baseline ]; then
        /usr/bin/time -o "$TMP/rss" -f '%M' $(command_of "$l" "$dir" "$j") >/dev/null 2>&1 || true
        rss=$(awk '{printf "%.0f", $1 / 1024}' "$TMP/rss")
      fi
      printf '| %s (%sB text, %s events) | %s | %d | %.3f / %.3f | %.3f | %.0f | %.2f | %.0f | %.2f | %.2f | %s | %s |\n' \
        "$name" "$(numfmt --to=si "$bytes")" "$(numfmt --to=si "$events")" "$label" "$j" "$wall" "$best" "$cpu" \
        "$(echo "$bytes / $wall / 1000000" | bc -l)" "$(echo "$events / $wall / 1000000" | bc -l)" \
        "$(echo "$bytes / $cpu / 1000000" | bc -l)" "$(echo "$events / $cpu / 1000000" | bc -l)" \
        "$(echo "$bwall / $wall" | bc -l)" "$([ "$j" = 2 ] && printf '%.2f' "$scale" || echo '')" "$rss"
    done
  done
  # kept for the gzip bound below: stats' and the baseline's median CPU at -j 1
  echo "$(col 2 stats.1 2>/dev/null | median) $(col 2 baseline.1 | median)" > "$TMP/cpu.$name"
  rm -f "$TMP"/baseline.* "$TMP"/stats.* "$TMP"/analyze.* "$TMP"/overlap.*
done
# The gzip path against inflating plus parsing: for a gzip input NAMEgz given with its plain twin
# NAME (the same text), stats' CPU on NAMEgz over (igzip -dc's CPU on NAMEgz + stats' CPU on NAME),
# at -j 1. 1.00 means inflating and parsing cost nothing more together than apart.
for dir in "${DIRS[@]}"; do
  name=$(basename "$dir"); plain=${name%gz}
  if [ "$plain" != "$name" ] && [ -f "$TMP/cpu.$plain" ] && [ -f "$TMP/cpu.$name" ]; then
    read -r gz_stats gz_inflate < "$TMP/cpu.$name"; read -r plain_stats _ < "$TMP/cpu.$plain"
    [ -n "$gz_stats" ] && [ -n "$plain_stats" ] || continue
    printf '\nGzip path (-j 1, CPU): stats on %s %.3f s; igzip -dc on it %.3f s + stats on %s %.3f s = %.3f s; ratio %.2f\n' \
      "$name" "$gz_stats" "$gz_inflate" "$plain" "$plain_stats" "$(echo "$gz_inflate + $plain_stats" | bc -l)" \
      "$(echo "$gz_stats / ($gz_inflate + $plain_stats)" | bc -l)"
  fi
done

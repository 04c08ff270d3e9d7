#!/usr/bin/env bash
# bench/interleaved.sh DFSCOPE [ROUNDS] - the analyses against `dfscope stats`, run interleaved.
#
# On a shared host the same command varies by up to 40 % between runs, so measuring one command
# several times and then the next (bench/run.sh) can compare a quiet minute with a busy one. Here
# every round runs stats, analyze (reference semantics), analyze (exact), overlap and report one after the
# other, on each input and -j; the first table gives medians over the rounds (wall seconds), the
# median of each analysis's ratio to the stats run of the same round, and the largest peak RSS; the
# second the same for CPU seconds (user + system), which a busy host disturbs less than wall time.
# Inputs: bench/out/v1 and bench/out/v2gz (made by bench/run.sh). Raw rows go to
# bench/out/interleaved.tsv (round, input, -j, command, wall s, peak RSS KB, CPU s, load average).
set -u
DFSCOPE=${1:?usage: bench/interleaved.sh DFSCOPE [ROUNDS]}
ROUNDS=${2:-3}
OUT=$(cd "$(dirname "$0")" && pwd)/out
for input in v1 v2gz; do
  [ -d "$OUT/$input" ] || { echo "bench/interleaved.sh: $OUT/$input is missing (run bench/run.sh first)" >&2; exit 2; }
done
TSV=$OUT/interleaved.tsv
: > "$TSV"
args_of() {
  case $1 in
    stats) echo stats ;;
    compat) echo analyze --preset dlio --views time_range,proc_name --compat dfanalyzer ;;
    exact) echo analyze --preset dlio --views time_range,proc_name ;;
    overlap) echo overlap --preset dlio ;;
    report) echo report ;;
  esac
}
for round in $(seq 1 "$ROUNDS"); do
  for input in v1 v2gz; do
    for j in 1 2; do
      for cmd in stats compat exact overlap report; do
        # shellcheck disable=SC2046
        /usr/bin/time -o "$OUT/interleaved.time" -f '%e %M %U %S' "$DFSCOPE" $(args_of $cmd) -j "$j" --no-progress -q \
          "$OUT/$input" >/dev/null 2>&1
        read -r wall rss user sys < "$OUT/interleaved.time"
        cpu=$(python3 -c "print(round($user + $sys, 2))")
        echo "$round $input $j $cmd $wall $rss $cpu $(cut -d' ' -f1 /proc/loadavg)" >> "$TSV"
      done
    done
  done
done
python3 - "$TSV" <<'PY'
import collections, statistics, sys
rows = collections.defaultdict(dict)  # (input, j, cmd) -> round -> (wall, rss, cpu)
for line in open(sys.argv[1]):
    rnd, inp, j, cmd, wall, rss, cpu, _load = line.split()
    rows[(inp, j, cmd)][rnd] = (float(wall), int(rss), float(cpu))
for title, k in (("wall seconds", 0), ("CPU seconds (user + system)", 2)):
    print("\n" + title + ": medians over the rounds; ratio = median of the rounds' ratios to stats\n")
    print("| input | -j | stats | analyze dfanalyzer | ratio | peak RSS | analyze exact | ratio | peak RSS | overlap | ratio | peak RSS | report | ratio | peak RSS |")
    print("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
    for inp in ("v1", "v2gz"):
        for j in ("1", "2"):
            base = rows[(inp, j, "stats")]
            cells = [inp, j, "%.2f" % statistics.median(v[k] for v in base.values())]
            for c in ("compat", "exact", "overlap", "report"):
                runs = rows[(inp, j, c)]
                ratio = statistics.median(v[k] / base[r][k] for r, v in runs.items() if r in base)
                cells += ["%.2f" % statistics.median(v[k] for v in runs.values()), "%.2f" % ratio,
                          "%.0f MB" % (max(v[1] for v in runs.values()) / 1024)]
            print("| " + " | ".join(cells) + " |")
PY

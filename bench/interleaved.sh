#!/usr/bin/env bash
# bench/interleaved.sh DFSCOPE [ROUNDS] - the analyses against `dfscope stats`, run interleaved.
#
# On a shared host the same command varies by up to 40 % between runs, so measuring one command
# several times and then the next (bench/run.sh) can compare a quiet minute with a busy one. Here
# every round runs stats, analyze (reference semantics), analyze (exact) and overlap one after the
# other, on each input and -j; the table gives medians over the rounds (wall seconds), each
# analysis's ratio to stats, and the largest peak RSS. Inputs: bench/out/v1 and bench/out/v2gz
# (made by bench/run.sh). Raw rows go to bench/out/interleaved.tsv.
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
  esac
}
for round in $(seq 1 "$ROUNDS"); do
  for input in v1 v2gz; do
    for j in 1 2; do
      for cmd in stats compat exact overlap; do
        # shellcheck disable=SC2046
        /usr/bin/time -o "$OUT/interleaved.time" -f '%e %M' "$DFSCOPE" $(args_of $cmd) -j "$j" --no-progress -q \
          "$OUT/$input" >/dev/null 2>&1
        echo "$round $input $j $cmd $(cat "$OUT/interleaved.time") $(cut -d' ' -f1 /proc/loadavg)" >> "$TSV"
      done
    done
  done
done
python3 - "$TSV" <<'PY'
import collections, statistics, sys
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    _, inp, j, cmd, wall, rss, _load = line.split()
    rows[(inp, j, cmd)].append((float(wall), int(rss)))
print("| input | -j | stats s | analyze dfanalyzer s | ratio | peak RSS | analyze exact s | ratio | peak RSS | overlap s | ratio | peak RSS |")
print("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
for inp in ("v1", "v2gz"):
    for j in ("1", "2"):
        med = lambda c: statistics.median(w for w, _ in rows[(inp, j, c)])
        cells = [inp, j, "%.2f" % med("stats")]
        for c in ("compat", "exact", "overlap"):
            cells += ["%.2f" % med(c), "%.2f" % (med(c) / med("stats")),
                      "%.0f MB" % (max(r for _, r in rows[(inp, j, c)]) / 1024)]
        print("| " + " | ".join(cells) + " |")
PY

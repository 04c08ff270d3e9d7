#!/usr/bin/env bash
# bench/ab.sh NEW OLD [ROUNDS] - whether a build of dfscope is faster than another: in every round,
# on bench/out/v1 and bench/out/v2gz (made by bench/run.sh), at -j JOBS (an environment variable,
# 1 unless set), NEW's `stats`, then analyze with
# the dlio preset and views time_range,proc_name in the reference semantics (--compat dfanalyzer)
# and the exact one, by OLD and by NEW, one after the other. Interleaving keeps a busy minute of a
# shared host from favouring one build.
#
# Prints per input and semantics, for OLD and NEW: median wall and CPU (user + system) seconds,
# the median of the rounds' ratios to stats (in brackets), the largest peak RSS and the median
# count of minor page faults, and for NEW the median of the rounds' NEW ÷ OLD wall times (the
# rounds share the host's mood, so this ratio is steadier than either time). Raw rows go to
# bench/out/ab.tsv.
set -u
NEW=${1:?usage: bench/ab.sh NEW OLD [ROUNDS]}
OLD=${2:?usage: bench/ab.sh NEW OLD [ROUNDS]}
ROUNDS=${3:-5}
JOBS=${JOBS:-1}
OUT=$(cd "$(dirname "$0")" && pwd)/out
for input in v1 v2gz; do
  [ -d "$OUT/$input" ] || { echo "bench/ab.sh: $OUT/$input is missing (run bench/run.sh first)" >&2; exit 2; }
done
TSV=$OUT/ab.tsv
: > "$TSV"
cat "$OUT"/v1/* "$OUT"/v2gz/* > /dev/null # page cache warm: no round's first command waits for the disk
ANALYZE="analyze --preset dlio --views time_range,proc_name"
for round in $(seq 1 "$ROUNDS"); do
  for input in v1 v2gz; do
    for run in "stats NEW stats" "compat OLD $ANALYZE --compat dfanalyzer" "compat NEW $ANALYZE --compat dfanalyzer" \
               "exact OLD $ANALYZE" "exact NEW $ANALYZE"; do
      # shellcheck disable=SC2086 # a run is a label, a build and the arguments, split on spaces
      set -- $run
      label=$1 which=$2
      shift 2
      bin=$NEW
      [ "$which" = OLD ] && bin=$OLD
      /usr/bin/time -o "$OUT/ab.time" -f '%e %U %S %M %R' "$bin" "$@" -j "$JOBS" -q --no-progress "$OUT/$input" \
        >/dev/null 2>&1
      echo "$round $input $label $which $(cat "$OUT/ab.time")" >> "$TSV"
    done
  done
done
python3 - "$TSV" <<'PY'
import collections, statistics as st, sys
rows = collections.defaultdict(dict)  # (input, label, which) -> round -> (wall, cpu, rss MB, faults)
for line in open(sys.argv[1]):
    rnd, inp, label, which, wall, user, sys_, rss, faults = line.split()
    rows[(inp, label, which)][rnd] = (float(wall), float(user) + float(sys_), int(rss) // 1024, int(faults))
print("| input | semantics | build | wall s (÷ stats) | CPU s (÷ stats) | peak RSS | minor faults | wall ÷ OLD |")
print("|---|---|---|--:|--:|--:|--:|--:|")
for inp in ("v1", "v2gz"):
    base = rows[(inp, "stats", "NEW")]
    print("| %s | stats | NEW | %.2f | %.2f | | | |" % (inp, st.median(v[0] for v in base.values()),
                                                  st.median(v[1] for v in base.values())))
    for label in ("compat", "exact"):
        for which in ("OLD", "NEW"):
            d = rows[(inp, label, which)]
            old = rows[(inp, label, "OLD")]
            ratio = lambda k: st.median(v[k] / base[r][k] for r, v in d.items() if r in base)
            vs_old = st.median(v[0] / old[r][0] for r, v in d.items() if r in old)
            print("| %s | %s | %s | %.2f (%.2f) | %.2f (%.2f) | %d MB | %d | %s |" % (
                inp, "reference" if label == "compat" else "exact", which,
                st.median(v[0] for v in d.values()), ratio(0), st.median(v[1] for v in d.values()), ratio(1),
                max(v[2] for v in d.values()), st.median(v[3] for v in d.values()),
                "%.3f" % vs_old if which == "NEW" else ""))
PY

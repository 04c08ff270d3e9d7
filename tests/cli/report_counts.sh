#!/usr/bin/env bash
# report_counts.sh DFSCOPE [TRACES] - the job line of `dfscope report` names both counts the other
# commands give: the records read (what `dfscope stats` calls events, metadata included) and the
# events without the metadata records (what `overlap` counts), each equal to theirs;
# the JSON carries the metadata records beside the records. Skipped (77) without the corpus.
set -u
DFSCOPE=$1
TRACES=${2:-}
source "$(dirname "$0")/testlib.bash"

if [ -z "$TRACES" ] || [ ! -d "$TRACES/dftracer/dlio-unet3d-hdf5-8rank" ]; then
  echo "report_counts.sh: the trace corpus is absent (${TRACES:-no path given}): skipped"
  exit 77
fi

# agree INPUT: the report's job line and JSON against stats' JSON for the same input
agree() {
  "$DFSCOPE" stats -q --json "$1" > "$T/stats.json" 2>/dev/null
  "$DFSCOPE" report -q "$1" > "$T/report.txt" 2>/dev/null
  "$DFSCOPE" report -q --format json -o "$T/report.json" "$1" 2>/dev/null
  python3 - "$T/stats.json" "$T/report.txt" "$T/report.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
records, metadata = s["events_total"], s["events_by_phase"]["metadata"]
line = [l for l in open(sys.argv[2]) if l.startswith("job: ")][0]
want = f"{records:,} records ({records - metadata:,} events, {metadata:,} metadata)"
assert want in line, (want, line)
r = json.load(open(sys.argv[3]))["job"]
assert r["events"] == records and r["metadata_records"] == metadata, r
assert sum(k["metadata_records"] for k in r["sources"]) == metadata, r["sources"]
PY
}

check "DLIO: records and events as stats counts them" agree "$TRACES/dftracer/dlio-unet3d-hdf5-8rank"
"$DFSCOPE" overlap -q --format json "$TRACES/dftracer/dlio-unet3d-hdf5-8rank" > "$T/overlap.json" 2>/dev/null
check "DLIO: the events are overlap's" python3 -c "
import json,sys; n=json.load(open(sys.argv[1]))['allocation']['events']
assert n == 18039 and f'({n:,} events, ' in open(sys.argv[2]).read(), n" "$T/overlap.json" "$T/report.txt"
if [ -d "$TRACES/hta/trace_filter" ]; then
  check "Kineto, 2 ranks: records and events as stats counts them" agree "$TRACES/hta/trace_filter"
fi

echo "report_counts.sh: $pass passed, $fail failed"
[ "$fail" = 0 ]

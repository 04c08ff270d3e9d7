#!/usr/bin/env bash
# report_io.sh DFSCOPE [TRACES] - the access pattern and bandwidth rules of `dfscope report`
# (docs/REPORT.md) on written DFTracer traces: a process seeking back for every read is random
# access, named with its file; one reading forward, even over gaps, is not; a trace whose reads
# carry no offset leaves random-access not evaluated (never "sequential"); a rank reading 4 KiB
# per millisecond next to ranks at 1 GiB/s is the slow rank; ranks at a median of 50 MiB/s over
# 240 MiB have low bandwidth. Then the corpus: DLIO's HDF5 reads (backward seeks are their
# small metadata reads, 43 % of the reads) are not random access.
set -u
DFSCOPE=$1
TRACES=${2:-}
source "$(dirname "$0")/testlib.bash"

# pread LINE: pid file offset size dur_us ts_us, as DFTracer 2023 writes a POSIX call
pread() {
  printf '{"id":"%s","name":"pread64","cat":"POSIX","pid":"%s","tid":"%s","ts":"%s","dur":"%s","ph":"X","args":{"hostname":"node1","fname":"%s","offset":"%s","ret":"%s"}}\n' \
    "$6" "$1" "$1" "$6" "$5" "$2" "$3" "$4"
}
compute() { printf '{"id":"c%s","name":"step","cat":"compute","pid":"%s","tid":"%s","ts":"%s","dur":"%s","ph":"X","args":{"hostname":"node1"}}\n' "$2" "$1" "$1" "$2" "$3"; }

# one trace file per process: 1 seeks back (random), 2 reads forward with gaps, 3 forward 1 MiB reads
mkdir -p "$T/pattern"
{ echo '['; t=1700000000000000
  for i in $(seq 0 199); do pread 1 /data/a.bin $(( (200 - i) * 4096 )) 4096 1000 $((t + i * 2000)); done
  compute 1 $((t + 500000)) 1000; } > "$T/pattern/trace-1.pfw"
{ echo '['; t=1700000000000000
  for i in $(seq 0 199); do pread 2 /data/b.bin $(( i * 2 * 1048576 )) 1048576 1000 $((t + i * 2000)); done
  compute 2 $((t + 500000)) 1000; } > "$T/pattern/trace-2.pfw"

code 0 "random and forward reads" "$DFSCOPE" report -q --format json -o "$T/p.json" "$T/pattern"
check "random access fired on the file that seeks back" python3 -c "
import json,sys; d=json.load(open(sys.argv[1])); m={x['metric']:x for x in d['metrics']}
i={x['id']:x for x in d['insights']}['random-access']
assert m['io_random_ops']['value']==199 and m['io_pattern_ops']['value']==398, m['io_random_ops']
assert m['io_random_share']['where']=='/data/a.bin, 100.0 % of its calls', m['io_random_share']
assert abs(m['io_random_s']['value']-0.0995)<1e-9, m['io_random_s']" "$T/p.json"
check "the slow rank's bandwidth" python3 -c "
import json,sys; d=json.load(open(sys.argv[1])); m={x['metric']:x for x in d['metrics']}
assert 'slow-rank-bandwidth' in [x['id'] for x in d['insights']]
assert m['io_rank_bw_min']['where']=='node1:1' and m['io_rank_bw_min']['value']==4096000, m['io_rank_bw_min']
assert m['io_bw_ranks']['value']==2 and m['io_rank_bw_min_over_median']['value']<0.01
assert 'low-rank-bandwidth' not in [x['id'] for x in d['insights']]" "$T/p.json"
"$DFSCOPE" report -q -j 1 --format json "$T/pattern" > "$T/j1.json" 2>/dev/null
"$DFSCOPE" report -q -j 3 --format json "$T/pattern" > "$T/j3.json" 2>/dev/null
check "the same pattern at -j 1 and -j 3" cmp -s "$T/j1.json" "$T/j3.json"
code 0 "random and forward reads, text" "$DFSCOPE" report -q "$T/pattern"
check "text: the random file named" grep -q "(most: /data/a.bin, 100.0 % of its calls)" "$T/out"
check "text: at most 40 lines" [ "$(wc -l < "$T/out")" -le 40 ]

# the same reads without offsets: no pattern, random-access not evaluated
mkdir -p "$T/nooff"
sed 's/"offset":"[0-9]*",//' "$T/pattern/trace-1.pfw" > "$T/nooff/trace-1.pfw"
code 0 "reads without offsets" "$DFSCOPE" report -q --format json -o "$T/n.json" "$T/nooff"
check "without offsets: random-access not evaluated, io_random_share missing" python3 -c "
import json,sys; d=json.load(open(sys.argv[1]))
s={x['id']:x['missing_metric'] for x in d['not_evaluated']}
assert s['random-access']=='io_random_share', s
assert not [x for x in d['metrics'] if x['metric'].startswith(('io_random','io_pattern'))]" "$T/n.json"

# three ranks at 50 MiB/s (1 MiB in 20 ms), 80 MiB each: low bandwidth, no slow rank
mkdir -p "$T/slow"
for p in 1 2 3; do
  { echo '['; t=1700000000000000
    for i in $(seq 0 79); do pread $p /data/c$p.bin $(( i * 1048576 )) 1048576 20000 $((t + i * 20000)); done
    compute $p $((t + 5000000)) 1000; } > "$T/slow/trace-$p.pfw"
done
code 0 "ranks at 50 MiB/s" "$DFSCOPE" report -q --format json -o "$T/s.json" "$T/slow"
check "50 MiB/s: low bandwidth, not one slow rank" python3 -c "
import json,sys; d=json.load(open(sys.argv[1])); ids=[x['id'] for x in d['insights']]
m={x['metric']:x for x in d['metrics']}
assert 'low-rank-bandwidth' in ids and 'slow-rank-bandwidth' not in ids, ids
assert m['io_rank_bw_median']['value']==52428800 and m['io_bw_bytes']['value']==3*80*1048576, m['io_rank_bw_median']" "$T/s.json"
code 0 "ranks at 50 MiB/s, text" "$DFSCOPE" report -q "$T/slow"
check "text: the bandwidth in bytes per second" grep -q "the median rank achieves 52.4 MB/s in its reads and writes" "$T/out"

if [ -n "$TRACES" ] && [ -d "$TRACES/dftracer/dlio-unet3d-hdf5-8rank" ]; then
  code 0 "DLIO" "$DFSCOPE" report -q --format json -o "$T/dlio.json" "$TRACES/dftracer/dlio-unet3d-hdf5-8rank"
  check "DLIO: the pattern measured, not random access" python3 -c "
import json,sys; d=json.load(open(sys.argv[1])); m={x['metric']:x for x in d['metrics']}
assert m['io_pattern_ops']['value']==7040 and m['io_random_ops']['value']==3040, m['io_random_ops']
assert 'random-access' not in [x['id'] for x in d['insights']]" "$T/dlio.json"
else
  echo "report_io.sh: the trace corpus is absent: the DLIO case skipped"
fi

echo "report_io.sh: $pass passed, $fail failed"
[ "$fail" = 0 ]

#!/usr/bin/env bash
# gpu_annotations_kernels.sh DFSCOPE TRACES - `dfscope gpu --only annotations`: each kernel goes to the
# shortest GPU user annotation of its lane (pid, tid) whose [ts, end) intersects its own (HTA's
# get_gpu_kernels_with_user_annotations), on a hand-built trace: nesting, a kernel straddling an
# annotation's end, one touching it (no intersection), another lane, no lane, two annotations of
# one duration (exact: the later start wins; hta: the later row, numpy's order); the table, JSON and
# CSV; a trace without annotations. Then, on the corpus, the exact attribution against an
# independent computation over the trace's JSON. The corpus part is skipped, said, when
# ../shared/traces is absent.
set -u
DFSCOPE=$1
TRACES=${2:-}
. "$(dirname "$0")/testlib.bash"
field() { json_field "$T/out" "$1"; }

ev() { # cat name tid ts dur [args]
  printf '{"ph": "X", "cat": "%s", "name": "%s", "pid": 0, "tid": %s, "ts": %s, "dur": %s%s},\n' "$1" "$2" "$3" "$4" "$5" "${6:-}"
}
k() { ev kernel "$1" "$2" "$3" "$4" ", \"args\": {\"stream\": $2}"; }
{ printf '{"traceEvents": [\n'
  ev gpu_user_annotation outer 7 0 100
  ev gpu_user_annotation inner 7 10 20
  ev gpu_user_annotation C 7 45 10       # C before B in the rows, B starts earlier
  ev gpu_user_annotation B 7 40 10
  ev gpu_user_annotation other 20 0 100
  k k1 7 5 3        # outer
  k k2 7 12 8       # inner
  k k3 7 28 7       # straddles inner's end: inner
  k k4 7 30 2       # touches inner's end: outer
  k k5 7 46 2       # B and C, 10 us each: exact C (later start), hta B (later row)
  k k6 7 100 10     # starts at outer's end: none
  k k7 7 99 2       # outer
  k k8 20 50 10     # other lane: other
  printf '{"ph": "X", "cat": "kernel", "name": "k9", "pid": 0, "tid": 21, "ts": 0, "dur": 5, "args": {"stream": 21}}\n'
  printf ']}\n'; } > "$T/a.json"
ROWS="([(a['name'], a['kernels'], a['kernel_us']) for a in d['ranks'][0]['annotation_kernels']['annotated']], d['ranks'][0]['annotation_kernels']['unannotated'])"

code 0 "exact" "$DFSCOPE" gpu -q --only annotations --format json "$T/a.json"
check "exact: per annotation, by time; none apart" test "$(field "$ROWS")" = "([('inner', 2, 15), ('other', 1, 10), ('outer', 3, 7), ('C', 1, 2)], {'kernels': 2, 'kernel_us': 15})"
check "the by-name breakdown unchanged" test "$(field "[a['name'] for a in d['ranks'][0]['annotations']]")" = "['B', 'C', 'inner', 'other', 'outer']"
code 0 "hta" "$DFSCOPE" gpu -q --compat hta --only annotations --format json "$T/a.json"
check "hta: the tie goes to the later row" test "$(field "$ROWS")" = "([('inner', 2, 15), ('other', 1, 10), ('outer', 3, 7), ('B', 1, 2)], {'kernels': 2, 'kernel_us': 15})"

code 0 "table" "$DFSCOPE" gpu -q --only annotations "$T/a.json"
check "the finding leads" grep -q '^  69.39% of the kernel time (7 of 9 kernels) ran inside annotations; 15.000 us in none\.$' "$T/out"
check "the no-annotation row" grep -q '^     15.000 us   30.61%        2  (no annotation)$' "$T/out"
code 0 "table, one name" "$DFSCOPE" gpu -q --only annotations --names 1 "$T/a.json"
check "--names limits the rows, not the no-annotation one" test "$(sed -n '/device time by GPU user annotation/,$p' "$T/out" | grep -cE '^ +[0-9.]+ [mun]?s +[0-9.]+%')" = 2
check "--names says what is left" grep -q '^  (3 more annotations: --format json or csv for all)$' "$T/out"

rm -rf "$T/csv"
code 0 "csv" "$DFSCOPE" gpu -q --only annotations --format csv -o "$T/csv" "$T/a.json"
check "csv rows" test "$(cat "$T/csv/gpu_kernels_by_annotation.csv")" = ",rank,annotated,annotation,kernels,kernel_time(us)
0,0,True,inner,2,15.0
1,0,True,other,1,10.0
2,0,True,outer,3,7.0
3,0,True,C,1,2.0
4,0,False,,2,15.0"

# No annotation: said when the section is asked alone; no JSON object, no CSV file.
grep -v gpu_user_annotation "$T/a.json" > "$T/plain.json"
code 0 "no annotation" "$DFSCOPE" gpu -q --only annotations "$T/plain.json"
check "no annotation said" grep -q '^No GPU user annotation (gpu_user_annotation event) in the traces: no kernel to attribute to one\.$' "$T/out"
check "no nan" sh -c "! grep -qi nan '$T/out'"
code 0 "no annotation json" "$DFSCOPE" gpu -q --only annotations --format json "$T/plain.json"
check "no annotation: no object" test "$(field "'annotation_kernels' in d['ranks'][0]")" = False
rm -rf "$T/csv"
code 0 "no annotation csv" "$DFSCOPE" gpu -q --only annotations --format csv -o "$T/csv" "$T/plain.json"
check "no annotation: no file" test ! -e "$T/csv/gpu_kernels_by_annotation.csv"

# --- the corpus: the exact attribution against an independent one ---------------------------------
if [ -z "$TRACES" ] || [ ! -d "$TRACES/hta" ]; then
  echo "corpus checks skipped: the corpus (../shared/traces) is absent"
else
  for f in hta/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz hta/nccl_parser_config/nccl_data.json.gz; do
    code 0 "$f" "$DFSCOPE" gpu -q --only annotations --format json "$TRACES/$f"
    check "$f: as computed from the JSON" /usr/bin/python3 - "$T/out" "$TRACES/$f" <<'PY'
import gzip, json, sys
from decimal import Decimal
d = json.load(open(sys.argv[1]))['ranks'][0]['annotation_kernels']
ev = json.load(gzip.open(sys.argv[2]), parse_float=Decimal)
ev = ev['traceEvents'] if isinstance(ev, dict) else ev
ns = lambda v: int(Decimal(v) * 1000)
work = [e for e in ev if e.get('ph') == 'X' and e.get('cat') in ('kernel', 'gpu_memcpy', 'gpu_memset')]
ann = [(i, e) for i, e in enumerate(ev) if e.get('ph') == 'X' and e.get('cat') == 'gpu_user_annotation']
want, none = {}, [0, 0]
for w in work:
    a, b = ns(w['ts']), ns(w['ts']) + ns(w['dur'])
    hits = [(ns(e['dur']), -ns(e['ts']), -i, e['name']) for i, e in ann
            if e['pid'] == w['pid'] and e['tid'] == w['tid'] and ns(e['ts']) < b and a < ns(e['ts']) + ns(e['dur'])]
    slot = want.setdefault(min(hits)[3], [0, 0]) if hits else none
    slot[0] += 1
    slot[1] += b - a
got = {x['name']: [x['kernels'], round(x['kernel_us'] * 1000)] for x in d['annotated']}
ok = got == want and [d['unannotated']['kernels'], round(d['unannotated']['kernel_us'] * 1000)] == none and want
sys.exit(0 if ok else 1)
PY
    code 0 "$f hta" "$DFSCOPE" gpu -q --compat hta --only annotations --format json "$TRACES/$f"
    check "$f, hta: every kernel counted once" test "$(field "sum(a['kernels'] for a in d['ranks'][0]['annotation_kernels']['annotated']) + d['ranks'][0]['annotation_kernels']['unannotated']['kernels'] == d['ranks'][0]['device_rows']")" = True
  done
fi

echo "$pass checks passed, $fail failed"
[ "$fail" = 0 ]

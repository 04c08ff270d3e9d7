#!/usr/bin/env bash
# reliability_encoding.sh DFSCOPE TRACES - hostile bytes in traces (issue 29, items 2 and 14).
#  - An event whose end (ts + dur) does not fit int64 ns is a time_overflow, left out of every
#    analysis the same way, with exit 1: never silently dropped from a span.
#  - Names holding terminal escape sequences, C0/C1 controls, invalid UTF-8, U+FFFE/U+FFFF, NUL
#    (raw or \u0000), quotes, commas, line breaks and markup reach every command and format; each
#    output must stay what its reader expects: tables and messages without a control character,
#    every file valid UTF-8, CSV that parses back, JSON that parses, GraphML and SVG well-formed
#    XML, DOT valid UTF-8; a name with a NUL is kept whole (the NUL as U+FFFD).
set -u
DFSCOPE=$1
. "$(dirname "$0")/testlib.bash"
# Bounded: before the fixes, timeline looped forever on these inputs (issue 29, item 1).
dfs() { timeout 30 "$DFSCOPE" "$@"; }

# --- item 2: ts + dur beyond int64 ns -------------------------------------------------------------
# 9223372036854775 us is 9223372036854775000 ns: 5 us more do not fit.
cat > "$T/end.json" <<'EOF'
[
{"name":"a","cat":"posix","ph":"X","ts":10,"dur":5,"pid":1,"tid":1},
{"name":"b","cat":"posix","ph":"X","ts":9223372036854775,"dur":5,"pid":1,"tid":1}
]
EOF
for cmd in stats analyze overlap steps gpu dataloader timeline; do
  extra=(); [ $cmd = timeline ] && extra=(-o "$T/end.svg")
  code 1 "$cmd: end overflow is damage" dfs $cmd "${extra[@]}" "$T/end.json"
  check "$cmd: end overflow counted as time_overflow" grep -q '^dfscope: time_overflow: 1$' "$T/err"
done
dfs stats -q "$T/end.json" > "$T/out"
check "stats: the span keeps the event that fits" grep -q '(5.000 us)$' "$T/out"
dfs stats -q --json "$T/end.json" > "$T/end-stats.json"
check "stats --json: time_overflow counted" \
  [ "$(json_field "$T/end-stats.json" "d['problems']['time_overflow']")" = 1 ]
dfs analyze -q --format json "$T/end.json" > "$T/end-an.json"
check "analyze: the event is a bad time, not analysed" \
  [ "$(json_field "$T/end-an.json" "d['raw_stats']['events_bad_time'], d['raw_stats']['total_event_count']")" = "(1, 1)" ]
# A clock that takes an end out of range: left out by the analyses as a bad time.
printf '{"traceEvents":[\n{"name":"a","cat":"posix","ph":"X","ts":10,"dur":5,"pid":1,"tid":1}\n],"baseTimeNanoseconds":9223372036854775000}\n' \
  > "$T/clock.json"
dfs analyze -q --format json "$T/clock.json" > "$T/clock-an.json"
check "analyze: an end the clock pushes out of range is a bad time" \
  [ "$(json_field "$T/clock-an.json" "d['raw_stats']['events_bad_time']")" = 1 ]
dfs overlap -q --format json "$T/clock.json" > "$T/clock-ov.json"
check "overlap: an end the clock pushes out of range is a bad time" \
  [ "$(json_field "$T/clock-ov.json" "d['records']['bad_time']")" = 1 ]

# --- item 14: hostile strings --------------------------------------------------------------------
cat > "$T/gen.py" <<'EOF'
import struct, sys
out = sys.argv[1]
# name bodies as JSON string text: ESC sequences (colour, window title), BEL, C1 CSI, invalid UTF-8,
# an overlong form, U+FFFE U+FFFF, NUL escaped and raw, DEL, quote and comma, line breaks, markup,
# a lone surrogate escape
EVIL = [b'\x1b[31mred\x1b]0;title\x07', b'bad\xff\xfe', b'over\xc0\xaf', b'nc\xef\xbf\xbe\xef\xbf\xbf',
        b'c1\xc2\x9b2J', b'nul\\u0000tail', b'raw\x00tail', b'del\x7f', b'q\\"uo,te',
        b'nl\\nline\\ttab\\rcr', b"<&>'\\\"", b'sur\\ud800x']
def js(b): return b'"' + b + b'"'
# a Chrome trace for stats, analyze, overlap, steps, timeline, merge
lines = [b'[']
for i, e in enumerate(EVIL):
    lines.append(b'{"name":' + js(e) + b',"cat":' + js(b'posix' + e) + b',"ph":"X","ts":' + str(1000 + 20 * i).encode() +
                 b',"dur":10,"pid":' + js(b'p' + e) + b',"tid":' + js(b't' + e) +
                 b',"args":{"fname":' + js(b'/f' + e) + b',"hostname":' + js(b'h' + e) + b',"size":4}},')
lines.append(b'{"name":"last","cat":"posix","ph":"X","ts":5000,"dur":1,"pid":1,"tid":1}')
lines.append(b']')
open(out + '/evil.json', 'wb').write(b'\n'.join(lines) + b'\n')
# an smdebug job for dataloader and rules: GetNext calls named with the bytes, system metrics too
job = [b'[', b'{"name": "process_name", "ph": "M", "pid": 0, "args": {"start_time_since_epoch_in_micros": 1600000000000000}},',
       b'{"name": "process_name", "ph": "M", "pid": 2, "args": {"name": "DataLoaderIter"}},']
ts = 10000
for i, e in enumerate(EVIL):
    job.append(b'{"name": "_MultiProcessingDataLoaderIter::GetNext' + e + b'", "ph": "X", "pid": 2, "ts": ' +
               str(ts).encode() + b', "dur": ' + (b'900' if i == 3 else b'100') + b', "args": {"worker_id": 1}},')
    ts += 10000
job.append(b'{"name": "Step:ModeKeys.TRAIN", "ph": "X", "pid": 4, "ts": 0, "dur": 200000}')
job.append(b']')
open(out + '/job/1600000000200000_algo-1_pythontimeline.json', 'wb').write(b'\n'.join(job) + b'\n')
sysl = []
for i, e in enumerate(EVIL):
    sysl.append(b'{"Type": "cpu", "Name": "cpu' + e + b'", "Dimension": "CPUUtilization", "Value": 10, "NodeId": "algo' +
                e + b'", "Timestamp": 1600000000.' + str(40 + i).encode() + b'}')
open(out + '/job/1600000000.algo-1.json', 'wb').write(b'\n'.join(sysl) + b'\n')
# a DASF database for tasks: Compute records whose keys, names and types hold the bytes (msgpack
# strings carry them raw: the JSON escapes are taken literally except the raw bytes)
def mstr(b):
    b = b.replace(b'\\u0000', b'\x00').replace(b'\\n', b'\n').replace(b'\\"', b'"')
    return (bytes([0xa0 | len(b)]) if len(b) < 32 else b'\xd9' + bytes([len(b)])) + b
def mmap(kv): return bytes([0x80 | len(kv)]) + b''.join(k + v for k, v in kv)
def marr(items): return bytes([0x90 | len(items)]) + b''.join(items)
def f64(x): return b'\xcb' + struct.pack('>d', x)
db = b''
keys = [b'k' + e for e in EVIL]
for i, e in enumerate(EVIL):
    args = mmap([(mstr(b'key'), mstr(keys[i])), (mstr(b'name'), mstr(b'f' + e)), (mstr(b'state'), mstr(b'memory')),
                 (mstr(b'size'), bytes([5])), (mstr(b'shape'), marr([bytes([10])])), (mstr(b'dtype'), mstr(b'float64')),
                 (mstr(b'type'), mstr(b't' + e)), (mstr(b'dependencies'), marr([mstr(keys[i - 1])] if i else [])),
                 (mstr(b'dependents'), marr([]))])
    rec = mmap([(mstr(b'name'), mstr(b'Compute')), (mstr(b'timestamp'), f64(1.0 + i)), (mstr(b'duration'), f64(0.5)),
                (mstr(b'phase'), mstr(b'X')), (mstr(b'process_id'), mstr(b'host' + e)),
                (mstr(b'thread_id'), mstr(b'worker-host1-gpu0')), (mstr(b'args'), args)])
    db += struct.pack('>Q', len(rec)) + rec
open(out + '/evil.msgpack', 'wb').write(db)
EOF
cat > "$T/chk.py" <<'EOF'
# chk.py MODE FILE...: term (valid UTF-8, no control character but LF), utf8, csv, json, xml
import csv, io, json, re, sys
import xml.etree.ElementTree as ET
mode, bad = sys.argv[1], 0
for p in sys.argv[2:]:
    b = open(p, 'rb').read()
    try:
        t = b.decode('utf-8')
        if mode == 'term' and re.search('[\x00-\x09\x0b-\x1f\x7f-\x9f]', t):
            raise ValueError('a control character: %r' % re.search('.{0,20}[\x00-\x09\x0b-\x1f\x7f-\x9f].{0,20}', t).group())
        if mode == 'csv':
            list(csv.reader(io.StringIO(t, newline='')))
        if mode == 'json':
            json.loads(t)
        if mode == 'xml':
            ET.fromstring(b)
    except Exception as e:
        print('%s: %s' % (p, e), file=sys.stderr)
        bad += 1
sys.exit(1 if bad else 0)
EOF
mkdir -p "$T/job" "$T/o"
python3 "$T/gen.py" "$T"
O=$T/o
run() { # name, then the command: stdout to $O/name.txt, stderr to $O/name.err; exit 0 or 1
  local name=$1; shift
  "$@" > "$O/$name.txt" 2> "$O/$name.err"
  local rc=$?
  if [ $rc -le 1 ]; then ok; else bad "$name: exit $rc"; cat "$O/$name.err" >&2; fi
}
E=$T/evil.json
run stats dfs stats --top 0 "$E"
run stats-json dfs stats --top 0 --json "$E"
run analyze dfs analyze --views time,proc,file,host,pid,tid "$E"
run analyze-csv dfs analyze --views time,proc,file,host,pid,tid --format csv -o "$O/analyze-csv" "$E"
run analyze-json dfs analyze --views time,proc,file,host,pid,tid --format json "$E"
run overlap dfs overlap --scope thread "$E"
run overlap-csv dfs overlap --scope thread --format csv -o "$O/overlap-csv" "$E"
run overlap-json dfs overlap --scope thread --format json "$E"
run steps dfs steps --step 'name.str.contains("red")' "$E"
run steps-csv dfs steps --step 'name.str.contains("red")' --format csv -o "$O/steps.csv" "$E"
run timeline dfs timeline -o "$O/timeline.svg" "$E"
run timeline-json dfs timeline -o "$O/timeline2.svg" --format json "$E"
run merge dfs merge -o "$O/merged.json" "$E"
run dataloader dfs dataloader --windows "$O/windows" "$T/job"
run dataloader-csv dfs dataloader --format csv -o "$O/dataloader-csv" "$T/job"
run dataloader-json dfs dataloader --format json "$T/job"
run rules dfs rules "$T/job"
run rules-csv dfs rules --format csv -o "$O/rules.csv" "$T/job"
run tasks dfs tasks --head 0 -o "$O/tasks-csv" --graph "$O/tasks.graphml" "$T/evil.msgpack"
run tasks-dot dfs tasks -a critical_path --graph "$O/tasks.dot" "$T/evil.msgpack"
run tasks-json dfs tasks --format json "$T/evil.msgpack"

shopt -s nullglob
check "tables and messages: valid UTF-8, no control character" \
  python3 "$T/chk.py" term $(ls "$O"/*.err) $(ls "$O"/*.txt | grep -v -- '-json.txt')
check "CSV: valid UTF-8, parses" python3 "$T/chk.py" csv "$O"/analyze-csv/*.csv "$O"/overlap-csv/*.csv \
  "$O"/steps.csv "$O"/dataloader-csv/*.csv "$O"/rules.csv "$O"/tasks-csv/*.csv
check "JSON: parses" python3 "$T/chk.py" json "$O"/*-json.txt "$O"/merged.json "$O"/windows/*.json
check "SVG and GraphML: well-formed XML" python3 "$T/chk.py" xml "$O"/timeline.svg "$O"/windows/*.svg "$O"/tasks.graphml
check "DOT: valid UTF-8" python3 "$T/chk.py" utf8 "$O"/tasks.dot
check "every output was written" [ -s "$O/timeline.svg" ] && [ -s "$O/tasks.graphml" ] && [ -s "$O/tasks.dot" ] \
  && [ -n "$(ls "$O"/windows/*.svg)" ] && [ -n "$(ls "$O"/tasks-csv/*.csv)" ]
check "the tables show escapes" grep -qF '\x1b[31mred\x1b]0;title\x07' "$O/stats.txt"
check "C1 controls escaped" grep -qF 'c1\x9b2J' "$O/stats.txt"
check "a name with an escaped NUL is whole" grep -qF $'"nul\xef\xbf\xbdtail"' "$O/stats-json.txt"
check "a name with a raw NUL is whole" grep -qF $'"raw\xef\xbf\xbdtail"' "$O/stats-json.txt"
check "invalid UTF-8 is U+FFFD in CSV" grep -qF $'/fbad\xef\xbf\xbd\xef\xbf\xbd' "$O/analyze-csv/file_name.csv"
check "CSV quotes a comma" grep -qF '"/fq""uo,te"' "$O/analyze-csv/file_name.csv"
check "GraphML keeps markup escaped" grep -qF 'k&lt;&amp;&gt;' "$O/tasks.graphml"

echo "reliability_encoding: $pass passed, $fail failed"
[ "$fail" = 0 ]

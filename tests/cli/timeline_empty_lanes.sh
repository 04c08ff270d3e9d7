#!/usr/bin/env bash
# timeline_empty_lanes.sh DFSCOPE - a lane with nothing in the window (its complete events and B/E
# pairs lie outside it) gets no row, and the picture, the table and the JSON say how many lanes
# were left out so; with more lanes than a picture draws, the 'other lanes' row is unchanged and
# the empty lanes are still counted apart.
set -u
DFSCOPE=$1
source "$(dirname "$0")/testlib.bash"

cat > "$T/t.json" <<'EOF'
{"traceEvents":[
{"ph":"M","name":"thread_name","pid":1,"tid":2,"args":{"name":"late worker"}},
{"ph":"M","name":"thread_name","pid":1,"tid":3,"args":{"name":"paired worker"}},
{"ph":"X","name":"a","cat":"cpu_op","pid":1,"tid":1,"ts":1000,"dur":100},
{"ph":"X","name":"b","cat":"cpu_op","pid":1,"tid":2,"ts":5000,"dur":100},
{"ph":"B","name":"c","cat":"cpu_op","pid":1,"tid":3,"ts":6000},
{"ph":"E","name":"c","cat":"cpu_op","pid":1,"tid":3,"ts":6100}
]}
EOF

code 0 "window with one lane" "$DFSCOPE" timeline -q "$T/t.json" -w +0:+500us -o "$T/t.svg"
check "table: the two empty lanes counted" grep -q "^lanes      1 drawn of 1; 2 more with nothing in this window left out$" "$T/out"
check "picture: the note" grep -q "2 lanes of the trace have nothing in this window and are left out" "$T/t.svg"
check "picture: no row for the empty lanes" bash -c "! grep -q -e 'late worker' -e 'paired worker' '$T/t.svg'"
code 0 "window with one lane, JSON" "$DFSCOPE" timeline -q --format json "$T/t.json" -w +0:+500us -o "$T/t.svg"
check "JSON: lanes_empty 2" [ "$(json_field "$T/out" "d['lanes_empty']")" = 2 ]
check "JSON: lanes_total 1" [ "$(json_field "$T/out" "d['lanes_total']")" = 1 ]

code 0 "every lane in the window" "$DFSCOPE" timeline -q "$T/t.json" -o "$T/all.svg"
check "whole trace: nothing left out, nothing said" bash -c "! grep -q 'nothing in this window' '$T/out' '$T/all.svg'"
code 0 "whole trace, JSON" "$DFSCOPE" timeline -q --format json "$T/t.json" -o "$T/all.svg"
check "whole trace JSON: no lanes_empty key" [ "$(json_field "$T/out" "'lanes_empty' in d")" = False ]

code 0 "one lane empty, said in the singular" "$DFSCOPE" timeline -q "$T/t.json" -w +0:+4.5ms -o "$T/one.svg"
check "singular" grep -q "1 lane of the trace has nothing in this window and is left out" "$T/one.svg"

# 1010 lanes with a span in the first millisecond, 3 more only later: the busiest 1000 drawn, 10 in
# 'other lanes', 3 left out as empty.
python3 - "$T/many.json" <<'EOF'
import json, sys
ev = [{"ph": "X", "name": "w", "cat": "cpu_op", "pid": 1, "tid": t, "ts": 0, "dur": 100 + t} for t in range(1010)]
ev += [{"ph": "X", "name": "late", "cat": "cpu_op", "pid": 1, "tid": 5000 + t, "ts": 9000, "dur": 10} for t in range(3)]
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
EOF
code 0 "many lanes" "$DFSCOPE" timeline -q --format json "$T/many.json" -w +0:+1ms -o "$T/many.svg"
check "many: 1000 drawn" [ "$(json_field "$T/out" "d['lanes_drawn']")" = 1000 ]
check "many: 10 in the other row" [ "$(json_field "$T/out" "d['lanes_other_row']")" = 10 ]
check "many: 3 empty" [ "$(json_field "$T/out" "d['lanes_empty']")" = 3 ]
check "many picture: the other row and the note" grep -q "3 lanes of the trace have nothing in this window" "$T/many.svg"

echo "timeline_empty_lanes.sh: $pass passed, $fail failed"
[ "$fail" = 0 ]

#!/usr/bin/env bash
# presets_dfanalyzer.sh DFSCOPE TRACES - the presets a DFAnalyzer user picks (docs/PRESETS.md, "If
# you used DFAnalyzer"): `posix-g2` classifies POSIX calls by DFAnalyzer 0.1.0's read, write and
# metadata lists, `posix` by dftracer-analyzer's longer ones. A hand-written trace of twelve calls
# on one file, one of each kind the lists disagree on, with numbers computed by hand below. The
# corpus is not needed.
set -u
DFSCOPE=$1
here=$(dirname "$0")
. "$here/testlib.bash"

# NAME RET DUR(us): the G2 lists lack pread64, preadv64, pwrite64, pwritev64, stat64, fstat64 and
# fseeko, which are then io_cat 6 (other), without a size.
{
  echo '['
  echo '{"id":1,"name":"HH","cat":"dftracer","pid":7,"tid":7,"ph":"M","args":{"name":"node1","value":11}}'
  echo '{"id":2,"name":"FH","cat":"dftracer","pid":7,"tid":7,"ph":"M","args":{"name":"/scratch/run/data/f.bin","value":21}}'
  id=10 ts=1000000
  while read -r name ret dur; do
    printf '{"id":%d,"name":"%s","cat":"POSIX","pid":7,"tid":7,"ts":%d,"dur":%d,"ph":"X","args":{"hhash":11,"fhash":21,"ret":%d}}\n' \
      "$id" "$name" "$ts" "$dur" "$ret"
    id=$((id + 1)) ts=$((ts + 1000))
  done <<'EOF'
pread 100 10
pread64 200 20
preadv64 300 40
read 50 80
pwrite 7 160
pwrite64 11 320
pwritev64 13 640
open64 3 1
stat64 0 2
fstat64 0 4
lseek64 0 8
fseeko 0 16
EOF
  echo ']'
} >"$T/t.pfw"

# metric_values PRESET: "METRIC count size time_us" per derived metric of the posix layer, and the
# layer's display name.
metric_values() {
  "$DFSCOPE" analyze --preset "$1" --format json -o "$T/$1.json" "$T/t.pfw" || return 1
  python3 - "$T/$1.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
v = d["views"]["time_range"]
row = dict(zip(v["columns"], v["rows"][0]))
print("display", v["summary"]["layers"]["posix"]["display"])
for m in ("read", "write", "metadata", "other"):
    size = row.get(f"posix_{m}_size_sum")
    print(m, row[f"posix_{m}_count_sum"] or 0, 0 if size is None else size,
          round((row[f"posix_{m}_time_sum"] or 0) * 1e6))
PY
}

# DFAnalyzer 0.1.0 (G2): read = pread, read (150 B, 90 us); write = pwrite (7 B, 160 us);
# metadata = open64, lseek64 (9 us); other = the seven calls G2 does not list (1042 us).
code 0 "posix-g2 runs" metric_values posix-g2
check "posix-g2 gives DFAnalyzer 0.1.0's numbers" diff - "$T/out" <<'EOF'
display POSIX
read 2 150 90
write 1 7 160
metadata 2 0 9
other 7 0 1042
EOF

# dftracer-analyzer (G3): read = pread, pread64, preadv64, read (650 B, 150 us); write = pwrite,
# pwrite64, pwritev64 (31 B, 1120 us); metadata = open64, stat64, fstat64, lseek64, fseeko (31 us).
code 0 "posix runs" metric_values posix
check "posix gives dftracer-analyzer's numbers" diff - "$T/out" <<'EOF'
display POSIX - All
read 4 650 150
write 3 31 1120
metadata 5 0 31
other 0 0 0
EOF

code 0 "the shipped presets are listed" "$DFSCOPE" analyze --list-presets
check "posix-g2 is listed" grep -q '^posix-g2 ' "$T/out"
code 0 "--show-preset posix-g2" "$DFSCOPE" analyze --show-preset posix-g2
check "its lists are G2's (no pread64)" bash -c "grep -q '^    read: \[fread, pread, preadv, read, readv\]$' '$T/out'"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

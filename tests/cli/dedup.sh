#!/usr/bin/env bash
# dedup.sh DFSCOPE TRACES - exact duplicate records at any distance within a file (model/dups.h):
# found by default as a legal variant (exit 0) with an exact count whatever -j and the chunking,
# and all dropped by --dedup, so that the events and every analysis equal the trace without them.
set -u
DFSCOPE=$1
. "$(dirname "$0")/testlib.bash"

# DFTracer 2023-style traces ("[" then a record per line, no "]"): clean/ holds three ranks, dup/
# the same files with records repeated 3,000 to 5,000 records after their twin, as 2023 writers
# did. r0 is plain, r1 gzipped, r2 plain with twins that end the file and a duplicate pair of the
# same twin (three copies: two duplicates).
python3 - "$T" <<'PY'
import gzip, os, random, sys
t = sys.argv[1]
rnd = random.Random(7)
for d in ("clean", "dup"):
    os.makedirs(os.path.join(t, d))
def record(rank, i):
    name, cat = rnd.choice([("read", "POSIX"), ("write", "POSIX"), ("open64", "POSIX"),
                            ("TorchFramework.compute", "dlio_benchmark")])
    args = '"hostname":"node%d","fname":"/data/f%d.npz","size":%d' % (rank, i % 17, 4096 * (1 + i % 5))
    return ('{"id":"%d","name":"%s","cat":"%s","pid":"%d","tid":"%d","ts":"%d","dur":"%d",'
            '"ph":"X","args":{%s}}' % (i, name, cat, 100 + rank, 7, 1000000 + 500 * i, 50 + i % 300, args))
expected = 0
for rank, opener in ((0, open), (1, gzip.open), (2, open)):
    lines = [record(rank, i) for i in range(8000)]
    out = list(lines)
    twins = sorted(rnd.sample(range(0, 4500), 150))
    for k in reversed(twins):  # insert each copy 3,000-5,000 records after its twin
        out.insert(k + 1 + rnd.randint(3000, 5000), lines[k])
    expected += len(twins)
    if rank == 2:
        out += [lines[10], lines[10], lines[7999]]
        expected += 3
    ext = ".pfw.gz" if opener is gzip.open else ".pfw"
    for d, body in (("clean", lines), ("dup", out)):
        with opener(os.path.join(t, d, "r%d%s" % (rank, ext)), "wt") as f:
            f.write("[\n" + "\n".join(body) + "\n")
open(os.path.join(t, "expected"), "w").write(str(expected))
PY
want=$(cat "$T/expected")
clean="$T/clean/r0.pfw $T/clean/r1.pfw.gz $T/clean/r2.pfw"
dup="$T/dup/r0.pfw $T/dup/r1.pfw.gz $T/dup/r2.pfw"

# --- by default: every duplicate found, a legal variant, kept --------------------------------------
code 0 "duplicates are not damage" "$DFSCOPE" stats --json -q $dup
check "all duplicates counted ($want)" [ "$(json_field "$T/out" "d['problems']['duplicate_record']")" = "$want" ]
check "kept: events are every record" [ "$(json_field "$T/out" "d['events_total']")" = $((24000 + want)) ]
check "no file counted as damaged" [ "$(json_field "$T/out" "sum(f['problems'] for f in d['files'])")" = 0 ]
cp "$T/out" "$T/j1.json"
code 0 "stderr names them" "$DFSCOPE" stats $dup
check "stderr: count and the hint" grep -q "^  $want exact duplicate records (.* of events), kept .* --dedup drops them" "$T/err"

# the answer does not depend on -j or on how the plain files are cut (chunks of 4 KiB)
for j in 1 2; do
  code 0 "-j $j --chunk 4k" "$DFSCOPE" stats --json -q -j "$j" --chunk 4k $dup
  check "-j $j --chunk 4k: same problems and examples" \
    [ "$(json_field "$T/out" "(d['problems'], d['problem_examples'])")" = \
      "$(json_field "$T/j1.json" "(d['problems'], d['problem_examples'])")" ]
done
code 0 "-j 2 --chunk 4k, one file" "$DFSCOPE" stats --json -q -j 2 --chunk 4k "$T/dup/r2.pfw"
check "one file in chunks: its duplicates" [ "$(json_field "$T/out" "d['problems']['duplicate_record']")" = 153 ]
check "the later twin is the duplicate" [ "$(json_field "$T/out" \
  "d['problem_examples']['duplicate_record'][0]['offset'] > 3000 * 100")" = True ]

# --- --dedup drops every duplicate: events and analyses equal the clean trace ----------------------
code 0 "--dedup is not damage" "$DFSCOPE" stats --json -q --dedup -j 2 --chunk 4k $dup
check "--dedup: all counted" [ "$(json_field "$T/out" "d['problems']['duplicate_record']")" = "$want" ]
check "--dedup: events_total without them" [ "$(json_field "$T/out" "d['events_total']")" = 24000 ]
code 0 "--dedup stderr" "$DFSCOPE" stats --dedup $dup
check "stderr: dropped" grep -q "^  $want exact duplicate records dropped (--dedup)" "$T/err"

# what the analyses found (the files' paths and sizes differ, and the problems by design)
strip='{k: v for k, v in d.items() if k not in ("problems", "problem_examples", "files")}'
for cmd in "stats --json" "analyze --preset dlio --format json" "overlap --format json"; do
  code 0 "$cmd clean" "$DFSCOPE" $cmd -q $clean
  mv "$T/out" "$T/clean.json"
  code 0 "$cmd --dedup" "$DFSCOPE" $cmd -q --dedup -j 2 $dup
  check "$cmd: --dedup equals the trace without duplicates" \
    [ "$(json_field "$T/out" "$strip")" = "$(json_field "$T/clean.json" "$strip")" ]
done
code 0 "analyze without --dedup" "$DFSCOPE" analyze --preset dlio --format json -q $dup
check "analyze without --dedup differs (the duplicates are counted)" \
  [ "$(json_field "$T/out" "$strip")" != "$(json_field "$T/clean.json" "$strip")" ]

echo "dedup: $pass passed, $fail failed"
[ "$fail" = 0 ]

#!/usr/bin/env python3
"""make_corpus.py OUT [TRACES] - writes the corrupted-trace suite into OUT, with OUT/manifest.tsv.

Cases are made from the real corpus (TRACES, default ../shared/traces beside the checkout) when
it is there, and from small hand-written traces always: truncations at many offsets (mid-line,
at line ends, inside gzip headers, members and trailers, inside a Chrome object form), bit flips,
a 20 MB single line, NUL bytes, invalid UTF-8, unescaped quotes, numbers beyond 64 bits, negative
and absurd durations, empty files, a file that is only '[', a directory, a FIFO and a dangling
symlink named like traces, and an unreadable file (left out when running as root, who can read
it anyway). Deterministic: the same corpus gives the same suite.

Each manifest line is tab-separated:
  name  path  stats_exits  analyze_exits  events  diagnostic  options
 - path: relative to OUT (the input given to dfscope);
 - *_exits: the exit codes the documented contract allows (docs/CLI.md), comma-separated;
 - events: the events_total `dfscope stats --json` must report, computed here independently of
   dfscope (Python's json and zlib): for a truncation, the complete records before the cut;
   '-' when not checked (bit flips);
 - diagnostic: an extended regular expression stderr must match (it names the file and the line
   or offset of the damage), '-' for none;
 - options: extra options for both commands, '-' for none.
"""
import gzip
import json
import os
import random
import re
import stat
import sys
import zlib

OUT = None
CASES = []


def add(name, data, stats_exits, events, diag=None, analyze_exits=None, options=None, path=None):
    """Writes one input (bytes, or None when the file was made by the caller) and its line."""
    rel = path or name
    if data is not None:
        with open(os.path.join(OUT, rel), "wb") as f:
            f.write(data)
    CASES.append((name, rel, stats_exits, analyze_exits or stats_exits,
                  "-" if events is None else str(events), diag or "-", options or "-"))


def esc(path):
    return re.escape(path)


# ---- independent counts ------------------------------------------------------------------------

def is_record(line):
    try:
        return isinstance(json.loads(line), dict)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return False


def line_records(data):
    """Lines that parse as JSON objects (the manifest's counting rule for line-oriented files;
    framing such as '[' and ']' is not an object; trailing commas are framing too)."""
    n = 0
    for line in data.split(b"\n"):
        line = line.strip(b" \r\t")
        if line.endswith(b","):
            line = line[:-1]
        if line.startswith(b"{") and is_record(line):
            n += 1
    return n


def torn_line(data):
    """(line number, offset) of a last line cut before its end, or None."""
    if not data or data.endswith(b"\n"):
        return None
    start = data.rfind(b"\n") + 1
    tail = data[start:].strip(b" \r\t")
    if not tail or tail in (b"[", b"]") or (tail.startswith(b"{") and is_record(tail.rstrip(b","))):
        return None
    return data.count(b"\n", 0, start) + 1, start


def array_entries(text, start):
    """Complete entries of a JSON array whose '[' is at text[start]: Python's decoder, one entry
    at a time, stopping at the first that does not decode (the cut)."""
    dec = json.JSONDecoder()
    i, n = start + 1, 0
    while True:
        while i < len(text) and text[i] in " \r\n\t,":
            i += 1
        if i >= len(text) or text[i] == "]":
            return n
        try:
            _, i = dec.raw_decode(text, i)
        except ValueError:
            return n
        n += 1


def gunzip_prefix(data):
    """What zlib inflates from a (possibly cut) sequence of gzip members."""
    out = b""
    while data:
        d = zlib.decompressobj(31)
        try:
            out += d.decompress(data)
        except zlib.error:
            break
        if not d.eof:
            break
        data = d.unused_data
    return out


# ---- cases from the corpus ---------------------------------------------------------------------

def line_cuts(data, count, seed):
    """Offsets inside the first 300 KB: line ends, just after a '{', inside strings and numbers,
    just before a '\\n' (the record complete, its newline missing), and random ones."""
    rng = random.Random(seed)
    limit = min(len(data), 300_000)
    ends = [m.end() for m in re.finditer(b"\n", data[:limit])]
    cuts = {ends[3], ends[len(ends) // 2], ends[-1] - 1}
    cuts.add(data.index(b"{", ends[10]) + 1)
    cuts.add(data.index(b'"name":"', ends[20]) + 10)
    cuts.add(data.index(b'"ts":', ends[30]) + 8)
    while len(cuts) < count:
        cuts.add(rng.randrange(1, limit))
    return sorted(cuts)


def truncations_lines(traces):
    for rel, tag, count in [("dftracer/dlio-unet3d-hdf5-8rank/trace-0-of-8.pfw", "v1", 14),
                            ("dftracer/legacy-2023/dfanalyzer_test.pfw", "2023", 6)]:
        data = open(os.path.join(traces, rel), "rb").read()
        for cut in line_cuts(data, count, len(data)):
            name = f"trunc-{tag}-{cut}.pfw"
            prefix = data[:cut]
            torn = torn_line(prefix)
            if torn:
                diag = f"{esc(name)}:{torn[0]} \\(offset {torn[1]}\\)"
                add(name, prefix, "1", line_records(prefix), diag)
            else:  # a cut at a line end: only the missing ']' (a legal variant)
                add(name, prefix, "0", line_records(prefix))


def truncations_gzip(traces):
    src = os.path.join(traces, "dftracer/cm1-48rank/cm1-DEFAULT-3537780-preload.pfw.gz")
    data = open(src, "rb").read()
    for cut in [5, 15, 1000, 20000, 40000, 60000, len(data) - 10, len(data) - 4, len(data) - 1]:
        name = f"trunc-gz-{cut}.pfw.gz"
        text = gunzip_prefix(data[:cut])
        diag = f"{esc(name)} \\(offset 0\\): gzip (header|member) at 0 cut"
        add(name, data[:cut], "1", line_records(text), diag)
    # three members (as DFTracer writes when it flushes), cut in the second member's data, in
    # the first member's trailer, and just after the first member
    lines = open(os.path.join(traces, "dftracer/dlio-unet3d-hdf5-8rank/trace-1-of-8.pfw"),
                 "rb").read().split(b"\n")
    parts = [b"\n".join(lines[i:i + 200]) + b"\n" for i in (0, 200, 400)]
    members = [gzip.compress(p, mtime=0) for p in parts]
    whole = b"".join(members)
    first = len(members[0])
    for tag, cut in [("second-member", first + len(members[1]) // 2),
                     ("first-trailer", first - 3), ("member-boundary", first)]:
        name = f"trunc-gz3-{tag}.pfw.gz"
        text = gunzip_prefix(whole[:cut])
        if cut == first:  # nothing is cut: the file simply has one member
            add(name, whole[:cut], "0", line_records(text))
            continue
        start = first if cut > first else 0
        diag = f"{esc(name)} \\(offset {start}\\): gzip member at {start} cut"
        add(name, whole[:cut], "1", line_records(text), diag)


def truncations_structural(traces):
    data = gzip.open(os.path.join(
        traces, "hta/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz")).read()
    text = data.decode()
    events_at = text.index('"traceEvents"')
    array = text.index("[", events_at)
    rng = random.Random(3)
    cuts = sorted({array + 1, array + 300} | {rng.randrange(array + 2, len(text)) for _ in range(5)})
    for cut in cuts:
        name = f"trunc-kineto-{cut}.json"
        add(name, data[:cut], "1", array_entries(text[:cut], array),
            f"{esc(name)}.*(offset|not closed)")
    comp = open(os.path.join(traces, "composer/ep0-ba5-rank0.synthetic.json"), "rb").read()
    for cut in (len(comp) // 3, len(comp) // 2 + 7):
        name = f"trunc-composer-{cut}.json"
        prefix = comp[:cut]
        torn = torn_line(prefix)
        diag = f"{esc(name)}:{torn[0]} \\(offset {torn[1]}\\)" if torn else None
        add(name, prefix, "1" if torn else "0", line_records(prefix), diag)


def flip_bits(data, flips, seed):
    rng = random.Random(seed)
    b = bytearray(data)
    for _ in range(flips):
        i = rng.randrange(len(b))
        b[i] ^= 1 << rng.randrange(8)
    return bytes(b)


def bit_flips(traces):
    v1 = open(os.path.join(traces, "dftracer/dlio-unet3d-hdf5-8rank/trace-2-of-8.pfw"),
              "rb").read()[:65536]
    gz = open(os.path.join(traces, "dftracer/cm1-48rank/cm1-DEFAULT-3537781-preload.pfw.gz"),
              "rb").read()
    kin = gzip.open(os.path.join(traces, "hta/triton_example/triton_example.json.gz")).read()
    dasf = open(os.path.join(
        traces, "dasf/Tutorial_5_Profile-TracePlugin-c096.reconstructed.msgpack"), "rb").read()
    for seed in range(4):
        add(f"flip-v1-{seed}.pfw", flip_bits(v1, 30, seed), "0,1", None)
    for seed in range(3):
        add(f"flip-gz-{seed}.pfw.gz", flip_bits(gz, 4, 100 + seed), "0,1", None)
    for seed in range(2):
        add(f"flip-kineto-{seed}.json", flip_bits(kin, 20, 200 + seed), "0,1", None)
    for seed in range(3):
        add(f"flip-dasf-{seed}.msgpack", flip_bits(dasf, 6, 300 + seed), "0,1", None)


# ---- hand-written cases --------------------------------------------------------------------------

def rec(i, name="read", ts=None, dur="5", extra=""):
    ts = str(1000000 + 10 * i) if ts is None else ts
    return (f'{{"id":{i},"name":"{name}","cat":"POSIX","pid":7,"tid":7,"ts":{ts},"dur":{dur},'
            f'"ph":"X","args":{{"ret":4{extra}}}}}\n').encode()


def good(n, first=1):
    return b"".join(rec(i) for i in range(first, first + n))


def handwritten():
    mb20 = 20 << 20
    big = (b'{"id":4,"name":"huge","cat":"POSIX","pid":7,"tid":7,"ts":1000040,"dur":5,"ph":"X",'
           b'"args":{"blob":"' + b"x" * mb20 + b'"}}\n')
    long_line = b"[\n" + good(3) + big + good(3, 5) + b"]\n"
    add("long-line-20MB.pfw", long_line, "0", 7)
    add("long-line-20MB-limit.pfw", long_line, "1", 6,
        r"long-line-20MB-limit\.pfw:5 \(offset", options="--max-record 1M")
    add("long-garbage-line-20MB.pfw", good(3) + b"z" * mb20 + b"\n" + good(3, 4), "1", 6,
        r"long-garbage-line-20MB\.pfw:4 \(offset")
    add("nul-tail.pfw", b"[\n" + good(5) + b"\0" * 65536, "1", 5, r"nul-tail\.pfw:7 \(offset")
    add("nul-line.pfw", good(2) + b"\0" * 100 + b"\n" + good(2, 3), "1", 4,
        r"nul-line\.pfw:3 \(offset")
    add("nul-in-string.pfw", good(2) + rec(3, name="re\0ad") + good(2, 4), "1", 5,
        r"nul-in-string\.pfw:3 \(offset")
    add("invalid-utf8.pfw", good(1) + rec(2).replace(b'"read"', b'"r\xff\xfed"')
        + rec(3).replace(b'"read"', b'"r\xc0\xafd"') + rec(4).replace(b'"read"', b'"\xed\xa0\x80"')
        + good(1, 5), "1", 5, r"invalid-utf8\.pfw:2 \(offset")
    add("unescaped-quote.pfw", good(1) + rec(2).replace(b'"read"', b'"say "hi" now"') + good(1, 3),
        "1", 3, r"unescaped-quote\.pfw:2 \(offset")
    add("overflow-numbers.pfw", good(1)
        + rec(2, ts="99999999999999999999999")
        + rec(3).replace(b'"id":3', b'"id":18446744073709551616')
        + rec(4).replace(b'"pid":7', b'"pid":-99999999999999999999')
        + rec(5, dur="1e400") + good(1, 6),
        "1", 6, r"overflow-numbers\.pfw:[2-5] \(offset")
    add("durations.pfw", good(1) + rec(2, dur="-5") + rec(3, dur="999999999999999")
        + rec(4, dur="-9223372036854775808") + good(1, 5), "1", 5, r"durations\.pfw:[2-4] \(offset")
    add("empty.pfw", b"", "0", 0)
    add("spaces.pfw", b" \n\n \n", "0", 0)
    add("only-bracket.pfw", b"[", "0", 0)
    add("only-bracket-newline.json", b"[\n", "0", 0)
    add("only-brace.json", b"{", "0,1", 0)
    # special files named like traces
    os.mkdir(os.path.join(OUT, "empty-dir.pfw"))
    add("empty-dir.pfw", None, "2", None, r"empty-dir\.pfw|no files found")
    os.mkdir(os.path.join(OUT, "dir-with-trace.pfw"))
    add("dir-with-trace.pfw", None, "0", 3, path="dir-with-trace.pfw")
    with open(os.path.join(OUT, "dir-with-trace.pfw", "inner.pfw"), "wb") as f:
        f.write(good(3))
    os.mkfifo(os.path.join(OUT, "fifo.pfw"))
    add("fifo.pfw", None, "2", None, r"fifo\.pfw: not a regular file")
    os.mkdir(os.path.join(OUT, "dir-with-fifo"))
    os.mkfifo(os.path.join(OUT, "dir-with-fifo", "pipe.pfw"))
    with open(os.path.join(OUT, "dir-with-fifo", "ok.pfw"), "wb") as f:
        f.write(good(2))
    add("dir-with-fifo", None, "0", 2)
    os.symlink("does-not-exist.pfw", os.path.join(OUT, "dangling.pfw"))
    add("dangling.pfw", None, "2", None, r"dangling\.pfw")
    if os.geteuid() != 0:
        add("unreadable.pfw", good(2), "2", None, r"unreadable\.pfw")
        os.chmod(os.path.join(OUT, "unreadable.pfw"), 0)
    else:
        print("make_corpus: running as root, the unreadable-file case is left out "
              "(root reads any file)", file=sys.stderr)


def main():
    global OUT
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    OUT = sys.argv[1]
    here = os.path.dirname(os.path.abspath(__file__))
    traces = sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, "../../../shared/traces")
    os.makedirs(OUT, exist_ok=True)
    handwritten()
    if os.path.isfile(os.path.join(traces, "MANIFEST.md")):
        truncations_lines(traces)
        truncations_gzip(traces)
        truncations_structural(traces)
        bit_flips(traces)
    else:
        print(f"make_corpus: no trace corpus at {traces}: hand-written cases only", file=sys.stderr)
    with open(os.path.join(OUT, "manifest.tsv"), "w") as f:
        for case in CASES:
            f.write("\t".join(case) + "\n")
    print(f"make_corpus: {len(CASES)} cases in {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()

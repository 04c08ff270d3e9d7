#!/usr/bin/env bash
# reliability_outputs.sh DFSCOPE TRACES - how outputs are written (docs/CLI.md, "Outputs"): no file
# a command writes, each file of an output folder included, replaces an input (checked by device
# and inode, before the first file is written: exit 2); a device or FIFO is written in place, a
# symlink's target is replaced (the link kept), a replaced file keeps its mode and owner; a fatal
# signal leaves no temporary and the previous output intact (exit 128+N). The signal cases stop
# dfscope at a known point: with DFSCOPE_TEST_HOLD set (src/output/atomic.c), every temporary,
# once created, waits on a FIFO that the helper below opens; the helper signals dfscope then.
set -u
DFSCOPE=$1
. "$(dirname "$0")/testlib.bash"
PY=$(python3 -c 'import sys; print(sys.executable)') || { echo "SKIP: python3 is needed" >&2; exit 77; }

event() { # id name ts: one DFTracer-like complete event
  printf '{"id":%d,"name":"%s","cat":"POSIX","pid":1,"tid":1,"ts":%d,"dur":5,"ph":"X","args":{}}\n' "$@"
}
{ event 1 read 10; event 2 write 20; event 3 read 30; } > "$T/trace.pfw"
same() { cmp -s "$1" "$2"; }
no_temporaries() { ! ls "$1" | grep -q '\.tmp\.'; }

# --- item: every file written is checked against the inputs -------------------------------------
# An input in the output folder named like one of the files a command writes there.
refused_in_folder() { # command name-of-the-clashing-file options...
  local cmd=$1 name=$2; shift 2
  local d="$T/in-$cmd-$name"
  mkdir -p "$d"
  cp "$T/trace.pfw" "$d/t.pfw"
  cp "$T/trace.pfw" "$d/$name"
  code 2 "$cmd $*: an input named $name in the output folder: exit 2" "$DFSCOPE" "$cmd" -q "$@" "$d"
  check "$cmd: the refusal names $name" grep -q "refusing to write the output over the input .*$name" "$T/err"
  check "$cmd: the input $name is left as it was" same "$T/trace.pfw" "$d/$name"
  check "$cmd: no other file is written (checked before the first)" [ "$(ls "$d" | wc -l)" = 2 ]
}
refused_in_folder analyze time_range.csv --format csv -o "$T/in-analyze-time_range.csv"
refused_in_folder overlap overlap.csv --format csv -o "$T/in-overlap-overlap.csv"

# A hard link to an input, in another folder: the same file by device and inode.
mkdir -p "$T/linked"
cp "$T/trace.pfw" "$T/alone.pfw"
ln "$T/alone.pfw" "$T/linked/time_range.csv"
code 2 "an output that is a hard link to an input: exit 2" "$DFSCOPE" analyze -q --format csv -o "$T/linked" "$T/alone.pfw"
check "the hard-linked input is left as it was" same "$T/trace.pfw" "$T/alone.pfw"

# dataloader: its CSV folder and its --windows folder (the files named after the outliers).
dataloader_job "$T/job"
code 0 "dataloader: the job writes its windows" "$DFSCOPE" dataloader -q --windows "$T/win" "$T/job"
check "dataloader: the job has a GetNext window" [ -s "$T/win/getnext-1.json" ]
for name in summary.csv rows.csv; do
  dataloader_job "$T/dl-$name"
  cp "$T/trace.pfw" "$T/dl-$name/$name"
  code 2 "dataloader --format csv -o: an input named $name: exit 2" \
    "$DFSCOPE" dataloader -q --format csv -o "$T/dl-$name" "$T/dl-$name"
  check "dataloader: the input $name is left as it was" same "$T/trace.pfw" "$T/dl-$name/$name"
  check "dataloader: no CSV file is written" [ "$(ls "$T/dl-$name" | grep -c csv)" = 1 ]
done
for name in batch-1.json getnext-1.json; do
  dataloader_job "$T/dw-$name"
  cp "$T/trace.pfw" "$T/dw-$name/$name"
  code 2 "dataloader --windows: an input named $name: exit 2" \
    "$DFSCOPE" dataloader -q --windows "$T/dw-$name" "$T/dw-$name"
  check "dataloader --windows: the input $name is left as it was" same "$T/trace.pfw" "$T/dw-$name/$name"
  check "dataloader --windows: no window file is written" [ "$(ls "$T/dw-$name" | wc -l)" = 3 ]
  check "dataloader --windows: refusal said" grep -q "refusing to write the output over the input .*$name" "$T/err"
done

# --- item: -o onto what is not a regular file -----------------------------------------------------
cp "$T/trace.pfw" "$T/in.pfw"
"$DFSCOPE" analyze -q --format json "$T/in.pfw" > "$T/expected.json"
check "the expected output is not empty" [ -s "$T/expected.json" ]

ln -s target.json "$T/link.json"
echo old > "$T/target.json"
code 0 "-o onto a symlink" "$DFSCOPE" analyze -q --format json -o "$T/link.json" "$T/in.pfw"
check "the symlink is kept" [ -L "$T/link.json" ]
check "its target holds the output" same "$T/expected.json" "$T/target.json"
ln -s "$T/made.json" "$T/dangling.json"
code 0 "-o onto a dangling symlink" "$DFSCOPE" analyze -q --format json -o "$T/dangling.json" "$T/in.pfw"
check "the dangling symlink is kept" [ -L "$T/dangling.json" ]
check "the file it names is created" same "$T/expected.json" "$T/made.json"
no_temporaries "$T" && ok || bad "no temporary left beside symlinked outputs"

echo old > "$T/private.json"
chmod 0640 "$T/private.json"
code 0 "-o onto a file of mode 0640" "$DFSCOPE" analyze -q --format json -o "$T/private.json" "$T/in.pfw"
check "the replaced file keeps mode 0640" [ "$(stat -c %a "$T/private.json")" = 640 ]
check "and holds the output" same "$T/expected.json" "$T/private.json"
rm -f "$T/new.json"
code 0 "-o creates a file under umask 027" sh -c "umask 027; exec '$DFSCOPE' analyze -q --format json -o '$T/new.json' '$T/in.pfw'"
check "a new file has mode 0666 & ~umask" [ "$(stat -c %a "$T/new.json")" = 640 ]

mkfifo "$T/fifo.out"
through_fifo() { # FIFO COMMAND...: runs COMMAND with the FIFO's reader open; what it read on stdout
  "$PY" - "$@" <<'EOF'
import os, subprocess, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK) # open first: the writer never waits
p = subprocess.Popen(sys.argv[2:], stderr=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
def drain(): # what the FIFO holds now; b"" at once when nothing (no writer yet, or one that is quiet)
    out = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            return out
        if not chunk:
            return out
        out += chunk
# While it runs, keep the FIFO from filling. The deadline only stops a hung command: it is long
# enough for any load, and no check depends on it.
got, deadline = b"", time.time() + 120
while p.poll() is None and time.time() < deadline:
    chunk = drain()
    got += chunk
    if not chunk:
        time.sleep(0.01)
if p.poll() is None:
    p.kill()
rc = p.wait()
got += drain() # what it wrote before it ended: no writer is left, so this reads to the end
sys.stdout.buffer.write(got)
sys.exit(rc)
EOF
}
code 0 "-o onto a FIFO" through_fifo "$T/fifo.out" "$DFSCOPE" analyze -q --format json -o "$T/fifo.out" "$T/in.pfw"
cp "$T/out" "$T/fifo.got"
check "the FIFO is kept" [ -p "$T/fifo.out" ]
check "its reader got the output" same "$T/expected.json" "$T/fifo.got"

if [ "$(id -u)" = 0 ]; then
  mknod "$T/null" c 1 3 && mknod "$T/full" c 1 7 || bad "mknod"
  code 0 "-o onto a copy of /dev/null" "$DFSCOPE" analyze -q --format json -o "$T/null" "$T/in.pfw"
  check "the device stays a device" [ -c "$T/null" ]
  code 4 "-o onto a copy of /dev/full: exit 4" "$DFSCOPE" analyze -q --format json -o "$T/full" "$T/in.pfw"
  check "the full device stays a device" [ -c "$T/full" ]
  check "the failure is said" grep -q 'No space left on device' "$T/err"
  echo old > "$T/owned.json"
  chown 4321:4322 "$T/owned.json"
  chmod 0604 "$T/owned.json"
  code 0 "-o onto a file of another owner" "$DFSCOPE" analyze -q --format json -o "$T/owned.json" "$T/in.pfw"
  check "the replaced file keeps its owner" [ "$(stat -c %u:%g:%a "$T/owned.json")" = 4321:4322:604 ]
  check "and holds the output" same "$T/expected.json" "$T/owned.json"
else
  echo "reliability_outputs.sh: SKIP the device and owner cases: they need root (mknod, chown)" >&2
fi

# --- item: a fatal signal leaves no temporary ---------------------------------------------------
# held SIGNAL OUTPUT-DIR COMMAND...: runs COMMAND with DFSCOPE_TEST_HOLD, waits until it holds with
# a temporary created (at most 120 s: only a hung command takes that long, whatever the load),
# sends SIGNAL, and prints the exit status as a shell reports it (128+N after signal N). stdout and
# stderr of COMMAND go to $T/out and $T/err. Nothing here depends on timing: the command is
# signalled where it provably waits (DFSCOPE_TEST_HOLD), and waited for to its end.
held() {
  local sig=$1 dir=$2; shift 2
  rm -f "$T/hold"
  mkfifo "$T/hold"
  DFSCOPE_TEST_HOLD="$T/hold" "$PY" - "$sig" "$T/hold" "$dir" "$@" >"$T/status" <<'EOF'
import os, signal, subprocess, sys, time
sig, hold, where, cmd = getattr(signal, sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
def defaults(): # what a user's shell gives: every signal at its default action
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGPIPE):
        signal.signal(s, signal.SIG_DFL)
p = subprocess.Popen(cmd, stdout=open(os.environ["T"] + "/out", "w"), stderr=open(os.environ["T"] + "/err", "w"),
                     preexec_fn=defaults)
deadline = time.time() + 120
fd = -1
while fd < 0 and p.poll() is None and time.time() < deadline:
    try:
        fd = os.open(hold, os.O_WRONLY | os.O_NONBLOCK) # succeeds once dfscope waits on the FIFO
    except OSError:
        time.sleep(0.01)
if fd < 0:
    p.kill()
    p.wait()
    print("never held")
    sys.exit()
held_with_temp = any(".tmp." in n for n in os.listdir(where))
p.send_signal(sig)
rc = p.wait()
os.close(fd)
print(128 - rc if rc < 0 else rc, "temp" if held_with_temp else "no-temp")
EOF
}
export T
mkdir -p "$T/sig"
cp "$T/trace.pfw" "$T/sig/in.pfw"
for case in "SIGTERM 143 analyze -q --format json" "SIGINT 130 analyze -q --format json" "SIGHUP 129 merge -q" \
            "SIGPIPE 141 merge -q" "SIGTERM 143 timeline -q"; do
  set -- $case
  sig=$1 want=$2; shift 2
  echo previous > "$T/sig/out.json"
  held "$sig" "$T/sig" "$DFSCOPE" "$@" -o "$T/sig/out.json" "$T/sig/in.pfw"
  check "$* -o, $sig mid-write: exit $want with its temporary held (got: $(cat "$T/status"))" \
    [ "$(cat "$T/status")" = "$want temp" ]
  check "$* -o, $sig: no temporary left" no_temporaries "$T/sig"
  check "$* -o, $sig: the previous output is intact" [ "$(cat "$T/sig/out.json")" = previous ]
  check "$* -o, $sig: nothing said" [ ! -s "$T/err" ]
done
# A CSV folder: the signal while its first file is written.
mkdir -p "$T/sigcsv"
held SIGTERM "$T/sigcsv" "$DFSCOPE" analyze -q --format csv -o "$T/sigcsv" "$T/sig/in.pfw"
check "analyze --format csv, SIGTERM mid-write: exit 143 (got: $(cat "$T/status"))" [ "$(cat "$T/status")" = "143 temp" ]
check "analyze --format csv, SIGTERM: no temporary left" no_temporaries "$T/sigcsv"

# gen writes its files through the same writer: a signal while its workers write leaves none
mkdir -p "$T/sigen"
held SIGTERM "$T/sigen" "$DFSCOPE" gen -o "$T/sigen" --format v1 --ranks 4 --size 64k -j 2
check "gen, SIGTERM mid-write: exit 143 (got: $(cat "$T/status"))" [ "$(cat "$T/status")" = "143 temp" ]
check "gen, SIGTERM: no temporary left" no_temporaries "$T/sigen"

# stdout closed by the reader (`dfscope stats X | head -1`): the process ends by SIGPIPE, quietly;
# started with SIGPIPE ignored, the failed write is said once (exit 4).
closed_stdout() { # prints the exit status and the count of stderr lines of COMMAND
  "$PY" - "$@" <<'EOF'
import os, signal, subprocess, sys
ignore = sys.argv[1] == "ignored"
r, w = os.pipe()
os.close(r) # the reader is gone before dfscope writes
def setup():
    signal.signal(signal.SIGPIPE, signal.SIG_IGN if ignore else signal.SIG_DFL)
p = subprocess.run(sys.argv[2:], stdout=w, stderr=subprocess.PIPE, preexec_fn=setup)
os.close(w)
rc = p.returncode
print(128 - rc if rc < 0 else rc, len(p.stderr.decode().splitlines()))
EOF
}
check "stats | a closed reader: exit 141, nothing said" \
  [ "$(closed_stdout default "$DFSCOPE" stats "$T/trace.pfw")" = "141 0" ]
check "stats | a closed reader, SIGPIPE ignored: exit 4, said once" \
  [ "$(closed_stdout ignored "$DFSCOPE" stats "$T/trace.pfw")" = "4 1" ]

echo "reliability_outputs.sh: $pass passed, $fail failed"
[ "$fail" = 0 ]

"""Ctrl-C during a long read: KeyboardInterrupt soon after the signal, nothing left running, and
the process works on."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from conftest import gen

SCRIPT = textwrap.dedent(r"""
    import os, signal, sys, threading, time
    import dfscope
    big, small = sys.argv[1], sys.argv[2]
    ts = dfscope.open(big, jobs=1, chunk="8M")
    sent = []
    def interrupt():
        time.sleep(0.15)
        sent.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)
    for call in (lambda: ts.events(columns=["ts", "name", "args.size"]), lambda: ts.stats()):
        sent.clear()
        threading.Thread(target=interrupt).start()
        start = time.monotonic()
        try:
            call()
            print("finished before the signal", time.monotonic() - start)
            sys.exit(1)
        except KeyboardInterrupt:
            delay = time.monotonic() - sent[0]
            print(f"interrupted {delay:.3f} s after the signal")
            assert delay < 1.0, delay
    time.sleep(0.1)
    assert len(os.listdir("/proc/self/task")) == 1, os.listdir("/proc/self/task")
    assert len(dfscope.open(small).events()) > 0
    print("OK")
""")


def test_keyboard_interrupt(cli: str, small: Path, tmp_path: Path) -> None:
    big = gen(cli, tmp_path / "big", "--format", "v1", "--ranks", "1", "--size", "320M", "--seed", "3")
    env = dict(os.environ)
    p = subprocess.run([sys.executable, "-c", SCRIPT, str(big), str(small)], capture_output=True, text=True,
                       env=env, timeout=120)
    print(p.stdout)
    assert p.returncode == 0 and "OK" in p.stdout, p.stdout + p.stderr

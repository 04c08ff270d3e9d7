"""A merged trace beside the traces it merges: the analyses leave it out (the diagnostics say so),
keep_merged reads it; events() reads the inputs as given."""

from __future__ import annotations

import json
from pathlib import Path

import dfscope


def _rank(pid: int, shift: int = 0) -> list[dict]:
    return [{"name": "step", "ph": "X", "ts": 1700000000000000 + 1000 * i + shift, "dur": 100, "pid": pid,
             "tid": 1, "args": {"i": i}} for i in range(20)]


def _write(path: Path, events: list[dict]) -> None:
    path.write_text("[\n" + ",\n".join("    " + json.dumps(e) for e in events) + "\n]\n")


def test_a_merge_is_left_out_unless_kept(tmp_path: Path) -> None:
    _write(tmp_path / "rank0.json", _rank(0))
    _write(tmp_path / "rank1.json", _rank(1))
    _write(tmp_path / "merged.json", _rank(0) + _rank(1, -700))
    result = dfscope.open(tmp_path, jobs=2).stats()
    assert result.json["inputs"] == 2 and result.json["events_total"] == 40
    assert "left out" in result.diagnostics and "merged.json" in result.diagnostics
    kept = dfscope.open(tmp_path, jobs=2, keep_merged=True).stats()
    assert kept.json["inputs"] == 3 and kept.json["events_total"] == 80
    assert len(dfscope.open(tmp_path, jobs=2).events()) == 80

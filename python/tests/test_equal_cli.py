"""Every analysis returns the CLI's JSON for the same call, and DataFrames holding its numbers."""

from __future__ import annotations

import json
import math
import re
import subprocess
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import dfscope


# Bookkeeping that depends on how the threads shared the reading, not on the answer (as
# bench/same_output.sh leaves it out): how often the interval engines flushed, second passes.
BOOKKEEPING = re.compile(r"^(elapsed_s|flushes|second_pass|second_pass_reason|wall_s|cpu_s|peak_rss[a-z_]*)$")


def answer(doc: Any) -> Any:
    if isinstance(doc, dict):
        return {k: answer(v) for k, v in doc.items() if not BOOKKEEPING.match(k)}
    if isinstance(doc, list):
        return [answer(v) for v in doc]
    return doc


def cli_json(cli: str, argv: list[str]) -> tuple[int, Any]:
    p = subprocess.run([cli, *argv[1:]], capture_output=True, text=True)
    return p.returncode, json.loads(p.stdout)


def same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b


def check_tables(result: dfscope.Result) -> None:
    """Each table built from a list of objects holds the list's numbers, row by row."""
    def find(doc: Any, path: str) -> Any:
        for key in path.split("."):
            doc = doc[key] if isinstance(doc, dict) else None
        return doc

    for path, frame in result.tables.items():
        items = find(result.json, path)
        if isinstance(items, dict) and "rows" in items and "columns" in items:  # a grid
            rows = [r if isinstance(r, dict) else dict(zip(items["columns"], r)) for r in items["rows"]]
            assert len(frame) == len(rows), path
            for col in items["columns"]:
                for value, row in zip(frame[col].tolist(), rows):
                    want = row.get(col)
                    assert (value is None or pd.isna(value)) if want is None else same(value, want), (path, col)
        elif isinstance(items, list) and items and isinstance(items[0], dict):
            assert len(frame) == len(items), path
            for col in frame.columns:
                for value, item in zip(frame[col].tolist(), items):
                    want = item.get(col)
                    if want is None:
                        assert value is None or pd.isna(value), (path, col)
                    else:
                        assert same(value, want), (path, col, value, want)
        elif isinstance(items, dict) and all(isinstance(v, dict) for v in items.values()) and "rows" not in items:
            for key, row in items.items():
                for col, want in row.items():
                    if not isinstance(want, (dict, list)) and want is not None:
                        assert same(frame.loc[key, col], want), (path, key, col)


CASES_GENERATED = [
    ("small", "stats", {}),
    ("small", "analyze", {"views": ["time_range", "proc_name", "file_name"]}),
    ("small", "overlap", {"granularity": "1s"}),
    ("small", "report", {}),
    ("kineto_small", "steps", {}),
    ("kineto_small", "gpu", {}),
    ("kineto_small", "dataloader", {}),
]


@pytest.mark.parametrize("fixture,command,options", CASES_GENERATED)
def test_generated_equal_cli(request: pytest.FixtureRequest, cli: str, fixture: str, command: str,
                             options: dict[str, Any]) -> None:
    ts = dfscope.open(request.getfixturevalue(fixture), jobs=2)
    result = getattr(ts, command)(**options)
    code, doc = cli_json(cli, result.argv)
    assert code == result.exit_code
    assert answer(doc) == answer(result.json)
    assert result.tables, f"{command}: no table"
    check_tables(result)


CORPUS = [
    ("dftracer/dlio-unet3d-hdf5-8rank", "stats", {}),
    ("dftracer/dlio-unet3d-hdf5-8rank", "analyze", {"views": ["time_range", "proc_name"]}),
    ("dftracer/dlio-unet3d-hdf5-8rank", "overlap", {}),
    ("dftracer/dlio-unet3d-hdf5-8rank", "report", {}),
    ("dftracer/cm1-48rank", "analyze", {"preset": "posix"}),
    ("dftracer/edge-cases", "stats", {}),
    ("kineto/resnet50-dataloader/resnet50_num_workers_0__worker0.1623143089861.pt.trace.json.gz", "steps", {}),
    ("kineto/resnet50-dataloader/resnet50_num_workers_0__worker0.1623143089861.pt.trace.json.gz", "dataloader", {}),
    ("hta", "gpu", {"mix": True}),
    ("smdebug", "rules", {"mix": True}),
    ("dasf", "tasks", {"mix": True}),
]


@pytest.mark.parametrize("path,command,options", CORPUS)
def test_corpus_equal_cli(corpus: Path, cli: str, path: str, command: str, options: dict[str, Any]) -> None:
    options = dict(options)
    mix = options.pop("mix", False)
    preset = options.pop("preset", None)
    ts = dfscope.open(corpus / path, jobs=2, mix=mix, preset=preset)
    try:
        result = getattr(ts, command)(**options)
    except dfscope.Error as e:  # the CLI refuses the same call the same way
        code, _ = subprocess.run([cli, *ts.argv(command, **options)[1:]], capture_output=True).returncode, None
        assert code == e.exit_code
        return
    code, doc = cli_json(cli, result.argv)
    assert code == result.exit_code
    assert answer(doc) == answer(result.json)
    check_tables(result)


def test_analyze_views_are_the_json_rows(small: Path) -> None:
    result = dfscope.open(small).analyze(views=["proc_name"])
    view = result.json["views"]["proc_name"]
    frame = result.views["proc_name"]
    assert list(frame.columns) == view["columns"]
    assert len(frame) == len(view["rows"])
    first = [None if pd.isna(v) else v for v in frame.iloc[0].tolist()]
    assert first == view["rows"][0]

"""events(): typed columns, the same rows for any number of threads, counts that match stats."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import dfscope


def test_types(small: Path) -> None:
    df = dfscope.open(small).events(columns=["ts", "dur", "pid", "tid", "name", "cat", "file", "phase", "offset",
                                             "args.size", "fname"])
    assert len(df) > 1000
    assert str(df["pid"].dtype) == "int64"
    assert str(df["ts"].dtype) in ("int64", "Int64")
    assert isinstance(df["name"].dtype, pd.CategoricalDtype)
    assert isinstance(df["cat"].dtype, pd.CategoricalDtype)
    assert list(df["cat"].cat.categories) == sorted(df["cat"].cat.categories)
    assert str(df["size"].dtype) == "Int64"
    assert df["offset"].dtype == np.uint64
    complete = df[df["phase"] == "complete"]
    assert complete["dur"].notna().all() and (complete["ts"] > 1_000_000_000_000_000).all()


def test_counts_match_stats(small: Path) -> None:
    ts = dfscope.open(small)
    stats = ts.stats(top=0).json
    df = ts.events(columns=["name", "cat", "dur", "phase"])
    assert len(df) == stats["events_total"]
    assert (df["phase"] == "metadata").sum() == stats["events_by_phase"]["metadata"]
    timed = df[df["phase"] != "metadata"]
    for row in stats["categories"]:
        sel = timed[timed["cat"] == row["cat"]]
        assert len(sel) == row["count"], row["cat"]


def test_where_and_limit(small: Path) -> None:
    ts = dfscope.open(small)
    every = ts.events(columns=["name", "cat", "offset", "file"])
    posix = ts.events(columns=["name", "cat", "offset", "file"], where='cat == "POSIX" & func_name != "close"')
    want = every[(every["cat"] == "POSIX") & (every["name"] != "close")]
    assert len(posix) == len(want) > 0
    assert (posix["offset"].to_numpy() == want["offset"].to_numpy()).all()
    head = ts.events(columns=["offset", "file"], limit=10)
    assert len(head) == 10
    assert (head["offset"].to_numpy() == every["offset"].to_numpy()[:10]).all()


def test_where_reads_arguments(small: Path) -> None:
    ts = dfscope.open(small)
    every = ts.events(columns=["offset", "args.ret"])
    big = ts.events(columns=["offset", "args.ret"], where="args.ret >= 4096")
    want = every[every["ret"].notna() & (every["ret"] >= 4096)]
    assert len(big) == len(want) > 0
    assert (big["offset"].to_numpy() == want["offset"].to_numpy()).all()
    # a key the columns do not ask for is read for the predicate all the same
    only = ts.events(columns=["offset"], where="args.ret >= 4096")
    assert (only["offset"].to_numpy() == want["offset"].to_numpy()).all()


def test_nothing_selected(small: Path) -> None:
    df = dfscope.open(small).events(columns=["ts", "name", "args.size"], where='cat == "no such category"')
    assert len(df) == 0 and list(df.columns) == ["ts", "name", "size"]


def test_same_rows_for_any_jobs(small: Path) -> None:
    cols = ["ts", "dur", "pid", "name", "cat", "file", "offset", "args.size", "fname"]
    one = dfscope.open(small, jobs=1).events(columns=cols)
    many = dfscope.open(small, jobs=3).events(columns=cols)
    pieces = dfscope.open(small, jobs=2).events(columns=cols)
    pd.testing.assert_frame_equal(one, many)
    pd.testing.assert_frame_equal(one, pieces)
    # in input order: files as listed, offsets rising in each
    for _, group in one.groupby("file", observed=True):
        assert (np.diff(group["offset"].to_numpy().astype(np.int64)) > 0).all()


def test_chunked_read_same_rows(small: Path) -> None:
    """A file read in pieces by several threads gives the rows of a whole read."""
    cols = ["ts", "name", "offset", "args.size"]
    whole = dfscope.open(small, jobs=1).events(columns=cols)
    cut = dfscope.open(small, jobs=2, chunk="64k").events(columns=cols)
    pd.testing.assert_frame_equal(whole, cut)
    with pytest.raises(dfscope.UsageError, match="chunk takes a size"):
        dfscope.open(small, chunk="lots").events()


def test_kineto_columns(kineto_small: Path) -> None:
    df = dfscope.open(kineto_small).events(columns=["ts", "dur", "name", "cat", "args.External id"])
    assert len(df) > 0 and "External id" in df.columns


def test_bad_columns_and_where(small: Path) -> None:
    ts = dfscope.open(small)
    with pytest.raises(dfscope.UsageError, match="unknown column 'nmae'"):
        ts.events(columns=["nmae"])
    with pytest.raises(dfscope.UsageError, match="where"):
        ts.events(where='cat == "POSIX" &')
    with pytest.raises(dfscope.UsageError, match="io_cat"):
        ts.events(where="io_cat == 1")

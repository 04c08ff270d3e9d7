"""Errors raise dfscope.Error subclasses with the CLI's message and exit code."""

from __future__ import annotations

from pathlib import Path

import pytest

import dfscope


def test_missing_input_names_the_file(tmp_path: Path) -> None:
    with pytest.raises(dfscope.InputError) as e:
        dfscope.open([tmp_path / "nope.pfw"])
    assert e.value.exit_code == 2
    assert "nope.pfw" in str(e.value)
    assert isinstance(e.value, FileNotFoundError)


def test_unreadable_input() -> None:
    """/proc/self/mem exists but cannot be read from its start: exit code 2, named."""
    ts = dfscope.open("/proc/self/mem")
    for call in (ts.stats, ts.events):
        with pytest.raises(dfscope.InputError) as e:
            call()
        assert e.value.exit_code == 2 and "/proc/self/mem" in str(e.value)


def test_bad_option_is_usage_error(small: Path) -> None:
    ts = dfscope.open(small)
    with pytest.raises(dfscope.UsageError) as e:
        ts.analyze(views=["nope"])
    assert e.value.exit_code == 2 and "unknown view 'nope'" in str(e.value)
    with pytest.raises(dfscope.UsageError, match="unknown option"):
        ts.overlap(no_such_option=3)


def damaged(tmp_path: Path, small: Path) -> Path:
    src = sorted(small.iterdir())[0].read_text().splitlines()
    bad = tmp_path / "damaged.pfw"
    bad.write_text("\n".join(src[:50] + ['{"name": "cut', *src[50:100]]) + "\n")
    return bad


def test_damage_is_reported_not_raised(tmp_path: Path, small: Path) -> None:
    ts = dfscope.open(damaged(tmp_path, small))
    result = ts.stats()
    assert result.exit_code == 1
    problems = ts.problems()
    assert "bad_line" in set(problems["kind"])
    row = problems[problems["kind"] == "bad_line"].iloc[0]
    assert row["path"].endswith("damaged.pfw") and row["line"] == 51
    assert "bad_line" in result.diagnostics


def test_strict_raises_with_the_result(tmp_path: Path, small: Path) -> None:
    with pytest.raises(dfscope.DamagedInputError) as e:
        dfscope.open(damaged(tmp_path, small), strict=True).stats()
    assert e.value.exit_code == 3
    assert e.value.result is not None and e.value.result.json["unparsable_total"] == 1


def test_unknown_table(small: Path) -> None:
    result = dfscope.open(small).stats()
    with pytest.raises(KeyError, match="no table"):
        result.table("nothing")

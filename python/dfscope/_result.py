"""Results of the analyses: the CLI's JSON document, and its tables as pandas DataFrames.

The tables are found in the JSON by shape, so every command gets them the same way and no number
is computed twice: a list of objects is a table (one row per object); an object whose values are
all objects is a table (one row per key, the key as the index); an object with ``columns`` and
``rows`` is a table (the analyze views, the tasks tables), its listed columns first. Tables nested in the rows of a table (the kernels of each
rank of ``gpu``) are gathered into one table, with the parent's ``rank`` (or ``name``, ``label``,
or its position) as their first column. A table is named by its path in the JSON, dots between
keys (``views.time_range``, ``ranks.kernels``); ``result.NAME`` gives the table whose path ends
with NAME when only one does.
"""

from __future__ import annotations

import json
from typing import Any, Iterator

import pandas as pd

_PARENT_KEYS = ("rank", "name", "label", "id", "file", "path")


def _is_records(v: Any) -> bool:
    return isinstance(v, list) and len(v) > 0 and all(isinstance(x, dict) for x in v)


def _is_grid(v: Any) -> bool:
    return isinstance(v, dict) and isinstance(v.get("columns"), list) and isinstance(v.get("rows"), list)


def _is_keyed(v: Any) -> bool:
    return (isinstance(v, dict) and len(v) > 0 and all(isinstance(x, dict) for x in v.values())
            and not any(_is_grid(x) for x in v.values()))


def _scalars(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if not isinstance(v, (dict, list))}


def _frame_of_records(items: list[dict[str, Any]]) -> pd.DataFrame:
    return pd.DataFrame([_scalars(x) for x in items])


def _parent_column(items: list[dict[str, Any]]) -> str | None:
    for key in _PARENT_KEYS:
        if all(key in x and not isinstance(x[key], (dict, list)) for x in items):
            return key
    return None


def _walk(value: Any, path: str, out: dict[str, pd.DataFrame]) -> None:
    """Adds the tables found in value (at path) to out."""
    if _is_grid(value):
        rows, columns = value["rows"], value["columns"]
        if all(isinstance(r, list) for r in rows):
            out[path] = pd.DataFrame(rows, columns=columns)
        elif all(isinstance(r, dict) for r in rows):  # rows as objects: the listed columns first
            frame = _frame_of_records(rows)
            first = [c for c in columns if c in frame.columns]
            out[path] = frame[first + [c for c in frame.columns if c not in first]]
        for k, v in value.items():
            if k not in ("columns", "rows"):
                _walk(v, f"{path}.{k}" if path else k, out)
        return
    if _is_records(value):
        out[path] = _frame_of_records(value)
        _nested(value, path, out)
        return
    if _is_keyed(value) and path:
        frame = pd.DataFrame.from_dict({k: _scalars(v) for k, v in value.items()}, orient="index")
        if len(frame.columns) > 0:
            out[path] = frame
            return
    if isinstance(value, dict):
        for k, v in value.items():
            _walk(v, f"{path}.{k}" if path else k, out)


def _nested(items: list[dict[str, Any]], path: str, out: dict[str, pd.DataFrame]) -> None:
    """Tables inside the rows of a table, gathered with the parent's identifier."""
    parent = _parent_column(items)
    found: dict[str, list[pd.DataFrame]] = {}
    for i, item in enumerate(items):
        inner: dict[str, pd.DataFrame] = {}
        for k, v in item.items():
            if isinstance(v, (dict, list)):
                _walk(v, k, inner)
        for name, frame in inner.items():
            frame = frame.copy()
            frame.insert(0, parent or f"{path.rsplit('.', 1)[-1]}_index", item[parent] if parent else i)
            found.setdefault(name, []).append(frame)
    for name, frames in found.items():
        out[f"{path}.{name}"] = pd.concat(frames, ignore_index=True)


def tables_of(doc: dict[str, Any]) -> dict[str, pd.DataFrame]:
    """Every table of a JSON document, by path."""
    out: dict[str, pd.DataFrame] = {}
    _walk(doc, "", out)
    return out


class Result:
    """What one analysis returned: ``json`` (the CLI's JSON document as a dict), ``tables`` (its
    tables as DataFrames, by path), ``exit_code`` (the CLI's: 0, or 1 when damaged input was
    skipped) and ``diagnostics`` (what the CLI said on stderr: the problem report, warnings)."""

    def __init__(self, command: str, argv: list[str], doc: dict[str, Any], exit_code: int, diagnostics: str) -> None:
        self.command = command
        self.argv = argv
        self.json = doc
        self.exit_code = exit_code
        self.diagnostics = diagnostics
        self.tables = tables_of(doc)

    def table(self, name: str) -> pd.DataFrame:
        """The table at path ``name``, or the only one whose path ends with ``.name``."""
        if name in self.tables:
            return self.tables[name]
        ends = [p for p in self.tables if p.endswith("." + name)]
        if len(ends) == 1:
            return self.tables[ends[0]]
        if not ends:
            raise KeyError(f"{self.command}: no table {name!r}; the tables are {', '.join(self.tables) or 'none'}")
        raise KeyError(f"{self.command}: {name!r} could be {', '.join(ends)}")

    def __getitem__(self, name: str) -> pd.DataFrame:
        return self.table(name)

    def __getattr__(self, name: str) -> pd.DataFrame:
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self.table(name)
        except KeyError as e:
            raise AttributeError(str(e)) from None

    def __iter__(self) -> Iterator[str]:
        return iter(self.tables)

    @property
    def views(self) -> dict[str, pd.DataFrame]:
        """The views of ``analyze`` (time_range, proc_name, ...), by name."""
        return {p.split(".", 1)[1]: f for p, f in self.tables.items() if p.startswith("views.") and p.count(".") == 1}

    def __repr__(self) -> str:
        names = ", ".join(self.tables) or "no tables"
        return f"<dfscope {self.command} result, exit {self.exit_code}: {names}>"

    def _repr_html_(self) -> str:
        return f"<pre>{self.__repr__()}</pre>"

    def dumps(self) -> str:
        """The JSON document as the CLI prints it (key order kept)."""
        return json.dumps(self.json, indent=2)

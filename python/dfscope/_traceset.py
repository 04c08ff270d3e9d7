"""TraceSet: a set of trace inputs and the analyses of the dfscope CLI over them.

Every analysis runs the CLI's own command in-process (``dfscope CMD --format json ...``, through
the extension's ``run_command``), so its numbers are the CLI's for the same call; the JSON is
parsed into a dict and its tables into DataFrames (``Result``). Keyword arguments are the
command's options: ``granularity="5s"`` is ``--granularity 5s``, ``views=["time_range",
"proc_name"]`` is ``--views time_range,proc_name``, ``global_=True`` is ``--global`` (a trailing
underscore for Python's keywords), ``class_={"ckpt": 'cat == "checkpoint"'}`` is ``--class
ckpt=cat == "checkpoint"`` (a dict repeats the option), ``False`` and ``None`` leave it out.
"""

from __future__ import annotations

import json
import os
from typing import Any, Sequence

import numpy as np
import pandas as pd

from . import _native
from ._errors import DamagedInputError, Error, InputError, OutputError, UsageError
from ._result import Result

# The commands whose JSON comes with --json rather than --format json.
_JSON_FLAG = {"stats": ["--json"]}
# The commands that take --preset (the trace set's preset goes to these).
_PRESET = {"analyze", "overlap", "report"}


# What the CLI says when exit code 2 is about an input rather than the command line.
_INPUT_WORDS = ("no such file", "cannot open", "not found", "matches no", "unreadable", "permission denied")


def _error_for(code: int, message: str, result: Result | None = None) -> Error:
    """The exception of a CLI exit code: 2 is an input's or the command line's fault (said by the
    message), 3 strict damage, anything else an output or memory failure."""
    if code == 2:
        lowered = message.lower()
        if any(word in lowered for word in _INPUT_WORDS):
            return InputError(message, code)
        return UsageError(message, code)
    if code == 3:
        return DamagedInputError(message, code, result)
    return OutputError(message, code)


def _option_args(options: dict[str, Any]) -> list[str]:
    """Keyword arguments as the CLI's options."""
    argv: list[str] = []
    for key, value in options.items():
        if value is None or value is False:
            continue
        flag = "--" + key.rstrip("_").replace("_", "-")
        if value is True:
            argv.append(flag)
        elif isinstance(value, dict):
            for k, v in value.items():
                argv += [flag, f"{k}={v}"]
        elif isinstance(value, (list, tuple)):
            argv += [flag, ",".join(str(v) for v in value)]
        else:
            argv += [flag, str(value)]
    return argv


def _as_paths(paths: Any) -> list[str]:
    if isinstance(paths, (str, os.PathLike)):
        return [os.fspath(paths)]
    return [os.fspath(p) for p in paths]


def _frame(result: dict[str, Any]) -> pd.DataFrame:
    """The columns of read_events as a DataFrame, each array adopted from C without a copy."""
    rows = result["rows"]
    data: dict[str, Any] = {}
    for name, kind, values, missing, categories in result["columns"]:
        if kind == "category":
            codes = np.frombuffer(values, dtype=np.int32, count=rows)
            data[name] = pd.Categorical.from_codes(codes, categories=pd.Index(categories, dtype=object))
            continue
        array = np.frombuffer(values, dtype={"int64": np.int64, "uint64": np.uint64, "float64": np.float64}[kind],
                              count=rows)
        if missing is None:
            data[name] = array
        else:
            data[name] = pd.arrays.IntegerArray(array, np.frombuffer(missing, dtype=np.bool_, count=rows))
    return pd.DataFrame(data, copy=False)


class TraceSet:
    """Trace inputs (files, directories, globs) and the options every analysis of them reads with.

    Made by :func:`dfscope.open`. Each method runs one dfscope command and returns a
    :class:`Result`; :meth:`events` returns the events themselves as a DataFrame.
    """

    def __init__(self, paths: list[str], jobs: int | None = None, preset: str | None = None, strict: bool = False,
                 dedup: bool = False, mix: bool = False, chunk: str | int | None = None,
                 max_record: str | int | None = None, keep_merged: bool = False) -> None:
        self.paths = paths
        self.jobs = jobs
        self.preset = preset
        self.strict = strict
        self.dedup = dedup
        self.mix = mix
        self.chunk = chunk
        self.max_record = max_record
        self.keep_merged = keep_merged
        self._stats: Result | None = None

    def __repr__(self) -> str:
        return f"dfscope.TraceSet({self.paths!r}, jobs={self.jobs!r}, preset={self.preset!r})"

    # ---- the analyses ----

    def _reading_args(self, command: str) -> list[str]:
        argv = ["--no-progress", "--problems", "full"]
        if self.jobs:
            argv += ["-j", str(self.jobs)]
        if self.strict:
            argv.append("--strict")
        if self.dedup:
            argv.append("--dedup")
        if self.mix and command != "stats":
            argv.append("--mix")
        if self.keep_merged:
            argv.append("--keep-merged")
        if self.chunk is not None:
            argv += ["--chunk", str(self.chunk)]
        if self.max_record is not None:
            argv += ["--max-record", str(self.max_record)]
        if self.preset and command in _PRESET:
            argv += ["--preset", self.preset]
        return argv

    def argv(self, command: str, **options: Any) -> list[str]:
        """The command line an analysis runs: ``["dfscope", command, ...]`` (what the CLI would take)."""
        fmt = _JSON_FLAG.get(command, ["--format", "json"])
        return ["dfscope", command, *fmt, *self._reading_args(command), *_option_args(options), "--", *self.paths]

    def run(self, command: str, **options: Any) -> Result:
        """Runs ``dfscope COMMAND`` with the options given as keywords; its JSON as a Result."""
        argv = self.argv(command, **options)
        code, out, err = _native.run_command(argv)
        if code not in (0, 1, 3) or not out:
            message = err.strip() or f"dfscope {command} failed (exit {code})"
            raise _error_for(code, message)
        result = Result(command, argv, json.loads(out), code, err)
        if code == 3:
            raise _error_for(code, err.strip(), result)
        return result

    def stats(self, **options: Any) -> Result:
        """``dfscope stats``: formats, events by phase, categories, names, processes, problems.
        Tables: files, categories, names, problem_examples.*. Options: top."""
        return self.run("stats", **options)

    def analyze(self, **options: Any) -> Result:
        """``dfscope analyze``: the layered analysis (DFAnalyzer's views and layers).
        ``.views`` holds the views by name; ``views.NAME.summary.layers`` each view's layers.
        Options: views, granularity, compat, keep_ignored, hold, no_stream, preview."""
        return self.run("analyze", **options)

    def overlap(self, **options: Any) -> Result:
        """``dfscope overlap``: compute and I/O overlap. Tables: per_process, epochs, steps, bins,
        functions. Options: compute, io, app_io, class_, epochs, steps, scope, global_,
        granularity, method, post_read."""
        return self.run("overlap", **options)

    def steps(self, **options: Any) -> Result:
        """``dfscope steps``: training steps, data wait and input-bound verdicts. Tables: runs,
        runs.per_step, runs.verdicts, runs.modes. Options: step, step_end, data_wait, compute, transfer, io,
        threshold, outlier_factor, include_flagged."""
        return self.run("steps", **options)

    def dataloader(self, **options: Any) -> Result:
        """``dfscope dataloader``: PyTorch data loader initialisations, workers, batch times."""
        return self.run("dataloader", **options)

    def rules(self, **options: Any) -> Result:
        """``dfscope rules``: SageMaker Debugger's profiler rules. Tables: rules."""
        return self.run("rules", **options)

    def tasks(self, **options: Any) -> Result:
        """``dfscope tasks``: the tables of task-based runs (DASF, Dask). Tables: tables.NAME."""
        return self.run("tasks", **options)

    def report(self, **options: Any) -> Result:
        """``dfscope report``: the job's time breakdown and insights. Tables: insights, metrics,
        layers, breakdown.parts."""
        return self.run("report", **options)

    def gpu(self, **options: Any) -> Result:
        """``dfscope gpu``: GPU kernels, idle time, overlap, memory bandwidth per rank. Tables:
        ranks, ranks.kernels, ... Options: only, compat."""
        return self.run("gpu", **options)

    # ---- problems and events ----

    def problems(self) -> pd.DataFrame:
        """Problems found in the inputs, one row per example: kind, count (of that kind), path,
        line, offset, detail, as ``stats`` reports them (the CLI's problem report)."""
        if self._stats is None:
            self._stats = self.stats()
        doc = self._stats.json
        rows = []
        for kind, count in doc.get("problems", {}).items():
            examples = doc.get("problem_examples", {}).get(kind) or [{}]
            for ex in examples:
                rows.append({"kind": kind, "count": count, "path": ex.get("path"), "line": ex.get("line"),
                             "offset": ex.get("offset"), "detail": ex.get("detail")})
        return pd.DataFrame(rows, columns=["kind", "count", "path", "line", "offset", "detail"])

    def events(self, columns: Sequence[str] = ("ts", "dur", "pid", "tid", "name", "cat"), where: str | None = None,
               limit: int | None = None) -> pd.DataFrame:
        """The events as a DataFrame, read by the C pipeline on all the set's threads.

        columns: ts (absolute ns, int64), dur (ns), pid, tid, id, offset (byte offset of the
            record in its file), file (the input's path), name, cat, fname and host (DFTracer's
            file and host names), phase (complete, begin, instant, counter, metadata, ...), and
            ``args.KEY`` for an argument (the column is named KEY): integers, floats, or
            categories for texts. Strings are categoricals; missing values are pandas NA (NaN
            for floats).
        where: a predicate over cat, func_name, file_name, host, pid, tid and the event's
            arguments (``args.KEY``), e.g. ``'cat == "POSIX" & func_name.isin(["read", "write"])'``
            or ``'args.stream == 7'`` (docs/PREDICATES.md).
        limit: at most this many rows, the first in input order.

        Rows are in input order (the inputs as given, directories sorted; records in file
        order) whatever the number of threads. Large files are read in pieces of the set's
        ``chunk`` (default 64M here), between which Ctrl-C is answered.
        """
        if limit is not None and limit < 0:
            raise UsageError("events: limit must be >= 0", 2)
        missing = _native.missing_inputs(self.paths)
        if missing:
            raise InputError("dfscope: " + "; ".join(missing), 2)
        result = _native.read_events(self.paths, list(columns), where=where, limit=limit or 0, jobs=self.jobs or 0,
                                     dedup=self.dedup, chunk=None if self.chunk is None else str(self.chunk),
                                     max_record=None if self.max_record is None else str(self.max_record))
        return _frame(result)

"""dfscope for Python: trace analyses as pandas DataFrames, events read at C speed.

    import dfscope
    ts = dfscope.open("traces/")            # files, directories, globs
    ts.analyze(views=["time_range", "proc_name"]).views["proc_name"]

Every analysis is the dfscope CLI's own command run in-process, so its numbers are the CLI's JSON
for the same call (docs/PYTHON.md). Errors raise :class:`Error` subclasses carrying the CLI's
message and exit code.
"""

from __future__ import annotations

import os
from typing import Iterable

from . import _native
from ._errors import DamagedInputError, Error, InputError, OutputError, UsageError
from ._result import Result, tables_of
from ._traceset import TraceSet, _as_paths

__version__: str = _native.version
__all__ = ["open", "TraceSet", "Result", "tables_of", "Error", "UsageError", "InputError", "DamagedInputError",
           "OutputError", "__version__"]


def open(paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]], jobs: int | None = None,
         preset: str | None = None, strict: bool = False, dedup: bool = False, mix: bool = False,
         chunk: str | int | None = None, max_record: str | int | None = None,
         keep_merged: bool = False) -> TraceSet:
    """A trace set over paths (a file, a directory read recursively, a glob, or a list of them).

    jobs: worker threads (default: all cores); preset: the preset of analyze, overlap and report
    (posix, dlio, ai, ... or a YAML file; default: detected); strict: damage raises
    DamagedInputError; dedup: drop byte-identical duplicate records; mix: analyse inputs of several
    jobs together; chunk, max_record: as the CLI's --chunk and --max-record (e.g. "64M");
    keep_merged: also read a merged trace given beside the traces it merges (the analyses leave it
    out by default, as the CLI does; events() reads the inputs as given).

    Raises InputError (exit code 2) naming every path that names nothing. Nothing is read yet:
    each analysis reads the inputs when it is called.
    """
    names = _as_paths(paths)
    if not names:
        raise UsageError("dfscope: no input given", 2)
    missing = _native.missing_inputs(names)
    if missing:
        raise InputError("dfscope: " + "; ".join(missing), 2)
    if jobs is not None and not 1 <= jobs <= 1024:
        raise UsageError(f"dfscope: jobs must be 1 to 1024, not {jobs}", 2)
    return TraceSet(names, jobs=jobs, preset=preset, strict=strict, dedup=dedup, mix=mix, chunk=chunk,
                    max_record=max_record, keep_merged=keep_merged)

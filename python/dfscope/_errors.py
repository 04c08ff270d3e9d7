"""The exceptions of dfscope: each carries the CLI's message and exit code (docs/CLI.md)."""

from __future__ import annotations


class Error(Exception):
    """A dfscope call failed; ``exit_code`` is the CLI's exit code for the same failure."""

    def __init__(self, message: str, exit_code: int = 4) -> None:
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code


class UsageError(Error, ValueError):
    """A bad argument or option (the CLI's exit code 2)."""


class InputError(Error, FileNotFoundError):
    """An input that names nothing or cannot be read (exit code 2); the message names it."""


class DamagedInputError(Error):
    """``strict=True`` and the input has damage (exit code 3); ``result`` holds what was found."""

    def __init__(self, message: str, exit_code: int = 3, result: object = None) -> None:
        super().__init__(message, exit_code)
        self.result = result


class OutputError(Error):
    """An output could not be written, or memory ran out (exit code 4)."""

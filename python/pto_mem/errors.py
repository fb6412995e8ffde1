"""The exceptions pto_mem raises. Every one carries the diagnostics behind it."""

from __future__ import annotations

from typing import Any


class Error(Exception):
    """Base of every pto_mem error.

    ``str(error)`` is the diagnostics, one per line, in the
    ``file:line:column: error: message [code]`` form of the command-line tool;
    ``error.diagnostics`` holds them as :class:`pto_mem.Diagnostic` objects.
    """

    def __init__(self, message: str, diagnostics: list[Any] | None = None, **extra: Any) -> None:
        super().__init__(message)
        self.diagnostics: list[Any] = list(diagnostics or [])
        for key, value in extra.items():
            setattr(self, key, value)


class InputError(Error, ValueError):
    """Malformed input: a problem or placement file, a problem, offsets."""


class PlanError(Error):
    """plan() rejected the call: ``status`` is not an answer (a malformed
    problem, an unknown strategy). ``error.status`` and ``error.result``
    (the :class:`pto_mem.PlanResult`) say more."""

    status: str
    result: Any


class CompileError(Error):
    """compile() rejected the program (parse, semantic or invariant error;
    ``exit_code`` 2, as ``pto-mem compile``). ``error.report`` is the JSON
    report as a dict."""

    exit_code: int
    report: dict[str, Any]


class CapacityError(CompileError):
    """compile(): the program's memory does not fit its SoC (``exit_code`` 1)."""


class Interrupted(KeyboardInterrupt):
    """plan() or plan_arrays() was interrupted (Ctrl+C): the search stopped
    and ``error.result`` is the :class:`pto_mem.PlanResult` it had reached --
    the best placement found so far (``status`` ``feasible``) or none yet
    (``no_fit``). A ``KeyboardInterrupt``, so a script without a handler
    still stops; it is not a :class:`pto_mem.Error` (``except Exception``
    does not swallow Ctrl+C)."""

    def __init__(self, message: str, result: Any = None) -> None:
        super().__init__(message)
        self.result: Any = result

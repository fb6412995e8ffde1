"""pto_mem: static on-chip memory planning from Python (docs/python.md).

Plan problems built from Python objects, files or NumPy arrays, validate
placements, draw memory maps, and run the tile-memory passes on a PyPTO-style
program::

    import pto_mem
    result = pto_mem.plan(pto_mem.read_csv("examples/data/small.csv"), capacity=32768)
    print(result.status, result.objective.total_peak)
"""

from __future__ import annotations

import collections.abc as _collections_abc

from ._pto_mem import (
    AliasMember,
    Arena,
    ArenaList,
    Buffer,
    BufferList,
    CompileResult,
    Conflict,
    ConflictList,
    DeclaredAllocation,
    DeclaredList,
    Diagnostic,
    Exclusion,
    ExclusionList,
    MustAliasGroup,
    MustAliasList,
    Objective,
    Penalty,
    PenaltyList,
    Pin,
    PlanResult,
    Problem,
    Progress,
    Separation,
    SeparationList,
    SlotBinding,
    compile,
    explain,
    lower_bound,
    parse_csv,
    parse_json,
    plan,
    plan_arrays,
    read_csv,
    read_dsa,
    read_json,
    read_placement,
    soc_names,
    strategies,
    to_svg,
    validate,
)
from .errors import CapacityError, CompileError, Error, InputError, Interrupted, PlanError

# The problem's lists behave as Python lists of shared objects.
for _list in (ArenaList, BufferList, MustAliasList, SeparationList, PenaltyList, DeclaredList,
              ExclusionList, ConflictList):
    _collections_abc.MutableSequence.register(_list)
del _list

__version__ = "0.1.0"

__all__ = [
    "AliasMember",
    "Arena",
    "Buffer",
    "CapacityError",
    "CompileError",
    "CompileResult",
    "Conflict",
    "DeclaredAllocation",
    "Diagnostic",
    "Error",
    "Exclusion",
    "InputError",
    "Interrupted",
    "MustAliasGroup",
    "Objective",
    "Penalty",
    "Pin",
    "PlanError",
    "PlanResult",
    "Problem",
    "Progress",
    "Separation",
    "SlotBinding",
    "compile",
    "explain",
    "lower_bound",
    "parse_csv",
    "parse_json",
    "plan",
    "plan_arrays",
    "read_csv",
    "read_dsa",
    "read_json",
    "read_placement",
    "soc_names",
    "strategies",
    "to_svg",
    "validate",
]

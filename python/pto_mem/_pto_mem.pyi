"""Type stubs of the pto_mem extension module (see docs/python.md)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, MutableSequence, Sequence
from os import PathLike
from typing import Any, Literal, Union, overload

import numpy as np
import numpy.typing as npt

BufferName = Union[str, int]
"""A buffer's name: a str, or an int (stored as its decimal text)."""
BufferId = BufferName  # the older name of BufferName
IntArrayLike = Union[npt.NDArray[np.integer[Any]], Sequence[int]]
Offsets = Union["PlanResult", dict[str, Union[int, None]], npt.NDArray[np.integer[Any]], Sequence[Union[int, None]]]
Capacity = Union[int, dict[int, int], None]
Strategy = Literal["sequential", "reuse", "greedy", "exact", "portfolio"]
Goal = Literal["fit", "minimise", "minimize"]

class Diagnostic:
    """One message: what went wrong, where, and how to fix it."""
    @property
    def severity(self) -> Literal["error", "warning", "note", "hint"]: ...
    @property
    def code(self) -> str: ...
    @property
    def message(self) -> str: ...
    @property
    def file(self) -> str | None: ...
    @property
    def line(self) -> int | None: ...
    @property
    def column(self) -> int | None: ...

class Arena:
    id: int
    capacity: int | None
    """None: no capacity was given (the peak is minimised; never written)."""
    name: str
    reserved: list[tuple[int, int]]
    """Byte windows [begin, end) no buffer may touch (assign a whole list)."""
    def __init__(
        self, id: int, capacity: int | None = None, name: str = "", reserved: Iterable[tuple[int, int]] = ...
    ) -> None: ...

class Buffer:
    name: str
    """The buffer's name: constraints and offsets refer to the buffer by it (unique, not empty)."""
    id: str
    """The older spelling of `name` (the same attribute)."""
    size: int
    alignment: int
    arena: int
    begin: int
    end: int
    lifetime: tuple[int, int]
    """Half-open [begin, end) of program points (with `live`: their hull)."""
    live: list[tuple[int, int]]
    """The half-open intervals the buffer is live on, sorted and disjoint ([]: the whole lifetime).
    Assigning a non-empty list sets `lifetime` to their hull."""
    pin: Pin | None
    """A fixed offset in the buffer's arena. Assign a Pin, an int (a non-exclusive pin) or None."""
    candidate_arenas: list[int]
    """The arenas the planner may choose, most preferred first ([]: `arena` only).
    Assigning a non-empty list sets `arena` to its first entry."""
    @overload
    def __init__(
        self,
        name: BufferName,
        size: int,
        lifetime: tuple[int, int] | None = None,
        alignment: int = 1,
        arena: int | None = None,
        *,
        live: Iterable[tuple[int, int]] | None = None,
        pin: int | Pin | None = None,
        candidate_arenas: Iterable[int] | None = None,
    ) -> None:
        """`lifetime` may be left out when `live` is given (it is then their hull); `arena` defaults to the
        first candidate arena, else 0."""
    @overload
    def __init__(
        self,
        *,
        id: BufferName,
        size: int,
        lifetime: tuple[int, int] | None = None,
        alignment: int = 1,
        arena: int | None = None,
        live: Iterable[tuple[int, int]] | None = None,
        pin: int | Pin | None = None,
        candidate_arenas: Iterable[int] | None = None,
    ) -> None: ...

class Pin:
    """A fixed offset. An exclusive pin also keeps every other buffer of the arena off its bytes for the
    whole program, whatever the lifetimes. Immutable: assign a new Pin to change a buffer's pin."""
    @property
    def offset(self) -> int: ...
    @property
    def exclusive(self) -> bool: ...
    def __init__(self, offset: int, exclusive: bool = False) -> None: ...

# Constraints name the buffers they join; the names are looked up among the
# problem's buffers when it is planned, validated or written.

class AliasMember:
    buffer: str
    """The member buffer's name."""
    offset: int
    def __init__(self, buffer: BufferName, offset: int = 0) -> None: ...

class MustAliasGroup:
    members: list[AliasMember]
    """Assign a whole list; entries may be AliasMember, a name, or (name, offset)."""
    def __init__(self, members: Iterable[AliasMember | BufferName | tuple[BufferName, int]]) -> None: ...

class Separation:
    a: str
    b: str
    """The two buffers' names."""
    def __init__(self, a: BufferName, b: BufferName) -> None: ...

class Penalty:
    a: str
    b: str
    """The two buffers' names."""
    weight: int
    def __init__(self, a: BufferName, b: BufferName, weight: int = 1) -> None: ...

class SlotBinding:
    buffer: str
    """The bound buffer's name."""
    slot: int | None
    def __init__(self, buffer: BufferName, slot: int | None = None) -> None: ...

class DeclaredAllocation:
    buffer: str
    """The name of the buffer that covers every slot."""
    slots: int
    slot_size: int
    bindings: list[SlotBinding]
    def __init__(self, buffer: BufferName, slots: int, slot_size: int, bindings: Iterable[SlotBinding] = ...) -> None: ...

class Exclusion:
    """Two buffers never live at once (exclusive branches): they may share bytes although their
    lifetimes overlap."""
    a: str
    b: str
    """The two buffers' names."""
    def __init__(self, a: BufferName, b: BufferName) -> None: ...

class Conflict:
    """An edge of an explicit conflict graph: the two buffers are live together."""
    a: str
    b: str
    """The two buffers' names."""
    def __init__(self, a: BufferName, b: BufferName) -> None: ...

class ArenaList(MutableSequence[Arena]): ...
class BufferList(MutableSequence[Buffer]): ...
class MustAliasList(MutableSequence[MustAliasGroup]): ...
class SeparationList(MutableSequence[Separation]): ...
class PenaltyList(MutableSequence[Penalty]): ...
class DeclaredList(MutableSequence[DeclaredAllocation]): ...
class ExclusionList(MutableSequence[Exclusion]): ...
class ConflictList(MutableSequence[Conflict]): ...

class Problem:
    """Arenas, buffers and the constraints between them. The lists are live
    Python lists of shared objects: ``problem.buffers[0]`` is the element
    itself and stays valid whatever happens to the list."""
    arenas: ArenaList
    buffers: BufferList
    must_alias: MustAliasList
    separations: SeparationList
    penalties: PenaltyList
    declared: DeclaredList
    exclusions: ExclusionList
    """Pairs of buffers that are never live at once."""
    @property
    def conflict_graph(self) -> ConflictList | None:
        """None (lifetimes decide who is live together) or the edges of an explicit conflict graph:
        then exactly the pairs it names are live together."""
    @conflict_graph.setter
    def conflict_graph(self, edges: Iterable[Conflict] | None) -> None: ...
    def __init__(
        self,
        arenas: Iterable[Arena] = ...,
        buffers: Iterable[Buffer] = ...,
        must_alias: Iterable[MustAliasGroup] = ...,
        separations: Iterable[Separation] = ...,
        penalties: Iterable[Penalty] = ...,
        declared: Iterable[DeclaredAllocation] = ...,
        exclusions: Iterable[Exclusion] = ...,
        conflict_graph: Iterable[Conflict] | None = None,
    ) -> None: ...
    @staticmethod
    def from_arrays(
        sizes: IntArrayLike,
        begins: IntArrayLike,
        ends: IntArrayLike,
        alignments: IntArrayLike | None = None,
        *,
        arenas: IntArrayLike | None = None,
        capacity: Capacity = None,
    ) -> Problem: ...
    @property
    def buffer_names(self) -> list[str]:
        """Every buffer's name, in list order."""
    @property
    def buffer_ids(self) -> list[str]:
        """The older spelling of buffer_names."""
    def copy(self) -> Problem: ...
    def __copy__(self) -> Problem: ...
    def __deepcopy__(self, memo: dict[int, Any]) -> Problem: ...
    def to_json(self, offsets: Offsets | None = None) -> str: ...
    def to_csv(self, offsets: Offsets | None = None) -> str: ...

class Objective:
    """Smaller is better, compared in this order: spill, penalty, total_peak, max_peak."""
    @property
    def spill(self) -> int:
        """The sum over buffers of the chosen arena's position among its candidates (0 without candidates)."""
    @property
    def penalty(self) -> int: ...
    @property
    def total_peak(self) -> int: ...
    @property
    def max_peak(self) -> int: ...
    @property
    def peak_by_arena(self) -> list[int]: ...

class PlanResult:
    @property
    def status(self) -> Literal["optimal", "feasible", "no_fit", "infeasible"] | str: ...
    @property
    def fits(self) -> bool: ...
    @property
    def strategy(self) -> str: ...
    @property
    def offsets(self) -> dict[str, int]:
        """Offset by buffer name (placed buffers only)."""
    @property
    def arenas(self) -> dict[str, int]:
        """Arena id by buffer name (placed buffers only): the planner's choice among a buffer's
        candidate arenas, else its own arena."""
    @property
    def arena_list(self) -> list[int | None]:
        """Arena ids in buffer order; None for an unplaced buffer."""
    @property
    def placement(self) -> list[int | None]:
        """Offsets in buffer order; None for an unplaced buffer."""
    @property
    def offsets_array(self) -> npt.NDArray[np.int64]:
        """Offsets in buffer order; -1 for an unplaced buffer."""
    @property
    def objective(self) -> Objective: ...
    @property
    def stopped_by(self) -> Literal["completed", "node_limit", "deadline", "interrupted"]: ...
    @property
    def proved(self) -> dict[str, bool | int]:
        """{"penalty": bool, "peak": bool, "penalty_bound": int}, as the tool's report."""
    @property
    def lower_bound(self) -> list[int]:
        """Per arena, in problem.arenas order."""
    @property
    def max_load_bound(self) -> list[int]: ...
    @property
    def statistics(self) -> dict[str, int | bool]: ...
    @property
    def diagnostics(self) -> list[Diagnostic]: ...
    @property
    def time_s(self) -> float: ...
    def __len__(self) -> int: ...

class Progress:
    """A progress report of a running search (plan(progress=...))."""
    @property
    def best_peak(self) -> int | None: ...
    @property
    def penalty(self) -> int | None: ...
    @property
    def proved_bound(self) -> int: ...
    @property
    def gap(self) -> float | None: ...
    @property
    def elapsed_s(self) -> float: ...

class CompileResult:
    @property
    def text(self) -> str:
        """The program after the last stage, in the tile-IR text format."""
    @property
    def report(self) -> dict[str, Any]:
        """The `pto-mem compile --emit json` report (docs/formats.md)."""
    @property
    def diagnostics(self) -> list[Diagnostic]: ...
    @property
    def stages(self) -> list[str]: ...
    @property
    def addresses(self) -> dict[str, dict[str, int]]:
        """Start address per function, then allocation name (after alloc)."""
    @property
    def dumps(self) -> dict[str, str]:
        """The program after each stage named in dump_after."""
    def memory_map(self, path: str | PathLike[str] | None = None) -> str: ...

def parse_csv(text: str, *, capacity: int | None = None, file: str = "<string>") -> Problem: ...
def read_csv(path: str | PathLike[str], *, capacity: int | None = None) -> Problem: ...
def parse_json(text: str, *, file: str = "<string>") -> Problem: ...
def read_json(path: str | PathLike[str]) -> Problem: ...
def read_dsa(path: str | PathLike[str]) -> tuple[Problem, dict[str, Any]]:
    """PyPTO's DSA schema v1: the problem and {instance, profile, fingerprint, buffer_ids, objective_terms, goal}."""
def read_placement(path: str | PathLike[str], *, capacity: int | None = None) -> tuple[Problem, list[int | None]]: ...
def validate(
    problem: Problem,
    offsets: Offsets | None = None,
    *,
    arenas: dict[str, int | None] | Sequence[int | None] | None = None,
) -> list[Diagnostic]:
    """`arenas`: the arena of each buffer with several candidate arenas (a PlanResult carries its own)."""
def lower_bound(problem: Problem) -> list[int]: ...
def to_svg(
    problem: Problem,
    offsets: Offsets,
    path: str | PathLike[str] | None = None,
    *,
    width: float = 1200.0,
    panel_height: float = 440.0,
) -> str: ...
def strategies() -> list[str]: ...
def soc_names() -> list[str]: ...
def plan(
    problem: Problem,
    *,
    strategy: Strategy | None = None,
    goal: Goal | None = None,
    time_limit: float | None = None,
    node_limit: int | None = None,
    threads: int | None = None,
    seed: int | None = None,
    restarts: int | None = None,
    compat_pypto: bool | None = None,
    capacity: Capacity = None,
    progress: Callable[[Progress], object] | None = None,
) -> PlanResult:
    """None: the library's default (as `pto-mem plan`)."""
def explain(
    problem: Problem,
    result: PlanResult | None = None,
    *,
    strategy: Strategy | None = None,
    goal: Goal | None = None,
    time_limit: float | None = None,
    node_limit: int | None = None,
    threads: int | None = None,
    seed: int | None = None,
    restarts: int | None = None,
    compat_pypto: bool | None = None,
    capacity: Capacity = None,
    check_node_limit: int | None = None,
    least_capacity: bool = True,
) -> dict[str, Any]:
    """Why the problem does not fit: the report's "explanation" object plus "status"."""
def plan_arrays(
    sizes: IntArrayLike,
    begins: IntArrayLike,
    ends: IntArrayLike,
    alignments: IntArrayLike | None = None,
    *,
    arenas: IntArrayLike | None = None,
    capacity: Capacity = None,
    strategy: Strategy | None = None,
    goal: Goal | None = None,
    time_limit: float | None = None,
    node_limit: int | None = None,
    threads: int | None = None,
    seed: int | None = None,
    restarts: int | None = None,
    progress: Callable[[Progress], object] | None = None,
) -> PlanResult: ...
def compile(
    text: str,
    *,
    soc: Literal["a2a3", "a5", "none"] | None = None,
    soc_file: str | PathLike[str] | None = None,
    planner: Literal["pypto", "dsa_rp", "ptoas"] = "pypto",
    until: Literal["parse", "infer", "init", "alias", "reuse", "alloc"] = "alloc",
    syntax: Literal["ours", "pypto", "pto"] = "ours",
    storage: Literal["buffer-ir", "legacy"] = "buffer-ir",
    passes: str | Sequence[str] | None = None,
    dump_after: str | Sequence[str] | None = None,
    unknown_ops: Literal["warn", "error"] = "warn",
    file: str = "<string>",
    logical_tile_selection: bool = False,
) -> CompileResult:
    """`pto-mem compile`'s options under the same names (docs/python.md)."""

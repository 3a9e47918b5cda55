"""A built TaoBench release as the scorer sees it: exercises by FQN and formulation.

Scoring reads the *release* (not the raw upstream files): the declaration name
and statement recorded there are what attempts are checked against, so a
score always names the exact release it was computed on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from lemmata.benchmarks.taobench.meta import FORMULATIONS, RELEASES
from lemmata.core.errors import InputError, LemmataError
from lemmata.core.meta import BenchmarkMeta
from lemmata.core.registry import suggest
from lemmata.benchmarks.taobench.lean.statements import Exercise, locate

Formulation = Literal["tao", "mathlib"]
CONFIG, SPLIT = "pairs", "test"


@dataclass(frozen=True)
class Item:
    """One exercise in one formulation."""

    fqn: str
    formulation: Formulation
    chapter: int
    section: str
    lean: str
    decl: str | None
    statement: str | None
    defect: str | None

    @property
    def item_id(self) -> str:
        return f"{self.fqn}@{self.formulation}"

    @property
    def scoreable(self) -> bool:
        return self.defect is None and self.decl is not None


@dataclass
class TaoRelease:
    meta: BenchmarkMeta
    root: Path
    rows: list[dict[str, Any]]
    _exercises: dict[tuple[str, str], Exercise] = field(default_factory=dict, repr=False)

    @property
    def release_id(self) -> str:
        return self.meta.release_id

    def __post_init__(self) -> None:
        self.by_fqn = {r["fqn"]: r for r in self.rows}

    def fqns(self) -> list[str]:
        return [r["fqn"] for r in self.rows]

    def item(self, fqn: str, formulation: str) -> Item:
        row = self.by_fqn[fqn]
        return Item(fqn=fqn, formulation=formulation, chapter=row["chapter"], section=row["section"],  # type: ignore[arg-type]
                    lean=row[f"{formulation}_lean"], decl=row[f"{formulation}_decl"],
                    statement=row[f"{formulation}_statement"], defect=row[f"{formulation}_defect"])

    def items(self, formulation: str) -> list[Item]:
        return [self.item(f, formulation) for f in self.fqns()]

    def exercise(self, fqn: str, formulation: str) -> Exercise:
        """The official file parsed, with the exercise located by the declaration name the release records."""
        key = (fqn, formulation)
        if key not in self._exercises:
            item = self.item(fqn, formulation)
            if not item.scoreable:
                raise LemmataError(f"{item.item_id} has no well-formed official file in {self.release_id}")
            self._exercises[key] = locate(item.lean, item.decl)  # type: ignore[arg-type]
        return self._exercises[key]

    def local_definitions(self, fqn: str) -> int:
        """How many definitions the exercise's Tao file declares before it (:mod:`.context`; the Mathlib twin is
        read in its Tao twin's bucket)."""
        from lemmata.benchmarks.taobench.context import local_definitions

        return local_definitions(self.exercise(fqn, "tao"))


def release_meta(release_id: str) -> BenchmarkMeta:
    for meta in RELEASES:
        if meta.release_id == release_id:
            return meta
    raise InputError.one("header", suggest("TaoBench release", release_id, [m.release_id for m in RELEASES]),
                         field="release")


def open_taobench(release_id: str, root: str | Path | None = None, *, build: bool = True) -> TaoRelease:
    """The release ``release_id`` from ``root`` (default: ``$LEMMATA_HOME/releases``), built there when missing."""
    from lemmata.catalog import release_path
    from lemmata.catalog import open_release_folder as open_release

    meta = release_meta(release_id)
    folder = release_path(meta, root=root, build=build)
    rel = open_release(folder)
    if rel.release_id != release_id:
        raise LemmataError(f"{folder} holds release {rel.release_id}, not {release_id}")
    return TaoRelease(meta=meta, root=folder, rows=rel.rows(CONFIG, SPLIT))


__all__ = ["FORMULATIONS", "Formulation", "Item", "TaoRelease", "open_taobench", "release_meta"]

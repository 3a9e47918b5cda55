"""Build the MathAtlas and MA-Align releases from pinned snapshots of their Hub datasets.

The upstream record shapes are declared here once (``AtlasEntity``,
``AlignPair``); every record is validated against them and every problem is
reported with its file, line and field, so a changed upstream schema shows up
as one clear report on the first build.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, StrictBool, StrictInt, StrictStr

from lemmata.benchmarks.mathatlas.meta import ALIGN_REPO, ATLAS_REPO, ENTITY_TYPES, MA_ALIGN, MATHATLAS
from lemmata.core.errors import InputError, Problem
from lemmata.release.hub import declared_data_files, iter_records
from lemmata.core.meta import HubPin
from lemmata.core.models import Frozen
from lemmata.release.builder import SplitTable
from lemmata.release.hub_builder import HubReleaseBuilder
from lemmata.formats.envelope import validate_model

ALLOW_PATTERNS = ("README.md", "*.jsonl", "*.json", "*.parquet", "*.csv")


class AtlasEntity(Frozen):
    """One upstream MathAtlas record: an entity of a textbook and what it depends on."""

    id: StrictStr = Field(min_length=1)
    book: StrictStr = Field(min_length=1, description="the textbook the entity comes from")
    type: Literal[ENTITY_TYPES]  # type: ignore[valid-type]
    statement: StrictStr = Field(min_length=1, description="natural-language (LaTeX) statement")
    dependencies: list[StrictStr] = Field(description="ids of the entities this one uses")
    depth: StrictInt = Field(ge=0, description="depth of the entity in the dependency graph")


class AlignPair(Frozen):
    """One upstream MA-Align record: a statement, a Lean formalization, and the gold faithfulness label."""

    id: StrictStr = Field(min_length=1)
    informal_statement: StrictStr = Field(min_length=1)
    formal_statement: StrictStr = Field(min_length=1, description="Lean 4 source")
    faithful: StrictBool


def single_table(root: Path, repo: str) -> tuple[str, str, tuple[Path, ...]]:
    """The one config and split the snapshot's card declares: ``(config, split, files)``."""
    declared = declared_data_files(root)
    found = [(c, s, df.paths) for c, splits in declared.items() for s, df in splits.items()]
    if len(found) != 1:
        described = ", ".join(f"{c}/{s}" for c, s, _ in found) or "none"
        raise InputError.one(str(root / "README.md"), f"{repo}: expected a card declaring exactly one config and "
                                                      f"split, found {described}", field="configs")
    return found[0]


def read_models(root: Path, repo: str, files: tuple[Path, ...], model: type[BaseModel]) -> list[tuple[int, Any]]:
    """Validate every record; duplicate ids and every schema problem are reported together."""
    problems: list[Problem] = []
    out: list[tuple[int, Any]] = []
    first: dict[str, str] = {}
    for path in files:
        label = f"{repo}/{path.relative_to(root).as_posix()}"
        for line, rec in iter_records(path, label=label):
            obj = validate_model(model, rec, label, line, problems)
            if obj is None:
                continue
            if obj.id in first:
                problems.append(Problem(label, f"duplicate id {obj.id!r} (first at {first[obj.id]})", line, "id"))
                continue
            first[obj.id] = f"{label}:{line}"
            out.append((line, obj))
    if problems:
        raise InputError(problems[:200])
    return out


class _HubBuilder(HubReleaseBuilder):
    """Shared: the release's one pinned repository, holding one table."""

    builder_version = "1.0"
    allow_patterns = ALLOW_PATTERNS

    @property
    def pin(self) -> HubPin:
        return self.meta.hub[0]

    def _records(self, sources: dict[str, Path], model: type[BaseModel]) -> tuple[str, list[tuple[int, Any]]]:
        root = self.checked_root(sources, self.pin.repo_id)
        config, split, files = single_table(root, self.pin.repo_id)
        self.used.add(self.pin, root, files)
        return f"{config}/{split}", read_models(root, self.pin.repo_id, files, model)


class MathAtlasBuilder(_HubBuilder):
    builder_id = "lemmata.builders.mathatlas.MathAtlasBuilder"
    meta = MATHATLAS

    def features(self):
        from datasets import Features, List, Value

        s = Value("string")
        return {
            "entities": Features({"entity_id": s, "entity_type": s, "book": s, "statement": s,
                                  "dependencies": List(s), "depth": Value("int32")}),
            "dependencies": Features({"entity_id": s, "depends_on": s, "resolved": Value("bool")}),
        }

    def make_tables(self, sources: dict[str, Path]) -> list[SplitTable]:
        self.upstream_table, records = self._records(sources, AtlasEntity)
        ids = {e.id for _, e in records}
        entities, edges = [], []
        for _, e in records:
            entities.append({"entity_id": e.id, "entity_type": e.type, "book": e.book, "statement": e.statement,
                             "dependencies": list(e.dependencies), "depth": e.depth})
            edges.extend({"entity_id": e.id, "depends_on": d, "resolved": d in ids} for d in e.dependencies)
        self.stats = {
            "entities": len(entities),
            "books": len({e["book"] for e in entities}),
            "types": Counter(e["entity_type"] for e in entities),
            "edges": len(edges),
            "unresolved": sum(not e["resolved"] for e in edges),
            "max_depth": max((e["depth"] for e in entities), default=0),
        }
        return [SplitTable("entities", "test", entities), SplitTable("dependencies", "test", edges)]

    def card_body(self, tables: list[SplitTable]) -> str:
        s = self.stats
        types = ", ".join(f"{t} {n:,}" for t, n in sorted(s["types"].items()))
        return f"""
## Columns

| config | column | meaning |
|---|---|---|
| `entities` | `entity_id` | upstream `id` |
| | `entity_type` | upstream `type`: one of {", ".join(f"`{t}`" for t in ENTITY_TYPES)} |
| | `book` | the textbook the entity comes from |
| | `statement` | natural-language (LaTeX) statement |
| | `dependencies` | ids of the entities it uses |
| | `depth` | its depth in the dependency graph, as upstream computed it |
| `dependencies` | `entity_id`, `depends_on` | one row per dependency relation |
| | `resolved` | whether `depends_on` is an entity of this release |

{s['entities']:,} entities from {s['books']} books ({types}); {s['edges']:,} dependency relations, {s['unresolved']:,} of which point outside this release; maximum depth {s['max_depth']}. Built from upstream table `{self.upstream_table}`.

## Scoring

Two tracks: `statements` formalizes the `theorem` entities, `definitions` the `definition` entities. A submission gives, for each entity it formalizes, the Lean 4 statement and the verdicts of a Lean checker (does it compile?) and of a faithfulness judge, both named in its header. Correct = compiles ∧ faithful, over every entity of the track (an entity without a record counts as abstained); compile rate and faithful-given-compiles are reported beside it, with Wilson intervals and a breakdown by dependency depth. An entity whose faithfulness has not been judged is pending, never counted as correct.

## Upstream schema

The upstream column names this release reads (`id`, `book`, `type`, `statement`, `dependencies`, `depth`) are declared in `lemmata.benchmarks.mathatlas.builder.AtlasEntity`; they could not be checked against the Hub card when the release was defined, and the Hub revision is recorded as `unpinned` until the maintainers set it.
"""


class MaAlignBuilder(_HubBuilder):
    builder_id = "lemmata.builders.mathatlas.MaAlignBuilder"
    meta = MA_ALIGN

    def features(self):
        from datasets import Features, Value

        s = Value("string")
        return {"pairs": Features({"pair_id": s, "informal_statement": s, "formal_statement": s,
                                   "faithful": Value("bool")})}

    def make_tables(self, sources: dict[str, Path]) -> list[SplitTable]:
        self.upstream_table, records = self._records(sources, AlignPair)
        rows = [{"pair_id": p.id, "informal_statement": p.informal_statement, "formal_statement": p.formal_statement,
                 "faithful": p.faithful} for _, p in records]
        self.stats = {"pairs": len(rows), "faithful": sum(r["faithful"] for r in rows)}
        return [SplitTable("pairs", "test", rows)]

    def card_body(self, tables: list[SplitTable]) -> str:
        s = self.stats
        return f"""
## Columns

| column | meaning |
|---|---|
| `pair_id` | upstream `id` |
| `informal_statement` | the natural-language statement |
| `formal_statement` | a Lean 4 formalization of it |
| `faithful` | gold label: does the formalization state the same mathematics? |

{s['pairs']:,} pairs, {s['faithful']:,} labelled faithful. Built from upstream table `{self.upstream_table}`.

## Scoring

A judge submits a predicted label for every pair. Accuracy is the headline, with a Wilson 95% interval; precision, recall and F1 of the *faithful* class are reported with percentile-bootstrap 95% intervals over pairs.

## Upstream schema

The upstream column names this release reads (`id`, `informal_statement`, `formal_statement`, `faithful`) are declared in `lemmata.benchmarks.mathatlas.builder.AlignPair`; they could not be checked against the Hub card when the release was defined, and the Hub revision is recorded as `unpinned` until the maintainers set it.
"""


__all__ = ["AlignPair", "AtlasEntity", "MaAlignBuilder", "MathAtlasBuilder", "ATLAS_REPO", "ALIGN_REPO"]

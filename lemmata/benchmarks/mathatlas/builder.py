"""Build the MathAtlas and MA-Align releases from pinned snapshots of their Hub datasets.

The record layouts read here are the authors' own, as their code reads them (``offendo/math-atlas``):

- a MathAtlas entity (``benchmarks/dependency_context.py``, ``scripts/graph_depth.py``,
  ``benchmarks/common.py``) carries ``uuid``, ``file_id`` (its textbook), ``type`` (definition,
  theorem, example, exercise, proof), ``text``, ``names``, ``identifier``, ``object_references``,
  ``object_links`` (one list of candidate uuids per reference), ``entity_references``,
  ``entity_links``, ``mathlib_links`` and ``item_start``; the public dataset has splits ``test`` and
  ``hard`` (MA-Hard, 698 items) and no depth column;
- an MA-Align pair (``benchmarks/judge_validation.py``) carries ``uuid``, ``informal``, ``formal`` and a
  string ``label`` (``aligned``/``misaligned``).

``ATLAS_READ`` and ``ALIGN_READ`` name the columns read; a record missing one is reported with its
file, row and field. The public parquet's exact column list was not visible offline, so any other
column is not an error: it is listed on the card as present and not read. Dependencies and depth
are derived in :mod:`lemmata.benchmarks.mathatlas.graph`; MA-Align's second label set in
:mod:`lemmata.benchmarks.mathatlas.relabel`.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field, StrictInt, StrictStr

from lemmata.benchmarks.mathatlas.graph import candidate_edges, scc_depth
from lemmata.benchmarks.mathatlas.meta import (
    ALIGN_REPO, ATLAS_REPO, ATLAS_SPLITS, ENTITY_TYPES, LABEL_SETS, MA_ALIGN, MATHATLAS, TRACK_TYPES,
)
from lemmata.benchmarks.mathatlas.records import unique_records
from lemmata.benchmarks.mathatlas.relabel import (
    RELABEL_FILE, RELABEL_SHA256, RELABEL_SOURCE, RelabelRow, packaged_relabel,
)
from lemmata.core.errors import InputError, Problem
from lemmata.core.meta import HubPin
from lemmata.core.models import Frozen
from lemmata.release.builder import SplitTable
from lemmata.release.card_check import CardLayout, model_layout
from lemmata.release.hub import declared_data_files
from lemmata.release.hub_builder import HubReleaseBuilder

ALLOW_PATTERNS = ("README.md", "*.jsonl", "*.json", "*.parquet", "*.csv")
#: upstream entity columns the authors' code carries that this release does not read
ATLAS_NOT_READ = ("entity_references", "entity_links", "mathlib_links", "item_start")


class AtlasEntity(Frozen):
    """One upstream MathAtlas record, as far as the release reads it."""

    uuid: StrictStr = Field(min_length=1)
    file_id: StrictStr | StrictInt = Field(description="the textbook the entity comes from")
    type: Literal[ENTITY_TYPES]  # type: ignore[valid-type]
    text: StrictStr = Field(description="natural-language (LaTeX) text of the entity")
    names: list[StrictStr] | None = None
    identifier: StrictStr | StrictInt | None = None
    object_references: list[StrictStr | None] | None = None
    object_links: list[list[StrictStr] | None] | None = Field(
        description="for each reference in the text, the uuids of the entities it may point to")


class AlignPair(Frozen):
    """One upstream MA-Align record."""

    uuid: StrictStr = Field(min_length=1)
    informal: StrictStr = Field(min_length=1)
    formal: StrictStr = Field(min_length=1, description="Lean 4 source")
    label: Literal["aligned", "misaligned"]


ATLAS_READ = tuple(AtlasEntity.model_fields)
ALIGN_READ = tuple(AlignPair.model_fields)


def declared_splits(root: Path, repo: str, expected: tuple[str, ...]) -> dict[str, tuple[Path, ...]]:
    """``split -> files`` of the snapshot card's one config, whose splits must be exactly ``expected``."""
    declared = declared_data_files(root)
    found = [(c, s, df.paths) for c, splits in declared.items() for s, df in splits.items()]
    if len(declared) != 1 or sorted(s for _, s, _ in found) != sorted(expected):
        described = ", ".join(f"{c}/{s}" for c, s, _ in found) or "none"
        raise InputError.one(str(root / "README.md"), f"{repo}: expected one config with split(s) "
                                                      f"{', '.join(expected)}, found {described}", field="configs")
    return {s: paths for _, s, paths in found}


def _columns_note(seen: set[str], read: tuple[str, ...], known_unread: tuple[str, ...] = ()) -> str:
    """What the card says about the upstream columns: read, present and not read, absent."""
    unread = sorted(seen - set(read))
    absent = sorted((set(read) | set(known_unread)) - seen)
    parts = [f"Read: {', '.join(f'`{c}`' for c in read if c in seen)}."]
    if unread:
        parts.append(f"Present upstream and not read: {', '.join(f'`{c}`' for c in unread)}.")
    if absent:
        parts.append(f"Not present in this snapshot: {', '.join(f'`{c}`' for c in absent)}.")
    return " ".join(parts)


class _HubBuilder(HubReleaseBuilder):
    """Shared: the release's one pinned repository and its declared splits."""

    builder_version = "2.0"
    allow_patterns = ALLOW_PATTERNS
    splits: ClassVar[tuple[str, ...]]
    #: the upstream record this builder reads (its fields are the columns ``lemmata build --check`` expects)
    row_model: ClassVar[type[BaseModel]]

    def card_layouts(self) -> dict[str, tuple[CardLayout, ...]]:
        """The card's one config with :attr:`splits`, whose rows are :attr:`row_model` (columns with a default
        may be absent; other columns are read past, so shown as not read)."""
        return {self.pin.repo_id: (model_layout("authors' columns", self.row_model, splits=self.splits,
                                                optional=True, other_columns=True),)}

    @property
    def pin(self) -> HubPin:
        return self.meta.hub[0]

    def _records(self, sources: dict[str, Path], model: type[BaseModel]) -> dict[str, list[tuple[str, int, Any]]]:
        """``split -> records`` of the snapshot; the columns seen are kept for the card."""
        root = self.checked_root(sources, self.pin.repo_id)
        self.columns: set[str] = set()
        out = {}
        for split, files in declared_splits(root, self.pin.repo_id, self.splits).items():
            self.used.add(self.pin, root, files)
            out[split] = unique_records(((f"{self.pin.repo_id}/{p.relative_to(root).as_posix()}", p) for p in files),
                                        model, columns=self.columns)
        return out


class MathAtlasBuilder(_HubBuilder):
    builder_id = "lemmata.builders.mathatlas.MathAtlasBuilder"
    meta = MATHATLAS
    splits = ATLAS_SPLITS
    row_model = AtlasEntity

    def features(self):
        from datasets import Features, List, Value

        s = Value("string")
        return {
            "entities": Features({"entity_id": s, "entity_type": s, "book": s, "statement": s, "names": List(s),
                                  "identifier": s, "dependencies": List(s), "scc_depth": Value("int32"),
                                  "scc_size": Value("int32"), "ma_hard": Value("bool")}),
            "dependencies": Features({"entity_id": s, "reference_index": Value("int32"), "reference": s,
                                      "depends_on": s, "resolved": Value("bool")}),
        }

    def _union(self, by_split: dict[str, list[tuple[str, int, AtlasEntity]]]) -> dict[str, AtlasEntity]:
        """Every distinct entity of the public release (test, then hard); one uuid in both must agree."""
        entities: dict[str, AtlasEntity] = {}
        problems: list[Problem] = []
        for split in ATLAS_SPLITS:
            for label, line, e in by_split[split]:
                if e.uuid in entities and entities[e.uuid] != e:
                    problems.append(Problem(label, f"uuid {e.uuid!r} is also in another split with a different "
                                                   "record", line, "uuid"))
                entities.setdefault(e.uuid, e)
        if problems:
            raise InputError(problems[:200])
        return entities

    def make_tables(self, sources: dict[str, Path]) -> list[SplitTable]:
        by_split = self._records(sources, AtlasEntity)
        entities = self._union(by_split)
        hard = {e.uuid for _, _, e in by_split["hard"]}
        edges: list[dict[str, Any]] = []
        for e in entities.values():
            refs = e.object_references or []
            edges.extend({"entity_id": e.uuid, "reference_index": slot,
                          "reference": refs[slot] if slot < len(refs) else None,
                          "depends_on": target, "resolved": target in entities}
                         for slot, target in candidate_edges(e.uuid, e.object_links))
        depth, size = scc_depth(list(entities), ((x["entity_id"], x["depends_on"]) for x in edges if x["resolved"]))

        def row(e: AtlasEntity) -> dict[str, Any]:
            deps = list(dict.fromkeys(t for _, t in candidate_edges(e.uuid, e.object_links)))
            return {"entity_id": e.uuid, "entity_type": e.type, "book": str(e.file_id), "statement": e.text,
                    "names": list(e.names or []),
                    "identifier": None if e.identifier is None else str(e.identifier),
                    "dependencies": deps, "scc_depth": depth[e.uuid], "scc_size": size[e.uuid],
                    "ma_hard": e.uuid in hard}

        tables = {split: [row(e) for _, _, e in by_split[split]] for split in ATLAS_SPLITS}
        unresolved = [x["depends_on"] for x in edges if not x["resolved"]]
        self.stats = {
            "splits": {s: len(rows) for s, rows in tables.items()},
            "entities": len(entities),
            "overlap": len(hard & {e.uuid for _, _, e in by_split["test"]}),
            "books": len({str(e.file_id) for e in entities.values()}),
            "types": Counter(e.type for e in entities.values()),
            "hard_types": Counter(entities[u].type for u in hard),
            "edges": len(edges), "resolved": len(edges) - len(unresolved), "unresolved": len(unresolved),
            "unresolved_targets": len(set(unresolved)),
            "in_cycles": sum(1 for u in entities if size[u] > 1),
            "max_depth": max(depth.values(), default=0),
        }
        return [*(SplitTable("entities", s, tables[s]) for s in ATLAS_SPLITS),
                SplitTable("dependencies", "open", edges)]

    def card_body(self, tables: list[SplitTable]) -> str:
        s = self.stats
        types = ", ".join(f"{t} {n:,}" for t, n in sorted(s["types"].items()))
        hard_types = ", ".join(f"{t} {n:,}" for t, n in sorted(s["hard_types"].items()))
        tracks = "; ".join(f"`{t}`: {', '.join(types_)}" for t, types_ in TRACK_TYPES.items())
        return f"""
## Columns

| config | column | meaning |
|---|---|---|
| `entities` | `entity_id` | upstream `uuid` |
| | `entity_type` | upstream `type`: one of {", ".join(f"`{t}`" for t in ENTITY_TYPES)} |
| | `book` | upstream `file_id`: the textbook the entity comes from |
| | `statement` | upstream `text`: the natural-language (LaTeX) text |
| | `names`, `identifier` | upstream `names` and `identifier` (empty / null when absent) |
| | `dependencies` | every candidate target of upstream `object_links`, distinct, in reference order, self-links dropped |
| | `scc_depth` | Lemmata's dependency depth (below); **not the paper's depth** |
| | `scc_size` | entities in its strongly connected component (1: on no cycle) |
| | `ma_hard` | whether the entity is in MA-Hard (upstream split `hard`) |
| `dependencies` | `entity_id`, `reference_index`, `reference` | the entity, which of its references (upstream `object_references`), the reference text |
| | `depends_on`, `resolved` | one candidate target; whether it is an entity of this release |

Splits of `entities`: `test` is upstream's open split ({s['splits']['test']:,} entities), `hard` is MA-Hard ({s['splits']['hard']:,} entities: {hard_types}; {s['overlap']:,} of them also in `test`). Together: {s['entities']:,} distinct entities from {s['books']} books ({types}). `dependencies` (split `open`) holds the links of all of them: {s['edges']:,} (entity, candidate) edges, {s['resolved']:,} resolved, **{s['unresolved']:,} unresolved** ({s['unresolved_targets']:,} distinct targets): the authors withhold the Springer-sourced ~30% of the corpus, so those targets are absent here, counted and never guessed.

## Depth

`scc_depth` is computed by Lemmata over the resolved edges only (self-edges dropped): strongly connected components are condensed to one node each, and an entity's depth is the number of edges on the longest path from its component to one without dependencies in the acyclic condensation; an entity without resolved dependencies has depth 0. {s['in_cycles']:,} entities lie on a cycle; the maximum depth is {s['max_depth']}. This is not the paper's depth: the paper's came from a memoised depth-first search whose values on cycles depend on traversal order (the authors later found that SCC condensation changes 64% of them), over the full corpus including the withheld entities.

## Scoring

Three tracks ({tracks}): `statements` is the paper's statement population (theorems, examples and exercises), `definitions` its definitions, both over every distinct entity of the release; `ma-hard` formalizes every MA-Hard entity and is ranked in its own board group. A submission gives, for each entity it formalizes, the Lean 4 text (`lemmata run mathatlas --model M` writes one for any chat model, zero-shot or shown the statements the entity's dependencies point to: a condition that splits board groups). Every verdict comes from Lemmata's oracles, never from the submission: a Kimina Lean server compiles the text under the forced header `import Mathlib` / `import Aesop` with a per-item timeout (the authors' protocol), and a judge rates the faithfulness of the compiling ones (separate rubrics for statements and definitions; reply `{{reasoning, result}}`, an unreadable reply counts as misaligned); the Lean and Mathlib versions and the judge are part of the result's frozen tuple, and `lemmata calibrate --judge` measures that judge against MA-Align's labels. Correct = compiles ∧ faithful, over every entity of the track (an entity without a record counts as abstained); compile rate and faithful-given-compiles are reported beside it, with Wilson intervals and breakdowns by entity type and by `scc_depth` range. An entity awaiting an oracle is pending, never counted as correct; the result gives its bounds and `lemmata judge` completes it.

## Upstream schema

Built from the card's config with splits `test` and `hard`. {_columns_note(self.columns, ATLAS_READ, ATLAS_NOT_READ)} The columns are the ones the authors' code reads (`offendo/math-atlas`: `benchmarks/dependency_context.py`, `scripts/graph_depth.py`, `benchmarks/common.py`); the Hub card itself could not be checked when the release was defined, and the Hub revision is recorded as `unpinned` until the maintainers set it.
"""


class MaAlignBuilder(_HubBuilder):
    builder_id = "lemmata.builders.mathatlas.MaAlignBuilder"
    meta = MA_ALIGN
    splits = ("test",)
    row_model = AlignPair

    def features(self):
        from datasets import Features, Value

        s = Value("string")
        return {"pairs": Features({"pair_id": s, "kind": s, "informal_statement": s, "formal_statement": s,
                                   "label": s, "relabel": s, "relabel_confidence": s})}

    def manifest_sources(self) -> list[dict[str, str]]:
        """The snapshot files, and the packaged relabel file the second label set comes from."""
        src = RELABEL_SOURCE
        return [*super().manifest_sources(),
                {"name": f"lemmata/benchmarks/mathatlas/{RELABEL_FILE} (first six columns of {src['repo']}/"
                         f"{src['path']})", "url": f"https://github.com/{src['repo']}/blob/{src['commit']}/{src['path']}",
                 "sha256": RELABEL_SHA256}]

    def relabel_rows(self) -> dict[str, RelabelRow]:
        """The second label set (the packaged copy of the authors' relabel file)."""
        self.relabel_path, rows = packaged_relabel()
        return rows

    def make_tables(self, sources: dict[str, Path]) -> list[SplitTable]:
        records = self._records(sources, AlignPair)["test"]
        relabel = self.relabel_rows()
        problems: list[Problem] = []
        rows = []
        for label, line, p in records:
            r = relabel.get(p.uuid)
            if r is None:
                problems.append(Problem(label, f"pair {p.uuid!r} has no row in the relabel file", line, "uuid"))
                continue
            if r.original_label != p.label:
                problems.append(Problem(label, f"label {p.label!r} differs from the relabel file's original_label "
                                               f"{r.original_label!r}", line, "label"))
                continue
            rows.append({"pair_id": p.uuid, "kind": r.kind, "informal_statement": p.informal,
                         "formal_statement": p.formal, "label": p.label, "relabel": r.relabel,
                         "relabel_confidence": r.confidence})
        if problems:
            raise InputError(problems[:200])
        self.stats = {
            "pairs": len(rows), "kinds": Counter(r["kind"] for r in rows),
            "aligned": sum(r["label"] == "aligned" for r in rows),
            "relabel_aligned": sum(r["relabel"] == "aligned" for r in rows),
            "changed": sum(r["label"] != r["relabel"] for r in rows),
            "relabel_unmatched": len(set(relabel) - {r["pair_id"] for r in rows}),
        }
        return [SplitTable("pairs", "test", rows)]

    def card_body(self, tables: list[SplitTable]) -> str:
        s = self.stats
        kinds = ", ".join(f"{k} {n:,}" for k, n in sorted(s["kinds"].items()))
        src = RELABEL_SOURCE
        return f"""
## Columns

| column | meaning |
|---|---|
| `pair_id` | upstream `uuid` |
| `kind` | `definition` or `statement` (the relabel file's `ma-align-defs` / `ma-align-stmts`) |
| `informal_statement` | upstream `informal`: the natural-language statement or definition |
| `formal_statement` | upstream `formal`: a Lean 4 formalization of it |
| `label` | upstream `label`, `aligned` or `misaligned`: label set **published** ({LABEL_SETS['published']}) |
| `relabel`, `relabel_confidence` | label set **relabel** ({LABEL_SETS['relabel']}) and the reviewers' confidence (`low`/`med`/`high`) |

{s['pairs']:,} pairs ({kinds}). Published labels: {s['aligned']:,} aligned; relabel: {s['relabel_aligned']:,} aligned; {s['changed']:,} labels differ. Rows of the relabel file matching no pair of this snapshot: {s['relabel_unmatched']:,}.

## Scoring

A judge submits a predicted verdict for every pair (`faithful`: true for aligned, false for misaligned, null to abstain). Accuracy against the **published** labels is the headline, with a Wilson 95% interval; accuracy against the **relabel** set is reported beside it, named, with its own interval; precision, recall and F1 of the aligned class carry percentile-bootstrap 95% intervals over pairs, for each label set, with a breakdown by kind.

## Upstream schema

Built from the card's one config and split (`test`). {_columns_note(self.columns, ALIGN_READ)} These are the columns the authors' code reads (`offendo/math-atlas`, `benchmarks/judge_validation.py`); the Hub card could not be checked when the release was defined, and the Hub revision is recorded as `unpinned` until the maintainers set it. The relabel set is the package's copy of `{src['path']}` in `{src['repo']}` at commit `{src['commit']}`, without its free-text `reasoning` column, transcribed from the stored text of the file (byte identity with the upstream blob not checked offline); a pair without a relabel row, or whose label differs from the row's `original_label`, stops the build.
"""


__all__ = ["AlignPair", "AtlasEntity", "MaAlignBuilder", "MathAtlasBuilder", "ATLAS_REPO", "ALIGN_REPO"]

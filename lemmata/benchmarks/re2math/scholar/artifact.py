"""The frozen offline scholarly artifact: a reproducible stand-in for the paper's Google Scholar search.

Version 1.0.0, superseded by ``re2math-scholar-offline-2.0.0``
(:mod:`lemmata.benchmarks.re2math.scholar.world.v2_0`; :mod:`lemmata.benchmarks.re2math.scholar.worlds`
declares every version), which hides the sources among a
distractor corpus, shows every record in one shape and never serves
statements. 1.0.0 still builds and opens, so results made with it audit; its
``ARTIFACT.json`` names its successor (``superseded_by``).

Re²Math scores a returned (source, statement) pair after the model searched a
*frozen* retrieval artifact; the paper's Google Scholar cache was never
released and no search engine is reachable offline. This artifact is built
from a Re²Math release alone:

- one record per **cited source** (the ``z`` of every instance), deduplicated
  by identity with :mod:`lemmata.benchmarks.re2math.scholar.matcher` — id ``src-<12 hex>``;
- one record per **citing paper** (title, arXiv id, year) — id
  ``paper-<arXiv id>``, ``kind="citing_paper"``; a citing paper that is also
  cited by another paper is one record of that kind, carrying its statements;
- the **statements** the release attributes to each source (the
  ``y.reference_tool_latex`` of every instance citing it, id ``stmt-<hex>``),
  returned when a source is opened (*materialised*), every opening logged;
- a ``bm25s`` index over each record's bibliographic text (title, authors,
  bibliography strings — metadata, as a scholarly search engine sees it).

**Years.** A record's year is the earliest year it is known to have existed:
the smallest of the years written in its bibliography strings and the
submission years of its arXiv ids (a citing paper: its ``publication_year``).
``search(query, year_cutoff)`` never returns a record dated after the cutoff;
records whose year is unknown are kept, as the paper's offline backend keeps
them (``year is None or year <= cutoff``). ``ARTIFACT.json`` counts the
instances whose own cited source is dated after their cutoff (a preprint cited
in a later journal version), for which the cited source cannot be retrieved.

**Ranking.** Lucene BM25 (k1 = 1.5, b = 0.75) through the one BM25 engine
(:mod:`lemmata.retrievers.bm25`) over the frozen scholarly tokenizer
(:func:`~lemmata.retrievers.bm25.tokenizers.tokenize_scholar_words`), each
distinct query word counted once, only positive scores, scores rounded to
six decimals, ties broken by record id ascending — so a replayed query returns
the same ids on every machine.

The artifact is a folder (``re2math-scholar-offline-1.0.0/``: records,
statements, attributions, the serialized index, ``ARTIFACT.json`` and a
``MANIFEST.json`` of sha256s verified on load). Building twice from the same
release gives identical bytes; the folder is written beside its target and
renamed into place.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from functools import cached_property
from pathlib import Path
from typing import Any, Literal

from pydantic import Field

from lemmata.core.errors import InputError, LemmataError
from lemmata.core.hashing import sha256_bytes, sha256_file, write_json
from lemmata.core.identifiers import arxiv_id_year
from lemmata.core.jsonl import iter_jsonl, write_jsonl
from lemmata.core.latex_text import latex_to_text, words
from lemmata.core.models import Frozen
from lemmata.retrievers.bm25 import (
    B, K1, METHOD, SCHOLAR_WORDS_TOKENIZER as TOKENIZER, SCORE_DECIMALS, Postings, tokenize_scholar_words,
    top_rounded, write_index,
)
from lemmata.benchmarks.re2math.papers import paper_key as normalize_paper_key
from lemmata.benchmarks.re2math.scholar.citations import ParsedCitation
from lemmata.benchmarks.re2math.scholar.layout import ARTIFACT_NAME, INDEX_DIR, INFO_FILE, ArtifactHead, declares_schema
from lemmata.benchmarks.re2math.scholar.openings import MaterialisationLog, OpenedArtifact
from lemmata.benchmarks.re2math.scholar.querycache import DEFAULT_N, Candidate, QuerySettings, SearchResult, now_utc
from lemmata.benchmarks.re2math.scholar.works import cited_sources, citing_papers, most_common_value
from lemmata.benchmarks.re2math.scholar.worlds import DEFAULT_LOCK, WORLDS, default_release_path, world_id

ARTIFACT_VERSION = "1.0.0"
#: the artifact builder's identity as recorded in ARTIFACT.json; fixed once an artifact has shipped, so that
#: moving code never changes an artifact's bytes
BUILDER_ID = "lemmata.retrieval.artifact.build_artifact"
BUILDER_VERSION = "1"
SCHEMA = "lemmata.scholarly-artifact/1"
BACKEND = "offline-bm25s"
RELEASE_CONFIG, RELEASE_SPLIT = "full", "full"

RECORDS_FILE = "records.jsonl"
STATEMENTS_FILE = "statements.jsonl"
ATTRIBUTIONS_FILE = "attributions.jsonl"

Kind = Literal["source", "citing_paper"]
YearFrom = Literal["citation", "arxiv_id", "publication_year", "unknown"]


# --------------------------------------------------------------------------- stored models


class ScholarRecord(Frozen):
    """One scholarly record of the artifact, as search shows it."""

    id: str
    kind: Kind
    title: str
    text: str = Field(description="bibliographic text (LaTeX removed); a citing paper: its title")
    authors: list[str] = Field(default_factory=list, description="folded author surnames, when parsed")
    year: int | None
    year_from: YearFrom
    doi: str | None = None
    arxiv_id: str | None = None
    source_type: str | None = Field(default=None, description="the release's z.source_type (most frequent)")
    citations: list[str] = Field(default_factory=list, description="raw bibliography strings of this source")
    statement_ids: list[str] = Field(default_factory=list)

    def candidate(self, rank: int, score: float) -> Candidate:
        return Candidate(id=self.id, rank=rank, score=score, kind=self.kind, title=self.title, text=self.text,
                         authors=list(self.authors), year=self.year, doi=self.doi, arxiv_id=self.arxiv_id,
                         link=f"https://arxiv.org/abs/{self.arxiv_id}" if self.arxiv_id else
                         (f"https://doi.org/{self.doi}" if self.doi else None),
                         variants=list(self.citations))


class Statement(Frozen):
    """A theorem-like statement the release attributes to a source."""

    id: str
    record_id: str
    latex: str
    tool_type: str


class Attribution(Frozen):
    """Which record is an instance's cited source, and its statement (the scorer's and oracle's view)."""

    instance_id: str
    paper_key: str
    citing_record_id: str
    year_cutoff: int | None
    record_id: str
    statement_id: str
    cited_after_cutoff: bool


class ArtifactInfo(ArtifactHead):
    """``ARTIFACT.json``: what the artifact is, what it was built from, and how it ranks."""

    schema_version: Literal["lemmata.scholarly-artifact/1"] = SCHEMA  # type: ignore[assignment]
    builder: str
    builder_version: str
    backend: dict[str, Any]
    tokenizer: dict[str, Any]
    year_policy: str
    counts: dict[str, int]
    superseded_by: str | None = Field(default=None, description="the artifact that replaces this one; old results "
                                                                "still audit against this one")


class StatementView(Frozen):
    id: str
    latex: str
    tool_type: str


class Materialisation(Frozen):
    """A selected source opened: its record and the statements frozen with it."""

    artifact_id: str
    record: ScholarRecord
    statements: list[StatementView]
    text: str = Field(description="the frozen text an agent reads")


# --------------------------------------------------------------------------- build


def artifact_id(version: str = ARTIFACT_VERSION) -> str:
    return world_id(version)


def is_artifact(path: str | Path) -> bool:
    """Does this folder hold a 1.x artifact?"""
    return declares_schema(path, SCHEMA)


def _short_hash(text: str, n: int = 12) -> str:
    return sha256_bytes(text.encode("utf-8"))[:n]


def _identity_key(p: ParsedCitation) -> str:
    if p.doi and not p.doi.startswith("10.48550/"):
        return f"doi:{p.doi}"
    if p.arxiv_id:
        return f"arxiv:{p.arxiv_id}"
    return "cite:" + " ".join(words(p.text))


def _earliest(years: Iterable[tuple[int | None, YearFrom]]) -> tuple[int | None, YearFrom]:
    known = sorted((y, src) for y, src in years if y is not None)
    return known[0] if known else (None, "unknown")


def build_records(rows: Sequence[Mapping[str, Any]]) -> tuple[list[ScholarRecord], list[Statement], list[Attribution]]:
    """Records, statements and attributions of the artifact from release rows (pure; sorted by id)."""
    by_citation, citations, parsed, groups = cited_sources(rows)

    papers = citing_papers(rows)

    records: dict[str, dict[str, Any]] = {}
    record_of_citation: dict[tuple[str, str, str], str] = {}
    for group in groups:
        members = [citations[i] for i in group]
        member_parsed = [parsed[i] for i in group]
        member_rows = [r for c in members for r in by_citation[c]]
        arxiv = most_common_value(p.arxiv_id for p in member_parsed)
        if arxiv and arxiv in papers:
            rid = f"paper-{arxiv}"
        else:
            rid = "src-" + _short_hash(min(_identity_key(p) for p in member_parsed))
        weight = Counter({i: len(by_citation[citations[i]]) for i in group})
        canonical = min(group, key=lambda i: (-weight[i], citations[i]))
        authors: list[str] = []
        for i in sorted(group, key=lambda i: (-weight[i], citations[i])):
            authors += [a for a in parsed[i].authors if a not in authors]
        year, year_from = _earliest([(p.year, "citation") for p in member_parsed]
                                    + [(arxiv_id_year(p.arxiv_id), "arxiv_id") for p in member_parsed])
        title = most_common_value(p.title for p in member_parsed) or parsed[canonical].text[:200]
        records[rid] = {
            "id": rid, "kind": "source", "title": title, "text": parsed[canonical].text, "authors": authors,
            "year": year, "year_from": year_from, "doi": most_common_value(p.doi for p in member_parsed),
            "arxiv_id": arxiv, "source_type": most_common_value(r["z"].get("source_type") for r in member_rows),
            "citations": sorted({c[0] for c in members}), "statements": {},
        }
        for c in members:
            record_of_citation[c] = rid

    for key, entry in papers.items():
        rid = f"paper-{key}"
        title = min(entry["titles"], key=lambda t: (-entry["titles"][t], t))
        year, year_from = _earliest([(y, "publication_year") for y in entry["years"]])
        rec = records.get(rid)
        if rec is None:
            records[rid] = {"id": rid, "kind": "citing_paper", "title": latex_to_text(title),
                            "text": latex_to_text(title), "authors": [], "year": year, "year_from": year_from,
                            "doi": None, "arxiv_id": key, "source_type": None, "citations": [], "statements": {}}
        else:  # cited by another paper and a citing paper itself: one record, marked as a citing paper
            rec.update(kind="citing_paper", title=latex_to_text(title))
            rec["year"], rec["year_from"] = _earliest([(rec["year"], rec["year_from"]), (year, year_from)])

    attributions: list[Attribution] = []
    for row in rows:
        z = row["z"]
        rid = record_of_citation[(z["citation_content"], z.get("doi") or "", z.get("arxiv_id") or "")]
        latex = row["y"]["reference_tool_latex"]
        sid = "stmt-" + _short_hash(f"{rid}\n{latex}", 16)
        records[rid]["statements"].setdefault(sid, (latex, row["y"].get("reference_tool_type") or ""))
        key = row.get("paper_key") or normalize_paper_key(row["paper"]["paper_id"])
        cutoff = row.get("publication_year")
        year = records[rid]["year"]
        attributions.append(Attribution(
            instance_id=row["instance_id"], paper_key=key, citing_record_id=f"paper-{key}", year_cutoff=cutoff,
            record_id=rid, statement_id=sid,
            cited_after_cutoff=cutoff is not None and year is not None and year > cutoff))

    statements = [Statement(id=sid, record_id=rid, latex=latex, tool_type=tool_type)
                  for rid, rec in records.items() for sid, (latex, tool_type) in rec["statements"].items()]
    out = []
    for rid in sorted(records):
        rec = dict(records[rid])
        rec["statement_ids"] = sorted(rec.pop("statements"))
        out.append(ScholarRecord(**rec))
    return out, sorted(statements, key=lambda s: s.id), sorted(attributions, key=lambda a: a.instance_id)


def _index_text(rec: ScholarRecord) -> str:
    parts = [rec.title, " ".join(rec.authors), rec.text]
    parts += [latex_to_text(c) for c in rec.citations if latex_to_text(c) != rec.text]
    return "\n".join(parts)


def _write_index(records: Sequence[ScholarRecord], folder: Path) -> dict[str, Any]:
    index = write_index([tokenize_scholar_words(_index_text(r)) for r in records], folder)
    return {"name": BACKEND, "library": "bm25s", "library_version": index["library_version"], "k1": K1, "b": B,
            "method": METHOD, "documents": index["documents"], "vocabulary": index["vocabulary"],
            "score_decimals": SCORE_DECIMALS, "ties": "record id ascending", "default_n": DEFAULT_N}


def build_artifact(release: str | Path, out_root: str | Path | None = None, *, quiet: bool = True) -> Path:
    """Build ``<out_root>/re2math-scholar-offline-<version>/`` from a built Re²Math release folder."""
    from lemmata.core.paths import artifacts_dir
    from lemmata.core.progress import Steps
    from lemmata.core.atomic import atomic_dir
    from lemmata.catalog import open_release_folder as open_release
    from lemmata.release.manifest import MANIFEST, write_manifest

    steps = Steps(4, quiet=quiet)
    steps.step(f"reading release {release}")
    rel = open_release(release)
    if not rel.release_id.startswith("re2math-"):
        raise InputError.one(str(release), f"not a Re2Math release ({rel.release_id})", field="release_id")
    rows = rel.rows(RELEASE_CONFIG, RELEASE_SPLIT)
    steps.step(f"deduplicating the cited sources of {len(rows)} instances")
    records, statements, attributions = build_records(rows)
    aid = artifact_id()
    out_root = Path(out_root) if out_root is not None else artifacts_dir()
    out_root.mkdir(parents=True, exist_ok=True)
    with atomic_dir(out_root / aid) as tmp:
        steps.step(f"writing {len(records)} records and the bm25s index")
        write_jsonl(tmp / RECORDS_FILE, records, sort_keys=True)
        write_jsonl(tmp / STATEMENTS_FILE, statements, sort_keys=True)
        write_jsonl(tmp / ATTRIBUTIONS_FILE, attributions, sort_keys=True)
        backend = _write_index(records, tmp / INDEX_DIR)
        kinds = Counter(r.kind for r in records)
        info = ArtifactInfo(
            id=aid, name=ARTIFACT_NAME, version=ARTIFACT_VERSION, release_id=rel.release_id,
            release_manifest_sha256=sha256_file(Path(release) / MANIFEST),
            release_rows=f"{RELEASE_CONFIG}/{RELEASE_SPLIT}", builder=BUILDER_ID,
            builder_version=BUILDER_VERSION, backend=backend, tokenizer=TOKENIZER,
            year_policy="a record's year is the earliest of the years in its bibliography strings, its arXiv ids' "
                        "submission years and (citing papers) the release's publication_year; search(query, "
                        "year_cutoff) returns only records with year <= year_cutoff or year unknown",
            counts={"records": len(records), "sources": kinds["source"], "citing_papers": kinds["citing_paper"],
                    "cited_citing_papers": sum(1 for r in records if r.kind == "citing_paper" and r.citations),
                    "bibliography_strings": sum(len(r.citations) for r in records),
                    "statements": len(statements), "instances": len(attributions),
                    "records_without_year": sum(1 for r in records if r.year is None),
                    "instances_cited_after_cutoff": sum(a.cited_after_cutoff for a in attributions)},
            superseded_by=WORLDS.superseded_by(aid),
        )
        write_json(tmp / INFO_FILE, info.model_dump(mode="json"))
        write_manifest(tmp, release_id=aid, name=ARTIFACT_NAME, version=ARTIFACT_VERSION,
                       builder=info.builder, builder_version=BUILDER_VERSION,
                       sources=[{"name": f"{rel.release_id}/{MANIFEST}", "url": f"lemmata-release:{rel.release_id}",
                                 "sha256": info.release_manifest_sha256}])
        steps.step(f"moving artifact into place: {out_root / aid}")
    return out_root / aid


# --------------------------------------------------------------------------- load and search


class ScholarArtifact(OpenedArtifact[Attribution]):
    """An opened (manifest-verified) offline artifact: search, records, materialisation."""

    backend = BACKEND

    def __init__(self, root: Path, info: ArtifactInfo, records: list[ScholarRecord],
                 statements: dict[str, Statement], attributions: dict[str, Attribution]) -> None:
        import numpy as np

        self.root = root
        self.info = info
        self.artifact_id = info.id
        self.records = records
        self._by_id = {r.id: i for i, r in enumerate(records)}
        self._statements = statements
        self._attributions = attributions
        self._years = np.array([np.nan if r.year is None else r.year for r in records], dtype=np.float64)
        self.log = MaterialisationLog()

    @cached_property
    def _index(self) -> Postings:
        return Postings.load(self.root / INDEX_DIR)

    # -- records -----------------------------------------------------------
    def __len__(self) -> int:
        return len(self.records)

    def record(self, record_id: str) -> ScholarRecord:
        try:
            return self.records[self._by_id[record_id]]
        except KeyError:
            import difflib

            close = difflib.get_close_matches(record_id, list(self._by_id), n=3, cutoff=0.6)
            hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
            raise self._unknown("record", record_id, hint) from None

    # -- search ------------------------------------------------------------
    def search(self, query: str, year_cutoff: int | None, n: int = DEFAULT_N, *,
               instance_id: str | None = None) -> SearchResult:
        """The ``n`` best records for ``query`` dated no later than ``year_cutoff`` (unknown years kept)."""
        import numpy as np

        settings = QuerySettings(backend=BACKEND, n=n, year_cutoff=year_cutoff)
        index = self._index
        ids = index.term_ids(tokenize_scholar_words(query))
        candidates: list[Candidate] = []
        if ids:
            # bm25s' float32 sums, rounded; records are stored in id order, so the position breaks ties by id
            scores = np.round(index.scores(ids, dtype=np.float32).astype(np.float64), SCORE_DECIMALS)
            if year_cutoff is not None:
                scores[self._years > year_cutoff] = 0.0
            candidates = [self.records[i].candidate(rank, score)
                          for rank, (i, score) in enumerate(top_rounded(scores, n), 1)]
        return SearchResult(artifact_id=self.artifact_id, query=query, settings=settings, timestamp=now_utc(),
                            candidates=candidates, instance_id=instance_id)

    # -- materialisation ---------------------------------------------------
    def materialise(self, record_id: str, *, instance_id: str | None = None,
                    log: MaterialisationLog | str | Path | None = None) -> Materialisation:
        """Open a selected source: its record and frozen statements; the opening is logged.

        ``log``: a :class:`MaterialisationLog`, a JSONL path to append to, or
        None for the artifact's own in-memory :attr:`log`.
        """
        rec = self.record(record_id)
        views = [StatementView(id=s.id, latex=s.latex, tool_type=s.tool_type)
                 for s in (self._statements[sid] for sid in rec.statement_ids)]
        self._log_opening(rec.id, instance_id, log)
        return Materialisation(artifact_id=self.artifact_id, record=rec, statements=views,
                               text=render_materialisation(rec, views))


def render_materialisation(rec: ScholarRecord, statements: Sequence[StatementView]) -> str:
    """The frozen text of an opened source, as an agent reads it."""
    lines = [f"# {rec.title}", ""]
    meta = [("Record", rec.id), ("Kind", rec.kind.replace("_", " ")),
            ("Authors", ", ".join(rec.authors) if rec.authors else None),
            ("Year", str(rec.year) if rec.year is not None else None), ("DOI", rec.doi), ("arXiv", rec.arxiv_id)]
    lines += [f"{k}: {v}" for k, v in meta if v]
    if rec.kind == "source" or rec.citations:
        lines += ["", "## Bibliographic record", rec.text]
    lines += ["", f"## Theorem-like statements ({len(statements)})"]
    if not statements:
        lines.append("(none frozen for this record)")
    for s in statements:
        lines += ["", f"[{s.id}] ({s.tool_type or 'statement'})", s.latex.strip()]
    return "\n".join(lines) + "\n"


def open_artifact(path: str | Path, *, verify: bool = True) -> ScholarArtifact:
    """Open an artifact folder; with ``verify`` (default) every file's sha256 is checked first."""
    from lemmata.release.manifest import read_manifest, verify_manifest

    root = Path(path)
    if not root.is_dir():
        raise InputError.one(str(root), "retrieval artifact folder does not exist; build it with "
                                        "`lemmata artifact build`")
    verify_manifest(root) if verify else read_manifest(root)
    info_path = root / INFO_FILE
    try:
        info = ArtifactInfo.model_validate(json.loads(info_path.read_text("utf-8")))
    except (OSError, ValueError) as exc:
        raise InputError.one(str(info_path), f"unreadable artifact description: {exc}") from None
    if info.tokenizer != TOKENIZER:
        raise InputError.one(str(info_path), f"artifact was built with tokenizer {info.tokenizer.get('name')} "
                                             f"v{info.tokenizer.get('version')}; this Lemmata ranks with "
                                             f"v{TOKENIZER['version']}: rebuild the artifact", field="tokenizer")
    records = [ScholarRecord.model_validate(o) for _, o in iter_jsonl(root / RECORDS_FILE)]
    if [r.id for r in records] != sorted(r.id for r in records):
        raise InputError.one(str(root / RECORDS_FILE), "records are not sorted by id")
    statements = {s.id: s for s in (Statement.model_validate(o) for _, o in iter_jsonl(root / STATEMENTS_FILE))}
    attributions = {a.instance_id: a
                    for a in (Attribution.model_validate(o) for _, o in iter_jsonl(root / ATTRIBUTIONS_FILE))}
    return ScholarArtifact(root, info, records, statements, attributions)


# --------------------------------------------------------------------------- defaults


def default_artifact_path() -> Path:
    from lemmata.core.paths import artifacts_dir

    return artifacts_dir() / artifact_id()


def default_artifact(*, build: bool = True, quiet: bool = True) -> ScholarArtifact:
    """The default offline artifact, building the release and the artifact first when missing."""
    with DEFAULT_LOCK:
        path = default_artifact_path()
        if not path.is_dir():
            if not build:
                raise LemmataError(f"retrieval artifact {artifact_id()} is not built; run `lemmata artifact build`")
            build_artifact(default_release_path(build=True, quiet=quiet), path.parent, quiet=quiet)
        return open_artifact(path)

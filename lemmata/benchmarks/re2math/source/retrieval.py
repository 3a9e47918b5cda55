"""The Re²Math source-retrieval track: proof states as queries, the offline scholarly world as the corpus (BEIR layout).

The headline Re²Math task asks a system to *find* the work a gap cites; the
theorem-retrieval track ranks statements, and this track ranks the works
themselves, in plain IR form, so any retriever can be scored on the step
"which paper holds the tool?" without running an agent:

- **corpus** — every record of one offline world: the current
  ``re2math-scholar-offline-2.2.0`` for new results (347,532 records: the
  ``math-arxiv-meta-1.1.0`` haystack, the ``math_bib`` journal and book
  records, every cited source and every citing paper, one work one record),
  or the superseded ``re2math-scholar-offline-2.1.0`` (353,842 records) and
  ``2.0.0`` (346,409 records), whose results keep their own frozen tuple. As the world's own BEIR export:
  ``_id`` (the record id), ``title`` (the shown title) and ``text`` (the shown
  author surnames). Exactly what a search hit shows, minus the year and the
  snippet: the year is left out because records dated before 1991 are all
  cited sources (arXiv begins in 1991), so a year would tell gold from
  haystack; the snippet is only authors and year again.
- **queries** — one per instance, split as the release: ``test`` = Eval-200
  (``eval200/test``), ``train`` / ``dev`` from ``pool``; four renderings with
  window m = 5 (:data:`SOURCE_VARIANTS`). New runs use ``raw-masked`` and
  ``assisted-masked`` (``text_raw_masked``, ``text_assisted_masked``): the
  instance's own cite key reads ``\\cite{?}`` (:func:`~lemmata.benchmarks.re2math.render.masked_input`),
  because the key is often author and year, a query that names the answer.
  ``raw`` and ``assisted`` (``text_raw``, ``text_assisted``: the theorem-retrieval
  track's renderings, :func:`lemmata.benchmarks.re2math.theorem.retrieval.query_row`)
  keep the key and the results made with them; a run declares its variant as
  its ``track``, so the two never share a group.
- **qrels** — each query's single relevant record is its cited source's record
  (:meth:`ScholarWorld.attribution`); one work is one record, so there is
  exactly one. In 2.2.0 every record of the cited work *is* that record (one
  work, one record: same arXiv id, or equal folded titles with agreeing
  authors, years not compared: match rule ``same_work``); in 2.1.0 only a
  same-work arXiv twin with a year on both records (same normalised title of
  five or more words, years at most three apart: ``title_year``) was, and in
  2.0.0 such twins stood apart as non-relevant records (their qrels are
  unchanged).

This is a plain IR track: **no year cutoff applies** (the agent track's
"nothing published after the citing paper" rule is a property of the search
protocol, not of a ranking over a fixed corpus), and nothing is excluded per
query — a query's own citing paper is an ordinary non-relevant record.

A world is bound to the release it was built from: the world's recorded
sha256 of the release's ``MANIFEST.json`` must match the release opened here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lemmata.core.errors import LemmataError
from lemmata.core.hashing import sha256_file
from lemmata.core.jsonl import write_jsonl
from lemmata.benchmarks.re2math.render import render_instance
from lemmata.benchmarks.re2math.theorem.retrieval import VARIANTS, WINDOW, query_row

SOURCE_BENCHMARK = "re2math-source-retrieval"
#: query split -> the release's (config, split) it is rendered from
SPLITS: dict[str, tuple[str, str]] = {"test": ("eval200", "test"), "train": ("pool", "train"),
                                      "dev": ("pool", "dev")}
#: the header ``split`` values a run may answer (train is for fitting, never scored)
SCORED_SPLITS: tuple[str, ...] = ("eval200/test", "pool/dev")
#: the query renderings a run may rank for: the masked ones (the default for new runs), then the unmasked ones
MASKED_VARIANTS: tuple[str, ...] = tuple(f"{v}-masked" for v in VARIANTS)
SOURCE_VARIANTS: tuple[str, ...] = (*MASKED_VARIANTS, *VARIANTS)
EXPORT_FILES = ("corpus.jsonl", *(f"queries/{s}.jsonl" for s in SPLITS), *(f"qrels/{s}.tsv" for s in SPLITS),
                *(f"qrels/{s}.jsonl" for s in SPLITS), "README.md")

__all__ = ["SOURCE_BENCHMARK", "SPLITS", "SCORED_SPLITS", "VARIANTS", "MASKED_VARIANTS", "SOURCE_VARIANTS", "WINDOW",
           "SourceTrack", "make_source_track", "default_source_track", "query_split", "source_query_row", "write_beir"]


def query_split(split: str) -> str:
    """The query split of a header ``split`` (``'<config>/<split>'`` of the release).

    >>> query_split("eval200/test"), query_split("pool/dev")
    ('test', 'dev')
    """
    for name, pair in SPLITS.items():
        if "/".join(pair) == split:
            return name
    raise ValueError(f"unknown split {split!r}; expected one of {['/'.join(p) for p in SPLITS.values()]}")


def source_query_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """A query of the track: the theorem-retrieval track's row plus the masked renderings (one field per variant).

    >>> q = source_query_row({"instance_id": "i", "paper_key": "p", "domain": "d", "z": {"citation_key": "K"},
    ...     "x": {"global_context": {"setup": "S", "target_theorem": r"By \\cite{K}."}, "local_context": []}})
    >>> [k for k in q if k.startswith("text_")], r"\\cite{K}" in q["text_raw"], q["text_raw_masked"].splitlines()[4]
    (['text_raw', 'text_assisted', 'text_raw_masked', 'text_assisted_masked'], True, 'By \\\\cite{?}.')
    """
    return {**query_row(row), **{f"text_{v}_masked": render_instance(row, v, WINDOW, mask_target_cite=True)
                                 for v in VARIANTS}}


def variant_field(variant: str) -> str:
    """The query row's field a variant ranks for.

    >>> variant_field("raw"), variant_field("assisted-masked")
    ('text_raw', 'text_assisted_masked')
    """
    if variant not in SOURCE_VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; expected one of {SOURCE_VARIANTS}")
    return "text_" + variant.replace("-", "_")


@dataclass(frozen=True)
class SourceTrack:
    """The track's rows: the corpus (from the world) plus queries and qrels per query split."""

    world_id: str
    release_id: str
    doc_ids: list[str]
    titles: list[str]
    authors: list[str]
    queries: dict[str, list[dict[str, Any]]]
    qrels: dict[str, list[dict[str, Any]]]

    def doc_texts(self) -> list[str]:
        """What a retriever indexes: title and author line, as the world's own BM25 does."""
        from lemmata.benchmarks.re2math.scholar.world import index_text

        return [index_text(t, a.split()) for t, a in zip(self.titles, self.authors)]

    def query_texts(self, split: str, variant: str) -> dict[str, str]:
        field = variant_field(variant)
        return {q["_id"]: q[field] for q in self.queries[split]}

    def qrels_of(self, split: str) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = {}
        for q in self.qrels[split]:
            out.setdefault(q["query-id"], {})[q["corpus-id"]] = int(q["score"])
        return out


def make_source_track(world, release) -> SourceTrack:
    """The track from an opened world (any 2.x version) and the opened release it was built from."""
    from lemmata.release.manifest import MANIFEST

    info = world.info
    rebuild = f"rebuild it with `lemmata artifact build --version {info.version}`"
    if info.release_id != release.release_id:
        raise LemmataError(f"world {info.id} was built from {info.release_id}, not from {release.release_id}; "
                           + rebuild)
    if sha256_file(Path(release.root) / MANIFEST) != info.release_manifest_sha256:
        raise LemmataError(f"world {info.id} was built from other bytes of {release.release_id} (release "
                           f"MANIFEST.json sha256 differs); " + rebuild)
    ids, titles, authors = [], [], []
    for doc in world.beir_corpus():
        ids.append(doc["_id"])
        titles.append(doc["title"])
        authors.append(doc["text"])
    queries: dict[str, list[dict[str, Any]]] = {}
    qrels: dict[str, list[dict[str, Any]]] = {}
    for split, (config, rsplit) in SPLITS.items():
        rows = release.rows(config, rsplit)
        queries[split] = [source_query_row(r) for r in rows]
        qrels[split] = [{"query-id": r["instance_id"], "corpus-id": world.attribution(r["instance_id"]).record_id,
                         "score": 1} for r in rows]
    known = set(ids)
    for split, rows in qrels.items():
        missing = [q["query-id"] for q in rows if q["corpus-id"] not in known]
        if missing:
            raise LemmataError(f"{split}: the cited sources of {missing[:3]} are not records of {info.id}")
    return SourceTrack(world_id=info.id, release_id=release.release_id, doc_ids=ids, titles=titles,
                       authors=authors, queries=queries, qrels=qrels)


_TRACKS: dict[tuple[str, str], SourceTrack] = {}


def default_source_track(release_id: str | None = None, *, build: bool = True,
                         world_id: str | None = None) -> SourceTrack:
    """The track over the served Re²Math release and a world: ``world_id`` (a 2.x world id), or the current world
    for new results (both built when missing).

    Kept once per process per (release, world) pair: both are immutable and
    verified against their manifests when opened here.
    """
    from lemmata.benchmarks.re2math.meta import RE2MATH
    from lemmata.benchmarks.re2math.scholar.worlds import CURRENT, WORLDS, current_world
    from lemmata.catalog import load_release

    declared = WORLDS.get(CURRENT) if world_id is None else WORLDS.find(world_id)
    if declared is None or declared.kind != "world":
        raise LemmataError(f"the source-retrieval track ranks the records of a 2.x offline world, not {world_id!r}")
    version = declared.version
    release = load_release(RE2MATH, release_id)
    key = (release.release_id, f"{version}")
    if key not in _TRACKS:
        _TRACKS[key] = make_source_track(current_world(build=build, quiet=True, version=version), release)
    return _TRACKS[key]


def write_beir(track: SourceTrack, out_dir: str | Path) -> list[str]:
    """Write the track as BEIR files with a dataset-card stub, loadable with ``datasets.load_dataset(out_dir, …)``.

    ``corpus.jsonl`` (``_id``, ``title``, ``text``), ``queries/<split>.jsonl``
    (``_id``, ``text_raw``, ``text_assisted``, ``paper_key``, ``domain``, ``text_raw_masked``,
    ``text_assisted_masked``),
    ``qrels/<split>.tsv`` (``query-id``, ``corpus-id``, ``score``; what BEIR
    tools read) with the same rows as ``qrels/<split>.jsonl`` (what the
    ``qrels`` config loads: ``load_dataset`` picks one reader for a folder, and
    the folder is mostly JSON Lines) and a ``README.md`` whose YAML names the
    configs ``corpus``, ``queries``, ``qrels`` and records the sha256 of every
    file written.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    write_jsonl(out / "corpus.jsonl", ({"_id": i, "title": t, "text": a}
                                       for i, t, a in zip(track.doc_ids, track.titles, track.authors)))
    for split in SPLITS:
        write_jsonl(out / "queries" / f"{split}.jsonl", track.queries[split])
        (out / "qrels").mkdir(parents=True, exist_ok=True)
        with open(out / "qrels" / f"{split}.tsv", "w", encoding="utf-8", newline="\n") as fh:
            fh.write("query-id\tcorpus-id\tscore\n")
            for q in track.qrels[split]:
                fh.write(f"{q['query-id']}\t{q['corpus-id']}\t{q['score']}\n")
        write_jsonl(out / "qrels" / f"{split}.jsonl", track.qrels[split])
    hashes = {name: sha256_file(out / name) for name in EXPORT_FILES if name != "README.md"}
    (out / "README.md").write_text(card(track, hashes), encoding="utf-8", newline="\n")
    return list(EXPORT_FILES)


def card(track: SourceTrack, hashes: Mapping[str, str]) -> str:
    """The card stub of an export: configs for ``load_dataset``, what the files are, and their sha256."""
    from lemmata.benchmarks.re2math.scholar.worlds import world_id

    def files(config: str, names: list[tuple[str, str]]) -> str:
        rows = "".join(f"  - split: {s}\n    path: {p}\n" for s, p in names)
        return f"- config_name: {config}\n  data_files:\n{rows}"

    yaml = ("---\nconfigs:\n" + files("corpus", [("corpus", "corpus.jsonl")])
            + files("queries", [(s, f"queries/{s}.jsonl") for s in SPLITS])
            + files("qrels", [(s, f"qrels/{s}.jsonl") for s in SPLITS]) + "---\n")
    counts = ", ".join(f"{s} {len(track.queries[s])}" for s in SPLITS)
    twins = ("" if track.world_id == world_id("2.0.0") else " A cited work's same-work arXiv twin\n  (same "
             "normalised title of five or more words, years at most three apart) is that record.")
    sums = "\n".join(f"| `{name}` | `{digest}` |" for name, digest in hashes.items())
    return f"""{yaml}
# {SOURCE_BENCHMARK} (BEIR export)

Frozen tuple: dataset release `{track.release_id}`, corpus = retrieval artifact `{track.world_id}`.
Written by `lemmata artifact export-beir`; rebuild it with the same command.

- **corpus** (`corpus.jsonl`, {len(track.doc_ids):,} records): every record of `{track.world_id}`; `_id` is the
  record id, `title` the shown title, `text` the shown author surnames. No year, no abstract: both differ in
  distribution between cited sources and the arXiv haystack, so they would tell the answer's origin.
- **queries** (`queries/<split>.jsonl`): one per Re²Math instance, `text_raw` / `text_assisted` = the Raw and
  Assisted renderings with window m = {WINDOW}, and `text_raw_masked` / `text_assisted_masked` = the same with the
  instance's own cite key read as `\\cite{{?}}` (the track's default variants: the key often names the answer);
  `test` = Eval-200, `train` / `dev` from `pool` ({counts}).
- **qrels** (`qrels/<split>.tsv` for BEIR tools, the same rows as `qrels/<split>.jsonl` for `load_dataset`): each
  query's one relevant record is its cited source's record.{twins}

No year cutoff applies (plain IR over a fixed corpus). Submissions go through `lemmata score` with header
`benchmark: {SOURCE_BENCHMARK}` (see `submissions/baselines/README.md`).

| file | sha256 |
|---|---|
{sums}
"""

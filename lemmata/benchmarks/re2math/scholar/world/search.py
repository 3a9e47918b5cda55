"""An opened world: search (year-prefix BM25), open, the scorer's identity view, and reading a verified folder.

Records are stored ordered by year, unknown years first, so
``search(query, cutoff)`` scores a *prefix* of the index: records dated after
the cutoff are never scored, unknown years always are. Scores come from the one
BM25 engine (:class:`~lemmata.retrievers.bm25.postings.Postings`, summed in
float64), rounded to six decimals, ties broken by record id ascending.
:class:`ScholarWorld` shows 2.0.0's hit and opening; a later version overrides
what it shows (:class:`~lemmata.benchmarks.re2math.scholar.world.v2_1.search.UniformWorld`).
Each version's ``open_world`` reads its folder through :func:`read_world`.
"""

from __future__ import annotations

import json
import threading
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from concurrent.futures import Future
from functools import cached_property
from pathlib import Path
from typing import Any

from lemmata.core.errors import InputError, Problem
from lemmata.core.jsonl import iter_jsonl, write_jsonl
from lemmata.release.parquet import read_row_group, read_table, row_group_starts
from lemmata.retrievers.bm25 import SCHOLAR_WORDS_TOKENIZER, Postings, tokenize_scholar_words
from lemmata.retrievers.bm25.postings import Rankings
from lemmata.benchmarks.re2math.scholar.layout import ARTIFACT_NAME, INDEX_DIR, INFO_FILE
from lemmata.benchmarks.re2math.scholar.openings import MaterialisationLog, OpenedArtifact
from lemmata.benchmarks.re2math.scholar.querycache import DEFAULT_N, Candidate, QuerySettings, SearchResult, now_utc
from lemmata.benchmarks.re2math.scholar.world.info import (
    ATTRIBUTIONS_FILE, BACKEND, DISTRACTOR_RELEASE, IDENTITY_FILE, RECORDS_FILE, WorldInfo,
)
from lemmata.benchmarks.re2math.scholar.world.scorer import Identity, WorldAttribution
from lemmata.benchmarks.re2math.scholar.world.view import OpenedRecord, ScholarSearch, render_opened, snippet


class ScholarWorld(OpenedArtifact[WorldAttribution]):
    """An opened (manifest-verified) world: search, open, and the scorer's identity view."""

    backend = BACKEND

    def __init__(self, root: Path, info: WorldInfo) -> None:
        import numpy as np

        self.root = root
        self.info = info
        self.artifact_id = info.id
        cols = read_table(root / RECORDS_FILE, ["id", "title", "authors", "year"])
        self._id_column = cols["id"]
        self._ids = self._id_column.to_pylist()
        self._titles = cols["title"]
        self._authors = cols["authors"]
        self._year = known_years(cols["year"])
        if np.any(np.diff(self._year) < 0):
            raise InputError.one(str(root / RECORDS_FILE), "records are not in year order (unknown years first)",
                                 field="year")
        self.log = MaterialisationLog()
        #: the records file's row groups (first rows, then the count): openings read their columns a group at a time
        self._groups = row_group_starts(root / RECORDS_FILE)
        self._group_locks = [threading.Lock() for _ in self._groups[1:]]
        self._group_columns: list[Any] = [None for _ in self._groups[1:]]
        self._group_reads: dict[int, Future] = {}  # groups read for :meth:`opening_ready`'s callers
        self._reads_lock = threading.Lock()

    @cached_property
    def _by_id(self) -> dict[str, int]:
        """Record id -> position, made on the first lookup (searching needs none)."""
        return {rid: i for i, rid in enumerate(self._ids)}

    # -- index -------------------------------------------------------------
    @cached_property
    def _index(self) -> Postings:
        """The BM25 postings, memory-mapped from the (already verified) index folder."""
        return Postings.load(self.root / INDEX_DIR)

    def prefetch_search(self) -> None:
        """Map the index and read its vocabulary now, on the calling thread (a world opening in the background
        for an agent run), rather than in the first search: that search is an answer's next step, and reading the
        vocabulary (0.03–0.06 s) there holds every next request of the run back."""
        self._index  # noqa: B018 - the cached property's first read loads it

    def _prefix(self, cutoff: int | None) -> int:
        import numpy as np

        return len(self._year) if cutoff is None else int(np.searchsorted(self._year, cutoff, side="right"))

    def _ranked_rows(self, top: list[tuple[int, float]]) -> Iterator[tuple[int, int, float, str, list[str]]]:
        """``(rank, position, score, title, authors)`` of each ranked record, read value by value (a handful of
        values: one lookup each costs less than a ``take`` across the columns' chunks, which concatenates them)."""
        titles, authors = self._titles, self._authors
        return ((rank, p, score, titles[p].as_py(), authors[p].as_py()) for rank, (p, score) in enumerate(top, 1))

    def _hit(self, rank: int, p: int, score: float, title: str, authors: list[str]) -> dict[str, Any]:
        """The fields of one hit, as plain values: the answer is validated once, hits and all, in
        :meth:`_answer` (pydantic's core builds every hit there; a model built per hit costs more, and
        ``model_construct`` more still)."""
        year = int(self._year[p]) if self._year[p] >= 0 else None
        return {"id": self._ids[p], "rank": rank, "score": score, "title": title, "authors": authors, "year": year,
                "snippet": snippet(authors, year)}

    def _hits(self, top: list[tuple[int, float]]) -> list[dict[str, Any]]:
        """The fields of each hit of a ranking (:meth:`_hit`)."""
        return [self._hit(*row) for row in self._ranked_rows(top)]

    def _answers(self, queries: Sequence[tuple[str, int | None, int]], ranked: Rankings) -> list[ScholarSearch]:
        """:meth:`_answer` of every query of a batch from its rankings end to end: the hits' titles and authors
        come from one ``take`` per column for the whole batch (read value by value, each costs several times
        more)."""
        titles = self._titles.take(ranked.positions).to_pylist()
        authors = self._authors.take(ranked.positions).to_pylist()
        positions, scores, bounds = ranked.positions.tolist(), ranked.scores.tolist(), ranked.starts.tolist()
        hit, model = self._hit, self._search_model
        return [model.model_validate({"artifact_id": self.artifact_id, "query": q, "cutoff": c, "n": n,
                                      "hits": [hit(i - lo + 1, positions[i], scores[i], titles[i], authors[i])
                                               for i in range(lo, hi)]})
                for (q, c, n), lo, hi in zip(queries, bounds, bounds[1:])]

    def __len__(self) -> int:
        return len(self._ids)

    #: what a search answers (2.1 answers its uniform hits)
    _search_model: type[ScholarSearch] = ScholarSearch
    #: per-position integers that break score ties where positions are not in id order (None: by position)
    _tie_rank = None

    def _top(self, query: str, cutoff: int | None, n: int) -> list[tuple[int, float]]:
        """``(position, rounded score)`` of the ``n`` best records for ``query`` under ``cutoff``: the ranking
        alone, which forked batch workers send back (the hits are built where they are returned)."""
        return self._rank(*self._terms(query, cutoff), n)

    def _terms(self, query: str, cutoff: int | None) -> tuple[list[int], int]:
        """The query's distinct known term rows and the number of records its cutoff keeps: what :meth:`_rank`
        scores (a threaded batch prepares them here, where the tokenizer holds the interpreter lock anyway)."""
        return self._index.term_ids(tokenize_scholar_words(query)), self._prefix(cutoff)

    def _rank(self, ids: list[int], end: int, n: int) -> list[tuple[int, float]]:
        """``(position, rounded score)`` of the ``n`` best of the first ``end`` records for term rows ``ids``."""
        return self._index.top(ids, n, end, tie_rank=self._tie_rank) if ids else []

    def _rank_batch(self, prepared: Sequence[tuple[list[int], int, int]]) -> Rankings:
        """:meth:`_rank` of every ``(ids, end, n)``, end to end (one compiled call where the index has one)."""
        return self._index.top_batch(prepared, tie_rank=self._tie_rank)

    def shown(self, pos: int, score: float = 1.0) -> Any:
        """The record at ``pos`` exactly as a search shows it as its first hit (what the audit and the tests read
        for every record, without searching)."""
        hit_model = self._search_model.model_fields["hits"].annotation.__args__[0]  # list[<the world's hit>]
        return hit_model(**self._hits([(pos, score)])[0])

    def _answer(self, query: str, cutoff: int | None, n: int, top: list[tuple[int, float]]) -> ScholarSearch:
        return self._search_model.model_validate({"artifact_id": self.artifact_id, "query": query, "cutoff": cutoff,
                                                  "n": n, "hits": self._hits(top)})

    def search(self, query: str, cutoff: int | None, n: int = DEFAULT_N) -> ScholarSearch:
        """The ``n`` best records for ``query`` dated no later than ``cutoff`` (unknown years kept)."""
        if n < 1:
            raise InputError.one("n", f"n must be at least 1, got {n}", field="n")
        return self._answer(query, cutoff, n, self._top(query, cutoff, n))

    def search_batch(self, queries: Sequence[tuple[str, int | None, int]], *,
                     workers: int | None = None) -> list[ScholarSearch]:
        """Many ``(query, cutoff, n)`` at once, in order; exactly the hits :meth:`search` gives for each.

        Every ``n`` is checked before any query runs. Where the index ranks
        through its compiled kernel (numba installed), scoring releases the
        interpreter lock and a batch is ranked in chunks, each in one compiled
        call, on ``workers`` threads (default: the usable cores, at most one per
        :data:`~lemmata.benchmarks.re2math.scholar.world.parallel.MIN_PER_WORKER` queries), while this thread
        tokenizes the next chunk and builds the hits of those ranked, a chunk at a time. Otherwise a query's
        scoring holds the interpreter lock for most of its time (the frozen tokenizer's
        regular expressions, the gathers and sums), so threads gain nothing; a
        large batch is instead ranked by ``workers`` processes (default: the
        usable cores, at most one per :data:`~lemmata.benchmarks.re2math.scholar.world.parallel.MIN_PER_WORKER`
        queries): this one and ``workers - 1`` forked ones, which share the
        mapped index with it and send back positions and scores only. By
        default the workers start only where the batch's first queries show
        that they pay (:func:`~lemmata.benchmarks.re2math.scholar.world.parallel.batch_rankings`).
        ``workers=1`` (or a platform without ``fork``) runs the loop here.
        """
        from lemmata.benchmarks.re2math.scholar.world.parallel import batch_rankings
        from lemmata.core.collection import collection_paused

        for i, (_, _, n) in enumerate(queries):
            if n < 1:
                raise InputError.one("queries", f"n must be at least 1, got {n}", line=i + 1, field="n")
        self._index  # opened before any fork, so every worker shares its vocabulary and mapped arrays
        out: list[ScholarSearch] = []
        for ranked in batch_rankings(self, queries, workers):  # consecutive chunks of the batch, in order
            with collection_paused():  # every answer built is kept: collections would find nothing to free
                out += self._answers(queries[len(out):len(out) + ranked.starts.size - 1], ranked)
        return out

    def search_result(self, query: str, year_cutoff: int | None, n: int = DEFAULT_N, *,
                      instance_id: str | None = None) -> SearchResult:
        """The same search as a query-cache :class:`SearchResult` (for recording and replay); every candidate
        has the one kind ``scholar_result`` and no field beyond the hit's."""
        res = self.search(query, year_cutoff, n)
        cands = [Candidate(id=h.id, rank=h.rank, score=h.score, kind="scholar_result", title=h.title, text=h.snippet,
                           authors=list(h.authors), year=h.year) for h in res.hits]
        return SearchResult(artifact_id=self.artifact_id, query=query, timestamp=now_utc(), candidates=cands,
                            settings=QuerySettings(backend=BACKEND, n=n, year_cutoff=year_cutoff),
                            instance_id=instance_id)

    # -- opening -----------------------------------------------------------
    def _group(self, pos: int) -> int:
        return bisect_right(self._groups, pos) - 1

    def _open_columns(self, group: int):
        """The :attr:`_OPEN_COLUMNS` of one row group of the records file, read on the first opening in it (or by
        :meth:`prefetch_openings`); a caller that comes while another thread reads that group waits for the read.

        A group at a time: abstracts are most of the file (224 MB decoded on world 2.2.0), and decoding all of them
        for a first opening took 0.2–1.2 s of both cores, where one group of 65,536 records takes 0.03 s of one.
        """
        with self._group_locks[group]:
            if self._group_columns[group] is None:
                self._group_columns[group] = read_row_group(self.root / RECORDS_FILE, group, list(self._OPEN_COLUMNS))
            return self._group_columns[group]

    def prefetch_openings(self) -> None:
        """Start reading the opening columns, group by group, on a background thread, for a caller that will open
        records soon (an agent run): Arrow decodes them without the interpreter lock, so the reads overlap that
        caller's other work (its requests' waits) instead of stalling its first openings."""
        if any(c is None for c in self._group_columns):
            threading.Thread(target=lambda: [self._open_columns(g) for g in range(len(self._group_columns))],
                             name="lemmata-world-openings", daemon=True).start()

    def opening_ready(self, record_id: str) -> Future | None:
        """None where opening ``record_id`` reads nothing (its row group's columns are in), else a future done
        once they are, read on a background thread (or by :meth:`prefetch_openings`, reading it already): a
        caller with other work to do (an agent run's other requests) opens the record then, where an opening
        now would wait for that read (0.03–0.3 s of one core)."""
        group = self._group(self.position(record_id))
        if self._group_columns[group] is not None:
            return None
        with self._reads_lock:
            read = self._group_reads.get(group)
            if read is None:
                read = self._group_reads[group] = Future()

                def run() -> None:
                    try:
                        self._open_columns(group)
                    except BaseException as exc:  # the opening raises it again where it is asked
                        read.set_exception(exc)
                    else:
                        read.set_result(None)

                threading.Thread(target=run, name="lemmata-world-opening", daemon=True).start()
        return None if read.done() else read  # a read that failed: the opening reads again and raises its error

    def position(self, record_id: str) -> int:
        try:
            return self._by_id[record_id]
        except KeyError:
            raise self._unknown("record", record_id) from None

    def open(self, record_id: str, *, instance_id: str | None = None,
             log: MaterialisationLog | str | Path | None = None) -> OpenedRecord:
        """Open a record: its bibliographic data and abstract where one exists; the opening is logged.

        ``log``: a :class:`MaterialisationLog`, a JSONL path to append to, or
        None for the world's own in-memory :attr:`log`.
        """
        pos = self.position(record_id)
        rec = self._opened(pos)
        self._log_opening(record_id, instance_id, log)
        return rec

    #: the columns an opening adds to a hit's (a row group's read once, on the first opening in it)
    _OPEN_COLUMNS: tuple[str, ...] = ("arxiv_id", "doi", "abstract")
    #: records converted per block when every record is opened
    _OPEN_BLOCK = 1 << 15

    def _opened(self, pos: int) -> OpenedRecord:
        group = self._group(pos)
        columns, row = self._open_columns(group), pos - self._groups[group]
        return self._record(pos, self._titles[pos].as_py(), self._authors[pos].as_py(),
                            {c: columns[c][row].as_py() for c in self._OPEN_COLUMNS})

    def _record(self, pos: int, title: str, authors: list[str], extra: dict[str, Any]) -> OpenedRecord:
        """The opened record at ``pos`` from its title, authors and :attr:`_OPEN_COLUMNS` values."""
        year = int(self._year[pos]) if self._year[pos] >= 0 else None
        arxiv, doi, abstract = extra["arxiv_id"], extra["doi"], extra["abstract"]
        return OpenedRecord(artifact_id=self.artifact_id, id=self._ids[pos], title=title, authors=authors, year=year,
                            arxiv_id=arxiv, doi=doi, abstract=abstract,
                            text=render_opened(title, authors, year, arxiv, doi, abstract, self._ids[pos]))

    def iter_opened(self) -> Iterator[OpenedRecord]:
        """Every record as it opens, in storage order, without logging (audits and exports): the same records
        :meth:`open` gives, read a block of columns at a time rather than one value at a time (a row group's
        opening columns are read for the walk, not kept, unless an opening has read them already)."""
        step = self._OPEN_BLOCK
        for group, (first, end) in enumerate(zip(self._groups, self._groups[1:])):
            columns = self._group_columns[group]
            if columns is None:
                columns = read_row_group(self.root / RECORDS_FILE, group, list(self._OPEN_COLUMNS))
            for start in range(first, end, step):
                n = min(step, end - start)
                titles = self._titles.slice(start, n).to_pylist()
                authors = self._authors.slice(start, n).to_pylist()
                cols = {c: columns[c].slice(start - first, n).to_pylist() for c in self._OPEN_COLUMNS}
                for k, (title, auth) in enumerate(zip(titles, authors)):
                    yield self._record(start + k, title, auth, {c: v[k] for c, v in cols.items()})

    # -- scorer's view -----------------------------------------------------
    @cached_property
    def _identities(self) -> dict[str, Identity]:
        return {i.record_id: i for i in (Identity.model_validate(o) for _, o in iter_jsonl(self.root / IDENTITY_FILE))}

    @cached_property
    def _attributions(self) -> dict[str, WorldAttribution]:
        return {a.instance_id: a for a in (WorldAttribution.model_validate(o)
                                            for _, o in iter_jsonl(self.root / ATTRIBUTIONS_FILE))}

    def identity(self, record_id: str) -> Identity | None:
        """What a record stands for (None: a distractor only)."""
        self.position(record_id)
        return self._identities.get(record_id)

    def is_cited_source(self, instance_id: str, record_id: str) -> bool:
        """Is ``record_id`` the instance's cited source (one work, one record: identity is record equality)?"""
        self.position(record_id)
        return self.attribution(instance_id).record_id == record_id

    def is_citing_paper(self, instance_id: str, record_id: str) -> bool:
        """Is ``record_id`` the instance's own citing paper (an inadmissible source)?"""
        self.position(record_id)
        return self.attribution(instance_id).citing_record_id == record_id

    def beir_corpus(self) -> Iterator[dict[str, str]]:
        """The searchable records as a BEIR corpus (``_id``, ``title``, ``text`` = the indexed author line)."""
        for pos, rid in enumerate(self._ids):
            yield {"_id": rid, "title": self._titles[pos].as_py(), "text": " ".join(self._authors[pos].as_py())}

    def write_beir_corpus(self, path: str | Path) -> Path:
        return write_jsonl(path, self.beir_corpus())

    def describe(self) -> dict[str, Any]:
        """``lemmata artifact info``: id, record count, composition and build settings."""
        i = self.info
        return {"id": i.id, "schema_version": i.schema_version, "records": len(self), "composition": i.composition,
                "built_from": {"release": i.release_id, "distractors": i.distractor_release_id},
                "backend": i.backend, "tokenizer": {"name": i.tokenizer["name"], "version": i.tokenizer["version"]},
                "presentation": i.presentation, "year_policy": i.year_policy}


def known_years(column) -> "np.ndarray":
    """Each record's year as int64, -1 where unknown (null, or NaN in a float column). An integer column is read
    from its Arrow buffers (:func:`arrow_ints`): pyarrow's own conversion imports pandas, a large import (and
    about 80 MB) that nothing else of an open needs.

    >>> import pyarrow as pa
    >>> known_years(pa.chunked_array([pa.array([None, 1999], pa.int16()), pa.array([2001, None], pa.int16())]))
    array([  -1, 1999, 2001,   -1])
    >>> known_years(pa.chunked_array([[None, 2.0, float("nan")]])).tolist()
    [-1, 2, -1]
    """
    import numpy as np
    import pyarrow as pa

    if pa.types.is_signed_integer(column.type):
        values, known = arrow_ints(column)
        return values if known is None else np.where(known, values, -1)
    years = column.to_numpy(zero_copy_only=False)
    known = ~np.isnan(years.astype(np.float64)) if years.dtype.kind == "f" else np.ones(len(years), bool)
    return np.where(known, np.nan_to_num(years, nan=-1), -1).astype(np.int64)


def arrow_ints(column) -> "tuple[np.ndarray, np.ndarray | None]":
    """A signed integer Arrow column's values as int64 and which are set (None: every one), read from its buffers
    (pyarrow's ``to_numpy`` imports pandas; a null's value is undefined).

    >>> import pyarrow as pa
    >>> values, known = arrow_ints(pa.chunked_array([pa.array([3, None, 5], pa.int16())]).slice(1))
    >>> values[known].tolist(), known.tolist(), arrow_ints(pa.chunked_array([[7, 8]]))[1]
    ([5], [False, True], None)
    """
    import numpy as np

    arr = column.combine_chunks()
    start, size = arr.offset, len(arr)
    values = np.frombuffer(arr.buffers()[1], np.dtype(f"int{arr.type.bit_width}"), start + size)[start:]
    if arr.null_count == 0:
        return values.astype(np.int64), None
    bits = np.unpackbits(np.frombuffer(arr.buffers()[0], np.uint8), bitorder="little")
    return values.astype(np.int64), bits[start:start + size].view(bool)


def check_world_manifest(root: Path, manifest, info: WorldInfo, *, version: str, builder_version: str,
                         verify: bool = True, manifest_sha256: str | None = None) -> None:
    """Refuse a world whose MANIFEST.json disagrees with its (hashed) ``ARTIFACT.json`` or with this builder.

    Always: the ids agree. With ``verify``: name, version, builder and builder
    version, and each input's name, url and sha256 — the inputs the
    description names (:meth:`WorldInfo.sources`), and no other input;
    ``ARTIFACT.json`` names this builder's world and version; and, where the
    version pins it, MANIFEST.json's own sha256 (``manifest_sha256``).
    """
    from lemmata.core.hashing import sha256_file
    from lemmata.release.manifest import MANIFEST, ManifestExpectation, field_problems

    info_path = root / INFO_FILE
    if manifest.release_id != info.id:
        raise InputError.one(str(info_path), f"ARTIFACT.json describes {info.id}, MANIFEST.json {manifest.release_id}",
                             field="id")
    if not verify:
        return
    sources = {s["name"]: (s["url"], s["sha256"] or "") for s in info.sources()}
    expect = ManifestExpectation(release_id=info.id, name=ARTIFACT_NAME, version=version, builder=info.builder,
                                 builder_version=builder_version, sources=sources)
    problems = field_problems(manifest, root / MANIFEST, expect)
    found = sha256_file(root / MANIFEST) if manifest_sha256 else None
    if found is not None and found != manifest_sha256:
        # every per-file check passes on a folder rewritten consistently; the pin of the manifest's bytes does not
        problems.insert(0, Problem(str(root / MANIFEST), f"world folder {root} is not the pinned {info.id} build: "
                                   f"MANIFEST.json sha256 {found[:12]}… differs from the pin {manifest_sha256[:12]}…",
                                   field="manifest_sha256"))
    if len(manifest.sources) != len(sources):
        inputs = "two input releases" if len(sources) == 2 else f"{len(sources)} inputs"
        problems.append(Problem(str(root / MANIFEST), f"a world names exactly its {inputs}", field="sources"))
    if info.name != ARTIFACT_NAME or info.version != version or info.builder_version != builder_version:
        problems.append(Problem(str(info_path), f"describes {info.name} {info.version} (builder "
                                                f"{info.builder_version}); this Lemmata builds {ARTIFACT_NAME} "
                                                f"{version} (builder {builder_version})", field="name"))
    if problems:
        raise InputError(problems)


def read_world(path: str | Path, model: type[WorldInfo], *, version: str, builder_version: str, verify: bool = True,
               manifest_sha256: str | None = None) -> tuple[Path, WorldInfo]:
    """A world folder's root and verified ``ARTIFACT.json`` (as ``model``): every file's sha256 against MANIFEST.json
    (with ``verify``), every MANIFEST.json field and the manifest's pinned sha256 by :func:`check_world_manifest` and
    the tokenizer against this Lemmata's."""
    from lemmata.release.manifest import read_manifest, verify_manifest

    root = Path(path)
    if not root.is_dir():
        raise InputError.one(str(root), "retrieval artifact folder does not exist; build it with "
                                        f"`lemmata artifact build --version {version}`")
    manifest = verify_manifest(root) if verify else read_manifest(root)
    info_path = root / INFO_FILE
    try:
        info = model.model_validate(json.loads(info_path.read_text("utf-8")))
    except (OSError, ValueError) as exc:
        raise InputError.one(str(info_path), f"unreadable artifact description: {exc}") from None
    check_world_manifest(root, manifest, info, version=version, builder_version=builder_version, verify=verify,
                         manifest_sha256=manifest_sha256)
    if info.tokenizer != SCHOLAR_WORDS_TOKENIZER:
        raise InputError.one(str(info_path), f"artifact was built with tokenizer {info.tokenizer.get('name')} "
                                             f"v{info.tokenizer.get('version')}; this Lemmata ranks with "
                                             f"v{SCHOLAR_WORDS_TOKENIZER['version']}: rebuild the artifact",
                             field="tokenizer")
    return root, info


def default_distractor_path(*, build: bool = True, quiet: bool = True, release_id: str = DISTRACTOR_RELEASE) -> Path:
    """The distractor release (``math-arxiv-meta``, by default the one 2.0.0 and 2.1.0 are built on), resolved
    through the registry and built when missing."""
    from lemmata.catalog import release_path
    from lemmata.families import get_benchmark

    return release_path(get_benchmark(release_id), build=build, quiet=quiet)


class WorldBackend:
    """A world as a :class:`~lemmata.benchmarks.re2math.scholar.querycache.SearchBackend`, for recording and replay.

    Answers ``search(query, year_cutoff, n)`` with a :class:`SearchResult`
    whose candidates all have the one kind ``scholar_result`` and carry only
    the hit's fields; ``world`` keeps the full API (open, identity).
    """

    def __init__(self, world: ScholarWorld) -> None:
        self.world = world
        self.artifact_id = world.artifact_id
        self.backend = world.backend

    def search(self, query: str, year_cutoff: int | None, n: int = DEFAULT_N, *,
               instance_id: str | None = None) -> SearchResult:
        return self.world.search_result(query, year_cutoff, n, instance_id=instance_id)

"""BEIR collections (corpus, queries, qrels) and retrieval runs, read and validated with line numbers.

The BEIR layout is the lingua franca of text retrieval: ``corpus.jsonl``
(``{"_id", "title"?, "text"}``), ``queries.jsonl`` (``{"_id", "text"}``) and
``qrels/<split>.tsv`` (header ``query-id corpus-id score``) or its JSONL twin.
Every reader here reports every defect at once (file, line, field), and
:func:`validate_runs` checks a system's rankings against a collection before
any metric sees them, so a score is never computed from ids that do not exist.

Ranking order in a run is not trusted: metrics rank by score (descending) and
break ties by document id (ascending), so only the scores matter.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lemmata.core.errors import InputError, Problem

#: stop collecting after this many problems (the first ones are enough to fix a file)
MAX_PROBLEMS = 200
#: longest ranking accepted per query (deeper ranks never change a @k<=1000 metric)
MAX_RANKING_DEPTH = 1000


class _Problems:
    """A capped problem list that raises once, at the end."""

    def __init__(self) -> None:
        self.items: list[Problem] = []

    def add(self, file: str, reason: str, line: int | None = None, field: str | None = None) -> None:
        if len(self.items) < MAX_PROBLEMS:
            self.items.append(Problem(file, reason, line, field))
        elif len(self.items) == MAX_PROBLEMS:
            self.items.append(Problem(file, f"stopped after {MAX_PROBLEMS} problems"))

    def raise_if_any(self) -> None:
        if self.items:
            raise InputError(self.items)


def _where(first: tuple[str, int], current_file: str) -> str:
    """'line 3', or 'line 3 of other.jsonl' when the first occurrence is in another shard."""
    name, line = first
    return f"line {line}" if name == current_file else f"line {line} of {name}"


def _as_id(value: Any) -> str | None:
    """BEIR ids are strings; integer ids (common in older files) are read as their decimal string.

    >>> _as_id(12), _as_id("q1"), _as_id(True), _as_id("")
    ('12', 'q1', None, None)
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str) and value != "":
        return value
    return None


Paths = str | Path | Sequence[str | Path]


def _paths(paths: Paths) -> list[Path]:
    return [Path(paths)] if isinstance(paths, (str, Path)) else [Path(p) for p in paths]


def _records(paths: Paths, label: str | None) -> Iterator[tuple[str, int, dict[str, Any]]]:
    """``(file label, line, record)`` over one file or several shards of one table."""
    from lemmata.formats.datafiles import iter_records

    files = _paths(paths)
    for path in files:
        name = label if (label and len(files) == 1) else (f"{label}:{path.name}" if label else str(path))
        for line, rec in iter_records(path, label=name):
            yield name, line, rec


def corpus_features(*, with_title: bool):
    """Pinned features of a BEIR corpus table (``title`` nullable when present)."""
    from datasets import Features, Value

    cols = {"_id": Value("string")}
    if with_title:
        cols["title"] = Value("string")
    cols["text"] = Value("string")
    return Features(cols)


def queries_features():
    from datasets import Features, Value

    return Features({"_id": Value("string"), "text": Value("string")})


def qrels_features():
    from datasets import Features, Value

    return Features({"query-id": Value("string"), "corpus-id": Value("string"), "score": Value("int32")})


def excluded_features():
    from datasets import Features, List, Value

    return Features({"query-id": Value("string"), "excluded-ids": List(Value("string"))})


# -- corpus and queries ----------------------------------------------------------

@dataclass(frozen=True)
class Doc:
    doc_id: str
    text: str
    title: str | None = None


def _by_id(paths: Paths, label: str | None, what: str, value: Callable[..., Any]) -> dict[str, Any]:
    """``value(id, record, reject)`` of every record by its ``_id``, in file order.

    A missing or repeated id is a problem of its line; ``value`` reports a bad record
    through ``reject(reason, field)`` (which returns None) and the record is left out.
    """
    problems = _Problems()
    out: dict[str, Any] = {}
    first_line: dict[str, tuple[str, int]] = {}
    for name, line, rec in _records(paths, label):
        key = _as_id(rec.get("_id"))
        if key is None:
            problems.add(name, f"missing or empty {what} id (a non-empty string)", line, "_id")
            continue
        item = value(key, rec, lambda reason, field: problems.add(name, reason, line, field))
        if item is None:
            continue
        if key in out:
            problems.add(name, f"duplicate {what} id {key!r} (first on {_where(first_line[key], name)})", line, "_id")
            continue
        out[key] = item
        first_line[key] = (name, line)
    problems.raise_if_any()
    return out


def _doc(doc_id: str, rec: dict[str, Any], reject: Callable[[str, str], None]) -> Doc | None:
    text, title = rec.get("text"), rec.get("title")
    if not isinstance(text, str):
        return reject("missing text (a string)" if text is None else "text must be a string", "text")
    if title is not None and not isinstance(title, str):
        return reject("title must be a string", "title")
    return Doc(doc_id, text, title)


def _query(qid: str, rec: dict[str, Any], reject: Callable[[str, str], None]) -> str | None:
    text = rec.get("text")
    if not isinstance(text, str) or not text.strip():
        return reject("missing or empty query text", "text")
    return text


def read_corpus(paths: Paths, *, label: str | None = None) -> dict[str, Doc]:
    """Documents by id, in file order; ``title`` is optional, ``text`` required (may be empty)."""
    return _by_id(paths, label, "document", _doc)


def read_queries(paths: Paths, *, label: str | None = None) -> dict[str, str]:
    """Query text by id, in file order."""
    return _by_id(paths, label, "query", _query)


# -- qrels ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Qrel:
    query_id: str
    doc_id: str
    score: int
    line: int
    file: str = ""


def _int_score(value: Any) -> int | None:
    """Graded relevance as an int; ``"1"``, ``1`` and ``1.0`` are 1, anything fractional is rejected.

    >>> _int_score("2"), _int_score(1.0), _int_score(0.5), _int_score(True)
    (2, 1, None, None)
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return None
        return int(number) if math.isfinite(number) and number.is_integer() else None
    return None


def read_qrels(paths: Paths, *, label: str | None = None) -> list[Qrel]:
    """Judgements from BEIR qrels files: TSV with a ``query-id corpus-id score`` header, or JSONL/Parquet."""
    problems = _Problems()
    rows: list[tuple[str, int, dict[str, Any]]] = []
    for path in _paths(paths):
        if path.name.endswith(".tsv"):
            name = label if label and isinstance(paths, (str, Path)) else (label or str(path))
            rows.extend((name, line, rec) for line, rec in _tsv_rows(path, name, problems))
        else:
            rows.extend(_records(path, label))
    out: list[Qrel] = []
    seen: dict[tuple[str, str], tuple[str, int]] = {}
    for name, line, rec in rows:
        qid, did = _as_id(rec.get("query-id")), _as_id(rec.get("corpus-id"))
        score = _int_score(rec.get("score"))
        bad = False
        if qid is None:
            problems.add(name, "missing or empty query id", line, "query-id")
            bad = True
        if did is None:
            problems.add(name, "missing or empty document id", line, "corpus-id")
            bad = True
        if score is None:
            problems.add(name, f"relevance must be an integer, got {rec.get('score')!r}", line, "score")
            bad = True
        if bad:
            continue
        if (qid, did) in seen:
            problems.add(name, f"duplicate judgement of ({qid!r}, {did!r}) (first on {_where(seen[qid, did], name)})",
                         line, "corpus-id")
            continue
        seen[qid, did] = (name, line)
        out.append(Qrel(qid, did, score, line, name))
    problems.raise_if_any()
    return out


def _tsv_rows(path: Path, name: str, problems: _Problems) -> Iterator[tuple[int, dict[str, Any]]]:
    with open(path, encoding="utf-8", newline="") as fh:
        reader = csv.reader(fh, delimiter="\t", quoting=csv.QUOTE_NONE)
        header = next(reader, None)
        if header is None:
            problems.add(name, "empty qrels file; expected a 'query-id<TAB>corpus-id<TAB>score' header", 1)
            return
        if [h.strip() for h in header] != ["query-id", "corpus-id", "score"]:
            problems.add(name, f"header must be 'query-id<TAB>corpus-id<TAB>score', got {header!r}", 1)
            return
        for cells in reader:
            line = reader.line_num
            if not cells or all(not c.strip() for c in cells):
                continue
            if len(cells) != 3:
                problems.add(name, f"expected 3 tab-separated fields, got {len(cells)}", line)
                continue
            yield line, {"query-id": cells[0], "corpus-id": cells[1], "score": cells[2]}


def qrels_by_query(qrels: Iterable[Qrel]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for q in qrels:
        out.setdefault(q.query_id, {})[q.doc_id] = q.score
    return out


# -- a whole collection -------------------------------------------------------------

@dataclass
class Collection:
    """One BEIR test collection, checked for consistency.

    ``excluded`` holds per-query document ids that are not candidates for that
    query (a *dynamic corpus*, e.g. the query's own post in a duplicate-question
    task); they are removed from the corpus for that query only.
    """

    corpus: dict[str, Doc]
    queries: dict[str, str]
    qrels: dict[str, dict[str, int]]
    excluded: dict[str, frozenset[str]] = field(default_factory=dict)

    @property
    def judged_queries(self) -> list[str]:
        """Queries with at least one positive judgement, in query-file order (the evaluated queries)."""
        return [q for q in self.queries if any(s > 0 for s in self.qrels.get(q, {}).values())]


def check_collection(
    corpus: dict[str, Doc], queries: dict[str, str], qrels: list[Qrel], *, qrels_label: str,
    excluded: dict[str, frozenset[str]] | None = None, excluded_lines: dict[str, int] | None = None,
    excluded_label: str = "excluded_ids",
) -> Collection:
    """Every judged id must exist; an excluded document must never be a positive of its own query."""
    problems = _Problems()
    for q in qrels:
        if q.query_id not in queries:
            problems.add(q.file or qrels_label, f"query id {q.query_id!r} is not in the queries file", q.line,
                         "query-id")
        if q.doc_id not in corpus:
            problems.add(q.file or qrels_label, f"document id {q.doc_id!r} is not in the corpus", q.line, "corpus-id")
    excluded = excluded or {}
    for qid, ids in excluded.items():
        line = (excluded_lines or {}).get(qid)
        if qid not in queries:
            problems.add(excluded_label, f"query id {qid!r} is not in the queries file", line, "query-id")
        unknown = sorted(i for i in ids if i not in corpus)
        if unknown:
            problems.add(excluded_label, f"{len(unknown)} excluded id(s) are not in the corpus, e.g. {unknown[0]!r}",
                         line, "excluded-ids")
    by_query = qrels_by_query(qrels)
    for qid, ids in excluded.items():
        clash = sorted(d for d, s in by_query.get(qid, {}).items() if s > 0 and d in ids)
        if clash:
            problems.add(excluded_label, f"relevant document {clash[0]!r} of query {qid!r} is excluded for it",
                         (excluded_lines or {}).get(qid), "excluded-ids")
    problems.raise_if_any()
    return Collection(corpus=corpus, queries=queries, qrels=by_query, excluded=dict(excluded))


def read_excluded(paths: Paths, *, label: str | None = None) -> tuple[dict[str, frozenset[str]], dict[str, int]]:
    """Per-query excluded document ids (``{"query-id", "excluded-ids": [...]}``) and each query's line."""
    problems = _Problems()
    out: dict[str, frozenset[str]] = {}
    lines: dict[str, int] = {}
    for name, line, rec in _records(paths, label):
        qid = _as_id(rec.get("query-id"))
        ids = rec.get("excluded-ids")
        if qid is None:
            problems.add(name, "missing or empty query id", line, "query-id")
            continue
        if not isinstance(ids, list) or any(_as_id(i) is None for i in ids):
            problems.add(name, "excluded-ids must be a list of document ids", line, "excluded-ids")
            continue
        if qid in out:
            problems.add(name, f"duplicate query id {qid!r} (first on line {lines[qid]})", line, "query-id")
            continue
        out[qid] = frozenset(_as_id(i) for i in ids)  # type: ignore[misc]
        lines[qid] = line
    problems.raise_if_any()
    return out, lines


# -- runs -------------------------------------------------------------------------------

@dataclass(frozen=True)
class RunRecord:
    """One query's ranking as submitted: where it came from, and ``doc id -> score``."""

    query_id: str
    scores: dict[str, float]
    line: int


def check_ranking(
    rec: dict[str, Any], *, file: str, line: int, collection: Collection, problems: list[Problem],
) -> dict[str, float] | None:
    """Validate one ``{"query_id", "ranking": [{"doc_id", "score"}, ...]}`` record; None when it has problems.

    Field paths in problems are the record's own (``ranking[3].score``).
    """
    before = len(problems)
    qid = _as_id(rec.get("query_id"))
    if qid is None:
        problems.append(Problem(file, "missing or empty query id (a string)", line, "query_id"))
    elif qid not in collection.queries:
        problems.append(Problem(file, f"unknown query id {qid!r}", line, "query_id"))
    ranking = rec.get("ranking")
    if not isinstance(ranking, list):
        problems.append(Problem(file, "ranking must be a list of {doc_id, score} objects", line, "ranking"))
        return None
    if len(ranking) > MAX_RANKING_DEPTH:
        problems.append(Problem(file, f"ranking has {len(ranking)} entries; at most {MAX_RANKING_DEPTH} are accepted",
                                line, "ranking"))
        return None
    excluded = collection.excluded.get(qid or "", frozenset())
    scores: dict[str, float] = {}
    where: dict[str, int] = {}
    for i, entry in enumerate(ranking):
        path = f"ranking[{i}]"
        if not isinstance(entry, dict):
            problems.append(Problem(file, "expected a {doc_id, score} object", line, path))
            continue
        extra = sorted(set(entry) - {"doc_id", "score"})
        if extra:
            problems.append(Problem(file, f"unknown field {extra[0]!r}", line, f"{path}.{extra[0]}"))
        did = _as_id(entry.get("doc_id"))
        score = entry.get("score")
        if did is None:
            problems.append(Problem(file, "missing or empty document id (a string)", line, f"{path}.doc_id"))
        elif did not in collection.corpus:
            problems.append(Problem(file, f"unknown document id {did!r}", line, f"{path}.doc_id"))
        elif did in excluded:
            problems.append(Problem(file, f"document {did!r} is excluded for query {qid!r} (dynamic corpus); "
                                          "remove it from this ranking", line, f"{path}.doc_id"))
        elif did in where:
            problems.append(Problem(file, f"duplicate document id {did!r} (also at ranking[{where[did]}])",
                                    line, f"{path}.doc_id"))
        if isinstance(score, bool) or not isinstance(score, (int, float)):
            problems.append(Problem(file, "score must be a number", line, f"{path}.score"))
        elif not math.isfinite(score):
            problems.append(Problem(file, f"score must be finite, got {score!r}", line, f"{path}.score"))
        if did is not None and did not in where:
            where[did] = i
            if isinstance(score, (int, float)) and not isinstance(score, bool) and math.isfinite(score):
                scores[did] = float(score)
    return scores if len(problems) == before else None


def validate_runs(
    records: Iterable[tuple[int, dict[str, Any]]], *, file: str, collection: Collection,
    problems: list[Problem], extra_fields: Iterable[str] = (),
) -> dict[str, RunRecord]:
    """Check every record against ``collection``; one record per query (a repeat names the first line).

    A record has ``query_id`` and ``ranking`` (plus ``extra_fields``, checked by the caller); any other field is
    reported as unknown.
    """
    allowed = {"query_id", "ranking", *extra_fields}
    out: dict[str, RunRecord] = {}
    first: dict[str, int] = {}
    for line, rec in records:
        for key in sorted(set(rec) - allowed):
            problems.append(Problem(file, "unknown field", line, key))
        scores = check_ranking(rec, file=file, line=line, collection=collection, problems=problems)
        qid = _as_id(rec.get("query_id"))
        if qid is None:
            continue
        if qid in first:
            problems.append(Problem(file, f"duplicate ranking for query {qid!r} (first on line {first[qid]})",
                                    line, "query_id"))
            continue
        first[qid] = line
        if scores is not None:
            out[qid] = RunRecord(qid, scores, line)
    return out


def iter_trec_run(path: str | Path, *, label: str | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """A TREC run file (``qid Q0 docid rank score tag``) as ranking records, one per query, with its first line.

    Lines of one query must be contiguous, as trec_eval writes them.
    """
    path = Path(path)
    name = label or str(path)
    problems = _Problems()
    current: tuple[int, dict[str, Any]] | None = None
    last: str | None = None
    done: set[str] = set()
    records: list[tuple[int, dict[str, Any]]] = []
    with open(path, encoding="utf-8") as fh:
        for line, raw in enumerate(fh, start=1):
            if not raw.strip():
                continue
            cells = raw.split()
            if len(cells) != 6:
                problems.add(name, f"expected 6 whitespace-separated fields (qid Q0 docid rank score tag), "
                                   f"got {len(cells)}", line)
                continue
            qid, _, did, _, score_text, _ = cells
            if qid != last:
                if qid in done:
                    problems.add(name, f"lines of query {qid!r} are not contiguous", line, "query_id")
                    continue
                if last is not None:
                    done.add(last)
                last = qid
            try:
                score: Any = float(score_text)
            except ValueError:
                problems.add(name, f"score {score_text!r} is not a number", line, "score")
                continue
            if current is None or current[1]["query_id"] != qid:
                if current is not None:
                    records.append(current)
                current = (line, {"query_id": qid, "ranking": []})
            current[1]["ranking"].append({"doc_id": did, "score": score})
    if current is not None:
        records.append(current)
    problems.raise_if_any()
    yield from records

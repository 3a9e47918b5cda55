"""Leaderboard data: rows from the store index, grouped by frozen tuple, ranked, filtered, sorted, exported.

A *group* is every row sharing ``FrozenTuple.group_key()`` — release, split,
retrieval artifact and scoring artifact — and the declared conditions that change
comparability (:mod:`lemmata.space.conditions`); ranks are computed within a
group only, over all of its visible rows, before any search or filter: a search
narrows what is listed, never what a rank means. Equal scores share a rank
(1, 2, 2, 4); rows with no computable score yet are listed unranked.

A group lists each declared system once (:func:`newest_per_system`): a system submitted again — the same
:meth:`~lemmata.formats.results.ModelInfo.identity` — is shown by its newest entry, as a model has one row on
MTEB's board; keeping its best entry instead would rank the maximum over attempts.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Literal
from urllib.parse import urlencode

from pydantic import BaseModel, ConfigDict

from lemmata.formats.names import near_duplicates, skeleton
from lemmata.metrics.bounds import PendingBounds
from lemmata.metrics.ranks import tie_counts
from lemmata.space.conditions import PrintedAggregate, printed_aggregate, view_group_key
from lemmata.space.hub_results import HubGroup, HubResults, hub_targets
from lemmata.space.judges import JudgeNote, judge_note, judged_for, load_calibrations
from lemmata.space.rank_ranges import SYNC_CACHE, RankRangeCache
from lemmata.space.safety import csv_cell, csv_line
from lemmata.space.rows import ROW_SUMMARY
from lemmata.store import ResultIntegrityError, Store

#: which source a view lists: every one, a paper's reported rows, rows scored here, or results reported on the Hub
KindFilter = Literal["all", "reported", "scored", "hub"]
SORT_KEYS = ("rank", "model", "kind", "date", "pending", "n", "params", "dim")
#: the declared model metadata a column shows (sort key -> ``ModelInfo`` field)
MODEL_COLUMNS = {"params": "parameters", "dim": "dimension"}
DEFAULT_SORT = "rank:asc"
MAX_DIAGNOSTICS = 16
_METRIC_KEY = re.compile(r"^[A-Za-z0-9_.@ ()\-]{1,80}$")


@dataclass(frozen=True)
class BoardRow:
    """One line of a board group, read from a verified result (or a paper's reported row)."""

    #: which result, of which submission file, and whether it was scored here or reported
    result_id: str
    submission_sha256: str
    kind: str
    #: where it ranks: the group is the frozen tuple it shares with every row it is compared with
    benchmark: str
    track: str
    group_key: str
    frozen: dict[str, Any]
    model_name: str
    model_url: str | None
    model_revision: str | None
    #: the main number with its interval, and how many items it covers (pending ones are not in it)
    metric: str
    value: float | None
    interval: tuple[float, float] | None
    interval_kind: str | None
    count: int | None
    total: int | None
    pending: int
    #: complete or pending, when, and which version of the result (corrections are new versions)
    status: str
    scored_at: str
    version: int
    metrics: dict[str, Any]
    breakdowns: dict[str, Any]
    notes: tuple[str, ...]
    main_detail: dict[str, Any] = field(default_factory=dict)
    flags: dict[str, Any] = field(default_factory=dict)
    hidden: bool = False
    rank: int | None = None
    #: why the stored file failed its integrity check (then the row carries no numbers), else None
    integrity: str | None = None
    #: other model names on this board that look the same (equal confusable skeleton, different text)
    look_alike: tuple[str, ...] = ()
    #: confirmed so far and the most that could still count, for a row with pending items (None: not known)
    bounds: PendingBounds | None = None
    #: the declared model record (``ModelInfo`` as stored: kind, parameters, open weights, licence, …)
    model: dict[str, Any] = field(default_factory=dict)
    #: the main metric per item, sorted by item id, and a digest of those ids (None: the items do not give the
    #: headline, e.g. a reported row); what the rank range resamples
    item_scores: tuple[str, tuple[float, ...]] | None = None
    #: the 95% rank range under a paired bootstrap over items (None: no per-item scores, or not computed yet)
    rank_range: tuple[int, int] | None = None
    #: how many other ranked entries of the group have an overlapping rank range
    ties: int = 0
    #: the id of the judge that decided the columns its family declares judge-decided (None: no judge recorded)
    judge: str | None = None
    #: the rubric ids that judge decided them under (its calibration must have been measured under each)
    judge_rubrics: tuple[str, ...] = ()
    #: an LLM run's tokens and price as its request log reports them (``RunUsage`` as stored; empty: none)
    usage: dict[str, Any] = field(default_factory=dict)
    #: other headlines the group may be ranked by, label -> value (``Family.headlines``: TaoBench's pass@k, k ≤ n)
    headlines: dict[str, Any] = field(default_factory=dict)

    # derived once per row (a board of 10,000 rows asks for each several times); :func:`ranked_copy` drops them

    @cached_property
    def printed(self) -> PrintedAggregate | None:
        """The printed aggregate and its recomputed value, when the headline is a paper's printed aggregate."""
        return printed_aggregate(self.value, self.flags, self.metrics)

    @cached_property
    def rank_value(self) -> float | None:
        """What the rank is computed from: the recomputed aggregate where there is one, else the score."""
        printed = self.printed
        return printed.recomputed if printed is not None else self.value

    @cached_property
    def identity(self) -> str:
        """The row's declared system identity (:func:`identity_of`)."""
        return identity_of(self)

    @cached_property
    def view_key(self) -> str:
        """The group this row is ranked in: the frozen tuple plus the declared conditions that split groups."""
        return view_group_key(self.group_key, self.flags)

    @property
    def date(self) -> str:
        return str(self.frozen.get("date", ""))

    @property
    def short_id(self) -> str:
        return self.result_id[:12]


@dataclass(frozen=True)
class BoardGroup:
    key: str
    frozen: dict[str, Any]
    rows: tuple[BoardRow, ...]
    total_rows: int
    diagnostics: tuple[str, ...]
    higher_is_better: bool = True
    metric: str = ""
    conditions: str = ""
    #: False while the group's rank ranges are still being computed (the board re-renders when they arrive)
    ranges_ready: bool = True
    #: the group's judge-decided columns and the calibration of each judge that decided them (None: no such column)
    judges: JudgeNote | None = None

    @property
    def pending_total(self) -> int:
        return sum(r.pending for r in self.rows)

    @property
    def counts(self) -> dict[str, int]:
        return {"reported": sum(r.kind == "reported" for r in self.rows),
                "scored": sum(r.kind == "scored" for r in self.rows)}


class BoardQuery(BaseModel):
    """One view of the leaderboard; its URL form reopens the same view."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    benchmark: str | None = None
    track: str | None = None
    group: str = ""
    search: str = ""
    sort: str = DEFAULT_SORT
    kind: KindFilter = "all"
    show_all: bool = False
    #: only models that declare open weights
    open_weights: bool = False
    #: only models that declare at most this many parameters ('' = any size; e.g. '1e9')
    max_params: str = ""
    #: rank by another headline the entries offer (e.g. 'pass@128 (tao)'); '' = the stored headline
    headline: str = ""

    def to_params(self) -> dict[str, str]:
        """Non-default fields, as URL query parameters."""
        out = {"all": "1"} if self.show_all else {}
        if self.open_weights:
            out["open"] = "1"
        for key, default in (("benchmark", None), ("track", None), ("group", ""), ("search", ""),
                             ("sort", DEFAULT_SORT), ("kind", "all"), ("max_params", ""), ("headline", "")):
            value = getattr(self, key)
            if value not in (None, "", default):
                out[key] = str(value)
        return out

    def query_string(self) -> str:
        """``?benchmark=…&track=…`` (empty when every field is default).

        >>> BoardQuery(benchmark="re2math", track="raw", search="gpt 5").query_string()
        '?benchmark=re2math&track=raw&search=gpt+5'
        """
        params = self.to_params()
        return "?" + urlencode(params) if params else ""


def parse_sort(sort: str) -> tuple[str, bool]:
    """``(column, descending)`` from ``column:dir``; unknown text falls back to rank.

    >>> parse_sort("model:desc"), parse_sort("m.ground:asc"), parse_sort("x;drop"), parse_sort("date")
    (('model', True), ('m.ground', False), ('rank', False), ('date', False))
    """
    column, _, direction = (sort or "").partition(":")
    valid = column in SORT_KEYS or (column.startswith("m.") and _METRIC_KEY.match(column[2:])) or (
        column.startswith("u.") and column[2:] in USAGE_COLUMNS)
    if not valid:
        return "rank", False
    return column, direction == "desc"


def row_from_index(row: Mapping[str, Any]) -> BoardRow:
    """A board row from one ``Store.result_rows()`` entry (its ``summary_json`` carries the display data)."""
    if row.get("integrity"):
        return _integrity_row(row)
    summary = json.loads(row.get("summary_json") or "{}")
    main = summary.get("main", {})
    model = summary.get("model", {})
    interval = main.get("interval")
    return BoardRow(
        result_id=row["result_id"], submission_sha256=row["submission_sha256"], kind=row["kind"],
        benchmark=row["benchmark"], track=row["track"], group_key=row["group_key"],
        frozen=summary.get("frozen", {}), model_name=row["model_name"], model_url=model.get("url"),
        model_revision=model.get("revision"), metric=main.get("metric", ""), value=row["main_value"],
        interval=tuple(interval) if interval else None, interval_kind=main.get("interval_kind"),
        count=main.get("count"), total=main.get("total"), pending=int(row["pending"]), status=row["status"],
        scored_at=row["scored_at"], version=int(row["version"]), metrics=summary.get("metrics", {}),
        breakdowns=summary.get("breakdowns", {}), notes=tuple(summary.get("notes", [])),
        main_detail=summary.get("main_detail", {}), hidden=bool(row.get("hidden", 0)),
        flags=summary.get("flags") if isinstance(summary.get("flags"), dict) else {},
        bounds=_bounds(summary.get("bounds")),
        model=model if isinstance(model, dict) else {},
        item_scores=_item_scores(summary.get("item_scores")),
        judge=summary["judge"] if isinstance(summary.get("judge"), str) else None,
        judge_rubrics=tuple(r for r in summary.get("judge_rubrics") or () if isinstance(r, str)),
        headlines=summary["headlines"] if isinstance(summary.get("headlines"), dict) else {},
        usage=summary["usage"] if isinstance(summary.get("usage"), dict) else {},
    )


def _item_scores(doc: Any) -> tuple[str, tuple[float, ...]] | None:
    if not isinstance(doc, dict) or not isinstance(doc.get("items"), str) or not isinstance(doc.get("values"), list):
        return None
    return doc["items"], tuple(map(float, doc["values"]))


def _bounds(doc: Any) -> PendingBounds | None:
    try:
        return PendingBounds.model_validate(doc) if isinstance(doc, dict) else None
    except ValueError:
        return None


def _integrity_row(row: Mapping[str, Any]) -> BoardRow:
    """A row whose stored file failed its integrity check: identity only, no numbers, no rank."""
    return BoardRow(
        result_id=row["result_id"], submission_sha256=row["submission_sha256"], kind=row["kind"],
        benchmark=row["benchmark"], track=row["track"], group_key=row["group_key"], frozen={},
        model_name=row["model_name"], model_url=None, model_revision=None, metric="", value=None, interval=None,
        interval_kind=None, count=None, total=None, pending=0, status="integrity_error", scored_at="",
        version=int(row["version"]), metrics={}, breakdowns={},
        notes=(f"integrity error: {row['integrity']}",), hidden=bool(row.get("hidden", 0)),
        integrity=str(row["integrity"]),
    )


def load_rows(store: Store, *, include_hidden: bool = False) -> list[BoardRow]:
    """The board rows of every listed result; a row indexed without a summary (by a store opened without
    :data:`~lemmata.space.rows.ROW_SUMMARY`, e.g. the CLI's) is summarised from its verified file."""
    rows = []
    for row in store.result_rows(include_hidden=include_hidden):
        if row.get("summary_json") is None and not row.get("integrity"):
            try:
                doc = store.verified_document(row)
            except ResultIntegrityError as exc:  # changed since it was listed
                row = {**row, "integrity": exc.reason}
            else:
                row = {**row, "summary_json": json.dumps(ROW_SUMMARY.of(doc), default=str)}
        board_row = row_from_index(row)
        # derived here, once: the space keeps these rows per store generation, so no page view derives them again
        board_row.identity, board_row.view_key, board_row.rank_value  # noqa: B018
        skeleton(board_row.model_name)  # the look-alike check's, kept by name
        rows.append(board_row)
    return rows


def higher_is_better(benchmark: str) -> bool:
    from lemmata.families import UnknownNameError, get_benchmark

    try:
        return get_benchmark(benchmark).main_score.higher_is_better
    except UnknownNameError:
        return True


def ranked_copy(row: BoardRow, **ranking: Any) -> BoardRow:
    """``row`` with its rank fields (``rank``, ``rank_range``, ``ties``) set: :func:`dataclasses.replace` without
    re-running the constructor over every field, which a board of 10,000 rows pays for each row on each view.

    >>> base = row_from_index({"result_id": "a", "submission_sha256": "0" * 64, "kind": "scored",
    ...     "benchmark": "b", "track": "t", "group_key": "g", "model_name": "m", "main_value": 0.5,
    ...     "pending": 0, "status": "complete", "scored_at": "", "version": 1})
    >>> ranked = ranked_copy(base, rank=2, ties=1)
    >>> (ranked.rank, ranked.ties, base.rank, ranked == replace(base, rank=2, ties=1))
    (2, 1, None, True)
    """
    unknown = set(ranking) - {"rank", "rank_range", "ties"}
    if unknown:
        raise TypeError(f"ranked_copy sets rank fields only, not {sorted(unknown)}")
    new = object.__new__(BoardRow)
    new.__dict__.update(row.__dict__)  # its derived values (identity, view_key, rank_value) hold: no field they
    # read changes
    new.__dict__.update(ranking)
    return new


def rank_rows(rows: Sequence[BoardRow], higher_is_better: bool = True,
              ranges: Mapping[str, tuple[int, int]] | None = None) -> list[BoardRow]:
    """Rows with ``rank`` set: 1 + the number of rows strictly better; no score, no rank. ``ranges`` (by result id)
    sets each row's ``rank_range`` and ``ties``, the number of other rows whose range overlaps it (one copy of
    each row: a board of 10,000 rows copies them once).

    >>> from dataclasses import replace
    >>> base = row_from_index({"result_id": "a", "submission_sha256": "0" * 64, "kind": "scored",
    ...     "benchmark": "b", "track": "t", "group_key": "g", "model_name": "m", "main_value": None,
    ...     "pending": 0, "status": "complete", "scored_at": "", "version": 1})
    >>> rows = [replace(base, result_id=i, value=v) for i, v in [("a", .5), ("b", .7), ("c", .5), ("d", None)]]
    >>> [(r.result_id, r.rank) for r in rank_rows(rows)]
    [('b', 1), ('a', 2), ('c', 2), ('d', None)]
    """
    import bisect
    from dataclasses import replace

    scored = sorted(v for r in rows if (v := r.rank_value) is not None and not math.isnan(v))
    spans = [ranges.get(r.result_id) for r in rows] if ranges else [None] * len(rows)
    ties = tie_counts(spans)
    out = []
    for r, span, tie in zip(rows, spans, ties):
        value = r.rank_value
        if value is None or math.isnan(value):
            out.append(ranked_copy(r, rank=None))
            continue
        better = (len(scored) - bisect.bisect_right(scored, value)) if higher_is_better \
            else bisect.bisect_left(scored, value)
        out.append(ranked_copy(r, rank=1 + better, rank_range=span, ties=tie))
    return sorted(out, key=lambda r: (r.rank is None, r.rank or 0, r.model_name.casefold(), r.result_id))


def _matches(row: BoardRow, terms: list[str]) -> bool:
    hay = " ".join([row.model_name, row.model_url or "", row.model_revision or "", row.result_id,
                    row.submission_sha256, row.kind, row.status, row.date]).casefold()
    return all(t in hay for t in terms)


def model_matches(model: Mapping[str, Any], open_only: bool, max_params: str) -> bool:
    """Whether a row's declared model passes the metadata filters (an undeclared value never passes a filter on it).

    >>> model_matches({"parameters": 7e6, "open_weights": True}, True, "1e8"), model_matches({}, False, "")
    (True, True)
    >>> model_matches({"parameters": 7e9}, False, "1e9"), model_matches({}, False, "1e9"), model_matches({}, True, "")
    (False, False, False)
    """
    if open_only and model.get("open_weights") is not True:
        return False
    if max_params:
        try:
            ceiling = float(max_params)
        except ValueError:
            return True  # an unreadable ceiling (a hand-edited URL) filters nothing
        n = model.get("parameters")
        if isinstance(n, bool) or not isinstance(n, (int, float)) or n > ceiling:
            return False
    return True


def _sort_value(row: BoardRow, column: str) -> Any:
    if column == "rank":
        return (row.rank is None, row.rank or 0)
    if column == "model":
        return row.model_name.casefold()
    if column == "kind":
        return row.kind
    if column == "date":
        return row.date
    if column == "pending":
        return row.pending
    if column == "n":
        return row.total or 0
    if column in MODEL_COLUMNS:
        return row.model.get(MODEL_COLUMNS[column])
    if column.startswith("u."):
        return usage_number(row, column[2:])
    value = row.metrics.get(column[2:])
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return (1, str(value) if value is not None else "")
    return (0, value)


def sort_rows(rows: Sequence[BoardRow], sort: str) -> list[BoardRow]:
    """Stable display order; missing values always last, ties by official rank then model."""
    column, desc = parse_sort(sort)
    base = sorted(rows, key=lambda r: (r.rank is None, r.rank or 0, r.model_name.casefold(), r.result_id))
    if column == "rank" and not desc:
        return base
    present = [r for r in base if not _is_missing(r, column)]
    missing = [r for r in base if _is_missing(r, column)]
    return sorted(present, key=lambda r: _sort_value(r, column), reverse=desc) + missing


def _is_missing(row: BoardRow, column: str) -> bool:
    if column == "rank":
        return row.rank is None
    if column.startswith("m."):
        return row.metrics.get(column[2:]) is None
    if column.startswith("u."):
        return usage_number(row, column[2:]) is None
    if column in MODEL_COLUMNS:
        value = row.model.get(MODEL_COLUMNS[column])
        return isinstance(value, bool) or not isinstance(value, (int, float))
    return False


def diagnostic_columns(rows: Iterable[BoardRow], limit: int = MAX_DIAGNOSTICS) -> tuple[str, ...]:
    """Numeric metrics shown as columns: the most common first, then in the handler's order; never the main one."""
    seen: dict[str, int] = {}
    mains = set()
    for r in rows:
        mains.add(r.metric)
        for key, value in r.metrics.items():
            if isinstance(value, (int, float)) and not isinstance(value, bool) and _METRIC_KEY.match(key):
                seen[key] = seen.get(key, 0) + 1
    order = {k: i for i, k in enumerate(seen)}
    ordered = sorted((k for k in seen if k not in mains), key=lambda k: (-seen[k], order[k]))
    return tuple(ordered[:limit])


@dataclass(frozen=True)
class BoardView:
    query: BoardQuery
    groups: tuple[BoardGroup, ...]
    benchmarks: tuple[str, ...]
    tracks: tuple[str, ...]
    group_keys: tuple[str, ...]
    matched: int
    total: int
    notices: tuple[str, ...] = field(default_factory=tuple)
    #: the Hub-reported results of the view's releases, each dataset's leaderboard its own group (never ranked here)
    hub: tuple[HubGroup, ...] = ()
    #: why no Hub-reported result is listed (offline, not read yet), '' when they were read
    hub_status: str = ""
    #: the other headlines the view's entries offer (the Headline menu), in natural order
    headlines: tuple[str, ...] = ()

    @property
    def rows(self) -> list[BoardRow]:
        return [r for g in self.groups for r in g.rows]


def normalize_query(rows: Sequence[BoardRow], query: BoardQuery,
                    catalog: Mapping[str, Sequence[str]] | None = None) -> tuple[BoardQuery, list[str]]:
    """The query with an unknown benchmark/track/group replaced by an available one, and why.

    ``catalog`` lists registered benchmarks and their tracks, so an empty board
    can still be selected; without a benchmark in the query the first one with
    entries is chosen.
    """
    catalog = catalog or {}
    notices: list[str] = []
    present = {r.benchmark for r in rows}
    benchmarks = list(catalog) + sorted(present - set(catalog))  # the catalog's order, then the rest
    with_rows = [b for b in benchmarks if b in present]
    bench = query.benchmark
    if bench not in benchmarks:
        if bench:
            notices.append(f"Unknown benchmark {bench!r}." if not benchmarks
                           else f"Unknown benchmark {bench!r}; showing {(with_rows or benchmarks)[0]!r}.")
        bench = (with_rows or benchmarks or [None])[0]
    tracks = _tracks(rows, catalog, bench)
    track = query.track
    if track not in tracks:
        present = {r.track for r in rows if r.benchmark == bench}
        fallback = ([t for t in tracks if t in present] or tracks or [None])[0]
        if track:
            notices.append(f"No track {track!r} in {bench}; showing {fallback!r}." if fallback
                           else f"No track {track!r} in {bench}.")
        track = fallback
    keys = sorted({r.view_key for r in rows if r.benchmark == bench and r.track == track})
    group = query.group
    if group and group not in keys:
        notices.append("That frozen-tuple group has no entries here; showing all groups.")
        group = ""
    column, desc = parse_sort(query.sort)
    sort = f"{column}:{'desc' if desc else 'asc'}"
    return query.model_copy(update={"benchmark": bench, "track": track, "group": group, "sort": sort}), notices


def _tracks(rows: Sequence[BoardRow], catalog: Mapping[str, Sequence[str]], bench: str | None) -> list[str]:
    found = {r.track for r in rows if r.benchmark == bench}
    listed = list(catalog.get(bench, ())) if bench else []
    return listed + sorted(found - set(listed))


def identity_of(row: BoardRow) -> str:
    """The row's declared system identity (reported rows from a paper share a name only when they name the same
    system, so they are keyed like any other)."""
    from lemmata.formats.results import ModelInfo

    try:
        return ModelInfo.model_validate(row.model or {"name": row.model_name}).identity()
    except ValueError:
        return ModelInfo(name=row.model_name[:200] or "?").identity()


def newest_per_system(rows: Sequence[BoardRow]) -> tuple[list[BoardRow], int]:
    """One row per system in each group — benchmark, track, group (conditions included), kind and declared model
    identity — the newest by receipt day, then scoring time; and how many earlier entries that leaves out.

    A paper's reported row and a scored submission are never taken for one another (the kind is in the key), and
    a row whose file failed its integrity check is always listed (it has no identity to trust). Input order is
    kept.

    >>> base = row_from_index({"result_id": "a", "submission_sha256": "0" * 64, "kind": "scored",
    ...     "benchmark": "b", "track": "t", "group_key": "g", "model_name": "static", "main_value": 0.4,
    ...     "pending": 0, "status": "complete", "scored_at": "2026-11-20T10:00:00", "version": 1})
    >>> again = replace(base, result_id="b", value=0.5, scored_at="2026-11-21T09:00:00")
    >>> other = replace(base, result_id="c", model_name="bm25")
    >>> kept, left_out = newest_per_system([base, other, again])
    >>> [r.result_id for r in kept], left_out
    (['c', 'b'], 1)
    """
    newest: dict[tuple[str, ...], BoardRow] = {}
    for r in rows:
        if r.integrity:
            continue
        key = (r.benchmark, r.track, r.view_key, r.kind, r.identity)
        if key not in newest or (_date_key(r), r.scored_at, r.result_id) > (
                _date_key(newest[key]), newest[key].scored_at, newest[key].result_id):
            newest[key] = r
    kept_ids = {id(r) for r in newest.values()}
    kept = [r for r in rows if r.integrity or id(r) in kept_ids]
    return kept, len(rows) - len(kept)


def build_view(rows: Sequence[BoardRow], query: BoardQuery,
               catalog: Mapping[str, Sequence[str]] | None = None, ranges: RankRangeCache | None = None,
               hub: HubResults | None = None) -> BoardView:
    """Filter, group, rank and sort rows for one benchmark and track; each group's rank ranges come from
    ``ranges`` (a space's own cache, computing large groups in the background), else are computed here. ``hub``
    adds the Hub-reported results of the view's releases, each dataset's leaderboard in a group of its own."""
    query, notices = normalize_query(rows, query, catalog)
    selected, earlier = newest_per_system([r for r in rows if r.benchmark == query.benchmark and r.track == query.track])
    offered = headline_labels(selected)
    if query.headline and query.headline not in offered:
        notices.append(f"No entry here offers the headline {query.headline!r}; ranked by the stored headline.")
        query = query.model_copy(update={"headline": ""})
    if query.headline:
        selected = [with_headline(r, query.headline) for r in selected]
    selected = _flag_look_alikes(selected)
    if earlier:
        notices.append(f"{earlier} earlier entr{'y' if earlier == 1 else 'ies'} of a system submitted again "
                       "(same model identity, same group) not listed: each system shows its newest entry.")
    by_group: dict[str, list[BoardRow]] = {}
    for r in selected:
        by_group.setdefault(r.view_key, []).append(r)
    terms = [t for t in query.search.casefold().split() if t]
    groups = []
    matched = 0
    higher = higher_is_better(query.benchmark) if query.benchmark else True
    judged = judged_for(query.benchmark)
    calibrations = load_calibrations() if judged else None  # read once per view (and re-read only when changed)
    # newest release first, then key: the group a visitor most likely wants comes first
    for key in sorted(by_group, key=lambda k: (-max(_date_key(r) for r in by_group[k]), k)):
        if (query.group and key != query.group) or query.kind == "hub":
            continue
        spans = (ranges or SYNC_CACHE).get(by_group[key], higher)
        ranked = rank_rows(by_group[key], higher, spans)
        shown = [r for r in ranked if (query.kind == "all" or r.kind == query.kind) and _matches(r, terms)
                 and model_matches(r.model, query.open_weights, query.max_params)]
        matched += len(shown)
        frozen = {k: v for k, v in next((r.frozen for r in ranked if r.frozen), {}).items() if k != "date"}
        metric, diagnostics = next((r.metric for r in ranked if r.metric), ""), diagnostic_columns(ranked)
        groups.append(BoardGroup(key=key, frozen=frozen, rows=tuple(sort_rows(shown, query.sort)),
                                 total_rows=len(ranked), diagnostics=diagnostics,
                                 higher_is_better=higher, metric=metric,
                                 conditions=key[len(ranked[0].group_key) + 3:] if key != ranked[0].group_key else "",
                                 ranges_ready=spans is not None,
                                 judges=judge_note(judged, (metric, *diagnostics), ranked, calibrations)
                                 if judged else None))
    alike = sorted({r.model_name for r in selected if r.look_alike})
    if alike:
        notices.append(f"{len(alike)} model names look like another name on this board (same characters to a "
                       "reader, different text): marked ⚠ — check which entry is which.")
    broken = sum(1 for r in selected if r.integrity)
    if broken:
        notices.append(f"{broken} entr{'y' if broken == 1 else 'ies'} failed the integrity check (the stored file "
                       "no longer matches its content hash): shown without numbers and left out of the exports.")
    return BoardView(
        query=query, groups=tuple(groups),
        benchmarks=tuple(list(catalog or {}) + sorted({r.benchmark for r in rows} - set(catalog or {}))),
        tracks=tuple(_tracks(rows, catalog or {}, query.benchmark)),
        group_keys=tuple(sorted(by_group)), matched=matched, total=len(selected), notices=tuple(notices),
        headlines=offered,
        **_hub_part(hub, query, by_group, terms),
    )


def headline_labels(rows: Iterable[BoardRow]) -> tuple[str, ...]:
    """Every other headline the rows offer, in natural order (``pass@2`` before ``pass@10``).

    >>> r = BoardRow.__new__(BoardRow)
    >>> object.__setattr__(r, "headlines", {"pass@10 (tao)": 0.2, "pass@2 (tao)": 0.1})
    >>> headline_labels([r])
    ('pass@2 (tao)', 'pass@10 (tao)')
    """
    labels = {label for r in rows for label in r.headlines}
    return tuple(sorted(labels, key=lambda s: [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", s)]))


def with_headline(row: BoardRow, label: str) -> BoardRow:
    """The row as ranked by another headline: its value, no interval, bounds or per-item scores (those describe the
    stored headline). A row that offers other headlines but not this one (pass@k with k above its n) gets no value
    and a note saying why; a row that offers none (a paper's reported row, in a group of its own) is unchanged."""
    if not row.headlines:
        return row
    value = row.headlines.get(label)
    note = () if label in row.headlines else (
        f"{label} is not estimable from this entry; it offers {', '.join(headline_labels([row])[-1:])} at most.",)
    return replace(row, metric=label, value=value if isinstance(value, (int, float)) else None, interval=None,
                   interval_kind=None, count=None, total=None, bounds=None, item_scores=None, main_detail={},
                   notes=note + row.notes)


def _hub_part(hub: HubResults | None, query: BoardQuery, by_group: Mapping[str, Sequence[BoardRow]],
              terms: list[str]) -> dict[str, Any]:
    """The view's Hub groups and status: none for a view of another source or of one frozen-tuple group; an
    entry declares no model metadata, so the open-weights and size filters (which an undeclared value never
    passes) leave none."""
    if hub is None or query.kind not in ("all", "hub") or query.group:
        return {}
    # one release per group (it is part of the frozen tuple): the first row of each names it
    releases = {str(rows[0].frozen.get("dataset_release") or "") for rows in by_group.values() if rows}
    targets = hub_targets(query.benchmark, query.track, releases)
    passes = model_matches({}, query.open_weights, query.max_params)
    return {"hub": hub.groups(targets, terms, lambda e: passes), "hub_status": hub.status}


def _flag_look_alikes(rows: list[BoardRow]) -> list[BoardRow]:
    """Submitted rows with ``look_alike`` set where their model name's confusable skeleton equals another's.

    The warning is about names a submitter chose: a paper's reported rows are transcribed as printed (one paper
    may write ``GPT-5`` in one table and ``gpt-5`` in another), so they are never flagged themselves, while a
    submitted name that imitates a reported one still is.
    """
    alike = near_duplicates(r.model_name for r in rows)
    if not alike:
        return rows
    return [replace(r, look_alike=tuple(alike[r.model_name])) if r.model_name in alike and r.kind != "reported"
            else r for r in rows]


def _date_key(row: BoardRow) -> int:
    digits = re.sub(r"\D", "", row.date)
    return int(digits) if digits else 0


# -- export -----------------------------------------------------------------
def export_records(view: BoardView) -> list[dict[str, Any]]:
    """Flat records of what the view lists (every group), with the full frozen tuple; ``shown`` is the score as
    the board prints it (full-precision numbers stay in their own fields)."""
    from lemmata.formats.numbers import score_text

    out = []
    for g in view.groups:
        for r in g.rows:
            if r.integrity:  # its numbers cannot be trusted: left out, and named by left_out()
                continue
            rec: dict[str, Any] = {
                "benchmark": r.benchmark, "track": r.track, "group": g.key,
                "dataset_release": r.frozen.get("dataset_release"), "split": r.frozen.get("split"),
                "retrieval_artifact": r.frozen.get("retrieval_artifact"),
                "scoring_artifact": r.frozen.get("scoring_artifact"), "date": r.date,
                "rank": r.rank, "rank_best": r.rank_range[0] if r.rank_range else None,
                "rank_worst": r.rank_range[1] if r.rank_range else None,
                "tied_with": r.ties if r.rank_range else None, "model": r.model_name,
                "model_revision": r.model_revision, "model_url": r.model_url,
                "kind": r.kind, "metric": r.metric, "score": r.value, "ranked_by": r.rank_value,
                "shown": score_text(r.rank_value, r.interval),
                "printed_disagrees": r.printed.disagrees if r.printed else None,
                "conditions": g.conditions or None,
                "ci_low": r.interval[0] if r.interval else None, "ci_high": r.interval[1] if r.interval else None,
                "interval_kind": r.interval_kind, "count": r.count, "total": r.total, "pending": r.pending,
                **bounds_record(r),
                "status": r.status, "result_id": r.result_id, "submission_sha256": r.submission_sha256,
                "version": r.version, **usage_record(r),
            }
            for name in g.diagnostics:
                rec[f"metric.{name}"] = r.metrics.get(name)
            out.append(rec)
    return out


#: the usage columns an LLM run's group shows (glossary keys ``usage.*``), in order
USAGE_COLUMNS = ("prompt_tokens", "completion_tokens", "cost")


def usage_number(row: BoardRow, key: str) -> float | None:
    """One usage number of a row (None: not reported; a value of the wrong type counts as not reported).

    >>> base = row_from_index({"result_id": "a", "submission_sha256": "0" * 64, "kind": "scored", "benchmark": "b",
    ...     "track": "t", "group_key": "g", "model_name": "m", "main_value": .5, "pending": 0, "status": "complete",
    ...     "scored_at": "", "version": 1})
    >>> row = replace(base, usage={"prompt_tokens": 1200, "completion_tokens": 300, "cost": None})
    >>> usage_number(row, "prompt_tokens"), usage_number(row, "cost"), usage_number(base, "prompt_tokens")
    (1200, None, None)
    """
    value = row.usage.get(key)
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def usage_record(row: BoardRow) -> dict[str, Any]:
    """Export fields of an LLM run's usage (empty when the row reports none)."""
    return {f"usage.{k}": usage_number(row, k) for k in USAGE_COLUMNS} if row.usage else {}


def bounds_record(row: BoardRow) -> dict[str, Any]:
    """Export fields of a row's pending bounds: confirmed so far and the most that could still count (empty when
    the row has nothing pending)."""
    if not row.pending or row.bounds is None:
        return {}
    b = row.bounds.as_dict()
    return {"pending_confirmed": b["confirmed"], "pending_could_still_count": b["could_still_count"],
            "pending_confirmed_rate": b["confirmed_rate"], "pending_max_rate": b["max_rate"]}


def to_csv(records: Sequence[Mapping[str, Any]]) -> str:
    """CSV text; every cell goes through :func:`~lemmata.space.safety.csv_cell`.

    >>> print(to_csv([{"model": "=cmd|' /C calc'!A0", "score": -0.5}]).strip())
    model,score
    '=cmd|' /C calc'!A0,-0.5
    """
    columns: list[str] = []
    for rec in records:
        for key in rec:
            if key not in columns:
                columns.append(key)
    lines = [csv_line(csv_cell(c) for c in columns)]
    for rec in records:
        lines.append(csv_line(csv_cell(rec.get(c)) if rec.get(c) is not None else "" for c in columns))
    return "".join(lines)


def left_out(view: BoardView) -> list[dict[str, str]]:
    """Rows of the view an export leaves out because their stored file failed its integrity check."""
    return [{"result_id": r.result_id, "model": r.model_name, "reason": f"integrity error: {r.integrity}"}
            for g in view.groups for r in g.rows if r.integrity]


def to_json(view: BoardView) -> str:
    doc: dict[str, Any] = {"query": view.query.model_dump(), "groups": [
        {"group": g.key, "frozen": g.frozen, "rows": [r for r in export_records(_single(view, g))]}
        for g in view.groups]}
    if left_out(view):
        doc["left_out"] = left_out(view)
    if view.hub:  # as the Hub reported them, apart from the groups (never ranked with them)
        doc["reported_on_the_hub"] = [
            {"dataset": h.dataset_id, "task_id": h.task_id, "state": h.board.state, "fetched_at": h.board.fetched_at,
             "reply_sha256": h.board.sha256, "entries": [e.model_dump(mode="json", by_alias=True) for e in h.entries]}
            for h in view.hub]
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def _single(view: BoardView, group: BoardGroup) -> BoardView:
    return BoardView(query=view.query, groups=(group,), benchmarks=view.benchmarks, tracks=view.tracks,
                     group_keys=view.group_keys, matched=len(group.rows), total=view.total)

"""Results reported on the Hub: each release's Hub leaderboard, a third source beside scored-here and paper rows.

The Hub gathers the ``.eval_results/`` files of model repositories into one leaderboard per benchmark dataset,
served at ``GET {endpoint}/api/datasets/{dataset_id}/leaderboard`` (the Hub's documentation page "Accessing
Benchmark Leaderboard Data", ``docs/hub/leaderboard-data-guide.md`` in ``huggingface/hub-docs``, section
"Response fields"; ``huggingface_hub``'s ``HfApi.get_dataset_leaderboard`` and ``DatasetLeaderboardEntry`` read
the same path and fields). A release's dataset is the one ``lemmata results export`` names and ``lemmata publish``
publishes: ``{LEMMATA_HUB_OWNER}/{release name}`` (:func:`lemmata.release.eval_results.dataset_id`).

A Hub value is what a model repository declares. It is shown as reported, never as verified here: in its own
group, never ranked with scored-here rows (the Hub's own rank is shown as the Hub's), with the Hub's "verified"
flag and the "community" state of an entry still in an open pull request. The reply is hostile input. It is read
through ``huggingface_hub``'s own session and endpoint (so ``HF_ENDPOINT``, the token and ``HF_HUB_OFFLINE``
apply as for every Hub call) but under a byte cap, a time cap and an entry cap, and every entry is validated by
:class:`HubEntry`; an entry that fails is refused and named, its neighbours still shown, and a reply that is not
a JSON list is refused whole. (``get_dataset_leaderboard`` itself reads the whole body before anything can
bound it, and its entry constructor stops at the first missing key without naming the entry.)

Each reply is kept by content (``by-sha256/<digest>.json`` under the cache folder) with a pointer from the
dataset to its latest content, so an unchanged reply writes nothing and a Hub that cannot be reached shows the
last copy with the date it was fetched.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Literal

from pydantic import ConfigDict, Field, ValidationError

from lemmata.core.atomic import atomic_write_bytes, atomic_write_text
from lemmata.core.errors import LemmataError, Problem
from lemmata.core.hashing import sha256_bytes
from lemmata.core.models import Exact

#: the most bytes of one reply that are read (a leaderboard of a few hundred entries is tens of kilobytes)
MAX_REPLY_BYTES = 2 * 1024 * 1024
#: the most entries of one leaderboard that are shown (the Hub lists them by rank: the rest are counted)
MAX_ENTRIES = 200
#: seconds one reply may take, all of it (connecting and every chunk together)
TIMEOUT_S = 10.0
#: seconds all leaderboards together may take at start-up; datasets not reached by then are named, not fetched
TOTAL_S = 60.0
#: how often a running space reads the Hub leaderboards again, and the longest wait after failed reads
REFRESH_EVERY_S = 15 * 60.0
REFRESH_MAX_BACKOFF_S = 4 * 60 * 60.0
#: refused entries named one by one (the rest are counted)
SHOWN_REFUSALS = 5

_REPO_ID = r"(?:[A-Za-z0-9][A-Za-z0-9._-]{0,95}/)?[A-Za-z0-9][A-Za-z0-9._-]{0,95}"

State = Literal["loaded", "none", "failed", "offline", "pending"]


class HubSource(Exact):
    """Where an entry was submitted from (a model card, an external page)."""

    model_config = ConfigDict(extra="ignore")
    url: str | None = Field(default=None, max_length=2000)
    name: str | None = Field(default=None, max_length=200)
    isExternal: bool | None = None  # noqa: N815 - the Hub's field name


class HubAuthor(Exact):
    """The model's author as the Hub names it (``type`` is ``user`` or ``org``)."""

    model_config = ConfigDict(extra="ignore")
    name: str = Field(max_length=200)
    type: str | None = Field(default=None, max_length=20)


class HubEntry(Exact):
    """One leaderboard entry, with the documented fields only (the Hub may add others: they are ignored, as
    ``DatasetLeaderboardEntry`` keeps them for forward compatibility)."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)
    rank: int = Field(ge=1, le=10_000_000)
    model_id: str = Field(alias="modelId", pattern=f"^{_REPO_ID}$")
    value: float = Field(allow_inf_nan=False)
    filename: str = Field(max_length=300)
    verified: bool
    source: HubSource | None = None
    author: HubAuthor | None = None
    pull_request: int | None = Field(default=None, alias="pullRequest", ge=1)
    notes: str | None = Field(default=None, max_length=1000)

    @property
    def model_url(self) -> str:
        return f"https://huggingface.co/{self.model_id}"

    @property
    def community(self) -> bool:
        """Submitted through a pull request not merged yet (the Hub's "community" badge)."""
        return self.pull_request is not None


@dataclass(frozen=True)
class HubLeaderboard:
    """What is known of one dataset's Hub leaderboard: its entries, or why there are none."""

    dataset_id: str
    #: loaded (entries below), none (the Hub has no leaderboard for it), failed (``reason``), offline, pending
    state: State
    entries: tuple[HubEntry, ...] = ()
    #: refused entries, the first :data:`SHOWN_REFUSALS` named (entry index and field), and how many in all
    refused: tuple[Problem, ...] = ()
    refused_count: int = 0
    #: entries beyond :data:`MAX_ENTRIES`, counted and not read
    left_out: int = 0
    fetched_at: str = ""
    sha256: str = ""
    #: why it failed, or why an older copy is shown
    reason: str = ""


def parse_reply(data: bytes, dataset_id: str, *, max_entries: int = MAX_ENTRIES
                ) -> tuple[tuple[HubEntry, ...], tuple[Problem, ...], int, int]:
    """``(entries, named refusals, refused count, entries left out)`` of one reply; a reply that is not a JSON
    list of objects is refused whole (:class:`LemmataError` naming the dataset).

    >>> ok = {"rank": 1, "modelId": "org/m", "value": 0.5, "filename": ".eval_results/x.yaml", "verified": False,
    ...       "author": {"name": "org", "type": "org"}}
    >>> entries, refused, n, more = parse_reply(json.dumps([ok, {**ok, "value": "high"}]).encode(), "o/d")
    >>> [e.model_id for e in entries], n, str(refused[0])
    (['org/m'], 1, "o/d leaderboard, line 2, field 'value': Input should be a valid number")
    >>> parse_reply(b"<html>busy</html>", "o/d")
    Traceback (most recent call last):
    ...
    lemmata.core.errors.LemmataError: the Hub's leaderboard reply for o/d was refused: not JSON (Expecting value at char 0)
    """
    where = f"{dataset_id} leaderboard"
    try:
        doc = json.loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        why = f"{exc.msg} at char {exc.pos}" if isinstance(exc, json.JSONDecodeError) else str(exc)[:120]
        raise LemmataError(f"the Hub's leaderboard reply for {dataset_id} was refused: not JSON ({why})") from None
    if not isinstance(doc, list):
        raise LemmataError(f"the Hub's leaderboard reply for {dataset_id} was refused: a JSON {type(doc).__name__}, "
                           "not the documented list of entries")
    entries, problems = [], []
    for i, raw in enumerate(doc[:max_entries], start=1):
        try:
            if not isinstance(raw, dict):
                raise ValueError(f"an entry is an object, got a JSON {type(raw).__name__}")
            entries.append(HubEntry.model_validate(raw))
        except ValidationError as exc:
            err = exc.errors()[0]
            problems.append(Problem(where, err["msg"][:200], line=i,
                                    field=".".join(str(p) for p in err["loc"])[:80] or None))
        except ValueError as exc:
            problems.append(Problem(where, str(exc), line=i))
    return tuple(entries), tuple(problems[:SHOWN_REFUSALS]), len(problems), max(0, len(doc) - max_entries)


def fetch_reply(dataset_id: str, *, endpoint: str | None = None, token: str | None = None,
                timeout: float = TIMEOUT_S, max_bytes: int = MAX_REPLY_BYTES) -> bytes | None:
    """The body of the dataset's leaderboard reply, or None when the Hub has no leaderboard for it (404).

    Read through ``huggingface_hub``'s session (its offline switch, headers and token apply), at most
    ``max_bytes`` and ``timeout`` seconds in all; every failure is one :class:`LemmataError` sentence."""
    from huggingface_hub import constants
    from huggingface_hub.utils import build_hf_headers, get_session

    url = f"{(endpoint or constants.ENDPOINT).rstrip('/')}/api/datasets/{dataset_id}/leaderboard"
    deadline = time.monotonic() + timeout
    try:
        with get_session().stream("GET", url, headers=build_hf_headers(token=token), timeout=timeout) as resp:
            if resp.status_code == 404:
                return None
            if resp.status_code != 200:
                raise LemmataError(f"the Hub answered HTTP {resp.status_code} for the leaderboard of {dataset_id}")
            body = bytearray()
            for chunk in resp.iter_bytes():
                body += chunk
                if len(body) > max_bytes:
                    raise LemmataError(f"the Hub's leaderboard reply for {dataset_id} is larger than {max_bytes:,} "
                                       "bytes: refused, read no further")
                if time.monotonic() > deadline:
                    raise LemmataError(f"the Hub's leaderboard reply for {dataset_id} took longer than {timeout:g} s")
            return bytes(body)
    except LemmataError:
        raise
    except Exception as exc:  # noqa: BLE001 - a network or offline failure is said in one sentence
        raise LemmataError(f"could not read the Hub's leaderboard of {dataset_id}: "
                           f"{type(exc).__name__}: {str(exc)[:200]}") from None


# -- the content-addressed copies ------------------------------------------------------------------------------
def _pointer(root: Path, dataset_id: str) -> Path:
    return root / "latest" / (dataset_id.replace("/", "__") + ".json")


def remember(root: Path, dataset_id: str, body: bytes, fetched_at: str) -> str:
    """Keep a reply by its content and point the dataset at it; returns its sha256."""
    digest = sha256_bytes(body)
    blob = root / "by-sha256" / f"{digest}.json"
    if not blob.is_file():
        atomic_write_bytes(blob, body)
    atomic_write_text(_pointer(root, dataset_id), json.dumps({"dataset_id": dataset_id, "sha256": digest,
                                                               "fetched_at": fetched_at}) + "\n")
    return digest


def recall(root: Path, dataset_id: str) -> tuple[bytes, str, str] | None:
    """The dataset's last kept reply ``(body, sha256, fetched_at)``, or None (none kept, or it no longer matches
    its name)."""
    try:
        ptr = json.loads(_pointer(root, dataset_id).read_text(encoding="utf-8"))
        digest = str(ptr["sha256"])
        body = (root / "by-sha256" / f"{digest}.json").read_bytes()
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return (body, digest, str(ptr.get("fetched_at", ""))) if sha256_bytes(body) == digest else None


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def read_leaderboard(dataset_id: str, cache: Path, *, endpoint: str | None = None, token: str | None = None,
                     timeout: float = TIMEOUT_S) -> HubLeaderboard:
    """One dataset's leaderboard: fetched and kept, or the last kept copy when the Hub cannot be reached."""
    try:
        body = fetch_reply(dataset_id, endpoint=endpoint, token=token, timeout=timeout)
    except LemmataError as exc:
        kept = recall(cache, dataset_id)
        if kept is None:
            return HubLeaderboard(dataset_id, "failed", reason=str(exc))
        body, digest, fetched_at = kept
        return _parsed(dataset_id, body, digest, fetched_at, f"{exc}; showing the copy fetched {fetched_at}")
    if body is None:
        return HubLeaderboard(dataset_id, "none", fetched_at=_now())
    fetched_at = _now()
    return _parsed(dataset_id, body, remember(cache, dataset_id, body, fetched_at), fetched_at, "")


def _parsed(dataset_id: str, body: bytes, digest: str, fetched_at: str, reason: str) -> HubLeaderboard:
    try:
        entries, refused, count, left_out = parse_reply(body, dataset_id)
    except LemmataError as exc:
        return HubLeaderboard(dataset_id, "failed", fetched_at=fetched_at, sha256=digest, reason=str(exc))
    return HubLeaderboard(dataset_id, "loaded", entries=entries, refused=refused, refused_count=count,
                          left_out=left_out, fetched_at=fetched_at, sha256=digest, reason=reason)


# -- what the space holds ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class HubGroup:
    """One board group of Hub-reported results: a dataset's leaderboard, shown beside a benchmark's track. Keyed
    like the board's own groups (:class:`~lemmata.space.board.BoardGroup`), in a namespace of its own."""

    key: str
    dataset_id: str
    #: the eval.yaml task this track publishes as, and how many tasks the release declares (the Hub's leaderboard
    #: reply does not say which task an entry is for, so with several tasks an entry may belong to another)
    task_id: str
    tasks: int
    board: HubLeaderboard
    #: the entries this view lists (the search and model filters applied)
    entries: tuple[HubEntry, ...] = ()


@dataclass
class RefreshSchedule:
    """When a running space reads the Hub leaderboards again: ``every_s`` after the last read, and after reads
    that failed, twice as long each time (at most ``max_backoff_s``), so an unreachable Hub is not asked every
    poll; a read that succeeds resets the wait.

    >>> s = RefreshSchedule(every_s=60, max_backoff_s=300, next_at=100.0)
    >>> s.due(99.0), s.due(100.0)
    (False, True)
    >>> s.finished(100.0, failed=True); s.next_at
    220.0
    >>> s.finished(220.0, failed=True); s.finished(460.0, failed=True); s.next_at  # 240, then at most 300
    760.0
    >>> s.finished(760.0, failed=False); s.next_at, s.failures
    (820.0, 0)
    """

    every_s: float = REFRESH_EVERY_S
    max_backoff_s: float = REFRESH_MAX_BACKOFF_S
    #: the monotonic time of the next read
    next_at: float = 0.0
    #: reads that failed in a row
    failures: int = 0

    def due(self, now: float) -> bool:
        return now >= self.next_at

    def finished(self, now: float, *, failed: bool) -> None:
        """Set the next read after one that ended at ``now``."""
        self.failures = self.failures + 1 if failed else 0
        wait = self.every_s * 2 ** self.failures if failed else self.every_s
        self.next_at = now + min(wait, max(self.max_backoff_s, self.every_s))


@dataclass
class HubResults:
    """The Hub leaderboards of every release, read at start-up and again on a schedule while the space runs
    (:meth:`refresh`; ``revision`` grows when they are read)."""

    cache: Path
    boards: dict[str, HubLeaderboard] = field(default_factory=dict)
    #: one sentence on the whole source when it is not loaded (offline, not yet read); '' once read
    status: str = "Results reported on the Hub are not loaded yet."
    revision: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def load(self, dataset_ids: Iterable[str], *, endpoint: str | None = None, token: str | None = None,
             offline: bool | None = None, total_s: float = TOTAL_S,
             report: Callable[[str], None] | None = None) -> str:
        """Read every dataset's leaderboard (none when ``HF_HUB_OFFLINE`` is set); returns a one-line summary."""
        from huggingface_hub import constants

        ids = sorted(set(dataset_ids))
        if constants.is_offline_mode() if offline is None else offline:
            with self._lock:
                self.status = "Results reported on the Hub are not loaded: offline (HF_HUB_OFFLINE=1)."
                self.revision += 1
            return "offline (HF_HUB_OFFLINE=1): results reported on the Hub are not loaded"
        deadline = time.monotonic() + total_s
        boards: dict[str, HubLeaderboard] = {}
        for dataset_id in ids:
            left = deadline - time.monotonic()
            if left <= 0:
                boards[dataset_id] = HubLeaderboard(dataset_id, "failed", reason=f"not read: the {total_s:g} s "
                                                    "for all Hub leaderboards were spent")
                continue
            if report is not None:
                report(f"reading the Hub leaderboard of {dataset_id}")
            boards[dataset_id] = read_leaderboard(dataset_id, self.cache, endpoint=endpoint, token=token,
                                                  timeout=min(TIMEOUT_S, left))
        with self._lock:
            self.boards, self.status = boards, ""
            self.revision += 1
        states = [b.state for b in boards.values()]
        entries = sum(len(b.entries) for b in boards.values())
        return (f"{entries} Hub-reported result(s) from {states.count('loaded')} leaderboard(s); "
                f"{states.count('none')} dataset(s) without one" +
                (f"; {states.count('failed')} could not be read" if "failed" in states else ""))

    def refresh(self, dataset_ids: Iterable[str], schedule: "RefreshSchedule", *, now: float | None = None,
                **load_options) -> str | None:
        """Read the leaderboards again when ``schedule`` says it is time (a running space's worker asks on every
        poll); returns :meth:`load`'s summary, or None when it was not time. An unchanged reply writes nothing
        (the cache is by content); a changed one moves :attr:`revision`, so open pages re-render."""
        now = time.monotonic() if now is None else now
        if not schedule.due(now):
            return None
        try:
            summary = self.load(dataset_ids, **load_options)
        except Exception:
            schedule.finished(now, failed=True)
            raise
        with self._lock:
            # a board that failed, or shows its kept copy because the Hub could not be reached, backs off
            failed = any(b.state == "failed" or b.reason for b in self.boards.values())
        schedule.finished(now, failed=failed)
        return summary

    def groups(self, targets: Sequence[tuple[str, str, int]], terms: Sequence[str] = (),
               keep: Callable[[HubEntry], bool] = lambda e: True) -> tuple[HubGroup, ...]:
        """The groups of ``targets`` ``(dataset id, task id, tasks)`` this holder read, entries narrowed by the
        search ``terms`` and ``keep``."""
        with self._lock:
            boards = dict(self.boards)
        out = []
        for dataset_id, task, tasks in targets:
            board = boards.get(dataset_id)
            if board is None:
                continue
            shown = tuple(e for e in board.entries if keep(e) and _matches(e, terms))
            out.append(HubGroup(f"hub | {dataset_id}", dataset_id, task, tasks, board, shown))
        return tuple(out)


def _matches(entry: HubEntry, terms: Sequence[str]) -> bool:
    hay = " ".join([entry.model_id, entry.author.name if entry.author else "", entry.notes or "",
                    "verified" if entry.verified else "", "community" if entry.community else ""]).casefold()
    return all(t in hay for t in terms)


def hub_targets(benchmark: str | None, track: str | None, releases: Iterable[str]) -> list[tuple[str, str, int]]:
    """``(dataset id, task id, number of tasks)`` of the releases a board view covers: the releases its rows were
    scored on, and the benchmark's own release when it is one.

    >>> hub_targets("re2math", "raw", [])
    [('lemmata/re2math', 'raw', 2)]
    >>> hub_targets("nothing-here", "x", ["also-unknown-1.0.0"])
    []
    """
    from lemmata.core.registry import UnknownNameError
    from lemmata.families import get_benchmark
    from lemmata.release.eval_results import dataset_id
    from lemmata.release.eval_yaml import task_id
    from lemmata.release.hub import hub_owner

    if not benchmark or not track:
        return []
    out: dict[str, tuple[str, str, int]] = {}
    for name in [benchmark, *sorted(set(releases))]:
        try:
            meta = get_benchmark(name)
        except UnknownNameError:
            continue
        key = dataset_id(meta, hub_owner())
        out.setdefault(key, (key, task_id(meta, track), max(1, len(meta.tracks))))
    return list(out.values())


def all_datasets() -> list[str]:
    """The Hub dataset of every registered release (one per release name)."""
    from lemmata.families import list_benchmarks
    from lemmata.release.eval_results import dataset_id
    from lemmata.release.hub import hub_owner

    owner = hub_owner()
    return sorted({dataset_id(meta, owner) for meta in list_benchmarks()})


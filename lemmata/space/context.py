"""One running space: configuration, store, scorer, start-up steps and the caches the page reads."""

from __future__ import annotations

import shutil
import tempfile
import threading
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lemmata.space.drawn import DrawnViews
from lemmata.tracks.base import OracleConfig
from lemmata.space.audit import SubmissionCache
from lemmata.space.board import BoardRow, load_rows
from lemmata.space.bootstrap import Bootstrap, Skip, Step, baselines_step, release_step, reported_step
from lemmata.space.config import SpaceConfig
from lemmata.space.rank_ranges import RankRangeCache
from lemmata.space.hub_results import HubResults, RefreshSchedule, all_datasets
from lemmata.space.hub_sync import restore, start_scheduler, sync_plan
from lemmata.space.rows import ROW_SUMMARY
from lemmata.space.worker import ScoringWorker
from lemmata.store import Store


def oracles_from_env() -> tuple[OracleConfig, str]:
    """The live oracles configured by environment, and a sentence saying which.

    No judge (``lemmata.oracles.chat``) or Lean server (``lemmata.oracles.lean``)
    configured means items needing one stay *pending*; a malformed
    configuration raises, so the start-up panel shows why.
    """
    from lemmata.oracles.chat import judge_from_env
    from lemmata.oracles.lean import verifier_from_env

    judge, lean = judge_from_env(), verifier_from_env()
    said = [f"judge {judge.judge_id}" if judge is not None else "no LLM judge",
            "a Lean server" if lean is not None else "no Lean server"]
    text = ", ".join(said)
    if judge is None or lean is None:
        text += " (items that need a missing oracle are listed as pending, never as correct)"
    return OracleConfig(judge=judge, lean=lean), text


def submission_catalog() -> dict[str, tuple[str, ...]]:
    """``{benchmark: tracks}`` of every registered track handler, ordered like the registry's families.

    The names are what submission headers and results carry (``re2math``,
    ``re2math-theorem-retrieval``, ``mathnet-retrieve``, …), so a board can be
    chosen before it has any entry.
    """
    from lemmata.families import families, handlers

    out: dict[str, tuple[str, ...]] = {}
    for family in families().values():
        for name in sorted(family.handlers, key=lambda b: (b != family.name, b)):
            out[name] = tuple(handlers()[name].tracks)
    return out


@dataclass
class SpaceContext:
    config: SpaceConfig
    store: Store
    worker: ScoringWorker
    bootstrap: Bootstrap
    export_dir: Path
    submissions: SubmissionCache
    scheduler: Any = None
    oracles: OracleConfig = field(default_factory=OracleConfig)
    exports: dict = field(default_factory=dict, repr=False)
    #: board views by (query, change token) (:meth:`lemmata.space.views.BoardControls.view`)
    views: dict = field(default_factory=dict, repr=False)
    remove_exports: Any = field(default=None, repr=False)
    #: the board groups' rank ranges, computed once per set of result ids (large groups in the background)
    rank_ranges: RankRangeCache = field(default_factory=RankRangeCache, repr=False)
    drawn: DrawnViews = field(default_factory=DrawnViews, repr=False)  # each page's last drawn board query
    #: every release's leaderboard on the Hub, read at start-up (kept by content under the cache folder)
    hub_results: HubResults = field(default_factory=lambda: HubResults(hub_cache()), repr=False)
    _catalog: dict[str, tuple[str, ...]] | None = field(default=None, repr=False)
    _rows: tuple[int, list[BoardRow]] | None = field(default=None, repr=False)
    _rows_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _panels: dict[str, tuple[int, Any]] = field(default_factory=dict, repr=False)
    _panels_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    # -- reads the page makes -------------------------------------------------------------------
    def rows(self) -> list[BoardRow]:
        """Visible leaderboard rows, re-read from the index only when the store changed."""
        self.store.verify_files()  # a file changed on disk logs an event, so the generation below moves
        generation = self.store.generation()
        with self._rows_lock:
            if self._rows is not None and self._rows[0] == generation:
                return self._rows[1]
        rows = load_rows(self.store)
        with self._rows_lock:
            self._rows = (generation, rows)
        return rows

    def panel(self, key: str):
        """The table of a family's panel (``Family.panels``, e.g. MathNet's MathRAG matrix), recomputed (a paired
        bootstrap, say) only when the store changed; one caller computes while the others wait for its answer."""
        from lemmata.families import panels

        panel = next(p for p in panels() if p.key == key)
        generation = self.store.generation()
        with self._panels_lock:
            if key not in self._panels or self._panels[key][0] != generation:
                self._panels[key] = (generation, panel.load(self.store))
            return self._panels[key][1]

    def change_token(self) -> str:
        """Changes whenever anything the page shows may have changed (store or start-up progress)."""
        return (f"{self.store.generation()}:{self.bootstrap.revision}:{self.rank_ranges.revision}:"
                f"{self.hub_results.revision}:{self.worker.revision}")

    def catalog(self) -> dict[str, tuple[str, ...]]:
        """Every benchmark a submission can name, with its tracks, flagship first (computed once)."""
        if self._catalog is None:
            self._catalog = submission_catalog()
        return self._catalog

    # -- lifecycle ----------------------------------------------------------------------------------
    def start(self, *, background: bool = True) -> None:
        if background:
            self.bootstrap.start()
        else:
            self.bootstrap.run()

    def stop(self) -> None:
        self.worker.stop()
        if self.scheduler is not None:
            self.scheduler.stop()

    def close(self) -> None:
        """Stop, then remove the temporary export folder (the app's download links end with it)."""
        self.stop()
        if self.remove_exports is not None:
            self.remove_exports()


def default_steps(ctx: SpaceContext) -> list[Step]:
    """Restore (hosted), index, build what is missing, start the scorer, then add reported and baseline rows.

    Uploads are accepted once the store is restored and indexed; they wait in
    the queue until the scorer starts (after releases and the retrieval
    artifact exist, so nothing fails for want of them).
    """
    from lemmata.core.paths import lemmata_home

    config, store = ctx.config, ctx.store
    sync = sync_plan(config)

    def restore_run(report):
        if sync is None:
            raise Skip("local store on disk" if not config.hosted else "no LEMMATA_RESULTS_REPO configured")
        report(f"downloading {sync.repo_id}")
        summary = restore(store, sync).describe()
        ctx.scheduler = start_scheduler(store, sync)
        return summary + f"; syncing every {sync.every_minutes:g} min"

    def index_run(report):
        added = store.reindex()
        skipped = f"; {len(store.reindex_problems)} unreadable file(s) skipped" if store.reindex_problems else ""
        notice = f" ({store.recovery_notice})" if store.recovery_notice else ""
        return f"{added} result file(s) newly indexed; {sum(store.status_counts().values())} submission(s) " \
               f"on record{skipped}{notice}"

    def board_run(report):
        # every stored file checked once and the board's rows read here, not on the first visitor's page: at
        # 10,000 results that is seconds of work (perf/board_speed.py measures the render that follows)
        report("checking every stored result and reading the board rows")
        rows = ctx.rows()
        return f"{len(rows)} board row(s) read, every stored file checked"

    def optional(run):
        def wrapped(report):
            if not config.bootstrap:
                raise Skip("disabled (LEMMATA_BOOTSTRAP=0)")
            return run(report)
        return wrapped

    def oracles_run(report):
        ctx.oracles, text = oracles_from_env()
        return text

    def hub_run(report):
        from huggingface_hub import constants

        if constants.is_offline_mode():
            ctx.hub_results.load((), offline=True)
            raise Skip("offline (HF_HUB_OFFLINE=1): results reported on the Hub are not loaded")
        schedule, datasets = RefreshSchedule(), all_datasets()
        summary = ctx.hub_results.refresh(datasets, schedule, report=report)
        # read again while the space runs, by the scorer's thread between submissions (back-off after failures)
        ctx.worker.chores.append(lambda: ctx.hub_results.refresh(datasets, schedule))
        return f"{summary}; read again every {schedule.every_s / 60:g} min"

    def worker_run(report):
        requeued = ctx.worker.start()
        return "scorer running" + (f"; {requeued} interrupted submission(s) requeued" if requeued else "")

    return [
        Step("restore", "restoring results from the Hub", restore_run, blocks_submissions=True),
        Step("index", "indexing the results folder", index_run, blocks_submissions=True),
        Step("board", "reading the board rows", board_run),
        Step("releases", "building missing releases", optional(release_step(config.releases_root))),
        *[Step(step.key, step.label, optional(step.run)) for step in startup_steps()],  # the families' own
        Step("oracles", "checking oracles", oracles_run),
        Step("worker", "starting the scorer", worker_run),
        Step("reported", "importing reported rows from the papers", optional(reported_step(store))),
        Step("baselines", "scoring the offline baselines", optional(baselines_step(store, lemmata_home() / "baselines"))),
        Step("hub", "reading results reported on the Hub", hub_run),
    ]


def hub_cache() -> Path:
    """Where the Hub leaderboard replies are kept, by content."""
    from lemmata.core.paths import lemmata_home

    return lemmata_home() / "cache" / "hub-leaderboards"


def startup_steps() -> list:
    """The families' own start-up steps (``Family.startup``), through the registry."""
    from lemmata.families import startup_steps as steps

    return steps()


def create_context(config: SpaceConfig | None = None, *, stream=None, steps=None) -> SpaceContext:
    """A space over ``config`` (read from the environment by default); call ``.start()`` to prepare it."""
    import sys

    config = config or SpaceConfig.from_env()
    store = Store(config.store_root, row_summary=ROW_SUMMARY)
    export_dir = Path(tempfile.mkdtemp(prefix="lemmata-space-exports-"))
    ctx = SpaceContext(config=config, store=store,
                       worker=ScoringWorker(store, poll_seconds=config.worker_poll_seconds),
                       bootstrap=Bootstrap([], stream=stream if stream is not None else sys.stderr),
                       export_dir=export_dir, submissions=SubmissionCache(store))
    # exports are throwaway copies of what the board shows: removed when the context is closed, collected, or
    # the process exits (weakref.finalize runs at interpreter exit too), so no serve leaves a folder behind
    ctx.remove_exports = weakref.finalize(ctx, shutil.rmtree, str(export_dir), ignore_errors=True)
    ctx.worker.oracles = lambda: ctx.oracles
    ctx.bootstrap.steps = steps(ctx) if steps is not None else default_steps(ctx)
    return ctx

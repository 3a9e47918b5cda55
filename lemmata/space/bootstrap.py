"""First start: build whatever is missing, with progress in the terminal and in the page.

``lemmata serve`` on a fresh machine must be the only command a user types,
so the space prepares its own inputs: it restores the store from the Hub when
hosted, builds every registered release that is not on disk, indexes the
store and starts the scorer. Each step reports to stderr as numbered lines and
to a shared :class:`Bootstrap` state that the page polls. A failed step is
shown with its reason and the remaining steps still run; only a failed
restore blocks uploads (accepting files before the mirror is back could
create a second copy of a stored entry).
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, TextIO

from lemmata.core.family import Skip
from lemmata.space.safety import esc

StepStatus = Literal["waiting", "running", "done", "skipped", "failed"]


@dataclass
class Step:
    key: str
    label: str
    run: Callable[[Callable[[str], None]], str | None]
    blocks_submissions: bool = False
    status: StepStatus = "waiting"
    detail: str = ""
    seconds: float = 0.0


@dataclass
class Bootstrap:
    """Ordered steps and their live state (thread-safe; ``revision`` grows on every change)."""

    steps: list[Step]
    stream: TextIO | None = field(default_factory=lambda: sys.stderr)
    revision: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _done: threading.Event = field(default_factory=threading.Event, repr=False)

    def _print(self, text: str) -> None:
        if self.stream is not None:
            print(f"[lemmata] {text}", file=self.stream, flush=True)

    def _update(self, step: Step, **changes) -> None:
        with self._lock:
            for key, value in changes.items():
                setattr(step, key, value)
            self.revision += 1

    def run(self) -> None:
        """Run every step in order (in the calling thread)."""
        total = len(self.steps)
        for n, step in enumerate(self.steps, start=1):
            self._print(f"[{n}/{total}] {step.label} …")
            started = time.perf_counter()
            self._update(step, status="running", detail="")

            def report(text: str, step: Step = step, n: int = n) -> None:
                self._update(step, detail=text)
                self._print(f"[{n}/{total}]   {text}")

            try:
                detail = step.run(report) or ""
                status: StepStatus = "done"
            except Skip as exc:
                detail, status = str(exc), "skipped"
            except Exception as exc:  # a failed step is reported, never hidden, and the rest still run
                detail, status = f"{type(exc).__name__}: {exc}", "failed"
            elapsed = time.perf_counter() - started
            self._update(step, status=status, detail=detail, seconds=elapsed)
            self._print(f"[{n}/{total}] {step.label}: {status}{' — ' + detail if detail else ''} ({elapsed:.1f}s)")
        with self._lock:
            self._done.set()
            self.revision += 1
        failed = [s.label for s in self.steps if s.status == "failed"]
        self._print("ready" + (f" (with failures: {', '.join(failed)})" if failed else ""))

    def start(self) -> threading.Thread:
        thread = threading.Thread(target=self.run, name="lemmata-bootstrap", daemon=True)
        thread.start()
        return thread

    def wait(self, timeout: float | None = None) -> bool:
        return self._done.wait(timeout)

    @property
    def done(self) -> bool:
        return self._done.is_set()

    @property
    def failed(self) -> list[Step]:
        return [s for s in self.steps if s.status == "failed"]

    def submissions_blocked(self) -> str | None:
        """Why uploads are refused right now, or None."""
        with self._lock:
            for step in self.steps:
                if step.blocks_submissions and step.status in ("waiting", "running"):
                    return f"the space is still preparing ({step.label}); try again in a moment"
                if step.blocks_submissions and step.status == "failed":
                    return f"uploads are paused because a start-up step failed ({step.label}: {step.detail})"
        return None

    def render_html(self) -> str:
        """The progress panel: live while preparing, a collapsed note if a step failed, empty otherwise."""
        with self._lock:
            failed = [s for s in self.steps if s.status == "failed"]
            if self.done and not failed:
                return ""
            icons = {"waiting": "○", "running": "◔", "done": "✓", "skipped": "–", "failed": "✗"}
            items = "".join(
                f'<li class="lm-step-{s.status}">{icons[s.status]} {esc(s.label)}{_detail(s.detail)}'
                f'{f" ({s.seconds:.1f}s)" if s.status in ("done", "failed") else ""}</li>'
                for s in self.steps)
            if not self.done:
                return ('<div class="lm-banner lm-progress" role="status"><b>Preparing the space</b> (the first '
                        "start builds releases and indexes results; this page updates by itself)"
                        f"<ol>{items}</ol></div>")
            names = ", ".join(s.label for s in failed)
        return (f'<details class="lm-banner lm-progress"><summary>Start-up finished; {len(failed)} step(s) had '
                f"problems ({esc(names)}). The leaderboard works; what depends on them may be missing.</summary>"
                f"<ol>{items}</ol></details>")


def _detail(text: str, limit: int = 160) -> str:
    """A step's detail; a long one (a list of failures) folds away behind its first words."""
    if not text:
        return ""
    if len(text) <= limit:
        return " — " + esc(text)
    parts = "".join(f"<li>{esc(part)}</li>" for part in text.split("; "))
    return f' — <details class="lm-inline"><summary>{esc(text[:limit])}…</summary><ul>{parts}</ul></details>'


# -- the default steps ------------------------------------------------------------------------------
def release_step(releases_root: Path) -> Callable[[Callable[[str], None]], str]:
    """Build every registered release whose folder (with its manifest) is missing."""

    def run(report: Callable[[str], None]) -> str:
        from lemmata.core.errors import LemmataError
        from lemmata.families import builder_classes, families

        built, present, unavailable, failed = [], [], [], []
        classes = [cls for family in sorted(families()) for cls in builder_classes(family)]
        for i, cls in enumerate(classes, start=1):
            release_id = cls.meta.release_id
            if (releases_root / release_id / "MANIFEST.json").is_file():
                present.append(release_id)
                continue
            report(f"building {release_id} ({i}/{len(classes)})")
            outcome = "built"
            try:
                cls().build(releases_root, quiet=True)
                built.append(release_id)
            except LemmataError as exc:
                # a Hub-only release without a reachable Hub (or without a pinned revision) is expected
                # offline: say so, and leave the rest of the space working
                (unavailable if cls.meta.hub else failed).append((release_id, exc))
                outcome = "not available here" if cls.meta.hub else "failed"
            except Exception as exc:  # one broken source must not stop the other releases
                failed.append((release_id, exc))
                outcome = "failed"
            # the panel says what happened to this release, never "building" one that has moved on
            report(f"{release_id} {outcome} ({i}/{len(classes)})")
        if failed:
            from lemmata.release.sources import unavailable_summary

            raise RuntimeError(unavailable_summary(failed + unavailable))
        if not built and not unavailable:
            raise Skip(f"all {len(present)} release(s) already built")
        parts = [f"built {', '.join(built)}"] if built else []
        if present:
            parts.append(f"{len(present)} already present")
        if unavailable:
            from lemmata.release.sources import unavailable_summary

            parts.append(f"{len(unavailable)} Hub-only release(s) not available here: "
                         + unavailable_summary(unavailable))
        return "; ".join(parts)

    return run


def reported_step(store, importers: list[tuple[str, Callable]] | None = None) -> Callable[[Callable[[str], None]], str]:
    """Import every paper's reported rows; already-present rows are recognised by content and not re-added."""

    def run(report: Callable[[str], None]) -> str:
        from lemmata.families import reported_importers

        added = present = 0
        failed = []
        for family, importer in (importers if importers is not None else reported_importers()):
            report(f"importing {family} reported rows")
            try:
                pairs = importer(store)
            except Exception as exc:  # one paper's missing source must not stop the others
                failed.append(f"{family}: {exc}")
                continue
            added += sum(1 for _, created in pairs if created)
            present += sum(1 for _, created in pairs if not created)
        if failed:
            raise RuntimeError(f"{added} row(s) added; " + "; ".join(failed))
        if not added:
            raise Skip(f"all {present} reported row(s) already present")
        return f"{added} reported row(s) added" + (f", {present} already present" if present else "")

    return run


def baselines_step(store, out_dir: Path) -> Callable[[Callable[[str], None]], str]:
    """Run and score the offline baselines once (skipped when the store already holds baseline entries)."""

    def run(report: Callable[[str], None]) -> str:
        from lemmata.scoring import SUBMITTER, score_file

        existing = store.list_submissions(submitter=SUBMITTER, limit=10_000)
        if existing:
            raise Skip(f"{len(existing)} baseline entries already scored (rerun with `lemmata baselines run all`)")
        from lemmata.families import baseline_jobs

        jobs = baseline_jobs()
        done, failed = 0, []
        for i, (label, job) in enumerate(jobs, start=1):
            report(f"{label} ({i}/{len(jobs)})")
            try:
                score_file(job(out_dir), store)
                done += 1
            except Exception as exc:  # a baseline whose release is missing must not stop the others
                failed.append(f"{label}: {exc}")
        if failed:
            raise RuntimeError(f"{done} of {len(jobs)} baselines scored; " + "; ".join(failed[:5]))
        return f"{done} baselines scored"

    return run

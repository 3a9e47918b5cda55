"""The plumbing of ``lemmata baselines``: where files go, which store, one scored line per run.

The families register their own ``lemmata baselines run TRACK`` sub-commands (``Family.baseline_commands``) with
:func:`common_args` and finish each written file with :func:`finish`, which scores it through the one scoring path
(:func:`lemmata.scoring.score_file`) exactly as an upload is; ``all`` runs every family's baseline jobs
(``Family.baselines``) the same way.
"""

from __future__ import annotations

from argparse import ArgumentParser, Namespace
from pathlib import Path
from typing import Any

__all__ = ["ALL", "common_args", "finish", "out_folder", "pick", "run_all", "store_of"]

#: the choice that runs every option of an argument
ALL = "all"


def common_args(p: ArgumentParser, *, depth: bool = True) -> None:
    """``--out``, ``--store``, ``--no-store`` (and ``--depth`` for ranking baselines)."""
    p.add_argument("--out", metavar="DIR", help="where submission files go (default: $LEMMATA_HOME/baselines)")
    p.add_argument("--store", metavar="DIR", help="leaderboard store (default: $LEMMATA_STORE or "
                                                  "$LEMMATA_HOME/store)")
    p.add_argument("--no-store", action="store_true", help="write the submission files only")
    if depth:
        p.add_argument("--depth", type=int, default=100, help="documents ranked per query (default 100)")


def pick(value: str, options: tuple[str, ...]) -> tuple[str, ...]:
    """Every option for :data:`ALL`, else the one chosen.

    >>> pick("all", ("a", "b")), pick("b", ("a", "b"))
    (('a', 'b'), ('b',))
    """
    return options if value == ALL else (value,)


def out_folder(args: Namespace) -> Path:
    from lemmata.core.paths import lemmata_home

    return Path(args.out) if args.out else lemmata_home() / "baselines"


def store_of(args: Namespace) -> Any:
    """The store the results go to (None with ``--no-store``)."""
    if args.no_store:
        return None
    from lemmata.store import Store, default_store

    return Store(args.store) if args.store else default_store()


def finish(path: Path, store: Any) -> None:
    """Score one submission file into the store and print its line."""
    from lemmata.tracks.baseline_report import result_line

    if store is None:
        print(f"wrote {path}")
        return
    from lemmata.scoring import score_file

    print(result_line(score_file(path, store), path), flush=True)


def run_all(args: Namespace) -> int:
    """Every family's offline baseline jobs (:func:`lemmata.families.baseline_jobs`), in turn."""
    from lemmata.families import baseline_jobs

    store = store_of(args)
    for _, job in baseline_jobs():
        finish(job(out_folder(args)), store)
    return 0

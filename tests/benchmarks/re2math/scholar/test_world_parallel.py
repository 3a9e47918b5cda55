"""Forked batch search: a worker that dies ends the batch with one clear error, not a traceback or a wait.

(The same through ``lemmata artifact search --batch`` on a real world: ``test_scholar_v2.py``.)
"""

from __future__ import annotations

import multiprocessing
import os
import signal

import pytest

from lemmata.benchmarks.re2math.scholar.world.parallel import forked_tops
from lemmata.core.errors import LemmataError

pytestmark = pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="needs fork")


class Ranks:
    """A world's ``_top`` only: position = query length; a forked copy SIGKILLs itself when ``die`` is set."""

    def __init__(self, die: bool) -> None:
        self.parent, self.die = os.getpid(), die

    def _top(self, query: str, cutoff: int | None, n: int) -> list[tuple[int, float]]:
        if self.die and os.getpid() != self.parent:
            os.kill(os.getpid(), signal.SIGKILL)
        return [(len(query), 1.0)]


QUERIES = [("q" * i, None, 1) for i in range(1, 13)]


def test_forked_ranks_are_the_loop_ranks():
    assert list(forked_tops(Ranks(die=False), QUERIES, 2)) == [[(i, 1.0)] for i in range(1, 13)]


def test_a_killed_worker_ends_the_batch_with_one_error():
    with pytest.raises(LemmataError, match=r"a worker process ranking 8 of the 12 queries died \(killed, or out of "
                                           r"memory\), so the batch has no results: rerun it") as exc:
        list(forked_tops(Ranks(die=True), QUERIES, 2))
    assert exc.value.__cause__ is None and exc.value.__suppress_context__

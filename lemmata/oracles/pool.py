"""The one thread pool oracle requests run in: a bounded window of calls in flight, answers taken as they land.

An oracle call spends its time waiting on a server, so threads are enough; what
matters is how many requests are in flight and what happens when a run stops.
:class:`Pool` keeps at most ``2 × workers`` calls handed to its threads (a bounded
window: waiting on the pending calls costs O(pending) per answer, so a run of n
calls stays O(n), while every thread always has its next call queued) and hands
back finished calls in batches; the caller may add calls while it reads (a
multi-step protocol asks its next step as soon as the previous answer is in), and may
:meth:`~Pool.watch` a future of its own, which ends a wait when it is done (a step that
waits on something else, the calls in flight and the queue going on meanwhile).
Closing it cancels the calls not yet started and does not wait for those in
flight: a stopped run returns at once. The chat runner and the judges'
:meth:`~lemmata.oracles.judge.JudgeArtifact.obtain_all` both run in it;
:func:`parallel_map` is the plain "every item, answers in input order" case.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Generic, TypeVar

__all__ = ["Pool", "parallel_map"]

T = TypeVar("T")
R = TypeVar("R")


class Pool(Generic[T, R]):
    """``call`` applied to added items on ``workers`` threads named ``name``; read results with :meth:`batches`.

    >>> with Pool(lambda x: x * x, workers=2) as pool:
    ...     for x in range(5):
    ...         pool.add(x)
    ...     sorted(r for batch in pool.batches() for _, r in batch)
    [0, 1, 4, 9, 16]
    """

    def __init__(self, call: Callable[[T], R], *, workers: int, name: str = "lemmata-oracle") -> None:
        self._call = call
        self._executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix=name)
        self._window = 2 * workers
        self._backlog: deque[T] = deque()
        self._pending: dict[Future, T] = {}
        self._watched: set[Future] = set()

    def add(self, item: T) -> None:
        """Queue one call (started when the window has room)."""
        self._backlog.append(item)

    def watch(self, future: Future) -> None:
        """End a wait in :meth:`batches` when ``future`` is done (a batch is yielded after it, empty where no call
        finished with it), and keep :meth:`batches` going until then, even with no call queued or in flight: the
        caller's own step that waits on it goes on once it is done, the calls going on meanwhile. A watched
        future takes no place in the window."""
        self._watched.add(future)

    def batches(self) -> Iterator[list[tuple[T, R]]]:
        """``(item, result)`` of the calls that finished since the last batch, until none is queued or in flight
        and no watched future is pending.

        A call's exception is raised here; items added while reading are taken up before the next wait.
        """
        while True:
            while self._backlog and len(self._pending) < self._window:
                item = self._backlog.popleft()
                self._pending[self._executor.submit(self._call, item)] = item
            if not self._pending and not self._watched:
                return
            done, _ = wait([*self._pending, *self._watched], return_when=FIRST_COMPLETED)
            self._watched -= done  # each watched future ends one wait, then is forgotten
            yield [(self._pending.pop(fut), fut.result()) for fut in done if fut in self._pending]

    def close(self) -> None:
        """Cancel the calls not yet started; those in flight finish on their own (nothing waits for them)."""
        self._executor.shutdown(wait=False, cancel_futures=True)

    def __enter__(self) -> "Pool[T, R]":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def parallel_map(call: Callable[[T], R], items: Sequence[T], *, workers: int, name: str = "lemmata-oracle",
                 desc: str = "", quiet: bool = True) -> list[R]:
    """``[call(item) for item in items]`` on ``workers`` threads, with a progress bar unless ``quiet``.

    >>> parallel_map(len, ["a", "bb", "ccc"], workers=2)
    [1, 2, 3]
    """
    from lemmata.core.progress import track

    results: list[R] = [None] * len(items)  # type: ignore[list-item]
    with Pool(lambda i: call(items[i]), workers=workers, name=name) as pool:
        for i in range(len(items)):
            pool.add(i)
        finished = (pair for batch in pool.batches() for pair in batch)
        for i, result in track(finished, total=len(items), desc=desc, quiet=quiet):
            results[i] = result
    return results

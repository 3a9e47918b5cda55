"""Opening a world reads its integer columns (years, the opaque ids' ranks) from their Arrow buffers: pyarrow's
own conversion imports pandas, a large import (and about 80 MB) that nothing else of an open needs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

OPEN = """
import sys
from lemmata.benchmarks.re2math.scholar.worlds import open_any_world
world = open_any_world(sys.argv[1])
assert world.search("spectral gap of random graphs", 2015, 5).hits
print("pandas" in sys.modules)
"""


def imports_pandas(folder: Path) -> bool:
    """Does a fresh process that opens ``folder`` and searches it import pandas?"""
    out = subprocess.run([sys.executable, "-c", OPEN, str(folder)], capture_output=True, text=True, check=True)
    return out.stdout.split()[-1] == "True"


def test_opening_and_searching_a_world_imports_no_pandas(scholar_world_21):
    assert not imports_pandas(scholar_world_21)


def test_positions_by_opaque_id_number_agree_with_the_id_table(scholar_world_22):
    """A 2.1+ world finds a record's position from its opaque id's number (an array, not a dict of every id): the
    same position as the stored ids say, and an id that only shares a number (``r01`` for ``r1``), a malformed id
    or an unknown one is refused like any unknown id."""
    import pytest

    from lemmata.benchmarks.re2math.scholar.worlds import open_any_world
    from lemmata.core.errors import InputError

    world = open_any_world(scholar_world_22)
    assert world._by_rank is not None
    ids = world._ids
    step = max(1, len(ids) // 5000)
    assert all(world.position(ids[p]) == p for p in range(0, len(ids), step))
    assert world.position(ids[-1]) == len(ids) - 1
    first = ids[0]
    for bad in ("r0" + first[1:], first + "0", "x" + first[1:], "r", "", "r-1", "r１", f"r{10 ** 12}", first.upper()):
        if bad in set(ids):
            continue
        with pytest.raises(InputError):
            world.position(bad)


def test_positions_fall_back_to_the_id_table_where_numbers_collide(scholar_world_22):
    """Where two ids share a number the array cannot tell them apart: the world looks every id up in the dict."""
    import numpy as np

    from lemmata.benchmarks.re2math.scholar.worlds import open_any_world

    world = open_any_world(scholar_world_22)
    world._tie_rank = np.zeros_like(world._tie_rank)  # every id "number 0"
    assert world._by_rank is None
    assert world.position(world._ids[7]) == 7


def test_prefetched_openings_are_the_openings(scholar_world_22, monkeypatch):
    """Openings read ahead on a background thread (an agent run's first step) open the same records as openings
    read on demand, and each row group's columns are read once per world: a first opening that comes while its
    group is being read waits for that read; a world that opens a few records reads only their groups."""
    import threading
    import time
    from collections import Counter

    import lemmata.benchmarks.re2math.scholar.world.search as search
    from lemmata.benchmarks.re2math.scholar.artifact import MaterialisationLog
    from lemmata.benchmarks.re2math.scholar.worlds import open_any_world

    plain, ahead = open_any_world(scholar_world_22), open_any_world(scholar_world_22)
    groups = len(plain._groups) - 1
    assert groups >= 3 and plain._groups[-1] == len(plain)  # the real world: several row groups
    reads, real = [], search.read_row_group
    started = threading.Event()

    def read_row_group(path, group, columns):
        reads.append((threading.current_thread().name, group, tuple(columns)))
        started.set()
        return real(path, group, columns)

    monkeypatch.setattr(search, "read_row_group", read_row_group)
    ahead.prefetch_openings()
    assert started.wait(10)
    some = plain._ids[: len(plain._ids) // (2 * groups)][:: 97] + [plain._ids[-1]]  # the first and last groups
    assert [ahead.open(i, log=MaterialisationLog()) for i in some] == \
        [plain.open(i, log=MaterialisationLog()) for i in some]
    deadline = time.monotonic() + 30
    while any(c is None for c in ahead._group_columns) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert all(c is not None for c in ahead._group_columns)
    assert {c for _, _, c in reads} == {tuple(ahead._OPEN_COLUMNS)}
    assert "lemmata-world-openings" in {t for t, _, _ in reads}
    # every group once for the prefetching world, the first and last once for the other
    assert Counter(g for _, g, _ in reads) == Counter(range(groups)) + Counter([0, groups - 1])
    assert [plain._group_columns[g] is not None for g in range(groups)] == [g in (0, groups - 1) for g in range(groups)]
    ahead.prefetch_openings()  # read already: starts nothing
    time.sleep(0.05)
    assert len(reads) == groups + 2
    # the index is loaded by the prefetch, not by the first search, and searches as the other world's does
    assert "_index" not in vars(ahead)
    ahead.prefetch_search()
    assert "_index" in vars(ahead) and "_index" not in vars(plain)
    assert ahead.search("compact operator", 2019, 5) == plain.search("compact operator", 2019, 5)
    # a walk over every record opens them as single openings do, and keeps no group it read for itself
    walked = {r.id: r for r in plain.iter_opened() if r.id in set(some)}
    assert [walked[i] for i in some] == [ahead.open(i, log=MaterialisationLog()) for i in some]
    assert [plain._group_columns[g] is not None for g in range(groups)] == [g in (0, groups - 1) for g in range(groups)]


def test_opening_ready_reads_a_group_once_in_the_background(scholar_world_22, monkeypatch):
    """``opening_ready``: None where an opening reads nothing more; else one future per row group (however many
    records of it are asked about), done once the group's columns are read on a background thread, after which
    the opening reads nothing; a read that fails leaves the opening to raise its error (None, not a future that
    would be handed back for ever)."""
    import threading

    import lemmata.benchmarks.re2math.scholar.world.search as search
    from lemmata.benchmarks.re2math.scholar.artifact import MaterialisationLog
    from lemmata.benchmarks.re2math.scholar.worlds import open_any_world

    world, plain = open_any_world(scholar_world_22), open_any_world(scholar_world_22)
    first, second = world._ids[0], world._ids[1]
    expected = plain.open(second, log=MaterialisationLog())
    reads, real, gate = [], search.read_row_group, threading.Event()

    def read_row_group(path, group, columns):
        reads.append((threading.current_thread().name, group))
        assert gate.wait(10)
        return real(path, group, columns)

    monkeypatch.setattr(search, "read_row_group", read_row_group)
    wait = world.opening_ready(first)
    assert wait is not None and not wait.done() and world.opening_ready(second) is wait
    gate.set()
    assert wait.result(10) is None and world.opening_ready(first) is None
    assert reads == [("lemmata-world-opening", 0)]
    assert world.open(second, log=MaterialisationLog()) == expected
    assert reads == [("lemmata-world-opening", 0)]  # the opening read nothing more

    fail = threading.Event()

    def failing(path, group, columns):
        assert fail.wait(10)
        raise OSError("disk gone")

    monkeypatch.setattr(search, "read_row_group", failing)
    last = world._ids[-1]
    failed = world.opening_ready(last)
    fail.set()
    assert failed is not None and isinstance(failed.exception(10), OSError)
    assert world.opening_ready(last) is None
    with pytest.raises(OSError, match="disk gone"):
        world.open(last, log=MaterialisationLog())

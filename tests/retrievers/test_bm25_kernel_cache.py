"""The compiled ranking is compiled once per installation, not once per process: a second process loads every
kernel from numba's on-disk cache (kernels defined inside a function missed it in every process, because numba's
cache key pickled their helper functions with a per-process id: seconds of compiling before each process's first
query)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytest.importorskip("numba")

CALL = """
import numpy as np
from lemmata.retrievers.bm25 import compiled, kernels
data, indices, indptr = np.ones(3, np.float32), np.arange(3, dtype=np.int32), np.array([0, 3], np.int64)
assert compiled.candidates(data, indices, indptr, [0], 3, 2, 1e-6)[0].tolist() == [0, 1, 2]
assert compiled.candidates_batch(data, indices, indptr, [([0], 3, 2)], 1e-6)[2].tolist() == [0, 3]
stats = [f.stats for f in (kernels.candidates, kernels.candidates_batch)]
print(sum(sum(s.cache_hits.values()) for s in stats), sum(sum(s.cache_misses.values()) for s in stats),
      stats[0].cache_path)
"""


def run_call() -> tuple[int, int, str]:
    out = subprocess.run([sys.executable, "-c", CALL], capture_output=True, text=True, check=True,
                         env={**os.environ, "NUMBA_DISABLE_JIT": "0"}).stdout.split()
    return int(out[0]), int(out[1]), out[2]


def test_a_second_process_loads_the_kernels_from_the_cache():
    _, _, cache = run_call()  # compiles (and writes the cache) where this installation has not yet
    if not os.access(cache, os.W_OK):
        pytest.skip(f"numba's cache folder {cache} is not writable")
    hits, misses, _ = run_call()
    assert (hits, misses) == (2, 0)

"""Opening a world reads its integer columns (years, the opaque ids' ranks) from their Arrow buffers: pyarrow's
own conversion imports pandas, a large import (and about 80 MB) that nothing else of an open needs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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

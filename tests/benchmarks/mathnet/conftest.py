"""The MathNet-Solve fixture release, built once per session from the upstream-layout fixture (with images)."""

from __future__ import annotations

from pathlib import Path

import pytest

FIXTURE = Path(__file__).parents[2] / "fixtures" / "hub" / "MathNet"
RETRIEVE_FIXTURE = Path(__file__).parents[2] / "fixtures" / "hub" / "MathNet-Retrieve"


@pytest.fixture(scope="session")
def solve_release() -> Path:
    """``mathnet-solve-1.0.0`` where the handlers look for it ($LEMMATA_HOME/releases), built once."""
    from lemmata.benchmarks.mathnet.solve_builder import MathNetSolveBuilder
    from lemmata.core.paths import releases_dir

    target = releases_dir() / "mathnet-solve-1.0.0"
    if not target.is_dir():
        MathNetSolveBuilder(source_dir=FIXTURE).build(releases_dir(), quiet=True)
    return target


@pytest.fixture(scope="session")
def retrieve_release() -> Path:
    from lemmata.benchmarks.mathnet.builder import MathNetRetrieveBuilder
    from lemmata.core.paths import releases_dir

    target = releases_dir() / "mathnet-retrieve-1.0.0"
    if not target.is_dir():
        MathNetRetrieveBuilder(source_dir=RETRIEVE_FIXTURE).build(releases_dir(), quiet=True)
    return target


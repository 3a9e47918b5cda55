"""Shared test setup: offline Hub, no analytics, an isolated LEMMATA_HOME, and real releases built once.

Releases are built from the raw-source mirror (``../shared/data`` beside the
checkout, or ``LEMMATA_MIRROR``); without a mirror the builders download the
pinned upstream files, so the suite also runs on a networked machine.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

# Tests mirror the package's folders; some reuse another module's protocol server (``from test_judge import
# ChatServer``), so every test folder is importable by module name, wherever the importing test lives.
for _folder in sorted(p for p in Path(__file__).resolve().parent.rglob("*") if p.is_dir()
                      and "fixtures" not in p.parts and p.name != "__pycache__"):
    if str(_folder) not in sys.path:
        sys.path.append(str(_folder))

#: fixture folders hold data and the scripts that write it (several named make_fixture.py), never tests: collecting
#: their doctests would import two modules of one name
collect_ignore_glob = ["fixtures/*"]

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
# judges are asked no canary questions unless a test turns them on (tests/oracles/test_canaries.py): the tests that
# count a judge's requests count the real questions
os.environ.setdefault("LEMMATA_JUDGE_CANARIES", "0")
_HOME = tempfile.mkdtemp(prefix="lemmata-test-home-")
os.environ["LEMMATA_HOME"] = _HOME
os.environ.setdefault("HF_HOME", os.path.join(_HOME, "hf"))

import pytest  # noqa: E402


# Files that run first, longest first. The suite runs on a few workers (three on two cores; ``--dist=loadfile``, files
# in collection order: ``--no-loadscope-reorder``), so the order decides how long the run takes. The README-literal server's first
# start (releases, the current world, baselines: two minutes of one core in its own process) goes first, while the
# other worker builds the session's shared releases and worlds; then the long files, so no long file starts
# last while the other worker has nothing left (longest-processing-time-first). Every other file keeps its place.
FIRST = (
    "space/test_space_readme_literal.py",
    "benchmarks/re2math/test_re2math_scoring.py",
    "space/test_space_app.py",
    "space/test_space_controls.py",
    "benchmarks/re2math/source/test_source_retrieval.py",
    "benchmarks/re2math/scholar/test_scholar_v2.py",
    "test_evaluation.py",
    "benchmarks/re2math/test_scholar_v21.py",
    "benchmarks/re2math/test_scholar_v22.py",
    "benchmarks/re2math/agent/test_llm_agent.py",
    "benchmarks/re2math/agent/test_baseline_agent.py",
    "benchmarks/mathnet/test_answer_bombs.py",
)


@pytest.hookimpl(tryfirst=True)
def pytest_xdist_auto_num_workers(config) -> int:
    """One worker per core and one more (``--maxprocesses`` in ``pyproject.toml`` caps it at four), unless
    ``PYTEST_XDIST_AUTO_NUM_WORKERS`` says otherwise. The browser tests spend much of their time waiting on the
    page, not computing, so a worker per core leaves cores idle. On two cores three workers ran the suite in 651 s
    where two had taken 810 s (the later run also had the space's lighter event queue: ``lemmata.space.app.queued``);
    three fresh-clone runs took 718, 769 and 923 s, where they had taken 1,002-1,050 s. On a faster 2-core machine
    (AMD EPYC, Zen 5) a fresh-clone run took 402 s."""
    from xdist.plugin import pytest_xdist_auto_num_workers as per_core

    cores = per_core(config)
    return cores if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS") else cores + 1


def pytest_collection_modifyitems(session, config, items) -> None:
    """Put the files of :data:`FIRST` first, in that order (a stable sort: tests keep their order in a file)."""
    tests = Path(__file__).resolve().parent
    rank = {tests / name: i for i, name in enumerate(FIRST)}
    items.sort(key=lambda item: rank.get(item.path.resolve(), len(FIRST)))


def _shared_root(tmp_path_factory) -> Path | None:
    """The run's temp folder shared by every worker process, or None when the suite runs in one process."""
    return tmp_path_factory.getbasetemp().parent if os.environ.get("PYTEST_XDIST_WORKER") else None


def built_once(tmp_path_factory, key: str, build, folder: Path | None = None) -> Path:
    """``build(folder)`` run once for the whole test run, its result path returned.

    The suite runs in parallel worker processes (pytest-xdist, ``-n`` in ``pyproject.toml``), each with its own
    session: a session fixture alone would build the same release or offline world once per worker. So the first
    worker that needs it builds it under a file lock in the run's shared temp folder and records what it built;
    the others wait on the lock and reuse it. In one process (``-n 0``) it is a plain session build. ``folder``
    (default: a fresh folder named after ``key``) is where the build writes. Whatever is built this way is
    read-only to tests: a test that tampers copies it first.
    """
    shared = _shared_root(tmp_path_factory)
    if shared is None:
        return Path(build(folder or tmp_path_factory.mktemp(key)))
    from filelock import FileLock

    record = shared / f"built-{key}.path"
    with FileLock(str(shared / f"built-{key}.lock")):
        if record.is_file():
            return Path(record.read_text(encoding="utf-8"))
        if folder is None:  # a worker that died mid-build left no record: start again from an empty folder
            folder = shared / f"built-{key}"
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
        out = Path(build(folder))
        record.write_text(str(out), encoding="utf-8")
        return out


@pytest.fixture(scope="session")
def releases_root(tmp_path_factory) -> Path:
    """A run-wide folder of built releases (each built at most once per run, shared by the worker processes)."""
    shared = _shared_root(tmp_path_factory)
    if shared is None:
        return tmp_path_factory.mktemp("releases")
    (shared / "releases").mkdir(exist_ok=True)
    return shared / "releases"


@pytest.fixture(scope="session")
def re2math_release(tmp_path_factory, releases_root) -> Path:
    """The real Re2Math release built from the pinned snapshot."""
    from lemmata.benchmarks.re2math.builder import Re2MathBuilder

    return built_once(tmp_path_factory, "re2math-release", lambda d: Re2MathBuilder().build(d, quiet=True),
                      releases_root)


@pytest.fixture(scope="session")
def distractor_release(tmp_path_factory, releases_root) -> Path:
    """The math-arxiv-meta distractor release (the 2.0.0 world's haystack), built once per run."""
    from lemmata.benchmarks.math_arxiv_meta.builder import MathArxivMetaBuilder

    return built_once(tmp_path_factory, "distractor-release", lambda d: MathArxivMetaBuilder().build(d, quiet=True),
                      releases_root)


@pytest.fixture(scope="session")
def distractor_release_11(tmp_path_factory, releases_root) -> Path:
    """math-arxiv-meta-1.1.0 (ids repaired, twins merged: world 2.2's haystack), built once per run."""
    from lemmata.benchmarks.math_arxiv_meta.builder import MathArxivMetaBuilder11

    return built_once(tmp_path_factory, "distractor-release-11",
                      lambda d: MathArxivMetaBuilder11().build(d, quiet=True), releases_root)


@pytest.fixture(scope="session")
def scholar_artifacts(tmp_path_factory, re2math_release, distractor_release) -> Path:
    """Both offline Re2Math artifacts, built once per run: the 2.0.0 world (what submissions use) and 1.0.0
    (superseded, still audits). Read-only: a test that tampers copies the folder first."""
    from lemmata.benchmarks.re2math.scholar.artifact import build_artifact
    from lemmata.benchmarks.re2math.scholar.world.v2_0 import build_world

    def build(root: Path) -> Path:
        build_artifact(re2math_release, root)
        build_world(re2math_release, distractor_release, root)
        return root

    return built_once(tmp_path_factory, "scholar-artifacts", build)


@pytest.fixture(scope="session")
def session_re2math_handler(re2math_release, scholar_worlds):
    """One Re²Math track handler over the session's release and offline worlds (each opened once)."""
    from lemmata.benchmarks.re2math.scoring import Re2MathHandler

    return Re2MathHandler(releases_root=re2math_release.parent, artifacts_root=scholar_worlds, build_missing=False)


@pytest.fixture
def re2math_uploads(monkeypatch, session_re2math_handler):
    """``validate_upload`` (CLI and space) dispatches Re²Math files to the session's handler: a fresh handler
    per upload would reopen (or, in the test home, build) the 346k-record offline world every time."""
    import lemmata.families as families

    fresh = families.handler_for
    monkeypatch.setattr(families, "handler_for",
                        lambda benchmark: session_re2math_handler if benchmark == "re2math" else fresh(benchmark))


@pytest.fixture
def re2math_sources_copy(tmp_path) -> Path:
    """A writable copy of the verified raw Re2Math sources, for tests that tamper with them."""
    import shutil

    from lemmata.benchmarks.re2math.meta import RE2MATH
    from lemmata.release.sources import resolve_sources

    dest = tmp_path / "mirror" / "re2math"
    dest.mkdir(parents=True)
    for name, path in resolve_sources(RE2MATH).items():
        shutil.copyfile(path, dest / name)
    return dest


@pytest.fixture(scope="session")
def scholar_world_21(tmp_path_factory, re2math_release, distractor_release) -> Path:
    """re2math-scholar-offline-2.1.0 (superseded by 2.2.0; 2.0.0's records plus the math_bib distractors, one
    display, opaque ids), built once per session from the mirror, for the tests of its own results and pins.
    Read-only: a test that tampers copies it first."""
    from lemmata.benchmarks.re2math.scholar.world.v2_1 import build_world as build_world_21

    return built_once(tmp_path_factory, "scholar-world-21",
                      lambda d: build_world_21(re2math_release, distractor_release, d))



@pytest.fixture(scope="session")
def scholar_world_22(tmp_path_factory, re2math_release, distractor_release_11) -> Path:
    """The current offline world, re2math-scholar-offline-2.2.0 (one work, one record, on math-arxiv-meta-1.1.0),
    built once per run from the session's releases. Read-only: a test that tampers copies it first."""
    from lemmata.benchmarks.re2math.scholar.world.v2_2 import build_world as build_world_22

    return built_once(tmp_path_factory, "scholar-world-22",
                      lambda d: build_world_22(re2math_release, distractor_release_11, d))


@pytest.fixture(scope="session")
def scholar_worlds(tmp_path_factory, scholar_world_22, scholar_world_21, scholar_artifacts) -> Path:
    """One artifacts folder holding every offline Re²Math world of the run — 1.0.0, 2.0.0 and 2.1.0 (superseded,
    still scored and audited) and the current 2.2.0 —, linked to the session's builds (nothing is built again).
    Read-only, like the builds it links to. (2.2.0 is asked for first: while another worker builds the older ones,
    this one builds it, instead of waiting.)"""
    def link(root: Path) -> Path:
        for built in [*scholar_artifacts.iterdir(), scholar_world_21, scholar_world_22]:
            if built.is_dir() and not built.name.startswith("."):
                (root / built.name).symlink_to(built, target_is_directory=True)
        return root

    return built_once(tmp_path_factory, "scholar-worlds", link)


@pytest.fixture
def worlds_in_home(scholar_worlds, re2math_release) -> Path:
    """This worker's test home (``LEMMATA_HOME``) with the session's Re²Math release and every offline world linked
    where the CLI, the space and the default handlers look for them, so none of them builds its own copy (a world
    build is a minute of CPU). Returns the home's artifacts folder."""
    from lemmata.core.paths import artifacts_dir, releases_dir

    for target, built in [(artifacts_dir() / w.name, w) for w in scholar_worlds.iterdir()] + [
            (releases_dir() / re2math_release.name, re2math_release)]:
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(built.resolve(), target_is_directory=True)
    return artifacts_dir()


# -- MathNet-Solve and MathNet-Retrieve fixture releases (upstream layout, images included) ---------------------

MATHNET_SOLVE_FIXTURE = Path(__file__).parent / "fixtures" / "hub" / "MathNet"
MATHNET_RETRIEVE_FIXTURE = Path(__file__).parent / "fixtures" / "hub" / "MathNet-Retrieve"


@pytest.fixture(scope="session")
def solve_release() -> Path:
    """The MathNet-Solve release (schema A fixture) where the handlers look for it ($LEMMATA_HOME/releases), built
    once."""
    from lemmata.benchmarks.mathnet.solve_builder import MathNetSolveBuilder
    from lemmata.benchmarks.mathnet.solve_meta import MATHNET_SOLVE
    from lemmata.core.paths import releases_dir

    target = releases_dir() / MATHNET_SOLVE.release_id
    if not target.is_dir():
        MathNetSolveBuilder(source_dir=MATHNET_SOLVE_FIXTURE).build(releases_dir(), quiet=True)
    return target


@pytest.fixture(scope="session")
def retrieve_release() -> Path:
    from lemmata.benchmarks.mathnet.builder import MathNetRetrieveBuilder
    from lemmata.core.paths import releases_dir

    target = releases_dir() / "mathnet-retrieve-1.0.0"
    if not target.is_dir():
        MathNetRetrieveBuilder(source_dir=MATHNET_RETRIEVE_FIXTURE).build(releases_dir(), quiet=True)
    return target

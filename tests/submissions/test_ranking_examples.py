"""The shipped example runs of the Re²Math theorem- and source-retrieval and TaoBench equivalence tracks are what
``lemmata evaluate --model bm25 --depth 10`` writes for them, byte for byte, and score complete: the Submit tab
links them, so they must never drift from the command that makes them.

Regenerate after a change that alters them (a release, a world, the BM25 baseline, the header)::

    lemmata evaluate --model bm25 --depth 10 --no-store --out runs/ --track re2math-theorem-retrieval:raw \\
        --track re2math-source-retrieval:raw-masked --track taobench-equivalence:tao2mathlib
    cp runs/re2math-theorem-retrieval.test.raw.bm25.jsonl submissions/re2math/example-re2math-theorem-retrieval.jsonl
    cp runs/re2math-source-retrieval.test.raw-masked.bm25.jsonl \\
        submissions/re2math/example-re2math-source-retrieval.jsonl
    cp runs/taobench-equivalence.taobench-150.tao2mathlib.bm25.jsonl \\
        submissions/taobench/example-taobench-equivalence.jsonl

The source-retrieval example is checked in ``tests/benchmarks/re2math/source/test_source_retrieval.py``, beside
the CLI baseline that indexes the same 354k world records (one BM25 build for both; see :func:`assert_shipped`).
"""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: shipped example -> (the ``--track`` selector, the file ``lemmata evaluate`` writes for it)
EXAMPLES = {
    "re2math/example-re2math-theorem-retrieval.jsonl": ("re2math-theorem-retrieval:raw",
                                                        "re2math-theorem-retrieval.test.raw.bm25.jsonl"),
    "taobench/example-taobench-equivalence.jsonl": ("taobench-equivalence:tao2mathlib",
                                                    "taobench-equivalence.taobench-150.tao2mathlib.bm25.jsonl"),
}
#: the same for the source-retrieval track (its run needs the current offline world)
SOURCE_EXAMPLE = {"re2math/example-re2math-source-retrieval.jsonl": (
    "re2math-source-retrieval:raw-masked", "re2math-source-retrieval.test.raw-masked.bm25.jsonl")}


def assert_shipped(example: str, run) -> None:
    """The shipped ``example`` is byte for byte the ``evaluate`` run's file, scores complete, and the Submit tab
    links it."""
    from lemmata.scoring import validate_upload
    from lemmata.space.templates import example_path

    shipped = (ROOT / "submissions" / example).read_bytes()
    assert shipped == run.path.read_bytes(), f"regenerate {example} (see tests/submissions/test_ranking_examples.py)"
    assert run.result.status == "complete" and run.result.main.value is not None
    validated = validate_upload(shipped, Path(example).name)
    assert example_path(validated.benchmark) == f"submissions/{example}"  # the Submit tab links it


@pytest.fixture(scope="module")
def written(tmp_path_factory, re2math_release):
    """One ``evaluate`` run over both tracks, the session's Re²Math release where the harness looks for it."""
    from lemmata.core.paths import releases_dir
    from lemmata.harness.evaluate import evaluate

    target = releases_dir() / re2math_release.name
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        target.symlink_to(re2math_release.resolve(), target_is_directory=True)
    out = tmp_path_factory.mktemp("examples")
    runs = evaluate("bm25", [selector for selector, _ in EXAMPLES.values()], out=out, depth=10, quiet=True)
    return {r.path.name: r for r in runs}


@pytest.mark.parametrize("example", sorted(EXAMPLES))
def test_shipped_example_is_what_evaluate_writes_and_scores_complete(written, example):
    _, name = EXAMPLES[example]
    assert_shipped(example, written[name])

"""Agent input rendering on every real row, for every track and window."""

from __future__ import annotations

import pytest

from lemmata.benchmarks.re2math.render import TRACKS, WINDOWS, render_instance
from lemmata.release.load import open_release


@pytest.fixture(scope="module")
def rows(re2math_release):
    return open_release(re2math_release).rows("full", "full")


@pytest.mark.parametrize("track", TRACKS)
@pytest.mark.parametrize("window", WINDOWS)
def test_render_every_real_row(rows, track, window):
    for row in rows:
        text = render_instance(row, track, window)
        x = row["x"]
        blocks = x["local_context"]
        shown = blocks[-window:]
        assert text.startswith("## Setup\n" + x["global_context"]["setup"].strip())
        assert "## Target theorem\n" + x["global_context"]["target_theorem"].strip() in text
        header = f"## Local proof context (last {len(shown)} of {len(blocks)} blocks, oldest first)"
        assert header in text
        body = text.split(header, 1)[1]
        # exactly the last m blocks, oldest first, numbered by their position in the proof
        positions = [body.find(f"[block {len(blocks) - len(shown) + i + 1}]\n" + b.strip())
                     for i, b in enumerate(shown)]
        assert all(p >= 0 for p in positions) and positions == sorted(positions)
        assert body.count("[block ") == len(shown)
        if track == "assisted":
            assert text.endswith("## Anchor\n" + x["anchor_hint"].strip())
        else:
            assert "## Anchor" not in text


def test_fewer_blocks_than_window_uses_what_exists(rows):
    row = next(r for r in rows if len(r["x"]["local_context"]) == 1)
    text = render_instance(row, "raw", 5)
    assert "(last 1 of 1 blocks, oldest first)" in text and text.count("[block ") == 1


def test_empty_local_context_renders_an_empty_section():
    row = {"x": {"global_context": {"setup": "S", "target_theorem": "T"}, "local_context": [], "anchor_hint": "A"}}
    text = render_instance(row, "raw", 3)
    assert text.endswith("## Local proof context (last 0 of 0 blocks, oldest first)")
    assert "[block" not in text


def test_local_only_scope_drops_global_context(rows):
    text = render_instance(rows[0], "raw", 5, scope="local_only")
    assert "## Setup" not in text and "## Target theorem" not in text


@pytest.mark.parametrize("kwargs", [{"track": "oracle"}, {"window": 2}, {"window": 0}, {"scope": "everything"}])
def test_bad_arguments_are_rejected(rows, kwargs):
    with pytest.raises(ValueError):
        render_instance(rows[0], **kwargs)

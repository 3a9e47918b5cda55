"""Masking the target citation key in the agent input, on every real row, and through ``lemmata render``."""

from __future__ import annotations

import re

import pytest

from lemmata.benchmarks.re2math.render import MASK_TOKEN, TRACKS, WINDOWS, mask_cite_key, render_instance
from lemmata.cli import main
from lemmata.release.load import open_release

CITE = re.compile(r"\\[A-Za-z]*cite[A-Za-z]*\*?\s*(?:\[[^\]]*\]\s*){0,2}\{([^{}]*)\}")


def _cited_keys(text: str) -> list[str]:
    return [k.strip() for m in CITE.finditer(text) for k in m.group(1).split(",")]


@pytest.fixture(scope="module")
def release(re2math_release):
    return open_release(re2math_release)


def _changed(rows, track="raw", window=5) -> list[str]:
    return [r["instance_id"] for r in rows
            if render_instance(r, track, window) != render_instance(r, track, window, mask_target_cite=True)]


def test_masking_changes_exactly_the_inputs_that_cite_the_target(release):
    eval200 = release.rows("eval200", "test")
    full = release.rows("full", "full")
    assert len(_changed(eval200)) == 28
    assert len(_changed(full)) == 151
    assert len(_changed(full, "assisted", 5)) == 151


@pytest.mark.parametrize("track", TRACKS)
@pytest.mark.parametrize("window", WINDOWS)
def test_masking_removes_only_the_target_key(release, track, window):
    for row in release.rows("full", "full"):
        key = row["z"]["citation_key"].strip()
        plain = render_instance(row, track, window)
        masked = render_instance(row, track, window, mask_target_cite=True)
        before, after = _cited_keys(plain), _cited_keys(masked)
        assert key not in after, row["instance_id"]
        # same commands, same lists: only the target key became the token, every other key is kept in place
        assert len(before) == len(after)
        assert [MASK_TOKEN if k == key else k for k in before] == after
        # nothing outside citation commands changed
        assert CITE.sub("", plain) == CITE.sub("", masked)


def test_mask_cite_key_handles_optional_arguments_and_lists():
    text = r"by \citep[see][Lemma 2]{a, KEY ,b}, \citeauthor*{KEY}, \nocite{KEYS}, \cite{KEY2} and KEY"
    assert mask_cite_key(text, "KEY") == r"by \citep[see][Lemma 2]{a, ? ,b}, \citeauthor*{?}, \nocite{KEYS}, " \
                                         r"\cite{KEY2} and KEY"
    assert mask_cite_key(text, "") == text


def test_render_command_masks(re2math_release, release, capsys):
    row = next(r for r in release.rows("eval200", "test")
               if r["z"]["citation_key"].strip() in _cited_keys(render_instance(r, "raw", 5)))
    assert main(["render", str(re2math_release), row["instance_id"], "--mask-target-cite"]) == 0
    masked = capsys.readouterr().out
    assert main(["render", str(re2math_release), row["instance_id"]]) == 0
    plain = capsys.readouterr().out
    key = row["z"]["citation_key"].strip()
    assert key in _cited_keys(plain) and key not in _cited_keys(masked) and MASK_TOKEN in _cited_keys(masked)


def test_render_command_exposes_the_planning_scope(re2math_release, release, capsys):
    row = next(iter(release.rows("eval200", "test")))
    assert main(["render", str(re2math_release), row["instance_id"], "--scope", "local_only"]) == 0
    local = capsys.readouterr().out
    assert local.rstrip("\n") == render_instance(row, "raw", 5, "local_only")
    assert "## Setup" not in local and "## Target theorem" not in local and "## Local proof context" in local

"""A family's artifact versions: one typed history, checked when declared, asked by every caller."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from lemmata.core.artifacts import ArtifactVersion, ArtifactVersions
from lemmata.core.registry import UnknownNameError


def _history(current: str = "2", **second) -> ArtifactVersions:
    return ArtifactVersions(kind="index", current=current, versions=(
        ArtifactVersion(version="1", artifact_id="ix-1", kind="old", superseded_by="ix-2", why="ranked badly"),
        ArtifactVersion(version="2", artifact_id="ix-2", kind="new", **second)))


def test_a_history_answers_every_question_about_its_versions():
    h = _history()
    assert (h.current, h.current_id, h.version_of("ix-1"), h.version_of("ix-3")) == ("2", "ix-2", "1", None)
    assert (h.superseded_by("ix-1"), h.superseded_by("ix-2"), h.superseded_by("other")) == ("ix-2", None, None)
    assert h.warning("ix-2") is None and h.warning("other") is None
    assert h.warning("ix-1").startswith("warning: ix-1 is superseded by ix-2 (it ranked badly)")
    assert [v.version for v in h.of_kind("new")] == ["2"] and h.find("ix-1").why == "ranked badly"
    with pytest.raises(UnknownNameError, match=r"unknown new version '1' \(known: 2\)"):
        h.get("1", kind="new")
    with pytest.raises(UnknownNameError, match="did you mean '2'"):
        h.get("2.")


def test_a_history_that_contradicts_itself_is_refused_when_declared():
    with pytest.raises(ValidationError, match="cannot be superseded"):
        _history(superseded_by="ix-1", why="loops")
    with pytest.raises(ValidationError, match="is not declared"):
        ArtifactVersions(kind="index", current="1", versions=(
            ArtifactVersion(version="0", artifact_id="ix-0", kind="k", superseded_by="ix-9", why="gone"),
            ArtifactVersion(version="1", artifact_id="ix-1", kind="k")))
    with pytest.raises(ValidationError, match="unknown current index version '3'"):
        _history(current="3")
    with pytest.raises(ValidationError, match="declared twice"):
        ArtifactVersions(kind="index", current="1", versions=(
            ArtifactVersion(version="1", artifact_id="ix-1", kind="k"),
            ArtifactVersion(version="1", artifact_id="ix-1b", kind="k")))
    with pytest.raises(ValidationError, match="says why"):
        ArtifactVersion(version="1", artifact_id="ix-1", kind="k", superseded_by="ix-2")

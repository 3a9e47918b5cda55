"""Re²Math's offline artifact versions, declared once (``scholar.worlds.WORLDS``): every version opens, builds and
is recognised through its declared functions, and each version package agrees with the declaration."""

from __future__ import annotations

import importlib

import pytest

from lemmata.benchmarks.re2math.scholar.worlds import CURRENT, WORLDS, lists_openings, world_id, world_version
from lemmata.core.registry import UnknownNameError


def test_the_declared_history():
    assert [v.version for v in WORLDS.versions] == ["1.0.0", "2.0.0", "2.1.0", "2.2.0"] and CURRENT == "2.2.0"
    assert WORLDS.superseded_by(world_id("1.0.0")) == world_id("2.0.0")
    assert WORLDS.superseded_by(world_id("2.0.0")) == world_id("2.1.0")
    assert WORLDS.superseded_by(world_id("2.1.0")) == world_id() == "re2math-scholar-offline-2.2.0"
    assert WORLDS.superseded_by(world_id()) is None
    # only the versions superseded while the scorer stored the successor in each result keep doing so (their
    # stored results keep their bytes); 2.1.0's results store nothing: the board reads its badge from WORLDS
    assert [v.version for v in WORLDS.versions if v.stamped] == ["1.0.0", "2.0.0"]
    assert WORLDS.stamped_successor(world_id("2.1.0")) is None
    assert "one work as two records" in WORLDS.warning(world_id("2.1.0"))
    assert [v.version for v in WORLDS.of_kind("world")] == ["2.0.0", "2.1.0", "2.2.0"]
    assert (lists_openings(world_id("1.0.0")), lists_openings(world_id("2.0.0")), lists_openings(world_id())) == (
        False, True, True)


@pytest.mark.parametrize("version", [v.version for v in WORLDS.of_kind("world")])
def test_each_world_package_is_the_declared_version(version):
    declared = WORLDS.get(version)
    package = importlib.import_module(declared.open.partition(":")[0])
    assert package.VERSION == version and package.WORLD_ID == declared.artifact_id
    for job in ("open", "build", "holds"):
        assert declared.function(job) is getattr(package, getattr(declared, job).partition(":")[2])


def test_the_1x_artifact_is_no_world():
    assert WORLDS.get("1.0.0").function("open").__name__ == "open_artifact"
    with pytest.raises(UnknownNameError, match="unknown world version '1.0.0'"):
        world_version("1.0.0")
    with pytest.raises(UnknownNameError, match="did you mean '2.2.0'"):
        world_id("2.2")


def test_the_registry_serves_the_one_history_to_generic_layers():
    """The space and the CLI learn the versions from the family record (``Family.artifacts``) alone: the About
    page lists 2.0.0 and 2.1.0 as superseded, and `lemmata artifact build` offers every declared version."""
    from lemmata.cli import build_parser
    from lemmata.families import artifact_families, artifact_versions
    from lemmata.space.about import artifacts_md

    from lemmata.benchmarks.re2math.scholar.worlds import WORLDS

    assert artifact_families() == ["re2math"] and artifact_versions("re2math") is WORLDS
    text = artifacts_md()
    assert "`re2math-scholar-offline-2.0.0` — superseded by `re2math-scholar-offline-2.1.0`" in text
    assert "`re2math-scholar-offline-2.1.0` — superseded by `re2math-scholar-offline-2.2.0`: holds one work" in text
    assert "`re2math-scholar-offline-2.2.0` (current)" in text and "not yet current" not in text
    build = build_parser().parse_args(["artifact", "build"])
    assert build.version == WORLDS.current

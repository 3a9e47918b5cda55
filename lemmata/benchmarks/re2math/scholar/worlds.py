"""Which offline world is current, and how any version of it opens: one place for every command and function.

A world is frozen once results are scored against it, so a better world is a
new version and the old one keeps opening (its results audit, and stay
scoreable in their own group). Every caller that does not name a world gets
:data:`CURRENT` — ``re2math-scholar-offline-2.1.0`` — and a superseded world
(1.0.0, 2.0.0) opens only when named, with the one-line warning of
:func:`superseded_warning`.
"""

from __future__ import annotations

from pathlib import Path

from lemmata.benchmarks.re2math.scholar.layout import ARTIFACT_NAME

#: the version every command and function uses when none is named
CURRENT = "2.1.0"
#: every version that opens, oldest first
VERSIONS = ("1.0.0", "2.0.0", "2.1.0")
#: what superseded each version (and why, in a few words)
SUPERSEDED = {
    "1.0.0": ("2.0.0", "it served the reference statements and labelled gold records"),
    "2.0.0": ("2.1.0", "the form of a hit (year, fields, id order) singled out gold records"),
}


def world_id(version: str = CURRENT) -> str:
    """``re2math-scholar-offline-<version>``.

    >>> world_id(), world_id("2.0.0")
    ('re2math-scholar-offline-2.1.0', 're2math-scholar-offline-2.0.0')
    """
    return f"{ARTIFACT_NAME}-{version}"


def version_of(artifact_id: str) -> str | None:
    """The version an artifact id names (None: not an offline world id).

    >>> version_of("re2math-scholar-offline-2.0.0"), version_of("my-cache")
    ('2.0.0', None)
    """
    prefix = f"{ARTIFACT_NAME}-"
    v = artifact_id[len(prefix):] if artifact_id.startswith(prefix) else None
    return v if v in VERSIONS else None


def superseded_warning(artifact_id: str) -> str | None:
    """The one-line warning a superseded world opens with (None for the current one or any other id).

    >>> superseded_warning("re2math-scholar-offline-2.0.0")
    'warning: re2math-scholar-offline-2.0.0 is superseded by re2math-scholar-offline-2.1.0 (the form of a hit (year, fields, id order) singled out gold records); it opens so that its results audit — new work uses re2math-scholar-offline-2.1.0'
    >>> superseded_warning("re2math-scholar-offline-2.1.0") is None
    True
    """
    v = version_of(artifact_id)
    if v not in SUPERSEDED:
        return None
    successor, why = SUPERSEDED[v]
    return (f"warning: {artifact_id} is superseded by {world_id(successor)} ({why}); it opens so that its results "
            f"audit — new work uses {world_id()}")


def is_any_world(path: str | Path) -> bool:
    """Does this folder hold a 2.x world (2.0.0 or 2.1.0), as opposed to a 1.0.0 artifact?"""
    from lemmata.benchmarks.re2math.scholar.world import is_world
    from lemmata.benchmarks.re2math.scholar.world21 import is_world_21

    return is_world(path) or is_world_21(path)


def open_any_world(path: str | Path, *, verify: bool = True):
    """Open a 2.0.0 or 2.1.0 world folder (each verified against its MANIFEST.json)."""
    from lemmata.benchmarks.re2math.scholar.world import open_world
    from lemmata.benchmarks.re2math.scholar.world21 import is_world_21, open_world_21

    return open_world_21(path, verify=verify) if is_world_21(path) else open_world(path, verify=verify)


def build_world_version(version: str, release: str | Path, distractors: str | Path,
                        out_root: str | Path | None = None, *, quiet: bool = True) -> Path:
    """Build a 2.x world of ``version`` (2.1.0 reads the math_bib table from the mirror)."""
    from lemmata.core.errors import InputError

    if version == "2.1.0":
        from lemmata.benchmarks.re2math.scholar.world21 import build_world_21

        return build_world_21(release, distractors, out_root, quiet=quiet)
    if version == "2.0.0":
        from lemmata.benchmarks.re2math.scholar.world import build_world

        return build_world(release, distractors, out_root, quiet=quiet)
    raise InputError.one("version", f"no world version {version!r}; worlds: 2.0.0, 2.1.0", field="version")


def world_path(version: str = CURRENT) -> Path:
    from lemmata.core.paths import artifacts_dir

    return artifacts_dir() / world_id(version)


def current_world(*, build: bool = True, quiet: bool = True, version: str = CURRENT):
    """The current world (or the named ``version``), building the two releases and the world first when missing."""
    from lemmata.core.errors import LemmataError
    from lemmata.benchmarks.re2math.scholar.artifact import DEFAULT_LOCK, default_release_path
    from lemmata.benchmarks.re2math.scholar.world import default_distractor_path

    with DEFAULT_LOCK:
        path = world_path(version)
        if not path.is_dir():
            if not build:
                raise LemmataError(f"retrieval artifact {world_id(version)} is not built; run "
                                   f"`lemmata artifact build --version {version}`")
            build_world_version(version, default_release_path(build=True, quiet=quiet),
                                default_distractor_path(quiet=quiet), path.parent, quiet=quiet)
        return open_any_world(path)

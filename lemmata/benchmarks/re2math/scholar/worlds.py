"""Every version of Re²Math's offline scholarly artifact, declared once: which is current, what superseded each, why.

An artifact is frozen once results are scored against it, so a better one is
a new version and the old one keeps opening (its results audit, and stay
scoreable in their own group). :data:`WORLDS` is that history — the family's
``Family.artifacts`` — and every caller asks it, never a version string of
its own: the current version (:data:`CURRENT`, ``re2math-scholar-offline-2.2.0``),
an id's version, each version's successor and why (from which the board and
the audit show a result's badge when they show it), the warning a superseded
version opens with, and how each version builds and opens. The
1.x artifact (``kind="artifact"``: it serves statements) and the 2.x worlds
(``kind="world"``, one sub-package each under
:mod:`lemmata.benchmarks.re2math.scholar.world`) differ in shape; the
functions below open, build and recognise any world by asking the registry.
"""

from __future__ import annotations

import threading
from pathlib import Path

from lemmata.core.artifacts import ArtifactVersion, ArtifactVersions
from lemmata.benchmarks.re2math.scholar.layout import ARTIFACT_NAME


def _version(version: str, kind: str, module: str, opens: str, builds: str, holds: str, *,
             successor: str | None = None, why: str | None = None, stamped: bool = False) -> ArtifactVersion:
    """One declared version: its id from the version, its functions in ``module`` (under this package)."""
    def ref(function: str) -> str:
        return f"lemmata.benchmarks.re2math.scholar.{module}:{function}"

    return ArtifactVersion(version=version, artifact_id=f"{ARTIFACT_NAME}-{version}", kind=kind, open=ref(opens),
                           build=ref(builds), holds=ref(holds), why=why, stamped=stamped,
                           superseded_by=f"{ARTIFACT_NAME}-{successor}" if successor else None)


#: every version that opens, oldest first, and the current one (what every command uses when none is named).
#: 1.0.0 and 2.0.0 were superseded while the scorer still wrote the successor into each result (``stamped``):
#: their results keep doing so, so stored ones keep their bytes and ids. 2.1.0 was superseded after the board
#: began reading supersession here: its results are what they were, and the badge comes from this history.
WORLDS = ArtifactVersions(kind="offline scholarly artifact", current="2.2.0", versions=(
    _version("1.0.0", "artifact", "artifact", "open_artifact", "build_artifact", "is_artifact", successor="2.0.0",
             why="labels gold hits and serves reference statements when a source is opened", stamped=True),
    _version("2.0.0", "world", "world.v2_0", "open_world", "build_world", "is_world", successor="2.1.0",
             why="shows hits whose form (year, fields, id order) singles out gold records", stamped=True),
    _version("2.1.0", "world", "world.v2_1", "open_world", "build_world", "is_world", successor="2.2.0",
             why="holds one work as two records (arXiv ids that lost trailing zeros as floats beside their "
                 "full ids, undated arXiv twins of dated records), so choosing the cited work's twin scores as "
                 "wrong, and reads digits inside DOIs as arXiv ids"),
    _version("2.2.0", "world", "world.v2_2", "open_world", "build_world", "is_world"),
))
#: the version every command and function uses when none is named
CURRENT = WORLDS.current


def world_id(version: str = CURRENT) -> str:
    """``re2math-scholar-offline-<version>`` of a declared version (an unknown one fails with close matches).

    >>> world_id(), world_id("2.1.0")
    ('re2math-scholar-offline-2.2.0', 're2math-scholar-offline-2.1.0')
    >>> WORLDS.superseded_by(world_id("2.1.0")), WORLDS.superseded_by(world_id())
    ('re2math-scholar-offline-2.2.0', None)
    >>> WORLDS.stamped_successor(world_id("2.0.0")), WORLDS.stamped_successor(world_id("2.1.0"))
    ('re2math-scholar-offline-2.1.0', None)
    >>> print(WORLDS.warning("re2math-scholar-offline-2.0.0"))
    warning: re2math-scholar-offline-2.0.0 is superseded by re2math-scholar-offline-2.1.0 (it shows hits whose form (year, fields, id order) singles out gold records); it opens so that its results audit — new work uses re2math-scholar-offline-2.2.0
    """
    return WORLDS.get(version).artifact_id


def version_of(artifact_id: str) -> str | None:
    """The version an artifact id names (None: not an offline artifact id).

    >>> version_of("re2math-scholar-offline-2.0.0"), version_of("my-cache")
    ('2.0.0', None)
    """
    return WORLDS.version_of(artifact_id)


def lists_openings(artifact_id: str) -> bool:
    """Must a trajectory on this artifact list the records it opened? On every world (and any artifact not
    declared here) yes: openings are part of the trajectory; the 1.x artifact never asked for them.

    >>> lists_openings(world_id("1.0.0")), lists_openings(world_id("2.0.0")), lists_openings("my-cache")
    (False, True, True)
    """
    found = WORLDS.find(artifact_id)
    return found is None or found.kind == "world"


def world_version(version: str) -> ArtifactVersion:
    """The declared 2.x world ``version`` (the 1.x artifact is no world); anything else fails with close matches."""
    return WORLDS.get(version, kind="world")


def held_version(path: str | Path) -> ArtifactVersion | None:
    """The declared version a folder holds (by the schema its ``ARTIFACT.json`` declares), or None."""
    return next((v for v in WORLDS.versions if v.function("holds")(path)), None)


def is_any_world(path: str | Path) -> bool:
    """Does this folder hold a 2.x world, as opposed to the 1.x artifact (or nothing declared)?"""
    held = held_version(path)
    return held is not None and held.kind == "world"


def open_any_world(path: str | Path, *, verify: bool = True):
    """Open a world folder of any 2.x version (verified against its MANIFEST.json and its version's pin).

    The version is the one the folder declares; a folder that declares none (missing, or not a world) is refused
    by the checks of the version its name names, else of the current one.
    """
    worlds = WORLDS.of_kind("world")
    held = held_version(path)
    named = WORLDS.find(Path(path).name)
    version = next((v for v in (held, named) if v in worlds), WORLDS.get(CURRENT))
    return version.function("open")(path, verify=verify)


def build_world_version(version: str, release: str | Path, distractors: str | Path | None,
                        out_root: str | Path | None = None, *, quiet: bool = True) -> Path:
    """Build a 2.x world of ``version`` (2.1.0 and later read the math_bib table from the mirror); ``distractors``
    None: the math-arxiv-meta release the version is built on, resolved through the registry (built when missing)."""
    if distractors is None:
        from lemmata.benchmarks.re2math.scholar.world import default_distractor_path
        from lemmata.benchmarks.re2math.scholar.world.info import distractor_release

        distractors = default_distractor_path(quiet=quiet, release_id=distractor_release(version))
    return world_version(version).function("build")(release, distractors, out_root, quiet=quiet)


def world_path(version: str = CURRENT) -> Path:
    from lemmata.core.paths import artifacts_dir

    return artifacts_dir() / world_id(version)


def default_release_path(*, build: bool = True, quiet: bool = True) -> Path:
    """The Re²Math release every version's default folder is built from (see :func:`lemmata.catalog.release_path`)."""
    from lemmata.benchmarks.re2math.meta import RE2MATH
    from lemmata.catalog import release_path

    return release_path(RE2MATH, build=build, quiet=quiet)


#: held while a default folder (any version's) is looked for and built, so two threads never build one twice
DEFAULT_LOCK = threading.Lock()


def current_world(*, build: bool = True, quiet: bool = True, version: str = CURRENT):
    """The current world (or the named ``version``), building the two releases and the world first when missing."""
    from lemmata.core.errors import LemmataError

    with DEFAULT_LOCK:
        path = world_path(version)
        if not path.is_dir():
            if not build:
                raise LemmataError(f"retrieval artifact {world_id(version)} is not built; run "
                                   f"`lemmata artifact build --version {version}`")
            build_world_version(version, default_release_path(build=True, quiet=quiet), None, path.parent,
                                quiet=quiet)
        return open_any_world(path)

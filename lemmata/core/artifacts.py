"""The versions of a frozen artifact, declared once: which one is current, what superseded each, how each opens.

A frozen artifact (an index, an offline world) is never rebuilt differently
under its id: a better one is a new version, and the old one keeps opening so
that the results made with it audit. :class:`ArtifactVersions` is that history
as one typed record, so every caller asks it — the current version, an id's
version, its successor and why, the warning a superseded version opens with —
instead of re-deriving any of them. A family declares it once and points its
``Family.artifacts`` at it. How a version builds, opens and is recognised on
disk is named by ``"module:function"`` references, imported only when asked
for (:func:`lemmata.core.registry.resolve`), so reading the history imports
nothing heavy.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from pydantic import Field, model_validator

from lemmata.core.models import Frozen
from lemmata.core.registry import UnknownNameError, resolve, suggest

#: the jobs a version names a function for
Job = Literal["open", "build", "holds"]


class ArtifactVersion(Frozen):
    """One version of an artifact: its id, its successor (if any) and the functions that build and open it."""

    version: str = Field(min_length=1, description="the version, e.g. '2.1.0'")
    artifact_id: str = Field(min_length=1, description="the id results name it by (their frozen tuple's)")
    kind: str = Field(min_length=1, description="its shape, where versions differ in it (e.g. 'artifact', 'world'): "
                                                "code that needs one shape asks for versions of that kind")
    superseded_by: str | None = Field(default=None, description="the artifact id that replaces it (None: not "
                                                                "superseded); its results still audit")
    why: str | None = Field(default=None, description="what was wrong with it, a verb phrase that reads after its "
                                                      "id ('<id> <why>'); given exactly when it is superseded")
    stamped: bool = Field(default=False, description="results scored on it store the successor in their flags and "
                          "notes: true only of versions superseded before the board read supersession from this "
                          "history, so that their results keep their bytes and ids; a version superseded later "
                          "leaves its results as they were and the board reads its badge here")
    open: str | None = Field(default=None, description="'module:function' opening a built folder")
    build: str | None = Field(default=None, description="'module:function' building it")
    holds: str | None = Field(default=None, description="'module:function' telling whether a folder holds it")

    @model_validator(mode="after")
    def _why_with_successor(self) -> "ArtifactVersion":
        if (self.superseded_by is None) != (self.why is None):
            raise ValueError(f"{self.artifact_id}: a superseded version says why, and only a superseded one")
        if self.stamped and self.superseded_by is None:
            raise ValueError(f"{self.artifact_id}: only a superseded version's results can carry its successor")
        return self

    def function(self, job: Job) -> Callable:
        """The function this version names for ``job`` (imported now).

        >>> v = ArtifactVersion(version="1", artifact_id="a-1", kind="index", open="lemmata.core.registry:suggest")
        >>> v.function("open").__name__
        'suggest'
        >>> v.function("build")
        Traceback (most recent call last):
        ...
        lemmata.core.registry.UnknownNameError: a-1 names no build function
        """
        ref = getattr(self, job)
        if ref is None:
            raise UnknownNameError(f"{self.artifact_id} names no {job} function")
        return resolve(ref)  # type: ignore[return-value]


class ArtifactVersions(Frozen):
    """Every version of one artifact, oldest first, and the current one.

    >>> av = ArtifactVersions(kind="index", current="2", versions=(
    ...     ArtifactVersion(version="1", artifact_id="ix-1", kind="index", superseded_by="ix-2",
    ...                     why="was slow"),
    ...     ArtifactVersion(version="2", artifact_id="ix-2", kind="index")))
    >>> av.current_id, av.version_of("ix-1"), av.version_of("other")
    ('ix-2', '1', None)
    >>> av.superseded_by("ix-1"), av.superseded_by("ix-2"), av.superseded_by("other")
    ('ix-2', None, None)
    >>> print(av.warning("ix-1"))
    warning: ix-1 is superseded by ix-2 (it was slow); it opens so that its results audit — new work uses ix-2
    >>> av.get("3")
    Traceback (most recent call last):
    ...
    lemmata.core.registry.UnknownNameError: unknown index version '3' (known: 1, 2)
    """

    kind: str = Field(min_length=1, description="what the artifact is, as messages name it ('offline world')")
    versions: tuple[ArtifactVersion, ...] = Field(min_length=1, description="every version, oldest first")
    current: str = Field(description="the version new work uses when none is named")

    @model_validator(mode="after")
    def _one_history(self) -> "ArtifactVersions":
        names = [v.version for v in self.versions]
        ids = {v.artifact_id for v in self.versions}
        if len(set(names)) != len(names) or len(ids) != len(names):
            raise ValueError(f"{self.kind}: a version or an artifact id is declared twice")
        if self.current not in names:
            raise ValueError(suggest(f"current {self.kind} version", self.current, names))
        if self.get(self.current).superseded_by is not None:
            raise ValueError(f"{self.kind}: the current version {self.current} cannot be superseded")
        for v in self.versions:
            if v.superseded_by is not None and v.superseded_by not in ids:
                raise ValueError(f"{v.artifact_id} is superseded by {v.superseded_by}, which is not declared")
        return self

    def get(self, version: str, *, kind: str | None = None) -> ArtifactVersion:
        """The declared ``version`` (of shape ``kind``, when given); any other fails with close matches."""
        among = self.versions if kind is None else self.of_kind(kind)
        for v in among:
            if v.version == version:
                return v
        raise UnknownNameError(suggest(f"{kind or self.kind} version", version, [v.version for v in among]))

    def find(self, artifact_id: str) -> ArtifactVersion | None:
        """The version an artifact id names (None: not one of these versions)."""
        return next((v for v in self.versions if v.artifact_id == artifact_id), None)

    def version_of(self, artifact_id: str) -> str | None:
        v = self.find(artifact_id)
        return v.version if v else None

    def of_kind(self, kind: str) -> tuple[ArtifactVersion, ...]:
        """The versions of one shape, oldest first."""
        return tuple(v for v in self.versions if v.kind == kind)

    @property
    def current_id(self) -> str:
        return self.get(self.current).artifact_id

    def superseded_by(self, artifact_id: str) -> str | None:
        """The artifact id that supersedes ``artifact_id`` (None: current, or not one of these versions)."""
        v = self.find(artifact_id)
        return v.superseded_by if v else None

    def stamped_successor(self, artifact_id: str) -> str | None:
        """The successor a result scored on ``artifact_id`` stores in its flags and notes: only a ``stamped``
        version's (its results were scored so before the board read supersession here); None for any other.

        >>> av = ArtifactVersions(kind="index", current="3", versions=(
        ...     ArtifactVersion(version="1", artifact_id="ix-1", kind="index", superseded_by="ix-2", why="was slow",
        ...                     stamped=True),
        ...     ArtifactVersion(version="2", artifact_id="ix-2", kind="index", superseded_by="ix-3", why="was big"),
        ...     ArtifactVersion(version="3", artifact_id="ix-3", kind="index")))
        >>> av.stamped_successor("ix-1"), av.stamped_successor("ix-2"), av.superseded_by("ix-2")
        ('ix-2', None, 'ix-3')
        """
        v = self.find(artifact_id)
        return v.superseded_by if v is not None and v.stamped else None

    def warning(self, artifact_id: str) -> str | None:
        """The one line a superseded version opens with (None for any other id)."""
        v = self.find(artifact_id)
        if v is None or v.superseded_by is None:
            return None
        return (f"warning: {artifact_id} is superseded by {v.superseded_by} (it {v.why}); it opens so that its "
                f"results audit — new work uses {self.current_id}")

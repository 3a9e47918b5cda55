"""Declarative, typed benchmark metadata.

A benchmark release is described once, as data, by a :class:`BenchmarkMeta`
record; builders, cards, Croissant files, the leaderboard and the CLI all read
it from the registry instead of repeating names, versions or licences.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

_SHA256 = r"^[0-9a-f]{64}$"
_SLUG = r"^[a-z0-9][a-z0-9-]*[a-z0-9]$"
_SEMVER = r"^\d+\.\d+\.\d+$"

TaskType = Literal[
    "tool-retrieval",
    "theorem-proving",
    "equivalence-retrieval",
    "information-retrieval",
    "autoformalization",
    "problem-solving",
]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class SourceFile(_Frozen):
    """One raw upstream file, pinned by URL and sha256."""

    name: str = Field(description="file name inside the mirror folder")
    upstream_path: str
    commit: str = Field(description="upstream commit or tag the URL is pinned to")
    url: str = Field(description="pinned download URL")
    sha256: str = Field(pattern=_SHA256)
    description: str = ""


class HubPin(_Frozen):
    """A Hugging Face Hub dataset pinned to one revision."""

    repo_id: str
    revision: str = Field(description="commit sha or tag of the Hub dataset repository")
    configs: tuple[str, ...] = ()
    description: str = ""


class ConfigSpec(_Frozen):
    name: str = Field(pattern=r"^[a-z0-9_]+$")
    description: str
    splits: tuple[str, ...]
    default: bool = False


class MainScore(_Frozen):
    metric: str
    description: str
    higher_is_better: bool = True


class BenchmarkMeta(_Frozen):
    """Everything a user needs to cite, load and score one benchmark release."""

    name: str = Field(pattern=_SLUG, description="registry name, e.g. 're2math'")
    family: str = Field(pattern=_SLUG, description="benchmark family (paper) this release belongs to")
    title: str
    description: str
    version: str = Field(pattern=_SEMVER, description="release version; bump on any content change")
    released: str = Field(pattern=r"^\d{4}-\d{2}-\d{2}$", description="release date (ISO), fixed so rebuilds are identical")
    task_type: TaskType
    upstream_repo: str
    upstream_commit: str | None = None
    paper_url: str
    sources: tuple[SourceFile, ...] = ()
    hub: tuple[HubPin, ...] = ()
    license: str = Field(description="licence exactly as stated upstream")
    license_id: str = Field(description="Hugging Face card licence identifier")
    license_note: str = ""
    citation: str = Field(description="BibTeX of the paper the release comes from")
    authors: tuple[str, ...] = ()
    configs: tuple[ConfigSpec, ...]
    main_score: MainScore
    tracks: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()

    @field_validator("citation")
    @classmethod
    def _bibtex(cls, value: str) -> str:
        if not re.match(r"^\s*@\w+\{", value):
            raise ValueError("citation must be a BibTeX entry")
        return value.strip() + "\n"

    @property
    def upstream_url(self) -> str:
        """The upstream's address: its Hugging Face dataset for Hub-only releases, else its GitHub repository."""
        if not self.sources and self.upstream_repo in {h.repo_id for h in self.hub}:
            return f"https://huggingface.co/datasets/{self.upstream_repo}"
        return f"https://github.com/{self.upstream_repo}"

    @property
    def release_id(self) -> str:
        """Stable, citable id of this release: ``<name>-<version>``."""
        return f"{self.name}-{self.version}"

    def config(self, name: str) -> ConfigSpec:
        from lemmata.core.registry import suggest

        for cfg in self.configs:
            if cfg.name == name:
                return cfg
        raise KeyError(suggest(f"config of {self.name}", name, [c.name for c in self.configs]))

    def source(self, name: str) -> SourceFile:
        for src in self.sources:
            if src.name == name:
                return src
        raise KeyError(f"{self.name} has no source file {name!r}")

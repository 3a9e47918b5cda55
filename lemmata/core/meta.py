"""Declarative, typed benchmark metadata.

A benchmark release is described once, as data, by a :class:`BenchmarkMeta`
record; builders, cards, Croissant files, the leaderboard and the CLI all read
it from the registry instead of repeating names, versions or licences.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import Field, field_validator

from lemmata.core.models import Frozen

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


class SourceFile(Frozen):
    """One raw upstream file, pinned by URL and sha256."""

    name: str = Field(description="file name inside the mirror folder")
    upstream_path: str
    commit: str = Field(description="upstream commit or tag the URL is pinned to")
    url: str = Field(description="pinned download URL")
    sha256: str = Field(pattern=_SHA256)
    description: str = ""


class HubPin(Frozen):
    """A Hugging Face Hub dataset pinned to one revision."""

    repo_id: str
    revision: str = Field(description="commit sha or tag of the Hub dataset repository")
    configs: tuple[str, ...] = ()
    description: str = ""


class ConfigSpec(Frozen):
    name: str = Field(pattern=r"^[a-z0-9_]+$")
    description: str
    splits: tuple[str, ...]
    default: bool = False

    @classmethod
    def named_split(cls, name: str, description: str) -> ConfigSpec:
        """A config of one split named like the config (config ``corpus``, split ``corpus``)."""
        return cls(name=name, description=description, splits=(name,))


def split_configs(*configs: tuple[str, str], split: str = "test") -> tuple[ConfigSpec, ...]:
    """Configs of one split each (``test``), from ``(name, description)`` rows; the first is the default.

    >>> [(c.name, c.splits, c.default) for c in split_configs(("pairs", "p"), ("extra", "e"))]
    [('pairs', ('test',), True), ('extra', ('test',), False)]
    """
    return tuple(ConfigSpec(name=name, description=description, splits=(split,), default=i == 0)
                 for i, (name, description) in enumerate(configs))


def arxiv_citation(key: str, *, title: str, author: str, year: int, eprint: str, primary_class: str,
                   doi: bool = False) -> str:
    """The BibTeX ``@misc`` entry of an arXiv paper; ``eprint``, ``archivePrefix``, ``url`` (and the arXiv DOI,
    with ``doi``) come from its arXiv id.

    >>> print(arxiv_citation("doe2026x", title="{X}", author="Doe, Jane", year=2026, eprint="2601.00001",
    ...                      primary_class="cs.AI"))
    @misc{doe2026x,
      title         = {{X}},
      author        = {Doe, Jane},
      year          = {2026},
      eprint        = {2601.00001},
      archivePrefix = {arXiv},
      primaryClass  = {cs.AI},
      url           = {https://arxiv.org/abs/2601.00001}
    }
    """
    fields = {"title": title, "author": author, "year": str(year), "eprint": eprint, "archivePrefix": "arXiv",
              "primaryClass": primary_class}
    if doi:
        fields["doi"] = f"10.48550/arXiv.{eprint}"
    fields["url"] = f"https://arxiv.org/abs/{eprint}"
    body = ",\n".join(f"  {name:<13} = {{{value}}}" for name, value in fields.items())
    return f"@misc{{{key},\n{body}\n}}"


class MainScore(Frozen):
    metric: str
    description: str
    higher_is_better: bool = True


class RankingSpec(Frozen):
    """How a BEIR-style release is submitted and scored: what its ranking track is derived from.

    A ranking track of the release is then declared, not programmed: its header
    model (``benchmark`` and ``track`` pinned to the release's name and tracks,
    ``release`` to its id pattern), its exported JSON Schema, its summary and
    notes, and the collection it scores against (the ``corpus``/``queries``
    configs and the ``qrels`` split named by the header's track) all come from here.
    """

    measures: tuple[str, ...] = Field(min_length=1, description="trec_eval measures computed for every run")
    main_metric: str = Field(description="the measure a result is ranked by (one of ``measures``)")
    track_description: str | None = Field(default=None, description="what the header's ``track`` selects")
    schema_file: str = Field(pattern=r"^[a-z0-9-]+\.schema\.json$", description="file name of the exported schema")
    schema_title: str
    schema_description: str
    corpus: str = Field(default="corpus", description="split of the ``corpus`` config the run ranks")
    queries: str = Field(default="queries", description="split of the ``queries`` config the run answers")
    summary: str = Field(default="{rankings} rankings for {track}",
                         description="the upload's one-line summary; fields {rankings}, {track}")
    notes: tuple[str, ...] = Field(
        default=("{measures} over the {judged:,} queries of {track}; ties ranked by doc id.",),
        description="a result's notes; fields {measures}, {judged}, {track}")
    missing_note: str = Field(default="{missing:,} judged queries had no ranking and score 0.",
                              description="added when judged queries had no ranking; field {missing}")

    @field_validator("main_metric")
    @classmethod
    def _measured(cls, value: str, info) -> str:
        if value not in info.data.get("measures", ()):
            raise ValueError(f"main_metric {value!r} is not one of the measures")
        return value


class BeirLayout(Frozen):
    """Where a BEIR-style snapshot keeps its files (paths inside it, as upstream's own loader reads them)."""

    corpus: str = "corpus.jsonl"
    queries: str = "queries.jsonl"
    qrels: str = Field(default="qrels/{track}.tsv", description="the qrels file of each track (= qrels split)")
    with_title: bool = Field(default=True, description="the corpus carries a ``title`` column")


class BenchmarkMeta(Frozen):
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
    ranking: RankingSpec | None = Field(default=None, description="the ranking track of a BEIR-style release")
    beir: BeirLayout | None = Field(default=None, description="the upstream layout a declared BEIR builder reads")
    manifest_sha256: str | None = Field(
        default=None, pattern=r"^[0-9a-f]{64}$",
        description="sha256 of the release's MANIFEST.json, pinned where the build is byte-reproducible from "
                    "pinned sources: a folder whose manifest differs (even one rewritten consistently) is refused")

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

"""What a benchmark family contributes, declared once in its package's ``__init__``.

A family (one paper: Re²Math, TaoBench, …) is a folder under
``lemmata/benchmarks/`` that owns its metadata, builders, tracks, reported rows
and baselines. Its ``__init__`` declares a :class:`Family` whose entries are
references *inside that folder* (``"meta:RELEASES"``), resolved only when asked
for, so naming a family never imports its heavy modules. The one registry
(:mod:`lemmata.families`) reads these records; nothing else keeps a list of
builders, handlers, importers or baseline jobs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from lemmata.core.errors import Error
from lemmata.core.models import Frozen
from lemmata.core.package_data import read_toml
from lemmata.core.registry import resolve



class Skip(Error):
    """Raised by a start-up step that has nothing to do; the message says why."""


class Brief(BaseModel):
    """What a visitor needs to know of one submission benchmark, in a sentence each."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task: str
    given: str
    returns: str
    score_meaning: str


class Condition(Frozen):
    """One declared condition a header flag may carry."""

    flag: str = Field(description="the key in the result's flags")
    badge: str = Field(description="short text of the badge, shown when the condition holds")
    description: str = Field(description="the badge's tooltip")
    splits: bool = Field(description="rows that differ in it are never ranked together")
    value: bool | str = Field(default=True, description="the flag's value when the condition holds")

    def holds(self, flags: Mapping[str, Any]) -> bool:
        """Whether ``flags`` carry this condition (``True`` must be the boolean, never a truthy stand-in).

        >>> Condition(flag="f", badge="b", description="d", splits=False, value="ok").holds({"f": "ok"})
        True
        """
        found = flags.get(self.flag)
        return found is True if self.value is True else (isinstance(found, str) and found == self.value)


@dataclass(frozen=True)
class Panel:
    """A section a family adds below the Across-benchmarks matrix (``Family.panels``), e.g. MathNet's MathRAG matrix.

    ``load(store)`` reads what it shows from the store's verified results (the space calls it once per store
    generation and caches the outcome); ``render(table)`` turns that into escaped HTML (with
    :func:`lemmata.core.escape.esc`); ``css`` is added to the page's styles. The section is shown in an element
    with the id ``lm-<key>``.
    """

    key: str
    load: Callable[[Any], Any]
    render: Callable[[Any], str]
    css: str = ""


@dataclass(frozen=True)
class StartupStep:
    """Work a family needs done when the space starts (``Family.startup``), shown on its start-up panel.

    ``run(report)`` does it (reporting progress lines) and returns what it did, or raises :class:`Skip`;
    ``needed_by`` names the submission benchmarks whose scoring waits for it (an upload to them is told so).
    """

    key: str
    label: str
    run: Callable[[Callable[[str], None]], str]
    needed_by: tuple[str, ...] = ()


class Family(BaseModel):
    """One benchmark family's contributions, as references relative to its package."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    package: str = Field(description="the family's package, e.g. 'lemmata.benchmarks.re2math'")
    family: str | None = Field(default=None, description="the family name its releases carry, when it differs "
                                                         "from the package's (a slug may hold '-')")
    releases: str = Field(description="'module:attribute' of its tuple of BenchmarkMeta records")
    builders: tuple[str, ...] = Field(description="'module:Class' of each release builder, in build order")
    handlers: dict[str, str] = Field(default_factory=dict,
                                     description="header 'benchmark' value -> 'module:Class' of its track handler")
    reported: str | None = Field(default=None, description="'module:function' importing the paper's reported rows")
    baselines: str | None = Field(default=None, description="'module:function' listing the offline baseline jobs")
    recognisers: tuple[str, ...] = Field(default=(), description="'module:function' taking an upload that is one "
                                         "JSON document (and its file name) and returning the Problems that say "
                                         "what it is, or none when it is not the family's")
    declared: bool = Field(default=False, description="every release whose metadata declares a ranking track "
                                                      "(``ranking``, ``beir``) gets the builder, the track and the "
                                                      "`lemmata evaluate` tasks derived from it (lemmata.declared)")
    evaluation: dict[str, str] = Field(default_factory=dict,
                                       description="ranking track -> 'module:function(name, split=, year_cutoff=)' "
                                                   "building its `lemmata evaluate` tasks")
    evaluation_on_request: tuple[str, ...] = Field(default=(), description="tracks of ``evaluation`` that "
                                                   "`lemmata evaluate` runs only when named (every other track runs "
                                                   "when none is named)")
    runs: dict[str, str] = Field(default_factory=dict, description="`lemmata run NAME` -> 'module:attribute' of "
                                 "its RunProtocol (lemmata.harness.runs): a chat model under the paper's protocol")
    commands: tuple[str, ...] = Field(default=(), description="'module:function' registering each of the "
                                      "family's own CLI verbs on the top-level sub-parsers")
    baseline_commands: tuple[str, ...] = Field(default=(), description="'module:function' registering the "
                                               "family's `lemmata baselines run TRACK` sub-commands")
    artifacts: str | None = Field(default=None, description="'module:attribute' of the family's ArtifactVersions "
                                  "(frozen retrieval artifacts by version, the current one and what superseded "
                                  "each)")
    briefs: str | None = Field(default=None, description="a TOML file in the package ('briefs.toml': one table per "
                               "submission benchmark with task, given, returns, score_meaning) or 'module:attribute' "
                               "of a mapping from each submission benchmark to its overview Brief (what a visitor "
                               "reads before any number)")
    startup: tuple[str, ...] = Field(default=(), description="'module:attribute' of each StartupStep the space "
                                     "runs for the family when it starts (e.g. building its current artifact)")
    panels: tuple[str, ...] = Field(default=(), description="'module:attribute' of each Panel the family adds to "
                                    "the Across-benchmarks tab")
    conditions: tuple[str, ...] = Field(default=(), description="'module:attribute' of each declared run Condition "
                                        "of the family's own (a header flag shown as a badge, or splitting groups)")

    @property
    def name(self) -> str:
        return self.family or self.package.rsplit(".", 1)[-1]

    def ref(self, relative: str) -> str:
        """The absolute reference of one of this family's entries (``":NAME"``: an attribute of ``package`` itself,
        for a family that is one metadata module).

        >>> Family(package="lemmata.benchmarks.x", releases="meta:RELEASES", builders=()).ref("meta:RELEASES")
        'lemmata.benchmarks.x.meta:RELEASES'
        >>> Family(package="toy_ir", releases=":RELEASES", builders=(), declared=True).ref(":RELEASES")
        'toy_ir:RELEASES'
        """
        return f"{self.package}{relative}" if relative.startswith(":") else f"{self.package}.{relative}"

    def load(self, relative: str) -> object:
        return resolve(self.ref(relative))

    def load_briefs(self) -> dict[str, Brief]:
        """The family's overview briefs: prose a visitor reads, kept as data beside the code when ``briefs`` names
        a ``.toml`` file of the package (one table per submission benchmark), else the mapping it references."""
        if not self.briefs:
            return {}
        if not self.briefs.endswith(".toml"):
            return dict(self.load(self.briefs))  # type: ignore[call-overload]
        return {name: Brief.model_validate(body) for name, body in read_toml(self.package, self.briefs).items()}

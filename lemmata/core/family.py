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

from pydantic import BaseModel, ConfigDict, Field

from lemmata.core.registry import resolve


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
                                                      "(``ranking``, ``beir``) gets the builder and the track "
                                                      "derived from it (lemmata.declared)")

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

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

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

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


class PaperTable(Frozen):
    """One table or figure of a family's paper and the command giving its Lemmata counterpart for a model of yours
    (a row of the README's paper-table map), or why none can run offline."""

    label: str = Field(description="the paper's own label ('Table 9'), else the name the transcription or the "
                                   "authors' released file gives the table")
    shows: str = Field(description="what the paper reports in it, in a few words")
    reported: str | None = Field(default=None, description="where Lemmata keeps the printed numbers (a "
                                 "transcription's path and table, or the authors' released file and key); None: "
                                 "not transcribed")
    command: str | None = Field(default=None, pattern=r"^lemmata [a-z]",
                                description="the `lemmata ...` command producing the counterpart (placeholders in "
                                            "capitals); None: no command can, and ``note`` says why")
    note: str = Field(default="", description="how the counterpart differs from the paper's, or why there is none")

    @model_validator(mode="after")
    def _why_not(self) -> "PaperTable":
        if self.command is None and not self.note:
            raise ValueError("a table without a command needs a note saying why none can run offline")
        return self


class PaperMap(Frozen):
    """A family's paper and its tables, as the family's ``paper_tables.toml`` declares them."""

    paper: str = Field(description="the paper's title")
    url: str = Field(pattern=r"^https://", description="the paper's address")
    coverage: str = Field(description="which of the paper's tables and figures the rows cover, and which not")
    table: tuple[PaperTable, ...] = Field(min_length=1)


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


class JudgedColumns(Frozen):
    """The board columns of one submission benchmark whose numbers a judge decides (``Family.judged``).

    The board shows, beside them, how well that judge agrees with people (its calibration record,
    :mod:`lemmata.oracles.calibration`) or that it is uncalibrated; it finds the judge of a result at ``judge``, a
    dotted path into the stored result document, and the rubrics it judged under (:meth:`rubrics_of`): a
    calibration measured under other rubrics is not shown as the columns' ("uncalibrated for this rubric").
    """

    benchmark: str = Field(description="the header 'benchmark' value of the results, e.g. 'mathatlas'")
    columns: tuple[str, ...] = Field(min_length=1, description="metric keys a judge decides, as the board names "
                                     "them (the main metric, or a key of the result's metrics)")
    judge: str = Field(pattern=r"^[a-z_]+(\.[a-z_]+)+$",
                       description="where a result records its judge's id, e.g. 'provenance.judge.id'")
    decides: str = Field(description="what the judge decides, in a few words (shown in the tooltip)")
    rubrics: tuple[str, ...] = Field(default=(), description="the rubric ids (name.vN) the judge decides these "
                                     "columns under, where results do not record them (``rubrics_at``)")
    rubrics_at: str | None = Field(default=None, pattern=r"^[a-z_]+(\.[a-z_]+)+$",
                                   description="where a result records the rubric pins its judge was asked under "
                                               "({kind: {id, sha256}}), e.g. 'provenance.scoring_artifact.rubrics'")

    def judge_of(self, doc: Mapping[str, Any]) -> str | None:
        """The judge id a result document records at :attr:`judge` (None: scored without a judge — nothing recorded,
        or the id ``none`` a scorer records then — so the judge's verdicts are pending).

        >>> cols = JudgedColumns(benchmark="b", columns=("x",), judge="provenance.judge.id", decides="d")
        >>> cols.judge_of({"provenance": {"judge": {"id": "chat:m"}}}), cols.judge_of({"provenance": {"judge": None}})
        ('chat:m', None)
        >>> cols.judge_of({"provenance": {"judge": {"id": "none"}}}) is None
        True
        """
        found: Any = doc
        for key in self.judge.split("."):
            found = found.get(key) if isinstance(found, Mapping) else None
        return found if isinstance(found, str) and found and found != "none" else None

    def rubrics_of(self, doc: Mapping[str, Any]) -> tuple[str, ...]:
        """The rubric ids a result's judge decided these columns under: those it records at :attr:`rubrics_at`,
        else the declared :attr:`rubrics` (a calibration shows beside the columns only when measured under each).

        >>> cols = JudgedColumns(benchmark="b", columns=("x",), judge="provenance.judge.id", decides="d",
        ...                      rubrics=("faithful.v1",), rubrics_at="provenance.judge.rubrics")
        >>> cols.rubrics_of({"provenance": {"judge": {"rubrics": {"s": {"id": "suff.v3"}, "a": {"id": "anchor.v2"}}}}})
        ('anchor.v2', 'suff.v3')
        >>> cols.rubrics_of({})
        ('faithful.v1',)
        """
        found: Any = doc
        for key in (self.rubrics_at or "").split(".") if self.rubrics_at else ():
            found = found.get(key) if isinstance(found, Mapping) else None
        if self.rubrics_at and isinstance(found, Mapping):
            ids = {pin.get("id") for pin in found.values() if isinstance(pin, Mapping)}
            return tuple(sorted(i for i in ids if isinstance(i, str) and i))
        return tuple(sorted(self.rubrics))

    def covers(self, column: str) -> bool:
        """Whether a board column (a metric key, or one of its parts: ``proof_grade.macro``) is judge-decided.

        >>> cols = JudgedColumns(benchmark="b", columns=("proof_grade",), judge="provenance.grader.id", decides="d")
        >>> cols.covers("proof_grade"), cols.covers("proof_grade.macro"), cols.covers("proof_grades")
        (True, True, False)
        """
        return any(column == c or column.startswith(c + ".") for c in self.columns)


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
    headlines: dict[str, str] = Field(default_factory=dict, description="submission benchmark -> 'module:function' "
                                      "giving, from a stored result document, the other headlines a visitor may rank "
                                      "its board group by ({label: value}; e.g. TaoBench's pass@k for every k ≤ n)")
    paper_tables: str | None = Field(default=None, description="a TOML file in the package ('paper_tables.toml', "
                                     "a PaperMap: the paper, then one [[table]] per table or figure) mapping the "
                                     "paper's tables to the commands that give their counterparts")
    startup: tuple[str, ...] = Field(default=(), description="'module:attribute' of each StartupStep the space "
                                     "runs for the family when it starts (e.g. building its current artifact)")
    panels: tuple[str, ...] = Field(default=(), description="'module:attribute' of each Panel the family adds to "
                                    "the Across-benchmarks tab")
    conditions: tuple[str, ...] = Field(default=(), description="'module:attribute' of each declared run Condition "
                                        "of the family's own (a header flag shown as a badge, or splitting groups)")
    judged: tuple[str, ...] = Field(default=(), description="'module:attribute' of each JudgedColumns record: the "
                                    "board columns a judge decides, shown with that judge's calibration")

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

    def load_paper_tables(self) -> PaperMap | None:
        """The family's paper-table map (None: the family declares none); a wrong field names the file and field."""
        if not self.paper_tables:
            return None
        try:
            return PaperMap.model_validate(read_toml(self.package, self.paper_tables))
        except ValidationError as e:
            where = "; ".join(f"{'.'.join(map(str, err['loc'])) or '(top)'}: {err['msg']}" for err in e.errors())
            raise Error(f"{self.package.replace('.', '/')}/{self.paper_tables}: {where}") from None

"""The one registry: every benchmark family, and through them every release, builder, track, run and verb.

Families are named here once (:data:`FAMILIES`, plus any installed package's
``lemmata.families`` entry point) and imported lazily; each declares what it
contributes in a :class:`~lemmata.core.family.Family` record. Everything that
looks a benchmark up by name — the CLI (its verbs, ``run`` protocols,
``evaluate`` tracks and baselines), the space (briefs, start-up steps, panels),
the catalog, the scoring path — asks this module, and unknown names fail with
close-match suggestions. This string table is the one sanctioned way a lower
layer reaches a family: imports otherwise run one way (see the README's layout
section), and nothing above this module names a benchmark.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lemmata.core.errors import InputError, LemmataError
from lemmata.core.family import Family
from lemmata.core.meta import BenchmarkMeta
from lemmata.core.registry import Registry, UnknownNameError, resolve, suggest

if TYPE_CHECKING:  # pragma: no cover
    from lemmata.core.family import PaperMap, StartupStep
    from lemmata.formats.schema import SchemaFile
    from lemmata.tracks.base import TrackHandler

__all__ = [
    "ENTRY_POINT_GROUP", "FAMILIES", "UnknownNameError", "artifact_versions", "baseline_commands", "baseline_jobs",
    "briefs", "builder_classes", "commands", "conditions", "default_evaluation_tracks", "evaluation_tracks", "families",
    "get_benchmark", "handler_for", "headline_choices", "judged_columns", "known_benchmarks", "list_benchmarks",
    "panels", "paper_tables", "refresh", "registry", "reported_importers", "run_protocols", "schema_files",
    "startup_steps",
]

#: benchmark families (the ``family`` of their releases) and their packages under ``lemmata.benchmarks``, in the
#: order the catalog builds them and the board lists them
FAMILIES: dict[str, str] = {"re2math": "re2math", "mathnet": "mathnet", "mirb": "mirb", "mathatlas": "mathatlas",
                            "taobench": "taobench", "math-arxiv-meta": "math_arxiv_meta"}


#: the entry-point group through which an installed package adds a family (``name = "module:FAMILY"``), as
#: pytest plugins and MTEB task packages plug in: the family's folder is the whole change
ENTRY_POINT_GROUP = "lemmata.families"


def _plugins() -> dict[str, str]:
    """``name -> "module:FAMILY"`` of every installed ``lemmata.families`` entry point (built-in names win)."""
    from importlib.metadata import entry_points

    return {ep.name: ep.value for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name not in FAMILIES}


@lru_cache(maxsize=1)
def families() -> Registry[Family]:
    """Every family by name; a :data:`FAMILIES` value holding ':' is a full ``"module:FAMILY"`` reference (a family
    outside ``lemmata.benchmarks``, e.g. one metadata module), any other a package under ``lemmata.benchmarks``;
    installed plug-ins (:data:`ENTRY_POINT_GROUP`) come after the built-in families."""
    entries = {name: package if ":" in package else f"lemmata.benchmarks.{package}:FAMILY"
               for name, package in FAMILIES.items()}
    return Registry("benchmark family", Family, {**entries, **_plugins()}).freeze()


def refresh() -> None:
    """Forget every table read from :data:`FAMILIES` and the entry points, so a family added is seen (plug-ins,
    tests)."""
    for cached in (families, registry, handlers, evaluation_tracks, run_protocols, judged_columns,
                   headline_choices, conditions):
        cached.cache_clear()


def _refs(field: str) -> list[tuple[Family, str]]:
    """``(family, absolute reference)`` of every entry of one tuple field of the families' records, in order."""
    return [(f, f.ref(ref)) for f in families().values() for ref in getattr(f, field)]


def declared_releases(family: Family) -> list[BenchmarkMeta]:
    """The releases of a declared family whose metadata declares a ranking track (their builder and track derive
    from it)."""
    if not family.declared:
        return []
    return [m for m in family.load(family.releases) if m.ranking is not None]  # type: ignore[union-attr]


@lru_cache(maxsize=1)
def registry() -> Registry[BenchmarkMeta]:
    """Every registered release's metadata, by registry name (``re2math``, ``taobench-v1``, …).

    A family that keeps two versions of one release buildable (``math-arxiv-meta`` 1.0.0, which older worlds are
    built on, and 1.1.0) declares the one the name means first; each later one registers by its release id."""
    out: Registry[BenchmarkMeta] = Registry("benchmark", BenchmarkMeta)
    for family in families().values():
        for meta in family.load(family.releases):  # type: ignore[union-attr]
            out.register(meta.release_id if meta.name in out else meta.name, meta)
    return out.freeze()


def get_benchmark(name: str) -> BenchmarkMeta:
    """Metadata of a registered release by name (``re2math``) or release id (``re2math-1.0.0``)."""
    table = registry()
    if name in table:
        return table[name]
    for meta in table.values():
        if meta.release_id == name:
            return meta
    raise UnknownNameError(suggest("benchmark", name, table))


def list_benchmarks() -> list[BenchmarkMeta]:
    return sorted(registry().values(), key=lambda m: m.name)


def builder_classes(family: str | None = None) -> list[type]:
    """The release builders of one family (``lemmata build <family>``), or of every family in order."""
    table = families()
    names = list(table) if family is None else [family]
    if family is not None and family not in table:
        raise UnknownNameError(suggest("benchmark", family, table))
    out: list[type] = []
    for n in names:
        out += [table[n].load(ref) for ref in table[n].builders]  # type: ignore[misc]
        declared = declared_releases(table[n])
        if declared:
            out += [resolve("lemmata.declared:declared_builder")(m) for m in declared]  # type: ignore[operator]
    return out


def _by_name(kind: str, type_: type, field: str, declared: Callable[[BenchmarkMeta], Any] | None = None) -> Registry:
    """One registry over a ``name -> "module:attribute"`` field of every family's record, plus what ``declared``
    derives for each declared release, in family order."""
    out: Registry[Any] = Registry(kind, type_)
    for family in families().values():
        for name, ref in getattr(family, field).items():
            out.register(name, family.ref(ref))
        for meta in declared_releases(family) if declared else ():
            out.register(meta.name, declared(meta))  # type: ignore[misc]
    return out.freeze()


@lru_cache(maxsize=1)
def handlers() -> Registry[type]:
    """Track handler classes by the ``benchmark`` value of a submission header."""
    return _by_name("benchmark", type, "handlers",
                    lambda meta: resolve("lemmata.declared:declared_track")(meta))  # type: ignore[operator]


def handler_for(benchmark: str) -> "TrackHandler":
    table = handlers()
    if benchmark not in table:
        raise InputError.one("header", suggest("benchmark", benchmark, table), field="benchmark")
    return table[benchmark]()


def known_benchmarks() -> list[str]:
    return sorted(handlers())


def schema_files() -> list["SchemaFile"]:
    """Every track's exported JSON Schema files (``lemmata schemas``), in file-name order."""
    files = [f for benchmark in handlers() for f in handlers()[benchmark].schema_files()]
    return sorted(files, key=lambda f: f.filename)


def reported_importers() -> list[tuple[str, Callable[[Any], list]]]:
    """``(family, import_reported)`` for every family whose paper's numbers are imported as reported rows."""
    return [(f.name, f.load(f.reported)) for f in families().values() if f.reported]  # type: ignore[misc]


def baseline_jobs() -> list[tuple[str, Callable[[Path], Path]]]:
    """Every offline baseline run, family by family: ``(label, function writing its submission into a folder)``."""
    jobs: list[tuple[str, Callable[[Path], Path]]] = []
    for f in families().values():
        if f.baselines:
            jobs.extend(f.load(f.baselines)())  # type: ignore[operator]
    return jobs


@lru_cache(maxsize=1)
def evaluation_tracks() -> Registry[Callable[..., list]]:
    """Ranking track -> the function building its `lemmata evaluate` tasks (loaded on first use); a declared
    family's ranking tracks derive theirs from their metadata (:func:`lemmata.declared.declared_tasks`)."""
    return _by_name("ranking track", object, "evaluation", lambda meta: "lemmata.declared:declared_tasks")


def default_evaluation_tracks() -> tuple[str, ...]:
    """What `lemmata evaluate` runs when no track is named: each family's defaults, then every declared track."""
    out = [t for f in families().values() for t in f.evaluation if t not in f.evaluation_on_request]
    return tuple(out + [m.name for f in families().values() for m in declared_releases(f)])


@lru_cache(maxsize=1)
def run_protocols() -> Registry[Any]:
    """`lemmata run NAME` -> the family's run protocol (a :class:`lemmata.harness.runs.RunProtocol`), by name."""
    return _by_name("run protocol", object, "runs")


@lru_cache(maxsize=1)
def headline_choices() -> Registry[Any]:
    """Submission benchmark -> the function giving a result document's other headlines (``Family.headlines``): what
    the board offers to rank a group by besides the stored headline."""
    return _by_name("headline choices", object, "headlines")


def commands() -> list[Callable[[Any], None]]:
    """The ``register(subparsers)`` function of every family's own CLI verb, family by family."""
    return [resolve(ref) for _, ref in _refs("commands")]  # type: ignore[misc]


def baseline_commands() -> list[Callable[[Any], None]]:
    """The ``register(subparsers)`` function adding each family's `lemmata baselines run TRACK` sub-commands."""
    return [resolve(ref) for _, ref in _refs("baseline_commands")]  # type: ignore[misc]


def artifact_versions(family: str) -> Any:
    """The family's versioned frozen artifacts (a :class:`lemmata.core.artifacts.ArtifactVersions`)."""
    table = families()
    if family not in table:
        raise UnknownNameError(suggest("benchmark family", family, table))
    f = table[family]
    if f.artifacts is None:
        raise UnknownNameError(f"benchmark family {family!r} has no versioned artifacts")
    return f.load(f.artifacts)


def artifact_families() -> list[str]:
    """Names of the families that publish versioned frozen artifacts."""
    return [name for name, f in families().items() if f.artifacts]


@lru_cache(maxsize=1)
def _superseded_versions() -> dict[str, Any]:
    return {v.artifact_id: v for family in artifact_families() for v in artifact_versions(family).versions
            if v.superseded_by}


def superseded_version(artifact_id: str | None) -> Any:
    """The declared version (:class:`lemmata.core.artifacts.ArtifactVersion`) ``artifact_id`` names when a later
    one superseded it, else None. Whether an artifact is superseded is a fact of its history, known when a result
    is shown: the board and the audit read it here, so superseding a version changes no stored result."""
    return _superseded_versions().get(artifact_id) if artifact_id else None


def briefs() -> dict[str, Any]:
    """Submission benchmark -> its overview brief, from every family that writes them."""
    out: dict[str, Any] = {}
    for f in families().values():
        out.update(f.load_briefs())
    return out


def paper_tables() -> dict[str, "PaperMap"]:
    """Family -> its paper-table map (each table of its paper and the command giving its counterpart), for every
    family that declares one, in family order."""
    return {name: m for name, f in families().items() if (m := f.load_paper_tables()) is not None}


def startup_steps() -> list["StartupStep"]:
    """Every start-up step the families need the space to run (e.g. build a current artifact), family by family."""
    return [resolve(ref) for _, ref in _refs("startup")]  # type: ignore[misc]


@lru_cache(maxsize=1)
def conditions() -> tuple[Any, ...]:
    """Every family's own declared run conditions (:class:`lemmata.core.family.Condition`), in family order
    (resolved once: a board of 10,000 rows asks for them for every row)."""
    return tuple(resolve(ref) for _, ref in _refs("conditions"))


def panels() -> list[Any]:
    """Every family's extra board panel, in family order."""
    return [resolve(ref) for _, ref in _refs("panels")]


@lru_cache(maxsize=1)
def judged_columns() -> dict[str, Any]:
    """Submission benchmark -> the board columns a judge decides there
    (:class:`lemmata.core.family.JudgedColumns`), from every family that declares them."""
    out: dict[str, Any] = {}
    for _, ref in _refs("judged"):
        found: Any = resolve(ref)
        if found.benchmark in out:
            raise LemmataError(f"{ref}: the judged columns of {found.benchmark!r} are declared twice")
        out[found.benchmark] = found
    return out

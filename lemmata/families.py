"""The one registry: every benchmark family, and through them every release, builder, track and importer.

Families are named here once (:data:`FAMILIES`) and imported lazily; each
declares what it contributes in a :class:`~lemmata.core.family.Family` record.
Everything that looks a benchmark up by name — the CLI, the space, the catalog,
the scoring runner — asks this module, and unknown names fail with close-match
suggestions. This string table is the one sanctioned way a lower layer reaches
a family: imports otherwise run one way (see the README's layout section).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lemmata.core.errors import InputError, Problem
from lemmata.core.family import Family
from lemmata.core.hashing import sha256_bytes
from lemmata.core.meta import BenchmarkMeta
from lemmata.core.registry import Registry, UnknownNameError, resolve, suggest

if TYPE_CHECKING:  # pragma: no cover
    from lemmata.formats.schema import SchemaFile
    from lemmata.tracks.base import TrackHandler, Validated

__all__ = [
    "FAMILIES", "UnknownNameError", "baseline_jobs", "builder_classes", "families", "get_benchmark", "handler_for",
    "attach_runner_log", "known_benchmarks", "list_benchmarks", "refresh", "registry", "reported_importers",
    "schema_files", "validate_upload",
]

#: benchmark families (the ``family`` of their releases) and their packages under ``lemmata.benchmarks``, in the
#: order the catalog builds them and the board lists them
FAMILIES: dict[str, str] = {"re2math": "re2math", "mathnet": "mathnet", "mirb": "mirb", "mathatlas": "mathatlas",
                            "taobench": "taobench", "math-arxiv-meta": "math_arxiv_meta"}


@lru_cache(maxsize=1)
def families() -> Registry[Family]:
    """Every family by name; a :data:`FAMILIES` value holding ':' is a full ``"module:FAMILY"`` reference (a family
    outside ``lemmata.benchmarks``, e.g. one metadata module), any other a package under ``lemmata.benchmarks``."""
    return Registry("benchmark family", Family,
                    {name: package if ":" in package else f"lemmata.benchmarks.{package}:FAMILY"
                     for name, package in FAMILIES.items()}).freeze()


def refresh() -> None:
    """Forget every table read from :data:`FAMILIES`, so a family added to it is seen (plug-ins, tests)."""
    for cached in (families, registry, handlers):
        cached.cache_clear()


def declared_releases(family: Family) -> list[BenchmarkMeta]:
    """The releases of a declared family whose metadata declares a ranking track (their builder and track derive
    from it)."""
    if not family.declared:
        return []
    return [m for m in family.load(family.releases) if m.ranking is not None]  # type: ignore[union-attr]


@lru_cache(maxsize=1)
def registry() -> Registry[BenchmarkMeta]:
    """Every registered release's metadata, by registry name (``re2math``, ``taobench-v1``, …)."""
    out: Registry[BenchmarkMeta] = Registry("benchmark", BenchmarkMeta)
    for family in families().values():
        for meta in family.load(family.releases):  # type: ignore[union-attr]
            out.register(meta.name, meta)
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


@lru_cache(maxsize=1)
def handlers() -> Registry[type]:
    """Track handler classes by the ``benchmark`` value of a submission header."""
    out: Registry[type] = Registry("benchmark", type)
    for family in families().values():
        for benchmark, ref in family.handlers.items():
            out.register(benchmark, family.ref(ref))
        for meta in declared_releases(family):
            out.register(meta.name, resolve("lemmata.declared:declared_track")(meta))  # type: ignore[operator]
    return out.freeze()


def handler_for(benchmark: str) -> "TrackHandler":
    table = handlers()
    if benchmark not in table:
        raise InputError.one("header", suggest("benchmark", benchmark, table), field="benchmark")
    return table[benchmark]()


def known_benchmarks() -> list[str]:
    return sorted(handlers())


def validate_upload(data: bytes, filename: str, *, max_bytes: int | None = None, runner_log: bytes | None = None,
                    runner_log_name: str = "runner-log.jsonl") -> "Validated":
    """Parse the envelope, dispatch on ``benchmark`` and validate completely.

    Line problems of the envelope, header problems and record problems come back
    together in one InputError; a file that is one JSON document is offered to
    the families' recognisers, which may say what it is instead. A header that
    declares a runner request log (``runner.log_sha256``) needs ``runner_log``,
    and a given log needs such a header (:func:`attach_runner_log`).
    """
    validated = _validate(data, filename, max_bytes)
    return attach_runner_log(validated, runner_log, runner_log_name)


def attach_runner_log(validated: "Validated", log: bytes | None, log_name: str) -> "Validated":
    """``validated`` with its runner request log checked, or unchanged when neither the header nor the caller
    names a log; InputError when one names a log the other lacks, when the log does not hash to the header's
    ``runner.log_sha256``, or when the benchmark's check finds a mismatch with the release."""
    import dataclasses

    declared = validated.declared_runner_log
    if log is None and declared is None:
        return validated
    if log is None:
        raise InputError.one(validated.filename, f"the header records a runner request log (sha256 {declared[:12]}…) "
                                                 "but none was given: upload the log written beside the submission "
                                                 "(*.runner-log.jsonl; `lemmata score --runner-log FILE`), or remove the header's runner field (the "
                                                 "entry is then self-reported)", field="runner.log_sha256")
    if declared is None:
        raise InputError.one(log_name, "a runner request log was given, but the submission header records none "
                                       "(runner.log_sha256): only a submission written by `lemmata run` names its log",
                             field="runner")
    actual = sha256_bytes(log)
    if actual != declared:
        raise InputError.one(log_name, f"the log hashes to {actual[:12]}…, but the submission header records "
                                       f"runner.log_sha256 {declared[:12]}…: it was edited after the run hashed it, or "
                                       "it is another run's log", field="runner.log_sha256")
    outcome = handler_for(validated.benchmark).check_runner_log(validated, log, log_name)
    return dataclasses.replace(validated, runner_log=outcome)


def _validate(data: bytes, filename: str, max_bytes: int | None) -> "Validated":
    from lemmata.formats.envelope import NotJsonl, cap_problems, parse_envelope, skipped

    try:
        envelope = parse_envelope(data, filename, max_bytes=max_bytes, keep_going=True)
    except NotJsonl as exc:
        raise InputError(recognised(exc.document, filename) or list(exc.problems)) from None
    benchmark = envelope.header.get("benchmark")
    if not isinstance(benchmark, str) or benchmark not in handlers():
        reason = "header must name the benchmark (string)" if not isinstance(benchmark, str) else \
            suggest("benchmark", benchmark, handlers())
        raise InputError(cap_problems([Problem(filename, reason, envelope.header_line, "benchmark"),
                                       *envelope.problems], filename),
                         [skipped(filename, "the records", "the header names no known benchmark")])
    try:
        validated = handler_for(benchmark).validate(envelope, sha256_bytes(data))
    except InputError as exc:  # the list a person reads stays bounded; the total stays stated
        given = {id(p) for p in exc.problems}  # by identity: hashing a hostile file's problems costs seconds
        found = [p for p in envelope.problems if id(p) not in given] + list(exc.problems)
        raise InputError(cap_problems(found, filename), list(exc.skipped)) from None
    if envelope.problems:  # a handler that forgot the envelope's line problems still cannot accept the file
        raise InputError(cap_problems(list(envelope.problems), filename))
    return validated


def recognised(document: Any, filename: str) -> list["Problem"]:
    """What a family's recogniser says about an upload that is one JSON document (empty: nobody knows it)."""
    for family in families().values():
        for ref in family.recognisers:
            problems = family.load(ref)(document, filename)  # type: ignore[operator]
            if problems:
                return list(problems)
    return []


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

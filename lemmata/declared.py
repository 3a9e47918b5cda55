"""A BEIR-style benchmark declared by its metadata: the ranking track and the builder derived from it.

MTEB's retrieval tasks are metadata; so are Lemmata's BEIR-style releases. A
:class:`~lemmata.core.meta.BenchmarkMeta` with a ``ranking`` spec (and a
``beir`` layout for its builder) is everything a family needs:
:class:`DeclaredRankingTrack` derives the header model, the exported schema,
the summary, the notes, the frozen tuple and the collection;
:func:`declared_builder` and :func:`declared_track` bind the generic classes to
one release. A family whose ``Family.declared`` is set gets both for every such
release from the registry (:mod:`lemmata.families`), and :func:`submission_kit`
writes its submission README, JSON Schema and example submission from the same
metadata (``lemmata submission-kit``), so adding one BEIR-style benchmark is its
metadata module and its fixture. A family whose releases need
more (MathNet-Retrieve's shared tiers, MIRB's fifteen collections) subclasses
these and keeps only what differs.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any, ClassVar

from lemmata.catalog import collection, load_release
from lemmata.core.atomic import atomic_write_text
from lemmata.core.errors import InputError, LemmataError
from lemmata.core.jsonl import dumps_jsonl
from lemmata.core.meta import BenchmarkMeta
from lemmata.formats.beir import Collection, RunRecord
from lemmata.formats.results import FrozenTuple
from lemmata.release.beir_builder import BeirFilesBuilder, BeirHubBuilder
from lemmata.release.builder import ReleaseBuilder
from lemmata.tracks.ranking import RankingRecord, RankingTrack, Scored, ranking_header, received_date, scoring_artifact

__all__ = ["DeclaredRankingTrack", "declared_builder", "declared_tasks", "declared_track", "stale_kit", "submission_kit",
           "write_kit"]


class DeclaredRankingTrack(RankingTrack):
    """A ranking track whose every part comes from ``release_meta`` (its ``ranking`` spec).

    A subclass sets ``release_meta``; a ``header_model`` it sets itself is kept.
    """

    release_meta: ClassVar[BenchmarkMeta]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        meta = cls.__dict__.get("release_meta")
        if meta is None:
            return
        spec = meta.ranking
        if spec is None:
            raise TypeError(f"{cls.__name__}: {meta.name}'s metadata declares no ranking track (meta.ranking)")
        cls.benchmark = meta.name
        cls.tracks = meta.tracks
        if "header_model" not in cls.__dict__:
            cls.header_model = ranking_header(meta)
        if "measures" not in cls.__dict__:
            cls.measures = spec.measures
        if "main_metric" not in cls.__dict__:
            cls.main_metric = spec.main_metric
        if "schema" not in cls.__dict__:
            cls.schema = (spec.schema_file, spec.schema_title, spec.schema_description)

    def meta(self, header: Any) -> BenchmarkMeta:
        return self.release_meta

    def collection(self, header: Any) -> Collection:
        """The ``corpus`` and ``queries`` splits the spec names, judged by the ``qrels`` split of the track."""
        spec = self.release_meta.ranking
        assert spec is not None
        release = load_release(self.release_meta, header.release)
        return collection(release, corpus=spec.corpus, queries=spec.queries, qrels=header.track)

    def summary(self, header: Any, runs: dict[str, RunRecord]) -> str:
        spec = self.release_meta.ranking
        assert spec is not None
        return spec.summary.format(rankings=len(runs), track=header.track)

    def frozen(self, header: Any, received_at: str) -> FrozenTuple:
        return FrozenTuple(dataset_release=header.release, split=f"qrels/{header.track}", retrieval_artifact=None,
                           scoring_artifact=scoring_artifact(), date=received_date(received_at))

    def notes(self, header: Any, scored: Scored) -> list[str]:
        spec = self.release_meta.ranking
        assert spec is not None
        notes = [n.format(measures=", ".join(self.measures), judged=scored.judged, track=header.track)
                 for n in spec.notes]
        if scored.missing:
            notes.append(spec.missing_note.format(missing=len(scored.missing)))
        return notes


def _class_name(meta: BenchmarkMeta, suffix: str) -> str:
    """
    >>> _class_name(BenchmarkMeta.model_construct(name="toy-ir-2"), "Track")
    'ToyIr2Track'
    """
    return "".join(part.capitalize() for part in re.split(r"[^a-z0-9]+", meta.name) if part) + suffix


@cache
def declared_track(meta: BenchmarkMeta) -> type[DeclaredRankingTrack]:
    """The ranking track of a release declared by its metadata (one class per release)."""
    return type(_class_name(meta, "Track"), (DeclaredRankingTrack,), {"release_meta": meta, "__module__": __name__})


@cache
def declared_builder(meta: BenchmarkMeta) -> type[ReleaseBuilder]:
    """The builder of a release declared by its metadata: from its Hub pin when it has one, else its pinned files."""
    base = BeirHubBuilder if meta.hub else BeirFilesBuilder
    return type(_class_name(meta, "Builder"), (base,),
                {"meta": meta, "builder_id": f"lemmata.builders.declared.{meta.name}", "__module__": __name__})


def declared_tasks(name: str, **_: object) -> list[Any]:
    """The `lemmata evaluate` tasks of a declared ranking track: one submission per track (``qrels`` split), over
    the served release's corpus (title and text, as BEIR and MTEB join them) and queries, with the plain header
    the track's schema asks for. Built from the metadata alone, as the track and the builder are.

    >>> declared_tasks.__name__  # exercised end to end by tests/release/test_declared_benchmark.py
    'declared_tasks'
    """
    from lemmata.catalog import corpus_texts
    from lemmata.families import get_benchmark
    from lemmata.tracks.model_runs import Part, RankingTask

    meta = get_benchmark(name)
    spec = meta.ranking
    if spec is None:
        raise LemmataError(f"{meta.name}'s metadata declares no ranking track (meta.ranking)")
    release = load_release(meta)
    out = []
    for track in meta.tracks:
        coll = collection(release, corpus=spec.corpus, queries=spec.queries, qrels=track)
        texts = corpus_texts(release, spec.corpus)
        part = Part(doc_ids=list(coll.corpus), doc_texts=[texts[d] for d in coll.corpus],
                    queries=dict(coll.queries), excluded=dict(coll.excluded))
        out.append(RankingTask(name=f"{meta.name}:{track}", run_header=False, parts=[part],
                               header={"benchmark": meta.name, "release": meta.release_id, "track": track},
                               filename=f"{meta.name}.{track}"))
    return out


# -- the submission kit: README, JSON Schema and example, generated ------------------------------------------

def kit_command(meta: BenchmarkMeta) -> str:
    """The command that regenerates a declared release's kit (named in the page and the example's notes)."""
    return f"lemmata submission-kit {meta.name}"


def submission_kit(meta: BenchmarkMeta, folder: str | Path = "submissions") -> dict[Path, str]:
    """Every file of a declared release's submission kit under ``folder``, by path, with its exact text.

    ``<folder>/<name>/README.md`` (the page), ``<folder>/<name>/example-<name>.jsonl`` (BM25 over the served
    release, built first when missing as ``lemmata score`` would) and ``<folder>/schema/<schema file>`` (what
    ``lemmata schemas`` writes). The example is validated and scored through the registry, exactly as an upload;
    the page shows that score.
    """
    from lemmata.core.hashing import sha256_file
    from lemmata.families import declared_releases, families
    from lemmata.release.manifest import MANIFEST
    from lemmata.scoring import score_validated, validate_upload
    from lemmata.tracks.ranking_docs import ExampleShown, broken_copies, submission_readme
    from lemmata.tracks.ranking_example import example_filename, example_lines

    declared = {m.name for f in families().values() for m in declared_releases(f)}
    if meta.name not in declared:
        raise LemmataError(f"{meta.name} is not a declared release (a family with declared=True whose metadata has "
                           "a ranking spec); its submission docs are written by hand")
    command = kit_command(meta)
    release = load_release(meta)
    lines = example_lines(meta, release, command=command)
    name = example_filename(meta)
    text = dumps_jsonl(lines)
    validated = validate_upload(text.encode("utf-8"), name)
    track, result = score_validated(validated, received_at=f"{meta.released}T00:00:00+00:00")
    errors = []
    for broken in broken_copies(meta, lines):
        try:
            validate_upload(broken.data, "broken.jsonl")
        except InputError as exc:
            errors.append((broken, str(exc)))
        else:  # a copy the validator accepts documents nothing
            raise LemmataError(f"{meta.name}: the broken copy {broken.marker} of the example validates")
    (schema,) = track.schema_files()
    readme = submission_readme(
        meta, schema=json.loads(schema.text), schema_filename=schema.filename, header=track.header_model.__name__,
        record=(track.record_model or RankingRecord).__name__, command=command,
        example=ExampleShown(filename=name, lines=lines, release_manifest_sha256=sha256_file(release.root / MANIFEST),
                             summary=validated.summary, result=result, errors=errors))
    root = Path(folder)
    return {root / meta.name / "README.md": readme, root / meta.name / name: text,
            root / "schema" / schema.filename: schema.text}


def write_kit(meta: BenchmarkMeta, folder: str | Path = "submissions") -> list[Path]:
    """Write the kit (:func:`submission_kit`); a README there that was written by hand is never overwritten."""
    from lemmata.tracks.ranking_docs import GENERATED_MARK

    files = submission_kit(meta, folder)
    for path in files:
        if path.name == "README.md" and path.is_file() and \
                not path.read_text(encoding="utf-8").startswith(GENERATED_MARK):
            raise LemmataError(f"{path} was written by hand (no generated mark on its first line); not overwritten")
    for path, text in files.items():
        atomic_write_text(path, text)
    return list(files)


def stale_kit(meta: BenchmarkMeta, folder: str | Path = "submissions") -> list[str]:
    """Files of the kit under ``folder`` that are missing or differ from a fresh generation."""
    return [f"{path} is out of date; run `{kit_command(meta)}`" for path, text in submission_kit(meta, folder).items()
            if not path.is_file() or path.read_text(encoding="utf-8") != text]

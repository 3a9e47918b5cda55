"""Building world 2.2.0: 2.1's pipeline on ``math-arxiv-meta-1.1.0``, titles without citation residue, one work
one record.

Everything 2.1 does (:mod:`~lemmata.benchmarks.re2math.scholar.world.v2_1.build`)
with three changes, declared as its :class:`~lemmata.benchmarks.re2math.scholar.world.v2_1.build.Variant`:
the distractors are ``math-arxiv-meta-1.1.0``; every shown title goes
through :func:`~lemmata.benchmarks.re2math.scholar.display.without_citation_residue`
after the one display; and :func:`~lemmata.benchmarks.re2math.scholar.world.v2_2.works.fold_works`
makes one record of each work before ids are drawn. The build is
byte-reproducible.
"""

from __future__ import annotations

from pathlib import Path

from lemmata.benchmarks.re2math.scholar.display import without_citation_residue
from lemmata.benchmarks.re2math.scholar.world.v2_1.build import Variant, build_uniform_world
from lemmata.benchmarks.re2math.scholar.world.v2_2.info import (
    BUILDER_ID, BUILDER_VERSION, DISTRACTORS, VERSION, WORLD_ID, WorldInfo22,
)
from lemmata.benchmarks.re2math.scholar.world.v2_2.scorer import Identity22, WorldAttribution22
from lemmata.benchmarks.re2math.scholar.world.v2_2.works import MIN_TITLE_WORDS, duplicate_pairs, fold_works


def _composition(entries, merged, identities) -> dict[str, int]:
    """2.2's composition counts: cited works matched to an arXiv record by the same-work rule, records folded into
    another of their work, and the duplicate pairs left (0)."""
    return {"cited_sources_matched_by_same_work": sum(1 for i in identities if i.citations and i.rule == "same_work"),
            "records_folded_into_their_work": len(merged),
            **{f"duplicate_pairs_{kind}": n for kind, n in duplicate_pairs(entries).items()}}


VARIANT = Variant(
    world_id=WORLD_ID, version=VERSION, builder_id=BUILDER_ID, builder_version=BUILDER_VERSION, info=WorldInfo22,
    identity=Identity22, attribution=WorldAttribution22, distractor_release=DISTRACTORS,
    title=without_citation_residue, fold=fold_works, composition=_composition,
    presentation={
        "title": "LaTeX to text, Unicode NFC, whitespace and hyphens repaired, sentence case; then citation residue "
                 "removed (leading initials, quote marks, a bracketed reference, an editor note or an unclosed "
                 "parenthesis at the end, venue or volume segments after the last '. ' or ', '): one rule for every "
                 "record",
        "one_work_one_record": f"records that share an arXiv id, or whose folded titles (at least {MIN_TITLE_WORDS} "
                               "words) are equal and whose shown authors agree on at least half of the shorter list, "
                               "are one record, years not compared; arXiv ids are kept only when valid and not read "
                               "off the record's DOI"},
)


def build_world(release: str | Path, distractors: str | Path, out_root: str | Path | None = None, *,
                bib: str | Path | None = None, quiet: bool = True) -> Path:
    """Build ``<out_root>/re2math-scholar-offline-2.2.0/`` from a Re²Math release, ``math-arxiv-meta-1.1.0`` and
    the pinned math_bib table (``bib``: a folder holding it; None: the mirror's ``math_bib/``)."""
    return build_uniform_world(release, distractors, out_root, bib=bib, quiet=quiet, variant=VARIANT)

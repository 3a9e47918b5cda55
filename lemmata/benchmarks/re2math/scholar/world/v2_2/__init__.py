"""The offline scholarly world 2.2.0: ``re2math-scholar-offline-2.2.0``, one work, one record.

World 2.1.0 showed some works twice, and scored the twin as wrong: its
distractor release kept 7,584 arXiv ids a float conversion had shortened by
one digit, 5,954 of them beside a second record under the correct id; its
same-work rule needed a year on both records (31% of arXiv records have
none); and an identifier read off a DOI's digits passed for an arXiv id. This
world is 2.1's pipeline with three changes:

- **Distractors** from ``math-arxiv-meta-1.1.0`` (ids repaired, twins merged;
  the repairs are counted in its card).
- **One work, one record** (:mod:`~lemmata.benchmarks.re2math.scholar.world.v2_2.works`):
  records that share an arXiv id, or whose folded titles are equal and whose
  shown authors agree on at least half of the shorter list, are one record,
  whatever their origin, years not compared. A
  cited work's record absorbs its arXiv twin (rule ``same_work``), so
  scoring by record is scoring by work: CiteRecall, SourceAcc and the
  source-retrieval qrels count a record of the cited work as the cited work.
  The build counts the duplicate pairs left (same id, padded id, same title
  and author) in ``ARTIFACT.json``; all are 0.
- **Titles without citation residue**
  (:func:`~lemmata.benchmarks.re2math.scholar.display.without_citation_residue`):
  leading initials, quote marks, a bracketed reference, an editor note or an
  unclosed parenthesis at the end, and venue or volume segments (after the
  last ". " or ", ": "…, linear algebra appl", "…, esaim: cocv") removed, one
  rule applied to every record after the one display.

Search, openings, ids, the year-prefix cutoff and verification are 2.1's.
"""

from lemmata.benchmarks.re2math.scholar.world.v2_2.build import VARIANT, build_world
from lemmata.benchmarks.re2math.scholar.world.v2_2.info import (
    BUILDER_ID, BUILDER_VERSION, DISTRACTORS, MANIFEST_SHA256, SCHEMA, VERSION, WORLD_ID, WorldInfo22,
)
from lemmata.benchmarks.re2math.scholar.world.v2_2.scorer import Identity22, MatchRule22, WorldAttribution22
from lemmata.benchmarks.re2math.scholar.world.v2_2.search import SameWorkWorld, is_world, open_world
from lemmata.benchmarks.re2math.scholar.world.v2_2.works import (
    MIN_TITLE_WORDS, arxiv_identifier, duplicate_pairs, fold_works, same_work_key,
)

__all__ = [
    "BUILDER_ID", "BUILDER_VERSION", "DISTRACTORS", "Identity22", "MANIFEST_SHA256", "MIN_TITLE_WORDS", "MatchRule22",
    "SCHEMA", "SameWorkWorld", "VARIANT", "VERSION", "WORLD_ID", "WorldAttribution22", "WorldInfo22",
    "arxiv_identifier", "build_world", "duplicate_pairs", "fold_works", "is_world", "open_world", "same_work_key",
]

"""The offline scholarly world 2.1.0: ``re2math-scholar-offline-2.1.0``, where no field a hit shows singles out gold.

World 2.0.0 kept the answers out of every opened text, but a system could find
gold by its *form*: every record dated before 1991 or undated was gold (the
distractors were arXiv 1991–2019 only), every record without an arXiv id was
gold, ids were numbered in year order, and titles parsed from citation strings
looked different from arXiv titles. A classifier on what a hit showed
separated gold from random distractors with AUC 0.72–0.78. This world changes
what a system is shown, and what the haystack holds:

- **Haystack.** 2.0.0's records (every ``math-arxiv-meta-1.0.0`` record, every
  cited source, every citing paper; one work, one record) plus the
  journal articles, book chapters and books of
  :mod:`~lemmata.benchmarks.re2math.scholar.math_bib` (read from the mirror by
  sha256), de-duplicated against the arXiv records and the cited sources.
  Cited sources are matched to arXiv records as in 2.0.0, plus one more rule
  for same-work arXiv twins: the same normalised title (at least
  :data:`TWIN_MIN_WORDS` words) and a year no more than :data:`TWIN_MAX_YEARS`
  apart (``title_year``).
- **One display.** A hit shows ``id, rank, score, title, authors`` and
  nothing else: title and authors rendered for every record by
  :mod:`~lemmata.benchmarks.re2math.scholar.display` (LaTeX to text, NFC,
  hyphens repaired, sentence case; surnames transliterated to ASCII). No year,
  no snippet, no field only some origins have (abstract, DOI, arXiv id, venue).
- **Opaque ids** (:mod:`~lemmata.benchmarks.re2math.scholar.record_ids`): ``r`` +
  seven digits, a fixed pseudo-random permutation; ties in a search break by
  id, so storage order says nothing either.
- **The world enforces the cutoff.** Records are stored in year order
  (unknown years first) and ``search(query, cutoff)`` scores only the prefix
  dated no later than the cutoff; a system never needs a year to obey it.
- **Years from bibliographic sources**, never from an identifier's digits: an
  arXiv record's first-version date (``created``), a math_bib record's year,
  the years written in a cited work's bibliography strings (identifiers,
  page ranges and MR numbers ignored), a citing paper's stated publication
  date. A record without one has no year and is scored under every cutoff,
  gold or not.
- **Openings** show the full bibliographic entry — authors, year, venue (a
  math_bib record's journal or book, the venue part of a cited work's
  citation string), arXiv id or DOI — and the abstract where one exists
  (arXiv records only: no other source has abstracts). Nothing derived from
  the release's ``y`` is stored.

The scorer's view (``identity.jsonl``, ``attributions.jsonl``) and everything
else (BM25 settings, tokenizer, manifest verification, logged openings) are
every world's (:mod:`lemmata.benchmarks.re2math.scholar.world`). What is 2.1's
is here, split by the same jobs: ``info`` (id, builder, ``ARTIFACT.json``),
``view`` (what a system sees), ``scorer`` (the ``title_year`` rule), ``build``
(building) and ``search`` (the opened world). The world's builder is recorded
by the name it had when the world shipped
(``lemmata.benchmarks.re2math.scholar.world21.build_world_21``, see ``info``).
"""

from lemmata.benchmarks.re2math.scholar.world.v2_1.build import (
    TWIN_MAX_YEARS, TWIN_MIN_WORDS, build_world, citation_venue, citation_year, created_year, stated_year,
)
from lemmata.benchmarks.re2math.scholar.world.v2_1.info import (
    BUILDER_ID, BUILDER_VERSION, MANIFEST_SHA256, SCHEMA, VERSION, WORLD_ID, WorldInfo21,
)
from lemmata.benchmarks.re2math.scholar.world.v2_1.scorer import Identity21, MatchRule21, WorldAttribution21
from lemmata.benchmarks.re2math.scholar.world.v2_1.search import UniformWorld, is_world, open_world
from lemmata.benchmarks.re2math.scholar.world.v2_1.view import (
    BibliographicRecord, UniformHit, UniformSearch, render_entry,
)

__all__ = [
    "BUILDER_ID", "BUILDER_VERSION", "BibliographicRecord", "Identity21", "MANIFEST_SHA256", "MatchRule21", "SCHEMA",
    "TWIN_MAX_YEARS", "TWIN_MIN_WORDS", "UniformHit", "UniformSearch", "UniformWorld", "VERSION", "WORLD_ID",
    "WorldAttribution21", "WorldInfo21", "build_world", "citation_venue", "citation_year", "created_year",
    "is_world", "open_world", "render_entry", "stated_year",
]

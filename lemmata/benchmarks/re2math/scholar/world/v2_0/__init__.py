"""The offline scholarly world 2.0.0: ``re2math-scholar-offline-2.0.0``, a haystack with the needles hidden in it.

Version 1.0.0 of the offline artifact indexed only Re²Math's cited sources and
citing papers, served the reference statements when a source was opened and
labelled every hit ``source`` or ``citing_paper``: a system could tell gold
from non-gold without reading anything. This world fixes all three:

- **Haystack.** The index holds every record of the distractor corpus
  ``math-arxiv-meta-1.0.0`` (345,376 mathematics arXiv records, 1991–2019),
  every cited source and every citing paper of the Re²Math release.
- **One work, one record.** A cited source that *is* a distractor — same
  arXiv id, same publisher DOI, or a conservative title + author match by
  :func:`lemmata.benchmarks.re2math.scholar.matcher.match_sources` — is that record, with the
  arXiv metadata; every arXiv version of a work is one record (ids are
  version-free). An unmatched source becomes a bibliographic record parsed
  from its citation strings (:mod:`lemmata.benchmarks.re2math.scholar.citations`, clustered into works by
  :mod:`lemmata.benchmarks.re2math.scholar.works`); a citing paper outside the corpus becomes a record of its
  release title and arXiv id.
- **One shape.** Every record is shown through the same fields, built by the
  same code from the same kinds of information: :class:`ScholarHit` (id,
  title, authors as capitalised surnames, at most :data:`MAX_AUTHORS`, year,
  a snippet made of those) in search results, :class:`OpenedRecord` when
  opened. Nothing says where a record came from: ids are positions in a
  (year, title) order, there is no ``kind``, and search results show no
  field that only some origins have (arXiv id, DOI and abstract are known
  for distractors but not for most citation-parsed records, so they appear
  only when a record is opened, as what is genuinely known about it).
- **Opening serves no answers.** An opened record is its bibliographic data
  and abstract where one exists; nothing derived from the release's ``y``
  (reference statements) is stored in the artifact at all.

**Ranking** is 1.0.0's: Lucene BM25 (k1 = 1.5, b = 0.75) through the one BM25
engine (:mod:`lemmata.retrievers.bm25`) over the frozen scholarly tokenizer
(:func:`~lemmata.retrievers.bm25.tokenizers.tokenize_scholar_words`), applied to the
uniform text (title and shown authors), each distinct query word counted once,
scores rounded to six decimals, ties broken by record id ascending.

**Years.** A record's year is the earliest it is known to have existed (its
arXiv id's year, the years in its bibliography strings, a citing paper's
``publication_year``). Records are stored ordered by year, unknown years
first, so ``search(query, cutoff)`` scores a *prefix* of the index: records
dated after the cutoff are never scored, unknown years always are.

**Scorer view.** ``identity.jsonl`` (which cited sources and citing papers
each non-distractor record stands for, and how they were matched) and
``attributions.jsonl`` (each instance's cited-source record) are for scoring:
:meth:`ScholarWorld.is_cited_source`, :meth:`ScholarWorld.attribution`; the
search and open APIs never read them. Openings are logged
(:class:`~lemmata.benchmarks.re2math.scholar.openings.MaterialisationLog`) and
:meth:`ScholarWorld.beir_corpus` exports the searchable records as a BEIR
corpus. ``ARTIFACT.json`` and ``MANIFEST.json`` are verified on every open.

Superseded by 2.1.0 (:mod:`lemmata.benchmarks.re2math.scholar.worlds` says
so, and why); it still builds and opens, so its results audit. What is 2.0.0's
own is here — ``info`` (version, builder, schema, pinned manifest), ``build``
(years, order, ids, presentation), ``search`` (opening its folder); the jobs
every world shares are :mod:`lemmata.benchmarks.re2math.scholar.world`'s.
"""

from lemmata.benchmarks.re2math.scholar.world.v2_0.build import build_world
from lemmata.benchmarks.re2math.scholar.world.v2_0.info import (
    BUILDER_ID, BUILDER_VERSION, MANIFEST_SHA256, SCHEMA, VERSION, WORLD_ID, WorldInfo20,
)
from lemmata.benchmarks.re2math.scholar.world.v2_0.search import is_world, open_world

__all__ = [
    "BUILDER_ID", "BUILDER_VERSION", "MANIFEST_SHA256", "SCHEMA", "VERSION", "WORLD_ID", "WorldInfo20", "build_world",
    "is_world", "open_world",
]

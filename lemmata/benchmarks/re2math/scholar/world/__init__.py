"""The offline scholarly worlds (2.x): what every version shares, and one sub-package per version.

A world is a haystack with the needles hidden in it: every record of the
distractor corpus (``math-arxiv-meta-1.0.0``; 2.2: ``1.1.0``), every cited source and every
citing paper of the Re²Math release, one work one record, searched with the
one BM25 engine over a year-ordered prefix and opened without serving
answers. Which versions exist, which is current and what superseded each is
declared once, in :mod:`lemmata.benchmarks.re2math.scholar.worlds`; each
version's own code is its sub-package:

- :mod:`~lemmata.benchmarks.re2math.scholar.world.v2_0` — ``re2math-scholar-offline-2.0.0`` (superseded);
- :mod:`~lemmata.benchmarks.re2math.scholar.world.v2_1` — ``re2math-scholar-offline-2.1.0`` (superseded);
- :mod:`~lemmata.benchmarks.re2math.scholar.world.v2_2` — ``re2math-scholar-offline-2.2.0`` (current: one work,
  one record, on ``math-arxiv-meta-1.1.0``).

Each holds its ``info`` (version, builder identity, schema, pinned manifest),
``build``, and ``search`` (``open_world``, ``is_world``); 2.1 also its
``view`` and ``scorer`` records. What they share is here, split by job:
``info`` (file names, inputs, ``ARTIFACT.json`` fields), ``view`` (the hit and
opening models, 2.0.0's shapes being the base), ``scorer`` (the scorer's
identity and attribution records), ``build`` (reading the inputs, matching,
the scorer's view, the records table, the index), ``search`` (the opened
world, manifest verification, top-k, the distractor release) and
``parallel`` (batch search over forked workers).
"""

from lemmata.benchmarks.re2math.scholar.world.build import MAX_TITLE_POSTINGS, MIN_SHARED_TITLE_TOKENS
from lemmata.benchmarks.re2math.scholar.world.info import (
    ATTRIBUTIONS_FILE, BACKEND, DISTRACTOR_RELEASE, IDENTITY_FILE, RECORDS_FILE, RELEASE_CONFIG, RELEASE_SPLIT,
    WorldInfo,
)
from lemmata.benchmarks.re2math.scholar.world.scorer import Identity, MatchRule, WorldAttribution
from lemmata.benchmarks.re2math.scholar.world.search import (
    ScholarWorld, WorldBackend, default_distractor_path, read_world,
)
from lemmata.benchmarks.re2math.scholar.world.view import (
    MAX_AUTHORS, OpenedRecord, ScholarHit, ScholarSearch, display_authors, display_title, index_text, render_opened,
    snippet,
)

__all__ = [
    "ATTRIBUTIONS_FILE", "BACKEND", "DISTRACTOR_RELEASE", "IDENTITY_FILE", "MAX_AUTHORS", "MAX_TITLE_POSTINGS",
    "MIN_SHARED_TITLE_TOKENS", "MatchRule", "Identity", "OpenedRecord", "RECORDS_FILE", "RELEASE_CONFIG",
    "RELEASE_SPLIT", "ScholarHit", "ScholarSearch", "ScholarWorld", "WorldAttribution", "WorldBackend", "WorldInfo",
    "default_distractor_path", "display_authors", "display_title", "index_text", "read_world", "render_opened",
    "snippet",
]

"""MathNet-Retrieve track handler: one tier per submission, scored by Recall@1/5/10 (Recall@5 headline).

Header::

    {"format": "lemmata-submission/1", "benchmark": "mathnet-retrieve", "release": "mathnet-retrieve-1.0.0",
     "track": "hard", "model": {"name": "..."}}

then one ``{"query_id", "ranking": [{"doc_id", "score"}, ...]}`` record per query.
"""

from __future__ import annotations

from lemmata.benchmarks.mathnet.meta import MATHNET_RETRIEVE
from lemmata.declared import DeclaredRankingTrack


class MathNetHandler(DeclaredRankingTrack):
    """Everything comes from the metadata's ranking spec: header, schema, collection (the tier's qrels), notes."""

    release_meta = MATHNET_RETRIEVE


#: the header model derived from the metadata (what the exported schema calls ``Header``)
Header = MathNetHandler.header_model
MEASURES = MathNetHandler.measures


def tier_collection(release_id: str, tier: str):
    """The collection a run for ``tier`` is checked and scored against."""
    return MathNetHandler().collection(Header.model_construct(release=release_id, track=tier))

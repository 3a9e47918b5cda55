"""Source materialisation: a cited work → the fixed text a grounding judge reads, recorded and replayable.

The public API::

    from lemmata.materialisers import Materialiser, SourceRequest

    m = Materialiser.from_env("artifacts/materialisations/re2math")   # LEMMATA_ARXIV_*, LEMMATA_MATERIALISER_*
    got = m.materialise(SourceRequest(arxiv_id="1502.05240v2"))      # or doi="10.…"
    got.record.status, got.text                                       # materialised / unavailable / pending

``Materialiser.from_env(folder, offline=True)`` (or ``client=None``) reads the
store only and makes no network call. Generic: nothing here knows a benchmark.
"""

from lemmata.materialisers.arxiv import ArxivAccessRefused, ArxivClient, ArxivError, parse_feed
from lemmata.materialisers.fixedtext import FORMAT, FixedText, Statement, TextLimits, source_text
from lemmata.materialisers.eprint import ArchiveLimits, EprintError, unpack
from lemmata.materialisers.materialiser import Materialisation, Materialiser, coverage, read_doi_table
from lemmata.materialisers.records import MaterialisationRecord, Resolution, SourceRequest
from lemmata.materialisers.settings import MaterialiserSettings
from lemmata.materialisers.store import MaterialisationStore

__all__ = [
    "FORMAT",
    "ArchiveLimits",
    "ArxivAccessRefused",
    "ArxivClient",
    "ArxivError",
    "EprintError",
    "FixedText",
    "Materialisation",
    "MaterialisationRecord",
    "MaterialisationStore",
    "Materialiser",
    "MaterialiserSettings",
    "Resolution",
    "SourceRequest",
    "Statement",
    "TextLimits",
    "coverage",
    "parse_feed",
    "read_doi_table",
    "source_text",
    "unpack",
]

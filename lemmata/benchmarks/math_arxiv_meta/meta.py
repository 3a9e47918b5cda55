"""math-arxiv-meta: mathematics arXiv metadata 1991–2019, the distractor corpus of the offline Scholar world.

Re²Math's offline artifact needs a haystack: without one, every openable record
is a cited source and a query of the citing paper's title alone finds it. This
release is that haystack — 345,376 arXiv records with a mathematics category,
one row per arXiv id (all versions one work) — frozen as a versioned, citable
release so that the artifact built from it can be rebuilt byte for byte.

No single upstream file holds it: the pinned Parquet merges two public git
mirrors of arXiv's OAI metadata feed (see the mirror's ``SOURCES.md`` and
``provenance/``). Its canonical remote location is therefore the Hub dataset
that ``lemmata publish`` makes of this release, not an upstream URL; the
builder reads the pinned file from the raw-source mirror (``arxiv_math/``)
and refuses any other bytes.
"""

from __future__ import annotations

from lemmata.core.meta import BenchmarkMeta, ConfigSpec, MainScore, SourceFile

NAME = "math-arxiv-meta"
VERSION = "1.0.0"
#: folder of the raw-source mirror that holds the pinned file
MIRROR_FOLDER = "arxiv_math"
PARQUET = "math_arxiv_meta_1991_2019.parquet"
PARQUET_SHA256 = "ed09e0e8b6bb184209c873989e1cc816b8b430de15a7c641e7310b4805cb8f85"
ROWS = 345_376
#: 1.1.0's rows: the pinned file's, less the 5,954 twins of ids one digit short merged into their full-length row
VERSION_1_1, ROWS_1_1 = "1.1.0", 339_422
FIRST_YEAR, LAST_YEAR = 1991, 2019

HARTMANN_REPO, HARTMANN_COMMIT = "HeinrichHartmann/arxiv_meta", "1d3cff6"
GEIGER_REPO, GEIGER_COMMIT = "staeiou/arxiv_archive", "f043eb1"
GEIGER_DOI = "10.5281/zenodo.1463242"

SOURCES = (
    SourceFile(
        name=PARQUET,
        upstream_path=(f"derived: {HARTMANN_REPO}@{HARTMANN_COMMIT} (oai_dc day files) + "
                       f"{GEIGER_REPO}@{GEIGER_COMMIT} (processed_data/*/per_category/*.tsv.xz)"),
        commit=f"{HARTMANN_COMMIT}+{GEIGER_COMMIT}",
        url=f"lemmata-release:{NAME}-{VERSION}",
        sha256=PARQUET_SHA256,
        description="merged mathematics arXiv metadata 1991-2019, one row per arXiv id (versions merged)",
    ),
)

CITATION = """@misc{geiger2020arxivarchive,
  title     = {{ArXiV Archive}: A tidy and complete archive of metadata for papers on arxiv.org, 1993-2019},
  author    = {Geiger, R. Stuart},
  year      = {2020},
  publisher = {Zenodo},
  doi       = {10.5281/zenodo.1463242},
  url       = {https://doi.org/10.5281/zenodo.1463242}
}"""

MATH_ARXIV_META = BenchmarkMeta(
    name=NAME,
    family=NAME,
    title="Mathematics arXiv metadata 1991–2019 (distractor corpus)",
    description=(
        "345,376 arXiv records with a mathematics category (math.*, math-ph and the pre-1998 archives "
        "alg-geom, dg-ga, funct-an, q-alg), one row per arXiv id with all versions merged: title, authors, "
        "year, abstract, categories, MSC codes, DOI. The distractor corpus of the Re2Math offline scholarly "
        "artifact (re2math-scholar-offline-2.0.0); not a benchmark with its own score."
    ),
    version=VERSION,
    released="2026-11-22",
    task_type="information-retrieval",
    upstream_repo=HARTMANN_REPO,
    upstream_commit=HARTMANN_COMMIT,
    paper_url=f"https://doi.org/{GEIGER_DOI}",
    sources=SOURCES,
    license="CC0 1.0 (arXiv descriptive metadata)",
    license_id="cc0-1.0",
    license_note=(
        "arXiv's terms of use for its metadata put descriptive metadata (title, abstract, authors, identifiers "
        "and classification terms) under CC0 1.0 (https://info.arxiv.org/help/api/tou.html). Neither mirror "
        "states a licence of its own. Credit arXiv, R. Stuart Geiger's \"ArXiV Archive\" (Zenodo, "
        f"doi:{GEIGER_DOI}) and the {HARTMANN_REPO} mirror."
    ),
    citation=CITATION,
    authors=("R. Stuart Geiger",),
    configs=(
        ConfigSpec(name="default", splits=("train",), default=True,
                   description="every record, sorted by arXiv id"),
    ),
    main_score=MainScore(
        metric="CiteRecall@20",
        description="no score of its own: it is scored through the Re2Math offline artifact it feeds",
    ),
    tags=("mathematics", "arxiv", "metadata", "scholarly-search", "distractors"),
    # the byte-reproducible build from the pinned sources (`lemmata build` then `sha256sum MANIFEST.json`)
    manifest_sha256="8b2fbe502d7d5467822d003f7d61e8ec1e9cbe5cefcbec819e283613f6a6481b",
)

MATH_ARXIV_META_1_1 = BenchmarkMeta.model_validate({
    **MATH_ARXIV_META.model_dump(),
    "version": VERSION_1_1,
    "released": "2026-11-27",
    "description": (
        "339,422 arXiv records with a mathematics category (math.*, math-ph and the pre-1998 archives alg-geom, "
        "dg-ga, funct-an, q-alg), one row per arXiv id: 1.0.0's pinned file with the ids a float conversion "
        "shortened by one digit repaired, the 5,954 second records they left merged into their work's row and "
        "DOI fields that hold no DOI cleaned (each repair counted in the card). The distractor corpus of the "
        "Re2Math offline world re2math-scholar-offline-2.2.0; not a benchmark with its own score."
    ),
    "main_score": {"metric": "CiteRecall@20",
                   "description": "no score of its own: it is scored through the Re2Math offline world it feeds"},
    # the byte-reproducible build from the same pinned file (`lemmata build math-arxiv-meta`, twice: the same bytes)
    "manifest_sha256": "74428399b4e0cb42533e65da83593f5e089106d5e6e456b32fe6b7046e1fb52a",
})

#: 1.0.0 keeps the registry name (the worlds 2.0.0 and 2.1.0 are built on it); 1.1.0 registers by its release id
RELEASES = (MATH_ARXIV_META, MATH_ARXIV_META_1_1)

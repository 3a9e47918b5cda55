"""Build the ``math-arxiv-meta`` release (the distractor corpus) from the pinned Parquet of the mirror.

The input is already one typed, sorted table, so the rows never become Python
objects: the file is read with pyarrow, checked column by column (vectorised),
cast to the pinned features (``string``, never ``large_string``) and written as
one shard. That keeps a 345k-row build to seconds and well under a gigabyte.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from lemmata.benchmarks.math_arxiv_meta.meta import (
    FIRST_YEAR, GEIGER_COMMIT, GEIGER_DOI, GEIGER_REPO, HARTMANN_COMMIT, HARTMANN_REPO, LAST_YEAR,
    MATH_ARXIV_META, MATH_ARXIV_META_1_1, MIRROR_FOLDER, PARQUET, ROWS, ROWS_1_1,
)
from lemmata.core.errors import InputError, Problem
from lemmata.release.builder import ReleaseBuilder, SplitTable

#: the arXiv id forms the corpus holds: new style YYMM.NNNN[N], old style archive[.SUB]/YYMMNNN, no version
ARXIV_ID_PATTERN = r"^(?:\d{4}\.\d{4,5}|[a-z\-]+(?:\.[A-Z]{2})?/\d{7})$"
#: a new-style id whose digits after the dot do not fit its year-month (five before 1501, four from 1501)
WRONG_LENGTH_PATTERN = r"^(?:(?:0\d|1[0-4])\d\d\.\d{5}|(?:1[5-9]|[2-9]\d)\d\d\.\d{4})$"


def record_features():
    from datasets import Features, List, Value

    s = Value("string")
    return Features({
        "arxiv_id": s,
        "title": s,
        "authors": List(s),
        "year": Value("int16"),
        "created": s,
        "abstract": s,
        "categories": List(s),
        "primary_category": s,
        "subjects": List(s),
        "msc": List(s),
        "doi": s,
        "comment": s,
        "sources": List(s),
    })


def _first_bad(mask, ids) -> tuple[int, str] | None:
    """(1-based row, arXiv id) of the first True of a boolean array, or None."""
    import pyarrow.compute as pc

    if not pc.any(mask).as_py():
        return None
    i = pc.index(mask, True).as_py()
    return i + 1, ids[i].as_py()


def check_table(table, label: str, *, full_length_ids: bool = False) -> list[Problem]:
    """Every column the release and the artifact rely on, checked vectorised; one problem per failed rule.

    ``full_length_ids``: also refuse a new-style id whose digits after the dot do not fit its year-month (four
    up to 1412, five from 1501) — what 1.1.0 guarantees and 1.0.0's pinned rows do not."""
    import pyarrow as pa
    import pyarrow.compute as pc

    problems: list[Problem] = []
    expected = record_features().arrow_schema
    missing = [n for n in expected.names if n not in table.column_names]
    extra = [n for n in table.column_names if n not in expected.names]
    if missing or extra:
        return [Problem(label, f"columns differ from the pinned features (missing {missing}, unexpected {extra})",
                        field="schema")]
    ids = table["arxiv_id"]

    def rule(mask, field: str, reason: str) -> None:
        bad = _first_bad(pc.fill_null(mask, True), ids)
        if bad is not None:
            n = pc.sum(pc.fill_null(mask, True)).as_py()
            problems.append(Problem(label, f"{reason} ({n} row(s); first: {bad[1]!r})", line=bad[0], field=field))

    rule(pc.invert(pc.match_substring_regex(ids, ARXIV_ID_PATTERN)), "arxiv_id", "not a version-free arXiv id")
    if full_length_ids:
        rule(pc.match_substring_regex(ids, WRONG_LENGTH_PATTERN), "arxiv_id", "digits do not fit the id's year-month")
    for col in ("title", "abstract"):
        rule(pc.equal(pc.utf8_length(pc.utf8_trim_whitespace(table[col])), 0), col, "empty")
    rule(pc.equal(pc.list_value_length(table["authors"]), 0), "authors", "no author")
    year = table["year"]
    rule(pc.or_(pc.less(year, FIRST_YEAR), pc.greater(year, LAST_YEAR)), "year",
         f"outside {FIRST_YEAR}-{LAST_YEAR}")
    if len(ids) > 1:  # sorted and unique: each id greater than the one before
        prev, nxt = ids.slice(0, len(ids) - 1), ids.slice(1)
        bad = pc.less_equal(nxt, prev)
        first = _first_bad(pa.concat_arrays([pa.array([False]), bad.combine_chunks()]), ids)
        if first is not None:
            problems.append(Problem(label, f"arxiv_id not strictly increasing (duplicate or unsorted: {first[1]!r})",
                                    line=first[0], field="arxiv_id"))
    return problems


class MathArxivMetaBuilder(ReleaseBuilder):
    meta = MATH_ARXIV_META
    builder_version = "1.0"
    source_names = (PARQUET,)
    #: the first offline world built on this release (the card names it)
    world = "re2math-scholar-offline-2.0.0"

    def fetch_sources(self) -> dict[str, Path]:
        """The pinned Parquet from ``source_dir`` or the mirror's ``arxiv_math/`` folder (no upstream URL exists)."""
        from lemmata.core.paths import mirror_root
        from lemmata.release.sources import SourceUnavailable, resolve_sources

        directory = self.source_dir
        if directory is None:
            root = mirror_root()
            directory = root / MIRROR_FOLDER if root is not None and (root / MIRROR_FOLDER).is_dir() else None
        if directory is None:
            raise SourceUnavailable(f"{PARQUET} has no upstream download (the published release loads from the Hub)",
                                    family=self.meta.family, folder=MIRROR_FOLDER)
        return resolve_sources(self.meta, list(self.source_names), directory)

    def features(self):
        return {"default": record_features()}

    def make_tables(self, sources: dict[str, Path]) -> list[SplitTable]:
        table = self.read_table(sources[PARQUET])
        self.stats = _stats(table)
        return [SplitTable("default", "train", table)]

    def read_table(self, path: Path):
        """The pinned table, every column checked and cast to the pinned features."""
        import pyarrow.parquet as pq

        table = pq.read_table(path)
        problems = check_table(table, PARQUET)
        if table.num_rows != ROWS:
            problems.append(Problem(PARQUET, f"{table.num_rows} rows; the pinned file has {ROWS}"))
        if problems:
            raise InputError(problems)
        return table.select(record_features().arrow_schema.names).cast(record_features().arrow_schema)

    def id_note(self) -> str:
        """The card's bullet on the ids the mirror mangled (1.1.0 says what it repaired beyond them)."""
        return ("~142k identifiers were mangled upstream by a float conversion (`704.056` for `0704.0560`) and were "
                "repaired\n  exactly; names and titles are as the feed gives them (LaTeX markup included).")

    def repairs_section(self) -> str:
        """The card's section on this version's repairs, before the provenance (none in 1.0.0)."""
        return ""

    def card_body(self, tables: list[SplitTable]) -> str:
        s = self.stats
        n = s["rows"]

        def pct(k: int) -> str:
            return f"{k:,} ({100 * k / n:.1f}%)"

        years = " · ".join(f"{lo}–{hi}: {c:,}" for (lo, hi), c in s["years"])
        return f"""
## What it is for

The haystack of the Re2Math offline scholarly world: `{self.world}` indexes every record of this
release together with Re2Math's cited sources and citing papers, so that a search has something to miss. A cited
source that is one of these records (same arXiv id, DOI, or a conservative title + author match) *is* that record.
This release has no score of its own.

## Columns

| column | meaning | filled |
|---|---|---:|
| `arxiv_id` | new style `YYMM.NNNN[N]` or old style `archive/YYMMNNN`, no version (all versions are one work) | {pct(n)} |
| `title` | title as in the metadata feed | {pct(n)} |
| `authors` | author names; the order of name parts differs by mirror ("Last, First" or "F. Last") | {pct(n)} |
| `year` | year of the arXiv id (first version) | {pct(n)} |
| `created` | first-version date where a mirror gives it, else null | {pct(s['created'])} |
| `abstract` | abstract (never empty) | {pct(n)} |
| `categories`, `primary_category` | arXiv categories (empty / null where only the OAI mirror had the record) | {pct(s['categories'])} |
| `subjects` | arXiv subject names | {pct(s['subjects'])} |
| `msc` | MSC 2010 codes parsed from the subject strings | {pct(s['msc'])} |
| `doi` | DOI of the published version, where the author gave one | {pct(s['doi'])} |
| `comment` | arXiv comment field | {pct(s['comment'])} |
| `sources` | which mirror(s) gave the row | {pct(n)} |

Records per year of the arXiv id: {years}.

## Coverage and bias

- Papers from {FIRST_YEAR} to {LAST_YEAR} only; nothing later (Re2Math's citing papers are mostly from 2020 on and
  are added to the offline artifact from the Re2Math release itself).
- Roughly 70% of mathematics arXiv up to 2019: an estimate against arXiv's listing counts, not a census. 55 of
  3,628 OAI day files and 146 per-category files of the two mirrors were unreadable when the file was made.
- After 2017-03 the largest categories (math.AG, AP, CO, DG, DS, NT, OC, PR) appear only when cross-listed: the
  later years under-represent them.
- arXiv only: no journal-only (non-arXiv) papers and no books. A cited source that was never on arXiv cannot be
  one of these records.
- {self.id_note()}
- Measured against Re2Math: of its cited sources, 38 of the 86 with an arXiv id are present (6 of 72 by DOI);
  136 of its 631 citing papers are present.
{self.repairs_section()}
## Provenance

A derived file, not a byte copy: it merges two public git mirrors of arXiv's OAI metadata feed and keeps every
record with a mathematics category, one row per arXiv id.

| upstream | commit | what was read |
|---|---|---|
| [`{HARTMANN_REPO}`](https://github.com/{HARTMANN_REPO}) | `{HARTMANN_COMMIT}` | one JSON-lines file per OAI datestamp day (`oai_dc`: title, creator, subject incl. MSC strings, description, identifier incl. `doi:`) |
| [`{GEIGER_REPO}`](https://github.com/{GEIGER_REPO}) (Zenodo [doi:{GEIGER_DOI}](https://doi.org/{GEIGER_DOI})) | `{GEIGER_COMMIT}` | `processed_data/{{20190101,20200101}}/per_category/*.tsv.xz` |

No single upstream file holds these rows, so the pinned Parquet has no upstream download URL: **the canonical remote
location of this corpus is the Hugging Face dataset that `lemmata publish` makes of this release**. To rebuild it
locally, `lemmata build math-arxiv-meta --source-dir <mirror>/{MIRROR_FOLDER}` verifies the pinned sha256 first;
the scripts that made the file (from the two repositories checked out) travel with the mirror under `provenance/`.

## Credits

arXiv for the metadata (CC0 1.0 for descriptive metadata); R. Stuart Geiger, "ArXiV Archive" (2020, Zenodo,
doi:{GEIGER_DOI}); the `{HARTMANN_REPO}` mirror of the OAI feed.
"""


class MathArxivMetaBuilder11(MathArxivMetaBuilder):
    """``math-arxiv-meta-1.1.0``: the same pinned file, with the ids one digit short repaired, the twin records
    they left merged and the DOI fields cleaned (:mod:`~lemmata.benchmarks.math_arxiv_meta.repair`), each repair
    counted in the card."""

    meta = MATH_ARXIV_META_1_1
    builder_version = "1.1"
    world = "re2math-scholar-offline-2.2.0"

    def make_tables(self, sources: dict[str, Path]) -> list[SplitTable]:
        from lemmata.benchmarks.math_arxiv_meta.repair import repair_table

        table, self.repairs = repair_table(self.read_table(sources[PARQUET]))
        problems = check_table(table, PARQUET, full_length_ids=True)
        if table.num_rows != ROWS_1_1:
            problems.append(Problem(PARQUET, f"{table.num_rows} rows after the repairs; 1.1.0 has {ROWS_1_1}"))
        if problems:
            raise InputError(problems)
        self.stats = _stats(table)
        return [SplitTable("default", "train", table)]

    def id_note(self) -> str:
        return ("~142k identifiers were mangled upstream by a float conversion (`704.056` for `0704.0560`); 1.0.0\n"
                "  repaired those that lost two or more digits, 1.1.0 also those that lost one (see *Repairs in "
                "1.1.0*); names\n  and titles are as the feed gives them (LaTeX markup included).")

    def repairs_section(self) -> str:
        r = self.repairs
        filled = ", ".join(f"`{c}` {n:,}" for c, n in r["filled_from_twin"].items())
        return f"""
## Repairs in 1.1.0

Version 1.0.0 (`{MATH_ARXIV_META.release_id}`, unchanged and still buildable) kept every row of the pinned file
as it was. The float conversion of one mirror also dropped a single trailing zero (`1501.00120` became
`1501.0012`), which the 1.0.0 script took for a valid id. 1.1.0 reads the same pinned file and repairs, counted
on it by this build (`lemmata build math-arxiv-meta`):

| repair | rows |
|---|---:|
| new-style ids from 2015-01 on with four digits after the dot (one short for their year-month) | {r['short_ids']:,} |
| … whose padded id is another row: merged into that row (the same arXiv id, so one work) | {r['short_ids_with_twin']:,} |
| … of these, with the same first-version date / the same normalised title | {r['twins_same_created']:,} / {r['twins_same_title']:,} |
| … whose padded id is no other row: id padded | {r['short_ids_padded']:,} |
| fields of a merged row taken from its twin where its own was empty | {filled} |
| `doi` fields holding several DOIs: the first kept | {r['doi_first_of_several']:,} |
| `doi` fields holding no DOI: emptied | {r['doi_dropped']:,} |

A merged row keeps the fields of the row under the correct id, takes a missing field from its twin and lists
the sources of both. {r['rows_in']:,} rows in, {r['rows_out']:,} out; every id now has the length of its
year-month (a check of the build). Different arXiv ids of one work (a paper submitted twice) stay separate
rows: each id is a record arXiv publishes; the offline world folds them.
"""


def _stats(table) -> dict:
    import pyarrow.compute as pc

    def filled(col: str) -> int:
        arr = table[col]
        if str(arr.type).startswith("list"):
            return pc.sum(pc.greater(pc.list_value_length(arr), 0)).as_py() or 0
        return table.num_rows - arr.null_count

    years = Counter(table["year"].to_pylist())
    buckets = [(1991, 1999), (2000, 2004), (2005, 2009), (2010, 2014), (2015, 2017), (2018, 2019)]
    return {
        "rows": table.num_rows,
        **{c: filled(c) for c in ("created", "categories", "subjects", "msc", "doi", "comment")},
        "years": [((lo, hi), sum(c for y, c in years.items() if lo <= y <= hi)) for lo, hi in buckets],
    }

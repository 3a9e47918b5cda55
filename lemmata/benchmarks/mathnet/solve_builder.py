"""Build the MathNet-Solve release from a pinned snapshot of ``ShadenA/MathNet``.

Every per-country/competition config the snapshot's card declares is read (the aggregate ``all`` config holds
the same problems again under ``data/all/``: it is neither downloaded nor read). Upstream has published two
schemas (:data:`~lemmata.benchmarks.mathnet.solve_schema.SCHEMAS`): each file's columns must be exactly one of
them, every file the same one, and MANIFEST.json records which (``layouts``). Rows are checked against that
schema's model, a problem id seen in two configs must carry the same statement, image bytes must open as
images within the stated bounds, and the image count is the length of the ``images`` column (schema A's
``num_images``/``has_images`` must agree with it). The release holds one ``problems`` config (every problem,
plus Lemmata's stratified subsets as splits of the same rows) and one ``images`` config with one row per figure.
"""

from __future__ import annotations

import io
from pathlib import Path

from pydantic import ValidationError

from lemmata.benchmarks.mathnet.languages import normalise_language
from lemmata.benchmarks.mathnet.solve_meta import AGGREGATE_CONFIG, MATHNET_SOLVE, SUBSET_SEED, SUBSETS
from lemmata.benchmarks.mathnet.solve_schema import (
    MAX_IMAGE_BYTES, SCHEMAS, UpstreamRow, UpstreamRowB, domain_of, duplicate_groups, schema_of, stratified_subset,
)
from lemmata.core.errors import InputError, Problem
from lemmata.release.builder import SplitTable
from lemmata.release.card_check import CardLayout, ConfigLayout, model_layout
from lemmata.release.hub import UsedFiles, declared_data_files
from lemmata.release.hub_builder import HubReleaseBuilder

PIN = MATHNET_SOLVE.hub[0]
ALLOW_PATTERNS = ("README.md", "data/*/*.parquet")
#: ``data/all/`` repeats every per-country file (56 parquet files upstream): never downloaded
IGNORE_PATTERNS = (f"data/{AGGREGATE_CONFIG}/*",)
_MAX_PROBLEMS = 20


def problem_features():
    from datasets import Features, List, Value

    s = Value("string")
    return Features({
        "unique_id": s, "config": s, "country": s, "competition": s, "year": Value("int32"),
        "problem_number": s, "problem": s, "solutions": List(s), "answers": List(s), "final_answer": s,
        "topics": List(s), "domain": s, "language": s, "problem_type": s, "has_images": Value("bool"),
        "num_images": Value("int32"), "image_description": s, "source_booklet": s, "booklet_source": s,
        "duplicate_group": s,
    })


def image_features():
    from datasets import Features, Image, Value

    return Features({"unique_id": Value("string"), "index": Value("int32"), "image": Image()})


def _file_schema(path: Path, label: str, problems: list[Problem]) -> str | None:
    """The published schema whose columns the file has exactly, else None with one problem per difference."""
    import pyarrow.parquet as pq

    name, diffs = schema_of(set(pq.read_schema(path).names))
    for col, kind in diffs:
        why = ("column missing (the nearest published schema has it)" if kind == "missing"
               else "unknown column (in no published schema)")
        problems.append(Problem(label, why, field=col))
    return name


def _image_problem(data: bytes | None) -> str | None:
    from PIL import Image

    if not data:
        return "image has no bytes"
    if len(data) > MAX_IMAGE_BYTES:
        return f"image is {len(data):,} bytes, more than {MAX_IMAGE_BYTES:,}"
    try:
        with Image.open(io.BytesIO(data)) as img:
            img.verify()
    except Exception as exc:  # noqa: BLE001 - PIL raises many types; each is one problem
        return f"image bytes do not open as an image ({type(exc).__name__})"
    return None


def read_snapshot(root: Path, used: UsedFiles) -> tuple[str, list[tuple[str, UpstreamRow]]]:
    """The schema read and ``(config, row)`` for every upstream row, checked; an id repeated across configs once."""
    from lemmata.formats.datafiles import iter_records

    declared = declared_data_files(root, skip=(AGGREGATE_CONFIG,))
    problems: list[Problem] = []
    seen: dict[str, tuple[str, str, UpstreamRow]] = {}
    first_schema: tuple[str, str] | None = None
    for config in sorted(declared):
        for split, files in sorted(declared[config].items()):
            for path in files.paths:
                label = path.relative_to(root).as_posix()
                used.add(PIN, root, [path])
                schema = _file_schema(path, label, problems)
                if schema is None:
                    continue
                if first_schema is None:
                    first_schema = (schema, label)
                elif schema != first_schema[0]:
                    problems.append(Problem(label, f"has the columns of schema {schema}, but {first_schema[1]} has "
                                                   f"schema {first_schema[0]}; one snapshot holds one schema",
                                            field="columns"))
                    continue
                model = SCHEMAS[schema]
                for n, rec in iter_records(path, label=label):
                    where = f"{label}"
                    try:
                        parsed = model.model_validate(rec)
                        row = parsed.as_row() if isinstance(parsed, UpstreamRowB) else parsed
                    except ValidationError as exc:
                        for err in exc.errors()[:5]:
                            problems.append(Problem(where, err["msg"], n, ".".join(str(x) for x in err["loc"])))
                        continue
                    if row.num_images != len(row.images) or row.has_images != bool(row.images):
                        problems.append(Problem(where, f"num_images {row.num_images} / has_images {row.has_images} "
                                                       f"disagree with the {len(row.images)} image(s) stored", n,
                                                "images"))
                    for i, img in enumerate(row.images):
                        why = _image_problem(img.data)
                        if why:
                            problems.append(Problem(where, why, n, f"images[{i}]"))
                    first = seen.get(row.unique_id)
                    if first is None:
                        seen[row.unique_id] = (config, f"{where}, row {n}", row)
                    elif first[2].problem_markdown != row.problem_markdown:
                        problems.append(Problem(where, f"unique_id {row.unique_id!r} also in {first[1]} with a "
                                                       "different statement", n, "unique_id"))
                if len(problems) >= _MAX_PROBLEMS:
                    raise InputError(problems)
    if problems:
        raise InputError(problems)
    if not seen or first_schema is None:
        raise InputError.one(str(root / "README.md"), "the card declares no per-country or competition config "
                                                     "with rows", field="configs")
    return first_schema[0], [(config, row) for config, _, row in seen.values()]


def release_rows(rows: list[tuple[str, UpstreamRow]]) -> tuple[list[dict], list[dict]]:
    """Problem records (sorted by id) and image records, from checked upstream rows."""
    groups = duplicate_groups({r.unique_id: [r.problem_markdown, r.original_problem_markdown or ""]
                               for _, r in rows})
    problems, images = [], []
    for config, r in sorted(rows, key=lambda cr: cr[1].unique_id):
        problems.append({
            "unique_id": r.unique_id, "config": config, "country": r.country or "", "competition": r.competition or "",
            "year": r.year, "problem_number": r.problem_number or "", "problem": r.problem_markdown,
            "solutions": [s for s in r.solutions_markdown if s and s.strip()], "answers": list(r.answers_markdown or []),
            "final_answer": (r.final_answer or "").strip(), "topics": list(r.topics_flat),
            "domain": domain_of(r.topics_flat), "language": normalise_language(r.language),
            "problem_type": (r.problem_type or "unknown").strip() or "unknown", "has_images": bool(r.images),
            "num_images": len(r.images), "image_description": (r.natural_language_description or "").strip(),
            "source_booklet": r.source_booklet or "", "booklet_source": r.booklet_source or "",
            "duplicate_group": groups[r.unique_id],
        })
        for i, img in enumerate(r.images):
            images.append({"unique_id": r.unique_id, "index": i,
                           "image": {"bytes": img.data, "path": img.path or f"{r.unique_id}_{i + 1}.png"}})
    return problems, images


def subsets(problems: list[dict]) -> dict[str, list[dict]]:
    """Lemmata's stratified subsets (domain × language × image presence, fixed seed) of problems with a solution."""
    solvable = {p["unique_id"]: (p["domain"], p["language"], str(p["has_images"])) for p in problems if p["solutions"]}
    by_id = {p["unique_id"]: p for p in problems}
    return {name: [by_id[i] for i in stratified_subset(solvable, size, SUBSET_SEED)] for name, size in SUBSETS.items()}


class MathNetSolveBuilder(HubReleaseBuilder):
    """The Hub set-up (snapshot, used files, licence check) comes from :class:`HubReleaseBuilder`; this class
    only turns the per-country parquet files into the release's tables."""

    builder_id = "lemmata.builders.mathnet.MathNetSolveBuilder"
    meta = MATHNET_SOLVE
    builder_version = "1.1"
    allow_patterns = ALLOW_PATTERNS
    ignore_patterns = IGNORE_PATTERNS
    schema: str | None = None

    def manifest_layouts(self) -> dict[str, str]:
        return {PIN.repo_id: self.schema or "unread"}

    def card_layouts(self) -> dict[str, tuple[CardLayout, ...]]:
        """Either published schema, in every per-country config (split ``train``); ``all`` is not read."""
        aggregate = ConfigLayout(name=AGGREGATE_CONFIG, required=False, read=False)
        return {PIN.repo_id: tuple(model_layout(name, model, splits=("train",), also=(aggregate,))
                                   for name, model in SCHEMAS.items())}

    def features(self):
        return {"problems": problem_features(), "images": image_features()}

    def make_tables(self, sources: dict[str, Path]) -> list[SplitTable]:
        root = self.checked_root(sources, PIN.repo_id)
        self.schema, rows = read_snapshot(root, self.used)
        problems, images = release_rows(rows)
        subs = subsets(problems)
        self.stats = {"problems": len(problems), "images": len(images),
                      "subsets": {k: len(v) for k, v in subs.items()},
                      "configs": len({p["config"] for p in problems}),
                      "with_answer": sum(bool(p["final_answer"]) for p in problems),
                      "with_images": sum(p["has_images"] for p in problems),
                      "groups": len({p["duplicate_group"] for p in problems})}
        return ([SplitTable("problems", "full", problems)]
                + [SplitTable("problems", name, rows) for name, rows in subs.items()]
                + [SplitTable("images", "images", images)])

    def card_body(self, tables: list[SplitTable]) -> str:
        s = self.stats
        sizes = ", ".join(f"`{k}` {n:,}" for k, n in s["subsets"].items())
        return f"""
## Layout

| config | split | rows |
|---|---|---|
| `problems` | `full` | {s['problems']:,} problems from {s['configs']} upstream configs |
| `problems` | {', '.join(f'`{k}`' for k in s['subsets'])} | Lemmata's stratified subsets: {sizes} |
| `images` | `images` | {s['images']:,} figures (`unique_id`, `index`, `image`) |

{s['with_answer']:,} problems state a final answer; {s['with_images']:,} carry figures; statements fall into {s['groups']:,} duplicate groups (equal after normalising markup, case and spacing, or sharing an original statement).

## Upstream schema

Upstream has published two schemas of `ShadenA/MathNet`: **A-23col-unique_id** (23 columns with a 64-hex `unique_id`, `year`, `has_images`, `num_images`, booklet provenance, an image description) and **B-10col-id** (10 columns: `id`, `problem_markdown`, `solutions_markdown`, `images`, `country`, `competition`, `topics_flat`, `language`, `problem_type`, `final_answer`). This release was built from schema **{self.schema}** (recorded in MANIFEST.json, `layouts`). A problem's `unique_id` is upstream's `unique_id` (A) or `id` (B); columns schema B does not carry (`year`, `problem_number`, `answers`, `image_description`, `source_booklet`, `booklet_source`) are empty. `num_images` and `has_images` are counted from the `images` column. The aggregate `all` config (`data/all/`, every problem again) is neither downloaded nor read.

`language` is normalised to one English name per language (`español` → `Spanish`; a problem given in two languages keeps both, sorted: `English; Russian`; empty → `unknown`), so each language is one stratum.

## Evaluation subsets are Lemmata's, not the paper's

The paper reports Test-Set-Small (70 problems) and Test-Set-Large (5,500) but upstream does not publish which problems they hold. `lemmata_strat_70` and `lemmata_strat_5500` are stratified samples of the problems with a reference solution (strata: domain × language × image presence; proportional allocation by largest remainder; within a stratum, order of sha256("{SUBSET_SEED}:<unique_id>")). Their sizes follow the paper; their problems do not, so scores on them are not comparable with the paper's tables.

## Scoring

- **ProofGrade** (headline): a grader model sees the problem, the reference solution(s) and the candidate and returns a 0-7 score with a reason (rubric `mathnet_grade.v1`); only 7 counts. The grader's identity and the rubric's hash are part of the scoring artifact, so grades of different graders are never ranked together. Problems without a grade are *pending*, never correct.
- **AnswerCheck** (a separate column): where the problem states a final answer, `math-verify` compares the candidate's final answer with it (`\\frac12` and `0.5` agree). It is not a proof grade.
- Breakdowns by domain, language, image presence and problem type; micro average over problems and macro average over domains, with intervals.

## Limitations

- The pinned revision's column types are checked, not reviewed by a person; which schema the pinned revision holds was not seen directly (a loader citing it reads `id`, so very likely B); schema B's `images` column is read as a list of images, as in schema A, which was not verified. The paper's own splits and expert-curated RAG pairs are not published upstream.
- Domains are the head of the first topic path (Algebra, Number Theory, Geometry, Discrete Mathematics; else `other`).
"""

"""Build the versioned Re²Math release from the pinned upstream snapshot."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from lemmata.benchmarks.re2math.meta import RE2MATH
from lemmata.core.errors import InputError, Problem
from lemmata.formats.datafiles import read_unique
from lemmata.benchmarks.re2math.theorem import retrieval as theorem_retrieval
from lemmata.benchmarks.re2math.papers import paper_key, publication_year
from lemmata.benchmarks.re2math.render import WINDOWS
from lemmata.benchmarks.re2math.schema import Instance
from lemmata.benchmarks.re2math.splits import DEV_FRACTION, SALT, pool_split
from lemmata.release.builder import ReleaseBuilder, SplitTable

FULL = "benchmark_dataset_full.jsonl"
EVAL = "benchmark_dataset_eval200.jsonl"
FULL_SUMMARY = "benchmark_dataset_full.summary.json"
EVAL_SUMMARY = "benchmark_dataset_eval200.summary.json"


def instance_features():
    from datasets import Features, List, Value

    s = Value("string")
    return Features(
        {
            "instance_id": s,
            "paper_key": s,
            "publication_year": Value("int32"),
            "domain": s,
            "paper": {"paper_id": s, "title": s, "publication_date": s},
            "x": {
                "global_context": {"setup": s, "target_theorem": s},
                "local_context": List(s),
                "anchor_hint": s,
            },
            "y": {"reference_tool_latex": s, "reference_tool_type": s, "restated_in_citing_paper": Value("bool")},
            "z": {
                "citation_key": s,
                "citation_content": s,
                "source_type": s,
                "locator": s,
                "locator_snippet": s,
                "doi": s,
                "arxiv_id": s,
            },
            "strata": {"domain": s, "tool_family": s},
        }
    )


def _load(path: Path, label: str) -> list[tuple[int, Instance]]:
    """Validate every line; report every bad line and field at once."""
    return read_unique(path, label, Instance, "instance_id", "duplicate instance_id (first on line {first})")


def to_row(inst: Instance) -> dict[str, Any]:
    key = paper_key(inst.paper.paper_id)
    data = inst.model_dump()
    data.pop("split")  # upstream marks every row "unassigned"; the release's configs carry the split
    z = data["z"]
    data["z"] = {k: z.get(k) for k in ("citation_key", "citation_content", "source_type", "locator",
                                       "locator_snippet", "doi", "arxiv_id")}
    return {
        "instance_id": inst.instance_id,
        "paper_key": key,
        "publication_year": publication_year(inst.paper.publication_date, key),
        "domain": inst.strata.domain,
        **{k: data[k] for k in ("paper", "x", "y", "z", "strata")},
    }


class Re2MathBuilder(ReleaseBuilder):
    builder_id = "lemmata.builders.re2math.Re2MathBuilder"
    meta = RE2MATH
    builder_version = "1.0"
    source_names = (FULL, EVAL, FULL_SUMMARY, EVAL_SUMMARY)

    def features(self):
        f = instance_features()
        return {"eval200": f, "full": f, "pool": f, **theorem_retrieval.features()}

    def make_tables(self, sources: dict[str, Path]) -> list[SplitTable]:
        full = _load(sources[FULL], FULL)
        evals = _load(sources[EVAL], EVAL)
        by_id = {inst.instance_id: (line, inst) for line, inst in full}
        problems = []
        for line, inst in evals:
            if inst.instance_id not in by_id:
                problems.append(Problem(EVAL, "Eval-200 instance missing from the full file", line, "instance_id"))
            elif by_id[inst.instance_id][1] != inst:
                problems.append(Problem(EVAL, f"differs from line {by_id[inst.instance_id][0]} of {FULL}", line))
        self._check_summary(sources, len(full), [i for _, i in evals], problems)
        if problems:
            raise InputError(problems)

        eval_ids = {inst.instance_id for _, inst in evals}
        eval_keys = {paper_key(inst.paper.paper_id) for _, inst in evals}
        full_rows = [to_row(inst) for _, inst in full]
        eval_rows = [to_row(inst) for _, inst in evals]
        pool: dict[str, list[dict]] = {"train": [], "dev": []}
        excluded = []
        for row in full_rows:
            if row["instance_id"] in eval_ids:
                continue
            if row["paper_key"] in eval_keys:
                excluded.append(row)
                continue
            pool[pool_split(row["paper_key"])].append(row)
        self.split_report = {
            "full_rows": len(full_rows),
            "full_papers": len({r["paper_key"] for r in full_rows}),
            "raw_paper_ids": len({r["paper"]["paper_id"] for r in full_rows}),
            "test_rows": len(eval_rows),
            "test_papers": len(eval_keys),
            "excluded_rows": len(excluded),
            "excluded_papers": len({r["paper_key"] for r in excluded}),
            **{f"{s}_rows": len(rows) for s, rows in pool.items()},
            **{f"{s}_papers": len({r["paper_key"] for r in rows}) for s, rows in pool.items()},
        }
        self.domains = Counter(r["domain"] for r in eval_rows)
        self.theorem_track = theorem_retrieval.make_track(full_rows, {"test": eval_rows, **pool})
        t = self.theorem_track
        return [
            SplitTable("eval200", "test", eval_rows),
            SplitTable("full", "full", full_rows),
            SplitTable("pool", "train", pool["train"]),
            SplitTable("pool", "dev", pool["dev"]),
            SplitTable(theorem_retrieval.CORPUS_CONFIG, "corpus", t.corpus),
            *(SplitTable(theorem_retrieval.QUERIES_CONFIG, s, t.queries[s]) for s in theorem_retrieval.QUERY_SPLITS),
            *(SplitTable(theorem_retrieval.QRELS_CONFIG, s, t.qrels[s]) for s in theorem_retrieval.QUERY_SPLITS),
        ]

    @staticmethod
    def _check_summary(sources, n_full: int, evals: list[Instance], problems: list[Problem]) -> None:
        full_summary = json.loads(sources[FULL_SUMMARY].read_text("utf-8"))
        eval_summary = json.loads(sources[EVAL_SUMMARY].read_text("utf-8"))
        if full_summary.get("rows") != n_full:
            problems.append(Problem(FULL_SUMMARY, f"states {full_summary.get('rows')} rows, the file has {n_full}",
                                    field="rows"))
        if eval_summary.get("rows") != len(evals):
            problems.append(Problem(EVAL_SUMMARY, f"states {eval_summary.get('rows')} rows, the file has {len(evals)}",
                                    field="rows"))
        counts = Counter(i.strata.domain for i in evals)
        if dict(counts) != eval_summary.get("domain_counts"):
            problems.append(Problem(EVAL_SUMMARY, f"domain counts {dict(counts)} differ from the stated ones",
                                    field="domain_counts"))

    def card_body(self, tables: list[SplitTable]) -> str:
        r = self.split_report
        domains = ", ".join(f"{d} {n}" for d, n in sorted(self.domains.items()))
        windows = ", ".join(str(w) for w in WINDOWS)
        return f"""
## Columns

Each row keeps the upstream nested record (`paper`, `x`, `y`, `z`, `strata`) and adds derived columns:

| column | meaning |
|---|---|
| `instance_id` | upstream id, `<arXiv id>_gap_<n>` |
| `paper_key` | the citing paper's arXiv id with the version suffix removed (`2110.11087v2` → `2110.11087`) |
| `publication_year` | year of `paper.publication_date`, or else the `YYMM` year of the arXiv id; null when neither exists |
| `domain` | copy of `strata.domain` (one of five areas) |
| `paper` | citing paper: `paper_id` (as upstream, with version), `title`, `publication_date` (`"Unknown"` when not stated) |
| `x` | agent input: `global_context.setup`, `global_context.target_theorem`, `local_context` (≤ 5 proof blocks, **oldest first**), `anchor_hint` |
| `y` | reference witness: `reference_tool_latex`, `reference_tool_type`, `restated_in_citing_paper` |
| `z` | the citation the gap came from: `citation_key`, `citation_content`, `source_type`, `locator`, `locator_snippet` (null for {r['full_rows'] - sum(1 for row in tables[1].rows if row['z']['locator_snippet'] is not None)} rows), `doi`, `arxiv_id` (empty string when unknown) |
| `strata` | `domain`, `tool_family` |

The upstream `split` field (always `"unassigned"`) is dropped: the config and split a row sits in are its split.

## Split policy

Splits are made at **citing-paper level** on `paper_key`, so no citing paper (in any arXiv version) appears in more than one of test / train / dev.

- **test** (`eval200`): exactly the paper's Eval-200 file, in upstream order: {r['test_rows']} gaps from {r['test_papers']} citing papers ({domains}).
- **excluded**: {r['excluded_rows']} non-Eval-200 rows from {r['excluded_papers']} citing papers that also occur in Eval-200. They are kept out of `pool` so that no test paper leaks into training; they remain in `full`.
- **train / dev** (`pool`): the remaining rows. A paper goes to `dev` when the first 64 bits of `sha256("{SALT}" + paper_key)`, read as a fraction of 2^64, are below {DEV_FRACTION}; otherwise to `train`. train: {r['train_rows']} rows from {r['train_papers']} papers; dev: {r['dev_rows']} rows from {r['dev_papers']} papers. The rule depends only on the paper key, so a later release that adds papers does not move existing ones.
- **full**: all {r['full_rows']} rows, unsplit ({r['raw_paper_ids']} distinct `paper.paper_id` values, {r['full_papers']} citing papers after version normalisation).

## Tracks

A system reads a rendered proof state and returns a scholarly source and a statement from it.

- **Raw**: setup + target theorem + the last *m* local proof blocks, *m* ∈ {{{windows}}}.
- **Assisted**: Raw plus the anchor hint (`x.anchor_hint`), a short leakage-controlled description of the needed step.

`lemmata.re2math.render.render_instance(row, track, window)` produces exactly this text; fewer than *m* blocks renders the blocks that exist and an empty local context renders an empty section.
Scoring is ToolAcc = Ground ∧ Suff, judged against the source the system selected from a frozen retrieval artifact; CiteRecall@N, GroundRate and AnchorAcc are diagnostics.

## Intended use

Evaluation of retrieval-augmented mathematical assistants on the `eval200` test split; `pool` is for development and tuning (declare it in your submission). Do not train on `eval200` or on `full`, which contains it.

## Limitations

- The reference statement (`y`) is one admissible witness, not the only one: a different sufficient theorem from another source is a correct answer, which is why scoring needs a judge.
- Contexts are LaTeX excerpts extracted automatically from arXiv sources; some contain macro residue or truncated sentences.
- `publication_date` is `"Unknown"` for many rows; `publication_year` then comes from the arXiv identifier (first version), which can precede journal publication.
- Eval-200 contains only `journal_paper` citations; `pool` mixes books, preprints and unknown source types.
- Domains are balanced in the test set (40 each) but not in `pool`.
""" + theorem_retrieval.card_section(self.theorem_track)

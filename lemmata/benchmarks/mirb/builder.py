"""Build the MIRB release from pinned snapshots of its fifteen ``hcju/`` Hub datasets.

Each task's files are found through its card's ``configs:`` block (``corpus``,
``queries``, ``default`` = qrels with split ``test``, ``excluded_ids``), as
``load_dataset`` finds them; a snapshot without a card falls back to the BEIR
folder layout upstream's own loader reads (``corpus.jsonl``, ``queries.jsonl``,
``qrels/test.tsv`` or ``qrels/test.jsonl``, ``excluded_ids.jsonl``).
"""

from __future__ import annotations

from pathlib import Path

from lemmata.formats.beir import (
    Collection, check_collection, corpus_features, excluded_features, qrels_features, queries_features,
    read_corpus, read_excluded, read_qrels, read_queries,
)
from lemmata.benchmarks.mirb.meta import DATASETS, MIRB, TASKS, MirbTask
from lemmata.benchmarks.mirb.meta import task as mirb_task
from lemmata.core.errors import InputError
from lemmata.core.meta import HubPin
from lemmata.release.builder import SplitTable
from lemmata.release.card_check import CardLayout, ConfigLayout
from lemmata.release.hub import UsedFiles, card_license, declared_data_files
from lemmata.release.hub_builder import HubReleaseBuilder

_FALLBACK = {
    "corpus": ("corpus.jsonl",),
    "queries": ("queries.jsonl",),
    "qrels": ("qrels/test.tsv", "qrels/test.jsonl"),
    "excluded_ids": ("excluded_ids.jsonl",),
}


def pin_of(task: MirbTask):
    for pin in MIRB.hub:
        if pin.repo_id == task.repo_id:
            return pin
    raise KeyError(task.repo_id)


def task_files(root: Path, task: MirbTask) -> dict[str, tuple[Path, ...]]:
    """``{"corpus"|"queries"|"qrels"|"excluded_ids": files}`` of one task snapshot."""
    declared = declared_data_files(root)
    label = str(root / "README.md")
    out: dict[str, tuple[Path, ...]] = {}
    if declared:
        wanted = {"corpus": ("corpus", None), "queries": ("queries", None), "qrels": ("default", "test")}
        if task.dynamic_corpus:
            wanted["excluded_ids"] = ("excluded_ids", None)
        for kind, (config, split) in wanted.items():
            splits = declared.get(config)
            if not splits:
                raise InputError.one(label, f"{task.repo_id}: the card declares no {config!r} config "
                                            f"(has: {sorted(declared)})", field="configs")
            if split is None:
                if len(splits) != 1:
                    raise InputError.one(label, f"{task.repo_id}: config {config!r} has splits {sorted(splits)}; "
                                                "expected one", field="configs")
                out[kind] = next(iter(splits.values())).paths
            elif split in splits:
                out[kind] = splits[split].paths
            else:
                raise InputError.one(label, f"{task.repo_id}: config {config!r} has no split {split!r} "
                                            f"(has: {sorted(splits)})", field="configs")
        return out
    for kind, names in _FALLBACK.items():
        if kind == "excluded_ids" and not task.dynamic_corpus:
            continue
        found = [root / n for n in names if (root / n).is_file()]
        if not found:
            raise InputError.one(str(root), f"{task.repo_id}: no card with configs and no {' or '.join(names)} "
                                            "in the snapshot")
        out[kind] = (found[0],)
    return out


def load_task(root: Path, task: MirbTask, used: UsedFiles) -> Collection:
    files = task_files(root, task)
    used.add(pin_of(task), root, [p for ps in files.values() for p in ps])
    def label(kind: str) -> str | None:
        paths = files.get(kind, ())
        return f"{task.repo_id}/{paths[0].relative_to(root).as_posix()}" if len(paths) == 1 else None

    corpus = read_corpus(files["corpus"], label=label("corpus"))
    queries = read_queries(files["queries"], label=label("queries"))
    qrels = read_qrels(files["qrels"], label=label("qrels"))
    excluded, excluded_lines = ({}, {})
    if task.dynamic_corpus:
        excluded, excluded_lines = read_excluded(files["excluded_ids"], label=label("excluded_ids"))
    return check_collection(corpus, queries, qrels, qrels_label=label("qrels") or task.repo_id,
                            excluded=excluded, excluded_lines=excluded_lines,
                            excluded_label=label("excluded_ids") or task.repo_id)


class MirbBuilder(HubReleaseBuilder):
    builder_id = "lemmata.builders.mirb.MirbBuilder"
    meta = MIRB
    builder_version = "1.0"

    def pins(self) -> dict[str, HubPin]:
        """One snapshot per task, named by the task (a task is one Hub dataset)."""
        return {t.name: pin_of(t) for t in TASKS}

    def features(self):
        return {"corpus": corpus_features(with_title=True), "queries": queries_features(),
                "qrels": qrels_features(), "excluded_ids": excluded_features()}

    def card_layouts(self) -> dict[str, tuple[CardLayout, ...]]:
        """Each task's card as MTEB lays it out (the configs :func:`task_files` reads; columns are the BEIR
        readers', ``title`` optional, other columns ignored by the readers and so shown as not read), or a card
        with no configs, whose files :func:`task_files` finds by their BEIR names."""
        def config(name: str, split: str | None, features, optional: tuple[str, ...] = (), **flags) -> ConfigLayout:
            return ConfigLayout(name=name, splits=(split,) if split else None, columns=tuple(features),
                                optional_columns=optional, other_columns=True, **flags)

        out = {}
        for task in TASKS:
            configs = [config("corpus", "corpus", corpus_features(with_title=True), ("title",)),
                       config("queries", "queries", queries_features()),
                       config("default", "test", qrels_features(), other_splits=True)]
            if task.dynamic_corpus:
                configs.append(config("excluded_ids", None, excluded_features()))  # its split name: not seen
            out[task.name] = (CardLayout(name="MTEB retrieval", configs=tuple(configs)),
                              CardLayout(name="BEIR files without card configs", bare=True))
        return out

    def expected_license(self, name: str) -> str:
        """The licence task ``name``'s card must state: its record where that was verified at the pinned revision;
        otherwise ``other`` (not compared), and the build records what the card it reads states (the card table)."""
        record = mirb_task(name).licence
        return record.stated if record.stated is not None else "other"

    def make_tables(self, sources: dict[str, Path]) -> list[SplitTable]:
        tables: dict[str, list[SplitTable]] = {"qrels": [], "queries": [], "corpus": [], "excluded_ids": []}
        self.stats, self.licences = {}, {}
        for task in TASKS:
            root = self.checked_root(sources, task.name)
            self.licences[task.name] = card_license(root) or (
                "none stated" if (root / "README.md").is_file() else "no card in the snapshot")
            coll = load_task(root, task, self.used)
            self.stats[task.name] = (len(coll.corpus), len(coll.queries), len(coll.judged_queries),
                                     sum(len(v) for v in coll.qrels.values()))
            tables["qrels"].append(SplitTable("qrels", task.name, [
                {"query-id": q, "corpus-id": d, "score": s}
                for q in coll.queries for d, s in coll.qrels.get(q, {}).items()]))
            tables["queries"].append(SplitTable("queries", task.name,
                                                [{"_id": q, "text": t} for q, t in coll.queries.items()]))
            tables["corpus"].append(SplitTable("corpus", task.name, [
                {"_id": d.doc_id, "title": d.title, "text": d.text} for d in coll.corpus.values()]))
            if task.dynamic_corpus:
                tables["excluded_ids"].append(SplitTable("excluded_ids", task.name, [
                    {"query-id": q, "excluded-ids": sorted(coll.excluded[q])}
                    for q in coll.queries if q in coll.excluded]))
        return [t for kind in ("qrels", "queries", "corpus", "excluded_ids") for t in tables[kind]]

    def card_body(self, tables: list[SplitTable]) -> str:
        rows = "\n".join(
            f"| `{t.name}` | {t.dataset} | {t.category} | [`{t.repo_id}`](https://huggingface.co/datasets/{t.repo_id})"
            f" @ `{t.revision[:12]}` | {'yes' if t.dynamic_corpus else 'no'} | "
            f"{self.stats[t.name][0]:,} | {self.stats[t.name][1]:,} | {self.stats[t.name][2]:,} |"
            for t in TASKS
        )
        licences = "\n".join(
            f"| `{t.name}` | `{t.repo_id}` | {self.licences[t.name]} | "
            f"{'yes: ' + str(t.licence.stated) if t.licence.verified else t.licence.evidence} |"
            for t in TASKS
        )
        return f"""
## Tasks

Each task is a split of the `corpus`, `queries` and `qrels` configs (and of `excluded_ids` when its corpus is dynamic). The paper reports twelve datasets; NaturalProofs is the mean of its four premise-retrieval subsets.

| split | paper dataset | task | Hub dataset | dynamic corpus | documents | queries | judged queries |
|---|---|---|---|---|---:|---:|---:|
{rows}

Columns: `corpus` — `_id`, `title` (null when upstream has none), `text`; `queries` — `_id`, `text`; `qrels` — `query-id`, `corpus-id`, `score` (graded relevance, int); `excluded_ids` — `query-id`, `excluded-ids`.

## Licences

Licences differ per task, so the release's licence is `other`. Each row gives the `license:` stated on the card (`README.md`) of the snapshot this build read, at the pinned revision; the last column says whether that value was checked against a record verified at the pinned revision (a card stating another licence than a verified record stops the build).

| split | Hub dataset | licence stated on the card read | verified record |
|---|---|---|---|
{licences}

## Dynamic corpus

In a dynamic-corpus task some documents are no candidate for a given query (for a duplicate-question task, the query's own post and posts excluded by construction). Upstream removes them from that query's candidates; a run that ranks one of them for that query is rejected with the line and field.

## Scoring

A run gives, for each evaluated query of a task, up to 1,000 documents with scores; documents are ranked by score (descending), ties broken by document id (ascending). The per-task score is nDCG@10 over the task's judged queries (a query without a ranking scores 0). The benchmark score is the mean over the {len(DATASETS)} datasets, NaturalProofs being the mean of its four subsets.

Upstream's evaluator (the MTEB fork) averages nDCG@10 over every query present in the qrels, including a query whose judgements all have grade 0 (it scores 0 there); Lemmata averages over queries with a positive grade. Where a task has such queries the two differ, and a scored result reports both: the upstream figure under `upstream_query_set` (per task and averaged over the datasets), Lemmata's as the main score.

## Limitations

- The task definitions and revisions come from the authors' evaluation code (`{MIRB.upstream_repo}` @ `{(MIRB.upstream_commit or '')[:12]}`), not from the Hub cards.
- Premise-retrieval corpora for formal languages are large and the queries are proof states; scores there are low for every model in the paper.
"""

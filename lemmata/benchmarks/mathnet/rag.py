"""MathRAG: the retrieval pool, what it must never offer, and the context a solver is given.

Three conditions, each its own frozen-tuple group (the ``retrieval_artifact`` names the condition):

- ``zero-shot``: no context;
- ``expert-rag``: the expert-curated similar problem with its solution, from a pairs file whose sha256 is
  part of the artifact id (upstream has not published the paper's pairs; nothing here invents them);
- ``retriever-rag``: the top-k problems of the pool, with their solutions, ranked by a retriever over the
  problem statements.

The pool is every problem of the release with a reference solution. For each query it excludes the
*exclusion group* of the query — the problem itself, its duplicates (equal statements once normalised, or
a shared original statement) and the members of its equivalence set (MathNet-Retrieve's reformulations,
matched by statement) — because their solutions are the answer. The scorer checks the same rule on every
submitted context id, so a submission cannot smuggle the answer in.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from lemmata.benchmarks.mathnet.solve_schema import duplicate_groups, text_key
from lemmata.core.hashing import sha256_json

#: how many retrieved problems a retriever-RAG run gives the solver (the paper gives one)
DEFAULT_K = 1
MAX_K = 5


@dataclass(frozen=True)
class PoolProblem:
    problem_id: str
    problem: str
    solutions: tuple[str, ...]


def equivalence_links(problems: Mapping[str, str], equivalents: Iterable[tuple[str, Sequence[str]]]
                      ) -> list[tuple[str, str]]:
    """Links between problems of the release that one equivalence set joins.

    ``equivalents`` gives ``(anchor id, [anchor text, reformulation texts…])`` (MathNet-Retrieve's queries
    and their positives); release problems whose statement equals any text of a set, and the anchor itself
    when it is a release problem, are linked.

    >>> equivalence_links({"a": "P.", "b": "Restated: P.", "c": "Q."}, [("a", ["P.", "restated:  P."])])
    [('a', 'b')]
    """
    by_text: dict[str, list[str]] = {}
    for pid, text in problems.items():
        by_text.setdefault(text_key(text), []).append(pid)
    links: list[tuple[str, str]] = []
    for anchor, texts in equivalents:
        members = sorted({anchor} & set(problems) | {p for t in texts for p in by_text.get(text_key(t), [])})
        links += [(members[0], m) for m in members[1:]]
    return links


def retrieve_equivalents(retrieve_release) -> list[tuple[str, list[str]]]:
    """``(query id, [query text, positive texts of every tier])`` from a MathNet-Retrieve release."""
    from lemmata.benchmarks.mathnet.meta import TIERS
    from lemmata.catalog import read_columns

    queries = read_columns(retrieve_release, "queries", "queries", ["_id", "text"])
    sets: dict[str, list[str]] = {q: [t] for q, t in zip(queries["_id"], queries["text"])}
    positives: dict[str, set[str]] = {}
    for tier in TIERS:
        qr = read_columns(retrieve_release, "qrels", tier, ["query-id", "corpus-id", "score"])
        for q, d, score in zip(qr["query-id"], qr["corpus-id"], qr["score"]):
            if score > 0:
                positives.setdefault(d, set()).add(q)
    corpus = read_columns(retrieve_release, "corpus", "corpus", ["_id", "text"])
    for d, text in zip(corpus["_id"], corpus["text"]):
        for q in sorted(positives.get(d, ())):
            sets.setdefault(q, []).append(text)
    return sorted(sets.items())


def exclusion_groups(problems: Sequence[Mapping], equivalents: Iterable[tuple[str, Sequence[str]]] = ()
                     ) -> dict[str, str]:
    """``{problem id: exclusion group}``: the release's duplicate groups joined by equivalence sets."""
    statements = {p["unique_id"]: p["problem"] for p in problems}
    links = [(p["unique_id"], p["duplicate_group"]) for p in problems]
    links += equivalence_links(statements, equivalents)
    return duplicate_groups({pid: [] for pid in statements}, links)


def pool_of(problems: Sequence[Mapping]) -> list[PoolProblem]:
    """Every problem with a reference solution, sorted by id."""
    return [PoolProblem(p["unique_id"], p["problem"], tuple(p["solutions"]))
            for p in sorted(problems, key=lambda p: p["unique_id"]) if p["solutions"]]


def pool_id(pool: Sequence[PoolProblem], groups: Mapping[str, str]) -> str:
    """Content id of a pool and its exclusion rule (part of the retrieval artifact)."""
    return sha256_json({"ids": [p.problem_id for p in pool], "groups": dict(sorted(groups.items()))})[:16]


def allowed(query_id: str, candidate_id: str, groups: Mapping[str, str]) -> bool:
    """Whether ``candidate_id`` may be shown as context for ``query_id``.

    >>> g = {"a": "a", "b": "a", "c": "c"}
    >>> allowed("a", "a", g), allowed("a", "b", g), allowed("a", "c", g)
    (False, False, True)
    """
    return groups.get(candidate_id, candidate_id) != groups.get(query_id, query_id)


def retrieve_contexts(ranker, queries: Mapping[str, str], pool: Sequence[PoolProblem],
                      groups: Mapping[str, str]) -> dict[str, list[str]]:
    """``{query id: top allowed pool ids}``: ``ranker`` (a model-run ranker of :mod:`lemmata.tracks.model_runs`)
    ranks the pool with each query's exclusion group removed inside the search, so the top k are k allowed ones."""
    from lemmata.tracks.model_runs import Part

    members: dict[str, set[str]] = {}
    for p in pool:
        members.setdefault(groups.get(p.problem_id, p.problem_id), set()).add(p.problem_id)
    excluded = {q: frozenset(members.get(groups.get(q, q), set()) | {q}) for q in queries}
    part = Part(doc_ids=[p.problem_id for p in pool], doc_texts=[p.problem for p in pool], queries=dict(queries),
                label="mathrag-pool", excluded=excluded)
    run = ranker.rank(part)
    out = {q: [d for d, _ in run.rankings[q]] for q in queries}
    for q, ids in out.items():  # the search removed them; a ranker that ignores exclusions is refused here
        bad = [d for d in ids if not allowed(q, d, groups)]
        if bad:
            from lemmata.core.errors import LemmataError

            raise LemmataError(f"the retriever returned {bad[0]!r} for {q!r}, which the pool excludes for it")
    return out


def leaks(query_id: str, context_ids: Sequence[str], groups: Mapping[str, str]) -> list[str]:
    """The context ids that must not be shown for ``query_id`` (its exclusion group)."""
    return [c for c in context_ids if not allowed(query_id, c, groups)]

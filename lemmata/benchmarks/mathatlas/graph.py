"""The MathAtlas dependency graph: edges from ``object_links``, and a depth that is defined on cycles.

An upstream record lists, for each reference in its text (``object_references``), the uuids of the
entities that reference may point to (``object_links``: one list of candidates per reference). As in
the authors' own graph code (``scripts/graph_depth.py`` and ``benchmarks/dependency_context.py`` in
``offendo/math-atlas``), every candidate is an edge *entity → target* ("the entity uses the target"),
and an edge from an entity to itself is dropped. A target that is not an entity of the public release
(the Springer-sourced ~30% of the corpus is withheld) is *unresolved*: it is kept and counted, never
guessed, and it does not count towards depth.

Depth, as Lemmata computes it (``scc_depth``): the strongly connected components of the resolved graph
are condensed to one node each (entities that depend on one another share a depth), and an entity's
depth is the number of edges on the longest path from its component to a component without
dependencies in that acyclic condensation; an entity without resolved dependencies has depth 0. The
result does not depend on the order of the records. It is **not the MathAtlas paper's depth**: the
paper's came from a memoised depth-first search whose values on and above a cycle depend on traversal
order (the authors' later SCC recomputation changed 64% of them), and it was computed over the full
corpus, withheld entities included.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

__all__ = ["candidate_edges", "depth_group", "scc_depth"]


def candidate_edges(uuid: str, object_links: Sequence[Sequence[str] | None] | None) -> list[tuple[int, str]]:
    """``(reference index, target uuid)`` for every candidate of every reference, self-edges dropped.

    A candidate repeated within one reference counts once; empty and missing lists give no edge.

    >>> candidate_edges("a", [["b", "c"], None, ["a", "b", "b"], []])
    [(0, 'b'), (0, 'c'), (2, 'b')]
    >>> candidate_edges("a", None)
    []
    """
    out: list[tuple[int, str]] = []
    for slot, candidates in enumerate(object_links or ()):
        seen: set[str] = set()
        for target in candidates or ():
            if target and target != uuid and target not in seen:
                seen.add(target)
                out.append((slot, target))
    return out


def scc_depth(nodes: Sequence[str], edges: Iterable[tuple[str, str]]) -> tuple[dict[str, int], dict[str, int]]:
    """``(depth, component size)`` of every node: longest path over the condensation of ``edges``.

    ``edges`` are ``(source, target)`` pairs between ``nodes`` (source depends on target); an edge
    naming a node outside ``nodes`` is ignored, so unresolved targets never add depth.

    >>> depth, size = scc_depth(["a", "b", "c", "d", "e"],
    ...                         [("a", "b"), ("b", "a"), ("c", "a"), ("d", "c"), ("d", "a"), ("e", "x")])
    >>> depth
    {'a': 0, 'b': 0, 'c': 1, 'd': 2, 'e': 0}
    >>> size
    {'a': 2, 'b': 2, 'c': 1, 'd': 1, 'e': 1}
    """
    import numpy as np
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    index = {n: i for i, n in enumerate(nodes)}
    pairs = sorted({(index[s], index[t]) for s, t in edges if s in index and t in index})
    n = len(nodes)
    if not n:
        return {}, {}
    rows = np.array([s for s, _ in pairs], dtype=np.int64)
    cols = np.array([t for _, t in pairs], dtype=np.int64)
    graph = coo_matrix((np.ones(len(pairs), dtype=np.int8), (rows, cols)), shape=(n, n)).tocsr()
    n_comp, label = connected_components(graph, directed=True, connection="strong")
    succ: list[set[int]] = [set() for _ in range(n_comp)]
    for s, t in pairs:
        if label[s] != label[t]:
            succ[label[s]].add(int(label[t]))
    pred: list[list[int]] = [[] for _ in range(n_comp)]
    for c, targets in enumerate(succ):
        for t in targets:
            pred[t].append(c)
    # dependencies before dependents: a component is settled once every component it uses is
    waiting = [len(targets) for targets in succ]
    depth = [0] * n_comp
    ready = [c for c in range(n_comp) if not waiting[c]]
    while ready:
        c = ready.pop()
        for p in pred[c]:
            depth[p] = max(depth[p], depth[c] + 1)
            waiting[p] -= 1
            if not waiting[p]:
                ready.append(p)
    size = np.bincount(label, minlength=n_comp)
    return ({node: depth[label[i]] for node, i in index.items()},
            {node: int(size[label[i]]) for node, i in index.items()})


def depth_group(depth: int) -> str:
    """The depth stratum a breakdown reports: 0, 1, then doubling ranges.

    >>> [depth_group(d) for d in (0, 1, 2, 3, 4, 7, 8, 40)]
    ['depth 0', 'depth 1', 'depth 2–3', 'depth 2–3', 'depth 4–7', 'depth 4–7', 'depth 8–15', 'depth 32–63']
    """
    if depth < 2:
        return f"depth {depth}"
    low = 1 << (depth.bit_length() - 1)
    return f"depth {low}–{2 * low - 1}"

"""A non-LLM Re²Math agent on the current offline world — a baseline, and a template for your own agent.

It runs under the paper's budget by default — one query, at most one source
opened, lists of 20 (:data:`MAX_QUERIES`, :data:`MAX_OPENED`) — against
the current world (``re2math-scholar-offline-2.2.0``), where opening a record
returns its bibliographic entry and abstract, never a statement.

For every instance it does what a retrieval-augmented assistant does, with no
model in the loop, so every step is deterministic and easy to replace:

1. **Write queries** from the proof state (:func:`make_queries`): the target
   theorem — on the assisted track led by the anchor hint, so the one query
   the paper's budget allows carries the hint — and the last local proof
   block, each whitespace-normalised and clipped to :data:`QUERY_CHARS`
   characters; the first ``max_queries`` are sent.
2. **Search** the artifact once per query with the instance's year cutoff (the
   citing paper's ``publication_year``) and the scorer's list length (20),
   recording the candidate ids exactly as returned: the scorer replays them.
3. **Rank sources** (:func:`admissible_sources`): fuse the candidate lists by
   reciprocal-rank fusion and drop the instance's own citing paper (selecting
   it settles Ground = no).
4. **Open** the best sources, at most ``max_opens``, and **extract** the
   statement most similar to the rendered proof state under BM25: a frozen
   statement where the artifact serves them (1.0.0, :func:`extract_statement`),
   else the closest sentence of the opened text's abstract
   (:func:`extract_sentence`). The first opened source with something to
   extract is selected; if none has, the first is selected and the statement
   left null (an abstention).

Every step reads the instance with its own cite key masked (``cite_keys="masked"``, the default of the offline
world: the key often names the answer, so a query carrying it would find the source by its label);
``cite_keys="unmasked"`` reads the input as stored, declared in the header and ranked apart.

On the raw track the record also carries a planning *anchor* — here simply the
last sentence of the last local proof block (:func:`raw_anchor`); the judge
scores it against the hidden anchor hint (AnchorAcc).

The output is a Re²Math submission (format v1, see ``submissions/re2math/``)
that scores through the normal pipeline: CiteRecall@20 and SourceAcc are
computed from the recorded trajectory; Suff needs the judge and stays pending
without one.
To build your own agent, replace steps 1, 3 and 4 (an LLM writing queries,
reading the materialised text, and extracting a statement) and keep the rest.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lemmata.core.jsonl import write_jsonl
from lemmata.retrievers.fusion import reciprocal_rank_fusion

AGENT_NAME = "Lexical agent (BM25 query → top admissible source → BM25 statement)"
#: characters kept of each query (the format allows 2,000)
QUERY_CHARS = 1000
#: candidates per query: the list length the scorer replays and CiteRecall@20 counts
CANDIDATES_N = 20
#: queries per instance: the paper protocol's one
MAX_QUERIES = 1
#: sources opened per instance at most: the paper protocol's one
MAX_OPENED = 1


def clip(text: str, limit: int = QUERY_CHARS) -> str:
    """Whitespace-normalised ``text``, cut at the last space before ``limit`` characters.

    >>> clip("a  b\\n c", 10), clip("alpha beta gamma", 11)
    ('a b c', 'alpha beta')
    """
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat[:limit + 1].rsplit(" ", 1)[0]
    return cut if cut else flat[:limit]


def make_queries(row: Mapping[str, Any], track: str) -> list[str]:
    """Step 1: the target theorem, then the last local block; blanks and repeats dropped.

    On the assisted track the first query — the only one sent under the
    paper's budget — leads with the anchor hint, followed by the target
    theorem (unless the hint already says it), so the hint the track adds is
    what the one query searches with.
    """
    x = row["x"]
    target = x["global_context"]["target_theorem"]
    first = target
    if track == "assisted":
        hint = " ".join((x.get("anchor_hint") or "").split())
        first = hint if " ".join(target.split()) in hint else f"{hint} {target}".strip()
    parts = [first, *(x["local_context"][-1:])]
    return list(dict.fromkeys(q for q in (clip(p) for p in parts) if q))


def raw_anchor(row: Mapping[str, Any]) -> str | None:
    """The raw track's planning anchor: the last sentence of the last local proof block (None without blocks).

    >>> raw_anchor({"x": {"local_context": ["a.", "We bound $f$. Then apply  the maximum principle."]}})
    'Then apply the maximum principle.'
    """
    import re

    blocks = row["x"]["local_context"]
    if not blocks:
        return None
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", " ".join(blocks[-1].split())) if s]
    return clip(sentences[-1], 1000) if sentences else None


def admissible_sources(results: Sequence[Any], row: Mapping[str, Any]) -> list[str]:
    """Step 3: every candidate by fused rank, without the instance's citing paper (any version of it)."""
    from lemmata.benchmarks.re2math.scholar.matcher import is_citing_paper

    by_id = {c.id: c for r in results for c in r.candidates}
    fused = reciprocal_rank_fusion([[(c.id, c.score or 0.0) for c in r.candidates] for r in results])
    return [cid for cid, _ in fused if not is_citing_paper(by_id[cid], row)]


def extract_statement(materialisation: Any, proof_state: str) -> str | None:
    """Step 4: the materialised statement closest to the proof state by BM25 (ties: statement id); None if none."""
    from lemmata.retrievers.bm25 import BM25Index

    statements = materialisation.statements
    if not statements:
        return None
    index = BM25Index([s.id for s in statements], [s.latex for s in statements])
    best, _ = index.search(proof_state, 1)[0]
    return next(s.latex for s in statements if s.id == best).strip() or None


def extract_sentence(text: str, proof_state: str) -> str | None:
    """The sentence of an opened record's abstract closest to the proof state by BM25 (None without an abstract).

    >>> extract_sentence("# T\\n\\n## Abstract\\nWe study graphs. Every planar graph is 4-colourable.", "planar colourable")
    'Every planar graph is 4-colourable.'
    """
    import re

    from lemmata.retrievers.bm25 import BM25Index

    _, found, abstract = text.partition("## Abstract")
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", " ".join(abstract.split())) if s] if found else []
    if not sentences:
        return None
    ids = [str(i) for i in range(len(sentences))]
    hits = BM25Index(ids, sentences).search(proof_state, 1)
    return clip(sentences[int(hits[0][0]) if hits else 0], 2000)


def solve(row: Mapping[str, Any], artifact: Any, *, track: str, window: int, max_queries: int = MAX_QUERIES,
          max_opens: int = MAX_OPENED, cite_keys: str = "masked") -> dict[str, Any]:
    """One instance end to end: the submission record (queries with their candidates, openings, source, statement)."""
    from lemmata.benchmarks.re2math.render import render_instance, system_input
    from lemmata.benchmarks.re2math.scholar.identity import year_cutoff

    row = system_input(row, cite_keys)
    iid = row["instance_id"]
    cutoff = year_cutoff(artifact, row)
    results = [artifact.search(q, cutoff, CANDIDATES_N, instance_id=iid)
               for q in make_queries(row, track)[:max_queries]]
    sources = admissible_sources(results, row)
    source, statement, opened = (sources[0] if sources else None), None, []
    proof_state = render_instance(row, track, window)
    for candidate in sources[:max_opens]:
        m = artifact.materialise(candidate, instance_id=iid)
        opened.append(candidate)
        found = getattr(m, "statements", ())
        statement = extract_statement(m, proof_state) if found else extract_sentence(m.text, proof_state)
        if statement is not None:
            source = candidate
            break
    if statement is None and source is not None and source not in opened and opened:
        source = opened[0]
    record = {"instance_id": iid, "queries": [{"text": r.query, "candidates": r.ids()} for r in results],
              "opened": opened, "selected_source": source, "statement": statement}
    if track == "raw":
        record["anchor"] = raw_anchor(row)
    return record


def run_agent(out_dir: str | Path, *, track: str = "assisted", split: str = "eval200/test", window: int = 5,
              artifact: Any = None, cite_keys: str = "masked") -> Path:
    """Run the agent on every instance of ``split`` and write its Re²Math submission; returns the file."""
    from lemmata import __version__
    from lemmata.catalog import release_path
    from lemmata.benchmarks.re2math.meta import RE2MATH
    from lemmata.catalog import open_release_folder as open_release
    from lemmata.benchmarks.re2math.scholar.world_artifact import WorldArtifact
    from lemmata.benchmarks.re2math.scholar.worlds import current_world
    from lemmata.formats.envelope import SUBMISSION_FORMAT

    artifact = artifact or WorldArtifact(current_world(build=True))
    config, _, config_split = split.partition("/")
    rows = open_release(release_path(RE2MATH)).rows(config, config_split)
    header = {
        "format": SUBMISSION_FORMAT, "benchmark": "re2math", "release": RE2MATH.release_id, "split": split,
        "track": track, "window": window,
        "model": {"name": AGENT_NAME, "revision": f"lemmata {__version__}"},
        "retrieval_artifact": artifact.artifact_id,
        "flags": {"tuned_on_pool": False, "used_external_tools": False},
        "max_queries": MAX_QUERIES, "max_opens": MAX_OPENED, "cite_keys": cite_keys,
        "notes": "Offline non-LLM baseline: lemmata.benchmarks.re2math.agent, reproduced by `lemmata baselines run "
                 f"agent --track {track} --split {split} --cite-keys {cite_keys}`.",
    }
    lines = [header, *(solve(row, artifact, track=track, window=window, cite_keys=cite_keys) for row in rows)]
    variant = "" if cite_keys == "masked" else f".{cite_keys}"
    return write_jsonl(Path(out_dir) / f"re2math.{split.replace('/', '-')}.{track}{variant}.lexical-agent.jsonl",
                       lines)

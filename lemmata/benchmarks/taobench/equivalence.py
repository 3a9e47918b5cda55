"""Cross-framework equivalence retrieval on TaoBench: find an exercise's twin in the other framework.

Every TaoBench exercise is stated twice — in Tao's own definitional framework
and over standard Mathlib — so a retrieval task comes with the release: the
query is one formulation's statement, the corpus is every statement of the
other formulation, and the only relevant document is the query's own twin.
It measures whether a system recognises the same mathematics across two
libraries' vocabularies, which a prover needs before it can reuse Mathlib.

**Retrieval text.** Both files of a pair name the declaration alike (the last
name component agrees in 593 of the 600 v1 pairs) and often carry the same
doc comment (``/-- Exercise 3.1.2 -/``); kept, they would turn the task into
name matching. So a statement's retrieval text is the release's
``<formulation>_statement`` with every comment removed and the declared name
(the identifier right after the declaration keyword) dropped, whitespace
normalised: ``theorem Nat.foo {n:Nat} : P n`` → ``theorem {n:Nat} : P n``.

**Documents.** Identical retrieval texts merge into one document (id:
formulation + hash of the text); a merged document is relevant to every query
whose twin it holds. Exercises without a statement on one side (pinned
upstream defects, ``<formulation>_defect``) give no query; their statements on
the other side stay in the corpus as distractors.

The collection is derived from the release's ``pairs/test`` rows by this
module, versioned by :data:`TRACK_VERSION`, which the scores' frozen tuple names.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from lemmata.core.hashing import sha256_bytes
from lemmata.core.jsonl import write_jsonl
from lemmata.lean.lexer import lex

TRACK_VERSION = "1"
#: the header `benchmark` value of the track's run files
EQUIVALENCE_BENCHMARK = "taobench-equivalence"
DIRECTIONS: tuple[str, ...] = ("tao2mathlib", "mathlib2tao")
CONFIG, SPLIT = "pairs", "test"
_DECL_KEYWORDS = frozenset({"theorem", "lemma", "def", "abbrev", "instance", "example", "structure", "class",
                            "inductive", "opaque", "axiom"})


def sides(direction: str) -> tuple[str, str]:
    """``(query formulation, corpus formulation)`` of a direction.

    >>> sides("tao2mathlib"), sides("mathlib2tao")
    (('tao', 'mathlib'), ('mathlib', 'tao'))
    """
    if direction not in DIRECTIONS:
        from lemmata.core.registry import suggest

        raise ValueError(suggest("direction", direction, DIRECTIONS))
    query, _, corpus = direction.partition("2")
    return query, corpus


def retrieval_text(statement: str) -> str:
    """The statement without comments and without the declared name, whitespace normalised.

    >>> retrieval_text("/-- Exercise 2.2.1 -/\\ntheorem Nat.add_assoc (a b c:Nat) :\\n  (a + b) + c = a + (b + c)")
    'theorem (a b c:Nat) : (a + b) + c = a + (b + c)'
    >>> retrieval_text("instance : Zero Nat -- the zero")
    'instance : Zero Nat'
    """
    lexed = lex(statement)
    cuts = [(c.start, c.end) for c in lexed.comments]
    tokens = lexed.tokens
    for i, tok in enumerate(tokens[:-1]):
        if tok.kind == "ident" and tok.text in _DECL_KEYWORDS:
            name = tokens[i + 1]
            if name.kind == "ident" and name.text not in _DECL_KEYWORDS:
                cuts.append((name.start, name.end))
            break
    out, pos = [], 0
    for start, end in sorted(cuts):
        if start >= pos:
            out.append(statement[pos:start])
            pos = end
    out.append(statement[pos:])
    return " ".join(" ".join(out).split())


def document_id(formulation: str, text: str) -> str:
    """Stable id of one retrieval text of one formulation.

    >>> document_id("mathlib", "theorem : True")
    'mathlib-f2717ab428c7c8cb'
    """
    return f"{formulation}-" + sha256_bytes(text.encode("utf-8"))[:16]


@dataclass(frozen=True)
class EquivalenceTrack:
    """One direction on one release: BEIR-shaped corpus, queries and qrels, plus what was left out."""

    release: str
    direction: str
    corpus: list[dict[str, Any]]
    queries: list[dict[str, Any]]
    qrels: dict[str, dict[str, int]]
    skipped: list[str]

    @property
    def doc_ids(self) -> list[str]:
        return [d["_id"] for d in self.corpus]

    @property
    def doc_texts(self) -> list[str]:
        return [d["text"] for d in self.corpus]

    def collection(self):
        """The track as a :class:`lemmata.formats.beir.Collection` (for run validation)."""
        from lemmata.formats.beir import Collection, Doc

        return Collection(corpus={d["_id"]: Doc(d["_id"], d["text"], None) for d in self.corpus},
                          queries={q["_id"]: q["text"] for q in self.queries}, qrels=self.qrels)


def make_track(rows: Iterable[Mapping[str, Any]], direction: str, release: str = "") -> EquivalenceTrack:
    """Build one direction from a TaoBench release's ``pairs`` rows (in release order)."""
    q_side, c_side = sides(direction)
    rows = list(rows)
    docs: dict[str, dict[str, Any]] = {}
    twin_of: dict[str, str] = {}
    for row in rows:
        statement = row.get(f"{c_side}_statement")
        if statement is None:
            continue
        text = retrieval_text(statement)
        did = document_id(c_side, text)
        doc = docs.setdefault(did, {"_id": did, "title": "", "text": text, "fqns": []})
        doc["fqns"].append(row["fqn"])
        twin_of[row["fqn"]] = did
    queries, qrels, skipped = [], {}, []
    for row in rows:
        statement = row.get(f"{q_side}_statement")
        if statement is None or row["fqn"] not in twin_of:
            skipped.append(row["fqn"])
            continue
        queries.append({"_id": row["fqn"], "text": retrieval_text(statement)})
        qrels[row["fqn"]] = {twin_of[row["fqn"]]: 1}
    return EquivalenceTrack(release=release, direction=direction, corpus=list(docs.values()), queries=queries,
                            qrels=qrels, skipped=skipped)


def load_track(release_root, direction: str) -> EquivalenceTrack:
    """The track of one direction from a built TaoBench release folder."""
    from lemmata.catalog import open_release_folder as open_release

    release = open_release(release_root)
    return make_track(release.rows(CONFIG, SPLIT), direction, release.release_id)


def scoring_artifact_prefix() -> str:
    return f"taobench-equivalence/{TRACK_VERSION}"


def write_beir(track: EquivalenceTrack, out_dir) -> list[str]:
    """Write the track as BEIR files (``corpus.jsonl``, ``queries.jsonl``, ``qrels/test.tsv``) for other tools."""
    from pathlib import Path

    out = Path(out_dir)
    (out / "qrels").mkdir(parents=True, exist_ok=True)
    write_jsonl(out / "corpus.jsonl", ({"_id": d["_id"], "title": "", "text": d["text"]} for d in track.corpus))
    write_jsonl(out / "queries.jsonl", track.queries)
    with open(out / "qrels" / "test.tsv", "w", encoding="utf-8") as fh:
        fh.write("query-id\tcorpus-id\tscore\n")
        for qid, rel in track.qrels.items():
            for did, grade in rel.items():
                fh.write(f"{qid}\t{did}\t{grade}\n")
    return ["corpus.jsonl", "queries.jsonl", "qrels/test.tsv"]

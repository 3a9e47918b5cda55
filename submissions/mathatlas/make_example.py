"""Produce the example MathAtlas and MA-Align submissions from built releases, with a documented non-LLM baseline.

By default the script builds both releases from the test fixture in the upstream
layout (``tests/fixtures/hub/MathAtlas``) into a temporary folder, so the
examples' ids are the *fixture's* ids; pass ``--atlas-release`` and
``--align-release`` to run on the releases built from the Hub instead
(``lemmata build mathatlas``), which is what real submissions answer.

The baseline, stated in full (it demonstrates the file format; it is not a good system):

- **Judge (MA-Align).** Lexical coverage: the
  content words of the informal statement (the BM25 baseline's tokenizer:
  lower-case, split on non-alphanumerics, English stopwords and one-character
  tokens dropped) against the words of the Lean statement, whose identifiers
  are first split at camel-case humps (``IsCyclic`` → ``Is Cyclic``). The
  formalization is judged faithful when at least ``COVERAGE`` of the informal
  words occur in it; an informal statement without content words abstains
  (``null``).
- **Formalizer (MathAtlas).** Nearest-neighbour reuse: BM25 over the informal
  statements of the MA-Align pairs of the entity's kind (definition pairs for a
  definition, statement pairs for a theorem, example or exercise), queried with
  the entity's statement; the best pair's Lean statement is reused with its
  declaration renamed after the entity.
  An entity sharing no word with any pair abstains (``formal_statement`` null).
  A MathAtlas file states no verdict: the leaderboard's Lean server and judge
  give every verdict (a stated ``compiles``/``faithful`` would be informational
  and never counted).

    python submissions/mathatlas/make_example.py --out-dir submissions/mathatlas
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from pathlib import Path

from lemmata.benchmarks.mathatlas.meta import ATLAS_SPLITS, MA_ALIGN, MATHATLAS, TRACK_TYPES
from lemmata.formats.envelope import SUBMISSION_FORMAT

FIXTURE = Path(__file__).resolve().parents[2] / "tests" / "fixtures" / "hub" / "MathAtlas"
#: share of the informal statement's content words the Lean statement must contain to be judged faithful
COVERAGE = 0.5
JUDGE = f"lemmata-example-lexical-coverage-{COVERAGE}"
_HUMP = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_DECL = re.compile(r"^(\s*(?:theorem|lemma|def|abbrev|structure|class)\s+)(\S+)")


def build_fixture_releases(out_root: Path) -> tuple[Path, Path]:
    from lemmata.benchmarks.mathatlas.builder import MaAlignBuilder, MathAtlasBuilder

    return (MathAtlasBuilder(source_dir=FIXTURE).build(out_root, quiet=True),
            MaAlignBuilder(source_dir=FIXTURE).build(out_root, quiet=True))


def words(text: str, *, lean: bool = False) -> set[str]:
    """Content words (Lean identifiers split at camel-case humps first).

    >>> sorted(words("IsCyclic (Fintype.card G = p)", lean=True))
    ['card', 'cyclic', 'fintype']
    """
    from lemmata.retrievers.bm25 import tokenize_baseline

    return set(tokenize_baseline(_HUMP.sub(" ", text) if lean else text))


def coverage_judge(informal: str, formal: str) -> bool | None:
    """Faithful when at least COVERAGE of the informal content words occur in the Lean text; None: no words.

    >>> informal = "Every finite group of prime order is cyclic."
    >>> coverage_judge(informal, "theorem t [Group G] [Fintype G] (h : (Fintype.card G).Prime) : IsCyclic G")
    True
    >>> coverage_judge(informal, "theorem t [Group G] : IsCyclic G")  # group, cyclic: 2 of 6 words
    False
    >>> coverage_judge("It is 2.", "theorem t : 2 = 2") is None
    True
    """
    informal_words = words(informal)
    if not informal_words:
        return None
    return len(informal_words & words(formal, lean=True)) / len(informal_words) >= COVERAGE


def rename(lean: str, name: str) -> str:
    """The first declaration of ``lean`` renamed to ``name``.

    >>> rename("theorem t1 (p : ℕ) : p = p := by sorry", "folland_thm_1_8")
    'theorem folland_thm_1_8 (p : ℕ) : p = p := by sorry'
    """
    return _DECL.sub(lambda m: m.group(1) + name, lean, count=1)


def lean_name(entity_id: str) -> str:
    """A Lean identifier for an entity id (an upstream uuid may start with a digit, which Lean refuses).

    >>> lean_name("folland-thm-1.8"), lean_name("84c6c40f-b850-404d-aa85-99942990a33e")
    ('folland_thm_1_8', 'e_84c6c40f_b850_404d_aa85_99942990a33e')
    """
    name = re.sub(r"\W", "_", entity_id)
    return name if name[:1].isalpha() else f"e_{name}"


def align_records(pairs: list[dict]) -> list[dict]:
    """One MA-Align prediction per pair, in release order."""
    return [{"pair_id": p["pair_id"], "faithful": coverage_judge(p["informal_statement"], p["formal_statement"])}
            for p in pairs]


def atlas_records(entities: list[dict], pairs: list[dict], track: str) -> list[dict]:
    """One MathAtlas record per entity of ``track``, in release order."""
    from lemmata.retrievers.bm25 import BM25Index

    indexes = {kind: BM25Index([p["pair_id"] for p in pairs if p["kind"] == kind],
                               [p["informal_statement"] for p in pairs if p["kind"] == kind])
               for kind in ("definition", "statement")}
    formal = {p["pair_id"]: p["formal_statement"] for p in pairs}
    out = []
    for e in entities:
        if e["entity_type"] not in TRACK_TYPES[track]:
            continue
        index = indexes["definition" if e["entity_type"] == "definition" else "statement"]
        best = [(pid, s) for pid, s in index.search(e["statement"], 1) if s > 0]
        statement = rename(formal[best[0][0]], lean_name(e["entity_id"])) if best else None
        out.append({"entity_id": e["entity_id"], "formal_statement": statement})
    return out


def _write(path: Path, header: dict, records: list[dict]) -> None:
    path.write_text("".join(json.dumps(o, ensure_ascii=False) + "\n" for o in [header, *records]), encoding="utf-8")
    print(f"wrote {len(records)} records to {path}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out-dir", required=True, help="folder for example-mathatlas-<track>.jsonl and "
                                                         "example-ma-align.jsonl")
    parser.add_argument("--atlas-release", metavar="DIR", help="a built mathatlas release (default: the fixture)")
    parser.add_argument("--align-release", metavar="DIR", help="a built ma-align release (default: the fixture)")
    args = parser.parse_args(argv)
    from lemmata.release.load import open_release

    out = Path(args.out_dir)
    source = "the test fixture releases" if not (args.atlas_release or args.align_release) else "the given releases"
    with tempfile.TemporaryDirectory(prefix="mathatlas-example-") as tmp:
        if args.atlas_release and args.align_release:
            atlas_dir, align_dir = Path(args.atlas_release), Path(args.align_release)
        elif args.atlas_release or args.align_release:
            parser.error("give both --atlas-release and --align-release, or neither")
        else:
            atlas_dir, align_dir = build_fixture_releases(Path(tmp))
        atlas = open_release(atlas_dir)
        entities = list({e["entity_id"]: e for s in ATLAS_SPLITS for e in atlas.rows("entities", s)}.values())
        pairs = open_release(align_dir).rows("pairs", "test")
    model = {"name": "example: nearest MA-Align formalization (BM25)", "revision": "lemmata example 2"}
    for track in ("statements", "definitions"):
        _write(out / f"example-mathatlas-{track}.jsonl", {
            "format": SUBMISSION_FORMAT, "benchmark": MATHATLAS.name, "release": MATHATLAS.release_id,
            "track": track, "model": model,
            "notes": f"Produced by submissions/mathatlas/make_example.py from {source}. Verdicts come from the "
                     "leaderboard's Lean server and judge.",
        }, atlas_records(entities, pairs, track))
    _write(out / "example-ma-align.jsonl", {
        "format": SUBMISSION_FORMAT, "benchmark": MA_ALIGN.name, "release": MA_ALIGN.release_id, "track": "judge",
        "model": {"name": f"example: {JUDGE}", "revision": "lemmata example 1"},
        "notes": f"Produced by submissions/mathatlas/make_example.py from {source}.",
    }, align_records(pairs))
    return 0


if __name__ == "__main__":
    sys.exit(main())

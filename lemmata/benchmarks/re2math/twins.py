"""arXiv-version twin gaps: one gap released twice, from two arXiv versions of one citing paper.

Upstream kept instances per arXiv *version* of a citing paper (``1710.00668``
and ``1710.00668v4`` are two ``paper_id`` values of one paper), so the same
gap can appear twice: the same citing paper (one :func:`~lemmata.benchmarks.re2math.papers.paper_key`,
two version ids), the same cited source (one work by
:func:`~lemmata.benchmarks.re2math.scholar.matcher.match_sources`) and the same
pre-citation context (the last local proof block, whitespace aside). Such a
pair is one gap counted twice in a split's denominator, and solving one
solves the other; the scorer flags both items (``flags.twin_gap``) rather than
dropping either, since the upstream Eval-200 is frozen. Two versions citing
the same source at *different* places are different gaps and are not flagged.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from lemmata.benchmarks.re2math.papers import paper_key


def _context(row: Mapping[str, Any]) -> str:
    """The last local proof block with whitespace collapsed (the text right before the citation).

    >>> _context({"x": {"local_context": ["a", " b \\n c "]}})
    'b c'
    """
    blocks = row["x"].get("local_context") or []
    return " ".join(blocks[-1].split()) if blocks else ""


def twin_pairs(rows: Iterable[Mapping[str, Any]]) -> list[tuple[str, str]]:
    """Every pair of instances that are one gap from two arXiv versions of one paper, sorted."""
    from lemmata.benchmarks.re2math.scholar.matcher import SourceRef, match_sources

    by_paper: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for row in rows:
        by_paper[row.get("paper_key") or paper_key(row["paper"]["paper_id"])].append(row)
    pairs = []
    for group in by_paper.values():
        for i, a in enumerate(group):
            for b in group[i + 1:]:
                if a["paper"]["paper_id"].strip() == b["paper"]["paper_id"].strip():
                    continue
                if not _context(a) or _context(a) != _context(b):
                    continue
                if match_sources(SourceRef.from_z(a["z"]), SourceRef.from_z(b["z"])).matched:
                    pairs.append(tuple(sorted((a["instance_id"], b["instance_id"]))))
    return sorted(pairs)


def twin_gaps(rows: Iterable[Mapping[str, Any]]) -> dict[str, list[str]]:
    """Each flagged instance id -> the ids of its twins (empty for instances without one: not listed)."""
    out: dict[str, list[str]] = defaultdict(list)
    for a, b in twin_pairs(rows):
        out[a].append(b)
        out[b].append(a)
    return {k: sorted(v) for k, v in sorted(out.items())}


def main(argv: list[str] | None = None) -> int:
    """Print the twin pairs of a built release's config/split (``python -m lemmata.benchmarks.re2math.twins``)."""
    import argparse

    from lemmata.catalog import open_release_folder as open_release

    p = argparse.ArgumentParser(prog="python -m lemmata.benchmarks.re2math.twins", description=main.__doc__)
    p.add_argument("release", help="path of a built re2math release folder")
    p.add_argument("--config", default="eval200")
    p.add_argument("--split", default="test")
    args = p.parse_args(argv)
    pairs = twin_pairs(open_release(args.release).rows(args.config, args.split))
    for a, b in pairs:
        print(f"{a}\t{b}")
    print(f"{len(pairs)} twin pair(s) in {args.config}/{args.split}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

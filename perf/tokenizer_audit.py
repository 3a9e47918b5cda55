"""Does the fused scholarly tokenizer give exactly its definition's tokens on every text the artifacts tokenize?

    python perf/tokenizer_audit.py [--release DIR] [--mirror DIR]

``tokenize_scholar_words`` (the frozen ``lemmata-scholar-words`` v1 tokenizer of the offline worlds) runs fused:
``latex_words_text`` (``latex_to_text`` without the passes that only move spaces) and one pattern for the words
of at least two characters. This script compares it, text by text, with
``tokenize_scholar_words_by_definition`` (``words(latex_to_text(text))`` filtered by length and stopwords, pass by
pass), and ``words(latex_words_text(t))`` with ``words(latex_to_text(t))``, on:

- every string of every row of the arXiv metadata and math_bib tables of the local mirror (titles, abstracts,
  authors, venues, identifiers);
- every string anywhere in every row of the Re²Math release (both configs: proof states, statements, raw
  bibliography entries) and every rendering of every row, raw and assisted, at m = 1, 3 and 5;

and prints the count of texts and of mismatches (exit status 1 if any), with both tokenizers' times. The release
is ``--release DIR`` or the one under ``$LEMMATA_HOME/releases`` (built when missing); the mirror is ``--mirror``
or the default one (``LEMMATA_MIRROR``, else ``../shared/data``). About three minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def _strings(value, out: list[str]) -> None:
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for v in value.values():
            _strings(v, out)
    elif isinstance(value, list):
        for v in value:
            _strings(v, out)


def texts(release: Path, mirror: Path) -> dict[str, list[str]]:
    """The texts compared, by where they come from."""
    import pyarrow.parquet as pq

    from lemmata.benchmarks.math_arxiv_meta.meta import PARQUET
    from lemmata.benchmarks.re2math.render import render_instance
    from lemmata.release.load import open_release

    out: dict[str, list[str]] = {}
    for name, path in (("arXiv metadata", mirror / "arxiv_math" / PARQUET),
                       ("math_bib", mirror / "math_bib" / "math_bib_nonarxiv.parquet")):
        table = pq.read_table(path)
        out[name] = [t for column, field in zip(table.columns, table.schema)
                     if str(field.type) in ("string", "large_string") for t in column.to_pylist() if t]
    opened = open_release(release)
    rows, renderings = [], []
    for config, split in (("full", "full"), ("eval200", "test")):
        for row in opened.rows(config, split):
            _strings(row, rows)
            renderings += [render_instance(row, track, m) for track in ("raw", "assisted") for m in (1, 3, 5)]
    out["Re²Math rows"], out["Re²Math renderings"] = rows, renderings
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--release", metavar="DIR", help="a built Re2Math release (default: build/use the one "
                        "under $LEMMATA_HOME/releases)")
    parser.add_argument("--mirror", metavar="DIR", help="the local mirror (default: LEMMATA_MIRROR or ../shared/data)")
    args = parser.parse_args()
    from lemmata.benchmarks.re2math.scholar.artifact import default_release_path
    from lemmata.core.latex_text import latex_to_text, latex_words_text, words
    from lemmata.core.paths import mirror_root
    from lemmata.retrievers.bm25.tokenizers import tokenize_scholar_words, tokenize_scholar_words_by_definition

    mirror = Path(args.mirror) if args.mirror else mirror_root()
    if mirror is None:
        sys.exit("no local mirror: pass --mirror DIR")
    release = Path(args.release) if args.release else default_release_path(build=True, quiet=True)
    total = bad = 0
    for source, group in texts(release, mirror).items():
        t = time.perf_counter()
        fused = [tokenize_scholar_words(x) for x in group]
        fused_s = time.perf_counter() - t
        t = time.perf_counter()
        defined = [tokenize_scholar_words_by_definition(x) for x in group]
        defined_s = time.perf_counter() - t
        wrong = sum(a != b for a, b in zip(fused, defined))
        wrong += sum(words(latex_words_text(x)) != words(latex_to_text(x)) for x in group)
        total, bad = total + len(group), bad + wrong
        print(f"{source}: {len(group):,} texts, {wrong} mismatches; fused {fused_s:.1f} s, definition "
              f"{defined_s:.1f} s", flush=True)
    print(f"all: {total:,} texts, {bad} mismatches")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()

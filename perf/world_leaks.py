"""Does the format of a record tell gold from distractor? And how far do trivial queries get?

    python perf/world_leaks.py [--world DIR] [--release DIR] [--distractors DIR] [--pool 100 1000] [--boot 1000]

Measures ``re2math-scholar-offline-2.0.0`` on Re2Math's Eval-200 (the cited
source of each gap is *gold*; one work is one record, so a hit is the gold
record id among the first 20 hits, CiteRecall@20):

1. **Feature gold rates.** For every record feature — what a search hit shows
   (title length, title case, LaTeX residue, number of shown authors, author
   spelling, year bucket) and what opening adds (abstract, DOI, arXiv id) —
   the share of gold records among records with and without it.
2. **Format-only ranking.** Each query's first ``--pool`` hits (each pool size in
   turn) re-sorted by the
   gold rate of their feature combination (estimated on the whole artifact
   and every instance, Eval-200 included: the strongest format-only attacker),
   artifact rank breaking ties; CiteRecall@20 of that order against the
   artifact's own, with percentile bootstrap intervals over instances. Two
   attackers: hit features only, and hit + opened features (one that opens
   every pooled record first, i.e. ``--pool`` openings per query).
3. **Trivial strategies.** CiteRecall@20 of the citing paper's title alone,
   the setup alone and the anchor hint alone as the query (with the instance's
   year cutoff), on 2.0.0 and, for the title, on 1.0.0.

Without folders, the releases and the world are built into a temporary folder
(about half a minute). Every number printed comes from this run.
"""

from __future__ import annotations

import argparse
import os
import re
import tempfile
from collections import Counter
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

K = 20


def title_case(title: str) -> str:
    ws = [w for w in re.findall(r"[A-Za-z]+", title) if len(w) > 3]
    if not ws:
        return "no long words"
    share = sum(w[0].isupper() for w in ws) / len(ws)
    return "title case" if share > 0.6 else "sentence case"


def hit_features(title: str, authors: list[str], year: int | None) -> dict[str, str]:
    """Features a search hit shows."""
    n = len(title)
    return {
        "title length": "<40" if n < 40 else "40-79" if n < 80 else "80-119" if n < 120 else ">=120",
        "title case": title_case(title),
        "title has LaTeX residue": str(bool(re.search(r"[\\^_{}$]", title))),
        "title ends in a digit": str(title[-1:].isdigit()),
        "shown authors": str(len(authors)),
        "author spelling": ("none" if not authors else "ascii letters" if all(re.fullmatch(r"[A-Za-z]+", a)
                                                                               for a in authors) else "other"),
        "year": ("unknown" if year is None else "<1991" if year < 1991 else "1991-2000" if year <= 2000
                 else "2001-2010" if year <= 2010 else "2011-2019" if year <= 2019 else ">=2020"),
    }


def open_features(arxiv_id, doi, abstract) -> dict[str, str]:
    """Features only an opened record shows."""
    return {"has abstract": str(bool(abstract)), "has DOI": str(bool(doi)), "has arXiv id": str(bool(arxiv_id))}


def bootstrap(values_a, values_b, boot: int, seed: int = 0):
    """Means of a and b and of b - a, each with a 95% percentile interval over resampled instances."""
    import numpy as np

    a, b = np.asarray(values_a, float), np.asarray(values_b, float)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, len(a), size=(boot, len(a)))
    ma, mb = a[idx].mean(1), b[idx].mean(1)

    def ci(x):
        return float(np.percentile(x, 2.5)), float(np.percentile(x, 97.5))

    return (a.mean(), ci(ma)), (b.mean(), ci(mb)), ((b - a).mean(), ci(mb - ma))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--world", metavar="DIR", help="a built re2math-scholar-offline-2.0.0 folder")
    parser.add_argument("--release", metavar="DIR", help="a built Re2Math release folder")
    parser.add_argument("--distractors", metavar="DIR", help="a built math-arxiv-meta release folder")
    parser.add_argument("--pool", type=int, nargs="+", default=[100, 1000],
                        help="numbers of hits re-sorted by the format-only ranking (default: 100 1000)")
    parser.add_argument("--boot", type=int, default=1000, help="bootstrap resamples")
    args = parser.parse_args()

    import pyarrow.parquet as pq

    from lemmata.benchmarks.re2math.render import render_instance
    from lemmata.release.load import open_release
    from lemmata.benchmarks.re2math.scholar.artifact import build_artifact, open_artifact
    from lemmata.benchmarks.re2math.scholar.world import RECORDS_FILE
    from lemmata.benchmarks.re2math.scholar.world.v2_0 import build_world, open_world

    with tempfile.TemporaryDirectory(prefix="lemmata-world-leaks-") as tmp:
        release = Path(args.release) if args.release else None
        if release is None:
            from lemmata.benchmarks.re2math.builder import Re2MathBuilder

            release = Re2MathBuilder().build(Path(tmp) / "releases", quiet=True)
        world_dir = Path(args.world) if args.world else None
        if world_dir is None:
            distractors = Path(args.distractors) if args.distractors else None
            if distractors is None:
                from lemmata.benchmarks.math_arxiv_meta.builder import MathArxivMetaBuilder

                distractors = MathArxivMetaBuilder().build(Path(tmp) / "releases", quiet=True)
            world_dir = build_world(release, distractors, Path(tmp) / "artifacts")
        world = open_world(world_dir)
        old = open_artifact(build_artifact(release, Path(tmp) / "artifacts"))
        eval_rows = open_release(release).rows("eval200", "test")

        # ---------------------------------------------------------------- 1. feature gold rates
        table = pq.read_table(world.root / RECORDS_FILE).to_pydict()
        gold = {a.record_id for a in world.attributions()}
        feats = []
        for i in range(len(table["id"])):
            f = hit_features(table["title"][i], table["authors"][i], table["year"][i])
            f.update(open_features(table["arxiv_id"][i], table["doi"][i], table["abstract"][i]))
            feats.append(f)
        is_gold = [rid in gold for rid in table["id"]]
        n_gold = sum(is_gold)
        print(f"{world.artifact_id}: {len(feats):,} records, {n_gold} gold (cited-source records of the 860 "
              f"instances); base gold rate {n_gold / len(feats):.4%}")
        print(f"\n{'feature':<26}{'value':<16}{'records':>10}{'gold':>6}{'gold rate':>11}{'rate without':>14}"
              f"{'lift':>8}")
        for name in feats[0]:
            counts = Counter(f[name] for f in feats)
            golds = Counter(f[name] for f, g in zip(feats, is_gold) if g)
            for value in sorted(counts):
                with_rate = golds[value] / counts[value]
                rest = len(feats) - counts[value]
                without = (n_gold - golds[value]) / rest if rest else float("nan")
                lift = with_rate / (n_gold / len(feats))
                print(f"{name:<26}{value:<16}{counts[value]:>10,}{golds[value]:>6}{with_rate:>11.4%}{without:>14.4%}"
                      f"{lift:>8.1f}")

        # ---------------------------------------------------------------- 2. format-only ranking
        pos = {rid: i for i, rid in enumerate(table["id"])}
        hit_keys = [tuple(sorted(hit_features(table["title"][i], table["authors"][i], table["year"][i]).items()))
                    for i in range(len(table["id"]))]
        all_keys = [tuple(sorted(f.items())) for f in feats]

        def rates(keys):
            c, g = Counter(keys), Counter(k for k, y in zip(keys, is_gold) if y)
            return {k: (g[k] + 0.0) / (c[k] + 1.0) for k in c}  # +1: a one-record combination is no certainty

        hit_rate, all_rate = rates(hit_keys), rates(all_keys)
        workloads = {
            "proof state (raw, m=5)": lambda r: render_instance(r, "raw", 5),
            "citing-paper title only": lambda r: r["paper"]["title"],
        }
        for pool in args.pool:
            print(f"\nformat-only re-ranking of the first {pool} hits, CiteRecall@{K} on Eval-200 "
                  f"({len(eval_rows)} instances), 95% bootstrap intervals ({args.boot} resamples):")
            for name, make in workloads.items():
                results = world.search_batch([(make(r), r["publication_year"], pool) for r in eval_rows])
                own, by_hit, by_all = [], [], []
                for r, res in zip(eval_rows, results):
                    target = world.attribution(r["instance_id"]).record_id
                    ids = [h.id for h in res.hits]
                    own.append(target in ids[:K])
                    for rate, out in ((hit_rate, by_hit), (all_rate, by_all)):
                        keys = hit_keys if rate is hit_rate else all_keys
                        order = sorted(range(len(ids)), key=lambda j: (-rate[keys[pos[ids[j]]]], j))
                        out.append(target in [ids[j] for j in order[:K]])
                for label, other in (("hit features", by_hit), ("hit + opened features", by_all)):
                    (ma, ca), (mb, cb), (d, cd) = bootstrap(own, other, args.boot)
                    noise = (ca[1] - ca[0]) / 2
                    verdict = "within" if d <= noise else "EXCEEDS"
                    print(f"  {name:<26} artifact {ma:.1%} [{ca[0]:.1%}, {ca[1]:.1%}]  format-only ({label}) "
                          f"{mb:.1%} [{cb[0]:.1%}, {cb[1]:.1%}]  difference {d:+.1%} [{cd[0]:+.1%}, {cd[1]:+.1%}] "
                          f"-> {verdict} the artifact's bootstrap noise (±{noise:.1%})")

        # ---------------------------------------------------------------- 3. trivial strategies
        strategies = {
            "citing-paper title only": lambda r: r["paper"]["title"],
            "setup only": lambda r: r["x"]["global_context"]["setup"],
            "anchor hint only": lambda r: r["x"]["anchor_hint"],
        }
        print(f"\ntrivial strategies, CiteRecall@{K} on Eval-200 with each instance's year cutoff:")
        for name, make in strategies.items():
            results = world.search_batch([(make(r), r["publication_year"], K) for r in eval_rows])
            found = [world.attribution(r["instance_id"]).record_id in {h.id for h in res.hits}
                     for r, res in zip(eval_rows, results)]
            (m, ci), _, _ = bootstrap(found, found, args.boot)
            line = f"  {name:<26} {world.artifact_id}: {m:.1%} [{ci[0]:.1%}, {ci[1]:.1%}]"
            if name.startswith("citing-paper title"):
                old_found = [old.attribution(r["instance_id"]).record_id in
                             old.search(make(r), r["publication_year"], K).ids() for r in eval_rows]
                (mo, co), _, _ = bootstrap(old_found, old_found, args.boot)
                line += f"   {old.artifact_id}: {mo:.1%} [{co[0]:.1%}, {co[1]:.1%}]"
            print(line)


if __name__ == "__main__":
    main()

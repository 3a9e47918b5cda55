"""Year-cutoff rules for an instance's searches, and how many cited sources each leaves reachable.

A search for an instance may only see records dated no later than the citing
paper; the question is which date. The release's ``publication_year`` takes
the stated ``publication_date`` when there is one (126 of the 200 Eval-200
rows have none) and otherwise the year of the arXiv id, i.e. of the *first*
version. The stated dates are journal dates, 1–6 years after the first
version on every Eval-200 row that has both, and most undated rows are
released from a later version (``v2``–``v6``) that may cite work published
after the first one. :func:`cutoff_table` counts, for each rule, the rows
without a cutoff and the cited sources dated after the cutoff (unreachable
gold) on a given retrieval artifact; ``python -m lemmata.benchmarks.re2math.cutoffs``
prints it.

Rules (:data:`RULES`), all read from the row only (never from ``z``: the
cutoff is shown to systems and must not encode the answer):

- ``release`` — the release's ``publication_year`` (1.0.0's rule);
- ``first_version`` — the arXiv id's year for every row;
- ``versioned`` — the stated year, else the first-version year plus one when
  the released text is version 2 or later (its date is unknown but later);
- ``stated_or_none`` — the stated year, else no cutoff;
- ``none`` — no cutoff.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from lemmata.benchmarks.re2math.papers import arxiv_year, paper_key

CutoffRule = Literal["release", "first_version", "versioned", "stated_or_none", "none"]
RULES: tuple[str, ...] = ("release", "first_version", "versioned", "stated_or_none", "none")
_DATE = re.compile(r"^(?P<year>\d{4})-\d{2}-\d{2}$")
_VERSION = re.compile(r"v(?P<n>\d+)$")


def stated_year(row: Mapping[str, Any]) -> int | None:
    """The year of the stated ``publication_date`` (None for "Unknown").

    >>> stated_year({"paper": {"publication_date": "2020-02-01"}}), stated_year({"paper": {"publication_date": "Unknown"}})
    (2020, None)
    """
    m = _DATE.match((row["paper"].get("publication_date") or "").strip())
    return int(m.group("year")) if m else None


def released_version(row: Mapping[str, Any]) -> int | None:
    """The arXiv version the instance was released from (None: the id names no version).

    >>> released_version({"paper": {"paper_id": "1803.06790v5"}}), released_version({"paper": {"paper_id": "1903.08525"}})
    (5, None)
    """
    m = _VERSION.search(row["paper"]["paper_id"].strip().lower())
    return int(m.group("n")) if m else None


def rule_cutoff(row: Mapping[str, Any], rule: CutoffRule) -> int | None:
    """The cutoff ``rule`` gives a release row.

    >>> row = {"paper": {"paper_id": "1803.06790v5", "publication_date": "Unknown"}, "publication_year": 2018}
    >>> [rule_cutoff(row, r) for r in RULES]
    [2018, 2018, 2019, None, None]
    """
    if rule not in RULES:
        raise ValueError(f"unknown cutoff rule {rule!r}; expected one of {RULES}")
    key = row.get("paper_key") or paper_key(row["paper"]["paper_id"])
    first = arxiv_year(key)
    if rule == "release":
        return row.get("publication_year")
    if rule == "first_version":
        return first
    if rule == "none":
        return None
    stated = stated_year(row)
    if stated is not None or rule == "stated_or_none":
        return stated
    if first is None:
        return None
    return first + 1 if (released_version(row) or 1) >= 2 else first


def cutoff_table(rows: Iterable[Mapping[str, Any]], cited_year: Mapping[str, int | None]) -> list[dict[str, Any]]:
    """Per rule: rows, rows without a cutoff, cited sources dated after the cutoff (ids kept).

    ``cited_year`` maps each instance id to the year its retrieval artifact
    gives the cited-source record (None: undated, always reachable).
    """
    rows = list(rows)
    out = []
    for rule in RULES:
        cut = {r["instance_id"]: rule_cutoff(r, rule) for r in rows}  # type: ignore[arg-type]
        late = sorted(i for i, c in cut.items()
                      if c is not None and cited_year.get(i) is not None and cited_year[i] > c)
        out.append({"rule": rule, "rows": len(rows), "no_cutoff": sum(c is None for c in cut.values()),
                    "unreachable": len(late), "unreachable_ids": late})
    return out


def cited_years(artifact_path: str, instance_ids: Iterable[str]) -> dict[str, int | None]:
    """The year of each instance's cited-source record in a 1.x artifact or a 2.x world."""
    from lemmata.benchmarks.re2math.scholar.worlds import is_any_world, open_any_world

    if is_any_world(artifact_path):
        w = open_any_world(artifact_path)
        return {i: w.open(w.attribution(i).record_id).year for i in instance_ids}
    from lemmata.benchmarks.re2math.scholar.artifact import open_artifact

    art = open_artifact(artifact_path)
    return {i: art.record(art.attribution(i).record_id).year for i in instance_ids}


def main(argv: list[str] | None = None) -> int:
    """Print the cutoff table of a release's config/split against one retrieval artifact."""
    import argparse
    from pathlib import Path

    from lemmata.catalog import open_release_folder as open_release

    p = argparse.ArgumentParser(prog="python -m lemmata.benchmarks.re2math.cutoffs", description=main.__doc__)
    p.add_argument("release", help="path of a built re2math release folder")
    p.add_argument("artifact", help="path of a retrieval artifact folder (1.x artifact or 2.x world)")
    p.add_argument("--config", default="eval200")
    p.add_argument("--split", default="test")
    args = p.parse_args(argv)
    rows = open_release(args.release).rows(args.config, args.split)
    years = cited_years(str(Path(args.artifact)), [r["instance_id"] for r in rows])
    undated = sum(stated_year(r) is None for r in rows)
    print(f"{args.config}/{args.split}: {len(rows)} rows, {undated} without a stated publication date; "
          f"artifact {Path(args.artifact).name}")
    print(f"{'rule':<16}{'no cutoff':>10}{'unreachable':>13}")
    for line in cutoff_table(rows, years):
        print(f"{line['rule']:<16}{line['no_cutoff']:>10}{line['unreachable']:>13}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

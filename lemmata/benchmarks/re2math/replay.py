"""Replay of a submission's trajectory against the frozen retrieval artifact.

A record's queries are re-run with the instance's year cutoff and must return
exactly the candidates it lists: a system cannot claim candidates the artifact
never showed it. Every id it opened must be one of those candidates (the
scorer then re-opens it through the artifact, which logs the opening). Every difference is reported with its line and field.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lemmata.core.errors import InputError, Problem
from lemmata.benchmarks.re2math.scholar.identity import year_cutoff
from lemmata.benchmarks.re2math.scholar.protocol import ScholarlyArtifact
from lemmata.benchmarks.re2math.submission import Record

#: candidates per query: the artifact's list length, as in the paper (top 20)
CANDIDATES_N = 20


def is_record(artifact: ScholarlyArtifact, record_id: str) -> bool:
    """Whether ``record_id`` names a record of ``artifact``."""
    try:
        artifact.record(record_id)
        return True
    except InputError:
        return False


def replay_problems(filename: str, line: int, rec: Record, row: Mapping[str, Any], artifact: ScholarlyArtifact,
                    searched: dict[tuple[str, int | None], list[str]] | None = None) -> list[Problem]:
    """Every way this record's trajectory differs from what the artifact returns."""
    problems: list[Problem] = []
    cutoff = year_cutoff(artifact, row)
    for qi, query in enumerate(rec.queries):
        unknown = [j for j, cid in enumerate(query.candidates) if not is_record(artifact, cid)]
        for j in unknown:
            problems.append(Problem(filename, f"candidate {query.candidates[j]!r} is not a record of retrieval "
                                              f"artifact {artifact.artifact_id}", line, f"queries.{qi}.candidates.{j}"))
        key = (query.text, cutoff)
        if searched is not None and key in searched:
            got = searched[key]
        else:
            got = artifact.search(query.text, cutoff, CANDIDATES_N, instance_id=rec.instance_id).ids()
            if searched is not None:
                searched[key] = got
        if got == query.candidates:
            continue
        for j in range(max(len(got), len(query.candidates))):
            mine = query.candidates[j] if j < len(query.candidates) else None
            theirs = got[j] if j < len(got) else None
            if mine != theirs and j not in unknown:
                if mine is None:
                    why = f"the artifact returns {len(got)} candidates, the record lists {len(query.candidates)}"
                elif theirs is None:
                    why = (f"the artifact returns only {len(got)} candidates (year cutoff {cutoff}); "
                           f"the record lists {len(query.candidates)}")
                else:
                    why = f"the artifact returns {theirs!r} at rank {j + 1} (year cutoff {cutoff}), not {mine!r}"
                problems.append(Problem(filename, f"replayed query {qi} differs: {why}", line,
                                        f"queries.{qi}.candidates.{j}"))
                break
    returned = set(rec.candidate_ids())
    for oi, oid in enumerate(rec.opened or []):
        if oid not in returned:
            problems.append(Problem(filename, f"opened id {oid!r} was not returned by any query of this record", line,
                                    f"opened.{oi}"))
    if rec.selected_source is not None and rec.selected_source not in rec.candidate_ids():
        problems.append(Problem(filename, f"selected source {rec.selected_source!r} was not returned by any query "
                                          "of this record", line, "selected_source"))
    return problems

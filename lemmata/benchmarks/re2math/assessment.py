"""The judge-free part of scoring one record: CiteRecall rank, source identity, citing-paper exclusion, abstentions.

Whatever can be settled by rule is settled here (an abstention, or selecting
the citing paper, which settles Ground = no); everything else becomes a
rubric question for :mod:`judging`. Suff is planned only after Ground is
known, because a negative Ground already settles ToolAcc.

On an *offline* frozen tuple (see :mod:`lemmata.benchmarks.re2math.semantics`)
there is no source full text to judge Ground against: grounded is settled by
rule — the selected source is, or is not, the instance's cited source by the
identity matcher — and Suff (``suff.v3``: the gap and the statement only) is
asked of every record that gives a statement, so the Suff rate is reported
over all instances. Under the known-content grounding (kind ``"grounded"``)
a statement whose source is the cited one is also asked ``ground_known``: is
it supported by the cited work's reference witness and opened record? Where
nothing is known of the work (no witness, no abstract) that Ground is settled
*ungradable* by rule, never grounded.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from lemmata.benchmarks.re2math.judging import (
    UNGRADABLE,
    Question,
    anchor_question,
    ground_question,
    known_content_gap,
    known_question,
    needs_suff,
    query_question,
    suff_question,
    verdict,
)
from lemmata.benchmarks.re2math.scholar.identity import SourceIdentity
from lemmata.benchmarks.re2math.semantics import FrozenKind, headline, is_offline
from lemmata.benchmarks.re2math.scholar.protocol import ScholarlyArtifact
from lemmata.benchmarks.re2math.submission import Header, Record


@dataclass
class Assessment:
    """Everything the scorer settles about one record before and after judging."""

    row: dict[str, Any]
    rec: Record
    cite_rank: int | None = None
    source_match: str = "none"
    source_match_rule: str | None = None
    citing_paper: str | None = None
    ground_rule: tuple[str, str] | None = None  # (verdict, reason) settled without a judge
    ground_q: Question | None = None
    suff_q: Question | None = None
    anchor_q: Question | None = None
    anchor_rule: tuple[str, str] | None = None
    #: QueryMatch (QueryAcc, a diagnostic): the recorded planning against the gap's proof obligation
    query_q: Question | None = None
    query_rule: tuple[str, str] | None = None
    oracle_evaluable: bool = False
    oracle_ground_q: Question | None = None
    oracle_suff_q: Question | None = None
    oracle_rule: tuple[str, str] | None = None
    kind: FrozenKind = "live"
    cited_id: str | None = None
    #: item flags shown in the result, never changing a verdict (``twin_gap``: ids of the same gap's other copies)
    flags: dict[str, Any] = field(default_factory=dict)


def citing_reason(artifact: ScholarlyArtifact, source: str, row: dict[str, Any]) -> str | None:
    """Why ``source`` is the instance's own citing paper (None when it is not): a world knows it as a record."""
    from lemmata.benchmarks.re2math.scholar.matcher import is_citing_paper
    from lemmata.benchmarks.re2math.scholar.world_artifact import WorldArtifact

    if isinstance(artifact, WorldArtifact):
        return "the world's citing-paper record" if artifact.is_citing_paper(row["instance_id"], source) else None
    citing = is_citing_paper(artifact.record(source).candidate(1, None), row)
    return citing.reason if citing else None


def assess(row: dict[str, Any], rec: Record, header: Header, artifact: ScholarlyArtifact, log: Any,
           identity: SourceIdentity | None = None, kind: FrozenKind = "live",
           twins: Mapping[str, Sequence[str]] | None = None) -> Assessment:
    """Judge-free part: cite rank, source match, citing-paper exclusion, abstentions, questions to ask.

    ``twins`` (from :func:`lemmata.benchmarks.re2math.twins.twin_gaps` over the
    split's rows) flags an item whose gap is also released from another arXiv
    version of its citing paper.
    """
    identity = identity or SourceIdentity(artifact)
    a = Assessment(row=row, rec=rec, kind=kind)
    if twins and twins.get(row["instance_id"]):
        a.flags["twin_gap"] = sorted(twins[row["instance_id"]])
    iid = row["instance_id"]
    cited_id = identity.cited_record(iid)
    a.cited_id = cited_id
    matches: dict[str, tuple[str, str | None] | None] = {}

    def cited(cid: str) -> tuple[str, str | None] | None:
        if cid not in matches:
            matches[cid] = identity.is_cited(cid, row)
        return matches[cid]

    # under the paper protocol (one query) this is the first query's list; a declared budget counts every query
    ranks = [rank for q in rec.queries for rank, cid in enumerate(q.candidates, start=1) if cited(cid)]
    a.cite_rank = min(ranks) if ranks else None

    for oid in rec.opened or []:  # openings are replayed like queries (each one logged by the artifact)
        artifact.materialise(oid, instance_id=iid, log=log)
    source, statement = rec.selected_source, rec.statement
    if source is not None:
        hit = cited(source)
        a.source_match = "cited" if hit else "alternative"
        a.source_match_rule = (hit[1] or hit[0]) if hit else None
        a.citing_paper = citing_reason(artifact, source, row)
    if source is None or statement is None:
        a.ground_rule = ("abstain", "no source selected" if source is None else "no statement extracted")
    elif a.citing_paper:
        a.ground_rule = ("no", f"the selected source is the instance's citing paper ({a.citing_paper}); "
                               "a gap cannot be closed by the paper it comes from")
    elif kind == "grounded" and a.source_match == "cited":
        a.ground_rule, a.ground_q = known_ground(row, source, artifact.materialise(source, instance_id=iid, log=log),
                                                 statement)
    elif is_offline(kind):
        a.ground_rule = (("yes", f"the selected source is the cited source (source identity: {a.source_match_rule})")
                         if a.source_match == "cited" else
                         ("no", "the selected source is not the cited source; offline, a statement is grounded only "
                                "by source identity"))
    else:
        a.ground_q = ground_question(row, source, artifact.materialise(source, instance_id=iid, log=log), statement)

    if header.track == "raw" and (row["x"].get("anchor_hint") or "").strip():
        if rec.anchor is None:
            a.anchor_rule = ("abstain", "no planning anchor given")
        else:
            a.anchor_q = anchor_question(row, rec.anchor)

    query_version = headline(kind).rubrics.get("query")  # QueryAcc is judged where the rubric set asks it
    if query_version and header.condition == "retrieval" and (row["x"].get("anchor_hint") or "").strip():
        # QueryAcc: the planning recorded before the search (the first query, the anchor), on both tracks; the
        # oracle-source condition sends no query, so it has none
        if rec.queries:
            a.query_q = query_question(row, rec.queries[0].text, rec.anchor, query_version)
        else:
            a.query_rule = ("abstain", "no query recorded")

    if header.oracle_run and cited_id is not None:
        a.oracle_evaluable = True
        if rec.oracle_statement is None:
            a.oracle_rule = ("abstain", "no statement extracted from the cited source")
        elif kind == "grounded":
            a.oracle_rule, a.oracle_ground_q = known_ground(
                row, cited_id, artifact.materialise(cited_id, instance_id=iid, log=log), rec.oracle_statement)
        elif kind == "offline":
            a.oracle_rule = ("yes", "the cited source was given directly (source identity holds by construction)")
        else:
            m = artifact.materialise(cited_id, instance_id=iid, log=log)
            a.oracle_ground_q = ground_question(row, cited_id, m, rec.oracle_statement)
    return a


def known_ground(row: dict[str, Any], source: str, opened: Any, statement: str
                 ) -> tuple[tuple[str, str] | None, Question | None]:
    """(rule, question) of known-content Ground for a statement whose source is the cited work: ungradable by
    rule where nothing is known of the work, else the ``ground_known`` question."""
    gap = known_content_gap(row, opened)
    if gap is not None:
        return (UNGRADABLE, gap), None
    return None, known_question(row, source, opened, statement, headline("grounded").rubrics["ground_known"])


def plan_suff(assessments: Sequence[Assessment]) -> list[Question]:
    """Suff questions where Ground is yes or pending (elsewhere ToolAcc is already settled); offline, for every
    record with a statement (``suff.v3``), so the Suff rate covers every instance."""
    out = []
    for a in assessments:
        version = headline(a.kind).rubrics["suff"]
        g = verdict(a.ground_q, a.ground_rule)[0]
        if a.rec.statement is not None and a.rec.selected_source is not None and (
                is_offline(a.kind) or needs_suff(g)):
            a.suff_q = suff_question(a.row, a.rec.selected_source, a.rec.statement, version)
            out.append(a.suff_q)
        if is_offline(a.kind) and a.oracle_evaluable and a.rec.oracle_statement is not None:
            a.oracle_suff_q = suff_question(a.row, a.cited_id, a.rec.oracle_statement, version)
            out.append(a.oracle_suff_q)
        elif a.oracle_ground_q is not None and needs_suff(verdict(a.oracle_ground_q, None)[0]):
            a.oracle_suff_q = suff_question(a.row, a.oracle_ground_q.fields["source_id"], a.rec.oracle_statement,
                                            version)
            out.append(a.oracle_suff_q)
    return out


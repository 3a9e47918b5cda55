"""Re²Math scoring: validate a submission, replay it against the frozen artifact, judge, aggregate.

Pipeline (one :class:`~lemmata.formats.results.Result` per submission):

1. **Validate** — format v1, the declared release and split, the declared
   retrieval artifact, every instance id (unknown, duplicate, missing), and
   the *trajectory*: every query is replayed against the artifact and must
   return exactly the recorded candidates; the selected source must be one of
   them. Every problem is reported at once, with line and field.
2. **Judge-free checks** — CiteRecall@20 (the cited source among the
   candidates, by the source-identity matcher), whether the selected source
   is the cited one, the citing-paper exclusion (selecting the citing paper,
   any version, settles Ground = no), abstentions.
3. **Verdicts** — on an offline frozen tuple (every artifact this handler
   opens: 1.x and the 2.x world) grounded is source identity and the headline
   is OfflineToolAcc (:mod:`~lemmata.benchmarks.re2math.semantics`) — or, under
   the known-content grounding (``LEMMATA_RE2MATH_GROUNDING=known-content``, or
   ``OracleConfig.extra["grounding"]``), GroundedOfflineToolAcc, its own scoring
   artifact and group; Ground,
   Suff and (raw track) AnchorMatch come from the judge's
   scoring artifact (verdict cache), asking a configured live judge for what
   is missing. Without an answer an item is *pending*: shown, never a success.
   Suff is not asked where Ground is already negative (ToolAcc is settled).
4. **Aggregate** — :func:`lemmata.metrics.tool_acc.tool_acc_report` (Wilson
   and paper-cluster bootstrap intervals, macros, per-domain, pending counts).

Nothing in the result depends on when or how often it was computed except
``scored_at``: the same file scored twice gives the same ``result_id``.

The jobs live in their own modules (this one keeps the pipeline, the track
handler and, for callers, every public name they import from here):
:mod:`~lemmata.benchmarks.re2math.resources` (releases and artifacts opened once),
:mod:`~lemmata.benchmarks.re2math.validation` and :mod:`~lemmata.benchmarks.re2math.replay`
(step 1), :mod:`~lemmata.benchmarks.re2math.assessment` and
:mod:`~lemmata.benchmarks.re2math.scholar.identity` (step 2),
:mod:`~lemmata.benchmarks.re2math.judging` (step 3),
:mod:`~lemmata.benchmarks.re2math.aggregate` (step 4) and
:mod:`~lemmata.benchmarks.re2math.audit`. The artifact is reached only through
:class:`~lemmata.benchmarks.re2math.scholar.protocol.ScholarlyArtifact`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lemmata.core.errors import InputError
from lemmata.formats.envelope import Envelope
from lemmata.formats.results import Result
from lemmata.oracles.judge import Judge, JudgeArtifact
from lemmata.tracks.base import AuditView, OracleConfig, TrackHandler, Validated
from lemmata.benchmarks.re2math.aggregate import CITE_RECALL_N, SCORER_VERSION, aggregate, finish, received_date
from lemmata.benchmarks.re2math.assessment import Assessment, assess, plan_suff
from lemmata.benchmarks.re2math.audit import audit_view
from lemmata.benchmarks.re2math.judging import (
    ENV_CONCURRENCY,
    ENV_JUDGE_ARTIFACT,
    NO_JUDGE,
    RUBRIC_VERSIONS,
    SOURCE_TEXT_LIMIT,
    Question,
    anchor_question,
    ground_question,
    judge_artifact_for,
    resolve,
    rubrics,
    scoring_artifact_id,
    suff_question,
)
from lemmata.benchmarks.re2math.replay import CANDIDATES_N, replay_problems
from lemmata.benchmarks.re2math.resources import Context, Resources
from lemmata.benchmarks.re2math.scholar.identity import SourceIdentity, year_cutoff
from lemmata.benchmarks.re2math.semantics import FrozenKind, grounding_kind, headline
from lemmata.benchmarks.re2math.submission import BENCHMARK, Header
from lemmata.benchmarks.re2math.validation import (
    CANONICAL_WINDOW,
    MAX_LISTED_MISSING,
    result_track,
    validate_envelope,
)

__all__ = [
    "CANDIDATES_N", "CANONICAL_WINDOW", "CITE_RECALL_N", "ENV_CONCURRENCY", "ENV_JUDGE_ARTIFACT",
    "MAX_LISTED_MISSING", "NO_JUDGE", "RUBRIC_VERSIONS", "SCORER_VERSION", "SOURCE_TEXT_LIMIT",
    "Assessment", "Context", "Question", "Re2MathHandler", "Resources", "ScoreRun", "SourceIdentity",
    "anchor_question", "assess", "audit_view", "finish", "ground_question", "judge_artifact_for", "plan_suff",
    "received_date", "replay_problems", "resolve", "result_track", "rubrics", "score_validated",
    "scoring_artifact_id", "suff_question", "validate_envelope", "year_cutoff",
]


@dataclass
class ScoreRun:
    """A scored result and what it cost (the cost is not part of the result)."""

    result: Result
    judge_stats: dict[str, int]


def score_validated(validated: Validated, *, received_at: str, resources: Resources, judge: Judge | None = None,
                    judge_artifact: JudgeArtifact | None = None, quiet: bool = True,
                    kind: FrozenKind = "offline") -> ScoreRun:
    """Score a validated submission into an immutable result; ``kind`` names the frozen tuple's kind (the
    artifacts :class:`Resources` opens are offline; a live path passes ``"live"``)."""
    from lemmata.core.progress import Steps
    from lemmata.benchmarks.re2math.scholar.artifact import MaterialisationLog

    header: Header = validated.header
    steps = Steps(4, quiet=quiet)
    ctx = resources.context(header)
    records = {rec.instance_id: rec for _, rec in validated.records}
    log = MaterialisationLog()
    steps.step(f"checking {len(records)} trajectories against {ctx.artifact.artifact_id}")
    identity = resources.identity(header.retrieval_artifact)
    from lemmata.benchmarks.re2math.twins import twin_gaps

    twins = twin_gaps(ctx.rows.values())
    assessments = [assess(row, records[iid], header, ctx.artifact, log, identity, kind, twins)
                   for iid, row in ctx.rows.items()]

    steps.step("Ground, AnchorMatch and QueryMatch verdicts" + ("" if judge else " (cache only: no live judge)"))
    first = [q for a in assessments for q in (a.ground_q, a.anchor_q, a.query_q, a.oracle_ground_q) if q is not None]
    resolve(first, judge_artifact, judge, quiet=quiet, desc="Ground/AnchorMatch/QueryMatch")
    steps.step("Suff verdicts")
    resolve(plan_suff(assessments), judge_artifact, judge, quiet=quiet, desc="Suff")

    steps.step("aggregating")
    result = aggregate(validated, ctx, assessments, received_at=received_at, judge=judge,
                       judge_artifact=judge_artifact, kind=kind)
    stats = judge_artifact.stats.as_dict() if judge_artifact is not None else {}
    return ScoreRun(result=result, judge_stats=stats)


def offline_kind(oracles: OracleConfig) -> FrozenKind:
    """The frozen kind of an offline scoring run: what Ground means, from ``oracles.extra["grounding"]``, else
    ``LEMMATA_RE2MATH_GROUNDING``, else source identity (``"offline"``, OfflineToolAcc).

    >>> offline_kind(OracleConfig()), offline_kind(OracleConfig(extra={"grounding": "known-content"}))
    ('offline', 'grounded')
    """
    from lemmata.core.settings import read as setting

    return grounding_kind(oracles.extra.get("grounding") or setting("LEMMATA_RE2MATH_GROUNDING"))


# --------------------------------------------------------------------------- the track handler


class Re2MathHandler(TrackHandler):
    """Re²Math submissions (format v1) for the leaderboard and the CLI."""

    benchmark = BENCHMARK
    tracks = ("raw", "assisted")

    @classmethod
    def schema_files(cls):
        from lemmata.formats.schema import SchemaFile
        from lemmata.benchmarks.re2math.submission import schema_text

        return [SchemaFile(cls.benchmark, "re2math-submission.schema.json", schema_text())]

    def __init__(self, *, releases_root: str | Path | None = None, artifacts_root: str | Path | None = None,
                 judge_artifact_dir: str | Path | None = None, build_missing: bool = True,
                 quiet: bool = True) -> None:
        self.resources = Resources(releases_root=releases_root, artifacts_root=artifacts_root,
                                   build_missing=build_missing)
        self.judge_artifact_dir = judge_artifact_dir
        self.quiet = quiet
        self.last_judge_stats: dict[str, int] = {}

    def validate(self, envelope: Envelope, sha256: str) -> Validated:
        # -- live protocol hook (lemmata.benchmarks.re2math.agent.live): a header naming a materialisation artifact
        from lemmata.benchmarks.re2math.agent import live

        if live.is_live(envelope.header):
            return live.validate_live(envelope, sha256, self.resources, self._live_root())
        # -- end of the live protocol hook
        return validate_envelope(envelope, sha256, self.resources)

    def check_runner_log(self, submission: Validated, log: bytes, filename: str) -> Any:
        """``lemmata run re2math``'s log: every E3 request recomputed from the release row (the instance under the
        header's track, window, scope and cite keys), every record re-made from its logged answers
        (:func:`~lemmata.benchmarks.re2math.agent.llm_agent.record_from_log`); the E4 requests show search
        results and opened text, so their answers are compared and their keys recomputed, not their messages."""
        from lemmata.benchmarks.re2math.agent import live
        from lemmata.benchmarks.re2math.agent.llm_agent import PROMPT_VERSION, STAGES, e3_job, record_from_log
        from lemmata.tracks.runner_log import Declared, check_log, check_records

        header = submission.header
        if live.is_live(header):
            raise InputError.one(filename, "live-protocol submissions take no runner request log", field="runner")
        rows = self.resources.rows(header.release, header.split)
        records = submission.records  # (line, record) pairs
        declared = Declared(benchmark=self.benchmark, release=header.release, model=header.model,
                            sampling=header.model.sampling or {}, runner=header.runner, prompt=PROMPT_VERSION,
                            prompt_from="`lemmata run re2math` sends")

        def jobs(log_header: Any, sampling: Any) -> dict[str, str | None]:
            out: dict[str, str | None] = {}
            for _, rec in records:
                iid = rec.instance_id
                out[f"{iid}/e3#0"] = e3_job(iid, rows[iid], track=header.track, window=header.window,
                                            scope=header.scope, cite_keys=header.cite_keys,
                                            sampling=sampling).messages_sha256()
                out.update({f"{iid}/{stage}#0": None for stage in STAGES[1:]})
            return out

        check = check_log(log, filename, submission.filename, declared, prompts={PROMPT_VERSION}, jobs=jobs)
        oracle = header.condition == "oracle-source"

        def expected(rec: Any) -> list[tuple[str, Any, Any, int | None]]:
            made = record_from_log(lambda stage: check.answers.get(f"{rec.instance_id}/{stage}#0"),
                                   rec.candidate_ids(), track=header.track, oracle=oracle)
            submitted = {"queries": [q.text for q in rec.queries], "opened": rec.opened}
            return [(name, submitted[name] if name in submitted else getattr(rec, name), value, line)
                    for name, (value, line) in made.items()]

        check_records(check, submission.filename, records, lambda rec: rec.instance_id, expected)
        return check

    def _live_root(self) -> Path:
        from lemmata.core.paths import artifacts_dir

        return self.resources.artifacts_root or artifacts_dir()

    def score(self, submission: Validated, *, received_at: str, oracles: OracleConfig) -> Result:
        judge = oracles.judge
        folder = oracles.extra.get("judge_artifact") or self.judge_artifact_dir
        # -- live protocol hook: the live rubric set, the live frozen tuple, the paper's ToolAcc label
        from lemmata.benchmarks.re2math.agent import live

        if live.is_live(submission.header):
            artifact = live.live_judge_artifact(judge, folder)
            result = live.score_live(submission, received_at=received_at, artifacts_root=self._live_root(),
                                     resources=self.resources, judge=judge, judge_artifact=artifact, quiet=self.quiet)
            self.last_judge_stats = artifact.stats.as_dict() if artifact is not None else {}
            return result
        # -- end of the live protocol hook
        kind = offline_kind(oracles)
        artifact = judge_artifact_for(judge, folder, headline(kind).rubrics)
        run = score_validated(submission, received_at=received_at, resources=self.resources, judge=judge,
                              judge_artifact=artifact, quiet=self.quiet, kind=kind)
        self.last_judge_stats = run.judge_stats
        return run.result

    def audit(self, result: Result, item_id: str, submission: Validated | None) -> AuditView:
        return audit_view(result, item_id, submission, self.resources)

"""MathNet-Solve track handler: one written solution per problem of a subset, under one MathRAG condition.

Header::

    {"format": "lemmata-submission/1", "benchmark": "mathnet-solve", "release": "mathnet-solve-1.1.0",
     "track": "zero-shot" | "expert-rag" | "retriever-rag", "subset": "lemmata_strat_70",
     "model": {"name": "...", "modality": "text" | "text+image", ...},
     "retrieval": {"retriever": {"name": "..."}, "spec": "...", "k": 1, "pool": "<pool id>"},   (retriever-rag)
     "expert_pairs_sha256": "<sha256 of the pairs file>"}                                       (expert-rag)

then one ``{"problem_id", "solution", "final_answer", "abstained", "context_ids"}`` record per problem.
``context_ids`` are the pool problems the solver was shown; none may belong to the problem's exclusion group
(itself, its duplicates, its equivalence set), which the validator checks on every line.

The condition is part of the frozen tuple (``retrieval_artifact``), and so is the grader (``scoring_artifact``),
so zero-shot, expert-RAG and each retriever are ranked in groups of their own.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Literal

from pydantic import Field

from lemmata.benchmarks.mathnet import solve_data
from lemmata.benchmarks.mathnet.rag import MAX_K, leaks, pool_id, pool_of
from lemmata.benchmarks.mathnet.solve_meta import CONDITIONS, MAIN_METRIC, MATHNET_SOLVE, SUBSETS
from lemmata.benchmarks.mathnet.solve_scoring import (
    BENCHMARK, RUBRIC, ItemOutcome, as_grade, breakdowns, check_answers, final_answer_of, grade_fields,
    grade_values, scoring_artifact_id, start_answer_check, summarize,
)
from lemmata.core.errors import InputError, Problem
from lemmata.core.models import Exact, Frozen
from lemmata.formats.envelope import Envelope, validate_model
from lemmata.formats.results import FrozenTuple, ModelInfo, Result, Score, make_result, omit_when_none
from lemmata.formats.runner_log import RunnerInfo
from lemmata.formats.schema import SchemaFile, dumps, line_schema
from lemmata.oracles.canaries import marks as canary_marks
from lemmata.oracles.fence import FLAG, addressed, marks
from lemmata.oracles.grader import FULL_MARKS, grader_from, is_full_marks
from lemmata.tracks.base import OracleConfig, TrackHandler, Validated
from lemmata.tracks.headers import check_header, records_skipped
from lemmata.tracks.ranking import received_date

MAX_SOLUTION_CHARS = 100_000


class RetrievalSpec(Exact):
    retriever: ModelInfo = Field(description="the retriever's identity (as `lemmata evaluate` records it)")
    spec: str = Field(min_length=1, max_length=500, description="the retriever spec the run used")
    k: int = Field(ge=1, le=MAX_K, description="retrieved problems shown per query")
    pool: str = Field(pattern=r"^[0-9a-f]{16}$", description="id of the pool and its exclusion rule")


class SolverInfo(ModelInfo):
    """The solver's identity; what it read of a figure is part of what was measured, so it must be declared."""

    modality: Literal["text", "text+image"] = Field(
        description="what the model read of a figure: 'text' (its description) or 'text+image' (image parts)")


class Header(Exact):
    format: Literal["lemmata-submission/1"]
    benchmark: Literal["mathnet-solve"]
    release: str = Field(pattern=r"^mathnet-solve-\d+\.\d+\.\d+$")
    track: Literal["zero-shot", "expert-rag", "retriever-rag"] = Field(
        description="the MathRAG condition", examples=["zero-shot"])  # a template's choice: it declares no retrieval
    subset: Literal["lemmata_strat_70", "lemmata_strat_5500", "full"] = Field(
        description="the problems split the run answers (Lemmata's stratified subsets, or every problem)")
    model: SolverInfo
    retrieval: RetrievalSpec | None = None
    expert_pairs_sha256: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")
    runner: RunnerInfo | None = Field(default=None, description="set by `lemmata run mathnet` only: the run's "
                                      "request log hashes to runner.log_sha256; upload the log beside the file and the "
                                      "scorer checks every solution against it and the release")
    notes: str = Field(default="", max_length=4000)

    _omit_unset = omit_when_none("runner")  # headers written before the field dump as they did


class SolveRecord(Frozen):
    problem_id: str = Field(min_length=1, max_length=200)
    solution: str = Field(max_length=MAX_SOLUTION_CHARS)
    final_answer: str | None = Field(default=None, max_length=500)
    abstained: str | None = Field(default=None, max_length=1000,
                                  description="why no solution was produced (refused, truncated, unavailable…)")
    context_ids: list[str] = Field(default_factory=list, max_length=MAX_K)


assert set(SUBSETS) | {"full"} == set(Header.model_fields["subset"].annotation.__args__)
assert tuple(Header.model_fields["track"].annotation.__args__) == CONDITIONS


def retrieval_artifact(header: Header) -> str:
    """The condition as the frozen tuple names it."""
    if header.track == "zero-shot":
        return "mathrag:zero-shot"
    if header.track == "expert-rag":
        return f"mathrag:expert-rag:pairs-{(header.expert_pairs_sha256 or '')[:16]}"
    r = header.retrieval
    assert r is not None
    return f"mathrag:retriever-rag:{r.retriever.name}@{r.retriever.identity()}:k{r.k}:pool-{r.pool}"


class MathNetSolveHandler(TrackHandler):
    benchmark: ClassVar[str] = MATHNET_SOLVE.name
    tracks: ClassVar[tuple[str, ...]] = CONDITIONS

    @classmethod
    def schema_files(cls) -> list[SchemaFile]:
        filename = "mathnet-solve-submission.schema.json"
        schema = line_schema(Header, SolveRecord, filename=filename,
                             title="MathNet-Solve submission, format lemmata-submission/1 (one JSONL line)",
                             description="MathNet-Solve submission files are UTF-8 JSONL: line 1 is the header "
                                         "(Header), every further line a record (SolveRecord).")
        return [SchemaFile(MATHNET_SOLVE.name, filename, dumps(schema))]

    # -- validation --------------------------------------------------------------------------------------------
    def validate(self, envelope: Envelope, sha256: str) -> Validated:
        name = envelope.filename
        problems: list[Problem] = list(envelope.problems)
        check = check_header(envelope, Header, problems, served_release=lambda h: MATHNET_SOLVE.release_id)
        header: Header | None = check.header  # type: ignore[assignment]
        if header is not None:
            self._check_condition(header, name, envelope.header_line, problems)
        if not envelope.records and not envelope.problems:
            problems.append(Problem(name, "no solutions after the header"))
        records: list[tuple[int, SolveRecord]] = []
        if header is None:
            for line, obj in envelope.records:
                validate_model(SolveRecord, obj, name, line, problems)
            if envelope.records:
                problems.append(records_skipped(name, Header, "the records' problem and context ids"))
        else:
            records = self._check_records(header, envelope, problems)
        if problems:
            raise InputError(problems)
        assert header is not None
        return Validated(benchmark=self.benchmark, track=header.track, model=header.model, header=header,
                         records=[rec for _, rec in records], sha256=sha256, filename=name,
                         summary=f"{len(records)} solutions, {header.track}, subset {header.subset}",
                         needs_oracle=True, lines=tuple(line for line, _ in records))

    def check_runner_log(self, submission: Validated, log: bytes, filename: str) -> Any:
        """Every request of the run recomputed from the release (:func:`~lemmata.benchmarks.mathnet.solve_run.
        solve_jobs`: the problem, its figures under the declared modality, its context problems) and every record
        re-made from its logged answer (:func:`~lemmata.benchmarks.mathnet.solve_run.record_of`)."""
        from lemmata.benchmarks.mathnet.solve_prompts import prompt_id
        from lemmata.benchmarks.mathnet.solve_run import record_of, solve_jobs
        from lemmata.tracks.runner_log import Declared, check_log, check_records

        header: Header = submission.header
        release = solve_data.solve_release(header.release)
        known = solve_data.problems(release)
        ids = [rec.problem_id for rec in submission.records]
        contexts = {rec.problem_id: rec.context_ids for rec in submission.records}
        figures = solve_data.images(release, set(ids)) if header.model.modality == "text+image" else {}
        declared = Declared(benchmark=self.benchmark, release=header.release, model=header.model,
                            sampling=header.model.sampling or {}, runner=header.runner, prompt=prompt_id(),
                            prompt_from="`lemmata run mathnet` sends")

        def jobs(log_header: Any, sampling: Any) -> dict[str, str | None]:
            return {f"{job.id}#0": job.messages_sha256()
                    for job in solve_jobs(known, ids, contexts, figures, header.model.modality, sampling)}

        check = check_log(log, filename, submission.filename, declared, prompts={prompt_id()}, jobs=jobs)

        def expected(rec: SolveRecord) -> list[tuple[str, Any, Any, int]]:
            log_line, answer = check.answers[f"{rec.problem_id}#0"]
            made = record_of(rec.problem_id, answer, rec.context_ids)
            return [(name, getattr(rec, name), made[name], log_line) for name in ("solution", "abstained",
                                                                                   "final_answer")]

        check_records(check, submission.filename, zip(submission.lines, submission.records),
                      lambda rec: rec.problem_id, expected)
        return check

    @staticmethod
    def _check_condition(header: Header, name: str, line: int, problems: list[Problem]) -> None:
        if header.track == "retriever-rag" and header.retrieval is None:
            problems.append(Problem(name, "retriever-rag needs the retrieval it used (retriever, spec, k, pool)",
                                    line, "header.retrieval"))
        if header.track != "retriever-rag" and header.retrieval is not None:
            problems.append(Problem(name, f"{header.track} has no retriever; remove retrieval", line,
                                    "header.retrieval"))
        if header.track == "expert-rag" and header.expert_pairs_sha256 is None:
            problems.append(Problem(name, "expert-rag needs the sha256 of the expert pairs file it used", line,
                                    "header.expert_pairs_sha256"))

    def _check_records(self, header: Header, envelope: Envelope,
                       problems: list[Problem]) -> list[tuple[int, SolveRecord]]:
        name = envelope.filename
        release = solve_data.solve_release(header.release)
        wanted = set(solve_data.subset_ids(release, header.subset))
        known = solve_data.problems(release)
        groups = solve_data.groups(release) if header.track != "zero-shot" else {}
        if header.retrieval is not None:
            expected = pool_id(pool_of(list(known.values())), groups)
            if header.retrieval.pool != expected:
                problems.append(Problem(name, f"pool {header.retrieval.pool!r} is not this release's retrieval pool "
                                              f"({expected!r}); retrieve with `lemmata run mathnet`", envelope.header_line,
                                        "header.retrieval.pool"))
        seen: dict[str, int] = {}
        out: list[tuple[int, SolveRecord]] = []
        for line, obj in envelope.records:
            rec = validate_model(SolveRecord, obj, name, line, problems)
            if rec is None:
                continue
            if rec.problem_id not in wanted:
                where = "is not in subset " + header.subset if rec.problem_id in known else "is not a problem id"
                problems.append(Problem(name, f"{rec.problem_id[:80]!r} {where}", line, "problem_id"))
                continue
            if rec.problem_id in seen:
                problems.append(Problem(name, f"problem answered twice (first on line {seen[rec.problem_id]})",
                                        line, "problem_id"))
                continue
            seen[rec.problem_id] = line
            if header.track in ("zero-shot",) and rec.context_ids:
                problems.append(Problem(name, "zero-shot shows no context", line, "context_ids"))
            for i, cid in enumerate(rec.context_ids):
                if cid not in known:
                    problems.append(Problem(name, f"unknown context id {cid[:80]!r}", line, f"context_ids[{i}]"))
            bad = leaks(rec.problem_id, rec.context_ids, groups) if groups else []
            for cid in bad:
                problems.append(Problem(name, f"context {cid!r} is the problem itself, a duplicate or an "
                                              "equivalent of it: its solution is the answer", line,
                                        f"context_ids[{rec.context_ids.index(cid)}]"))
            if header.retrieval is not None and len(rec.context_ids) > header.retrieval.k:
                problems.append(Problem(name, f"{len(rec.context_ids)} contexts, more than k={header.retrieval.k}",
                                        line, "context_ids"))
            out.append((line, rec))
        return out

    # -- scoring -----------------------------------------------------------------------------------------------
    def score(self, submission: Validated, *, received_at: str, oracles: OracleConfig) -> Result:
        header: Header = submission.header
        release = solve_data.solve_release(header.release)
        known = solve_data.problems(release)
        ids = solve_data.subset_ids(release, header.subset)
        by_id = {r.problem_id: r for r in submission.records}
        answers = _answers_to_check(ids, known, by_id)
        if answers:
            start_answer_check()  # its workers import math-verify while the grader works
        grader = grader_from(oracles.extra.get("grader") or oracles.judge)
        artifact = grade_artifact(grader, oracles.extra.get("grader_artifact"))
        grades = obtain_grades(artifact, grader, [(pid, known[pid], by_id[pid].solution) for pid in ids
                                                  if pid in by_id and by_id[pid].abstained is None
                                                  and by_id[pid].solution.strip()])
        # every final answer of the file in one bounded batch: a wall-clock and memory bound per comparison, a
        # time budget for the file; a comparison cut off counts as not equal, with its reason
        verdicts = check_answers([(reference, candidate) for _, reference, candidate in answers])
        checks = {pid: (ok, why, candidate) for (pid, _, candidate), (ok, why) in zip(answers, verdicts)}
        items, outcomes = [], []
        for pid in ids:
            p = known[pid]
            rec = by_id.get(pid)
            solution = rec.solution if rec is not None and rec.abstained is None else ""
            grade: int | None
            if not solution.strip():
                grade, reason, by = 0, ("no solution submitted" if rec is None else
                                         f"abstained: {rec.abstained}" if rec.abstained else "empty solution"), "rule"
                correct: bool | None = False
            else:
                verdict = grades.get(pid)
                grade, correct = as_grade(verdict), is_full_marks(verdict)
                reason = verdict.get("reason", "") if verdict else "awaiting the grader"
                by = ("rule" if addressed(verdict) else "grader") if verdict else "pending"
            answer_ok, answer_reason, candidate_answer = checks.get(pid, (None, None, None))
            outcome = ItemOutcome(pid, p["domain"], p["language"], p["has_images"], p["problem_type"], grade,
                                  correct, answer_ok)
            outcomes.append(outcome)
            items.append({"item_id": pid, "domain": p["domain"], "language": p["language"],
                          "has_images": p["has_images"], "problem_type": p["problem_type"], "grade": grade,
                          "correct": correct, "grade_reason": reason[:500], "graded_by": by,
                          "answer_check": answer_ok, "candidate_answer": candidate_answer,
                          **({"answer_check_reason": answer_reason} if answer_reason else {}),
                          "context_ids": list(rec.context_ids) if rec else [], "submitted": rec is not None,
                          **({"flags": {FLAG: True}} if addressed(grades.get(pid)) else {})})
        metrics = summarize(outcomes)
        flagged = marks(items, "solution(s)", f"graded 0 by rubric {RUBRIC[0]}.v{RUBRIC[1]}'s rule")
        metrics.update(flagged.metrics)
        pg = metrics["proof_grade"]
        pending = pg["pending"]
        frozen = FrozenTuple(dataset_release=header.release, split=f"problems/{header.subset}",
                             retrieval_artifact=retrieval_artifact(header),
                             scoring_artifact=scoring_artifact_id(None if artifact is None else artifact.artifact_id),
                             date=received_date(received_at))
        notes = [f"ProofGrade: share of the {len(ids):,} problems of {header.subset} graded {FULL_MARKS}/{FULL_MARKS} "
                 f"by the grader (IMO-Bench protocol, rubric {RUBRIC[0]}.v{RUBRIC[1]}); AnswerCheck (math-verify) is a "
                 "separate column over the problems that state a final answer.",
                 f"Subset {header.subset} is Lemmata's stratified sample, not the paper's Test-Set-Small or -Large."]
        if pending:
            notes.append(f"{pending:,} solution(s) await the grader: ProofGrade lies between "
                         f"{pg['bounds'][0]:.4f} and {pg['bounds'][1]:.4f}; run `lemmata judge` with a grader configured.")
        cut = sum(1 for _, why, _ in checks.values() if why and why.startswith("answer check"))
        if cut:
            notes.append(f"{cut:,} final answer(s) were not compared to the end: each comparison runs under a bound "
                         "(wall clock and memory, and a budget per file); they count as not equal, and each such "
                         "item's answer_check_reason says which bound it met.")
        missing = len([i for i in ids if i not in by_id])
        if missing:
            notes.append(f"{missing:,} problem(s) had no solution and count as not solved.")
        notes += flagged.notes
        canary = canary_marks(artifact)
        notes += canary.notes
        return make_result(
            kind="scored", benchmark=BENCHMARK, track=header.track, frozen=frozen,
            submission_sha256=submission.sha256, model=header.model,
            flags={"condition": header.track, "modality": header.model.modality, **flagged.flags, **canary.flags},
            main=Score(metric=MAIN_METRIC, value=pg["micro"], interval=tuple(pg["micro_wilson95"]),
                       interval_kind="wilson95", count=pg["count"], total=pg["total"]),
            metrics=metrics, breakdowns=breakdowns(outcomes), items=items, pending=pending,
            status="pending_oracle" if pending else "complete", notes=notes,
            provenance={"filename": submission.filename, "header_notes": header.notes,
                        "retrieval": header.retrieval.model_dump(mode="json") if header.retrieval else None,
                        "grader": artifact.manifest.judge if artifact is not None else None,
                        **({"judge_canaries": canary.record} if canary.record else {})},
        )


def _answers_to_check(ids: list[str], known: Mapping[str, Any],
                      by_id: Mapping[str, SolveRecord]) -> list[tuple[str, str, str | None]]:
    """``(problem id, reference, candidate final answer or None)`` of every problem that states a final answer."""
    out = []
    for pid in ids:
        p, rec = known[pid], by_id.get(pid)
        if p["final_answer"]:
            solution = rec.solution if rec is not None and rec.abstained is None else ""
            candidate = final_answer_of(solution, rec.final_answer if rec else None) if solution else None
            out.append((pid, p["final_answer"], candidate))
    return out


def obtain_grades(artifact, grader, questions: list[tuple[str, Mapping[str, Any], str]]) -> dict[str, Any]:
    """Grades by problem id: recorded ones from the artifact, missing ones asked of ``grader`` concurrently
    (``LEMMATA_JUDGE_CONCURRENCY`` requests in flight); a problem nobody could grade is absent (pending).

    A candidate that addresses the grader is graded 0 by the rubric's rule, with or without a grader."""
    if artifact is None:
        from lemmata.oracles.judge import load_rubric

        rubric = load_rubric(*RUBRIC)
        settled = {pid: rubric.settled(grade_values(p["problem"], p["solutions"], solution))
                   for pid, p, solution in questions}
        return {pid: v for pid, v in settled.items() if v is not None}
    if not questions:
        return {}
    grades = artifact.obtain_all([("grade", grade_fields(pid, p["problem"], p["solutions"], solution),
                                   grade_values(p["problem"], p["solutions"], solution))
                                  for pid, p, solution in questions], grader)
    return {q[0]: v for q, v in zip(questions, grades) if v is not None}


def grade_artifact(grader, folder: Any = None):
    """The grader's judge artifact: ``folder``, else the grader's default folder, else ``$LEMMATA_JUDGE_ID``'s;
    None when no grader is known (every written solution is then pending)."""
    from lemmata.core.settings import read as setting
    from lemmata.oracles.judge import ARTIFACT_FILE, ArtifactManifest, JudgeArtifact, default_artifact_dir, load_rubric

    rubrics = {"grade": load_rubric(*RUBRIC)}
    judge_id = grader.judge_id if grader is not None else None
    describe: Mapping[str, Any] | None = grader.describe() if grader is not None else None
    from pathlib import Path

    folder = Path(folder) if folder is not None else None
    if folder is not None and judge_id is None:
        manifest = ArtifactManifest.model_validate_json((folder / ARTIFACT_FILE).read_text("utf-8"))
        judge_id = manifest.judge["id"]
    judge_id = judge_id or setting("LEMMATA_JUDGE_ID")
    if judge_id is None:
        return None
    folder = folder or default_artifact_dir(BENCHMARK, judge_id, rubrics)
    return JudgeArtifact(folder, benchmark=BENCHMARK, judge_id=judge_id, rubrics=rubrics, describe=describe)

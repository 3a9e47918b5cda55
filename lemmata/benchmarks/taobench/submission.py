"""TaoBench proof submission format v1: a JSONL file, header line first, then one record per (FQN, formulation).

Each record carries exactly ``n`` attempts at one exercise in one formulation
(``tao``: Tao's definitional framework; ``mathlib``: the Mathlib twin), every
attempt a *complete Lean file* — in practice the official file of the release
with the exercise's ``sorry`` replaced by a proof. The header names the release,
the model, ``n``, the sampling settings and what the submitter declares about
how the proofs were produced. Exercises of a declared formulation that have no
record count as ``n`` failed attempts, so leaving out hard exercises cannot
raise a score.

Validation reports every problem at once with its line and field: format
errors, an unknown or wrong release, unknown or duplicated FQNs, a formulation
the header does not declare, a number of attempts other than ``n`` (sending
only the attempts that passed would raise pass@k), empty or oversized
attempts (and, through the shared envelope, non-UTF-8 lines, malformed JSON and
oversized files). The JSON Schema in
``submissions/schema/taobench-proofs.schema.json`` is exported from these models
(``lemmata schemas``).
"""

from __future__ import annotations

import difflib
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from lemmata.core.errors import InputError, Problem
from lemmata.core.models import Exact
from lemmata.formats.results import ModelInfo, omit_when_none
from lemmata.formats.runner_log import RunnerInfo
from lemmata.formats.envelope import Envelope, no_records, skipped, validate_model
from lemmata.tracks.headers import check_header
from lemmata.formats.schema import dumps, line_schema

BENCHMARK = "taobench"
TRACK = "proofs"
MAX_N = 256
MAX_ATTEMPT_BYTES = 256 * 1024
SCHEMA_ID = "https://huggingface.co/spaces/lemmata/leaderboard/schema/taobench-proofs.schema.json"
SCHEMA_PATH = "submissions/schema/taobench-proofs.schema.json"


class Sampling(Exact):
    """How the ``n`` attempts were drawn (shown with the entry; pass@k assumes independent samples)."""

    temperature: float = Field(ge=0, le=10)
    top_p: float | None = Field(default=None, gt=0, le=1)
    max_tokens: int | None = Field(default=None, ge=1)
    seed: int | None = None
    prompt: str = Field(default="", max_length=2000,
                        description="what the model was given, e.g. 'official file with sorry' or a prompt template id")
    other: dict[str, str | int | float | bool | None] = Field(default_factory=dict,
                                                             description="further sampling settings")


class Flags(Exact):
    """What the submitter declares about how the proofs were produced."""

    used_lean_feedback: bool = Field(description="the system saw Lean's output (errors, goals) while producing an "
                                     "attempt (agentic or tree search) rather than writing whole proofs blind")
    trained_on_taobench: bool = Field(description="weights or prompts were tuned on TaoBench or on the Lean "
                                      "formalization of Analysis I (teorth/analysis)")
    used_external_tools: bool = Field(description="anything beyond the model and Lean was consulted (web search, "
                                      "premise retrieval over other corpora, other models)")
    filtered_attempts: bool = Field(description="attempts were selected from more than n samples (e.g. by running "
                                    "Lean and keeping those that pass); pass@k then no longer estimates the model's "
                                    "rate. Required: the board sets such entries apart")


class Header(Exact):
    """Line 1 of the file."""

    format: Literal["lemmata-submission/1"] = Field(description="envelope format; always 'lemmata-submission/1'")
    benchmark: Literal["taobench"]
    track: Literal["proofs"] = Field(description="the formal-correctness track: whole-proof attempts checked by Lean")
    release: str = Field(pattern=r"^taobench-[a-z0-9]+-\d+\.\d+\.\d+$",
                         description="dataset release id, e.g. 'taobench-150-1.1.0' or 'taobench-v1-1.0.0'")
    formulations: list[Literal["tao", "mathlib"]] = Field(
        min_length=1, max_length=2, description="formulations the submission answers; their exercises without a "
        "record count as n failed attempts")
    condition: Literal["without-context"] | None = Field(
        default=None, description="unset: the paper's protocol (the model saw each exercise's official file, its "
        "local definitions included); 'without-context': the paper's ablation, the model saw the exercise's "
        "statement alone, none of the definitions its file declares before it (Tao's formulation only; the "
        "attempts are still complete official files). Ranked in its own group")
    model: ModelInfo
    n: int = Field(ge=1, le=MAX_N, description="attempts drawn per exercise and formulation; every record holds "
                   "exactly n (an exercise left out counts as n failed attempts)")
    sampling: Sampling
    flags: Flags
    runner: RunnerInfo | None = Field(default=None, description="set by `lemmata run taobench` only: the run's "
                                      "request log hashes to runner.log_sha256; upload the log beside the file and the "
                                      "scorer checks every attempt against it and the release")
    notes: str = Field(default="", max_length=4000, description="free text shown with the entry")

    _omit_unset = omit_when_none("runner", "condition")  # headers written before these fields dump as they did

    @field_validator("formulations")
    @classmethod
    def _unique(cls, v: list[str]) -> list[str]:
        if len(set(v)) != len(v):
            raise ValueError("formulations must not repeat")
        return v

    @model_validator(mode="after")
    def _context_is_tao_s(self) -> "Header":
        if self.condition == "without-context" and self.formulations != ["tao"]:
            raise ValueError("condition 'without-context' removes the local definitions of Tao's files: formulations "
                             "must be ['tao'] (a Mathlib twin has no local context to remove)")
        return self


class Record(Exact):
    """One exercise in one formulation."""

    fqn: str = Field(min_length=1, max_length=300, description="the release's `fqn` column")
    formulation: Literal["tao", "mathlib"]
    attempts: list[str] = Field(min_length=1, description="complete Lean files, exactly header.n, as drawn; order "
                                "is kept")


def _attempt_problems(rec: Record, header: Any | None, name: str, line: int) -> list[Problem]:
    out = []
    if header is not None and len(rec.attempts) != header.n:  # fewer than n would let a submitter drop failures
        out.append(Problem(name, f"{len(rec.attempts)} attempts; the header declares n = {header.n}: send every one "
                                 "of the n attempts drawn, or leave the exercise out (it then counts as n failed "
                                 "attempts)", line, "attempts"))
    for i, text in enumerate(rec.attempts):
        size = len(text.encode("utf-8"))
        if size > MAX_ATTEMPT_BYTES:
            out.append(Problem(name, f"attempt is {size:,} bytes; the limit is {MAX_ATTEMPT_BYTES:,}", line,
                               f"attempts.{i}"))
        elif not text.strip():
            out.append(Problem(name, "attempt is empty", line, f"attempts.{i}"))
        elif "\x00" in text:
            out.append(Problem(name, "attempt contains a NUL character", line, f"attempts.{i}"))
    return out


def unknown_fqn(fqn: str, known: set[str], release: str) -> str:
    """``unknown FQN`` with the closest names of the release.

    >>> unknown_fqn("Chapter2.Nat.backward_induction", {"Chapter2.Nat.backwards_induction"}, "r")
    "unknown FQN 'Chapter2.Nat.backward_induction' in r; did you mean 'Chapter2.Nat.backwards_induction'?"
    """
    close = difflib.get_close_matches(fqn, sorted(known), n=3, cutoff=0.6)
    hint = "; did you mean " + " or ".join(repr(c) for c in close) + "?" if close else ""
    return f"unknown FQN {fqn!r} in {release}{hint}"


def parse_submission(envelope: Envelope, known_fqns=None) -> tuple[Header, list[tuple[int, Record]]]:
    """Header and records, with every problem (line, field) in one InputError.

    ``known_fqns(release_id)`` returns the FQNs of a release, or raises ``InputError``
    for an unknown release; without it FQNs are not checked (format only).
    """
    name = envelope.filename
    problems: list[Problem] = list(envelope.problems)
    check = check_header(envelope, Header, problems, selecting=("release",))
    header: Header | None = check.header  # type: ignore[assignment]
    # a header with a wrong field still says which release, formulations and n the records are checked against
    release = check.context
    declared = header or check_header(envelope, Header, [], selecting=("formulations",)).context
    counted = header or check_header(envelope, Header, [], selecting=("n",)).context
    fqns: set[str] | None = None
    if release is not None and known_fqns is not None:
        try:
            fqns = set(known_fqns(release.release))
        except InputError as exc:
            problems += [Problem(name, p.reason, envelope.header_line, "header.release") for p in exc.problems]
            header = release = None
    if release is None and known_fqns is not None and envelope.records:
        problems.append(skipped(name, "the records' FQNs", "header.release must be valid and name a known "
                                                          "release first (see the header problems)"))
    records: list[tuple[int, Record]] = []
    seen: dict[tuple[str, str], int] = {}
    for line, obj in envelope.records:
        rec: Record | None = validate_model(Record, obj, name, line, problems)  # type: ignore[assignment]
        if rec is None:
            continue
        problems += _attempt_problems(rec, counted, name, line)
        if fqns is not None and rec.fqn not in fqns:
            problems.append(Problem(name, unknown_fqn(rec.fqn, fqns, release.release), line, "fqn"))
        if declared is not None and rec.formulation not in declared.formulations:
            problems.append(Problem(name, f"formulation {rec.formulation!r} is not declared in the header "
                                    f"({', '.join(declared.formulations)})", line, "formulation"))
        key = (rec.fqn, rec.formulation)
        if key in seen:
            problems.append(Problem(name, f"second record for {rec.fqn} ({rec.formulation}); the first is on line "
                                    f"{seen[key]}", line, "fqn"))
            continue
        seen[key] = line
        records.append((line, rec))
    problems += no_records(envelope)
    if problems:
        raise InputError(problems)
    return header, records  # type: ignore[return-value]


def schema_text() -> str:
    """The committed JSON Schema (2020-12) of one line: the header or a record."""
    return dumps(line_schema(
        Header, Record, filename="taobench-proofs.schema.json",
        title="TaoBench proof submission, format v1 (one JSONL line)",
        description="A TaoBench proof submission is a UTF-8 JSONL file: line 1 is a Header, every further line a "
                    "Record (one per exercise and formulation) holding up to n complete Lean files. See "
                    "submissions/taobench/README.md.",
    ))

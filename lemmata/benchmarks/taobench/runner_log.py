"""Is a TaoBench submission consistent with the request log of a Lemmata run, recomputed from the release?

``lemmata run taobench`` writes the run's request log beside the submission
and its sha256 in the header (``runner.log_sha256``). The log is uploaded by
the submitter, so this check recomputes everything it can instead of trusting
it:

- the log hashes to the header's ``runner.log_sha256`` (checked before this
  module, for every benchmark, in :func:`lemmata.scoring.attach_runner_log`);
- its header names this benchmark, the submission's release, ``n``, the
  requested model and the sampling settings of the submission header, and a
  prompt version this scorer knows;
- for every submitted exercise × formulation it holds exactly ``n`` answers,
  sample indices ``0 … n-1``, each once; and no answer to anything else (a
  log of ``n + k`` samples of which the ``n`` passing ones were kept fails);
- every answer's messages hash equals the hash of the messages the versioned
  prompt renders from the *frozen release* for that exercise (a log made for
  other problems or under another prompt fails), and its request key and
  seed are those the runner computes for that request;
- every submitted attempt is, in order, the Lean file the sampler extracts
  from the corresponding answer (:func:`~lemmata.benchmarks.taobench.sampler.attempt_from`,
  the one function both use): a dropped attempt replaced by a passing one, or
  attempts reordered, fail.

The first four are hashes and keys, checked when the upload arrives
(:func:`check_runner_log`, bounded by the bytes read); re-extracting the
attempts lexes Lean as the integrity checks do, so it runs when the entry is
scored (:func:`check_attempts`), and a mismatch fails the scoring with the
submission's line and field.

What it cannot recompute is the completions: a submitter could write a log
whose answers no model gave. A consistent log therefore earns the condition
``runner_log: consistent`` ("attempts match a Lemmata runner request log,
prompts recomputed from the release"), never "verified".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lemmata.benchmarks.taobench.release import TaoRelease
from lemmata.benchmarks.taobench.sampler import (CONDITION_PROMPTS, PROMPTS, TaskSpec, attempt_from, jobs_for,
                                                 split_item)
from lemmata.benchmarks.taobench.submission import BENCHMARK, Header, Record
from lemmata.core.errors import InputError, Problem
from lemmata.core.hashing import sha256_bytes
from lemmata.formats.envelope import cap_problems, stopped
from lemmata.formats.runner_log import STOP_AFTER, LogEntry, LoggedAnswer, LogHeader, iter_log
from lemmata.oracles.chat_runner import Sampling, request_key

CHECK_VERSION = "runner-log.v1"
#: missing answers named one by one before the rest are counted
MAX_MISSING_NAMED = 20


@dataclass(frozen=True)
class RunnerLogCheck:
    """A log whose structure passed (:func:`check_runner_log`): what the result records of it, and the answers the
    scorer re-extracts the attempts from (:func:`check_attempts`)."""

    sha256: str
    entries: int
    prompt_version: str
    runner_version: str
    filename: str = "runner-log.jsonl"
    #: job id (``FQN@formulation#i``) → (log line, answer)
    answers: dict[str, tuple[int, LoggedAnswer]] = field(default_factory=dict, repr=False, compare=False)

    def provenance(self) -> dict[str, Any]:
        return {"check": CHECK_VERSION, "log_sha256": self.sha256, "answers": self.entries,
                "prompt_version": self.prompt_version, "runner_version": self.runner_version}


def check_runner_log(release: TaoRelease, header: Header, records: list[Record], lines: tuple[int, ...],
                     data: bytes, filename: str, submission_name: str) -> RunnerLogCheck:
    """The structural check's outcome, or one InputError naming file, line and field of every mismatch.

    Everything but the attempts themselves: cheap (hashes and keys), so the space runs it when the upload
    arrives. Re-extracting every attempt lexes Lean, as the integrity checks do, so it runs when the entry is
    scored (:func:`check_attempts`)."""
    stream = iter_log(data, filename)
    hline, log_header, problems = next(stream)
    if not isinstance(log_header, LogHeader):
        raise InputError(problems)

    def head(field: str, theirs: Any, ours: Any, what: str) -> None:
        if theirs != ours:
            problems.append(Problem(filename, f"the log's {field} is {theirs!r}; {what} {ours!r}", hline, field))

    head("benchmark", log_header.benchmark, BENCHMARK, "this submission is for")
    head("release", log_header.release, header.release, "the submission header names")
    head("n", log_header.n, header.n, "the submission header declares")
    head("model", log_header.model, header.model.name, "the submission header's model.name is")
    for key in ("temperature", "top_p", "max_tokens", "seed"):
        head(f"sampling.{key}", getattr(log_header.sampling, key), getattr(header.sampling, key),
             "the submission header's sampling says")
    if header.runner is not None:
        head("version", log_header.version, header.runner.version, "the submission header's runner.version is")
        head("prompt_version", log_header.prompt_version, header.runner.prompt_version,
             "the submission header's runner.prompt_version is")
    if header.model.prompt_version is not None:
        head("prompt_version", log_header.prompt_version, header.model.prompt_version,
             "the submission header's model.prompt_version is")
    if header.flags.filtered_attempts:  # a consistent log holds exactly the n answers drawn: nothing was filtered
        problems.append(Problem(submission_name, "flags.filtered_attempts is true, but a runner log holds exactly the "
                                                 "n answers drawn per exercise: either the attempts were filtered "
                                                 "(then they cannot match the log) or the flag is wrong", None,
                                "header.flags.filtered_attempts"))
    if log_header.prompt_version in PROMPTS:  # an unknown one is named below, once
        head("prompt_version", log_header.prompt_version, CONDITION_PROMPTS[header.condition],
             f"the submission header's condition ({header.condition or 'the paper protocol'}) is run with")
    if log_header.prompt_version not in PROMPTS:
        problems.append(Problem(filename, f"unknown prompt version {log_header.prompt_version!r}: the scorer "
                                          f"recomputes the prompts of {', '.join(sorted(PROMPTS))} only", hline,
                                "prompt_version"))
    try:
        sampling = Sampling(**log_header.sampling.model_dump())
    except ValueError as exc:
        problems.append(Problem(filename, f"not a sampling the runner sends: {str(exc).splitlines()[0]}", hline,
                                "sampling"))
        sampling = None
    if log_header.prompt_version not in PROMPTS or sampling is None:  # nothing below can be recomputed
        raise InputError(problems)

    specs = []
    for pos, rec in enumerate(records):
        if release.item(rec.fqn, rec.formulation).scoreable:
            specs.append(TaskSpec(rec.fqn, rec.formulation))
        else:
            problems.append(Problem(submission_name, f"{rec.fqn} ({rec.formulation}) is not scoreable (its official "
                                                     "file is not well-formed Lean), so the runner never samples it: "
                                                     "leave the record out", lines[pos] if pos < len(lines) else None,
                                    "fqn"))
    jobs = {job.id: job for job in jobs_for(release, specs, header.n, sampling, log_header.prompt_version)}
    model = log_header.model
    found: dict[str, tuple[int, LogEntry]] = {}
    items = {f"{r.fqn}@{r.formulation}" for r in records}
    reported: set[str | None] = set()
    count = 0
    for line, entry, trouble in stream:  # one entry at a time, stopping after STOP_AFTER problems: bounded by bytes read
        problems += trouble
        if len(problems) >= STOP_AFTER:
            problems.append(stopped(filename, line, len(problems)))
            raise InputError(cap_problems(problems, filename))  # what was not read cannot be called missing
        if not isinstance(entry, LogEntry):
            continue
        count += 1
        reported.add(entry.answer.endpoint_model)
        job_id = f"{entry.item}#{entry.sample}"
        job = jobs.get(job_id)
        if job is None:
            if entry.item in items:
                problems.append(Problem(filename, f"answer to sample {entry.sample} of {entry.item}; the header "
                                                  f"declares n = {header.n} (samples 0 … {header.n - 1}): the log "
                                                  "holds answers that were not submitted", line, "sample"))
            else:
                problems.append(Problem(filename, f"answer to {entry.item}, which the submission does not carry",
                                        line, "item"))
            continue
        if job_id in found:
            problems.append(Problem(filename, f"second answer to sample {entry.sample} of {entry.item}; the first "
                                              f"is on line {found[job_id][0]}", line, "sample"))
            continue
        found[job_id] = (line, entry)
        expected_messages = job.messages_sha256()
        if entry.messages_sha256 != expected_messages:
            problems.append(Problem(filename, f"the messages hash to {entry.messages_sha256[:12]}…, but prompt "
                                              f"{log_header.prompt_version} renders {expected_messages[:12]}… for "
                                              f"{entry.item} from the release: the request was not this exercise "
                                              "under this prompt", line, "messages_sha256"))
        if entry.model != model:
            problems.append(Problem(filename, f"model {entry.model!r}; the log's header says {model!r}", line,
                                    "model"))
        if entry.sampling != log_header.sampling:
            problems.append(Problem(filename, "sampling differs from the log's header", line, "sampling"))
        seed = sampling.request_fields(entry.sample).get("seed")
        if entry.seed != seed:
            problems.append(Problem(filename, f"seed {entry.seed}; sample {entry.sample} is sent seed {seed}", line,
                                    "seed"))
        if entry.key != request_key(model, entry.messages_sha256, sampling, entry.sample):
            problems.append(Problem(filename, "the request key is not the one the runner computes from this "
                                              "entry's model, messages hash, sampling and sample index", line, "key"))
    if header.model.endpoint_model is not None and header.model.endpoint_model not in reported:
        problems.append(Problem(submission_name, f"model.endpoint_model {header.model.endpoint_model!r} is reported "
                                                 "by no answer in the runner log", None, "header.model.endpoint_model"))
    missing = [job_id for job_id in jobs if job_id not in found]
    for job_id in missing[:MAX_MISSING_NAMED]:
        item, _, sample = job_id.rpartition("#")
        problems.append(Problem(filename, f"no answer to sample {sample} of {item}: every submitted exercise needs "
                                          f"its {header.n} answers", None, "entries"))
    if len(missing) > MAX_MISSING_NAMED:
        problems.append(Problem(filename, f"… and {len(missing) - MAX_MISSING_NAMED:,} more answers are missing",
                                None, "entries"))

    if problems:
        raise InputError(cap_problems(problems, filename))
    return RunnerLogCheck(sha256=sha256_bytes(data), entries=count, prompt_version=log_header.prompt_version,
                          runner_version=log_header.version, filename=filename,
                          answers={job_id: (line, entry.answer) for job_id, (line, entry) in found.items()})


def check_attempts(release: TaoRelease, records: list[Record], lines: tuple[int, ...], check: RunnerLogCheck,
                   submission_name: str) -> None:
    """Every submitted attempt is, in order, the Lean file the sampler extracts from its logged answer
    (:func:`~lemmata.benchmarks.taobench.sampler.attempt_from`; for a run made before helper declarations were
    carried over, the same extraction without them); else one InputError naming the submission's line and
    ``attempts.i`` of every mismatch, and the log's line of the answer."""
    problems: list[Problem] = []
    for pos, rec in enumerate(records):
        item = f"{rec.fqn}@{rec.formulation}"
        if not release.item(rec.fqn, rec.formulation).scoreable:
            continue
        exercise = release.exercise(*split_item(item))
        line = lines[pos] if pos < len(lines) else None
        for i, text in enumerate(rec.attempts):
            hit = check.answers.get(f"{item}#{i}")
            if hit is None:
                continue
            expected, _ = attempt_from(hit[1], exercise)
            # a run made before helper declarations were carried over extracted the same answer without them
            if text != expected and text != attempt_from(hit[1], exercise, helpers=False)[0]:
                problems.append(Problem(submission_name, f"attempt {i} of {item} is not the Lean file the runner "
                                                         f"extracts from the answer on line {hit[0]} of "
                                                         f"{check.filename}: attempts must be submitted as "
                                                         "extracted, in order", line, f"attempts.{i}"))
                if len(problems) >= STOP_AFTER:
                    raise InputError(cap_problems(problems, submission_name))
    if problems:
        raise InputError(cap_problems(problems, submission_name))

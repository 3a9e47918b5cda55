"""Is a submission consistent with the request log of a Lemmata run? The checks every benchmark shares.

``lemmata run`` writes the run's request log (:mod:`lemmata.formats.runner_log`) beside the submission and its
sha256 in the header (``runner.log_sha256``). The log is uploaded by the submitter, so the scorer recomputes what
it can instead of trusting it. What is the same for every benchmark lives here, once:

- the log hashes to the header's ``runner.log_sha256`` (checked before, in :func:`lemmata.scoring.attach_runner_log`);
- its header names the benchmark, the submission's release, ``n``, the requested model, the sampling settings
  and the prompt version the submission header declares, and a prompt version the scorer knows;
- every request the family recomputes from the *frozen release* (:attr:`Declared` and the ``jobs`` hook of
  :func:`check_log`) has exactly one answer whose messages hash is the one the versioned prompt renders, and
  whose request key and seed are those the runner computes; no answer to anything else.

What differs is the family's hook: ``jobs(log_header, sampling)`` gives every request id of the run (the entry's
key, by default ``item#sample``, :func:`job_of`) with the messages hash the release gives, or None for a follow-up
request of a multi-step protocol whose messages depend on an earlier answer (allowed, not required, its key still
recomputed). Each family then checks that every submitted record is what its runner writes from the logged answers
(:func:`check_records`, with the family's own function of an answer as the hook).

The completions themselves cannot be recomputed: a consistent log earns the condition ``runner_log: consistent``
(:func:`with_runner_log`), never "verified".
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from lemmata.core.errors import InputError, Problem
from lemmata.core.hashing import sha256_bytes
from lemmata.formats.envelope import cap_problems, stopped
from lemmata.formats.runner_log import STOP_AFTER, LogEntry, LoggedAnswer, LogHeader, iter_log
from lemmata.oracles.chat_runner import Sampling, request_key

__all__ = ["CHECK_VERSION", "RUNNER_LOG_CONSISTENT", "Declared", "RunnerLogCheck", "answer_mismatch", "check_log",
           "NOT_LOGGED", "check_records", "job_of", "with_runner_log"]

CHECK_VERSION = "runner-log.v1"
#: the result flag a passed check sets (the board's *runner log* badge, ``space/conditions.toml``)
RUNNER_LOG_CONSISTENT = "consistent"
#: missing answers named one by one before the rest are counted
MAX_MISSING_NAMED = 20
SAMPLING_KEYS = ("temperature", "top_p", "max_tokens", "seed")


@dataclass(frozen=True)
class RunnerLogCheck:
    """A log whose structure passed (:func:`check_log`): what the result records of it, and the answers a scorer
    compares the submitted records with."""

    sha256: str
    entries: int
    prompt_version: str
    runner_version: str
    filename: str = "runner-log.jsonl"
    #: job id (by default ``item#sample``) → (log line, answer)
    answers: dict[str, tuple[int, LoggedAnswer]] = field(default_factory=dict, repr=False, compare=False)

    def provenance(self) -> dict[str, Any]:
        return {"check": CHECK_VERSION, "log_sha256": self.sha256, "answers": self.entries,
                "prompt_version": self.prompt_version, "runner_version": self.runner_version}


@dataclass(frozen=True)
class Declared:
    """What a submission header says of its run, which the log's header must repeat."""

    benchmark: str
    release: str
    #: the header's ``model`` (:class:`~lemmata.formats.results.ModelInfo`: name, prompt_version, endpoint_model)
    model: Any
    #: the sampling the header declares (temperature, top_p, max_tokens, seed)
    sampling: Mapping[str, Any]
    #: the header's ``runner`` (:class:`~lemmata.formats.runner_log.RunnerInfo`), or None
    runner: Any = None
    n: int = 1
    #: the prompt version the run must have used (None: any the scorer knows) and where the header says so
    prompt: str | None = None
    prompt_from: str = "the submission header's model.prompt_version is"


def job_of(entry: LogEntry) -> str:
    """The default key of a log entry among a run's requests: ``item#sample``.

    >>> job_of(LogEntry(key="a" * 64, item="x@tao", sample=2, model="m", messages_sha256="b" * 64,
    ...                 sampling={"temperature": 0.0}, seed=None, answer={"text": "t"}))
    'x@tao#2'
    """
    return f"{entry.item}#{entry.sample}"


def _header_problems(log_header: LogHeader, hline: int, filename: str, declared: Declared,
                     prompts: Collection[str]) -> list[Problem]:
    problems: list[Problem] = []

    def head(name: str, theirs: Any, ours: Any, what: str) -> None:
        if theirs != ours:
            problems.append(Problem(filename, f"the log's {name} is {theirs!r}; {what} {ours!r}", hline, name))

    head("benchmark", log_header.benchmark, declared.benchmark, "this submission is for")
    head("release", log_header.release, declared.release, "the submission header names")
    head("n", log_header.n, declared.n, "the submission header declares")
    head("model", log_header.model, declared.model.name, "the submission header's model.name is")
    for key in SAMPLING_KEYS:
        head(f"sampling.{key}", getattr(log_header.sampling, key), declared.sampling.get(key),
             "the submission header's sampling says")
    if declared.runner is not None:
        head("version", log_header.version, declared.runner.version, "the submission header's runner.version is")
        head("prompt_version", log_header.prompt_version, declared.runner.prompt_version,
             "the submission header's runner.prompt_version is")
    if declared.model.prompt_version is not None:
        head("prompt_version", log_header.prompt_version, declared.model.prompt_version,
             "the submission header's model.prompt_version is")
    if declared.prompt is not None and log_header.prompt_version in prompts:  # an unknown one is named below, once
        head("prompt_version", log_header.prompt_version, declared.prompt, declared.prompt_from)
    if log_header.prompt_version not in prompts:
        problems.append(Problem(filename, f"unknown prompt version {log_header.prompt_version!r}: the scorer "
                                          f"recomputes the prompts of {', '.join(sorted(prompts))} only", hline,
                                "prompt_version"))
    return problems


def check_log(data: bytes, filename: str, submission_name: str, declared: Declared, *, prompts: Collection[str],
              jobs: Callable[[LogHeader, Sampling], Mapping[str, str | None]],
              problems: list[Problem] | None = None, key: Callable[[LogEntry], str] = job_of) -> RunnerLogCheck:
    """The structural check's outcome, or one InputError naming file, line and field of every mismatch.

    ``jobs(log_header, sampling)`` is the family's hook: every request id of the run (``key`` of an entry,
    :func:`job_of` by default) with the messages hash recomputed from the frozen release (None: a follow-up whose
    messages depend on an earlier answer; allowed, not required). ``problems`` are the family's own findings,
    reported with these. Bounded by the bytes read: reading stops after :data:`STOP_AFTER` problems."""
    problems = list(problems or [])
    stream = iter_log(data, filename)
    hline, log_header, found_first = next(stream)
    if not isinstance(log_header, LogHeader):
        raise InputError(found_first)
    problems += _header_problems(log_header, hline, filename, declared, prompts)
    try:
        sampling = Sampling(**log_header.sampling.model_dump())
    except ValueError as exc:
        problems.append(Problem(filename, f"not a sampling the runner sends: {str(exc).splitlines()[0]}", hline,
                                "sampling"))
        sampling = None
    if log_header.prompt_version not in prompts or sampling is None:  # nothing below can be recomputed
        raise InputError(problems)

    expected = jobs(log_header, sampling)
    items = {job.rpartition("#")[0] for job in expected}
    model = log_header.model
    found: dict[str, tuple[int, LogEntry]] = {}
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
        job_id = key(entry)
        if job_id not in expected:
            if entry.item in items:
                problems.append(Problem(filename, f"answer to sample {entry.sample} of {entry.item}; the header "
                                                  f"declares n = {declared.n} (samples 0 … {declared.n - 1}): the "
                                                  "log holds answers that were not submitted", line, "sample"))
            else:
                problems.append(Problem(filename, f"answer to {entry.item}, which the submission does not carry",
                                        line, "item"))
            continue
        if job_id in found:
            problems.append(Problem(filename, f"second answer to sample {entry.sample} of {entry.item}; the first "
                                              f"is on line {found[job_id][0]}", line, "sample"))
            continue
        found[job_id] = (line, entry)
        messages = expected[job_id]
        if messages is not None and entry.messages_sha256 != messages:
            problems.append(Problem(filename, f"the messages hash to {entry.messages_sha256[:12]}…, but prompt "
                                              f"{log_header.prompt_version} renders {messages[:12]}… for "
                                              f"{entry.item} from the release: the request was not this item "
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
    endpoint_model = declared.model.endpoint_model
    if endpoint_model is not None and endpoint_model not in reported:
        problems.append(Problem(submission_name, f"model.endpoint_model {endpoint_model!r} is reported by no answer "
                                                 "in the runner log", None, "header.model.endpoint_model"))
    missing = [job for job, messages in expected.items() if messages is not None and job not in found]
    for job in missing[:MAX_MISSING_NAMED]:
        item, _, sample = job.rpartition("#")
        problems.append(Problem(filename, f"no answer to sample {sample} of {item}: every submitted item needs "
                                          f"its {declared.n} answer{'s' if declared.n != 1 else ''}", None,
                                "entries"))
    if len(missing) > MAX_MISSING_NAMED:
        problems.append(Problem(filename, f"… and {len(missing) - MAX_MISSING_NAMED:,} more answers are missing",
                                None, "entries"))
    if problems:
        raise InputError(cap_problems(problems, filename))
    return RunnerLogCheck(sha256=sha256_bytes(data), entries=count, prompt_version=log_header.prompt_version,
                          runner_version=log_header.version, filename=filename,
                          answers={job: (line, entry.answer) for job, (line, entry) in found.items()})


def answer_mismatch(submission_name: str, line: int | None, field_name: str, item: str, check: RunnerLogCheck,
                    log_line: int | None) -> Problem:
    """The problem of a submitted record field that is not what the runner writes from its logged answer (or that
    has no logged answer at all: ``log_line`` None).

    >>> check = RunnerLogCheck(sha256="a" * 64, entries=1, prompt_version="p.v1", runner_version="1",
    ...                        filename="run.runner-log.jsonl")
    >>> print(answer_mismatch("sub.jsonl", 2, "formal_statement", "e1", check, 5))
    sub.jsonl, line 2, field 'formal_statement': formal_statement of e1 is not what the runner writes from the answer on line 5 of run.runner-log.jsonl: records must be submitted as the runner wrote them
    """
    where = (f"the answer on line {log_line} of {check.filename}" if log_line is not None
             else f"the answers in {check.filename} (none is logged for it)")
    return Problem(submission_name, f"{field_name} of {item} is not what the runner writes from {where}: records "
                                    "must be submitted as the runner wrote them", line, field_name)


class _NotLogged:
    """What the runner writes for a step whose answer the log lacks: equal to nothing a record can hold."""

    def __eq__(self, other: object) -> bool:
        return False

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return "NOT_LOGGED"


#: the expected value of a field whose answer is missing from the log (always a mismatch, named as such)
NOT_LOGGED: Any = _NotLogged()


def check_records(check: RunnerLogCheck, submission_name: str, records: Iterable[tuple[int | None, Any]],
                  item: Callable[[Any], str],
                  expected: Callable[[Any], Iterable[tuple[str, Any, Any, int | None]]]) -> None:
    """Every submitted record is what the runner writes from its logged answers; else one InputError naming the
    submission's line and field, and the log line of the answer, of every mismatch.

    ``records`` are ``(file line, record)`` pairs; ``expected(record)`` is the family's hook: ``(field, the value
    submitted, the value the runner writes, log line of the answer it comes from)`` for each field the log decides
    (made by the family's own function of an answer, the one its runner uses; :data:`NOT_LOGGED` when the answer
    it needs is missing); ``item(record)`` names the record in a problem."""
    problems = []
    for line, rec in records:
        for name, submitted, value, log_line in expected(rec):
            if value is NOT_LOGGED or submitted != value:
                problems.append(answer_mismatch(submission_name, line, name, item(rec), check,
                                                None if value is NOT_LOGGED else log_line))
                if len(problems) >= STOP_AFTER:
                    raise InputError(cap_problems(problems, submission_name))
    if problems:
        raise InputError(cap_problems(problems, submission_name))


def with_runner_log(flags: Mapping[str, Any], provenance: Mapping[str, Any], check: RunnerLogCheck | None,
                    ) -> tuple[dict[str, Any], dict[str, Any]]:
    """A result's flags and provenance with a passed check recorded (the condition ``runner_log: consistent`` and the
    check's provenance); unchanged without one, so a result without a log keeps its bytes and id.

    >>> with_runner_log({"a": 1}, {}, None)
    ({'a': 1}, {})
    """
    if check is None:
        return dict(flags), dict(provenance)
    return ({**flags, "runner_log": RUNNER_LOG_CONSISTENT}, {**provenance, "runner_log": check.provenance()})

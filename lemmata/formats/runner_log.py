"""A runner request log: the answers a Lemmata run used, as its chat runner cached them, one JSON line each.

``lemmata run`` writes the log next to the submission and records its sha256
in the submission header (:class:`RunnerInfo`, header field ``runner``). Line 1
is a :class:`LogHeader` (the runner, the prompt version, the release, the
requested model, the sampling settings, ``n``); every further line is one
:class:`LogEntry`: the request key the runner's cache uses, the item and sample
index, the sha256 of the messages sent, the seed sent and the answer as the
runner recorded it (the raw completion text, or an abstention with its reason).

The log is uploaded by the submitter, so it proves nothing by itself: a scorer
recomputes from the frozen release what it can (the messages each request must
have sent, the request keys, the attempts extracted from each answer) and only
then calls a submission *consistent with a runner log*. The completions
themselves cannot be recomputed: a submitter could still write them.

:func:`read_log` is strict and bounded like an upload: a size cap, strict JSON
(no duplicate keys, no NaN, no lone surrogates), every problem with its line
and field.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

from lemmata.core.errors import InputError, LemmataError, Problem
from lemmata.core.jsonl import dumps_jsonl
from lemmata.core.models import Exact
from lemmata.formats.envelope import stopped
from lemmata.formats.strict_json import MAX_DEPTH, parse_line

__all__ = ["LOG_FORMAT", "LOG_LIMIT", "MAX_LOG_BYTES", "RUNNER_LOG_SUFFIX", "LogEntry", "LogHeader", "LoggedAnswer",
           "LoggedSampling", "RunnerInfo", "check_log_lines", "declared_log_sha256", "fit_log", "iter_log",
           "log_beside", "log_bytes", "make_header", "read_log", "runner_field", "runner_version"]

LOG_FORMAT = "lemmata-runner-log/1"
#: the log's file name beside the submission: ``<submission stem>.runner-log.jsonl``
RUNNER_LOG_SUFFIX = ".runner-log.jsonl"
RUNNER_NAME = "lemmata"
#: the largest log read (twice the default submission limit: a completion carries prose around the proof). The
#: one limit: the scorer reads it (:func:`iter_log`) and the runner writes within it (:func:`fit_log`), both when
#: called, so the two cannot disagree
MAX_LOG_BYTES = 64 * 1024 * 1024
#: one line (one answer) at most; the runner keeps at most 1 MiB of completion text per answer
#: (:data:`lemmata.oracles.chat_runner.MAX_REPLY_TEXT_BYTES`), so every line it writes fits
MAX_LOG_LINE_BYTES = 16 * 1024 * 1024
#: entries at most (256 samples × 150 exercises × 2 formulations fits)
MAX_LOG_LINES = 100_000
#: after this many problems the rest of the log is not checked
STOP_AFTER = 200
#: the abstention reason of an answer whose text the runner dropped to keep its log within :data:`MAX_LOG_BYTES`
LOG_LIMIT = "log-limit"
_HEX64 = r"^[0-9a-f]{64}$"


class RunnerInfo(Exact):
    """Header field ``runner``: the submission was written by Lemmata's runner, whose request log hashes to
    ``log_sha256`` (upload the log beside the file; the scorer checks it against the release)."""

    name: Literal["lemmata"] = Field(description="the runner: always 'lemmata' (`lemmata run`)")
    version: str = Field(min_length=1, max_length=50, description="the Lemmata version that ran")
    prompt_version: str = Field(min_length=1, max_length=100, description="the benchmark prompt the requests used")
    log_sha256: str = Field(pattern=_HEX64, description="sha256 of the request log file written beside the "
                                                        "submission")


class LoggedSampling(Exact):
    """The sampling settings of every request (the chat runner's ``Sampling``)."""

    temperature: float
    top_p: float | None = None
    max_tokens: int | None = None
    seed: int | None = None


class LoggedAnswer(Exact):
    """One answer as the runner recorded it: ``text`` when usable, else ``abstention`` says why."""

    text: str | None = None
    abstention: str | None = Field(default=None, max_length=2000)
    finish_reason: str | None = Field(default=None, max_length=100)
    endpoint_model: str | None = Field(default=None, max_length=200)
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost: float | None = None


class LogHeader(Exact):
    """Line 1 of a request log."""

    format: Literal["lemmata-runner-log/1"]
    runner: Literal["lemmata"]
    version: str = Field(min_length=1, max_length=50)
    benchmark: str = Field(min_length=1, max_length=100)
    release: str = Field(min_length=1, max_length=200)
    prompt_version: str = Field(min_length=1, max_length=100)
    model: str = Field(min_length=1, max_length=200, description="the model name requested at the endpoint")
    sampling: LoggedSampling
    n: int = Field(ge=1)


class LogEntry(Exact):
    """One request and the answer the run used."""

    key: str = Field(pattern=_HEX64, description="the runner's request key (cache key)")
    item: str = Field(min_length=1, max_length=400, description="the benchmark item the request answers")
    sample: int = Field(ge=0)
    model: str = Field(min_length=1, max_length=200)
    messages_sha256: str = Field(pattern=_HEX64, description="sha256 of the messages sent (canonical JSON)")
    sampling: LoggedSampling
    seed: int | None = Field(description="the seed sent with this request (sampling.seed + sample), or null")
    answer: LoggedAnswer


def runner_version() -> str:
    """The Lemmata version a run records (log header ``version``, submission header ``runner.version``)."""
    from lemmata import __version__

    return __version__


def make_header(benchmark: str, release: str, prompt_version: str, model: str, sampling: Mapping[str, Any],
                n: int = 1) -> LogHeader:
    """The log's header line for a run of ``benchmark`` on ``release`` (``sampling``: the runner's settings)."""
    return LogHeader(format=LOG_FORMAT, runner=RUNNER_NAME, version=runner_version(), benchmark=benchmark,
                     release=release, prompt_version=prompt_version, model=model,
                     sampling=LoggedSampling(**sampling), n=n)


def runner_field(prompt_version: str, log: bytes) -> dict[str, Any]:
    """The submission header's ``runner`` (:class:`RunnerInfo`) naming the request log ``log``."""
    from lemmata.core.hashing import sha256_bytes

    return {"name": RUNNER_NAME, "version": runner_version(), "prompt_version": prompt_version,
            "log_sha256": sha256_bytes(log)}


def log_bytes(header: LogHeader, entries: Iterable[LogEntry]) -> bytes:
    """The log file: the header line, then one line per entry (in the run's job order, so reruns are
    byte-identical)."""
    return dumps_jsonl([header, *entries], sort_keys=True).encode("utf-8")


def log_beside(submission: str | Path) -> Path:
    """Where ``lemmata run`` writes a submission's request log, where ``lemmata score`` looks for it and the name a
    stored entry's log is checked under: ``<stem>.runner-log.jsonl`` beside ``<stem>.jsonl``.

    >>> log_beside("runs/taobench.r.m.n2.jsonl").as_posix()
    'runs/taobench.r.m.n2.runner-log.jsonl'
    """
    path = Path(submission)
    return path.with_name(path.stem + RUNNER_LOG_SUFFIX)


def check_log_lines(entries: int, what: str = "lemmata run") -> None:
    """InputError before a run asks for more answers than one log may hold (the header is a line too).

    >>> check_log_lines(MAX_LOG_LINES - 1)
    >>> try:
    ...     check_log_lines(MAX_LOG_LINES)
    ... except InputError as exc:
    ...     print(exc.problems[0].reason[:60])
    100,000 answers and a header make 100,001 log lines; the sco
    """
    if entries + 1 > MAX_LOG_LINES:
        raise InputError.one(what, f"{entries:,} answers and a header make {entries + 1:,} log lines; the scorer "
                                   f"reads at most {MAX_LOG_LINES:,}: ask for fewer samples or exercises")


def fit_log(header: LogHeader, entries: Sequence[LogEntry]) -> tuple[bytes, list[LogEntry]]:
    """The log's bytes within the scorer's limit, and the entries written: :func:`log_bytes` when it fits, else
    the longest completions, longest first (ties in job order), become ``log-limit`` abstentions without their
    text until it does.

    A run never writes a log its scorer refuses, and the answers it drops are recorded as abstentions with their
    size, so the attempts made from them are the official file (failed), as for any abstention. Raises
    LemmataError when even a log without any completion text is over the limit (too many answers for one log).

    >>> h = LogHeader(format=LOG_FORMAT, runner="lemmata", version="1", benchmark="b", release="r",
    ...               prompt_version="p.v1", model="m", sampling=LoggedSampling(temperature=0.0), n=1)
    >>> e = LogEntry(key="a" * 64, item="x", sample=0, model="m", messages_sha256="b" * 64,
    ...              sampling=LoggedSampling(temperature=0.0), seed=None, answer=LoggedAnswer(text="y" * 3000))
    >>> data, kept = fit_log(h, [e, e.model_copy(update={"sample": 1})])
    >>> data == log_bytes(h, kept) and kept[1].answer.text is not None
    True
    """
    limit = MAX_LOG_BYTES  # read when called: a test (or a build) that changes the limit changes both sides
    lines = [dumps_jsonl([obj], sort_keys=True).encode("utf-8") for obj in (header, *entries)]
    kept = list(entries)
    total = sum(map(len, lines))
    if total > limit:
        for i in sorted(range(len(kept)), key=lambda i: (-len(lines[i + 1]), i)):
            answer = kept[i].answer
            if answer.text is None:
                continue
            size = len(answer.text.encode("utf-8", "surrogatepass"))
            reason = (f"{LOG_LIMIT}: the completion's {size:,} bytes of text were dropped so that the run's request "
                      f"log stays within the scorer's {limit:,}-byte limit (longest completions first)")
            kept[i] = kept[i].model_copy(update={"answer": answer.model_copy(update={"text": None,
                                                                                     "abstention": reason})})
            line = dumps_jsonl([kept[i]], sort_keys=True).encode("utf-8")
            total += len(line) - len(lines[i + 1])
            lines[i + 1] = line
            if total <= limit:
                break
        if total > limit:
            raise LemmataError(f"the request log of {len(kept):,} answers is {total:,} bytes even without any "
                               f"completion text; the scorer reads at most {limit:,}: ask for fewer samples or "
                               "exercises")
    return b"".join(lines), kept


def declared_log_sha256(header: Any) -> str | None:
    """The ``runner.log_sha256`` a header (a dict, as read from a stored upload) declares, or None.

    >>> declared_log_sha256({"runner": {"log_sha256": "a" * 64}}) == "a" * 64
    True
    >>> declared_log_sha256({"runner": "x"}), declared_log_sha256({})
    (None, None)
    """
    runner = header.get("runner") if isinstance(header, Mapping) else None
    sha = runner.get("log_sha256") if isinstance(runner, Mapping) else None
    return sha if isinstance(sha, str) else None


def _problems(exc: ValidationError, filename: str, line: int) -> list[Problem]:
    out = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"]) or None
        msg = {"extra_forbidden": "unknown field", "missing": "required field is missing"}.get(err["type"], err["msg"])
        out.append(Problem(filename, msg, line, loc))
    return out


def _lines(data: bytes) -> Iterator[tuple[int, bytes]]:
    """``(line number, bytes)`` without splitting the whole file at once (no second copy of a large log)."""
    pos, lineno, size = 0, 0, len(data)
    while pos < size:
        end = data.find(b"\n", pos)
        end = size if end < 0 else end
        lineno += 1
        yield lineno, data[pos:end]
        pos = end + 1


def iter_log(data: bytes, filename: str, *, max_bytes: int | None = None,
             ) -> Iterator[tuple[int, LogHeader | LogEntry | None, list[Problem]]]:
    """``(line, header or entry, problems)`` line by line: the header first (or the problems that stop the read).

    A consumer may stop early (after enough problems), so a hostile log costs what was read, not its size; the
    size and line caps are checked before the first line; ``max_bytes`` defaults to :data:`MAX_LOG_BYTES` as it is
    when called (the limit the runner wrote within).
    """
    max_bytes = MAX_LOG_BYTES if max_bytes is None else max_bytes
    if len(data) > max_bytes:
        yield 0, None, [Problem(filename, f"log is {len(data):,} bytes; the limit is {max_bytes:,}")]
        return
    if data.count(b"\n") > MAX_LOG_LINES:
        yield 0, None, [Problem(filename, f"log has more than {MAX_LOG_LINES:,} lines")]
        return
    budget = 50 * MAX_LOG_LINES  # arrays and objects in the whole file (an entry holds three)
    header_seen = False
    for lineno, raw in _lines(data):
        if not raw.strip():
            continue
        if len(raw) > MAX_LOG_LINE_BYTES:
            yield lineno, None, [Problem(filename, f"line is {len(raw):,} bytes; the limit is {MAX_LOG_LINE_BYTES:,}",
                                         lineno)]
            if not header_seen:
                return
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            yield lineno, None, [Problem(filename, f"not valid UTF-8 (byte {exc.start + 1} of the line)", lineno)]
            if not header_seen:
                return
            continue
        obj, bad, containers = parse_line(text, max_depth=MAX_DEPTH, max_containers=budget)
        budget -= containers
        if bad is not None or not isinstance(obj, dict):
            reason = (bad.reason + (f" at column {bad.column}" if bad.column is not None else "") if bad is not None
                      else f"expected a JSON object, got {type(obj).__name__}")
            yield lineno, None, [Problem(filename, reason, lineno, bad.field if bad is not None else None)]
            if not header_seen:
                return
            continue
        model: type[BaseModel] = LogEntry if header_seen else LogHeader
        try:
            parsed = model.model_validate(obj)
        except ValidationError as exc:
            yield lineno, None, _problems(exc, filename, lineno)
            if not header_seen:
                return  # without the header the entries say nothing checkable
            continue
        header_seen = True
        yield lineno, parsed, []  # type: ignore[misc]
    if not header_seen:
        yield 0, None, [Problem(filename, f"the log is empty; line 1 must be its header (\"format\": "
                                          f"\"{LOG_FORMAT}\")")]


def read_log(data: bytes, filename: str, *, max_bytes: int | None = None,
             ) -> tuple[LogHeader, list[tuple[int, LogEntry]]]:
    """The header and ``(line, entry)`` pairs, or one InputError naming every problem's line and field (reading
    stops after :data:`STOP_AFTER` problems).

    >>> h = LogHeader(format=LOG_FORMAT, runner="lemmata", version="1", benchmark="b", release="r",
    ...               prompt_version="p.v1", model="m", sampling=LoggedSampling(temperature=0.0), n=1)
    >>> read_log(log_bytes(h, []), "log.jsonl")[0] == h
    True
    >>> try:
    ...     read_log(b'{"format": "lemmata-runner-log/1", "format": "x"}', "log.jsonl")
    ... except InputError as exc:
    ...     print(exc.problems[0])
    log.jsonl, line 1, field 'format': duplicate key 'format': every key may appear once per object
    """
    problems: list[Problem] = []
    header: LogHeader | None = None
    entries: list[tuple[int, LogEntry]] = []
    for line, parsed, found in iter_log(data, filename, max_bytes=max_bytes):
        problems += found
        if isinstance(parsed, LogHeader):
            header = parsed
        elif parsed is not None:
            entries.append((line, parsed))
        if len(problems) >= STOP_AFTER:
            problems.append(stopped(filename, line + 1, len(problems)))
            break
    if problems or header is None:
        raise InputError(problems)
    return header, entries

"""The submission envelope every benchmark shares: a JSONL file whose first line is the header.

Uploads are parsed, never executed. Before any benchmark-specific validation
this layer enforces a size limit, UTF-8, a nesting-depth limit and one JSON
object per line, and it reports *every* problem with its line number at once.

A broken record line does not hide the rest of the file: with ``keep_going``
the envelope keeps every line problem in :attr:`Envelope.problems` and hands
the readable lines on, so the benchmark's handler adds its header, record and
cross-record problems to the same list. Only a file whose header line cannot
be read stops here, with a ``checks`` problem saying what was not looked at.
A file that is one JSON document spread over many lines (not JSONL) is one
problem, not one per line (:class:`NotJsonl` carries the document so a
family can recognise what was uploaded instead).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from lemmata.core.errors import CHECKS, InputError, Problem
from lemmata.core.settings import read as setting
from lemmata.formats.strict_json import MAX_DEPTH, parse_line

SUBMISSION_FORMAT = "lemmata-submission/1"
DEFAULT_MAX_BYTES = 32 * 1024 * 1024
MAX_PROBLEMS = 200
#: one line (a record) may not exceed this: bounds the memory one json.loads call can take
MAX_LINE_BYTES = 8 * 1024 * 1024
#: lines per file: bounds per-line work (the largest shipped split has far fewer records)
MAX_LINES = 200_000
#: arrays and objects per file: bounds memory (a ranking entry takes 25+ bytes, so 32 MiB of real rankings stays
#: under it, while 32 MiB of ``{}`` would be eleven million dicts)
MAX_CONTAINERS = 2_000_000
#: after this many problems a file is no longer checked line by line: the cost of answering is bounded by bytes,
#: not by how many defects a hostile file packs in (200,000 ``{}`` lines would otherwise build 800,000 problems);
#: the list says from which line on nothing was checked
STOP_AFTER = 1_000
#: short good lines remembered per file, so that repeats skip the strict parse (bounded: 10,000 × 256 bytes)
MEMO_LINE_BYTES = 256
MEMO_LINES = 10_000


def max_submission_bytes() -> int:
    """Upload size limit; ``LEMMATA_MAX_SUBMISSION_BYTES`` overrides the default (32 MiB)."""
    return int(setting("LEMMATA_MAX_SUBMISSION_BYTES") or DEFAULT_MAX_BYTES)


@dataclass(frozen=True)
class Envelope:
    filename: str
    header: dict[str, Any]
    header_line: int
    records: list[tuple[int, dict[str, Any]]]
    #: line problems (bad JSON, not UTF-8, …) of lines left out of ``records``; handlers report them first
    problems: tuple[Problem, ...] = ()


@dataclass
class NotJsonl(InputError):
    """The whole upload is one JSON document over several lines: a JSON file, not a JSONL submission."""

    document: Any = None


def skipped(filename: str, what: str, why: str) -> Problem:
    """The problem saying that ``what`` was not checked because of ``why`` (field ``checks``).

    >>> str(skipped("f.jsonl", "records", "the header is invalid"))
    "f.jsonl, field 'checks': records were not checked: the header is invalid"
    """
    return Problem(filename, f"{what} were not checked: {why}", field=CHECKS)


def no_records(envelope: Envelope) -> list[Problem]:
    """The problem of a file whose header no record line follows, or none.

    A broken record line is no missing one: the envelope's own problems already name it.

    >>> no_records(Envelope(filename="f.jsonl", header={}, header_line=1, records=[]))[0].reason
    'no records after the header'
    """
    if envelope.records or envelope.problems:
        return []
    return [Problem(envelope.filename, "no records after the header")]


def single_document(data: bytes, filename: str) -> NotJsonl | None:
    """The error for an upload that is one JSON object or array spread over many lines, else None.

    >>> single_document(b'{\\n "a": 1\\n}', "x.json").problems[0].reason[:40]
    'the file is one JSON document over 3 lin'
    >>> single_document(b'{"a": 1}\\n{"b": 2}', "x.jsonl") is None
    True
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    lines = text.count("\n") + 1
    if lines < 2:
        return None
    doc, bad, _ = parse_line(text.replace("\r", " ").replace("\n", " "), max_depth=MAX_DEPTH,
                             max_containers=MAX_CONTAINERS)
    if bad is not None or not isinstance(doc, (dict, list)):
        return None
    return NotJsonl([Problem(filename, f"the file is one JSON document over {lines:,} lines, not JSONL: a submission "
                                       "has one JSON object per line, the header first")], document=doc)


def cap_problems(problems: list[Problem], filename: str, limit: int = MAX_PROBLEMS) -> list[Problem]:
    """At most ``limit`` problems, then one stating how many more were found, then every ``checks`` problem.

    A hostile file can hold millions of defects; the list a person reads (and
    the HTML the space renders) stays bounded while the total stays honest, and
    a problem saying what was *not* checked is never hidden among the "more".

    >>> capped = cap_problems([Problem("f", "bad", i) for i in range(1, 6)], "f", limit=2)
    >>> [str(p) for p in capped]
    ['f, line 1: bad', 'f, line 2: bad', 'f: … and 3 more problems (5 in all); fix these and upload again']
    """
    if len(problems) <= limit:
        return problems
    checks = [p for p in problems[limit:] if p.field == CHECKS]
    more = len(problems) - limit - len(checks)
    return problems[:limit] + [Problem(filename, f"… and {more:,} more problem{'s' if more != 1 else ''} "
                                                 f"({len(problems) - len(checks):,} in all); fix these and upload "
                                                 "again")] + checks


def stopped(filename: str, line: int, found: int, what: str = "lines") -> Problem:
    """The problem saying that nothing from ``line`` on was checked because ``found`` problems came first.

    >>> str(stopped("f.jsonl", 1201, 1000))
    "f.jsonl, line 1201, field 'checks': lines from here on were not checked: 1,000 problems were found before; fix these and upload again"
    """
    return Problem(filename, f"{what} from here on were not checked: {found:,} problems were found before; fix these "
                             "and upload again", line, CHECKS)


def parse_envelope(data: bytes, filename: str, *, max_bytes: int | None = None,
                   keep_going: bool = False) -> Envelope:
    """Split an upload into header and records, or raise one InputError listing every problem.

    With ``keep_going`` a file whose header line is readable comes back even when
    other lines are not: their problems are in :attr:`Envelope.problems` and the
    caller must report them (the handlers do, next to their own).
    """
    limit = max_bytes if max_bytes is not None else max_submission_bytes()
    if len(data) > limit:
        raise InputError.one(filename, f"file is {len(data):,} bytes; the limit is {limit:,} bytes")
    if not data.strip():
        raise InputError.one(filename, "file is empty; expected a JSONL header line followed by one record per line")
    lines = data.count(b"\n") + 1
    if lines > MAX_LINES:
        raise InputError.one(filename, f"file has {lines:,} lines; the limit is {MAX_LINES:,}")
    problems: list[Problem] = []
    objects: list[tuple[int, dict[str, Any]]] = []
    first_line: int | None = None
    budget = MAX_CONTAINERS
    # A short line already parsed strictly and found good is read again with the plain C parser: a file of
    # 200,000 identical tiny lines (``{}``) costs one strict parse, not 200,000 (same value, same budget).
    good: dict[bytes, int] = {}
    for lineno, raw in enumerate(data.split(b"\n"), start=1):
        if not raw.strip():
            continue
        if first_line is None:
            first_line = lineno
        if len(problems) >= STOP_AFTER:
            problems.append(stopped(filename, lineno, len(problems)))
            break
        known = good.get(raw)
        if known is not None and known <= budget:
            budget -= known
            objects.append((lineno, json.loads(raw.decode("utf-8"))))
            continue
        if len(raw) > MAX_LINE_BYTES:
            problems.append(Problem(filename, f"line is {len(raw):,} bytes; the limit is {MAX_LINE_BYTES:,}", lineno))
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            problems.append(Problem(filename, f"not valid UTF-8 (byte {exc.start + 1} of the line)", lineno))
            continue
        obj, bad, containers = parse_line(text, max_depth=MAX_DEPTH, max_containers=budget)
        budget -= containers
        if bad is not None:
            where = f" at column {bad.column}" if bad.column is not None else ""
            problems.append(Problem(filename, bad.reason + where, lineno, bad.field))
            continue
        if not isinstance(obj, dict):
            problems.append(Problem(filename, f"expected a JSON object, got {type(obj).__name__}", lineno))
            continue
        if len(raw) <= MEMO_LINE_BYTES and len(good) < MEMO_LINES:
            good[raw] = containers
        objects.append((lineno, obj))
    if not objects or objects[0][0] != first_line:  # the header line itself is unreadable
        whole = single_document(data, filename) if problems else None
        if whole is not None:
            raise whole
        raise InputError(cap_problems(problems, filename), [skipped(
            filename, "the header, the records and the cross-record checks",
            f"line {first_line} (the header) is not a readable JSON object")])
    (header_line, header), records = objects[0], objects[1:]
    if header.get("format") != SUBMISSION_FORMAT:
        problems.insert(0, Problem(filename, f"the first line must be the header with \"format\": "
                                             f"\"{SUBMISSION_FORMAT}\"", header_line, "format"))
        if not isinstance(header.get("benchmark"), str):  # nothing says how to read the records
            raise InputError(cap_problems(problems, filename), [skipped(
                filename, "the records", "without the submission header the benchmark is unknown")])
        # a header that names its benchmark is read on: the wrong format is one problem among all the file's
    if problems and not keep_going:
        raise InputError(cap_problems(problems, filename))
    return Envelope(filename=filename, header=header, header_line=header_line, records=records,
                    problems=tuple(problems))


def validation_problems(exc: ValidationError, filename: str, line: int | None, prefix: str = "") -> list[Problem]:
    """Pydantic errors as Problems with dotted field paths."""
    out = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"])
        field = f"{prefix}.{loc}" if prefix and loc else (prefix or loc or None)
        msg = err["msg"]
        if err["type"] == "extra_forbidden":
            msg = "unknown field"
        elif err["type"] == "missing":
            msg = "required field is missing"
        out.append(Problem(filename, msg, line, field))
    return out


def validate_model(model: type[BaseModel], obj: dict[str, Any], filename: str, line: int | None,
                   problems: list[Problem], prefix: str = "") -> BaseModel | None:
    """Validate one object; on failure append its problems and return None.

    Once ``problems`` holds :data:`STOP_AFTER` problems no more objects are
    validated: the first call past it appends the ``checks`` problem saying from
    which line on records were not checked, and every call returns None at once.
    """
    if len(problems) >= STOP_AFTER:
        if problems[-1].field != CHECKS:
            problems.append(stopped(filename, line or 0, len(problems), "records"))
        return None
    try:
        return model.model_validate(obj)
    except ValidationError as exc:
        problems.extend(validation_problems(exc, filename, line, prefix))
        return None

"""Complete validation of a Re²Math submission: release, split, artifact, instance ids and every trajectory.

Every problem is reported at once, with line and field, so a submitter fixes
the file in one pass; the trajectory itself is checked by :mod:`replay`.
"""

from __future__ import annotations

import difflib

from lemmata.core.errors import InputError, Problem
from lemmata.core.registry import suggest
from lemmata.formats.envelope import Envelope, skipped, validate_model
from lemmata.tracks.headers import check_header
from lemmata.tracks.base import Validated
from lemmata.benchmarks.re2math.replay import replay_problems
from lemmata.benchmarks.re2math.resources import Resources
from lemmata.benchmarks.re2math.scholar.worlds import lists_openings
from lemmata.benchmarks.re2math.submission import (
    BENCHMARK, Budget, Header, Record, budget_of, budget_suffix, parse_submission,
)

#: the canonical window; other windows are ranked as their own tracks (``raw-m1``, ``assisted-m3``, …)
CANONICAL_WINDOW = 5
MAX_LISTED_MISSING = 25



def plural(n: int, one: str, many: str | None = None) -> str:
    """``1 query``, ``3 queries``.

    >>> plural(1, "query", "queries"), plural(3, "query", "queries"), plural(2, "opening")
    ('1 query', '3 queries', '2 openings')
    """
    return f"{n} {one if n == 1 else (many or one + 's')}"

def result_track(track: str, window: int, budget: Budget | None = None) -> str:
    """The leaderboard track of a submission: windows other than the canonical one, and budgets other than the
    paper protocol's, never rank with it.

    >>> result_track("raw", 5), result_track("assisted", 1)
    ('raw', 'assisted-m1')
    >>> result_track("raw", 5, Budget(max_queries=4, max_opens=2))
    'raw-q4o2'
    """
    base = track if window == CANONICAL_WINDOW else f"{track}-m{window}"
    return base + (budget_suffix(budget) if budget is not None else "")


def budget_problems(name: str, line: int, rec: Record, header: Header, needs_opened: bool) -> list[Problem]:
    """Every way a record exceeds the header's declared budget, or leaves out the openings it must list."""
    problems = []
    if len(rec.queries) > header.max_queries:
        problems.append(Problem(name, f"{len(rec.queries)} queries exceed the declared budget max_queries="
                                      f"{header.max_queries} (declare a larger budget in the header to be ranked "
                                      "in its own group)", line, "queries"))
    opened = rec.opened or []
    if len(opened) > header.max_opens:
        problems.append(Problem(name, f"{len(opened)} sources opened exceed the declared budget max_opens="
                                      f"{header.max_opens}", line, "opened"))
    if needs_opened and rec.opened is None:
        problems.append(Problem(name, "list the ids this record opened ([] when none): openings are part of the "
                                      "trajectory on this artifact", line, "opened"))
    if rec.statement is not None and rec.opened is not None and rec.selected_source not in rec.opened:
        problems.append(Problem(name, f"the statement's source {rec.selected_source!r} was not opened by this record",
                                line, "selected_source"))
    return problems


def unknown_release(release_id: str) -> str | None:
    """None for a known Re²Math release, else the message (with the closest known id) to report."""
    from lemmata.benchmarks.re2math.meta import RELEASES

    known = sorted(m.release_id for m in RELEASES if m.name == BENCHMARK)
    return None if release_id in known else suggest("release", release_id, known)


def readable_records(envelope: Envelope) -> list[tuple[int, Record]]:
    """The records that pass the format check on their own (their problems are reported by ``parse_submission``)."""
    out: list[tuple[int, Record]] = []
    seen: list[Problem] = []  # one list, so validation stops after STOP_AFTER problems here as well
    for line, obj in envelope.records:
        rec = validate_model(Record, obj, envelope.filename, line, seen)
        if rec is not None:
            out.append((line, rec))  # type: ignore[arg-type]
    return out


def validate_envelope(envelope: Envelope, sha256: str, resources: Resources) -> Validated:
    """Complete validation of a Re²Math submission; raises one InputError listing every problem.

    Line, header and record problems come together: a header field that is wrong
    does not stop the instance ids from being checked against the release and
    split it names (when those are valid), nor the trajectories from being
    replayed against its artifact (when that is valid); what could not be checked
    is said by a ``checks`` problem.
    """
    name = envelope.filename
    hl = envelope.header_line
    problems: list[Problem] = list(envelope.problems)
    budgeted: Header | None = None  # the budget is checked only against a header that validated
    try:
        header, records = parse_submission(envelope)
        where, tool, budgeted = header, header, header
    except InputError as exc:
        problems += exc.problems
        records = readable_records(envelope)
        where = check_header(envelope, Header, [], selecting=("release", "split")).context
        tool = check_header(envelope, Header, [], selecting=("retrieval_artifact",)).context
    rows: dict | None = None
    if where is not None:
        msg = unknown_release(where.release)
        if msg:
            problems.append(Problem(name, msg, hl, "header.release"))
        else:
            rows = resources.rows(where.release, where.split)
    artifact = None
    if tool is not None:
        available = resources.available_artifacts()
        if tool.retrieval_artifact not in available:
            problems.append(Problem(name, suggest("retrieval artifact", tool.retrieval_artifact, available), hl,
                                    "header.retrieval_artifact"))
        else:
            artifact = resources.artifact(tool.retrieval_artifact)
            if where is not None and artifact.info.release_id != where.release:
                problems.append(Problem(name, f"retrieval artifact {artifact.artifact_id} was built from "
                                              f"{artifact.info.release_id}, not {where.release}", hl,
                                        "header.retrieval_artifact"))
    if rows is None and records:
        problems.append(skipped(name, "the instance ids", "header.release and header.split must be valid and name "
                                                         "a known release first (see the header problems)"))
    if artifact is None and records:
        problems.append(skipped(name, "the trajectories (queries, candidates, selected sources)",
                                "they are replayed against the retrieval artifact the header names, and "
                                "header.retrieval_artifact must be valid and available first"))
    needs_opened = artifact is not None and lists_openings(artifact.artifact_id)
    first_line: dict[str, int] = {}
    searched: dict[tuple[str, int | None], list[str]] = {}
    for line, rec in records:
        iid = rec.instance_id
        if iid in first_line:
            problems.append(Problem(name, f"duplicate instance_id (first on line {first_line[iid]})", line,
                                    "instance_id"))
            continue
        first_line[iid] = line
        if rows is None:
            continue
        row = rows.get(iid)
        if row is None:
            close = difflib.get_close_matches(iid, list(rows), n=1, cutoff=0.8)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            problems.append(Problem(name, f"unknown instance_id {iid!r}: not an instance of {where.release} "
                                          f"{where.split}{hint}", line, "instance_id"))
            continue
        if budgeted is not None:
            problems += budget_problems(name, line, rec, budgeted, needs_opened)
        if artifact is not None:
            problems += replay_problems(name, line, rec, row, artifact, searched)
    # a record that failed its own format check (reported on its line) still names its instance: not "no record"
    named = {str(obj["instance_id"]) for _, obj in envelope.records
             if isinstance(obj, dict) and isinstance(obj.get("instance_id"), str)}
    missing = [iid for iid in rows if iid not in first_line and iid not in named] if rows is not None else []
    if missing:
        shown = ", ".join(missing[:MAX_LISTED_MISSING]) + (f", … ({len(missing) - MAX_LISTED_MISSING} more)"
                                                           if len(missing) > MAX_LISTED_MISSING else "")
        problems.append(Problem(name, f"{len(missing)} instance(s) of {where.split} have no record: {shown}",
                                field="instance_id"))
    if problems:
        raise InputError(problems)
    n_queries = sum(len(r.queries) for _, r in records)
    abstained = sum(r.selected_source is None or r.statement is None for _, r in records)
    return Validated(
        benchmark=BENCHMARK, track=result_track(header.track, header.window, budget_of(header)), model=header.model, header=header,
        records=records, sha256=sha256, filename=name,
        summary=(f"{len(records)} instances of {header.release} {header.split}, {header.track} track, "
                 f"m={header.window}, budget {plural(header.max_queries, 'query', 'queries')} / "
                 f"{plural(header.max_opens, 'opening')}; "
                 f"{n_queries} queries and {sum(len(r.opened or []) for _, r in records)} openings replayed against {artifact.artifact_id}; "
                 f"{abstained} abstentions"),
        needs_oracle=True,
    )

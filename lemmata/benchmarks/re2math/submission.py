"""Re²Math submission format v1: a JSONL file, header line first, then one record per instance.

A record is a *trajectory*, not just an answer: the queries the system sent to
the frozen retrieval artifact with the candidate ids each one returned (in
order), the ids it opened among those candidates, the source it selected (or
null to abstain) and the statement it extracted from that source. The scorer
replays every query and every opening, so a record can only cite candidates
the artifact really returns for it.

**Budget.** The paper protocol — one query, at most one source opened, lists
of 20 — is the default. A system that uses more declares ``max_queries`` /
``max_opens`` in its header and is ranked in its own budget group (its
leaderboard track names the budget, see :func:`budget_suffix`); a record that
exceeds the declared budget is refused. The JSON
Schema in ``submissions/schema/re2math-submission.schema.json`` is exported
from these models (``lemmata schemas``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, StringConstraints, field_validator, model_validator

from lemmata.core.errors import InputError, Problem
from lemmata.core.models import Exact
from lemmata.benchmarks.re2math.render import CiteKeys, Scope
from lemmata.formats.results import ModelInfo, omit_when_none
from lemmata.formats.runner_log import RunnerInfo
from lemmata.formats.envelope import Envelope, no_records, validate_model
from lemmata.formats.schema import dumps, line_schema

BENCHMARK = "re2math"
SPLITS: tuple[str, ...] = ("eval200/test", "pool/dev")
MAX_QUERIES = 16
MAX_OPENS = 16
#: the paper protocol's budget: one query, at most one source opened
PAPER_MAX_QUERIES = 1
PAPER_MAX_OPENS = 1
MAX_CANDIDATES = 20
MAX_QUERY_CHARS = 2_000
MAX_STATEMENT_CHARS = 20_000
MAX_ANCHOR_CHARS = 4_000
MAX_ID_CHARS = 300
SourceId = Annotated[str, StringConstraints(min_length=1, max_length=MAX_ID_CHARS, pattern=r"\S")]
SCHEMA_ID = "https://huggingface.co/spaces/lemmata/leaderboard/schema/re2math-submission.schema.json"


def _no_blank(value: str | None, what: str) -> str | None:
    if value is not None and not value.strip():
        raise ValueError(f"{what} is blank; use null instead")
    return value


class Flags(Exact):
    """What the submitter declares about how the system was built and run (shown next to the score)."""

    tuned_on_pool: bool = Field(description="prompts, hyper-parameters or weights were tuned on pool/train or pool/dev")
    used_external_tools: bool = Field(
        description="anything beyond the declared retrieval artifact was consulted (web search, other corpora, "
                    "code execution)")


class Header(Exact):
    """Line 1 of the file."""

    format: Literal["lemmata-submission/1"] = Field(description="envelope format; always 'lemmata-submission/1'")
    benchmark: Literal["re2math"]
    release: str = Field(pattern=r"^re2math-\d+\.\d+\.\d+$", description="dataset release id, e.g. 're2math-1.0.0'")
    split: Literal["eval200/test", "pool/dev"] = Field(description="'<config>/<split>' the records answer")
    track: Literal["raw", "assisted"] = Field(description="raw: context only; assisted: context plus the anchor hint")
    window: Literal[1, 3, 5] = Field(description="local proof blocks shown to the system (m)")
    model: ModelInfo
    retrieval_artifact: str = Field(min_length=1, max_length=200, pattern=r"^[A-Za-z0-9][A-Za-z0-9._:@/-]*$",
                                    description="id of the frozen retrieval artifact every query was sent to")
    materialisation_artifact: str | None = Field(
        default=None, min_length=1, max_length=200, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$",
        description="live protocol only: id of the frozen materialisation store holding the fixed text of every "
                    "opened source (with a SerpAPI query cache as retrieval_artifact); see lemmata.benchmarks."
                    "re2math.agent.live")
    oracle_run: bool = Field(default=False, description="records carry 'oracle_statement': the statement extracted "
                             "when the cited source's frozen text was given directly (for Oracle ToolAcc)")
    condition: Literal["retrieval", "oracle-source"] = Field(
        default="retrieval", description="retrieval: the paper's protocol (query, search, open, extract); "
        "oracle-source: the system was handed the cited source's opened text and only extracted "
        "(oracle_statement; no query sent, nothing opened): the paper's oracle condition, headlined by Oracle "
        "ToolAcc and ranked in its own group")
    scope: Scope = Field(
        default="global_local", description="what the system read to plan: setup, target theorem and the local "
        "blocks (global_local, the paper's default) or the local blocks alone (local_only, ranked apart)")
    cite_keys: CiteKeys = Field(
        default="unmasked", description="whether the system read the instance's own citation key: masked (each "
        "input field's \\cite{KEY} of the cited work became \\cite{?}; what `lemmata run re2math` and the baseline "
        "agent write on the offline world) or unmasked (the input as stored; a file without the field reads so). "
        "The key often names the answer (author and year), so the two are ranked apart")
    flags: Flags
    max_queries: int = Field(default=PAPER_MAX_QUERIES, ge=1, le=MAX_QUERIES,
                             description="queries a record may send (the paper protocol: 1); a larger budget is "
                                         "ranked in its own group")
    max_opens: int = Field(default=PAPER_MAX_OPENS, ge=0, le=MAX_OPENS,
                           description="sources a record may open (the paper protocol: 1); a larger budget is "
                                       "ranked in its own group")
    runner: RunnerInfo | None = Field(default=None, description="set by `lemmata run re2math` only: the run's "
                                      "request log hashes to runner.log_sha256; upload the log beside the file and the "
                                      "scorer checks every record against it and the release")
    notes: str = Field(default="", max_length=4000, description="free text shown with the entry")

    _omit_unset = omit_when_none("runner")  # headers written before the field dump as they did

    @model_validator(mode="after")
    def _oracle_condition(self) -> "Header":
        if self.condition == "oracle-source" and not self.oracle_run:
            raise ValueError("condition 'oracle-source' needs oracle_run: true (its statements are oracle_statement)")
        return self

    @field_validator("window", mode="before")
    @classmethod
    def _window_is_int(cls, v: Any) -> Any:
        # a JSON bool is not a window size (Literal[1, 3, 5] would accept true as 1)
        if isinstance(v, bool):
            raise ValueError("window must be an integer (1, 3 or 5), not a boolean")
        return v


class Query(Exact):
    """One query sent to the artifact and the candidate ids it returned, best first."""

    text: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    candidates: list[SourceId] = Field(max_length=MAX_CANDIDATES,
                                  description="source ids exactly as the artifact returned them, in order")

    @field_validator("text")
    @classmethod
    def _text(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("query text is blank")
        return v


class Record(Exact):
    """One line per instance of the split."""

    instance_id: str = Field(min_length=1, max_length=MAX_ID_CHARS)
    anchor: str | None = Field(default=None, max_length=MAX_ANCHOR_CHARS,
                               description="the system's own planning anchor (raw track: scored as AnchorAcc)")
    queries: list[Query] = Field(max_length=MAX_QUERIES)
    opened: list[SourceId] | None = Field(
        default=None, max_length=MAX_OPENS,
        description="ids the system opened, in order, each among this record's candidates; required on "
                    "the 2.x worlds (where a statement's source must be among them)")
    selected_source: str | None = Field(max_length=MAX_ID_CHARS,
                                        description="a candidate id returned by one of the queries; null abstains")
    statement: str | None = Field(max_length=MAX_STATEMENT_CHARS,
                                  description="theorem-like statement extracted from the selected source; null abstains")
    oracle_statement: str | None = Field(default=None, max_length=MAX_STATEMENT_CHARS,
                                         description="only with header oracle_run: statement extracted from the cited "
                                                     "source given directly; null abstains")

    @field_validator("anchor", "statement", "oracle_statement")
    @classmethod
    def _not_blank(cls, v: str | None, info) -> str | None:
        return _no_blank(v, info.field_name)

    @field_validator("selected_source")
    @classmethod
    def _source(cls, v: str | None) -> str | None:
        return _no_blank(v, "selected_source")

    @model_validator(mode="after")
    def _pairing(self) -> "Record":
        if self.statement is not None and self.selected_source is None:
            raise ValueError("a statement needs the source it was taken from (selected_source is null)")
        return self

    def candidate_ids(self) -> list[str]:
        """Every candidate of every query, first occurrence first."""
        seen: dict[str, None] = {}
        for q in self.queries:
            for cid in q.candidates:
                seen.setdefault(cid, None)
        return list(seen)


class Budget(Exact):
    """The declared budget of a submission: part of its leaderboard track, so budgets never rank together."""

    max_queries: int = Field(ge=1, le=MAX_QUERIES)
    max_opens: int = Field(ge=0, le=MAX_OPENS)

    @property
    def is_paper(self) -> bool:
        return self.max_queries == PAPER_MAX_QUERIES and self.max_opens == PAPER_MAX_OPENS


def budget_of(header: Header) -> Budget:
    return Budget(max_queries=header.max_queries, max_opens=header.max_opens)


def budget_suffix(budget: Budget) -> str:
    """The track suffix of a budget: none for the paper protocol, else ``-q<queries>o<opens>``.

    >>> budget_suffix(Budget(max_queries=1, max_opens=1)), budget_suffix(Budget(max_queries=3, max_opens=5))
    ('', '-q3o5')
    """
    return "" if budget.is_paper else f"-q{budget.max_queries}o{budget.max_opens}"


def parse_submission(envelope: Envelope) -> tuple[Header, list[tuple[int, Record]]]:
    """Header and records, with every format problem (line, field) in one InputError."""
    problems: list[Problem] = []
    name = envelope.filename
    header = validate_model(Header, envelope.header, name, envelope.header_line, problems, prefix="header")
    records: list[tuple[int, Record]] = []
    for line, obj in envelope.records:
        rec = validate_model(Record, obj, name, line, problems)
        if rec is None:
            continue
        if header is not None:
            if header.oracle_run and "oracle_statement" not in rec.model_fields_set:
                problems.append(Problem(name, "header declares oracle_run; give oracle_statement (null abstains)",
                                        line, "oracle_statement"))
            if not header.oracle_run and "oracle_statement" in rec.model_fields_set:
                problems.append(Problem(name, "oracle_statement given but the header does not declare oracle_run",
                                        line, "oracle_statement"))
            if header.condition == "oracle-source" and (rec.queries or rec.opened or rec.selected_source):
                problems.append(Problem(name, "under the oracle-source condition the cited source is given: a "
                                              "record sends no query, opens nothing and selects nothing", line,
                                        "queries" if rec.queries else "opened" if rec.opened else "selected_source"))
        records.append((line, rec))  # type: ignore[arg-type]
    problems += no_records(envelope)
    if problems:
        raise InputError(problems)
    return header, records  # type: ignore[return-value]


def json_schema() -> dict[str, Any]:
    """JSON Schema (2020-12) of one line: the header or a record."""
    return line_schema(
        Header, Record, filename="re2math-submission.schema.json",
        title="Re²Math submission, format v1 (one JSONL line)",
        description="A Re²Math submission is a UTF-8 JSONL file: line 1 is a Header, every further line a Record "
                    "(one per instance of the split). See submissions/re2math/README.md.",
    )


def schema_text() -> str:
    return dumps(json_schema())

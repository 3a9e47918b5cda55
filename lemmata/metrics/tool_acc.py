"""Re²Math scoring: ToolAcc and the paper's companion metrics from per-instance verdicts.

Input is one :class:`InstanceVerdicts` record per gap: the judge's Ground and
Suff verdicts on the returned statement, the planning (anchor) verdict, where
the cited source ranked among the retrieved candidates, and the oracle run's
verdicts when the cited source could be materialised.

Verdicts take seven values. Only ``yes`` is positive; ``no``, ``uncertain``,
``abstain``, ``not_evaluable`` and ``ungradable`` (a Ground that what is known of the cited work
cannot decide: the known-content grounding) are final negatives; ``pending`` (the oracle
has not answered yet) is negative for every rate *and* counted in that metric's
``pending`` field. A conjunction (ToolAcc = Ground ∧ Suff) is pending only when
no conjunct is a final negative and at least one is pending: ``no ∧ pending`` is
settled as ``no``.

Definitions (rates over all instances unless a population is named):

* **ToolAcc** — Ground ∧ Suff.
* **GroundRate** — Ground.
* **AnchorAcc** — anchor verdict, over instances that have an anchor.
* **QueryAcc** — a diagnostic: whether the recorded planning (first query and planning anchor) targets the gap's
  proof obligation (judged, rubric ``query.v1``), over instances with a query verdict; absent when none has one.
* **CiteRecall@N** — the cited source ranks within the top N candidates.
* **OracleCoverage** — the instance is oracle-evaluable (cited source materialised).
* **Oracle ToolAcc** — oracle-run Ground ∧ Suff, over oracle-evaluable instances.
* **DeltaToOracle** — Oracle ToolAcc − ToolAcc (rates).
* **AltSourceToolAcc** — success whose selected source is *not* the cited one (pending
  while it could still become one).
* **AltSourceSuccessRate** — share of alternative sources among successes.
* **Failure decomposition** — each instance falls in exactly one of *no grounded
  support* (Ground not ``yes``), *grounded but insufficient* (Ground ``yes``, Suff
  not ``yes``) and *success*; hence grounded-but-insufficient = GroundRate − ToolAcc.

Offline companions (:func:`offline_rates`; see the metric card for when the
headline is *OfflineToolAcc* instead of ToolAcc):

* **SourceAcc** — the selected source is the cited source.
* **SuffRate** — Suff is ``yes`` (Suff asked of every record with a statement).
* **AbstentionRate** — no source or no statement (Ground ``abstain``).

Known-content companions (:func:`known_content_rates`, beside *GroundedOfflineToolAcc*):

* **KnownContentUngradable** — Ground is ``ungradable``.
* **GroundedOfflineToolAccUpper** — Ground ``yes`` or ``ungradable``, and Suff ``yes``: the headline had every
  ungradable grounding held (the headline itself counts none of them).

Every rate's interval resamples citing papers (``paper_key``) within that
metric's own population, seeded, as the paper's evaluation code does.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Literal

import numpy as np
from pydantic import Field, PositiveInt, ValidationError, model_validator

from lemmata.core.errors import InputError, Problem
from lemmata.core.models import Frozen
from lemmata.metrics.intervals import DEFAULT_RESAMPLES, DEFAULT_SEED
from lemmata.metrics.rates import MetricResult, summarize_rates

#: the verdicts of a formal-correctness item and of what a submitter reports: ``ungradable`` is never among them
ItemVerdict = Literal["yes", "no", "uncertain", "abstain", "not_evaluable", "pending"]
Verdict = Literal["yes", "no", "uncertain", "abstain", "not_evaluable", "ungradable", "pending"]
SourceMatch = Literal["cited", "alternative", "none", "pending"]

VERDICTS: tuple[str, ...] = ("yes", "no", "uncertain", "abstain", "not_evaluable", "ungradable", "pending")
ITEM_VERDICTS: tuple[str, ...] = tuple(v for v in VERDICTS if v != "ungradable")
FINAL_NEGATIVES = frozenset({"no", "uncertain", "abstain", "not_evaluable", "ungradable"})
DEFAULT_CITE_RECALL_N = 20
_MAX_LISTED = 20


class InstanceVerdicts(Frozen):
    """Everything scored about one Re²Math gap for one system."""

    instance_id: str = Field(min_length=1)
    paper_key: str = Field(min_length=1, description="version-free citing-paper id; the bootstrap cluster")
    domain: str = Field(min_length=1)
    ground: Verdict = Field(description="the returned statement is stated in the selected source")
    suff: Verdict = Field(description="the returned statement closes the gap")
    anchor_match: Verdict | None = Field(
        default=None, description="planning verdict against the anchor hint; None when the instance has no anchor")
    query_match: Verdict | None = Field(
        default=None, description="QueryAcc's verdict: the planning targets the gap's proof obligation; None when "
                                  "not judged for this instance")
    cite_rank: PositiveInt | Literal["pending"] | None = Field(
        description="1-based rank of the first candidate that is the cited source; None when no candidate is; "
                    "'pending' while that match awaits an oracle")
    selected_source: SourceMatch = Field(
        description="whether the source the statement was taken from is the cited source, another one, or none")
    oracle_evaluable: bool = Field(description="the cited source was materialised, so the oracle run applies")
    oracle_ground: Verdict | None = Field(default=None, description="oracle-run Ground; required iff oracle_evaluable")
    oracle_suff: Verdict | None = Field(default=None, description="oracle-run Suff; required iff oracle_evaluable")

    @model_validator(mode="after")
    def _consistent(self) -> "InstanceVerdicts":
        if self.oracle_evaluable and (self.oracle_ground is None or self.oracle_suff is None):
            raise ValueError("an oracle-evaluable instance needs oracle_ground and oracle_suff "
                             "(use 'pending' until the oracle run has answered)")
        if not self.oracle_evaluable and (self.oracle_ground is not None or self.oracle_suff is not None):
            raise ValueError("oracle verdicts given for an instance that is not oracle-evaluable")
        if self.ground == "yes" and self.selected_source == "none":
            raise ValueError("ground is 'yes' but selected_source is 'none': a grounded statement has a source")
        return self


class BucketCount(Frozen):
    count: int = Field(ge=0)
    rate: float = Field(ge=0.0, le=1.0)
    pending: int = Field(ge=0, description="instances in this bucket only because a verdict is pending")


class FailureDecomposition(Frozen):
    """Where each instance's attempt stopped; the three buckets partition the instances."""

    total: int = Field(ge=1)
    no_grounded_support: BucketCount
    grounded_but_insufficient: BucketCount
    success: BucketCount


class ToolAccReport(Frozen):
    """All Re²Math metrics of one system on one instance set (the paper's main tables)."""

    n_instances: int = Field(ge=1)
    cite_recall_n: int = Field(ge=1)
    n_resamples: int = Field(ge=1)
    seed: int = Field(ge=0)
    tool_acc: MetricResult
    ground_rate: MetricResult
    anchor_acc: MetricResult | None = Field(description="None when no instance has an anchor")
    query_acc: MetricResult | None = Field(default=None, description="None when no instance has a query verdict")
    cite_recall: MetricResult
    oracle_coverage: MetricResult
    oracle_tool_acc: MetricResult | None = Field(description="None when no instance is oracle-evaluable")
    delta_to_oracle: float | None
    alt_source_tool_acc: MetricResult
    alt_source_success_rate: MetricResult | None = Field(description="None when there is no success")
    failure_decomposition: FailureDecomposition

    @property
    def pending(self) -> int:
        """Instances with any pending verdict entering ToolAcc or Oracle ToolAcc."""
        return self.tool_acc.pending + (self.oracle_tool_acc.pending if self.oracle_tool_acc else 0)

    def metrics(self) -> dict[str, MetricResult]:
        """The rates under the paper's names, in the paper's order (absent ones left out)."""
        named = {
            "ToolAcc": self.tool_acc,
            "GroundRate": self.ground_rate,
            "AnchorAcc": self.anchor_acc,
            "QueryAcc": self.query_acc,
            f"CiteRecall@{self.cite_recall_n}": self.cite_recall,
            "OracleCoverage": self.oracle_coverage,
            "Oracle ToolAcc": self.oracle_tool_acc,
            "AltSourceToolAcc": self.alt_source_tool_acc,
            "AltSourceSuccessRate": self.alt_source_success_rate,
        }
        return {k: v for k, v in named.items() if v is not None}


def _coerce(verdicts: Iterable[InstanceVerdicts | Mapping[str, Any]]) -> list[InstanceVerdicts]:
    """Validate every record, reporting all bad ones (by position and id) and duplicate ids at once."""
    records: list[InstanceVerdicts] = []
    problems: list[Problem] = []
    first_seen: dict[str, int] = {}
    for i, item in enumerate(verdicts):
        if isinstance(item, InstanceVerdicts):
            record = item
        else:
            try:
                record = InstanceVerdicts.model_validate(item)
            except ValidationError as exc:
                ident = item.get("instance_id") if isinstance(item, Mapping) else None
                for err in exc.errors():
                    field = ".".join(str(p) for p in err["loc"]) or None
                    problems.append(Problem(f"verdicts[{i}]" + (f" ({ident})" if ident else ""),
                                            err["msg"], field=field))
                continue
        if record.instance_id in first_seen:
            problems.append(Problem(f"verdicts[{i}]", f"duplicate instance_id {record.instance_id!r} "
                                    f"(first at verdicts[{first_seen[record.instance_id]}])", field="instance_id"))
        else:
            first_seen[record.instance_id] = i
        records.append(record)
    if problems:
        shown = problems[:_MAX_LISTED]
        if len(problems) > _MAX_LISTED:
            shown.append(Problem("verdicts", f"... and {len(problems) - _MAX_LISTED} more problems"))
        raise InputError(shown)
    if not records:
        raise ValueError("no verdicts: ToolAcc over an empty instance set is undefined")
    return records


def conjunction(a: str, b: str) -> tuple[bool, bool]:
    """(positive, pending) of a ∧ b under the module's three-valued reading.

    >>> conjunction("yes", "yes"), conjunction("yes", "no"), conjunction("pending", "yes")
    ((True, False), (False, False), (False, True))
    """
    if a == "yes" and b == "yes":
        return True, False
    if a in FINAL_NEGATIVES or b in FINAL_NEGATIVES:
        return False, False
    return False, True


def failure_decomposition(verdicts: Iterable[InstanceVerdicts | Mapping[str, Any]]) -> FailureDecomposition:
    """Partition instances into no grounded support / grounded but insufficient / success.

    >>> rows = [dict(instance_id=str(i), paper_key="p", domain="d", ground=g, suff=s, cite_rank=None,
    ...              selected_source="cited", oracle_evaluable=False) for i, (g, s) in
    ...         enumerate([("yes", "yes"), ("yes", "no"), ("yes", "pending"), ("no", "no"), ("pending", "yes")])]
    >>> fd = failure_decomposition(rows)
    >>> fd.success.count, fd.grounded_but_insufficient.count, fd.grounded_but_insufficient.pending
    (1, 2, 1)
    >>> fd.no_grounded_support.count, fd.no_grounded_support.pending
    (2, 1)
    """
    return _decompose(_coerce(verdicts))


def _decompose(records: list[InstanceVerdicts]) -> FailureDecomposition:
    n = len(records)
    success = [r for r in records if r.ground == "yes" and r.suff == "yes"]
    insufficient = [r for r in records if r.ground == "yes" and r.suff != "yes"]
    ungrounded = [r for r in records if r.ground != "yes"]

    def bucket(rows: list[InstanceVerdicts], pending: int) -> BucketCount:
        return BucketCount(count=len(rows), rate=len(rows) / n, pending=pending)

    return FailureDecomposition(
        total=n,
        no_grounded_support=bucket(ungrounded, sum(r.ground == "pending" for r in ungrounded)),
        grounded_but_insufficient=bucket(insufficient, sum(r.suff == "pending" for r in insufficient)),
        success=bucket(success, 0),
    )


def tool_acc_report(
    verdicts: Iterable[InstanceVerdicts | Mapping[str, Any]],
    *,
    cite_recall_n: int = DEFAULT_CITE_RECALL_N,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> ToolAccReport:
    """Every Re²Math metric of one system, with Wilson and paper-cluster intervals.

    >>> rows = [
    ...     dict(instance_id="a", paper_key="p1", domain="algebra", ground="yes", suff="yes", anchor_match="yes",
    ...          query_match="yes", cite_rank=3, selected_source="cited", oracle_evaluable=True, oracle_ground="yes", oracle_suff="yes"),
    ...     dict(instance_id="b", paper_key="p1", domain="algebra", ground="yes", suff="no", anchor_match="no",
    ...          query_match="pending", cite_rank=None, selected_source="alternative", oracle_evaluable=False),
    ...     dict(instance_id="c", paper_key="p2", domain="analysis", ground="yes", suff="yes", anchor_match="no",
    ...          query_match="no", cite_rank=25, selected_source="alternative", oracle_evaluable=True, oracle_ground="pending",
    ...          oracle_suff="yes"),
    ...     dict(instance_id="d", paper_key="p3", domain="analysis", ground="uncertain", suff="yes",
    ...          cite_rank=1, selected_source="cited", oracle_evaluable=False),
    ... ]
    >>> r = tool_acc_report(rows, n_resamples=200)
    >>> {k: f"{m.count}/{m.total}" for k, m in r.metrics().items()}  # doctest: +NORMALIZE_WHITESPACE
    {'ToolAcc': '2/4', 'GroundRate': '3/4', 'AnchorAcc': '1/3', 'QueryAcc': '1/3', 'CiteRecall@20': '2/4',
     'OracleCoverage': '2/4', 'Oracle ToolAcc': '1/2', 'AltSourceToolAcc': '1/4', 'AltSourceSuccessRate': '1/2'}
    >>> r.oracle_tool_acc.pending, r.delta_to_oracle, r.query_acc.pending
    (1, 0.0, 1)
    >>> r.failure_decomposition.grounded_but_insufficient.rate == r.ground_rate.rate - r.tool_acc.rate
    True
    >>> tool_acc_report(rows, cite_recall_n=0)
    Traceback (most recent call last):
    ...
    ValueError: cite_recall_n must be a positive integer (the N of CiteRecall@N), got 0
    """
    if isinstance(cite_recall_n, bool) or not isinstance(cite_recall_n, int) or cite_recall_n < 1:
        raise ValueError(f"cite_recall_n must be a positive integer (the N of CiteRecall@N), got {cite_recall_n!r}")
    records = _coerce(verdicts)
    papers = [r.paper_key for r in records]
    domains = [r.domain for r in records]
    common = dict(n_resamples=n_resamples, seed=seed)

    tool = [conjunction(r.ground, r.suff) for r in records]
    success = np.array([p for p, _ in tool], dtype=bool)
    tool_pending = np.array([w for _, w in tool], dtype=bool)
    ground = np.array([r.ground == "yes" for r in records])
    ground_pending = np.array([r.ground == "pending" for r in records])
    cite = np.array([isinstance(r.cite_rank, int) and r.cite_rank <= cite_recall_n for r in records])
    cite_pending = np.array([r.cite_rank == "pending" for r in records])
    evaluable = np.array([r.oracle_evaluable for r in records])
    alternative = np.array([r.selected_source == "alternative" for r in records])
    source_pending = np.array([r.selected_source == "pending" for r in records])
    alt_success = success & alternative
    alt_pending = (tool_pending & (alternative | source_pending)) | (success & source_pending)

    names = ["ToolAcc", "GroundRate", f"CiteRecall@{cite_recall_n}", "OracleCoverage", "AltSourceToolAcc"]
    positive = np.stack([success, ground, cite, evaluable, alt_success], axis=1)
    pending = np.stack([tool_pending, ground_pending, cite_pending, np.zeros_like(evaluable), alt_pending], axis=1)
    tool_acc, ground_rate, cite_recall, coverage, alt_tool = summarize_rates(
        names, positive, pending=pending, papers=papers, domains=domains, **common)

    def subset(name: str, mask: np.ndarray, hit: np.ndarray, wait: np.ndarray) -> MetricResult | None:
        if not mask.any():
            return None
        idx = np.flatnonzero(mask)
        return summarize_rates([name], hit[idx], pending=wait[idx], papers=[papers[i] for i in idx],
                               domains=[domains[i] for i in idx], **common)[0]

    anchored = np.array([r.anchor_match is not None for r in records])
    anchor_acc = subset("AnchorAcc", anchored, np.array([r.anchor_match == "yes" for r in records]),
                        np.array([r.anchor_match == "pending" for r in records]))
    query_acc = subset("QueryAcc", np.array([r.query_match is not None for r in records]),
                       np.array([r.query_match == "yes" for r in records]),
                       np.array([r.query_match == "pending" for r in records]))
    oracle = [conjunction(r.oracle_ground, r.oracle_suff) if r.oracle_evaluable else (False, False) for r in records]
    oracle_tool = subset("Oracle ToolAcc", evaluable, np.array([p for p, _ in oracle], dtype=bool),
                         np.array([w for _, w in oracle], dtype=bool))
    alt_share = subset("AltSourceSuccessRate", success, alternative, source_pending)

    return ToolAccReport(
        n_instances=len(records), cite_recall_n=cite_recall_n, n_resamples=n_resamples, seed=seed,
        tool_acc=tool_acc, ground_rate=ground_rate, anchor_acc=anchor_acc, query_acc=query_acc,
        cite_recall=cite_recall,
        oracle_coverage=coverage, oracle_tool_acc=oracle_tool,
        delta_to_oracle=None if oracle_tool is None else oracle_tool.rate - tool_acc.rate,
        alt_source_tool_acc=alt_tool, alt_source_success_rate=alt_share,
        failure_decomposition=_decompose(records),
    )


def offline_rates(
    verdicts: Iterable[InstanceVerdicts | Mapping[str, Any]],
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> dict[str, MetricResult]:
    """SourceAcc, SuffRate and AbstentionRate, reported beside OfflineToolAcc, with the same intervals.

    >>> rows = [dict(instance_id=str(i), paper_key=f"p{i}", domain="d", ground=g, suff=s, cite_rank=None,
    ...              selected_source=m, oracle_evaluable=False) for i, (g, s, m) in
    ...         enumerate([("yes", "yes", "cited"), ("no", "yes", "alternative"), ("abstain", "abstain", "none"),
    ...                    ("yes", "pending", "cited")])]
    >>> {k: (m.count, m.pending) for k, m in offline_rates(rows, n_resamples=50).items()}
    {'SourceAcc': (2, 0), 'SuffRate': (2, 1), 'AbstentionRate': (1, 0)}
    """
    records = _coerce(verdicts)
    source = np.array([r.selected_source == "cited" for r in records])
    suff = np.array([r.suff == "yes" for r in records])
    abstain = np.array([r.ground == "abstain" for r in records])
    positive = np.stack([source, suff, abstain], axis=1)
    pending = np.stack([np.array([r.selected_source == "pending" for r in records]),
                        np.array([r.suff == "pending" for r in records]), np.zeros_like(abstain)], axis=1)
    return _named_rates(["SourceAcc", "SuffRate", "AbstentionRate"], positive, pending, records,
                        n_resamples=n_resamples, seed=seed)


def _named_rates(names: list[str], positive: np.ndarray, pending: np.ndarray, records: list[InstanceVerdicts], *,
                 n_resamples: int, seed: int) -> dict[str, MetricResult]:
    """Rates of ``names`` (items x metrics flags) over ``records``, resampling their citing papers, by name."""
    out = summarize_rates(names, positive, pending=pending, papers=[r.paper_key for r in records],
                          domains=[r.domain for r in records], n_resamples=n_resamples, seed=seed)
    return dict(zip(names, out))


def known_content_rates(
    verdicts: Iterable[InstanceVerdicts | Mapping[str, Any]],
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> dict[str, MetricResult]:
    """KnownContentUngradable and GroundedOfflineToolAccUpper, reported beside GroundedOfflineToolAcc: how many
    groundings the known content could not decide, and the headline had every one of them held.

    >>> rows = [dict(instance_id=str(i), paper_key=f"p{i}", domain="d", ground=g, suff=s, cite_rank=None,
    ...              selected_source="cited", oracle_evaluable=False) for i, (g, s) in
    ...         enumerate([("yes", "yes"), ("ungradable", "yes"), ("ungradable", "no"), ("no", "yes"),
    ...                    ("ungradable", "pending")])]
    >>> {k: (m.count, m.pending, m.total) for k, m in known_content_rates(rows, n_resamples=50).items()}
    {'KnownContentUngradable': (3, 0, 5), 'GroundedOfflineToolAccUpper': (2, 1, 5)}
    >>> tool_acc_report(rows, n_resamples=50).tool_acc.count  # the headline counts no ungradable grounding
    1
    """
    records = _coerce(verdicts)
    ungradable = np.array([r.ground == "ungradable" for r in records])
    upper = [conjunction("yes" if r.ground == "ungradable" else r.ground, r.suff) for r in records]
    positive = np.stack([ungradable, np.array([hit for hit, _ in upper], dtype=bool)], axis=1)
    pending = np.stack([np.zeros_like(ungradable), np.array([wait for _, wait in upper], dtype=bool)], axis=1)
    return _named_rates(["KnownContentUngradable", "GroundedOfflineToolAccUpper"], positive, pending, records,
                        n_resamples=n_resamples, seed=seed)

"""Re²Math metrics from per-instance verdicts: definitions, pending handling and bad input."""

from __future__ import annotations

import pytest

from lemmata.core.errors import InputError
from lemmata.metrics.intervals import cluster_bootstrap_interval, wilson_interval
from lemmata.metrics.tool_acc import InstanceVerdicts, failure_decomposition, tool_acc_report


def row(i, **over):
    base = dict(instance_id=f"g{i}", paper_key=f"p{i // 2}", domain="alg" if i % 2 else "ana", ground="no",
                suff="no", anchor_match=None, cite_rank=None, selected_source="none", oracle_evaluable=False)
    base.update(over)
    return base


def test_tool_acc_is_ground_and_suff():
    rows = [row(0, ground="yes", suff="yes", selected_source="cited"),
            row(1, ground="yes", suff="no", selected_source="cited"),
            row(2, ground="no", suff="yes"),
            row(3, ground="uncertain", suff="yes"),
            row(4, ground="yes", suff="abstain", selected_source="alternative")]
    r = tool_acc_report(rows, n_resamples=100)
    assert (r.tool_acc.count, r.tool_acc.total) == (1, 5)
    assert (r.ground_rate.count, r.ground_rate.total) == (3, 5)
    assert r.tool_acc.wilson95 == wilson_interval(1, 5)
    fd = r.failure_decomposition
    assert (fd.no_grounded_support.count, fd.grounded_but_insufficient.count, fd.success.count) == (2, 2, 1)


@pytest.mark.parametrize("ground, suff, positive, pending", [
    ("yes", "yes", True, False),
    ("yes", "pending", False, True),
    ("pending", "pending", False, True),
    ("no", "pending", False, False),
    ("pending", "uncertain", False, False),
    ("abstain", "pending", False, False),
    ("not_evaluable", "yes", False, False),
])
def test_pending_conjunction(ground, suff, positive, pending):
    src = "cited" if ground == "yes" else "none"
    r = tool_acc_report([row(0, ground=ground, suff=suff, selected_source=src)], n_resamples=10)
    assert (r.tool_acc.count == 1, r.tool_acc.pending == 1) == (positive, pending)


def test_pending_counted_in_every_metric_it_touches():
    rows = [row(0, ground="pending", suff="yes", anchor_match="pending", cite_rank="pending", oracle_evaluable=True,
                oracle_ground="pending", oracle_suff="yes"),
            row(1, ground="yes", suff="yes", anchor_match="yes", cite_rank=2, selected_source="pending",
                oracle_evaluable=True, oracle_ground="yes", oracle_suff="yes"),
            row(2, ground="yes", suff="yes", anchor_match="no", cite_rank=21, selected_source="alternative")]
    r = tool_acc_report(rows, n_resamples=50)
    assert (r.tool_acc.count, r.tool_acc.pending) == (2, 1)
    assert (r.ground_rate.count, r.ground_rate.pending) == (2, 1)
    assert (r.anchor_acc.count, r.anchor_acc.pending) == (1, 1)
    assert (r.cite_recall.count, r.cite_recall.pending) == (1, 1)
    assert (r.oracle_tool_acc.count, r.oracle_tool_acc.total, r.oracle_tool_acc.pending) == (1, 2, 1)
    assert (r.alt_source_tool_acc.count, r.alt_source_tool_acc.pending) == (1, 1)  # row 1: its source match is pending
    assert (r.alt_source_success_rate.count, r.alt_source_success_rate.total,
            r.alt_source_success_rate.pending) == (1, 2, 1)
    assert r.failure_decomposition.no_grounded_support.pending == 1
    assert r.pending == 2
    assert r.tool_acc.per_domain["ana"].pending == 1


@pytest.mark.parametrize("ground, suff, source, positive, pending", [
    ("yes", "yes", "alternative", True, False),
    ("yes", "yes", "cited", False, False),
    ("yes", "yes", "pending", False, True),
    ("yes", "pending", "alternative", False, True),
    ("yes", "pending", "cited", False, False),  # cannot become an alternative-source success
    ("yes", "no", "alternative", False, False),
])
def test_alt_source_pending(ground, suff, source, positive, pending):
    r = tool_acc_report([row(0, ground=ground, suff=suff, selected_source=source)], n_resamples=10)
    assert (r.alt_source_tool_acc.count == 1, r.alt_source_tool_acc.pending == 1) == (positive, pending)


def test_populations_of_conditional_metrics():
    rows = [row(i, ground="yes", suff="yes" if i < 3 else "no", selected_source="alternative" if i == 0 else "cited",
                anchor_match="yes" if i in (1, 2) else ("no" if i == 3 else None),
                cite_rank=i + 1, oracle_evaluable=i >= 4, oracle_ground="yes" if i >= 4 else None,
                oracle_suff=("yes" if i == 4 else "no") if i >= 4 else None) for i in range(8)]
    r = tool_acc_report(rows, cite_recall_n=5, n_resamples=50)
    m = {k: (v.count, v.total) for k, v in r.metrics().items()}
    assert m == {"ToolAcc": (3, 8), "GroundRate": (8, 8), "AnchorAcc": (2, 3), "CiteRecall@5": (5, 8),
                 "OracleCoverage": (4, 8), "Oracle ToolAcc": (1, 4), "AltSourceToolAcc": (1, 8),
                 "AltSourceSuccessRate": (1, 3)}
    assert r.delta_to_oracle == pytest.approx(1 / 4 - 3 / 8)
    assert r.failure_decomposition.grounded_but_insufficient.rate == pytest.approx(
        r.ground_rate.rate - r.tool_acc.rate, abs=1e-15)


def test_absent_populations_give_none():
    r = tool_acc_report([row(0), row(1)], n_resamples=10)
    assert r.anchor_acc is None and r.oracle_tool_acc is None and r.alt_source_success_rate is None
    assert r.delta_to_oracle is None
    assert set(r.metrics()) == {"ToolAcc", "GroundRate", "CiteRecall@20", "OracleCoverage", "AltSourceToolAcc"}


def test_bootstrap_resamples_citing_papers_and_is_seeded():
    rows = [row(i, ground="yes", suff="yes" if i % 3 == 0 else "no", selected_source="cited") for i in range(30)]
    a = tool_acc_report(rows, n_resamples=300, seed=1)
    assert a == tool_acc_report(rows, n_resamples=300, seed=1)
    hits = [float(i % 3 == 0) for i in range(30)]
    papers = [f"p{i // 2}" for i in range(30)]
    assert a.tool_acc.paper_cluster_bootstrap95 == cluster_bootstrap_interval(hits, papers, n_resamples=300, seed=1)
    assert a.tool_acc.paper_macro == pytest.approx(sum(((i % 3 == 0) + ((i + 1) % 3 == 0)) / 2 for i in range(0, 30, 2)) / 15)


def test_models_are_accepted_as_is():
    records = [InstanceVerdicts(**row(0, ground="yes", suff="yes", selected_source="cited"))]
    assert tool_acc_report(records, n_resamples=10).tool_acc.count == 1


def test_report_round_trips_through_json():
    r = tool_acc_report([row(i, ground="yes", suff="yes", selected_source="cited") for i in range(4)], n_resamples=20)
    assert type(r).model_validate_json(r.model_dump_json()) == r


@pytest.mark.parametrize("rows, where, message", [
    ([row(0), row(0)], "verdicts[1]", "duplicate instance_id 'g0' (first at verdicts[0])"),
    ([row(0, ground="maybe")], "verdicts[0] (g0)", "Input should be"),
    ([row(0, cite_rank=0)], "verdicts[0] (g0)", "cite_rank"),
    ([row(0, oracle_evaluable=True)], "verdicts[0] (g0)", "needs oracle_ground and oracle_suff"),
    ([row(0, oracle_ground="yes")], "verdicts[0] (g0)", "not oracle-evaluable"),
    ([row(0, ground="yes", selected_source="none")], "verdicts[0] (g0)", "a grounded statement has a source"),
    ([row(0, paper_key="")], "verdicts[0] (g0)", "paper_key"),
    ([row(0, extra=1)], "verdicts[0] (g0)", "extra"),
])
def test_bad_verdicts_name_the_instance(rows, where, message):
    with pytest.raises(InputError) as info:
        tool_acc_report(rows)
    text = str(info.value)
    assert where in text and message in text


def test_all_bad_records_are_reported_at_once():
    with pytest.raises(InputError) as info:
        tool_acc_report([row(0, ground="x"), row(1), row(2, suff="y"), row(1)])
    assert len(info.value.problems) == 3


@pytest.mark.parametrize("kwargs, message", [
    (dict(cite_recall_n=0), "cite_recall_n"),
    (dict(cite_recall_n=-3), "cite_recall_n"),
    (dict(n_resamples=0), "n_resamples"),
    (dict(seed=-1), "seed"),
])
def test_bad_parameters(kwargs, message):
    with pytest.raises(ValueError, match=message):
        tool_acc_report([row(0)], **kwargs)


def test_empty_input_is_refused():
    with pytest.raises(ValueError, match="empty instance set"):
        tool_acc_report([])
    with pytest.raises(ValueError, match="empty instance set"):
        failure_decomposition(iter([]))

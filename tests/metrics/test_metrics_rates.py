"""MetricResult summaries: counts, macros, per-domain table and pending handling."""

from __future__ import annotations

import numpy as np
import pytest

from lemmata.core.errors import InputError
from lemmata.metrics.intervals import cluster_bootstrap_interval, wilson_interval
from lemmata.metrics.rates import MetricResult, summarize_rate, summarize_rates

PAPERS = ["p1", "p1", "p1", "p2", "p3", "p3"]
DOMAINS = ["alg", "alg", "ana", "ana", "ana", "geo"]
HITS = [True, True, False, False, True, False]


def test_summary_fields():
    m = summarize_rate("GroundRate", HITS, papers=PAPERS, domains=DOMAINS, n_resamples=300, seed=5)
    assert (m.count, m.total, m.rate, m.pending) == (3, 6, 0.5, 0)
    assert m.wilson95 == wilson_interval(3, 6)
    assert m.paper_cluster_bootstrap95 == cluster_bootstrap_interval(np.array(HITS, float), PAPERS, n_resamples=300, seed=5)
    assert m.paper_macro == pytest.approx((2 / 3 + 0 + 1 / 2) / 3)
    assert m.domain_macro == pytest.approx((1.0 + 1 / 3 + 0.0) / 3)
    assert {k: (g.count, g.total) for k, g in m.per_domain.items()} == {"alg": (2, 2), "ana": (1, 3), "geo": (0, 1)}
    assert list(m.per_domain) == ["alg", "ana", "geo"]


def test_paper_dict_uses_paper_names():
    m = summarize_rate("ToolAcc", HITS, papers=PAPERS, domains=DOMAINS, n_resamples=100)
    d = m.as_paper_dict()
    assert set(d) == {"success", "total", "rate", "wilson95", "paper_cluster_bootstrap95", "paper_macro", "domain_macro"}
    assert d["success"] == 3 and d["wilson95"] == list(m.wilson95)


def test_without_papers_or_domains_fields_are_absent():
    m = summarize_rate("x", [1, 0, 0, 1])
    assert m.paper_cluster_bootstrap95 is None and m.paper_macro is None and m.domain_macro is None
    assert m.per_domain == {} and set(m.as_paper_dict()) == {"success", "total", "rate", "wilson95"}


def test_pending_is_negative_and_counted():
    m = summarize_rate("ToolAcc", [True, False, False, False], pending=[False, True, True, False], domains=["a", "a", "b", "b"])
    assert (m.count, m.pending, m.rate) == (1, 2, 0.25)
    assert m.per_domain["a"].pending == 1 and m.per_domain["b"].pending == 1


def test_several_rates_equal_single_summaries():
    cols = np.array([HITS, [False, True, True, False, False, False]]).T
    many = summarize_rates(["a", "b"], cols, papers=PAPERS, domains=DOMAINS, n_resamples=200, seed=1)
    single = [summarize_rate(n, cols[:, j], papers=PAPERS, domains=DOMAINS, n_resamples=200, seed=1)
              for j, n in enumerate(["a", "b"])]
    assert many == single


def test_result_round_trips_through_json():
    m = summarize_rate("ToolAcc", HITS, papers=PAPERS, domains=DOMAINS, n_resamples=50)
    assert MetricResult.model_validate_json(m.model_dump_json()) == m


@pytest.mark.parametrize("kwargs, message", [
    (dict(positive=[]), "empty population"),
    (dict(positive=[1, 2]), "item 1 is 2"),
    (dict(positive=["yes"]), "booleans"),
    (dict(positive=[True, False], pending=[True, False]), "item 0 is both positive and pending"),
    (dict(positive=[True, False], pending=[False]), "pending has 1 items"),
    (dict(positive=[True, False], domains=["a"]), "one label per item"),
    (dict(positive=[True, False], domains=["a", " "]), r"item\(s\) \[1\]"),
    (dict(positive=[True, False], papers=["a", ""]), r"item\(s\) \[1\]"),
])
def test_bad_input_names_the_item(kwargs, message):
    with pytest.raises(ValueError, match=message):
        summarize_rate("m", **kwargs)


def test_pending_clash_is_input_error():
    with pytest.raises(InputError):
        summarize_rate("m", [True], pending=[True])

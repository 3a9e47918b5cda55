"""ToolAcc: Re²Math's source-grounded theorem retrieval score, as a Hugging Face ``evaluate`` metric."""

import datasets
import evaluate

from lemmata.benchmarks.re2math.meta import RE2MATH
from lemmata.metrics.evaluate_adapters import tool_acc_from_columns

_CITATION = RE2MATH.citation

_DESCRIPTION = """\
ToolAcc is the share of Re²Math gaps where the returned statement is both grounded in the
selected source (Ground) and sufficient to close the gap (Suff). The module also reports the
paper's companion metrics (GroundRate, AnchorAcc, CiteRecall@N, OracleCoverage, Oracle ToolAcc,
DeltaToOracle, AltSourceToolAcc, AltSourceSuccessRate) with Wilson and paper-cluster bootstrap
intervals, paper/domain macro averages, per-domain tables and the failure decomposition.
Verdicts that await an oracle ('pending') count as failures and are reported separately.
"""

_KWARGS_DESCRIPTION = """\
Args:
    predictions: one record per instance, the system's verdicts:
        instance_id (str), ground (str), suff (str), anchor_match (str; '' when the instance has no
        anchor), cite_rank (str: 1-based rank of the cited source among the candidates, '' when it was
        not retrieved, 'pending'), selected_source (str: 'cited', 'alternative', 'none' or 'pending'),
        oracle_ground and oracle_suff (str; required iff oracle_evaluable, '' otherwise).
        Verdicts are 'yes', 'no', 'uncertain', 'abstain', 'not_evaluable' or 'pending'.
        Absent values are '' (evaluate refuses None in string columns).
    references: one record per instance, facts of the benchmark:
        instance_id (str), paper_key (str: citing paper, the bootstrap cluster), domain (str),
        oracle_evaluable (bool: the cited source was materialised).
    cite_recall_n: the N of CiteRecall@N (default 20).
    n_resamples: paper-cluster bootstrap resamples (default 2000).
    seed: bootstrap seed (default 0).
Returns:
    'ToolAcc', 'GroundRate', 'AnchorAcc', 'CiteRecall@N', 'OracleCoverage', 'Oracle ToolAcc',
    'AltSourceToolAcc', 'AltSourceSuccessRate' (rates; a rate whose population is empty is left out),
    'DeltaToOracle' (float or None), 'pending' (int) and 'report' (the full report as a dict).
Examples:
    >>> tool_acc = evaluate.load("metrics/tool_acc")
    >>> out = tool_acc.compute(
    ...     predictions=[{"instance_id": "g1", "ground": "yes", "suff": "yes", "anchor_match": "yes",
    ...                   "cite_rank": "2", "selected_source": "cited", "oracle_ground": "", "oracle_suff": ""}],
    ...     references=[{"instance_id": "g1", "paper_key": "2101.00001", "domain": "analysis_pde",
    ...                  "oracle_evaluable": False}])
    >>> out["ToolAcc"]
    1.0
"""

_PREDICTION = {
    "instance_id": datasets.Value("string"),
    "ground": datasets.Value("string"),
    "suff": datasets.Value("string"),
    "anchor_match": datasets.Value("string"),
    "cite_rank": datasets.Value("string"),
    "selected_source": datasets.Value("string"),
    "oracle_ground": datasets.Value("string"),
    "oracle_suff": datasets.Value("string"),
}

_REFERENCE = {
    "instance_id": datasets.Value("string"),
    "paper_key": datasets.Value("string"),
    "domain": datasets.Value("string"),
    "oracle_evaluable": datasets.Value("bool"),
}


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class ToolAcc(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({"predictions": _PREDICTION, "references": _REFERENCE}),
            homepage="https://arxiv.org/abs/2605.09012",
            codebase_urls=["https://github.com/lyuzicheng/Re-2Math"],
            reference_urls=["https://arxiv.org/abs/2605.09012"],
        )

    def _compute(self, predictions, references, cite_recall_n=20, n_resamples=2000, seed=0):
        return tool_acc_from_columns(predictions, references, cite_recall_n=cite_recall_n,
                                     n_resamples=n_resamples, seed=seed)

"""Recall@k (and nDCG@k, MRR@k, MAP@k, Precision@k) computed by trec_eval, as a Hugging Face ``evaluate`` metric."""

import datasets
import evaluate

from lemmata.metrics.evaluate_adapters import retrieval_from_columns

_CITATION = """\
@inproceedings{VanGysel2018pytreceval,
  title     = {Pytrec\\_eval: An Extremely Fast Python Interface to trec\\_eval},
  author    = {Van Gysel, Christophe and de Rijke, Maarten},
  booktitle = {SIGIR},
  year      = {2018}
}
"""

_DESCRIPTION = """\
Recall@k is the share of a query's relevant documents that appear among its top k retrieved
documents, averaged over queries. Rankings are ordered by (score descending, document id
ascending) and evaluated by trec_eval through pytrec_eval; the module can also report nDCG@k
(graded gains), MRR@k, MAP@k and Precision@k, each with a bootstrap-over-queries 95% interval.
"""

_KWARGS_DESCRIPTION = """\
Args:
    predictions: per query, the retrieved document ids, best first (list of str).
    references: per query, the relevant document ids (list of str); every query needs at least one.
    k: an int or a list of ints; reports recall@k for each (default 10) unless `measures` is given.
    measures: names such as 'recall@10', 'ndcg@10', 'mrr@10', 'map@100', 'precision@5'.
    query_ids: optional query ids aligned with the rows (default 'q0', 'q1', ...).
    prediction_scores: optional scores aligned with `predictions`; when given, documents are ranked
        by (score descending, document id ascending) instead of list order.
    reference_grades: optional integer grades aligned with `references` (default 1 each); nDCG uses
        them as gains, the binary measures count a document as relevant when grade >= relevance_level.
    relevance_level: minimum grade of a relevant document (default 1).
    n_resamples: bootstrap resamples over queries for the intervals (default 2000; 0 = none).
    seed: bootstrap seed (default 0).
Returns:
    one mean per measure (e.g. 'recall@10'), 'ci95' (measure -> [low, high] or None) and 'n_queries'.
Examples:
    >>> recall = evaluate.load("metrics/recall_at_k")
    >>> out = recall.compute(predictions=[["d3", "d1", "d7"], ["d2", "d9"]],
    ...                      references=[["d1", "d4"], ["d2"]], k=[1, 2], n_resamples=0)
    >>> out["recall@1"], out["recall@2"]
    (0.5, 0.75)
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class RecallAtK(evaluate.Metric):
    def _info(self):
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features({
                "predictions": datasets.Sequence(datasets.Value("string")),
                "references": datasets.Sequence(datasets.Value("string")),
            }),
            codebase_urls=["https://github.com/terrierteam/pytrec_eval", "https://github.com/usnistgov/trec_eval"],
            reference_urls=["https://trec.nist.gov/trec_eval/"],
        )

    def _compute(self, predictions, references, k=10, measures=None, query_ids=None, prediction_scores=None,
                 reference_grades=None, relevance_level=1, n_resamples=2000, seed=0):
        return retrieval_from_columns(predictions, references, k=k, measures=measures, query_ids=query_ids,
                                      prediction_scores=prediction_scores, reference_grades=reference_grades,
                                      relevance_level=relevance_level, n_resamples=n_resamples, seed=seed)

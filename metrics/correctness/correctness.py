"""Formalization correctness (compiles ∧ faithful) and pass@k, as a Hugging Face ``evaluate`` metric."""

import datasets
import evaluate

from lemmata.metrics.evaluate_adapters import correctness_from_columns
from lemmata.metrics.evaluate_adapters import pass_at_k_from_columns

_CITATION = """\
@article{chen2021codex,
  title   = {Evaluating Large Language Models Trained on Code},
  author  = {Chen, Mark and Tworek, Jerry and Jun, Heewoo and Yuan, Qiming and others},
  journal = {arXiv preprint arXiv:2107.03374},
  year    = {2021}
}
"""

_DESCRIPTION = """\
Correctness of formalized statements: a statement is correct when it compiles and is faithful
to the informal statement. The 'default' configuration reports correctness, the compile rate
and faithfulness among compiling statements, with Wilson intervals and per-group tables; the
'pass_at_k' configuration reports the unbiased pass@k estimator of Chen et al. (2021) from
per-item attempt counts, with a bootstrap-over-items interval. Verdicts that await the Lean
checker or the judge ('pending') count as failures and are reported separately.
"""

_KWARGS_DESCRIPTION = """\
Args (configuration 'default'):
    predictions: per item, item_id (str), compiles (str) and faithful (str), each one of
        'yes', 'no', 'uncertain', 'abstain', 'not_evaluable', 'pending'.
    references: per item, item_id (str) and group (str, e.g. chapter or domain; '' for none).
Args (configuration 'pass_at_k'):
    predictions: per item, item_id (str), n (attempts), c (attempts verified correct),
        pending (attempts awaiting the checker; counted as incorrect).
    references: per item, item_id (str) and group (str; '' for none).
    k: an int or a list of ints (default 1); every item needs at least k attempts.
    n_resamples: bootstrap resamples over items (default 2000; 0 = none).
    seed: bootstrap seed (default 0).
Returns:
    'default': 'correctness', 'compile_rate', 'faithful_given_compiles', 'pending', 'report'.
    'pass_at_k': 'pass@k' for each k, 'ci95', 'per_group', 'pending_items'.
Examples:
    >>> correctness = evaluate.load("metrics/correctness")
    >>> out = correctness.compute(
    ...     predictions=[{"item_id": "a", "compiles": "yes", "faithful": "yes"},
    ...                  {"item_id": "b", "compiles": "yes", "faithful": "no"}],
    ...     references=[{"item_id": "a", "group": ""}, {"item_id": "b", "group": ""}])
    >>> out["correctness"], out["compile_rate"]
    (0.5, 1.0)
"""

_GROUP = {"item_id": datasets.Value("string"), "group": datasets.Value("string")}

_FEATURES = {
    "default": {
        "predictions": {
            "item_id": datasets.Value("string"),
            "compiles": datasets.Value("string"),
            "faithful": datasets.Value("string"),
        },
        "references": _GROUP,
    },
    "pass_at_k": {
        "predictions": {
            "item_id": datasets.Value("string"),
            "n": datasets.Value("int64"),
            "c": datasets.Value("int64"),
            "pending": datasets.Value("int64"),
        },
        "references": _GROUP,
    },
}


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class Correctness(evaluate.Metric):
    def _info(self):
        if self.config_name not in _FEATURES:
            raise KeyError(f"unknown configuration {self.config_name!r}; use one of {sorted(_FEATURES)}")
        return evaluate.MetricInfo(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            features=datasets.Features(_FEATURES[self.config_name]),
            reference_urls=["https://arxiv.org/abs/2107.03374"],
        )

    def _compute(self, predictions, references, k=1, n_resamples=2000, seed=0):
        if self.config_name == "pass_at_k":
            return pass_at_k_from_columns(predictions, references, k=k, n_resamples=n_resamples, seed=seed)
        return correctness_from_columns(predictions, references)

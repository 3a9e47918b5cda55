"""What every leaderboard column means: a human label and a one-line definition per metric key.

Stored results name their numbers by internal keys (``gap.relative_drop``,
``attempts.not_submitted``, ``per_dataset.stacks_qa``); a visitor should never
have to guess what those mean. :data:`TERMS` is the one table the board's
headers and tooltips, the About page's glossary and the metric cards agree on:
a term that names a ``card`` must appear, as a code span, in that card
(``metrics/<card>/README.md``), which a test checks, so a definition cannot
drift away from the card that documents it.

Keys with a cut-off (``recall@10``, ``pass@128``, ``CiteRecall@20``) are
written once with ``{k}``; nested keys (``gap.difference``) are looked up
whole first, then as a prefix and a term (``tao`` + ``pass@1``); a stratum of
a breakdown (``per_dataset.stacks_qa``) is labelled by its stratum.
"""

from __future__ import annotations

import re
from functools import lru_cache

from pydantic import Field

from lemmata.core.models import Frozen


class Term(Frozen):
    """One column's label and definition."""

    key: str = Field(description="the metric key as stored; '{k}' stands for an integer cut-off")
    label: str = Field(description="the column header a visitor reads")
    definition: str = Field(description="one sentence: what the number counts, over which population")
    card: str | None = Field(default=None, description="folder under metrics/ whose README.md defines the key")
    higher_is_better: bool | None = None
    card_key: str | None = Field(default=None, description="how the card writes the key when not as key with k")

    @property
    def as_in_card(self) -> str:
        """The code span the metric card must contain for this term."""
        return self.card_key or self.key.replace("{k}", "k")


def _t(key: str, label: str, definition: str, card: str | None = None, higher: bool | None = True,
       card_key: str | None = None) -> Term:
    return Term(key=key, label=label, definition=definition, card=card, higher_is_better=higher, card_key=card_key)


#: every documented metric key (the board, the About glossary and the metric cards read this table)
TERMS: tuple[Term, ...] = (
    # retrieval (metrics/recall_at_k, lemmata.metrics.retrieval)
    _t("recall@{k}", "Recall@{k}", "Share of a query's relevant documents found in its top {k}, averaged over "
       "queries.", "recall_at_k"),
    _t("precision@{k}", "Precision@{k}", "Relevant documents among the top {k}, divided by {k}, averaged over "
       "queries.", "recall_at_k"),
    _t("ndcg@{k}", "nDCG@{k}", "Discounted cumulative gain of the top {k} (gain = relevance grade, discount "
       "log2(rank + 1)) divided by the best possible, averaged over queries.", "recall_at_k"),
    _t("mrr@{k}", "MRR@{k}", "1 / rank of the first relevant document when it is within the top {k}, else 0; "
       "averaged over queries.", "recall_at_k"),
    _t("map@{k}", "MAP@{k}", "Mean over relevant documents of the precision at their ranks within the top {k}, "
       "averaged over queries.", "recall_at_k"),
    _t("judged_queries", "Judged queries", "Queries of the split with at least one relevant document: the queries "
       "that are scored.", higher=None),
    _t("missing_queries", "Queries not ranked", "Judged queries the submission gave no ranking for; each scores 0.",
       higher=False),
    _t("unjudged_rankings", "Rankings for unjudged queries", "Submitted rankings for queries without a relevant "
       "document; they are accepted but not scored.", higher=None),
    _t("average", "Average (printed)", "The aggregate exactly as the paper printed it.", higher=True),
    _t("mean_of_printed_cells", "Average (recomputed)", "Mean of the paper's own printed per-dataset cells, "
       "recomputed here; the board ranks by it.", higher=True),
    # Re2Math (metrics/tool_acc, lemmata.metrics.tool_acc)
    _t("ToolAcc", "ToolAcc", "Share of instances whose returned statement is grounded in its source and "
       "sufficient to close the gap (Ground ∧ Suff).", "tool_acc"),
    _t("GroundRate", "Ground rate", "Share of instances whose returned statement is stated in the selected "
       "source (Ground = yes).", "tool_acc"),
    _t("AnchorAcc", "AnchorAcc", "Share of anchored instances whose planning verdict against the anchor hint is "
       "yes.", "tool_acc"),
    _t("CiteRecall@{k}", "CiteRecall@{k}", "Share of instances whose cited source ranks within the top {k} "
       "candidates.", "tool_acc", card_key="CiteRecall@N"),
    _t("OfflineCiteRecall@{k}", "Offline CiteRecall@{k}", "Share of instances whose cited source ranks within "
       "the top {k} candidates of an offline world (its own haystack and display, not Google Scholar: not "
       "comparable with the paper's CiteRecall@{k}).", "tool_acc", card_key="OfflineCiteRecall@N"),
    _t("OfflineToolAcc", "OfflineToolAcc", "Share of instances whose selected source is the cited source (by the "
       "source-identity matcher, in an offline world) and whose statement closes the gap (Suff): the offline "
       "headline, never the paper's ToolAcc.", "tool_acc"),
    _t("SourceAcc", "SourceAcc", "Share of instances whose selected source is the cited source (by the "
       "source-identity matcher).", "tool_acc"),
    _t("SuffRate", "Suff rate", "Share of instances whose returned statement is judged to close the gap (Suff = "
       "yes), whatever its source.", "tool_acc"),
    _t("AbstentionRate", "Abstention rate", "Share of instances answered with no source or no statement.",
       "tool_acc", higher=None),
    _t("OracleCoverage", "Oracle coverage", "Share of instances whose cited source was materialised, so the "
       "oracle run could be evaluated.", "tool_acc"),
    _t("Oracle ToolAcc", "Oracle ToolAcc", "ToolAcc of the oracle run (given the cited source's text), over "
       "oracle-evaluable instances.", "tool_acc"),
    _t("DeltaToOracle", "Δ to oracle", "Oracle ToolAcc − ToolAcc: what finding the cited source would add.",
       "tool_acc", higher=None),
    _t("AltSourceToolAcc", "Alt-source ToolAcc", "Share of instances solved with a source other than the cited "
       "one.", "tool_acc"),
    _t("AltSourceSuccessRate", "Alt-source share of successes", "Among successes, the share whose source is not "
       "the cited one.", "tool_acc", higher=None),
    # correctness of formal statements (metrics/correctness, lemmata.metrics.correctness)
    _t("correctness", "Correct", "Share of items whose statement compiles and is judged faithful.", "correctness"),
    _t("correct", "Correct", "Share of items whose statement compiles and is judged faithful (as printed).",
       None),
    _t("compile_rate", "Compile rate", "Share of items whose statement Lean accepts.", "correctness"),
    _t("faithful_given_compiles", "Faithful if compiles", "Among items that compile, the share judged faithful to "
       "the informal statement.", "correctness"),
    _t("pass@{k}", "pass@{k}", "Unbiased estimate of the chance that at least one of {k} attempts is verified "
       "correct, averaged over items.", "correctness"),
    _t("pass rate under tactic budget 128x2x600", "Tree-search pass rate (128×2×600)", "Share of exercises a "
       "tree-search prover proved within the paper's tactic budget (as printed; not a pass@k over whole-proof "
       "attempts)."),
    # TaoBench (formulations and their gap)
    _t("tao", "Tao formulation", "Share of the 150 exercises solved in the textbook's (Tao's) formulation."),
    _t("mathlib", "Mathlib formulation", "Share of the 150 exercises solved in their Mathlib formulation."),
    _t("gap.difference", "Gap (Tao − Mathlib)", "Tao-formulation score minus Mathlib-formulation score on the same "
       "exercises; negative: the textbook wording is harder.", higher=None),
    _t("gap.relative_drop", "Relative drop", "(Mathlib − Tao) / Mathlib: the share of the Mathlib score lost in "
       "the textbook formulation; positive: Tao is harder.", higher=None),
    _t("gap.n_items", "Exercises in both", "Exercises with a record in both formulations (the gap's population).",
       higher=None),
    _t("attempts.submitted", "Attempts submitted", "Proof attempts present in the submission.", higher=None),
    _t("attempts.not_submitted", "Attempts missing", "Attempts the declared budget allowed but the submission did "
       "not contain; each counts as failed.", higher=False),
    _t("attempts.passed", "Attempts passed", "Attempts Lean accepted.", higher=None),
    _t("attempts.failed", "Attempts failed", "Attempts Lean rejected.", higher=None),
    _t("attempts.rejected", "Attempts rejected", "Attempts that failed the integrity checks and were never sent to "
       "Lean.", higher=False),
    _t("attempts.pending", "Attempts pending", "Attempts still waiting for a Lean verdict (not counted as passed).",
       higher=None),
    # MathNet-Solve (problem solving and MathRAG)
    _t("proof_grade", "ProofGrade", "Share of the problems whose solution the grader model scored 7 of 7 against "
       "the reference solutions (IMO-Bench protocol); solutions awaiting a grade are not counted."),
    _t("micro_pm", "± (ProofGrade, printed)", "The ± the paper prints beside its micro-averaged ProofGrade, as "
       "printed.", higher=None),
    _t("macro", "Macro ProofGrade", "Mean over the four domains (algebra, number theory, geometry, discrete "
       "mathematics) of each domain's ProofGrade."),
    _t("macro_pm", "± (macro, printed)", "The ± the paper prints beside its macro-averaged ProofGrade, as printed.",
       higher=None),
    _t("proof_grade.micro", "ProofGrade (micro)", "ProofGrade over all problems (Wilson 95% interval)."),
    _t("proof_grade.macro", "ProofGrade (macro)", "Mean over domains of each domain's ProofGrade (stratified "
       "bootstrap 95% interval)."),
    _t("answer_check", "AnswerCheck", "Share of the problems with a stated final answer whose candidate final "
       "answer math-verify finds equal to the reference; not a proof grade."),
)

#: prefixes of nested keys, read before the term they qualify (``tao.pass@1`` → "Tao formulation · pass@1")
PREFIXES: dict[str, str] = {"tao": "Tao", "mathlib": "Mathlib", "gap": "Gap", "attempts": "Attempts",
                            "violations": "Integrity violations", "proof_grade": "ProofGrade",
                            "answer_check": "AnswerCheck"}

@lru_cache(maxsize=1)
def _index() -> tuple[dict[str, Term], list[tuple[re.Pattern[str], Term]]]:
    exact: dict[str, Term] = {}
    patterns: list[tuple[re.Pattern[str], Term]] = []
    for term in TERMS:
        if "{k}" in term.key:
            rx = re.compile("^" + re.escape(term.key).replace(re.escape("{k}"), r"(?P<k>\d+)") + "$")
            patterns.append((rx, term))
        else:
            exact[term.key] = term
    return exact, patterns


def lookup(key: str) -> Term | None:
    """The documented term for ``key`` (a cut-off filled in), or None.

    >>> lookup("ndcg@10").label, lookup("CiteRecall@20").definition[:40]
    ('nDCG@10', 'Share of instances whose cited source ra')
    >>> lookup("gap.relative_drop").label, lookup("no_such_key") is None
    ('Relative drop', True)
    """
    exact, patterns = _index()
    if key in exact:
        return exact[key]
    for rx, term in patterns:
        m = rx.match(key)
        if m:
            k = m.group("k")
            return term.model_copy(update={"key": key, "label": term.label.replace("{k}", k),
                                           "definition": term.definition.replace("{k}", k)})
    return None


def humanize(key: str) -> str:
    """A readable label for a key no term documents: separators become spaces.

    >>> humanize("per_item_mean"), humanize("x.y_z")
    ('per item mean', 'x · y z')
    """
    return " · ".join(part.replace("_", " ").strip() for part in key.split(".") if part) or key


def describe(key: str, main_metric: str = "") -> Term:
    """Label and definition for any metric key a result may carry (never the bare internal key when avoidable).

    >>> describe("per_dataset.stacks_qa", "ndcg@10").label
    'stacks qa'
    >>> describe("per_dataset.stacks_qa", "ndcg@10").definition
    'nDCG@10 on the dataset stacks_qa alone.'
    >>> describe("tao.pass@1").label
    'Tao · pass@1'
    >>> describe("attempts.not_submitted").label
    'Attempts missing'
    >>> describe("ndcg@10 (MIRB average)").label
    'nDCG@10 (MIRB average)'
    >>> describe("weird_key").definition
    'weird_key, as reported by the scorer (no glossary entry).'
    >>> describe("CiteRecall@20", "OfflineToolAcc").label   # a stored offline result keeps its key, not the name
    'Offline CiteRecall@20'
    """
    if main_metric.startswith("OfflineToolAcc") and re.fullmatch(r"CiteRecall@\d+", key):
        offline = lookup("Offline" + key)
        if offline is not None:
            return offline.model_copy(update={"key": key})
    found = lookup(key)
    if found is not None:
        return found
    qualified = re.match(r"^(.+?) \((.+)\)$", key)  # a main metric with its qualifier: "pass@128 (tao)"
    if qualified and (inner := lookup(qualified.group(1))) is not None:
        return inner.model_copy(update={"key": key, "label": f"{inner.label} ({qualified.group(2)})"})
    head, dot, tail = key.partition(".")
    if dot and head.startswith("per_"):
        dim = head[4:].replace("_", " ")
        base = re.sub(r" \(.*\)$", "", main_metric)
        what = (t.label if (t := lookup(base)) is not None else base) or "the main metric"
        return Term(key=key, label=tail.replace("_", " "), definition=f"{what} on the {dim} {tail} alone.")
    if dot and head in PREFIXES:
        inner = lookup(tail)
        if inner is not None:
            return Term(key=key, label=f"{PREFIXES[head]} · {inner.label}",
                        definition=f"{PREFIXES[head]}: {inner.definition}", card=inner.card,
                        higher_is_better=inner.higher_is_better)
    return Term(key=key, label=humanize(key), definition=f"{key}, as reported by the scorer (no glossary entry).")


def dimension_label(dimension: str) -> str:
    """A breakdown dimension as English: ``per_dataset`` → ``dataset``, ``appendix / By domain`` → ``domain``.

    >>> dimension_label("per_dataset"), dimension_label("chapter / tao / pass@1"), dimension_label("By domain")
    ('dataset', 'chapter (tao, pass@1)', 'domain')
    """
    parts = [p.strip() for p in dimension.split("/") if p.strip()]
    if not parts:
        return dimension

    def clean(p: str) -> str:
        p = p[4:] if p.startswith("per_") else p
        p = p[3:] if p.lower().startswith("by ") else p
        return p.replace("_", " ")

    head = clean(parts[0])
    if len(parts) > 1 and parts[0].lower() in ("appendix",):
        return clean(parts[-1])
    return head + (f" ({', '.join(clean(p) for p in parts[1:])})" if len(parts) > 1 else "")


def glossary_markdown() -> str:
    """The About page's glossary: every term, its label and definition (cut-offs shown as k)."""
    lines = ["### Glossary of columns", "",
             "Signs: a **gap** is Tao − Mathlib (negative when the textbook formulation is harder); "
             "a **relative drop** is (Mathlib − Tao) / Mathlib (positive when it is harder). "
             "Rates are shares in [0, 1]; higher is better unless the definition says otherwise.", "",
             "| Column | Key | Definition |", "|---|---|---|"]
    for term in TERMS:
        label = term.label.replace("{k}", "k")
        key = term.key.replace("{k}", "k")
        definition = term.definition.replace("{k}", "k").replace("|", "\\|")
        lines.append(f"| {label} | `{key}` | {definition} |")
    lines.append("| *stratum* | `per_<dimension>.<stratum>` | The main metric on that stratum alone "
                 "(e.g. one MIRB dataset). |")
    return "\n".join(lines) + "\n"

"""What every leaderboard column means: a human label and a one-line definition per metric key.

Stored results name their numbers by internal keys (``gap.relative_drop``,
``attempts.not_submitted``, ``per_dataset.stacks_qa``); a visitor should never
have to guess what those mean. :data:`TERMS` (kept as data in ``glossary.toml``) is the one table the board's
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

from lemmata.core.errors import Error
from lemmata.core.models import Frozen
from lemmata.core.package_data import read_toml


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


_BETTER = {"higher": True, "lower": False, "neither": None}


def _load_terms() -> tuple[Term, ...]:
    """The table, kept as data in ``glossary.toml`` beside this module (prose a non-programmer can correct)."""
    terms = []
    for i, row in enumerate(read_toml(__package__ or "lemmata.metrics", "glossary.toml")["term"]):
        row = dict(row)
        better = row.pop("better", "higher")
        if better not in _BETTER:
            raise Error(f"lemmata/metrics/glossary.toml: term {i + 1} ({row.get('key')!r}): field 'better' must be "
                        f"one of {sorted(_BETTER)}, not {better!r}")
        terms.append(Term.model_validate({**row, "higher_is_better": _BETTER[better]}))
    return tuple(terms)


#: every documented metric key (the board, the About glossary and the metric cards read this table)
TERMS: tuple[Term, ...] = _load_terms()

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

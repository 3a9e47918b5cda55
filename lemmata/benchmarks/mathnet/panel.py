"""The MathRAG matrix, MathNet's panel on the Across benchmarks tab (``Family.panels``): each MathNet-Solve solver
under each retrieval condition, its ProofGrade, the gain over the same solver's zero-shot run with a paired 95%
interval, the problems it helped / hurt / left unchanged with the exact McNemar p-value, and the retriever's own
MathNet-Retrieve Recall@5 (hard tier) beside it.

The rows are :func:`lemmata.benchmarks.mathnet.matrix.mathrag_matrix` over the store's scored, listed (not
hidden, not superseded) results; reported rows are never read. The paired bootstrap is computed once per store
generation (the space caches a panel's table per generation), not on every refresh. A result the matrix cannot read (a file that
fails its integrity check, a malformed retrieval record) is left out and counted, never raised.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from lemmata.core.escape import esc
from lemmata.core.family import Panel
from lemmata.formats.numbers import number_format

TITLE = "MathRAG: solver × retrieval condition"
EMPTY = ("No scored MathNet-Solve results yet. Once a solver's runs are scored here, this table lists each "
         "retrieval condition (zero-shot, expert-RAG, retriever-RAG) with its ProofGrade and its gain over the same "
         "solver's zero-shot run.")
EXPLAIN = ("Scored-here MathNet-Solve entries only (reported rows are never mixed in); the filters above do not "
           "apply. A gain compares a run with the same solver's zero-shot run on the same problems, split and "
           "grader, with a paired bootstrap 95% interval over problems; helped / hurt / unchanged count the problems it "
           "turned right, turned wrong and left as they were, with the exact McNemar p-value over the turned ones; "
           "a run with pending grades has neither yet. "
           "Recall@5 is the retriever's own MathNet-Retrieve score on the hard tier, where this board holds it.")

#: the text columns (solver, condition, retriever) read left-aligned; the matrix's own styles do the rest
MATHRAG_CSS = """
.lm-mathrag h3 { margin: 1.2rem 0 0.3rem; }
.lm-mathrag th:nth-child(-n+3), .lm-mathrag td:nth-child(-n+3) { text-align: left; }
"""


@dataclass(frozen=True)
class MathragTable:
    rows: list[dict[str, Any]] = field(default_factory=list)
    #: scored results the matrix could not read, left out
    skipped: int = 0
    #: why the matrix as a whole could not be built (then ``rows`` is empty)
    error: str | None = None


def compute(solve: Iterable[Any], retrieve: Iterable[Any], *, skipped: int = 0,
            n_resamples: int = 1000) -> MathragTable:
    """The matrix rows over results that each pass on their own (an unreadable one is counted in ``skipped``)."""
    from lemmata.benchmarks.mathnet.matrix import mathrag_matrix

    usable_solve, usable_retrieve = [], []
    for r in solve:
        try:
            mathrag_matrix([r], n_resamples=1)  # its retrieval record and shape, alone (no pair: no bootstrap)
            if not all(isinstance(i, dict) and "item_id" in i for i in r.items):
                raise ValueError("an item without an id")
            usable_solve.append(r)
        except Exception:  # noqa: BLE001 - odd stored data must not break the page
            skipped += 1
    for r in retrieve:
        try:
            mathrag_matrix([], [r], n_resamples=1)
            usable_retrieve.append(r)
        except Exception:  # noqa: BLE001
            skipped += 1
    try:
        rows = mathrag_matrix(usable_solve, usable_retrieve, n_resamples=n_resamples)
    except Exception as exc:  # noqa: BLE001 - the reason goes to the log; the page names only its kind
        import logging

        logging.getLogger("lemmata").warning("MathRAG matrix: %s", exc)
        return MathragTable(skipped=skipped, error=type(exc).__name__)
    return MathragTable(rows=[r for r in rows if isinstance(r, dict)], skipped=skipped)


def load(store) -> MathragTable:
    """The matrix of a store's listed scored MathNet-Solve results, with the MathNet-Retrieve results of the
    retrievers they name (each file verified; nothing else is read)."""
    solve, skipped = _read(store, "mathnet-solve", lambda row: True)
    if not solve:
        return MathragTable(skipped=skipped)
    names = set()
    for r in solve:
        retrieval = r.provenance.get("retrieval") if isinstance(r.provenance, dict) else None
        retriever = retrieval.get("retriever") if isinstance(retrieval, dict) else None
        if isinstance(retriever, dict) and isinstance(retriever.get("name"), str):
            names.add(retriever["name"])
    retrieve, _ = _read(store, "mathnet-retrieve", lambda row: row.get("model_name") in names) if names else ([], 0)
    return compute(solve, retrieve, skipped=skipped)


def _read(store, benchmark: str, wanted) -> tuple[list, int]:
    """The listed scored results of a benchmark that ``wanted`` keeps, and how many could not be read."""
    out, skipped = [], 0
    for row in store.result_rows(benchmark=benchmark):
        if row.get("kind") != "scored" or not wanted(row):
            continue
        try:
            if row.get("integrity"):
                raise ValueError(row["integrity"])
            result = store.get_result(row["result_id"])
        except Exception:  # noqa: BLE001 - a file that fails its check (or changed since it was listed)
            skipped += 1
            continue
        if result is not None:
            out.append(result)
    return out, skipped


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) \
        and math.isfinite(value) else None


def _recall(row: dict[str, Any]) -> float | None:
    recall = row.get("retrieve_recall")
    hard = recall.get("hard") if isinstance(recall, dict) else None
    return _num(hard.get("recall@5")) if isinstance(hard, dict) else None


def _interval(row: dict[str, Any]) -> tuple[float, float] | None:
    iv = row.get("gain_interval")
    if isinstance(iv, (list, tuple)) and len(iv) == 2 and all(_num(v) is not None for v in iv):
        return float(iv[0]), float(iv[1])
    return None


def _changes(row: dict[str, Any]) -> str:
    """``helped / hurt / unchanged (p = …)`` of a row paired with its zero-shot twin, '—' when it has none.

    >>> _changes({"changes": {"helped": 3, "hurt": 0, "unchanged": 7, "p_value": 0.25}}), _changes({})
    ('3 / 0 / 7 <span class="lm-metric">(p = 0.25)</span>', '—')
    """
    c = row.get("changes")
    counts = [c.get(k) for k in ("helped", "hurt", "unchanged")] if isinstance(c, dict) else []
    p = _num(c.get("p_value")) if isinstance(c, dict) else None
    if len(counts) != 3 or not all(isinstance(n, int) and not isinstance(n, bool) for n in counts) or p is None:
        return "—"
    return f'{counts[0]} / {counts[1]} / {counts[2]} <span class="lm-metric">(p = {p:.2g})</span>'


def _signed(value: float, pattern: str) -> str:
    text = pattern.format(value)
    return "+" + text if value > 0 and not text.startswith("-") else text


def render_mathrag(table: MathragTable) -> str:
    """The section as escaped HTML: a title, what it shows, and the table (or why there is none).

    >>> "No scored MathNet-Solve results yet" in render_mathrag(MathragTable())
    True
    """
    head = f'<div class="lm-matrix lm-mathrag"><h3>{esc(TITLE)}</h3>'
    notes = ""
    if table.skipped:
        one = table.skipped == 1
        notes = (f'<p class="lm-notice">{table.skipped} scored entr{"y" if one else "ies"} could not be read (the '
                 f"integrity check or a malformed retrieval record) and {'is' if one else 'are'} left out.</p>")
    if table.error:
        return head + f'<p class="lm-empty">The MathRAG matrix could not be built from the stored results ' \
                      f"({esc(table.error)}).</p>{notes}</div>"
    if not table.rows:
        return head + f'<p class="lm-empty">{esc(EMPTY)}</p>{notes}</div>'
    rows: Sequence[dict[str, Any]] = table.rows
    acc_fmt = number_format([_num(r.get("accuracy")) for r in rows])
    gain_fmt = number_format([v for r in rows for v in (_num(r.get("gain")), *(_interval(r) or ()))])
    recall_fmt = number_format([_recall(r) for r in rows])
    body = []
    for r in rows:
        acc = _num(r.get("accuracy"))
        pending = r.get("pending") if isinstance(r.get("pending"), int) and not isinstance(r.get("pending"), bool) \
            else 0
        if acc is None:
            grade = "pending" + (f' <span class="lm-metric">({pending} to grade)</span>' if pending else "")
        else:
            grade = acc_fmt.format(acc) + (f' <span class="lm-metric">({pending} pending)</span>' if pending else "")
        gain, interval = _num(r.get("gain")), _interval(r)
        if gain is None:
            gain_text = "—"
        else:
            gain_text = _signed(gain, gain_fmt)
            if interval is not None:
                gain_text += f' <span class="lm-metric">[{_signed(interval[0], gain_fmt)}, ' \
                             f"{_signed(interval[1], gain_fmt)}]</span>"
        recall = _recall(r)
        k = r.get("k")
        where = f"split {r.get('split') or '?'}, grader {r.get('grader') or '?'}"
        body.append(
            f'<tr><td class="lm-model" title="{esc(where)}">{esc(r.get("solver") or "?")}</td>'
            f'<td>{esc(r.get("condition") or "?")}</td><td>{esc(r.get("retriever") or "—")}</td>'
            f"<td>{esc(k if k is not None else '—')}</td><td>{grade}</td><td>{gain_text}</td><td>{_changes(r)}</td>"
            f"<td>{'—' if recall is None else recall_fmt.format(recall)}</td></tr>")
    columns = ("<th>Solver</th><th>Condition</th><th>Retriever</th><th>k</th>"
               '<th title="the share of problems the grader accepts (pending grades left out)">ProofGrade</th>'
               '<th title="ProofGrade minus the same solver\'s zero-shot ProofGrade on the same problems, with a '
               'paired bootstrap 95% interval">Gain over zero-shot [95%]</th>'
               '<th title="problems the run turned right / turned wrong / left as they were against the same '
               'solver\'s zero-shot run, with the exact McNemar p-value over the turned ones">Helped / hurt / '
               'unchanged</th>'
               '<th title="the retriever\'s MathNet-Retrieve Recall@5 on the hard tier">Recall@5 (hard)</th>')
    return (head + f'<p class="lm-summary">{esc(EXPLAIN)}</p>{notes}<div class="lm-scroll"><table class="lm-table">'
            f"<thead><tr>{columns}</tr></thead><tbody>{''.join(body)}</tbody></table></div></div>")


#: the panel the space shows (``Family.panels``)
PANEL = Panel(key="mathrag", load=load, render=render_mathrag, css=MATHRAG_CSS)

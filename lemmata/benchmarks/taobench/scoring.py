"""Scoring TaoBench proof submissions: integrity → verdict cache / Lean verifier → pass@k and the paired gap.

Each attempt gets one outcome:

- ``rejected``: the offline integrity checks found a violation; it is never sent to Lean and counts as failed;
- ``passed`` / ``failed``: Lean's verdict, read from the frozen verifier artifact (or obtained from a
  configured server and appended to it): it compiles with no error and no ``sorry`` of its own
  (``sorry`` warnings on lines that reproduce the official file's given lemmas are expected), and
  ``#print axioms`` of the exercise, appended to the attempt, names no axiom beyond the standard
  ones and the official file's own (``sorryAx`` only where the file gives lemmas with ``sorry``);
- ``pending``: no verdict on record and no server reachable. Pending is never a success and never a
  failure: it is counted and reported, the result's status is ``pending_oracle``, and rescoring when a
  verifier is available produces the final numbers.

Per formulation, an exercise has ``n`` attempts (the header's ``n``; attempts not submitted count as
failed), ``c`` passed; pass@k is the unbiased estimator for k ∈ {1, 8, n} (k ≤ n), with a bootstrap
interval over exercises and a per-chapter breakdown. Every formulation is scored on the same exercises:
those whose official files are well-formed Lean in *every* formulation (an exercise with one malformed
file is left out of both, and listed). The Tao − Mathlib gap is a paired comparison of per-exercise
pass@k over all of them, unsubmitted attempts counting as failed, with a paired bootstrap interval: what
a submitter leaves out cannot move it.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from lemmata.core.hashing import sha256_bytes
from lemmata.metrics.correctness import paired_comparison, pass_at_k, pass_at_k_summary
from lemmata.metrics.intervals import DEFAULT_RESAMPLES, DEFAULT_SEED
from lemmata.oracles.lean import CheckResult, LeanArtifact, LeanVerifier
from lemmata.formats.results import FrozenTuple, Result, Score, make_result
from lemmata.benchmarks.taobench.axiom_probe import AXIOM_PROBE, parse_axiom_answer, probe_answer, with_axiom_probe  # noqa: F401
from lemmata.benchmarks.taobench.lean.integrity import IntegrityReport, check_attempt
from lemmata.oracles.kimina_double import DOUBLE_LEAN_VERSION
from lemmata.benchmarks.taobench.release import FORMULATIONS, TaoRelease
from lemmata.benchmarks.taobench.submission import BENCHMARK, TRACK, Header, Record
from lemmata.tracks.runner_log import RUNNER_LOG_CONSISTENT

INTEGRITY_VERSION = "integrity.v2"
PROBE_VERSION = "print-axioms.v2"
#: what every Mathlib proof may rest on
STANDARD_AXIOMS = frozenset({"propext", "Classical.choice", "Quot.sound"})
SPLIT = "pairs/test"
UNVERIFIED_ARTIFACT = "taobench-lean:none"
MAX_ERRORS_KEPT = 5
MAX_MESSAGE_CHARS = 500
Outcome = Literal["passed", "failed", "rejected", "pending"]


def parse_axioms(text: str) -> list[str] | None:
    """Axiom names from a ``#print axioms`` message, or None when the text is not one.

    >>> parse_axioms("'A.t' depends on axioms: [propext, Classical.choice, Quot.sound]")
    ['propext', 'Classical.choice', 'Quot.sound']
    >>> parse_axioms("'A.t' does not depend on any axioms"), parse_axioms("unknown constant")
    ([], None)
    """
    parsed = parse_axiom_answer(text)
    return None if parsed is None else parsed[1]


def lean_verdict(check: CheckResult, official_lines: Sequence[tuple[int, int]], identity: Mapping[str, Any],
                 *, probe_line: int | None = None, allowed_axioms: Iterable[str] = (),
                 probe_decl: str | None = None) -> dict:
    """Lean's answer on one attempt as a cached verdict.

    ``compiles`` is True when Lean reports no error, no timeout, no ``sorry`` outside the lines that
    reproduce official commands (the exercise's given lemmas carry ``sorry`` upstream) and, with an
    axiom probe on ``probe_line``, no axiom beyond the standard ones (``propext``, ``Classical.choice``,
    ``Quot.sound``) and ``allowed_axioms`` (see :func:`official_axioms`). With ``probe_decl`` (the exercise's
    full name) the answer must be about that constant (see :mod:`lemmata.benchmarks.taobench.axiom_probe`).
    """
    official = {n for lo, hi in official_lines for n in range(lo, hi + 1)}
    errors = check.errors()
    sorry_lines = [s.pos.line for s in check.sorries if s.pos is not None]
    sorry_lines += [m.pos.line for m in check.messages
                    if m.severity == "warning" and "declaration uses 'sorry'" in m.data and m.pos is not None]
    own_sorries = sorted({n for n in sorry_lines if n not in official and n != probe_line})
    axioms: list[str] | None = None
    probe_problem: str | None = None
    if probe_line is not None:
        axioms, probe_problem = probe_answer(check, probe_line, probe_decl)
    allowed = STANDARD_AXIOMS | set(allowed_axioms)
    extra_axioms = sorted(set(axioms or ()) - allowed)
    if check.timed_out:
        reason = f"timed out after {identity.get('timeout_s')} s"
    elif errors:
        first = errors[0]
        where = f"line {first.pos.line}: " if first.pos else ""
        reason = f"{len(errors)} error(s); first at {where}{first.data[:200]}"
    elif own_sorries:
        reason = f"uses sorry (line {own_sorries[0]})"
    elif probe_line is not None and axioms is None:
        reason = probe_problem or "Lean did not answer the axiom probe"
    elif extra_axioms:
        reason = f"depends on axioms beyond the standard ones: {', '.join(extra_axioms)}"
    else:
        reason = "compiles"
    return {
        "compiles": reason == "compiles",
        "reason": reason,
        "errors": [{"line": m.pos.line if m.pos else None, "message": m.data[:MAX_MESSAGE_CHARS]}
                   for m in errors[:MAX_ERRORS_KEPT]],
        "error_count": len(errors),
        "errors_in_official_lines": sum(1 for m in errors if m.pos is not None and m.pos.line in official),
        "own_sorry_lines": own_sorries[:MAX_ERRORS_KEPT],
        "axioms": axioms,
        "timed_out": check.timed_out,
        "time_s": round(check.time_s, 3),
        **{k: identity[k] for k in ("verifier", "lean_version", "mathlib_version", "timeout_s")},
    }


@dataclass
class AttemptResult:
    index: int
    sha256: str
    outcome: Outcome
    violations: list[dict[str, Any]] = field(default_factory=list)
    verdict: dict[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"attempt": self.index, "sha256": self.sha256, "outcome": self.outcome}
        if self.violations:
            out["violations"] = self.violations
        if self.verdict is not None:
            keep = ("reason", "errors", "own_sorry_lines", "axioms", "lean_version", "mathlib_version", "verifier")
            out["lean"] = {k: self.verdict[k] for k in keep if k in self.verdict}
        return out


@dataclass
class ItemResult:
    fqn: str
    formulation: str
    chapter: int
    n: int
    submitted: bool
    attempts: list[AttemptResult] = field(default_factory=list)
    local_definitions: int | None = None
    """definitions the exercise's Tao file declares before it (:mod:`.context`)"""

    @property
    def item_id(self) -> str:
        return f"{self.fqn}@{self.formulation}"

    @property
    def passed(self) -> int:
        return sum(a.outcome == "passed" for a in self.attempts)

    @property
    def pending(self) -> int:
        return sum(a.outcome == "pending" for a in self.attempts)

    def as_dict(self) -> dict[str, Any]:
        return {"item_id": self.item_id, "fqn": self.fqn, "formulation": self.formulation, "chapter": self.chapter,
                "n": self.n, "c": self.passed, "pending": self.pending, "submitted": self.submitted,
                **({"local_definitions": self.local_definitions} if self.local_definitions is not None else {}),
                "attempts": [a.as_dict() for a in self.attempts]}


@dataclass
class Verification:
    """Where verdicts come from: a frozen artifact (read, and appended to), and optionally a live verifier."""

    artifact: LeanArtifact | None = None
    verifier: LeanVerifier | None = None

    def __post_init__(self) -> None:
        if self.verifier is not None and self.artifact is None:
            raise ValueError("a live verifier needs an artifact to record its verdicts in")
        if self.verifier is not None and self.artifact is not None and self.verifier.identity != self.artifact.identity:
            raise ValueError(f"verifier {self.verifier.identity} does not match artifact {self.artifact.artifact_id}")

    @property
    def scoring_artifact(self) -> str:
        base = self.artifact.artifact_id if self.artifact is not None else UNVERIFIED_ARTIFACT
        return f"{base}+{INTEGRITY_VERSION}+{PROBE_VERSION}"


def official_axioms(exercise) -> set[str]:
    """Axioms an honest proof may reach: those the official file declares (a few Tao files state their
    own), and ``sorryAx`` when the file gives lemmas or definitions with ``sorry``/``admit`` (a proof may
    use them; a few statements even mention such a definition)."""
    out = {c.decl.full_name for c in exercise.file.commands
           if c.decl is not None and c.decl.keyword == "axiom" and c.decl.full_name}
    given = [t for c in exercise.prefix + exercise.suffix for t in c.tokens
             if t.kind == "ident" and t.text in ("sorry", "admit", "sorryAx")]
    if given:
        out.add("sorryAx")
    return out


def ks_for(n: int) -> list[int]:
    """The k of pass@k reported for ``n`` attempts.

    >>> ks_for(1), ks_for(8), ks_for(32)
    ([1], [1, 8], [1, 8, 32])
    """
    return sorted({k for k in (1, 8, n) if k <= n})


def _integrity(release: TaoRelease, rec: Record, cache: dict) -> list[tuple[str, str, IntegrityReport]]:
    ex = release.exercise(rec.fqn, rec.formulation)
    out = []
    for text in rec.attempts:
        sha = sha256_bytes(text.encode("utf-8"))
        key = (rec.fqn, rec.formulation, sha)
        if key not in cache:
            cache[key] = check_attempt(ex, text)
        out.append((sha, text, cache[key]))
    return out


def verify_attempts(release: TaoRelease, records: Iterable[Record], verification: Verification) -> list[ItemResult]:
    """Outcomes of every submitted attempt (records of unscoreable exercises are skipped)."""
    integrity_cache: dict = {}
    items: list[ItemResult] = []
    to_verify: dict[str, tuple[dict[str, Any], str, IntegrityReport, str]] = {}
    waiting: list[tuple[AttemptResult, str]] = []
    for rec in records:
        meta = release.item(rec.fqn, rec.formulation)
        if not meta.scoreable:
            continue
        item = ItemResult(fqn=rec.fqn, formulation=rec.formulation, chapter=meta.chapter, n=0, submitted=True)
        for i, (sha, text, report) in enumerate(_integrity(release, rec, integrity_cache)):
            if not report.ok:
                item.attempts.append(AttemptResult(i, sha, "rejected", [v.model_dump() for v in report.violations]))
                continue
            fields = {"release": release.release_id, "fqn": rec.fqn, "formulation": rec.formulation,
                      "attempt_sha256": sha}
            verdict = verification.artifact.lookup(**fields) if verification.artifact is not None else None
            attempt = AttemptResult(i, sha, "pending", verdict=verdict)
            if verdict is not None:
                attempt.outcome = "passed" if verdict["compiles"] else "failed"
            elif verification.verifier is not None:
                key = "|".join(fields.values())
                to_verify.setdefault(key, (fields, text, report, rec.formulation))
                waiting.append((attempt, key))
            item.attempts.append(attempt)
        items.append(item)
    if to_verify and verification.verifier is not None and verification.artifact is not None:
        codes: dict[str, str] = {}
        probes: dict[str, int] = {}
        for key, (fields, text, _, formulation) in to_verify.items():
            codes[key], probes[key] = with_axiom_probe(text, release.item(fields["fqn"], formulation).decl or "")
        results = verification.verifier.check(codes)
        identity = verification.verifier.identity.model_dump()
        recorded: dict[str, dict[str, Any]] = {}
        for key, check in results.items():
            if check is None:
                continue
            fields, _, report, formulation = to_verify[key]
            exercise = release.exercise(fields["fqn"], formulation)
            verdict = lean_verdict(check, report.official_lines, identity, probe_line=probes[key],
                                   allowed_axioms=official_axioms(exercise), probe_decl=exercise.decl_name)
            recorded[key] = verification.artifact.record(verdict, verifier=verification.verifier, **fields)
        for attempt, key in waiting:
            if key in recorded:
                attempt.verdict = recorded[key]
                attempt.outcome = "passed" if recorded[key]["compiles"] else "failed"
    return items


def _summaries(items: list[ItemResult], n: int, n_resamples: int, seed: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    counts = [{"item_id": it.item_id, "n": n, "c": it.passed, "pending": it.pending, "group": str(it.chapter)}
              for it in items]
    for k in ks_for(n):
        s = pass_at_k_summary(counts, k, n_resamples=n_resamples, seed=seed)
        upper = [pass_at_k(n, it.passed + it.pending, k) for it in items]
        out[f"pass@{k}"] = {
            "k": k, "value": s.mean, "ci95": list(s.ci95) if s.ci95 else None, "interval_kind": "bootstrap95_items",
            "n_items": s.n_items, "solved_items": sum(v > 0 for v in s.per_item.values()),
            "pending_items": s.pending_items,
            "upper_if_pending_pass": sum(upper) / len(upper) if upper else None,
            "per_chapter": {g: {"n_items": m.n_items, "value": m.mean}
                            for g, m in sorted(s.per_group.items(), key=lambda kv: int(kv[0]))},
            "per_local_definitions": _per_bucket(items, s.per_item),
            "per_item": s.per_item,
        }
    return out


def _per_bucket(items: list[ItemResult], per_item: Mapping[str, float]) -> dict[str, dict[str, Any]]:
    """Mean pass@k in each local-definition bucket (:mod:`.context`), in bucket order, over the items it holds."""
    from lemmata.benchmarks.taobench.context import BUCKETS, bucket

    held: dict[str, list[float]] = {}
    for it in items:
        if it.local_definitions is not None:
            held.setdefault(bucket(it.local_definitions), []).append(per_item[it.item_id])
    return {label: {"n_items": len(held[label]), "value": sum(held[label]) / len(held[label])}
            for label, _ in BUCKETS if label in held}


def score_submission(
    release: TaoRelease,
    header: Header,
    records: Sequence[Record],
    *,
    submission_sha256: str,
    received_at: str,
    verification: Verification | None = None,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    runner_log: Any = None,
) -> Result:
    """The immutable result of one validated submission on ``release``.

    ``runner_log`` is a passed request-log check (:mod:`~lemmata.benchmarks.taobench.runner_log`): the result then
    carries the condition ``runner_log: consistent`` and the check in its provenance; without one neither field is
    written (a self-reported entry, and results stored before the check existed keep their ids)."""
    verification = verification or Verification()
    if header.release != release.release_id:
        raise ValueError(f"submission is for {header.release}, release given is {release.release_id}")
    submitted = verify_attempts(release, records, verification)
    by_key = {(it.fqn, it.formulation): it for it in submitted}
    per_formulation: dict[str, list[ItemResult]] = {}
    excluded: list[str] = []
    unpaired: list[str] = []
    common = paired_fqns(release)
    for f in header.formulations:
        items = []
        for meta in release.items(f):
            if not meta.scoreable:
                excluded.append(meta.item_id)
                continue
            if meta.fqn not in common:  # its twin is malformed: every formulation is scored on the same exercises
                unpaired.append(meta.item_id)
                continue
            it = by_key.get((meta.fqn, f)) or ItemResult(fqn=meta.fqn, formulation=f, chapter=meta.chapter, n=0,
                                                          submitted=False)
            it.n = header.n
            it.local_definitions = release.local_definitions(meta.fqn)
            items.append(it)
        per_formulation[f] = items

    metrics: dict[str, Any] = {}
    for f, items in per_formulation.items():
        metrics[f] = _summaries(items, header.n, n_resamples, seed)
    all_attempts = [a for items in per_formulation.values() for it in items for a in it.attempts]
    outcomes = Counter(a.outcome for a in all_attempts)
    missing = sum(header.n - len(it.attempts) for items in per_formulation.values() for it in items)
    metrics["attempts"] = {"submitted": len(all_attempts), "not_submitted": missing,
                           **{o: outcomes.get(o, 0) for o in ("passed", "failed", "rejected", "pending")}}
    metrics["violations"] = dict(sorted(Counter(v["kind"] for a in all_attempts for v in a.violations).items()))
    if {"tao", "mathlib"} <= set(per_formulation):
        metrics["gap"] = _gap(metrics, per_formulation, header.n, n_resamples, seed)

    main_f = "tao" if "tao" in per_formulation else header.formulations[0]
    p1 = metrics[main_f]["pass@1"]
    pending_items = sum(1 for items in per_formulation.values() for it in items if it.pending)
    complete = pending_items == 0
    identity = verification.artifact.identity if verification.artifact is not None else None
    notes = [f"pass@k over {len(per_formulation[main_f])} {main_f} exercises; attempts not submitted count as failed, "
             "attempts failing the integrity checks are rejected (never sent to Lean)."]
    if excluded:
        notes.append(f"Left out ({len(excluded)}): upstream's official file is not well-formed Lean: "
                     + ", ".join(excluded))
    if unpaired:
        notes.append(f"Also left out ({len(unpaired)}), so that every formulation is scored on the same "
                     f"{len(common)} exercises: the twin of each is not well-formed Lean upstream: "
                     + ", ".join(unpaired))
    if pending_items:
        notes.append(f"{outcomes.get('pending', 0)} attempt(s) on {pending_items} exercise(s) await a Lean verdict: "
                     "the headline stays empty until they have one; metrics give pass@k with pending attempts as "
                     "not passed (value) and as passed (upper_if_pending_pass). Rescore with a verifier.")
    if runner_log is not None:
        notes.append("Attempts match a Lemmata runner request log (prompts recomputed from the release, every "
                     "attempt re-extracted from its logged answer); the completions themselves are as submitted.")
    if identity is not None and identity.lean_version == DOUBLE_LEAN_VERSION:
        notes.append("Verdicts come from the protocol double (lexical checks only), not from Lean: test data.")
    frozen = FrozenTuple(dataset_release=release.release_id, split=SPLIT, retrieval_artifact=None,
                         scoring_artifact=verification.scoring_artifact, date=_date(received_at))
    return make_result(
        kind="scored", benchmark=BENCHMARK, track=TRACK, frozen=frozen, submission_sha256=submission_sha256,
        model=header.model,
        flags={**header.flags.model_dump(), "n": header.n, "formulations": list(header.formulations),
               "sampling": header.sampling.model_dump(),
               # a declared condition that splits the board's groups, present only when it is not the paper's
               **({"condition": header.condition} if header.condition else {}),
               **({"runner_log": RUNNER_LOG_CONSISTENT} if runner_log is not None else {})},
        main=Score(metric=f"pass@1 ({main_f})", value=p1["value"] if complete else None,
                   interval=tuple(p1["ci95"]) if p1["ci95"] and complete else None,
                   interval_kind=p1["interval_kind"] if p1["ci95"] and complete else None,
                   count=p1["solved_items"], total=p1["n_items"],
                   bounds=None if complete else (p1["value"], p1["upper_if_pending_pass"])),
        metrics=_without_per_item(metrics),
        breakdowns={dimension: {f: {k: v[f"per_{dimension}"] for k, v in m.items()} for f, m in metrics.items()
                                if f in per_formulation}
                    for dimension in ("chapter", "local_definitions")},
        items=[it.as_dict() for items in per_formulation.values() for it in items],
        pending=pending_items, status="pending_oracle" if pending_items else "complete",
        notes=notes,
        provenance={"integrity": INTEGRITY_VERSION, "verifier": identity.model_dump() if identity else None,
                    "release_manifest": _manifest_sha(release), "excluded_items": excluded + unpaired,
                    "received_at": received_at,
                    **({"runner_log": runner_log.provenance()} if runner_log is not None else {})},
    )


def pass_at_k_curves(items: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, list[float]]]:
    """Per formulation, pass@k for every k ≤ n from a result's stored items (``n``, ``c``, ``pending``): the curve
    the board's one headline k is read from, with pending attempts as not passed (``value``) and as passed
    (``upper_if_pending_pass``). Computed when shown, so a stored result (and its id) is unchanged.

    >>> items = [{"formulation": "tao", "n": 2, "c": 1, "pending": 0}, {"formulation": "tao", "n": 2, "c": 0,
    ...          "pending": 1}]
    >>> pass_at_k_curves(items)
    {'tao': {'value': [0.25, 0.5], 'upper_if_pending_pass': [0.5, 1.0]}}
    """
    from lemmata.metrics.correctness import pass_at_k_curve

    by_form: dict[str, list[Mapping[str, Any]]] = {}
    for it in items:
        by_form.setdefault(str(it["formulation"]), []).append(it)
    out: dict[str, dict[str, list[float]]] = {}
    for form, its in by_form.items():
        n = int(its[0]["n"])
        out[form] = {"value": pass_at_k_curve(n, [int(it["c"]) for it in its]),
                     "upper_if_pending_pass": pass_at_k_curve(n, [int(it["c"]) + int(it["pending"]) for it in its])}
    return out


def headlines(doc: Mapping[str, Any]) -> dict[str, float | None]:
    """The other headlines the board may rank a proofs result by: pass@k of its headline formulation for every
    k ≤ n (:func:`pass_at_k_curves`; the paper's own headline is pass@128), each None while attempts are pending
    (as the stored headline is). A document without items (a reported row) offers none.

    >>> items = [{"formulation": "tao", "n": 2, "c": 1, "pending": 0}, {"formulation": "mathlib", "n": 2, "c": 2,
    ...          "pending": 0}]
    >>> headlines({"main": {"metric": "pass@1 (tao)"}, "items": items, "pending": 0})
    {'pass@1 (tao)': 0.5, 'pass@2 (tao)': 1.0}
    """
    items = doc.get("items") or []
    form = str((doc.get("main") or {}).get("metric", "")).partition("(")[2].rstrip(")")
    curve = pass_at_k_curves(it for it in items if it.get("formulation") == form).get(form)
    if not curve:
        return {}
    complete = not doc.get("pending")
    return {f"pass@{k} ({form})": (value if complete else None) for k, value in enumerate(curve["value"], 1)}


def paired_fqns(release: TaoRelease) -> set[str]:
    """Exercises scoreable in every formulation: the one exercise set both pass@k and the gap are computed on.

    The set is a property of the release, never of a submission: what a
    submitter leaves out counts as failed, so it cannot move the gap.
    """
    return {fqn for fqn in release.fqns()
            if all(release.item(fqn, f).scoreable for f in FORMULATIONS)}


def _gap(metrics: dict[str, Any], per_formulation: dict[str, list[ItemResult]], n: int, n_resamples: int,
         seed: int) -> dict[str, Any]:
    both = sorted({it.fqn for it in per_formulation["tao"]} & {it.fqn for it in per_formulation["mathlib"]})
    out: dict[str, Any] = {"n_items": len(both), "definition": "tao − mathlib, per-exercise pass@k over every "
                           "exercise scoreable in both formulations (unsubmitted attempts count as failed); "
                           "paired bootstrap over exercises"}
    if not both:
        return out
    for k in ks_for(n):
        a = {fqn: metrics["tao"][f"pass@{k}"]["per_item"][f"{fqn}@tao"] for fqn in both}
        b = {fqn: metrics["mathlib"][f"pass@{k}"]["per_item"][f"{fqn}@mathlib"] for fqn in both}
        c = paired_comparison(a, b, n_resamples=n_resamples, seed=seed)
        out[f"pass@{k}"] = {"tao": c.mean_a, "mathlib": c.mean_b, "difference": c.difference,
                            "paired_bootstrap95": list(c.paired_bootstrap95) if c.paired_bootstrap95 else None,
                            "contingency": c.contingency.model_dump() if c.contingency else None,
                            "relative_drop": (c.mean_b - c.mean_a) / c.mean_b if c.mean_b else None}
    return out


def _without_per_item(metrics: dict[str, Any]) -> dict[str, Any]:
    """Metrics as stored: per-item values live in ``items``, not repeated here."""
    out: dict[str, Any] = {}
    for key, value in metrics.items():
        if isinstance(value, dict) and all(isinstance(v, dict) and "per_item" in v for v in value.values()) and value:
            out[key] = {k: {kk: vv for kk, vv in v.items() if kk != "per_item"} for k, v in value.items()}
        else:
            out[key] = value
    return out


def _date(received_at: str) -> str:
    return dt.datetime.fromisoformat(received_at.replace("Z", "+00:00")).date().isoformat()


def _manifest_sha(release: TaoRelease) -> str:
    from lemmata.core.hashing import sha256_file

    return sha256_file(release.root / "MANIFEST.json")

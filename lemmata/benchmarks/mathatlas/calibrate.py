"""``lemmata calibrate --judge``: how well the configured faithfulness judge agrees with people, on MA-Align.

The judge that scores MathAtlas faithfulness (``LEMMATA_JUDGE_*``, read through
:func:`~lemmata.benchmarks.mathatlas.verdicts.alignment_judge_from`) answers every MA-Align pair under the same
rubric it uses on MathAtlas items of that kind (``faithful-definition.v1`` for the definition pairs,
``faithful-statement.v1`` for the statement pairs) and through the same judge artifact, so its verdicts land in
the same hash-chained cache and a rerun asks nothing twice. An unreadable reply counts as misaligned, as in
scoring. Its agreement with each of MA-Align's two label sets (the published labels and the authors' relabel)
is accuracy (Wilson 95%), precision, recall and F1 of the *aligned* class (pair bootstrap 95%,
:func:`~lemmata.benchmarks.mathatlas.track.judge_report`) and Cohen's kappa (pair bootstrap 95%,
:mod:`lemmata.metrics.agreement`), overall and per kind. The record is written into the judge's artifact folder
as ``CALIBRATION.json`` beside its ``ARTIFACT.json`` (:mod:`lemmata.oracles.calibration`): the calibration
belongs to that judge and rubric set, and the board shows it beside every column that judge decides.
A pair the judge could not answer (the endpoint failed) leaves the calibration incomplete: nothing is written.
"""

from __future__ import annotations

import json
from typing import Any

from lemmata.core.verbs import Verbs
from lemmata.oracles.calibration import CALIBRATION_FILE, SCHEMA

VERBS = Verbs("lemmata.benchmarks.mathatlas")


def agreement(gold: list[bool], predicted: list[bool]) -> dict[str, Any]:
    """A judge's predictions against one label set: :func:`~lemmata.benchmarks.mathatlas.track.judge_report` and
    Cohen's kappa with its pair-bootstrap interval (a :class:`lemmata.oracles.calibration.Agreement`)."""
    from lemmata.benchmarks.mathatlas.track import judge_report
    from lemmata.metrics.agreement import cohen_kappa, kappa_interval

    report = judge_report(gold, predicted)
    interval = kappa_interval(gold, predicted)
    report["kappa"] = {"value": cohen_kappa(gold, predicted), "interval": list(interval) if interval else None,
                       "interval_kind": "pair_bootstrap95"}
    return report


def calibrate(oracles: Any, *, quiet: bool = True) -> tuple[dict[str, Any], Any]:
    """Judge every MA-Align pair with the configured judge; the calibration record and the judge artifact."""
    from lemmata.benchmarks.mathatlas.meta import LABEL_SETS, MA_ALIGN
    from lemmata.benchmarks.mathatlas.verdicts import alignment_judge_from, judge_artifact
    from lemmata.catalog import load_release, read_columns
    from lemmata.core.errors import LemmataError
    from lemmata.formats.results import now_iso
    from lemmata.oracles.calibration import Calibration

    judge = alignment_judge_from(oracles.extra.get("judge") or oracles.judge)
    if judge is None:
        raise LemmataError("no judge configured: set LEMMATA_JUDGE_BASE_URL and LEMMATA_JUDGE_MODEL")
    artifact = judge_artifact(judge, oracles.extra.get("judge_artifact"))
    cols = read_columns(load_release(MA_ALIGN), "pairs", "test",
                        ["pair_id", "kind", "informal_statement", "formal_statement", "label", "relabel"])
    pairs = [dict(zip(cols, values)) for values in zip(*cols.values())]
    questions = [(p["kind"], {"release": MA_ALIGN.release_id, "pair_id": p["pair_id"], "kind": p["kind"]},
                  {"informal": p["informal_statement"], "formal": p["formal_statement"]}) for p in pairs]
    verdicts = artifact.obtain_all(questions, judge, quiet=quiet, desc="MA-Align calibration")
    missing = sum(v is None for v in verdicts)
    if missing:
        raise LemmataError(f"the judge gave no answer on {missing} of {len(pairs)} MA-Align pairs: no calibration "
                           "recorded; rerun (answered pairs are cached)")
    predicted = [v.get("result") == "aligned" and v.get("parsed", True) is True for v in verdicts]
    label_sets = {}
    for name in LABEL_SETS:
        gold = [p[name if name == "relabel" else "label"] == "aligned" for p in pairs]
        by_kind = {kind: agreement([g for g, p in zip(gold, pairs) if p["kind"] == kind],
                                    [x for x, p in zip(predicted, pairs) if p["kind"] == kind])
                   for kind in sorted({p["kind"] for p in pairs})}
        label_sets[name] = {"source": LABEL_SETS[name], **agreement(gold, predicted), "by_kind": by_kind}
    record = {
        "schema": SCHEMA, "artifact_id": artifact.artifact_id, "judge": artifact.manifest.judge,
        "rubrics": {k: pin.model_dump() for k, pin in artifact.manifest.rubrics.items()},
        "release": MA_ALIGN.release_id, "measured_on": "MA-Align", "headline": "published", "pairs": len(pairs),
        "unparsable": sum(v.get("parsed") is False for v in verdicts),
        "settled_by_rule": sum(v.get("settled_by") == "rule" for v in verdicts),
        "label_sets": label_sets, "calibrated_at": now_iso(),
        "items": [{"pair_id": p["pair_id"], "kind": p["kind"], "predicted": x, "published": p["label"] == "aligned",
                   "relabel": p["relabel"] == "aligned"} for p, x in zip(pairs, predicted)],
    }
    Calibration.model_validate(record)  # what the board reads back (lemmata.oracles.calibration)
    return record, artifact


def register(sub) -> None:
    p = VERBS.add(sub, "calibrate")
    p.add_argument("--judge", action="store_true", required=True, help="calibrate the configured judge")
    p.add_argument("--judge-artifact", metavar="DIR", help="judge artifact folder (default: the judge's own under "
                   "$LEMMATA_HOME/artifacts/judges, or LEMMATA_JUDGE_ARTIFACT)")
    p.add_argument("--out", metavar="FILE", help="also write the calibration record here")
    p.add_argument("--quiet", action="store_true", help="no progress output")
    p.set_defaults(handler=run)


def run(args) -> int:
    from pathlib import Path

    from lemmata.core.atomic import atomic_write_text
    from lemmata.scoring import oracles_from_env

    oracles = oracles_from_env(extra={"judge_artifact": args.judge_artifact} if args.judge_artifact else {})
    record, artifact = calibrate(oracles, quiet=args.quiet)
    text = json.dumps(record, indent=2, ensure_ascii=False) + "\n"
    path = atomic_write_text(Path(artifact.folder) / CALIBRATION_FILE, text)
    if args.out:
        atomic_write_text(args.out, text)
    print(f"calibration: {path}")
    for name, rep in record["label_sets"].items():
        acc, f1, kappa = rep["accuracy"], rep["f1"]["value"], rep["kappa"]["value"]
        print(f"{name}: accuracy {acc['value']:.3f} ({acc['count']}/{acc['total']}), "
              f"F1 {'undefined' if f1 is None else f'{f1:.3f}'}, kappa {'undefined' if kappa is None else f'{kappa:.3f}'}")
    return 0

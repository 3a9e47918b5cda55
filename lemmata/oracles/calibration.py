"""A judge's calibration: how well it agrees with people, recorded beside its verdicts, read back for the board.

A judge decides some of the numbers on the board (MathAtlas faithfulness, MathNet-Solve grades, Re²Math's
Suff); how far to trust them depends on how often that judge agrees with people on labelled pairs. A family's
calibration command (``lemmata calibrate --judge``: MA-Align's 200 labelled formalization pairs) answers every
pair with the configured judge and writes a :class:`Calibration` as ``CALIBRATION.json`` into the judge's
artifact folder under ``<artifacts>/judges/``. The board reads them all (:func:`find_calibrations`) and shows,
beside each judge-decided column, the calibration of the judge that scored it — or "uncalibrated".

A calibration is of the judge (model and endpoint, by id) under the rubrics it was measured with (recorded in
:attr:`Calibration.rubrics`), and it is keyed by both (:attr:`Calibration.key`): the agreement of a judge with
people under MA-Align's faithfulness rubrics says nothing measured about its Suff verdicts on Re²Math. A column
shows a calibration only when its judge was calibrated under every rubric the column was judged under
(:func:`calibration_for`); a judge calibrated under other rubrics only is "uncalibrated for this rubric".
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError

from lemmata.core.errors import InputError
from lemmata.core.models import Frozen

__all__ = ["CALIBRATION_FILE", "SCHEMA", "Calibration", "Calibrations", "calibration_for", "find_calibrations",
           "read_calibration"]

CALIBRATION_FILE = "CALIBRATION.json"
SCHEMA = "lemmata.judge-calibration/1"


class Estimate(Frozen):
    """One agreement number with its interval (None where undefined, e.g. kappa of two constant raters)."""

    value: float | None
    interval: tuple[float, float] | None = None
    interval_kind: str | None = None


class Accuracy(Estimate):
    count: int = Field(ge=0)
    total: int = Field(ge=0)


class Agreement(Frozen):
    """A judge against one label set: confusion counts, accuracy, precision/recall/F1 of the positive class, kappa."""

    n: int = Field(ge=0)
    confusion: dict[str, int]
    accuracy: Accuracy
    precision: Estimate
    recall: Estimate
    f1: Estimate
    kappa: Estimate


class LabelSet(Agreement):
    source: str = Field(description="where the label set comes from")
    by_kind: dict[str, Agreement] = Field(default_factory=dict, description="the same numbers per kind of pair")


class Calibration(Frozen):
    """``CALIBRATION.json``: one judge's agreement with people on a labelled set, against each of its label sets."""

    schema_: Literal["lemmata.judge-calibration/1"] = Field(SCHEMA, alias="schema")
    artifact_id: str = Field(description="the judge artifact whose verdicts were compared")
    judge: dict[str, Any] = Field(description="the judge's public description; ``id`` names it")
    rubrics: dict[str, dict[str, str]] = Field(description="kind -> the rubric pin (id, sha256) it was asked under")
    release: str = Field(description="the labelled release, e.g. 'ma-align-2.0.0'")
    measured_on: str = Field(default="", description="the labelled set's display name, e.g. 'MA-Align'")
    headline: str = Field(default="", description="the label set the board shows first (default: the first)")
    pairs: int = Field(ge=1)
    unparsable: int = Field(ge=0)
    settled_by_rule: int = Field(ge=0)
    label_sets: dict[str, LabelSet] = Field(min_length=1)
    calibrated_at: str
    items: list[dict[str, str | bool]]

    @property
    def judge_id(self) -> str:
        return str(self.judge.get("id") or "")

    @property
    def rubric_ids(self) -> tuple[str, ...]:
        """The rubric ids (name.vN) the judge was asked under, sorted."""
        return tuple(sorted({pin["id"] for pin in self.rubrics.values() if pin.get("id")}))

    @property
    def key(self) -> tuple[str, tuple[str, ...]]:
        """What a calibration is of: the judge's identity and the rubrics it was measured under."""
        return self.judge_id, self.rubric_ids

    def headline_set(self) -> tuple[str, LabelSet]:
        name = self.headline if self.headline in self.label_sets else next(iter(self.label_sets))
        return name, self.label_sets[name]

    def summary(self) -> str:
        """What the board prints beside a judge-decided column.

        >>> est = {"value": 0.5, "interval": None}
        >>> agree = {"n": 200, "confusion": {}, "accuracy": {"value": 0.8, "count": 160, "total": 200},
        ...          "precision": est, "recall": est, "f1": est,
        ...          "kappa": {"value": 0.712, "interval": [0.601, 0.803], "interval_kind": "pair_bootstrap95"}}
        >>> cal = Calibration.model_validate({"artifact_id": "a", "judge": {"id": "chat:m"}, "rubrics": {},
        ...     "release": "ma-align-2.0.0", "measured_on": "MA-Align", "pairs": 200, "unparsable": 0,
        ...     "settled_by_rule": 0, "label_sets": {"published": {**agree, "source": "s"}},
        ...     "calibrated_at": "2026-11-27T10:00:00+00:00", "items": []})
        >>> cal.summary()
        'judge κ 0.71 [0.60, 0.80] on MA-Align (n=200)'
        """
        _, agreement = self.headline_set()
        kappa = agreement.kappa
        value = "undefined" if kappa.value is None else f"{kappa.value:.2f}"
        interval = f" [{kappa.interval[0]:.2f}, {kappa.interval[1]:.2f}]" if kappa.interval else ""
        return f"judge κ {value}{interval} on {self.measured_on or self.release} (n={agreement.n})"

    def detail(self) -> str:
        """The tooltip: every label set's kappa and accuracy, what the judge was measured under, and when."""
        parts = []
        for name, agreement in self.label_sets.items():
            kappa = "undefined" if agreement.kappa.value is None else f"{agreement.kappa.value:.3f}"
            acc = agreement.accuracy
            parts.append(f"{name} labels: Cohen's κ {kappa}, accuracy {acc.count}/{acc.total}")
        rubrics = ", ".join(sorted(pin.get("id", "?") for pin in self.rubrics.values())) or "unrecorded rubrics"
        return (f"Judge {self.judge_id} against people on {self.release} ({self.pairs} labelled pairs, rubrics "
                f"{rubrics}; {self.unparsable} unreadable replies counted as wrong): " + "; ".join(parts)
                + f". Calibrated {self.calibrated_at[:10]} (lemmata calibrate --judge).")


def read_calibration(path: str | Path) -> Calibration:
    """One ``CALIBRATION.json``; an InputError names the file and every wrong field."""
    from lemmata.formats.envelope import validation_problems

    path = Path(path)
    try:
        return Calibration.model_validate_json(path.read_bytes())
    except ValidationError as exc:
        raise InputError(validation_problems(exc, str(path), None)) from None
    except OSError as exc:
        raise InputError.one(str(path), f"cannot be read: {exc.strerror or exc}") from None


#: calibrations by :attr:`Calibration.key` (judge id, rubric ids)
Calibrations = dict[tuple[str, tuple[str, ...]], Calibration]


def find_calibrations(folders: Iterable[Path]) -> tuple[Calibrations, list[str]]:
    """The latest calibration (by ``calibrated_at``) of each judge under each rubric set among
    ``<folder>/CALIBRATION.json``, by :attr:`Calibration.key`, and a line for each file that could not be read (the
    board says so instead of failing)."""
    found: Calibrations = {}
    problems: list[str] = []
    for folder in folders:
        path = Path(folder) / CALIBRATION_FILE
        if not path.is_file():
            continue
        try:
            cal = read_calibration(path)
        except InputError as exc:
            problems.append(str(exc.problems[0]) if exc.problems else f"{path}: {exc}")
            continue
        if cal.judge_id and (cal.key not in found or cal.calibrated_at > found[cal.key].calibrated_at):
            found[cal.key] = cal
    return found, problems


def calibration_for(found: Calibrations, judge: str, rubrics: Iterable[str]) -> tuple[Calibration | None,
                                                                                       list[Calibration]]:
    """The latest calibration of ``judge`` measured under every one of ``rubrics`` (None: none was, or the rubrics
    are unknown), and the judge's calibrations under other rubrics (what the board names instead).

    >>> def cal(judge, *ids, at="2026-11-27"):
    ...     return Calibration.model_construct(judge={"id": judge}, calibrated_at=at,
    ...                                        rubrics={i: {"id": i, "sha256": "0" * 64} for i in ids})
    >>> atlas = cal("chat:m", "faithful-definition.v1", "faithful-statement.v1")
    >>> found = {atlas.key: atlas}
    >>> calibration_for(found, "chat:m", ["faithful-statement.v1", "faithful-definition.v1"])[0] is atlas
    True
    >>> hit, others = calibration_for(found, "chat:m", ["suff.v3", "anchor.v2"])
    >>> hit is None and others == [atlas]
    True
    >>> calibration_for(found, "chat:other", ["faithful-statement.v1"])
    (None, [])
    """
    wanted = set(rubrics)
    mine = sorted((c for (judge_id, _), c in found.items() if judge_id == judge), key=lambda c: c.calibrated_at,
                  reverse=True)
    match = next((c for c in mine if wanted and wanted <= set(c.rubric_ids)), None)
    return match, [c for c in mine if c is not match]

"""``lemmata build NAME --check``: a Hub dataset's card against what its builder reads, before any data file.

A Hub release is built from upstream data whose layout Lemmata does not control: a renamed column, a new split
or a changed licence otherwise shows up only after a multi-gigabyte download, as a failed build. The card
(``README.md`` at the pinned revision) already says most of it: the ``configs`` block names configs, splits and
data files, ``dataset_info`` the features (columns) and splits of each config, ``license`` the licence.

Each Hub builder declares the layouts it reads (:class:`CardLayout`, derived from its own row models, never a
second column list) through :meth:`~lemmata.release.hub_builder.HubReleaseBuilder.card_layouts`; this module
fetches only the card (the same pinned snapshot machinery, restricted to ``README.md``), compares it with every
declared layout, and reports the differences of the layout that fits (or of the nearest one when none fits)
as rows of one table. A card that states no ``dataset_info`` leaves its columns *unverified* — shown, never
counted as a match. A layout that fits no declared one fails, naming the revision, config, split and column.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from lemmata.core.errors import InputError, Problem
from lemmata.core.meta import HubPin
from lemmata.core.models import Frozen

__all__ = ["CardConfig", "CardLayout", "CardReport", "ConfigLayout", "Row", "card_configs", "check_card",
           "failures", "model_columns", "model_layout", "render_table"]

ANY = "*"


class ConfigLayout(Frozen):
    """One config of the card as the builder reads it."""

    name: str  # a config name, or a pattern ("*": every config the layout names no other way)
    splits: tuple[str, ...] | None = None  # None: whatever splits the card declares
    columns: tuple[str, ...] | None = None  # None: columns are not compared (splits of different shapes)
    optional_columns: tuple[str, ...] = ()  # may be absent from the card's features
    other_splits: bool = False  # True: the builder ignores splits it does not name (shown as skipped)
    other_columns: bool = False  # True: the builder ignores columns it does not name (shown as skipped)
    required: bool = True  # the card must declare it (a pattern: at least one config must match)
    read: bool = True  # False: upstream declares it but the builder does not read it (shown as skipped)


class CardLayout(Frozen):
    """A whole card layout the builder reads: its name (recorded where a builder reads several) and configs."""

    name: str
    configs: tuple[ConfigLayout, ...] = ()
    #: the card declares no configs at all (the builder then finds its files by name; nothing to compare)
    bare: bool = False


@dataclass(frozen=True)
class CardConfig:
    """One config as the card states it: its splits and, where ``dataset_info`` gives them, its columns."""

    name: str
    splits: tuple[str, ...]
    columns: tuple[str, ...] | None


@dataclass(frozen=True)
class Row:
    """One line of the check's table: what the card says and what the builder reads, where they differ."""

    source: str
    config: str
    split: str
    column: str
    card: str
    builder: str
    verdict: str  # "differs" | "unverified" | "skipped"

    @property
    def blocking(self) -> bool:
        return self.verdict == "differs"


@dataclass(frozen=True)
class CardReport:
    """The check of one source's card: the layout that fits (None: none does) and the rows to show."""

    source: str
    pin: HubPin
    card: str
    layout: str | None
    rows: tuple[Row, ...]


def model_columns(model: type[BaseModel], *, optional: bool) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``(columns, optional columns)`` of a row model: its fields (aliases where given); with ``optional``, the
    fields that have a default may be absent.

    >>> class Doc(Frozen):
    ...     uuid: str
    ...     names: list[str] | None = None
    >>> model_columns(Doc, optional=True), model_columns(Doc, optional=False)
    ((('uuid', 'names'), ('names',)), (('uuid', 'names'), ()))
    """
    fields = model.model_fields
    cols = tuple(f.alias or name for name, f in fields.items())
    return cols, tuple(f.alias or name for name, f in fields.items() if optional and not f.is_required())


def model_layout(name: str, model: type[BaseModel], *, config: str = ANY, splits: tuple[str, ...] | None = None,
                 optional: bool = False, other_columns: bool = False,
                 also: tuple[ConfigLayout, ...] = ()) -> CardLayout:
    """A card layout of configs whose rows are ``model`` (plus the configs ``also`` names)."""
    cols, opt = model_columns(model, optional=optional)
    return CardLayout(name=name, configs=(*also, ConfigLayout(name=config, splits=splits, columns=cols,
                                                              optional_columns=opt, other_columns=other_columns)))


def _split_names(files: Any) -> list[str]:
    if isinstance(files, (str, list)) and not (isinstance(files, list) and files and isinstance(files[0], dict)):
        return ["train"]
    return [str(spec.get("split", "train")) for spec in files or [] if isinstance(spec, dict)]


def _feature_names(features: Any) -> tuple[str, ...] | None:
    if isinstance(features, list):
        return tuple(str(f["name"]) for f in features if isinstance(f, dict) and "name" in f)
    if isinstance(features, dict):  # the older mapping form
        return tuple(str(k) for k in features)
    return None


def card_configs(front: Mapping[str, Any]) -> dict[str, CardConfig]:
    """The configs a card's front matter declares (``configs`` and ``dataset_info`` merged), by name.

    >>> front = {"configs": [{"config_name": "corpus", "data_files": [{"split": "corpus", "path": "c.jsonl"}]}],
    ...          "dataset_info": [{"config_name": "corpus", "features": [{"name": "_id", "dtype": "string"}],
    ...                            "splits": [{"name": "corpus", "num_examples": 3}]}]}
    >>> card_configs(front)["corpus"]
    CardConfig(name='corpus', splits=('corpus',), columns=('_id',))
    >>> card_configs({"configs": [{"config_name": "x", "data_files": "x/*.parquet"}]})["x"].columns is None
    True
    """
    splits: dict[str, list[str]] = {}
    columns: dict[str, tuple[str, ...] | None] = {}
    for entry in front.get("configs") or []:
        if isinstance(entry, dict):
            name = str(entry.get("config_name", "default"))
            splits.setdefault(name, [])
            splits[name] += [s for s in _split_names(entry.get("data_files")) if s not in splits[name]]
    infos = front.get("dataset_info") or []
    for info in [infos] if isinstance(infos, dict) else infos:
        if not isinstance(info, dict):
            continue
        name = str(info.get("config_name", "default"))
        columns[name] = _feature_names(info.get("features"))
        stated = [str(s.get("name")) for s in info.get("splits") or [] if isinstance(s, dict)]
        if name not in splits:
            splits[name] = stated
    return {name: CardConfig(name, tuple(s), columns.get(name)) for name, s in splits.items()}


def _compare_config(source: str, want: ConfigLayout, have: CardConfig) -> list[Row]:
    rows: list[Row] = []

    def row(split: str, column: str, card: str, builder: str, verdict: str = "differs") -> None:
        rows.append(Row(source, have.name, split, column, card, builder, verdict))

    if not want.read:
        row("*", "*", "declared", "not read", "skipped")
        return rows
    if want.splits is not None:
        for split in sorted(set(want.splits) - set(have.splits)):
            row(split, "-", "no such split", "reads it")
        for split in sorted(set(have.splits) - set(want.splits)):
            if want.other_splits:
                row(split, "-", "declares it", "not read", "skipped")
            else:
                row(split, "-", "declares it", f"reads only {', '.join(want.splits)}")
    split = ", ".join(have.splits) or "-"
    if want.columns is None:
        row(split, "*", "features stated" if have.columns else "no dataset_info features", "columns not compared",
            "unverified")
        return rows
    if have.columns is None:
        row(split, "*", "no dataset_info features", f"{len(want.columns)} columns", "unverified")
        return rows
    stated = set(have.columns)
    for col in want.columns:
        if col not in stated and col not in want.optional_columns:
            row(split, col, "missing", "reads it")
    for col in have.columns:
        if col not in want.columns:
            row(split, col, "present", "not read" if want.other_columns else "unknown column",
                "skipped" if want.other_columns else "differs")
    return rows


def compare_layout(source: str, layout: CardLayout, configs: Mapping[str, CardConfig]) -> list[Row]:
    """The rows where the card differs from ``layout`` (blocking ones: verdict ``differs``)."""
    rows: list[Row] = []
    if layout.bare:
        if configs:
            return [Row(source, ", ".join(configs), "-", "-", "declares configs", "reads files by name only when "
                        "the card declares none", "differs")]
        return [Row(source, "-", "-", "*", "no configs", "files by name", "unverified")]
    named = [c for c in layout.configs if not any(ch in c.name for ch in "*?[")]
    patterns = [c for c in layout.configs if c not in named]
    taken = {c.name for c in named}
    for want in named:
        if want.name in configs:
            rows += _compare_config(source, want, configs[want.name])
        elif want.required:
            rows.append(Row(source, want.name, "-", "-", "no such config", "reads it", "differs"))
    for want in patterns:
        matched = [n for n in configs if n not in taken and fnmatch.fnmatchcase(n, want.name)]
        taken.update(matched)
        for name in matched:
            rows += _compare_config(source, want, configs[name])
        if not matched and want.required:
            rows.append(Row(source, want.name, "-", "-", "no config matches", "reads at least one", "differs"))
    for name in configs:
        if name not in taken:
            rows.append(Row(source, name, "*", "*", "declared", "not read", "skipped"))
    return rows


def _license_row(source: str, stated: str | None, license_id: str) -> list[Row]:
    """The licence difference, by the build's own rule (a card without one states ``unknown``; ``other`` is
    described per subset in prose and not compared)."""
    if license_id == "other" or (stated or "unknown") == license_id:
        return []
    return [Row(source, "-", "-", "license", stated or "unknown", license_id, "differs")]


def check_card(source: str, pin: HubPin, card: Path, license_id: str, layouts: Sequence[CardLayout]) -> CardReport:
    """Compare one card with every declared layout; the first that fits, else the nearest, is reported."""
    from lemmata.release.hub import card_front_matter, card_license

    front = card_front_matter(card.parent) if card.is_file() else {}
    configs = card_configs(front)
    licence = _license_row(source, card_license(card.parent) if card.is_file() else None, license_id)
    tried = [(layout, compare_layout(source, layout, configs)) for layout in layouts]
    if not tried:
        return CardReport(source, pin, str(card), None,
                          (Row(source, "-", "-", "-", "-", "declares no card layout", "differs"), *licence))
    fits = [(layout, rows) for layout, rows in tried if not any(r.blocking for r in rows)]
    layout, rows = fits[0] if fits else min(tried, key=lambda lr: sum(r.blocking for r in lr[1]))
    return CardReport(source, pin, str(card), layout.name if fits else None, tuple(licence + rows))


def failures(reports: Iterable[CardReport]) -> list[Problem]:
    """One problem per blocking row, naming the revision, config, split and column."""
    out = []
    for rep in reports:
        for r in rep.rows:
            if r.blocking:
                out.append(Problem(f"{rep.pin.repo_id}@{rep.pin.revision}/README.md",
                                   f"config {r.config!r}, split {r.split!r}, column {r.column!r}: card: {r.card}; "
                                   f"builder: {r.builder}", field="license" if r.column == "license"
                                   else f"configs.{r.config}"))
    return out


def render_table(reports: Sequence[CardReport]) -> str:
    """One plain-text table over every source: a line per source (its layout), then its differing rows.

    >>> pin = HubPin(repo_id="o/d", revision="a" * 40)
    >>> rep = CardReport("o/d", pin, "README.md", "B", (Row("o/d", "x", "train", "extra", "present", "not read",
    ...                                                      "skipped"),))
    >>> print(render_table([rep]))
    source          config  split  column  card     builder   verdict
    o/d@aaaaaaaaaa  *       *      *       layout   B         fits
    o/d@aaaaaaaaaa  x       train  extra   present  not read  skipped
    """
    header = ("source", "config", "split", "column", "card", "builder", "verdict")
    lines: list[tuple[str, ...]] = [header]
    for rep in reports:
        where = f"{rep.pin.repo_id}@{rep.pin.revision[:10]}"
        fits = rep.layout is not None and not any(r.blocking for r in rep.rows)
        lines.append((where, "*", "*", "*", "layout", rep.layout or "none fits", "fits" if fits else "differs"))
        lines += [(where, r.config, r.split, r.column, r.card, r.builder, r.verdict) for r in rep.rows]
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(line, widths)).rstrip() for line in lines)

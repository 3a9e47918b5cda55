"""The dataset card (README.md): YAML ``configs:`` + pinned ``dataset_info``, then prose."""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING

import yaml

from lemmata.core.meta import BenchmarkMeta
from lemmata.core.yaml_text import load_yaml

if TYPE_CHECKING:  # pragma: no cover
    from datasets import Features

CARD = "README.md"

_TASK_CATEGORIES = {
    "tool-retrieval": ["text-retrieval", "question-answering"],
    "theorem-proving": ["text-generation"],
    "equivalence-retrieval": ["text-retrieval"],
    "information-retrieval": ["text-retrieval"],
    "autoformalization": ["text-generation", "translation"],
    "problem-solving": ["text-generation", "question-answering", "image-to-text"],
}


@dataclass(frozen=True)
class SplitStats:
    config: str
    split: str
    path: str
    rows: int
    num_bytes: int


def _size_category(n: int) -> str:
    for bound, label in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M")):
        if n < bound:
            return label
    return "n>1M"


def front_matter(meta: BenchmarkMeta, features: dict[str, "Features"], stats: list[SplitStats]) -> dict:
    from datasets import DatasetInfo
    from datasets.splits import SplitDict, SplitInfo

    configs, infos = [], []
    for cfg in meta.configs:
        cfg_stats = [s for s in stats if s.config == cfg.name]
        if not cfg_stats:
            continue
        entry = {"config_name": cfg.name, "data_files": [{"split": s.split, "path": s.path} for s in cfg_stats]}
        if cfg.default:
            entry["default"] = True
        configs.append(entry)
        splits = SplitDict()
        for s in cfg_stats:
            splits.add(SplitInfo(name=s.split, num_bytes=s.num_bytes, num_examples=s.rows))
        size = sum(s.num_bytes for s in cfg_stats)
        info = DatasetInfo(features=features[cfg.name], splits=splits, config_name=cfg.name,
                           download_size=size, dataset_size=size)
        infos.append(info._to_yaml_dict())
    total = max((sum(s.rows for s in stats if s.config == c["config_name"]) for c in configs), default=0)
    return {
        "pretty_name": meta.title,
        "license": meta.license_id,
        "language": ["en"],
        "task_categories": _TASK_CATEGORIES[meta.task_type],
        "tags": list(meta.tags),
        "size_categories": [_size_category(total)],
        "configs": configs,
        "dataset_info": infos,
    }


def render_card(
    meta: BenchmarkMeta,
    features: dict[str, "Features"],
    stats: list[SplitStats],
    *,
    body: str,
    builder: str,
    builder_version: str,
) -> str:
    import jinja2

    from lemmata.release.hub import hub_owner

    template = resources.files("lemmata.release").joinpath("templates/dataset_card.md.jinja").read_text("utf-8")
    env = jinja2.Environment(keep_trailing_newline=True, autoescape=False, undefined=jinja2.StrictUndefined)
    default = next((c for c in meta.configs if c.default), meta.configs[0])
    descriptions = {c.name: c.description for c in meta.configs}
    fm = yaml.safe_dump(front_matter(meta, features, stats), sort_keys=False, allow_unicode=True, width=1000)
    return env.from_string(template).render(
        meta=meta,
        front_matter=fm,
        builder=builder,
        builder_version=builder_version,
        upstream_url=meta.upstream_url,
        default_config=default.name,
        hub_owner=hub_owner(),
        default_split=default.splits[0],
        split_rows=[
            {"config": s.config, "split": s.split, "rows": s.rows, "description": descriptions[s.config]} for s in stats
        ],
        body=body.strip() + "\n" if body.strip() else "",
    )


def parse_front_matter(card_text: str) -> dict:
    """The YAML block of a card (used by tests and by publishing)."""
    if not card_text.startswith("---\n"):
        raise ValueError("card has no YAML front matter")
    end = card_text.index("\n---", 4)
    return load_yaml(card_text[4:end])

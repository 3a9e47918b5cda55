"""Croissant 1.1 JSON-LD for a release, generated from its pinned features.

One record set per config; a config with several splits reads all its shards
through a FileSet and exposes the split as a field derived from the file name.
Every shard is also listed as a FileObject with its sha256.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lemmata.core.hashing import sha256_file
from lemmata.core.meta import BenchmarkMeta

if TYPE_CHECKING:  # pragma: no cover
    from datasets import Features

CROISSANT = "croissant.json"
CONFORMS_TO = "http://mlcommons.org/croissant/1.1"
_SHARD_RE = r"^(?:.*/)?([a-z0-9_]+)-\d{5}-of-\d{5}\.parquet$"

_LICENSE_URLS = {
    "mit": "https://opensource.org/licenses/MIT",
    "apache-2.0": "https://www.apache.org/licenses/LICENSE-2.0",
    "cc-by-4.0": "https://creativecommons.org/licenses/by/4.0/",
    "cc-by-sa-4.0": "https://creativecommons.org/licenses/by-sa/4.0/",
    "cc0-1.0": "https://creativecommons.org/publicdomain/zero/1.0/",
}


def _data_type(mlc, dtype: str):
    if dtype in ("string", "large_string"):
        return mlc.DataType.TEXT
    if dtype.startswith(("int", "uint")):
        return mlc.DataType.INTEGER
    if dtype.startswith("float"):
        return mlc.DataType.FLOAT
    if dtype == "bool":
        return mlc.DataType.BOOL
    raise ValueError(f"no Croissant data type for feature dtype {dtype!r}")


def _fields(mlc, features: "Features", *, rs_id: str, source_kw: dict, column: str | None = None, path: tuple = ()):
    from datasets import Image, List, Sequence, Value

    out = []
    for name, feat in features.items():
        fid = f"{rs_id}/{'/'.join(path + (name,))}"
        col = column or name
        json_path = ".".join(path[1:] + (name,)) if column else None

        def source():
            transforms = [mlc.Transform(json_path=json_path)] if json_path else []
            return mlc.Source(extract=mlc.Extract(column=col), transforms=transforms, **source_kw)

        if isinstance(feat, dict):
            sub = _fields(mlc, feat, rs_id=rs_id, source_kw=source_kw, column=col, path=path + (name,))
            out.append(mlc.Field(id=fid, name=name, sub_fields=sub))
        elif isinstance(feat, (List, Sequence)) and isinstance(feat.feature, Value):
            out.append(mlc.Field(id=fid, name=name, data_types=[_data_type(mlc, feat.feature.dtype)],
                                 is_array=True, array_shape="-1", source=source()))
        elif isinstance(feat, Value):
            out.append(mlc.Field(id=fid, name=name, data_types=[_data_type(mlc, feat.dtype)], source=source()))
        elif isinstance(feat, Image) and not column:  # a Hugging Face image: a {bytes, path} struct column
            out.append(mlc.Field(id=fid, name=name, data_types=[mlc.DataType.IMAGE_OBJECT],
                                 source=mlc.Source(extract=mlc.Extract(column=col),
                                                   transforms=[mlc.Transform(json_path="bytes")], **source_kw)))
        else:
            raise ValueError(f"feature {fid} has type {type(feat).__name__}, which the Croissant writer does not map")
    return out


def build_croissant(
    root: Path, meta: BenchmarkMeta, configs: dict[str, tuple["Features", dict[str, str]]]
) -> dict[str, Any]:
    """JSON-LD for ``configs``: ``{config: (features, {split: relative parquet path})}``."""
    import mlcroissant as mlc

    distribution = []
    record_sets = []
    for config, (features, shards) in configs.items():
        for split, rel in shards.items():
            distribution.append(
                mlc.FileObject(
                    id=f"{config}/{split}", name=f"{config}/{split}", content_url=rel,
                    encoding_formats=["application/x-parquet"], sha256=sha256_file(root / rel),
                    content_size=f"{(root / rel).stat().st_size} B",
                )
            )
        if len(shards) == 1:
            (split,) = shards
            source_kw = {"file_object": f"{config}/{split}"}
            fields = []
        else:
            set_id = f"{config}/files"
            distribution.append(
                mlc.FileSet(id=set_id, name=set_id, includes=[f"data/{config}/*.parquet"],
                            encoding_formats=["application/x-parquet"])
            )
            source_kw = {"file_set": set_id}
            fields = [
                mlc.Field(
                    id=f"{config}/split", name="split", data_types=[mlc.DataType.TEXT],
                    description="split this record belongs to (" + ", ".join(shards) + ")",
                    source=mlc.Source(file_set=set_id, extract=mlc.Extract(file_property="fullpath"),
                                      transforms=[mlc.Transform(regex=_SHARD_RE)]),
                )
            ]
        fields += _fields(mlc, features, rs_id=config, source_kw=source_kw)
        cfg = meta.config(config)
        record_sets.append(mlc.RecordSet(id=config, name=config, description=cfg.description, fields=fields))
    license_url = _LICENSE_URLS.get(meta.license_id)
    metadata = mlc.Metadata(
        name=meta.release_id,
        description=meta.description,
        cite_as=meta.citation.strip(),
        url=meta.upstream_url,
        license=[license_url] if license_url else [meta.license],
        version=meta.version,
        date_published=dt.datetime.fromisoformat(meta.released),
        creators=[mlc.Person(name=a) for a in meta.authors] or [mlc.Organization(name=meta.upstream_repo)],
        keywords=list(meta.tags),
        distribution=distribution,
        record_sets=record_sets,
        conforms_to=CONFORMS_TO,
    )
    issues = metadata.issues.report()
    if metadata.issues.errors:
        raise ValueError(f"generated Croissant for {meta.release_id} is invalid:\n{issues}")
    return metadata.to_json()


def write_croissant(root: Path, meta: BenchmarkMeta, configs) -> None:
    doc = build_croissant(root, meta, configs)
    (root / CROISSANT).write_text(json.dumps(doc, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8")

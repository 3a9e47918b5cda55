"""What every version of the offline scholarly artifact shares: its name stem, the files its folder holds, how a
folder says which version it holds, and the fields its ``ARTIFACT.json`` opens with."""

from __future__ import annotations

from pathlib import Path

from lemmata.core.models import Frozen

ARTIFACT_NAME = "re2math-scholar-offline"
#: the artifact's own description (what it was built from, how it ranks), verified with MANIFEST.json on open
INFO_FILE = "ARTIFACT.json"
#: the bm25s index folder (:func:`lemmata.retrievers.bm25.postings.write_index`)
INDEX_DIR = "index"


def declares_schema(path: str | Path, schema: str) -> bool:
    """Does the folder's :data:`INFO_FILE` declare ``schema`` (each version writes its own ``schema_version``)?

    >>> declares_schema("/nonexistent", "lemmata.scholarly-artifact/2")
    False
    """
    import json

    try:
        info = json.loads((Path(path) / INFO_FILE).read_text("utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(info, dict) and info.get("schema_version") == schema


class ArtifactHead(Frozen):
    """The fields every version's :data:`INFO_FILE` opens with, in this order: what the artifact is and the Re²Math
    release it was built from (a version fixes its ``schema_version`` and adds its inputs, builder and settings)."""

    schema_version: str
    id: str
    name: str
    version: str
    release_id: str
    release_manifest_sha256: str
    release_rows: str

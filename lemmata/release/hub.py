"""Pinned Hugging Face Hub dataset snapshots, and the data files their cards declare.

Some benchmarks publish data only on the Hub. A builder names each dataset by
a :class:`~lemmata.core.meta.HubPin` (repository + commit); :func:`snapshot` then
downloads exactly that revision (only the files the builder needs) or, with a
local folder, reads a snapshot the user fetched elsewhere. An unreachable Hub
is an environment failure: one :class:`~lemmata.core.errors.LemmataError` sentence
naming the dataset and revision, never a traceback.

Which file holds which config and split is read from the snapshot's own card
(the ``configs:`` block of ``README.md``), exactly as ``datasets.load_dataset``
does, so a builder depends on upstream config names, not on file names.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lemmata.core.errors import InputError, Problem
from lemmata.core.meta import HubPin
from lemmata.formats.datafiles import iter_records  # noqa: F401  (builders read Hub data files through here)
from lemmata.release.sources import SourceUnavailable

#: revision value of a pin whose commit the maintainers have not recorded yet; never downloaded
UNPINNED = "unpinned"
#: the Hub user or organisation that publishes Lemmata's releases, unless LEMMATA_HUB_OWNER names another
DEFAULT_HUB_OWNER = "lemmata"
_OWNER = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,94}[A-Za-z0-9])?$")
_COMMIT = re.compile(r"^[0-9a-f]{40}$")
CARD = "README.md"


def hub_owner(environ=None) -> str:
    """The Hub owner the cards' and the About tab's ``load_dataset`` snippet names (``LEMMATA_HUB_OWNER``).

    A release published with ``lemmata publish --repo OWNER/NAME`` loads as ``OWNER/NAME``; a fork that
    publishes under its own organisation sets the variable so the snippets it shows point there.

    >>> hub_owner({}), hub_owner({"LEMMATA_HUB_OWNER": " my-org "})
    ('lemmata', 'my-org')
    >>> hub_owner({"LEMMATA_HUB_OWNER": "a/b"})
    Traceback (most recent call last):
    ...
    lemmata.core.errors.InputError: 1 problem found:
      - LEMMATA_HUB_OWNER, field 'LEMMATA_HUB_OWNER': 'a/b' is not a Hub user or organisation name (letters, digits, '-', '_', '.'; at most 96 characters)
    """
    from lemmata.core.settings import read

    value = read("LEMMATA_HUB_OWNER", environ) or DEFAULT_HUB_OWNER
    if not _OWNER.match(value):
        raise InputError.one("LEMMATA_HUB_OWNER", f"{value[:100]!r} is not a Hub user or organisation name (letters, "
                                                  "digits, '-', '_', '.'; at most 96 characters)",
                             field="LEMMATA_HUB_OWNER")
    return value


def hub_url(pin: HubPin) -> str:
    """Browsable address of the pinned revision.

    >>> hub_url(HubPin(repo_id="hcju/msedup", revision="fda2c63e29fbd6e09426d8ad87bfe41f9e5dedf3"))
    'https://huggingface.co/datasets/hcju/msedup/tree/fda2c63e29fbd6e09426d8ad87bfe41f9e5dedf3'
    """
    return f"https://huggingface.co/datasets/{pin.repo_id}/tree/{pin.revision}"


def is_pinned(pin: HubPin) -> bool:
    """True when the revision is a full commit sha (a branch or tag may move).

    >>> is_pinned(HubPin(repo_id="a/b", revision=UNPINNED))
    False
    """
    return bool(_COMMIT.match(pin.revision))


def local_snapshot(pin: HubPin, source_dir: str | Path) -> Path:
    """The folder holding a local snapshot of ``pin``.

    ``source_dir`` is either the snapshot itself or a parent holding one folder
    per repository, named like the repository (``msedup`` for ``hcju/msedup``),
    so one ``--source-dir`` serves a family pinned to several repositories.
    """
    root = Path(source_dir)
    nested = root / pin.repo_id.split("/")[-1]
    if nested.is_dir():
        return nested
    if root.is_dir():
        return root
    raise InputError.one(str(root), f"local snapshot folder of {pin.repo_id} does not exist")


def mirror_or(source_dir: str | Path | None, meta) -> Path | None:
    """``source_dir``, else the family's folder in the local mirror of upstream files (as in CI), else None."""
    from lemmata.core.paths import default_source_dir

    return Path(source_dir) if source_dir is not None else default_source_dir(meta.family)


def snapshot(
    pin: HubPin,
    *,
    allow_patterns: Sequence[str],
    ignore_patterns: Sequence[str] = (),
    source_dir: str | Path | None = None,
    endpoint: str | None = None,
) -> Path:
    """A local folder with the files of ``pin`` that match ``allow_patterns`` and none of ``ignore_patterns``.

    With ``source_dir`` nothing is downloaded. Otherwise the pinned revision is
    fetched with ``huggingface_hub.snapshot_download`` into the Hugging Face
    cache (a second build needs no network).
    """
    if source_dir is not None:
        return local_snapshot(pin, source_dir)
    if pin.revision == UNPINNED:
        raise SourceUnavailable(f"the Hugging Face dataset {pin.repo_id} has no pinned revision yet, so it is not "
                                "downloaded (record its commit sha in the release metadata)", hub=True)
    from huggingface_hub import constants, snapshot_download

    # an unreachable Hub answers from the local cache at once, instead of huggingface_hub's retry backoff
    offline = not constants.HF_HUB_OFFLINE and not _reachable(endpoint or constants.ENDPOINT)
    try:
        path = snapshot_download(
            repo_id=pin.repo_id, repo_type="dataset", revision=pin.revision,
            allow_patterns=list(allow_patterns), ignore_patterns=list(ignore_patterns) or None, endpoint=endpoint,
            local_files_only=offline,
        )
    except Exception as exc:  # noqa: BLE001 - every Hub failure becomes one sentence
        raise SourceUnavailable(_unreachable_sentence(pin, exc), hub=True) from None
    return Path(path)


def _reachable(endpoint: str, timeout: float = 3.0) -> bool:
    """Whether a TCP connection to the Hub endpoint opens (name resolution included) within ``timeout``."""
    import socket
    from urllib.parse import urlsplit

    parts = urlsplit(endpoint)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        with socket.create_connection((parts.hostname or "", port), timeout=timeout):
            return True
    except OSError:
        return False


def _unreachable_sentence(pin: HubPin, exc: Exception) -> str:
    from huggingface_hub.errors import GatedRepoError, RepositoryNotFoundError, RevisionNotFoundError

    where = f"the Hugging Face dataset {pin.repo_id} at revision {pin.revision}"
    if isinstance(exc, RevisionNotFoundError):
        why = "the Hub does not know this revision"
    elif isinstance(exc, GatedRepoError):
        why = "the dataset is gated and needs an access token"
    elif isinstance(exc, RepositoryNotFoundError):
        why = "the Hub does not know this repository"
    elif "HF_HUB_OFFLINE" in str(exc) or type(exc).__name__ == "OfflineModeIsEnabled":
        why = "the Hub is unreachable (offline mode, HF_HUB_OFFLINE=1) and no cached copy exists"
    else:
        why = "the Hub is unreachable and no cached copy exists"
    return f"could not download {where}: {why}"


# -- the card's ``configs:`` block ---------------------------------------------

@dataclass(frozen=True)
class DataFiles:
    """The files of one config/split, as the snapshot's card declares them."""

    config: str
    split: str
    paths: tuple[Path, ...]


def card_front_matter(root: Path) -> dict[str, Any]:
    """The YAML block of the snapshot's ``README.md`` ({} when there is none)."""
    import yaml

    from lemmata.core.yaml_text import load_yaml

    path = root / CARD
    if not path.is_file():
        return {}
    text = path.read_text(encoding="utf-8")
    if not text.startswith("---"):
        return {}
    end = text.find("\n---", 3)
    if end < 0:
        raise InputError.one(str(path), "YAML front matter is not closed by a '---' line")
    try:
        data = load_yaml(text[3:end]) or {}
    except yaml.YAMLError as exc:
        raise InputError.one(str(path), f"unreadable YAML front matter: {exc}") from None
    if not isinstance(data, dict):
        raise InputError.one(str(path), "YAML front matter is not a mapping")
    return data


def card_license(root: Path) -> str | None:
    value = card_front_matter(root).get("license")
    if isinstance(value, list):
        return ",".join(str(v) for v in value)
    return str(value) if value else None


def declared_data_files(root: Path, skip: Collection[str] = ()) -> dict[str, dict[str, DataFiles]]:
    """``{config: {split: DataFiles}}`` from the card's ``configs:`` block, globs resolved.

    A path pattern that matches nothing is an error naming the card and field,
    because ``load_dataset`` would fail on it too. Configs named in ``skip`` (ones
    the builder does not read, whose files it therefore did not download) are
    left out unresolved.
    """
    front = card_front_matter(root)
    label = str(root / CARD)
    out: dict[str, dict[str, DataFiles]] = {}
    problems: list[Problem] = []
    for i, entry in enumerate(front.get("configs") or []):
        name = entry.get("config_name", "default")
        if name in skip:
            continue
        files = entry.get("data_files")
        if isinstance(files, (str, list)) and not (isinstance(files, list) and files and isinstance(files[0], dict)):
            files = [{"split": "train", "path": files}]
        for j, spec in enumerate(files or []):
            patterns = spec.get("path")
            patterns = [patterns] if isinstance(patterns, str) else list(patterns or [])
            matched = sorted({p for pat in patterns for p in _glob(root, pat)})
            if not matched:
                problems.append(Problem(label, f"data file pattern {patterns} of config {name!r} matches no file "
                                               f"in the snapshot", field=f"configs[{i}].data_files[{j}].path"))
                continue
            split = spec.get("split", "train")
            out.setdefault(name, {})[split] = DataFiles(name, split, tuple(matched))
    if problems:
        raise InputError(problems)
    return out


def _glob(root: Path, pattern: str) -> list[Path]:
    if not any(ch in pattern for ch in "*?["):
        path = root / pattern
        return [path] if path.is_file() else []
    rel = [p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()]
    return [root / r for r in rel if fnmatch.fnmatchcase(r, pattern)]


def data_files(root: Path, config: str, split: str | None = None) -> DataFiles:
    """The files of one config (and split; the config's only split when None), or an error naming both."""
    from lemmata.core.registry import suggest

    declared = declared_data_files(root)
    label = str(root / CARD)
    if config not in declared:
        raise InputError.one(label, suggest("config", config, declared) + " in the snapshot's card", field="configs")
    splits = declared[config]
    if split is None:
        if len(splits) != 1:
            raise InputError.one(label, f"config {config!r} has splits {sorted(splits)}; expected exactly one",
                                 field="configs")
        return next(iter(splits.values()))
    if split not in splits:
        raise InputError.one(label, suggest(f"split of config {config!r}", split, splits), field="configs")
    return splits[split]


def resolve_url(pin: HubPin, rel: str) -> str:
    """Download address of one file at the pinned revision.

    >>> resolve_url(HubPin(repo_id="a/b", revision="c" * 40), "qrels/test.tsv")[-31:]
    'cccccccccccccccc/qrels/test.tsv'
    """
    return f"https://huggingface.co/datasets/{pin.repo_id}/resolve/{pin.revision}/{rel}"


def check_card_license(pin: HubPin, root: Path, license_id: str) -> None:
    """The licence on the snapshot's card must be the one the release records.

    A card without a licence matches ``unknown``; a release whose licence is
    ``other`` (described per subset in prose) is not checked. A mismatch means
    upstream changed, or the metadata was never updated: both need a person.
    """
    if license_id == "other":
        return
    stated = card_license(root) or "unknown"
    if stated != license_id:
        raise InputError.one(
            str(root / CARD),
            f"the card of {pin.repo_id} states licence {stated!r} but the release records {license_id!r}; "
            "record the stated licence in the release metadata before building",
            field="license",
        )


class UsedFiles:
    """The snapshot files a build read, for MANIFEST.json's ``sources`` (name, pinned URL, sha256)."""

    def __init__(self) -> None:
        self._files: dict[str, tuple[HubPin, Path, Path]] = {}

    def add(self, pin: HubPin, root: Path, paths: Sequence[Path]) -> None:
        for p in paths:
            rel = p.relative_to(root).as_posix()
            self._files[f"{pin.repo_id}/{rel}"] = (pin, root, p)

    def manifest(self) -> list[dict[str, str]]:
        from lemmata.core.hashing import sha256_file

        return [{"name": name, "url": resolve_url(pin, p.relative_to(root).as_posix()), "sha256": sha256_file(p)}
                for name, (pin, root, p) in sorted(self._files.items())]

"""Where Lemmata keeps things on disk, overridable by environment.

``LEMMATA_HOME`` roots everything (releases, artifacts, the leaderboard store;
``LEMMATA_RELEASES`` and ``LEMMATA_STORE`` move one of them);
``LEMMATA_MIRROR`` points at a local mirror of upstream raw files, laid out one
folder per benchmark (``<mirror>/re2math/...``). Without it, a ``shared/data``
folder beside the checkout is used when present, as in CI.
"""

from __future__ import annotations

from pathlib import Path

from lemmata.core.settings import read as setting

_REPO_ROOT = Path(__file__).resolve().parents[2]


def lemmata_home() -> Path:
    env = setting("LEMMATA_HOME")
    if env:
        return Path(env).expanduser()
    base = setting("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "lemmata"


def releases_dir() -> Path:
    """Built releases; ``LEMMATA_RELEASES`` points elsewhere (e.g. a shared, read-mostly folder)."""
    env = setting("LEMMATA_RELEASES")
    return Path(env).expanduser() if env else lemmata_home() / "releases"


def artifacts_dir() -> Path:
    return lemmata_home() / "artifacts"


def repo_root() -> Path:
    """The source checkout this package was imported from (editable installs)."""
    return _REPO_ROOT


def mirror_root() -> Path | None:
    """The local mirror of upstream raw files, if one is configured or found."""
    env = setting("LEMMATA_MIRROR")
    if env:
        return Path(env).expanduser()
    for candidate in (Path.cwd().parent / "shared" / "data", _REPO_ROOT.parent / "shared" / "data"):
        if candidate.is_dir():
            return candidate.resolve()
    return None


def default_source_dir(benchmark_family: str) -> Path | None:
    root = mirror_root()
    if root is None:
        return None
    path = root / benchmark_family
    return path if path.is_dir() else None


def offline_advice(family: str | None = None, folder: str | None = None, *, hub: bool = False) -> str:
    """How to build a release from local files: the one advice every "upstream not reachable" error ends with.

    It names the three places raw files are looked for, in the order they are tried, so an offline user
    reads the same options whichever source (a pinned URL, a Hub dataset, a file with no download) failed.
    ``folder`` is the family's folder in the mirror when it is not named like the family; ``hub`` says the
    files are a snapshot of a Hugging Face dataset.

    >>> offline_advice("re2math")
    'to build it from local files, run `lemmata build re2math --source-dir DIR` with DIR holding its upstream files, or set LEMMATA_MIRROR to a mirror holding them under re2math/, or keep that mirror at ../shared/data beside the checkout'
    >>> offline_advice(hub=True)
    'to build it from local files, run `lemmata build FAMILY --source-dir DIR` with DIR holding a local snapshot of the dataset, or set LEMMATA_MIRROR to a mirror holding it in one folder per benchmark family, or keep that mirror at ../shared/data beside the checkout'
    """
    what, them = ("a local snapshot of the dataset", "it") if hub else ("its upstream files", "them")
    where = f"under {folder or family}/" if (folder or family) else "in one folder per benchmark family"
    return (f"to build it from local files, run `lemmata build {family or 'FAMILY'} --source-dir DIR` with DIR "
            f"holding {what}, or set LEMMATA_MIRROR to a mirror holding {them} {where}, "
            "or keep that mirror at ../shared/data beside the checkout")

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

"""Push a built release to a Hugging Face dataset repository as one tagged commit.

``load_dataset(repo, config, revision=<version>)`` then reproduces the release
exactly: the commit adds every release file, deletes files of earlier releases
that this one does not have, and the tag names the release version. Files the
Hub reads at the repository's root but that are not part of the release's
content (its ``eval.yaml``, :mod:`lemmata.release.eval_yaml`) travel in the same
commit as ``extra`` files, outside the manifest.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lemmata.core.errors import LemmataError
from lemmata.release.load import open_release
from lemmata.release.manifest import MANIFEST


@dataclass(frozen=True)
class PublishPlan:
    repo_id: str
    release_id: str
    tag: str
    files: list[tuple[str, int]]  # (path in repo, bytes)

    def describe(self) -> str:
        lines = [f"would upload {len(self.files)} file(s) of {self.release_id} to dataset repo {self.repo_id} "
                 f"in one commit, tagged {self.tag!r}:"]
        lines += [f"  {path}  ({size} bytes)" for path, size in self.files]
        return "\n".join(lines)


def plan_publish(release_dir: str | Path, repo_id: str, extra: dict[str, bytes] | None = None) -> PublishPlan:
    if repo_id.count("/") != 1 or not all(repo_id.split("/")):
        raise LemmataError(f"--repo must be OWNER/NAME, got {repo_id!r}")
    release = open_release(release_dir)
    files = [(f.path, f.bytes) for f in release.manifest.files] + [
        (MANIFEST, (release.root / MANIFEST).stat().st_size)
    ]
    clash = sorted(set(extra or {}) & {path for path, _ in files})
    if clash:
        raise LemmataError(f"{release.release_id} already has {', '.join(clash)}: an extra file may not replace one")
    files += [(path, len(data)) for path, data in (extra or {}).items()]
    return PublishPlan(repo_id=repo_id, release_id=release.release_id, tag=release.manifest.version,
                       files=sorted(files))


def publish(release_dir: str | Path, repo_id: str, *, token: str | None = None, private: bool = False,
            extra: dict[str, bytes] | None = None) -> str:
    """Upload (the release's files and ``extra``) and tag; returns the commit URL. Network problems become one
    sentence."""
    extra = extra or {}
    plan = plan_publish(release_dir, repo_id, extra)
    root = Path(release_dir)
    try:
        from huggingface_hub import CommitOperationAdd, CommitOperationDelete, HfApi

        api = HfApi(token=token)
        api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
        existing = set(api.list_repo_files(repo_id, repo_type="dataset"))
        keep = {path for path, _ in plan.files} | {".gitattributes"}
        ops = [CommitOperationAdd(path_in_repo=path, path_or_fileobj=extra[path] if path in extra else str(root / path))
               for path, _ in plan.files]
        ops += [CommitOperationDelete(path_in_repo=p) for p in sorted(existing - keep)]
        info = api.create_commit(repo_id, operations=ops, repo_type="dataset",
                                 commit_message=f"Release {plan.release_id}")
        api.create_tag(repo_id, tag=plan.tag, revision=info.oid, repo_type="dataset",
                       tag_message=f"Release {plan.release_id}")
        return info.commit_url
    except LemmataError:
        raise
    except Exception as exc:  # noqa: BLE001 - any hub/network failure is reported as one sentence
        raise LemmataError(
            f"could not publish {plan.release_id} to https://huggingface.co/datasets/{repo_id}: {failure_reason(exc)}"
        ) from None


def failure_reason(exc: BaseException) -> str:
    """The first line of a Hub or network error (its type when it says nothing), for a one-sentence report.

    >>> failure_reason(OSError("offline\\nmore")), failure_reason(TimeoutError())
    ('offline', 'TimeoutError')
    """
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__

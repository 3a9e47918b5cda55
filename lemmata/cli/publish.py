"""``lemmata publish``: push a built release to the Hugging Face Hub, tagged with its version."""

from __future__ import annotations

from lemmata.core.verbs import Verbs

VERBS = Verbs("lemmata.cli")


def register(sub) -> None:
    p = VERBS.add(sub, "publish")
    p.add_argument("release", help="path of a built release folder")
    p.add_argument("--repo", required=True, metavar="OWNER/NAME", help="Hub dataset repository")
    p.add_argument("--dry-run", action="store_true", help="list exactly what would be uploaded and the tag")
    p.add_argument("--private", action="store_true", help="create the repository as private")
    p.add_argument("--token", help="Hub token (default: HF_TOKEN or the cached login)")
    p.set_defaults(handler=run)


def run(args) -> int:
    from lemmata.release.publish import plan_publish, publish

    extra = eval_yaml_file(args.release)
    if args.dry_run:
        print(plan_publish(args.release, args.repo, extra).describe())
        return 0
    print(publish(args.release, args.repo, token=args.token, private=args.private, extra=extra))
    return 0


def eval_yaml_file(release: str) -> dict[str, bytes]:
    """``{"eval.yaml": bytes}`` of a release folder whose release is registered (nothing for an unregistered one,
    which has no declared tracks or main score to name)."""
    from lemmata.core.registry import UnknownNameError
    from lemmata.families import get_benchmark
    from lemmata.release.citation import LEMMATA_URL
    from lemmata.release.eval_yaml import EVAL_YAML, eval_yaml
    from lemmata.release.load import open_release

    try:
        meta = get_benchmark(open_release(release).release_id)
    except UnknownNameError:
        return {}
    return {EVAL_YAML: eval_yaml(meta, LEMMATA_URL).to_yaml().encode("utf-8")}

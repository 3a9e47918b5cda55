"""``lemmata results``: stored results in the formats other tools read, and onto a model's Hub page.

``export`` writes ``.eval_results/<benchmark>.yaml`` (the Hub's model-page format) or, with ``--format eee``,
one Every Eval Ever aggregate record per result (``data/<benchmark>/<developer>/<model>/<uuid>.json``); ``push``
opens the ``.eval_results`` files as a pull request on a model repository. A RESULT is a result file (``lemmata score --out``) or the id of
a stored result (a unique prefix of at least 8 characters will do) in ``--store``.
"""

from __future__ import annotations

from pathlib import Path

from lemmata.core.verbs import Verbs

VERBS = Verbs("lemmata.cli")

FORMATS = ("eval-results", "eee")


def register(sub) -> None:
    p = VERBS.add(sub, "results")
    verbs = p.add_subparsers(dest="verb", metavar="VERB", required=True)
    export = VERBS.add(verbs, "results.export")
    _common(export)
    export.add_argument("--format", choices=FORMATS, default="eval-results",
                        help="eval-results: the Hub's .eval_results YAML (default); eee: Every Eval Ever "
                             "records, data/<benchmark>/<developer>/<model>/<uuid>.json")
    export.add_argument("--out", default=".", metavar="DIR",
                        help="folder to write .eval_results/ (or data/) into (default: the current folder)")
    export.set_defaults(handler=run_export)
    push = VERBS.add(verbs, "results.push")
    _common(push)
    push.add_argument("--model-repo", required=True, metavar="OWNER/NAME", help="Hub model repository")
    push.add_argument("--token", help="Hub token (default: HF_TOKEN or the cached login)")
    push.add_argument("--dry-run", action="store_true", help="print the files instead of opening the pull request")
    push.set_defaults(handler=run_push)


def _common(p) -> None:
    p.add_argument("results", nargs="+", metavar="RESULT", help="a result JSON file, or a stored result's id")
    p.add_argument("--store", metavar="DIR", help="the store to look ids up in (default: $LEMMATA_STORE or "
                                                  "$LEMMATA_HOME/store)")


def load_results(refs: list[str], store_dir: str | None) -> list:
    """The results named on the command line, each verified (a file's id must match its content)."""
    from pydantic import ValidationError

    from lemmata.core.errors import InputError, Problem
    from lemmata.formats.envelope import validation_problems
    from lemmata.formats.results import Result

    out, problems, store = [], [], None
    for ref in refs:
        if Path(ref).is_file():
            try:
                result = Result.from_file(ref)
            except ValidationError as exc:  # not a result file: each defect named by its field
                problems.extend(validation_problems(exc, ref, None))
                continue
            if result.result_id != result.content_id():
                problems.append(Problem(ref, "result_id does not match the file's content", field="result_id"))
            out.append(result)
            continue
        if store is None:
            from lemmata.store import Store, default_store

            store = Store(store_dir) if store_dir else default_store()
        found = sorted({r["result_id"] for r in store.result_rows(latest_only=False, include_hidden=True)
                        if len(ref) >= 8 and r["result_id"].startswith(ref.lower())})
        if len(found) != 1:
            problems.append(Problem(ref, f"{'no' if not found else len(found)} stored result(s) in {store.root} "
                                         "match this id" + ("" if len(ref) >= 8 else " (give 8+ characters)")))
            continue
        out.append(store.get_result(found[0]))
    if problems:
        raise InputError(problems)
    return out


def with_releases(results: list) -> list:
    """``(result, release)`` for each result, every result whose release is not registered named at once."""
    from lemmata.core.errors import InputError, Problem
    from lemmata.core.registry import UnknownNameError
    from lemmata.families import get_benchmark

    pairs, problems = [], []
    for r in results:
        try:
            pairs.append((r, get_benchmark(r.frozen.dataset_release)))
        except UnknownNameError:
            problems.append(Problem(r.result_id[:12], f"release {r.frozen.dataset_release!r} is not registered: no "
                                    "Hub dataset to name", field="frozen.dataset_release"))
    if problems:
        raise InputError(problems)
    return pairs


def eval_results_files(results: list) -> dict[str, bytes]:
    """The ``.eval_results`` files of ``results``, each under the Hub dataset its release is published as."""
    from lemmata.release.citation import LEMMATA_URL
    from lemmata.release.eval_results import files
    from lemmata.release.hub import hub_owner

    return files(with_releases(results), owner=hub_owner(), board_url=LEMMATA_URL)


def eee_files(results: list) -> dict[str, bytes]:
    """One Every Eval Ever record per result, by its datastore path; every result that cannot be one is named
    before anything is written."""
    from lemmata import __version__
    from lemmata.core.errors import InputError
    from lemmata.release.citation import LEMMATA_URL
    from lemmata.release.eee import record, relative_path, to_bytes
    from lemmata.release.eval_results import dataset_id
    from lemmata.release.hub import hub_owner

    out, problems = {}, []
    for r, meta in with_releases(results):
        try:
            doc = record(r, hf_repo=dataset_id(meta, hub_owner()), higher_is_better=meta.main_score.higher_is_better,
                         board_url=LEMMATA_URL, library_version=__version__)
        except InputError as exc:
            problems.extend(exc.problems)
            continue
        out[relative_path(r)] = to_bytes(doc)
    if problems:
        raise InputError(problems)
    return out


def run_export(args) -> int:
    from lemmata.core.atomic import atomic_write_bytes

    results = load_results(args.results, args.store)
    made = eee_files(results) if args.format == "eee" else eval_results_files(results)
    for path, data in made.items():
        print(atomic_write_bytes(Path(args.out) / path, data))
    return 0


def run_push(args) -> int:
    from lemmata.release.citation import LEMMATA_URL
    from lemmata.release.eval_results import open_pull_request

    results = load_results(args.results, args.store)
    contents = eval_results_files(results)
    if args.dry_run:
        for path, data in contents.items():
            print(f"--- {path}\n{data.decode('utf-8')}", end="")
        return 0
    description = f"Scores computed by Lemmata ({LEMMATA_URL}); each entry's source links its per-item audit." \
                  "\n\n" + "\n".join(f"- {r.result_id}" for r in results)
    print(open_pull_request(args.model_repo, contents, token=args.token, description=description))
    return 0

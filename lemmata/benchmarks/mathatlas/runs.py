"""``lemmata run ma-align`` (a chat model judges every MA-Align pair) and ``lemmata run mathatlas`` (a chat model
formalizes every entity of a MathAtlas track), declared for the registry (``Family.runs``); the harness
(:mod:`lemmata.harness.runs`) supplies the endpoint, cache, metadata and scoring."""

from __future__ import annotations

from lemmata.harness.runs import RunProtocol, Written, add_sampling_args, sampling_of


def _run(args, runner) -> Written:
    from lemmata.benchmarks.mathatlas.judge_run import run_ma_align

    path, meta = run_ma_align(runner, args.out, sampling=sampling_of(args), quiet=args.quiet)
    return Written(path, meta)


PROTOCOL = RunProtocol(
    name="ma-align", help="judge the faithfulness of every MA-Align formalization pair",
    description="MA-Align: the model judges every (statement, Lean formalization) pair as faithful or not (prompt "
    "ma-align-judge.v1; the gold label is never shown); a reply without a boolean verdict abstains (null, counted "
    "as wrong). Scored by accuracy against two named label sets: the published labels (headline) and the authors' "
    "relabel.",
    run=_run, add_arguments=add_sampling_args)


def _atlas_arguments(p) -> None:
    p.add_argument("--track", choices=("statements", "definitions", "ma-hard"), default="statements",
                   help="entities to formalize (default statements: theorems, examples and exercises)")
    p.add_argument("--context", choices=("zero-shot", "dependencies"), default="zero-shot",
                   help="zero-shot, or shown the statements the entity's links point to (a condition that splits "
                   "board groups; default zero-shot)")
    add_sampling_args(p)
    p.add_argument("--limit", type=int, metavar="K", help="only the first K entities (a smoke run: the others count "
                   "as abstained)")


def _run_atlas(args, runner) -> Written:
    from lemmata.benchmarks.mathatlas.formalize_run import run_mathatlas

    path, meta = run_mathatlas(runner, args.out, track=args.track, context=args.context, sampling=sampling_of(args),
                               limit=args.limit, quiet=args.quiet)
    return Written(path, meta)


ATLAS_PROTOCOL = RunProtocol(
    name="mathatlas", help="formalize MathAtlas statements or definitions in Lean 4 (zero-shot or with dependencies)",
    description="MathAtlas: the model formalizes every entity of a track in Lean 4 with the authors' prompts "
    "(formalize-statement.v1, formalize-definition.v1), zero-shot or with the statements its dependencies point "
    "to; the Lean is the reply's last fenced block, thinking stripped. Verdicts come only from the oracles: "
    "compilation from a Kimina Lean server (LEMMATA_LEAN_URL, LEMMATA_MATHLIB_VERSION) under the forced header "
    "import Mathlib / import Aesop, faithfulness of compiling items from the judge (LEMMATA_JUDGE_BASE_URL, "
    "LEMMATA_JUDGE_MODEL); without them the items are pending until `lemmata judge`.",
    run=_run_atlas, add_arguments=_atlas_arguments)

"""The README and docs stay true to the code: set-up commands, CLI commands, scripts."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", ROOT / "space" / "README.md", ROOT / "cards" / "README.md",
        *sorted((ROOT / "submissions").glob("*/README.md"))]


def _setup_commands() -> list[str]:
    text = (ROOT / "README.md").read_text("utf-8")
    section = text.split("## Set-up", 1)[1].split("\n## ", 1)[0]
    return [block.strip() for block in re.findall(r"```bash\n(.*?)```", section, flags=re.S)]


def test_readme_states_exactly_two_setup_commands():
    commands = _setup_commands()
    assert len(commands) == 2 and all("\n" not in c for c in commands)
    serve, test = commands
    assert serve.endswith("lemmata serve") and "pytest" in test


def test_ci_runs_the_readme_test_command():
    _, test = _setup_commands()
    ci = (ROOT / ".ci" / "run").read_text("utf-8")
    assert test in ci.splitlines()
    # CI ends with exactly the README's test command: what it installs before the tests is what a reader installs
    assert [line for line in ci.splitlines() if line.strip()][-1] == test


def test_every_documented_cli_command_exists():
    """Generic verbs and the families' own (``Family.commands``) alike: whatever the parser offers."""
    import argparse

    from lemmata.cli import build_parser

    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    COMMANDS = set(sub.choices)
    for doc in DOCS:
        for cmd in re.findall(r"(?<![\w/.-])lemmata ([a-z][a-z0-9-]+)", doc.read_text("utf-8")):
            assert cmd in COMMANDS, f"{doc.relative_to(ROOT)} mentions `lemmata {cmd}`, which does not exist"


def test_every_benchmark_script_is_listed_and_exists():
    readme = (ROOT / "README.md").read_text("utf-8")
    scripts = {p.name for p in (ROOT / "perf").glob("*.py")}
    listed = set(re.findall(r"`(\w+_(?:speed|leaks|audit)\.py)`", readme))
    assert listed == scripts


def _evaluate_commands() -> list[str]:
    text = (ROOT / "README.md").read_text("utf-8")
    assert "\n## Evaluate your model\n" in text, "README lacks the 'Evaluate your model' section"
    heads = re.findall(r"^## (.+)$", text, flags=re.M)
    assert heads[heads.index("Set-up (fresh machine, Python ≥ 3.11)") + 1] == "Evaluate your model", \
        "'Evaluate your model' must come right after set-up"
    section = text.split("\n## Evaluate your model\n", 1)[1].split("\n## ", 1)[0]
    return [block.strip() for block in re.findall(r"```bash\n(.*?)```", section, flags=re.S)]


def test_evaluate_section_has_one_working_command_per_model_kind():
    """Every command parses with the real CLI parser, names a model spec of a distinct kind and known tracks."""
    import shlex

    from lemmata.cli import build_parser
    from lemmata.harness.evaluate import parse_track
    from lemmata.retrievers.spec import parse_spec

    kinds = []
    for command in _evaluate_commands():
        assert "\n" not in command
        words = shlex.split(command)
        while "=" in words[0] and not words[0].startswith("lemmata"):  # VAR=value prefixes
            name = words.pop(0).split("=", 1)[0]
            from lemmata.core.settings import declared

            assert declared(name), f"{name} is not a declared setting"
        assert words[:2] == ["lemmata", "evaluate"], command
        args = build_parser().parse_args(words[1:])
        kinds.append(parse_spec(args.model).kind)
        for track in args.track or []:
            parse_track(track)
    assert sorted(kinds) == ["baseline", "model2vec", "openai", "sentence-transformers"]


def test_every_repository_path_the_docs_name_exists():
    """A path written as a code span (``lemmata/…``, ``perf/…``, ``submissions/…``) names a file or folder that
    is there: a reader sent to a moved prompt or script finds nothing. Placeholders (NAME, <…>, $VAR, globs) are
    not paths."""
    pattern = re.compile(r"`((?:lemmata|perf|submissions|cards|tests|metrics|space|dataset_builders|\.ci)/[^`\s]*)`")
    missing = []
    for doc in DOCS:
        for span in pattern.findall(doc.read_text("utf-8")):
            path = span.rstrip(",.;:")
            if re.search(r"[<>*{}$]", path) or any(re.fullmatch(r"[A-Z_]+", part) for part in path.split("/")):
                continue
            if not (ROOT / path).exists() and not (doc.parent / path).exists():
                missing.append(f"{doc.relative_to(ROOT)}: {span}")
    assert not missing, missing

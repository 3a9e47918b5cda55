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


def test_every_documented_cli_command_exists():
    from lemmata.cli import COMMANDS

    for doc in DOCS:
        for cmd in re.findall(r"(?<![\w/.-])lemmata ([a-z][a-z0-9-]+)", doc.read_text("utf-8")):
            assert cmd in COMMANDS, f"{doc.relative_to(ROOT)} mentions `lemmata {cmd}`, which does not exist"


def test_every_benchmark_script_is_listed_and_exists():
    readme = (ROOT / "README.md").read_text("utf-8")
    scripts = {p.name for p in (ROOT / "perf").glob("*.py")}
    listed = set(re.findall(r"`(\w+_(?:speed|leaks|audit)\.py)`", readme))
    assert listed == scripts

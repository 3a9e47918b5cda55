"""Imports run one way: a layer imports only the layers below it, families never import each other, no circles.

The layers, bottom to top (the README's layout section says the same in words):

====  ==========================================================================================
0     ``lemmata.core`` (and the package's ``__init__``)
1     ``lemmata.formats``, ``lemmata.metrics``, ``lemmata.lean``
2     ``lemmata.release``, ``lemmata.oracles``, ``lemmata.retrievers``, ``lemmata.materialisers``,
      ``lemmata.store``
3     ``lemmata.tracks``
4     ``lemmata.families`` (the registry)
5     ``lemmata.scoring``, ``lemmata.catalog``, ``lemmata.declared``
6     ``lemmata.harness``
7     ``lemmata.benchmarks.<family>``
8     ``lemmata.space``, ``lemmata.cli``, ``lemmata.__main__``
====  ==========================================================================================

Every import counts — at module level, inside functions and under ``TYPE_CHECKING`` — since an import
hidden in a function is still an arrow. The registry names families as ``"module:attribute"``
strings and loads them lazily; that is the one sanctioned way a lower layer reaches a family, and it
is not an import. ``cli``, ``space`` and ``harness`` sit above the families or below them, but either way
import no module of a specific family: a benchmark plugs in through its family record alone.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "lemmata"

LAYERS: dict[str, int] = {
    "lemmata": 0, "lemmata.core": 0,
    "lemmata.formats": 1, "lemmata.metrics": 1, "lemmata.lean": 1,
    "lemmata.release": 2, "lemmata.oracles": 2, "lemmata.retrievers": 2, "lemmata.materialisers": 2,
    "lemmata.store": 2,
    "lemmata.tracks": 3,
    "lemmata.families": 4,
    "lemmata.scoring": 5, "lemmata.catalog": 5, "lemmata.declared": 5,
    "lemmata.harness": 6,
    "lemmata.benchmarks": 7,
    "lemmata.space": 8, "lemmata.cli": 8, "lemmata.__main__": 8,
}
#: generic layers: they reach a benchmark only through the registry (no import of ``lemmata.benchmarks.<family>``)
GENERIC = ("lemmata.cli", "lemmata.space", "lemmata.harness", "lemmata.__main__")


def module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer(module: str) -> int:
    parts = module.split(".")
    for i in range(len(parts), 0, -1):
        key = ".".join(parts[:i])
        if key in LAYERS:
            return LAYERS[key]
    raise AssertionError(f"{module} is in no layer: add its folder to LAYERS and to the README's layout table")


def family(module: str) -> str | None:
    parts = module.split(".")
    return parts[2] if len(parts) > 2 and parts[1] == "benchmarks" else None


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imports(path: Path, known: set[str]) -> list[tuple[int, str, list[str]]]:
    """``(line, imported module, names)`` of every import of a Lemmata module in ``path``."""
    tree = ast.parse(path.read_text("utf-8"), filename=str(path))
    me = module_name(path)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name, []) for a in node.names if a.name.split(".")[0] == "lemmata"]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = me.split(".")[: len(me.split(".")) - node.level + (1 if path.name == "__init__.py" else 0)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "lemmata":
                continue
            names = [a.name for a in node.names]
            submodules = [f"{target}.{n}" for n in names if f"{target}.{n}" in known]
            if submodules:
                out += [(node.lineno, s, []) for s in submodules]
                rest = [n for n in names if f"{target}.{n}" not in known]
                if rest:
                    out.append((node.lineno, target, rest))
            else:
                out.append((node.lineno, target, names))
    return out


def graph() -> dict[str, set[str]]:
    mods = modules()
    known = set(mods)
    return {m: {t for _, t, _ in imports(p, known) if t in known and t != m} for m, p in mods.items()}


def test_every_module_is_in_a_layer():
    for m in modules():
        layer(m)


def test_imports_run_down():
    mods = modules()
    known = set(mods)
    upward = []
    for m, p in mods.items():
        for line, target, _ in imports(p, known):
            if target not in known and target.rsplit(".", 1)[0] not in known:
                continue
            if layer(target) > layer(m):
                upward.append(f"lemmata/{p.relative_to(PACKAGE)}:{line}: {m} (layer {layer(m)}) imports {target} "
                              f"(layer {layer(target)})")
            elif family(m) and family(target) and family(m) != family(target):
                upward.append(f"lemmata/{p.relative_to(PACKAGE)}:{line}: family {family(m)} imports family "
                              f"{family(target)} ({target})")
    assert upward == [], "\n".join(upward)


def test_generic_layers_name_no_family():
    """The CLI, the space and the harness import no module of a specific benchmark family (at any depth, in any
    function): what a family contributes reaches them through :mod:`lemmata.families` alone."""
    mods = modules()
    known = set(mods)
    found = []
    for m, p in mods.items():
        if not any(m == g or m.startswith(g + ".") for g in GENERIC):
            continue
        for line, target, _ in imports(p, known):
            if target == "lemmata.benchmarks" or target.startswith("lemmata.benchmarks."):
                found.append(f"lemmata/{p.relative_to(PACKAGE)}:{line}: {m} imports {target}")
    assert found == [], "\n".join(found)


def test_no_private_names_cross_modules():
    mods = modules()
    known = set(mods)
    found = []
    for m, p in mods.items():
        for line, target, names in imports(p, known):
            private = [n for n in names if n.startswith("_") and not n.startswith("__")]
            if private and target != m:
                found.append(f"lemmata/{p.relative_to(PACKAGE)}:{line}: imports {', '.join(private)} from {target}")
    assert found == [], "\n".join(found)


def find_cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan).

    >>> find_cycles({"a": {"b"}, "b": {"a"}, "c": {"a"}})
    [['a', 'b']]
    """
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(g.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return sorted(out)


def test_no_import_circles():
    g = graph()
    # a package's __init__ re-exporting its own modules is not a circle through the package
    for m in list(g):
        g[m] = {t for t in g[m] if not m.startswith(t + ".")}
    cycles = find_cycles(g)
    assert cycles == [], "\n".join(" <-> ".join(c) for c in cycles)


def test_settings_are_read_through_one_module():
    """``LEMMATA_*`` variables are declared in ``lemmata.core.settings`` and read only through it."""
    import re

    from lemmata.core.settings import declared

    direct = re.compile(r"""(?:environ(?:\.get)?\(|environ\[|getenv\(|env\.get\(|env\[)\s*["']LEMMATA_""")
    named = re.compile(r"""["'](LEMMATA_[A-Z0-9_]*[A-Z0-9])["']""")
    found, undeclared = [], []
    for m, p in modules().items():
        if m == "lemmata.core.settings":
            continue
        text = p.read_text("utf-8")
        found += [f"lemmata/{p.relative_to(PACKAGE)}: reads {x.group(0)!r} directly" for x in direct.finditer(text)
                  if not re.match(r"""[A-Z0-9_]*["']\]\s*=[^=]""", text[x.end():])]  # setting one is no read
        undeclared += [f"lemmata/{p.relative_to(PACKAGE)}: {n}" for n in named.findall(text)
                       if not declared(n) and not n.endswith("_")]
    assert found == [], "\n".join(found)
    assert undeclared == [], "undeclared settings:\n" + "\n".join(undeclared)

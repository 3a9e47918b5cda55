"""Offline integrity checks of a proof attempt against its official file, without Lean.

A "proof" that edits the statement, redefines the local framework, proves a helper
with ``sorry`` or switches the kernel off compiles just as well as an honest one.
These checks run before any verifier and reject such attempts with a violation
that names its kind and line. They work on the tokens of :mod:`lemmata.benchmarks.taobench.lean.lexer`,
so comments and strings that merely mention a forbidden word are not violations,
and comparisons ignore whitespace and comments.

An honest attempt is the official file with the exercise's body replaced:

1. the official context (every command before the exercise: imports, namespaces,
   inductive types, abbrevs, instances, given lemmas) comes first, unchanged;
2. then optional helper declarations of the attempt's own (theorems, defs, ...),
   which may not change how the statement elaborates (no instances, notations,
   ``open``, ``variable``, namespace changes, ...) nor shadow a name it uses;
3. then the exercise with the official statement and the attempt's proof;
4. then anything, e.g. the official ``end Chapter5``.

Everything the attempt wrote itself (helpers, the proof, trailing commands) must
be free of ``sorry``/``admit``, new axioms, ``set_option`` beyond the official
file's, and escapes from kernel checking (``native_decide``, ``implemented_by``,
``extern``, ``csimp``, ``unsafe``, metaprogramming commands, ``#exit``).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from lemmata.benchmarks.taobench.lean.lexer import CLOSERS, LexError, Token
from lemmata.benchmarks.taobench.lean.statements import Exercise
from lemmata.benchmarks.taobench.lean.structure import Command, LeanFile, parse, unescape

ViolationKind = Literal[
    "unreadable",  # the attempt does not lex (unterminated comment or literal)
    "missing_theorem",  # the exercise's declaration is not in the attempt
    "statement_changed",  # the exercise's statement differs from the official one
    "prefix_changed",  # the official context before the exercise was edited, dropped or interleaved
    "context_command",  # a command before the exercise that can change how the statement elaborates
    "redefinition",  # the exercise's name or an official name declared again
    "shadowing",  # a helper declared under a name the statement could resolve to
    "sorry",  # sorry / admit / sorryAx / stop in the attempt's own text
    "new_axiom",  # axiom (or Lean 3 constant) of the attempt's own
    "set_option",  # an option the official file does not set, or a looser resource limit
    "not_permitted",  # native_decide, implemented_by, extern, csimp, unsafe, metaprogramming, #exit, ...
]


class Violation(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: ViolationKind
    line: int | None = Field(description="1-based line in the attempt; null when the violation has no single place")
    message: str

    def __str__(self) -> str:
        where = f"line {self.line}" if self.line is not None else "attempt"
        return f"{where}: {self.kind}: {self.message}"


class IntegrityReport(BaseModel):
    """The outcome of the offline checks on one attempt."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    violations: tuple[Violation, ...] = ()
    official_lines: tuple[tuple[int, int], ...] = Field(
        default=(),
        description="inclusive line ranges of the attempt that reproduce official commands; a verifier's "
        "'declaration uses sorry' warning there concerns a lemma the exercise gives, not the attempt",
    )

    @property
    def ok(self) -> bool:
        return not self.violations

    def kinds(self) -> list[str]:
        return sorted({v.kind for v in self.violations})


# --- token comparison ---------------------------------------------------------------------------------------------

_GLUE_SENSITIVE_AFTER = frozenset({"ident", "num", "field"})


def token_keys(tokens: Sequence[Token]) -> tuple[str, ...]:
    """Comparison keys: token text, with whitespace and comments dropped.

    Where Lean gives whitespace a meaning the key keeps it: ``x .1`` and ``(f x) .1``
    (an argument) differ from ``x.1`` and ``(f x).1`` (a projection), and ``xs [i]``
    (application to a list) differs from ``xs[i]`` (indexing). ``lemma`` is the
    same declaration keyword as ``theorem``.

    >>> from lemmata.benchmarks.taobench.lean.lexer import lex
    >>> token_keys(lex("lemma  foo : (f x).1 = xs[i] --c").tokens)
    ('theorem', 'foo', ':', '(', 'f', 'x', ')', '⁀.1', '=', 'xs', '⁀[', 'i', ']')
    """
    out: list[str] = []
    prev: Token | None = None
    for t in tokens:
        text = t.text
        if t.kind == "ident":
            text = "theorem" if text == "lemma" else unescape(text)
        glued = (
            prev is not None and not t.spaced
            and (t.kind == "field" or (t.kind == "sym" and t.text == "["))
            and (prev.kind in _GLUE_SENSITIVE_AFTER or (prev.kind == "sym" and prev.text in CLOSERS))
        )
        out.append("⁀" + text if glued else text)
        prev = t
    return tuple(out)


def command_key(cmd: Command) -> tuple[str, ...]:
    return token_keys(cmd.tokens)


def _meaningful_scope(prefix: Sequence[Token]) -> list[Token]:
    """The ``open ... in`` / ``set_option ... in`` prefix minus display-only options (which cannot change meaning)."""
    out: list[Token] = []
    segment: list[Token] = []
    for tok in prefix:
        segment.append(tok)
        if tok.text == "in":
            display = (segment[0].text == "set_option" and len(segment) > 1
                       and segment[1].text.startswith(_DISPLAY_OPTIONS))
            if not display:
                out += segment
            segment = []
    return out + segment


def statement_key(cmd: Command) -> tuple[str, ...]:
    """What must not change: scoping prefix, name-affecting modifiers, keyword .. type."""
    decl = cmd.decl
    assert decl is not None
    mods = tuple(sorted(m for m in decl.modifiers if m != "noncomputable"))
    return token_keys(_meaningful_scope(cmd.scoped_prefix)) + mods + token_keys(decl.header)


# --- forbidden content -------------------------------------------------------------------------------------------

_SORRY_NAMES = frozenset({"sorry", "admit", "sorryAx"})
_ESCAPE_NAMES = frozenset({
    "native_decide", "bv_decide", "implemented_by", "extern", "csimp", "unsafe", "ofReduceBool", "reduceBool",
    "trustCompiler", "ofReduceNat", "reduceNat", "addDeclWithoutChecking", "by_elab",
})
#: name components of kernel escapes and of metaprograms that add declarations (``Lean.addDecl`` ...)
_ESCAPE_COMPONENTS = ("ofReduceBool", "ofReduceNat", "trustCompiler", "addDecl", "addAndCompile",
                      "addDeclWithoutChecking")
_META_COMMANDS = frozenset({
    "macro", "macro_rules", "syntax", "elab", "elab_rules", "declare_syntax_cat", "initialize",
    "builtin_initialize", "run_cmd", "run_elab", "run_meta", "#eval", "#exit", "#reduce", "import",
})
_CONTEXT_COMMANDS = frozenset({
    "instance", "attribute", "notation", "notation3", "infix", "infixl", "infixr", "prefix", "postfix",
    "open", "export", "variable", "include", "omit", "namespace", "section", "end", "mutual", "set_option",
    "unif_hint", "local", "scoped", "deriving", "open_locale", "class",
}) | _META_COMMANDS
#: attributes on a helper that change how later terms elaborate (an instance can change what `+` or `≤` means)
_CONTEXT_ATTRIBUTES = frozenset({
    "instance", "default_instance", "macro", "term_elab", "command_elab", "tactic", "match_pattern",
})
#: options that only change what is printed or linted
_DISPLAY_OPTIONS = ("pp.", "linter.", "trace.", "profiler", "diagnostics", "format.", "Elab.async")
#: resource limits: 0 means unlimited; an attempt may set a limit no looser than the official file's
_RESOURCE_OPTIONS = frozenset({"maxHeartbeats", "synthInstance.maxHeartbeats", "maxRecDepth", "synthInstance.maxSize"})
_TACTIC_POSITION = frozenset({"by", ";", "<;>", "·", ".", "(", "=>", "then", "else"})


def _last(name: str) -> str:
    return unescape(name).rsplit(".", 1)[-1]


def _options(tokens: Sequence[Token]) -> list[tuple[str, str, int]]:
    """``(name, value, line)`` of every ``set_option name value`` in ``tokens``."""
    out = []
    for i, t in enumerate(tokens):
        if t.kind == "ident" and t.text == "set_option" and i + 2 < len(tokens):
            out.append((tokens[i + 1].text, tokens[i + 2].text, t.line))
    return out


def _option_allowed(name: str, value: str, official: dict[str, set[str]]) -> bool:
    if name.startswith(_DISPLAY_OPTIONS):
        return True
    if value in official.get(name, set()):
        return True
    if name in _RESOURCE_OPTIONS and official.get(name):
        try:
            requested = int(value)
            limits = [int(v) for v in official[name]]
        except ValueError:
            return False
        if 0 in limits:
            return True
        return requested != 0 and requested <= max(limits)
    return False


def _scan_own(tokens: Sequence[Token], official_options: dict[str, set[str]], out: list[Violation]) -> None:
    """Forbidden words in text the attempt wrote itself."""
    for i, t in enumerate(tokens):
        prev = tokens[i - 1] if i else None
        if t.kind == "ident":
            name = unescape(t.text)
            last = _last(t.text)
            if name in _SORRY_NAMES or last == "sorryAx":
                out.append(Violation(kind="sorry", line=t.line, message=f"`{t.text}` leaves the proof unfinished"))
            elif name == "stop" and (t.first_on_line or (prev is not None and prev.text in _TACTIC_POSITION)):
                out.append(Violation(kind="sorry", line=t.line,
                                     message="`stop` discards the rest of the proof (it elaborates to sorry)"))
            elif name in _ESCAPE_NAMES or last in _ESCAPE_COMPONENTS:
                out.append(Violation(kind="not_permitted", line=t.line,
                                     message=f"`{t.text}` bypasses kernel checking and is not permitted"))
            elif name == "native" and prev is not None and prev.text in ("+", "(", "{", ","):
                out.append(Violation(kind="not_permitted", line=t.line,
                                     message="`decide +native` evaluates with the compiler, not the kernel"))
            elif name == "run_tac":
                out.append(Violation(kind="not_permitted", line=t.line,
                                     message="`run_tac` runs metaprograms and is not permitted in an attempt"))
    for name, value, line in _options(tokens):
        if not _option_allowed(name, value, official_options):
            if name.startswith("debug."):
                why = "switches off checking"
            elif name in _RESOURCE_OPTIONS and name in official_options:
                why = "loosens a resource limit beyond the official file's"
            else:
                why = "is not set by the official file"
            out.append(Violation(kind="set_option", line=line, message=f"`set_option {name} {value}` {why}"))


def _scan_command(cmd: Command, official_options: dict[str, set[str]], out: list[Violation]) -> None:
    head = cmd.head
    if head in ("axiom", "constant") or (cmd.decl is not None and cmd.decl.keyword == "axiom"):
        out.append(Violation(kind="new_axiom", line=cmd.line,
                             message=f"new axiom `{cmd.decl.name if cmd.decl else head}` is not permitted"))
    elif head in _META_COMMANDS:
        out.append(Violation(kind="not_permitted", line=cmd.line,
                             message=f"`{head}` commands of the attempt's own are not permitted"))
    if cmd.decl is not None:
        for attr in cmd.decl.attributes:
            if attr in ("implemented_by", "extern", "csimp", "export", "init", "builtin_init"):
                out.append(Violation(kind="not_permitted", line=cmd.line,
                                     message=f"attribute `@[{attr}]` bypasses kernel checking"))
        if "unsafe" in cmd.decl.modifiers:
            out.append(Violation(kind="not_permitted", line=cmd.line, message="`unsafe` declarations are not permitted"))
    if head == "attribute":
        names = [t.text for t in cmd.tokens if t.kind == "ident"]
        for bad in ("implemented_by", "extern", "csimp"):
            if bad in names:
                out.append(Violation(kind="not_permitted", line=cmd.line,
                                     message=f"attribute `{bad}` bypasses kernel checking"))
    # the escape words themselves are reported by the token scan
    _scan_own(cmd.tokens, official_options, out)


def _statement_identifiers(cmd: Command) -> set[str]:
    """Every dotted suffix of every name the statement mentions (``a.IsCauchy`` → ``a.IsCauchy``, ``IsCauchy``)."""
    names: set[str] = set()
    header = list(cmd.decl.header) if cmd.decl else []
    skip = 2 if cmd.decl is not None and cmd.decl.name else 1  # the keyword and the declared name
    toks = list(cmd.scoped_prefix) + header[skip:]
    for t in toks:
        if t.kind in ("ident", "field"):
            parts = unescape(t.text.lstrip(".")).split(".")
            for k in range(len(parts)):
                names.add(".".join(parts[k:]))
    return names


def _first_difference(a: Sequence[Token], b: Sequence[Token]) -> str:
    ka, kb = token_keys(a), token_keys(b)
    for i, (x, y) in enumerate(zip(ka, kb)):
        if x != y:
            return f"official has `{a[i].text}` where the attempt has `{b[i].text}` (line {b[i].line})"
    if len(ka) > len(kb):
        return f"the attempt's statement stops before official `{a[len(kb)].text}`"
    if len(kb) > len(ka):
        return f"the attempt's statement adds `{b[len(ka)].text}` (line {b[len(ka)].line})"
    return "modifiers or scoping prefix differ"


def _line_ranges(cmds: Iterable[Command]) -> tuple[tuple[int, int], ...]:
    return tuple((c.line, c.end_line) for c in cmds)


def check_attempt(exercise: Exercise, attempt: str) -> IntegrityReport:
    """All integrity violations of ``attempt`` (a complete Lean file) against its official ``exercise``."""
    try:
        lean = parse(attempt)
    except LexError as exc:
        return IntegrityReport(violations=(Violation(kind="unreadable", line=exc.line, message=exc.message),))
    return _check(exercise, lean)


def official_options(exercise: Exercise) -> dict[str, set[str]]:
    opts: dict[str, set[str]] = {}
    for cmd in exercise.file.commands:
        for name, value, _ in _options(cmd.tokens):
            opts.setdefault(name, set()).add(value)
    return opts


def _check(ex: Exercise, lean: LeanFile) -> IntegrityReport:
    out: list[Violation] = []
    options = official_options(ex)
    cmds = list(lean.commands)
    target_name = ex.decl_name
    hits = [i for i, c in enumerate(cmds) if c.decl is not None and c.decl.full_name == target_name]
    official_prefix = ex.prefix
    official_keys = [command_key(c) for c in official_prefix]

    if not hits:
        out.append(Violation(kind="missing_theorem", line=None,
                             message=f"no declaration of `{target_name}` (the exercise) in the attempt"))
        t = len(cmds)
    else:
        t = hits[0]
        for extra in hits[1:]:
            out.append(Violation(kind="redefinition", line=cmds[extra].line,
                                 message=f"`{target_name}` is declared again (first at line {cmds[t].line})"))

    # 1. the official context, unchanged and first
    before = cmds[:t]
    before_keys = [command_key(c) for c in before]
    n = len(official_prefix)
    official_cmds: list[Command] = []
    helpers: list[Command] = []
    if before_keys[:n] == official_keys:
        official_cmds += before[:n]
        helpers = before[n:]
    else:
        _align_prefix(official_prefix, official_keys, before, before_keys, cmds[t].line if hits else None,
                      official_cmds, helpers, options, out)

    # 2. helpers before the exercise
    official_names = {c.decl.full_name for c in ex.file.commands if c.decl is not None and c.decl.full_name}
    stmt_names = _statement_identifiers(ex.command)
    for c in helpers:
        if not hits:  # nothing to protect; still report what the attempt wrote itself
            _scan_command(c, options, out)
            continue
        if c.head in _CONTEXT_COMMANDS and c.head not in _META_COMMANDS:
            out.append(Violation(kind="context_command", line=c.line,
                                 message=f"`{c.head}` before the exercise can change how its statement elaborates"))
        if c.decl is not None:
            bad = sorted(set(c.decl.attributes) & _CONTEXT_ATTRIBUTES)
            if bad:
                out.append(Violation(kind="context_command", line=c.line,
                                     message=f"attribute `{bad[0]}` before the exercise can change how its "
                                     "statement elaborates"))
            _check_name(c, official_names, target_name, stmt_names, out)
        _scan_command(c, options, out)

    # 3. the exercise
    if hits:
        tc = cmds[t]
        if statement_key(tc) != statement_key(ex.command):
            out.append(Violation(kind="statement_changed", line=tc.line,
                                 message=_first_difference(
                                     _meaningful_scope(ex.command.scoped_prefix) + list(ex.command.decl.header),
                                     _meaningful_scope(tc.scoped_prefix) + list(tc.decl.header))))
        stated = set(tc.decl.header) | set(_meaningful_scope(tc.scoped_prefix))
        own = [tok for tok in tc.tokens if tok not in stated]
        for attr in tc.decl.attributes:
            if attr in ("implemented_by", "extern", "csimp"):
                out.append(Violation(kind="not_permitted", line=tc.line,
                                     message=f"attribute `@[{attr}]` bypasses kernel checking"))
        if "unsafe" in tc.decl.modifiers:
            out.append(Violation(kind="not_permitted", line=tc.line, message="an `unsafe` exercise is not permitted"))
        if tc.decl.keyword == "axiom":
            out.append(Violation(kind="new_axiom", line=tc.line, message="the exercise is stated as an axiom"))
        _scan_own(own, options, out)

    # 4. after the exercise: official commands may follow unchanged, everything else is checked
    suffix_keys = [command_key(c) for c in ex.suffix]
    k = 0
    for c in cmds[t + 1:] if hits else []:
        key = command_key(c)
        if k < len(suffix_keys) and key in suffix_keys[k:]:
            k = suffix_keys.index(key, k) + 1
            official_cmds.append(c)
            continue
        if c.decl is not None:
            _check_name(c, official_names, target_name, set(), out)
        _scan_command(c, options, out)
    out.sort(key=lambda v: (v.line if v.line is not None else 0, v.kind, v.message))
    unique: dict[tuple[str, int | None], Violation] = {}
    for v in out:  # one report per kind and line, the first in order
        unique.setdefault((v.kind, v.line), v)
    return IntegrityReport(violations=tuple(unique.values()), official_lines=_line_ranges(official_cmds))


def _align_prefix(official_prefix: Sequence[Command], official_keys: list[tuple[str, ...]], before: list[Command],
                  before_keys: list[tuple[str, ...]], target_line: int | None, official_cmds: list[Command],
                  helpers: list[Command], options: dict[str, set[str]], out: list[Violation]) -> None:
    """Report how the official context was edited; sort the attempt's commands into official and helpers.

    Commands that replace official ones are reported as changes (not also as helpers); commands inserted
    between official ones are reported as insertions and scanned; commands after the last official one
    are the attempt's helpers.
    """
    ops = difflib.SequenceMatcher(a=official_keys, b=before_keys, autojunk=False).get_opcodes()
    last_equal_b = max((b1 for tag, _, _, _, b1 in ops if tag == "equal"), default=0)
    for tag, a0, a1, b0, b1 in ops:
        if tag == "equal":
            official_cmds.extend(before[b0:b1])
            continue
        for a in range(a0, a1):
            oc = official_prefix[a]
            what = f"`{oc.decl.full_name}`" if oc.decl and oc.decl.full_name else f"`{oc.head}` command"
            if tag == "replace":
                at = before[min(b0 + (a - a0), b1 - 1)]
                out.append(Violation(kind="prefix_changed", line=at.line,
                                     message=f"official {what} (official line {oc.line}) is changed"))
            else:
                where = before[b0].line if b0 < len(before) else target_line
                out.append(Violation(kind="prefix_changed", line=where,
                                     message=f"official {what} (official line {oc.line}) is missing"))
        if tag == "insert":
            for c in before[b0:b1]:
                if b1 <= last_equal_b:
                    out.append(Violation(kind="prefix_changed", line=c.line,
                                         message=f"`{c.head}` command inserted into the official context"))
                    _scan_command(c, options, out)
                else:
                    helpers.append(c)


def _check_name(c: Command, official_names: set[str], target: str, stmt_names: set[str],
                out: list[Violation]) -> None:
    full = c.decl.full_name
    if not full:
        return
    if full == target or full in official_names:
        out.append(Violation(kind="redefinition", line=c.line,
                             message=f"`{full}` is an official declaration and may not be declared again"))
        return
    parts = full.split(".")
    for k in range(len(parts)):
        if ".".join(parts[k:]) in stmt_names:
            out.append(Violation(kind="shadowing", line=c.line,
                                 message=f"helper `{full}` could capture `{'.'.join(parts[k:])}` in the "
                                 "exercise's statement"))
            return

"""Offline integrity checks of a proof attempt against its official file, without Lean.

A "proof" that edits the statement, redefines the local framework, proves a helper
with ``sorry``, switches the kernel off or intercepts the verifier's messages compiles
just as well as an honest one. These checks run before any verifier and reject such
attempts with a violation that names its kind and line. They work on the commands of
:mod:`lemmata.lean.structure` over the tokens of :mod:`lemmata.lean.lexer`, so
comments and strings that merely mention a forbidden word are not violations, and
comparisons ignore whitespace and comments.

The rule is constructive — an allow-list over the parsed command structure, not a list
of refused words. An attempt may add only proof text inside the exercise's body, plus
helper declarations of an allowed kind placed before the exercise:

1. the official context (every command before the exercise: imports, namespaces,
   inductive types, abbrevs, instances, given lemmas) comes first, unchanged;
2. then optional helper declarations, each of a kind, with modifiers and attributes, on
   the allow-lists of :mod:`lemmata.lean.allowed` and under a name the statement
   cannot resolve to; any other command (``instance``, ``open``, ``variable``,
   ``set_option``, ``macro``, ``elab``, ``syntax``, ``notation``, ``attribute``,
   ``axiom``, any ``#``-command such as ``#guard_msgs``, ``#eval``, ``#exit``) is refused;
3. then the exercise: everything up to its body (scoping prefix, modifiers, attributes,
   statement) exactly as the official file has it, and a body free of the refused proof
   forms (``sorry``, ``native_decide``, ``decide`` with a configuration, ``by_elab``,
   ``run_tac``, quotations, interpolated strings, ...);
4. then only the official file's own trailing commands (``end Chapter5`` ...), unchanged
   and in order (trailing ones may be left out); nothing of the attempt's own, so no
   command can run after the exercise — in particular nothing can answer, silence or
   reshape the verifier's appended ``#print axioms`` probe.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from typing import Literal

from pydantic import Field

from lemmata.core.models import Frozen
from lemmata.lean import allowed
from lemmata.lean.lexer import CLOSERS, LexError, Token
from lemmata.benchmarks.taobench.lean.statements import Exercise
from lemmata.lean.structure import Command, LeanFile, parse, unescape

ViolationKind = Literal[
    "unreadable",  # the attempt does not lex (unterminated comment or literal)
    "missing_theorem",  # the exercise's declaration is not in the attempt
    "statement_changed",  # the exercise's statement differs from the official one
    "prefix_changed",  # the official context before the exercise was edited, dropped or interleaved
    "context_command",  # a command before the exercise that is not an allowed helper declaration
    "redefinition",  # the exercise's name or an official name declared again
    "shadowing",  # a helper declared under a name the statement could resolve to
    "sorry",  # sorry / admit / sorryAx / stop in the attempt's own text
    "new_axiom",  # axiom (or Lean 3 constant) of the attempt's own
    "set_option",  # an option the official file does not set, or a looser resource limit
    "not_permitted",  # native_decide, implemented_by, extern, csimp, unsafe, metaprogramming, #-commands, ...
    "after_exercise",  # a command after the exercise that is not one of the official file's trailing commands
]


class Violation(Frozen):
    kind: ViolationKind
    line: int | None = Field(description="1-based line in the attempt; null when the violation has no single place")
    message: str

    def __str__(self) -> str:
        where = f"line {self.line}" if self.line is not None else "attempt"
        return f"{where}: {self.kind}: {self.message}"


class IntegrityReport(Frozen):
    """The outcome of the offline checks on one attempt."""

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

    >>> from lemmata.lean.lexer import lex
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


def statement_key(cmd: Command) -> tuple[str, ...]:
    """What an attempt may not change: everything before the body — scoping prefix (``open ... in``,
    ``set_option ... in``), attributes, modifiers, keyword .. type. Only the body after it is the attempt's."""
    decl = cmd.decl
    assert decl is not None
    return token_keys(cmd.tokens[:len(cmd.tokens) - len(decl.body)])


# --- the attempt's own text ----------------------------------------------------------------------------------------


def _own(findings: Iterable[allowed.Finding], out: list[Violation]) -> None:
    out.extend(Violation(kind=kind, line=line, message=message) for kind, line, message in findings)


def official_options(exercise: Exercise) -> dict[str, set[str]]:
    opts: dict[str, set[str]] = {}
    for cmd in exercise.file.commands:
        for name, value, _ in allowed.options_set(cmd.tokens):
            opts.setdefault(name, set()).add(value)
    return opts


def _refuse_command(cmd: Command, options: dict[str, set[str]], where: str, out: list[Violation]) -> None:
    """Why a command that is not an allowed helper is refused (``where``: 'before' or 'after' the exercise).

    The command's own text is scanned too, so a refused ``macro`` that expands to ``sorry`` reports both.
    """
    head = cmd.head
    first = cmd.tokens[0].text
    if head in ("axiom", "constant") or (cmd.decl is not None and cmd.decl.keyword == "axiom"):
        out.append(Violation(kind="new_axiom", line=cmd.line,
                             message=f"new axiom `{cmd.decl.name if cmd.decl else head}` is not permitted"))
    elif head.startswith("#") or first.startswith("#"):
        name = head if head.startswith("#") else first
        out.append(Violation(kind="not_permitted", line=cmd.line,
                             message=f"`{name}` commands of the attempt's own are not permitted (they can run code, "
                             "end the file early or change which messages the verifier sees)"))
    elif head in allowed.META_COMMANDS:
        out.append(Violation(kind="not_permitted", line=cmd.line,
                             message=f"`{head}` commands of the attempt's own are not permitted (they change how "
                             "syntax, elaboration or evaluation behave)"))
    elif where == "before":
        if head == "set_option" or first == "set_option":
            what = "`set_option` commands"
        else:
            what = f"`{head}` commands" if cmd.decl is None else f"`{cmd.decl.keyword}` declarations"
        out.append(Violation(kind="context_command", line=cmd.line,
                             message=f"{what} before the exercise are not permitted: it may be preceded only by "
                             "the official context and helper theorems, lemmas, defs, abbrevs, structures and "
                             "inductive types"))
    if where == "after":
        out.append(Violation(kind="after_exercise", line=cmd.line,
                             message=f"`{head}` after the exercise is not one of the official file's trailing "
                             "commands; nothing of the attempt's own may follow the exercise"))
    if cmd.decl is not None:
        _decl_modifiers(cmd, out)
    _own(allowed.scan_own_text(cmd.tokens, options), out)


def _decl_modifiers(cmd: Command, out: list[Violation]) -> None:
    decl = cmd.decl
    assert decl is not None
    for attr in decl.attributes:
        if attr in allowed.KERNEL_BYPASS_ATTRIBUTES:
            out.append(Violation(kind="not_permitted", line=cmd.line,
                                 message=f"attribute `@[{attr}]` bypasses kernel checking"))
    for mod in decl.modifiers:
        if mod in ("unsafe", "partial"):
            out.append(Violation(kind="not_permitted", line=cmd.line,
                                 message=f"`{mod}` declarations are not checked by the kernel's unfolding and are "
                                 "not permitted"))


def _check_helper(cmd: Command, options: dict[str, set[str]], out: list[Violation]) -> bool:
    """Report what makes ``cmd`` not an allowed helper declaration; True when it is a declaration at all."""
    decl = cmd.decl
    if decl is None or decl.keyword not in allowed.HELPER_KEYWORDS:
        _refuse_command(cmd, options, "before", out)
        return decl is not None
    _decl_modifiers(cmd, out)
    for mod in decl.modifiers:
        if mod not in allowed.HELPER_MODIFIERS and mod not in ("unsafe", "partial"):
            out.append(Violation(kind="context_command", line=cmd.line,
                                 message=f"modifier `{mod}` on a helper is not permitted"))
    for attr in decl.attributes:
        if attr not in allowed.HELPER_ATTRIBUTES and attr not in allowed.KERNEL_BYPASS_ATTRIBUTES:
            out.append(Violation(kind="context_command", line=cmd.line,
                                 message=f"attribute `@[{attr}]` on a helper is not permitted: only "
                                 f"{', '.join(sorted(allowed.HELPER_ATTRIBUTES))}, which change what later tactics "
                                 "try and nothing the kernel checks"))
    if any(tok.kind == "ident" and tok.text in ("local", "scoped") for tok in cmd.tokens[:len(cmd.tokens) -
                                                                                        len(decl.header) -
                                                                                        len(decl.body)]):
        out.append(Violation(kind="context_command", line=cmd.line,
                             message="`local`/`scoped` declarations change the context and are not permitted"))
    for tok in cmd.scoped_prefix:
        if tok.kind == "ident" and tok.text.startswith("#"):
            out.append(Violation(kind="not_permitted", line=tok.line,
                                 message=f"`{tok.text} ... in` scoping a helper is not permitted (it can hide the "
                                 "helper's errors, and Lean then adds the helper with `sorryAx`)"))
    deriving = next((t for t in decl.body if t.kind == "ident" and t.text == "deriving"), None)
    if deriving is not None:
        out.append(Violation(kind="context_command", line=deriving.line,
                             message="`deriving` runs instance handlers and is not permitted in a helper"))
    if decl.full_name and "_root_" in decl.full_name.split("."):
        out.append(Violation(kind="context_command", line=cmd.line,
                             message=f"helper name `{decl.name}` uses `_root_` inside a name"))
    _own(allowed.scan_own_text(cmd.tokens, options), out)
    return True


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


def _official_prefix_has(cmd: Command, text: str) -> bool:
    return any(t.text == text for t in cmd.scoped_prefix)


def _pre_body(cmd: Command) -> list[Token]:
    """The tokens of a declaration command before its body: scoping prefix, attributes, modifiers, statement."""
    decl = cmd.decl
    assert decl is not None
    return list(cmd.tokens[:len(cmd.tokens) - len(decl.body)])


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

    # 2. helpers before the exercise: allowed declarations only
    official_names = {c.decl.full_name for c in ex.file.commands if c.decl is not None and c.decl.full_name}
    stmt_names = _statement_identifiers(ex.command)
    for c in helpers:
        if not hits:  # without the exercise there is no before or after; still report what the attempt wrote
            _own(allowed.scan_own_text(c.tokens, options), out)
        elif _check_helper(c, options, out):
            _check_name(c, official_names, target_name, stmt_names, out)

    # 3. the exercise: everything before the body as official, the body free of refused forms
    if hits:
        tc = cmds[t]
        if statement_key(tc) != statement_key(ex.command):
            out.append(Violation(kind="statement_changed", line=tc.line,
                                 message=_first_difference(_pre_body(ex.command), _pre_body(tc))))
        for tok in tc.scoped_prefix:
            if tok.kind == "ident" and tok.text.startswith("#") and not _official_prefix_has(ex.command, tok.text):
                out.append(Violation(kind="not_permitted", line=tok.line,
                                     message=f"`{tok.text} ... in` scoping the exercise is not permitted (it can "
                                     "change which messages the verifier sees)"))
        if tc.decl.keyword == "axiom":
            out.append(Violation(kind="new_axiom", line=tc.line, message="the exercise is stated as an axiom"))
        _own(allowed.scan_own_text(tc.decl.body, options), out)

    # 4. after the exercise: only official trailing commands, unchanged and in order
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
        _refuse_command(c, options, "after", out)
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
                    _own(allowed.scan_own_text(c.tokens, options), out)
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
    if full.endswith("." + target):
        out.append(Violation(kind="shadowing", line=c.line,
                             message=f"helper `{full}` could capture the exercise's own name `{target}`"))
        return
    parts = full.split(".")
    # names under the helper (a structure's fields and constructors, a def's equation lemmas) are generated too,
    # so a helper may not be named like a namespace the statement's names go through either
    namespaces = {n.rsplit(".", j)[0] for n in stmt_names for j in range(1, n.count(".") + 1)}
    for k in range(len(parts)):
        suffix = ".".join(parts[k:])
        if suffix in stmt_names or suffix in namespaces:
            what = "" if suffix in stmt_names else "names under "
            out.append(Violation(kind="shadowing", line=c.line,
                                 message=f"helper `{full}` could capture {what}`{suffix}` in the "
                                 "exercise's statement"))
            return

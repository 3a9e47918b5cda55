"""What a proof attempt may write itself: allow-lists over parsed commands and proof tokens.

The integrity rule of :mod:`lemmata.benchmarks.taobench.lean.integrity` is constructive: an attempt is the
official file with proof text inside the official declarations' bodies, plus helper
declarations of an allowed kind placed before the exercise. This module holds the
allow-lists that rule is made of, each entry with the reason it is safe, and the scan of
text the attempt wrote itself (helper declarations and proof bodies).

Why these and nothing else:

- **Helper kinds** (:data:`HELPER_KEYWORDS`): ``theorem``/``lemma``/``example`` add a
  kernel-checked proof; ``def``/``abbrev`` add a kernel-checked definition; ``structure``
  and ``inductive`` add a new type whose generated declarations concern that type only.
  Everything else changes the context the exercise elaborates in (``instance``,
  ``class`` with its parent projections as instances, ``notation``, ``open``,
  ``variable``, ``namespace``...), adds an unchecked constant (``axiom``, ``opaque``),
  runs code (``#eval``, ``initialize``, ``run_cmd``), or changes how commands, messages or
  options behave (``macro``, ``syntax``, ``elab``, ``set_option``, ``#guard_msgs``...).
- **Modifiers** (:data:`HELPER_MODIFIERS`): visibility (``private``, ``protected``),
  ``noncomputable`` (no compiled code) and ``nonrec`` change nothing the kernel checks;
  ``unsafe`` and ``partial`` produce constants the kernel does not check by unfolding.
- **Attributes** (:data:`HELPER_ATTRIBUTES`): tagging a helper for ``simp``, ``ext``,
  ``gcongr``, ``aesop`` or the cast tactics changes which lemmas later *tactics* try;
  any proof they build is still checked by the kernel. Reducibility tags change how the
  helper itself unfolds. Every other attribute can change elaboration (``instance``,
  ``coe``, ``default_instance``, ``unification_hint``, ``macro``, ``command_elab``,
  ``term_elab``, ``tactic``...) or bypass the kernel (``implemented_by``, ``extern``,
  ``csimp``, ``init``), so it is refused.
- **Proof forms**: inside a body, anything the kernel checks is allowed; refused are the
  forms that leave a hole (``sorry``, ``admit``, ``stop``), evaluate with the compiler
  instead of the kernel (``native_decide``, ``bv_decide``, ``decide`` with any
  configuration, ``Lean.ofReduceBool``...), or run a metaprogram during elaboration
  (``by_elab``, ``run_tac``, syntax quotations, interpolated strings and ``dbg_trace``
  whose ``{...}`` parts are code).

What the checker reads, and what it refuses because it does not read it:

- It reads Lean 4 *tokens* (:mod:`lemmata.lean.lexer`): identifiers, numbers, symbols,
  comments, character literals, plain and raw string literals, and the ``{...}`` parts of
  the interpolated strings it can recognise by their head (``s!``, ``m!``, ``f!``,
  ``dbg_trace``, ``throwError``, ``trace[cls]``). Every token of text the attempt wrote is
  checked, wherever it sits: inside a proof, inside a ``by`` block in a helper's statement
  or default argument, inside a quotation's parentheses, inside an interpolated part.
- It does not know which of the thousands of Lean and Mathlib macros take their string as
  ``interpolatedStr`` (``throwErrorAt ref "{e}"``, ``logInfoAt``-style helpers, any
  message-building macro, any macro defined upstream), so it cannot tell a plain string
  from code. Closed rule: **a string literal (plain or raw) holding ``{`` is refused in
  text the attempt wrote**, with its line; the honest proofs a benchmark asks for never
  need one. Strings without ``{`` cannot hold code in any Lean string syntax.
- Syntax quotations (`` `(...) ``, `` `(tactic| ...) ``) build code for a metaprogram and are
  refused; so is every way to run a metaprogram (listed above), so code that only exists
  as data can never run during elaboration.

Functions here return plain ``(kind, line, message)`` findings; the integrity module
turns them into violations.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from lemmata.lean.lexer import Token
from lemmata.lean.structure import unescape

Finding = tuple[str, int, str]
"""``(violation kind, 1-based line, message)``"""

#: declaration keywords a helper may use (``lemma`` is Mathlib's ``theorem``)
HELPER_KEYWORDS = frozenset({"theorem", "lemma", "example", "def", "abbrev", "structure", "inductive"})
#: declaration modifiers a helper may carry
HELPER_MODIFIERS = frozenset({"private", "protected", "noncomputable", "nonrec"})
#: attributes a helper may carry: they only change which lemmas later tactics try, or how the helper unfolds
HELPER_ATTRIBUTES = frozenset({
    "simp", "norm_cast", "push_cast", "ext", "gcongr", "aesop", "reducible", "irreducible", "semireducible",
    "elab_as_elim",
})
#: attributes that make the compiler or unchecked code stand in for a definition
KERNEL_BYPASS_ATTRIBUTES = frozenset({"implemented_by", "extern", "csimp", "export", "init", "builtin_init",
                                      "never_extract"})
#: commands that run code or change how syntax, elaboration, messages or options behave
META_COMMANDS = frozenset({
    "macro", "macro_rules", "syntax", "elab", "elab_rules", "declare_syntax_cat", "initialize",
    "builtin_initialize", "run_cmd", "run_elab", "run_meta", "import", "notation", "notation3", "infix", "infixl",
    "infixr", "prefix", "postfix", "unif_hint", "register_simp_attr", "add_decl_doc", "compile_inductive",
})

_SORRY_NAMES = frozenset({"sorry", "admit", "sorryAx"})
#: names (or last name components) of kernel escapes and of elaboration-time code
_ESCAPE_NAMES = frozenset({
    "native_decide", "bv_decide", "implemented_by", "extern", "csimp", "unsafe", "ofReduceBool", "reduceBool",
    "trustCompiler", "ofReduceNat", "reduceNat", "addDecl", "addAndCompile", "addDeclWithoutChecking", "by_elab",
    "run_tac", "run_cmd", "run_elab", "run_meta", "dbg_trace", "s!", "m!", "f!", "evalExpr", "evalDecl",
    "DecideConfig",
})
_TACTIC_POSITION = frozenset({"by", ";", "<;>", "·", ".", "(", "=>", "then", "else"})
#: options that only change what is printed or linted
DISPLAY_OPTIONS = ("pp.", "linter.", "trace.", "profiler", "diagnostics", "format.", "Elab.async")
#: resource limits: 0 means unlimited; an attempt may set a limit no looser than the official file's
RESOURCE_OPTIONS = frozenset({"maxHeartbeats", "synthInstance.maxHeartbeats", "maxRecDepth", "synthInstance.maxSize"})


def last_component(name: str) -> str:
    """``Lean.ofReduceBool`` → ``ofReduceBool``.

    >>> last_component("Lean.«ofReduceBool»"), last_component("s!")
    ('ofReduceBool', 's!')
    """
    return unescape(name).rsplit(".", 1)[-1]


def options_set(tokens: Sequence[Token]) -> list[tuple[str, str, int]]:
    """``(name, value, line)`` of every ``set_option name value`` in ``tokens``."""
    out = []
    for i, t in enumerate(tokens):
        if t.kind == "ident" and t.text == "set_option" and i + 2 < len(tokens):
            out.append((tokens[i + 1].text, tokens[i + 2].text, t.line))
    return out


def option_allowed(name: str, value: str, official: Mapping[str, set[str]]) -> bool:
    """An option the attempt may set: display only, set to a value the official file uses, or a resource
    limit no looser than the official file's.

    >>> option_allowed("pp.all", "true", {}), option_allowed("debug.skipKernelTC", "true", {})
    (True, False)
    >>> option_allowed("maxHeartbeats", "400000", {"maxHeartbeats": {"800000"}})
    True
    >>> option_allowed("maxHeartbeats", "0", {"maxHeartbeats": {"800000"}})
    False
    """
    if name.startswith(DISPLAY_OPTIONS):
        return True
    if value in official.get(name, set()):
        return True
    if name in RESOURCE_OPTIONS and official.get(name):
        try:
            requested = int(value)
            limits = [int(v) for v in official[name]]
        except ValueError:
            return False
        if 0 in limits:
            return True
        return requested != 0 and requested <= max(limits)
    return False


def _decide_config(tokens: Sequence[Token], i: int) -> bool:
    """``decide`` at ``i`` followed by a configuration: ``+flag``/``-flag``, ``(config := ...)`` or ``{...}``."""
    if i + 1 >= len(tokens):
        return False
    nxt = tokens[i + 1]
    if nxt.kind == "sym" and nxt.text in ("+", "-", "{"):
        return True
    return nxt.text == "(" and i + 2 < len(tokens) and tokens[i + 2].text == "config"


def scan_own_text(tokens: Sequence[Token], official_options: Mapping[str, set[str]], *,
                  allow_sorry: bool = False) -> list[Finding]:
    """Findings in text the attempt wrote itself (a helper declaration, a proof body).

    >>> from lemmata.lean.lexer import lex
    >>> [(k, line) for k, line, _ in scan_own_text(lex('by decide +kernel').tokens, {})]
    [('not_permitted', 1), ('not_permitted', 1)]
    >>> [k for k, _, _ in scan_own_text(lex('by simp [decide]; exact decide_eq_true rfl').tokens, {})]
    []
    >>> [m for _, _, m in scan_own_text(lex('by exact (s! "{sorry}").length').tokens, {})][:1]
    ['`s!` runs code while the proof elaborates and is not permitted']
    >>> [(k, line) for k, line, _ in scan_own_text(lex('def f (r : Syntax) : MetaM Unit :=\\n  throwErrorAt r "{sorry}"').tokens, {})]
    [('not_permitted', 2)]
    >>> scan_own_text(lex('by fail "no braces here"').tokens, {})
    []
    """
    out: list[Finding] = []
    for i, t in enumerate(tokens):
        prev = tokens[i - 1] if i else None
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        if t.kind == "sym" and t.text == "`" and nxt is not None and not nxt.spaced and nxt.text in ("(", "`"):
            if nxt.text == "(":
                out.append(("not_permitted", t.line, "a syntax quotation builds code for a metaprogram and is not "
                            "permitted"))
            continue
        if t.kind == "str" and "{" in t.text:
            out.append(("not_permitted", t.line, "a string holding `{` may be an interpolated string whose `{…}` "
                        "part Lean elaborates as code (`throwErrorAt ref \"{…}\"`, `m!`, `s!`, `trace[…]`, any "
                        "message-building macro); strings with `{` are not permitted in a proof or helper"))
            continue
        if t.kind != "ident":
            continue
        name = unescape(t.text)
        last = last_component(t.text)
        if name in _SORRY_NAMES or last == "sorryAx":
            if not allow_sorry:
                out.append(("sorry", t.line, f"`{t.text}` leaves the proof unfinished"))
        elif name == "stop" and (t.first_on_line or (prev is not None and prev.text in _TACTIC_POSITION)):
            if not allow_sorry:
                out.append(("sorry", t.line, "`stop` discards the rest of the proof (it elaborates to sorry)"))
        elif name in _ESCAPE_NAMES or last in _ESCAPE_NAMES:
            why = ("runs code while the proof elaborates" if last in ("by_elab", "run_tac", "run_cmd", "run_elab",
                                                                      "run_meta", "dbg_trace", "s!", "m!", "f!",
                                                                      "evalExpr", "evalDecl")
                   else "bypasses kernel checking")
            out.append(("not_permitted", t.line, f"`{t.text}` {why} and is not permitted"))
        elif name in ("native", "kernel") and prev is not None and (
                prev.text in ("+", "-") or (prev.text in ("{", ",", "with") and nxt is not None and nxt.text == ":=")):
            out.append(("not_permitted", t.line, f"a `{name}` configuration makes `decide` skip the kernel's "
                        "own check and is not permitted"))
        elif name in ("decide", "decide!") and _decide_config(tokens, i):
            out.append(("not_permitted", t.line, "`decide` with a configuration can evaluate outside the kernel "
                        "and is not permitted"))
    for name, value, line in options_set(tokens):
        if not option_allowed(name, value, official_options):
            if name.startswith("debug."):
                why = "switches off checking"
            elif name in RESOURCE_OPTIONS and name in official_options:
                why = "loosens a resource limit beyond the official file's"
            else:
                why = "is not set by the official file"
            out.append(("set_option", line, f"`set_option {name} {value}` {why}"))
    return out

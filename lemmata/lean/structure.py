"""Commands, namespaces and declarations of a Lean 4 file, from its tokens.

A Lean file is a sequence of commands. Integrity checks compare an attempt with
the official file command by command, and need for each declaration its full
name (namespaces applied) and its *statement*: the header from the declaration
keyword up to the body (``:=``, ``where`` or the first equation ``| ... =>``).

Command boundaries follow Lean's grammar: declaration and other command
keywords cannot occur inside a term, so one at bracket depth 0 starts a new
command; ``open`` and ``set_option`` also exist as term/tactic prefixes
(``open Real in``), so they start a command only when they are not indented
deeper than the command being read. ``open ... in`` / ``set_option ... in``
prefixes are merged with the command they scope.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lemmata.lean.lexer import CLOSERS, OPENERS, Token, lex

#: keywords that introduce a declaration (``lemma`` is Mathlib's synonym of ``theorem``)
DECL_KEYWORDS = frozenset({
    "theorem", "lemma", "def", "abbrev", "instance", "structure", "class", "inductive", "axiom", "opaque",
    "example", "irreducible_def", "alias",
})
#: keywords that always start a command at depth 0
HARD_KEYWORDS = DECL_KEYWORDS | frozenset({
    "import", "namespace", "section", "end", "universe", "variable", "include", "omit", "attribute", "notation",
    "notation3", "infix", "infixl", "infixr", "prefix", "postfix", "macro", "macro_rules", "syntax", "elab",
    "elab_rules", "declare_syntax_cat", "initialize", "builtin_initialize", "mutual", "export", "add_decl_doc",
    "run_cmd", "run_elab", "run_meta", "unif_hint", "assert_not_exists", "suppress_compilation", "open_locale",
    "register_simp_attr", "compile_inductive", "library_note", "scoped", "local",
})
#: modifiers that begin a declaration (or ``noncomputable section``)
MODIFIERS = frozenset({"private", "protected", "noncomputable", "unsafe", "partial", "nonrec"})
#: command keywords that also exist as term or tactic prefixes
SOFT_KEYWORDS = frozenset({"open", "set_option"})
#: a command name written ``#word``
_HASH_COMMAND_PREFIX = "#"


@dataclass(frozen=True)
class Decl:
    """One declaration command."""

    keyword: str
    """``theorem``/``def``/... with ``lemma`` reported as written"""
    name: str | None
    """as written (``Nat.foo``, ``_root_.bar``); None for ``example`` and anonymous instances"""
    full_name: str | None
    """``name`` resolved against the enclosing namespaces"""
    modifiers: tuple[str, ...]
    attributes: tuple[str, ...]
    """attribute names from ``@[...]`` (first identifier of each entry)"""
    header: tuple[Token, ...]
    """keyword .. last token before the body: the statement"""
    body: tuple[Token, ...]
    """the separator (``:=``, ``where``, ``|``) and everything after it"""


def _edge(index: int, attribute: str) -> property:
    """A property of a :class:`Command`: ``attribute`` of its first (``index`` 0) or last (``-1``) token."""
    return property(lambda command: getattr(command.tokens[index], attribute))


@dataclass(frozen=True)
class Command:
    tokens: tuple[Token, ...]
    head: str
    """first keyword after prefixes (``open ... in``), modifiers and attributes"""
    namespace: str
    """namespace in effect when the command starts"""
    decl: Decl | None = None
    scoped_prefix: tuple[Token, ...] = ()
    """``open X in`` / ``set_option o v in`` tokens scoping this command"""

    #: where the command starts (its first token's line and offset) and ends (its last token's)
    line, start = _edge(0, "line"), _edge(0, "start")
    end_line, end = _edge(-1, "line"), _edge(-1, "end")


@dataclass(frozen=True)
class LeanFile:
    source: str
    commands: tuple[Command, ...]
    comments: tuple = field(default=(), repr=False)

    def declarations(self) -> list[Command]:
        return [c for c in self.commands if c.decl is not None]

    def find(self, full_name: str) -> list[Command]:
        return [c for c in self.commands if c.decl is not None and c.decl.full_name == full_name]


def _is_command_start(tokens: list[Token], i: int, depth: int, current_col: int | None) -> bool:
    tok = tokens[i]
    text = tok.text
    if depth:
        return False
    if text in HARD_KEYWORDS and tok.kind == "ident":
        if text in ("local", "scoped"):  # only as a modifier of a following command keyword
            nxt = tokens[i + 1].text if i + 1 < len(tokens) else ""
            return nxt in HARD_KEYWORDS or nxt in MODIFIERS or nxt in ("instance", "notation", "macro", "syntax")
        return True
    if tok.kind == "ident" and text.startswith(_HASH_COMMAND_PREFIX):
        return True
    if text == "deriving" and i + 1 < len(tokens) and tokens[i + 1].text == "instance":
        return True
    if (text in MODIFIERS and tok.kind == "ident") or (text == "@[" and tok.kind == "sym"):
        return _leads_to_declaration(tokens, i)
    if text in SOFT_KEYWORDS and tok.kind == "ident":
        return current_col is None or (tok.first_on_line and tok.col <= current_col)
    return False


def _leads_to_declaration(tokens: list[Token], i: int) -> bool:
    """Modifiers and ``@[...]`` lists followed by a declaration keyword (or ``section``)."""
    j = i
    while j < len(tokens):
        t = tokens[j].text
        if t == "@[":
            depth = 1
            j += 1
            while j < len(tokens) and depth:
                if tokens[j].text in OPENERS:
                    depth += 1
                elif tokens[j].text in CLOSERS:
                    depth -= 1
                j += 1
            continue
        if t in MODIFIERS:
            j += 1
            continue
        return t in DECL_KEYWORDS or t == "section"
    return False


def split_commands(tokens: tuple[Token, ...] | list[Token]) -> list[list[Token]]:
    """Group tokens into commands (before merging ``open ... in`` prefixes).

    Modifiers and attribute lists (``@[simp] private noncomputable def``) begin a command; the
    declaration keyword after them belongs to the same command.
    """
    tokens = list(tokens)
    groups: list[list[Token]] = []
    depth = 0
    current_col: int | None = None
    prefix_only = False  # the current group so far holds only modifiers and attribute lists
    for i, tok in enumerate(tokens):
        depth_before = depth
        start = not groups or _is_command_start(tokens, i, depth, current_col)
        if start and groups and (prefix_only or (groups[-1][-1].text == "class" and tok.text in ("inductive", "abbrev"))):
            start = False
        if start:
            groups.append([tok])
            current_col = tok.col
            prefix_only = tok.text in MODIFIERS or tok.text in ("@[", "local", "scoped")
        else:
            groups[-1].append(tok)
            if prefix_only and not (depth_before > 0 or tok.text in MODIFIERS or tok.text in ("@[", "local", "scoped")):
                prefix_only = False
        if tok.kind == "sym":
            if tok.text in OPENERS:
                depth += 1
            elif tok.text in CLOSERS:
                depth = max(0, depth - 1)
    # ``open X in`` / ``set_option o v in`` (and ``#cmd ... in``, e.g. ``#guard_msgs in``) scope the next command
    merged: list[list[Token]] = []
    for group in groups:
        if merged and _is_scope_prefix(merged[-1][0]) and merged[-1][-1].text == "in":
            merged[-1] = merged[-1] + group
        else:
            merged.append(group)
    return merged


def _is_scope_prefix(tok: Token) -> bool:
    """A command that can scope the next one with ``in``: ``open``, ``set_option`` and ``#``-commands."""
    return tok.kind == "ident" and (tok.text in SOFT_KEYWORDS or tok.text.startswith(_HASH_COMMAND_PREFIX))


def _strip_scope(tokens: list[Token]) -> tuple[list[Token], list[Token]]:
    """Split leading ``open ... in`` / ``set_option ... in`` / ``#cmd ... in`` prefixes from the command they scope."""
    prefix: list[Token] = []
    rest = tokens
    while rest and _is_scope_prefix(rest[0]):
        k = next((j for j, t in enumerate(rest) if t.text == "in"), None)
        if k is None or k == len(rest) - 1:
            break
        prefix += rest[: k + 1]
        rest = rest[k + 1:]
    return prefix, rest


def _attributes(tokens: list[Token], i: int) -> tuple[list[str], int]:
    """Attribute names of ``@[a, b c, -d]`` starting at ``tokens[i] == '@['``; returns (names, index after)."""
    names: list[str] = []
    depth = 1
    j = i + 1
    expect_name = True
    while j < len(tokens) and depth:
        t = tokens[j]
        if t.text in OPENERS:
            depth += 1
        elif t.text in CLOSERS:
            depth -= 1
        elif depth == 1 and t.text == ",":
            expect_name = True
        elif depth == 1 and expect_name and t.kind == "ident" and t.text not in ("local", "scoped"):
            names.append(t.text)
            expect_name = False
        j += 1
    return names, j


def header_end(tokens: list[Token], start: int) -> int:
    """Index of the token that starts the body of a declaration whose keyword is at ``start``.

    The body starts at the first ``:=`` at bracket depth 0 that is not a ``let``/``have``
    binding inside the type, at ``where``, or at a ``|`` that opens an equation
    (``| pat => rhs`` on its own line: absolute values ``|x|`` are not equations).
    Returns ``len(tokens)`` when there is no body.
    """
    depth = 0
    pending_bindings = 0
    for j in range(start + 1, len(tokens)):
        t = tokens[j]
        if t.kind == "sym" and t.text in OPENERS:
            depth += 1
            continue
        if t.kind == "sym" and t.text in CLOSERS:
            depth = max(0, depth - 1)
            continue
        if depth:
            continue
        if t.kind == "ident" and t.text in ("let", "have", "haveI", "letI", "show"):
            pending_bindings += t.text != "show"
            continue
        if t.text == ":=":
            if pending_bindings:
                pending_bindings -= 1
                continue
            return j
        if t.text == "where" and t.kind == "ident":
            return j
        if t.text == "|" and t.first_on_line and _opens_equation(tokens, j):
            return j
    return len(tokens)


def _opens_equation(tokens: list[Token], j: int) -> bool:
    depth = 0
    for k in range(j + 1, len(tokens)):
        t = tokens[k]
        if t.kind == "sym" and t.text in OPENERS:
            depth += 1
        elif t.kind == "sym" and t.text in CLOSERS:
            depth = max(0, depth - 1)
        elif depth == 0 and t.text == "=>":
            return True
        elif depth == 0 and t.text in ("|", ":="):
            return False
    return False


def _decl(tokens: list[Token], namespace: str) -> tuple[str, Decl | None]:
    """The head keyword of a command and, for declarations, its :class:`Decl`."""
    modifiers: list[str] = []
    attributes: list[str] = []
    i = 0
    while i < len(tokens):
        t = tokens[i]
        if t.text == "@[":
            names, i = _attributes(tokens, i)
            attributes += names
            continue
        if t.text in MODIFIERS or t.text in ("local", "scoped"):
            modifiers.append(t.text)
            i += 1
            continue
        break
    if i >= len(tokens):
        return (modifiers[-1] if modifiers else tokens[0].text), None
    head = tokens[i].text
    if head == "class" and i + 1 < len(tokens) and tokens[i + 1].text in ("inductive", "abbrev"):
        i += 1
    if head not in DECL_KEYWORDS:
        return head, None
    keyword = tokens[i].text
    name = None
    j = i + 1
    if keyword == "instance":
        # instance (priority := p)? name? : type
        if j < len(tokens) and tokens[j].text == "(" and j + 1 < len(tokens) and tokens[j + 1].text == "priority":
            depth = 0
            while j < len(tokens):
                if tokens[j].text in OPENERS:
                    depth += 1
                elif tokens[j].text in CLOSERS:
                    depth -= 1
                    if depth == 0:
                        j += 1
                        break
                j += 1
        if j < len(tokens) and tokens[j].kind == "ident" and tokens[j].text not in ("where",):
            name = tokens[j].text
    elif keyword != "example" and j < len(tokens) and tokens[j].kind == "ident":
        name = tokens[j].text
    end = header_end(tokens, i)
    full = resolve_name(namespace, name) if name else None
    return head, Decl(
        keyword=keyword, name=name, full_name=full, modifiers=tuple(modifiers), attributes=tuple(attributes),
        header=tuple(tokens[i:end]), body=tuple(tokens[end:]),
    )


def resolve_name(namespace: str, name: str) -> str:
    """Full name of a declaration ``name`` written inside ``namespace``.

    >>> resolve_name("Chapter2", "Nat.backwards_induction")
    'Chapter2.Nat.backwards_induction'
    >>> resolve_name("Chapter2", "_root_.Nat.foo")
    'Nat.foo'
    """
    name = unescape(name)
    if name.startswith("_root_."):
        return name[len("_root_."):]
    return f"{namespace}.{name}" if namespace else name


def unescape(name: str) -> str:
    """Drop ``«»`` escapes: ``«sorryAx»`` and ``sorryAx`` name the same constant."""
    return name.replace("«", "").replace("»", "")


def parse(source: str) -> LeanFile:
    """Commands of ``source`` with their namespaces and declarations; raises ``LexError``."""
    lexed = lex(source)
    commands: list[Command] = []
    scopes: list[tuple[str, str]] = []  # (kind, name) for namespace/section
    for group in split_commands(lexed.tokens):
        namespace = ".".join(n for k, n in scopes if k == "namespace" and n)
        prefix, rest = _strip_scope(group)
        if not rest:
            rest, prefix = prefix, []
        head, decl = _decl(rest, namespace)
        commands.append(Command(tokens=tuple(group), head=head, namespace=namespace, decl=decl,
                                scoped_prefix=tuple(prefix)))
        first = rest[0].text
        arg = rest[1].text if len(rest) > 1 and rest[1].kind == "ident" and rest[1].line == rest[0].line else ""
        if first == "namespace" and arg:
            for part in unescape(arg).split("."):
                scopes.append(("namespace", part))
        elif first == "mutual":
            scopes.append(("mutual", ""))
        elif head == "section" or first == "section":
            scopes.append(("section", arg if first == "section" else ""))
        elif first == "end":
            n = len(unescape(arg).split(".")) if arg else 1
            for _ in range(min(n, len(scopes))):
                scopes.pop()
    return LeanFile(source=source, commands=tuple(commands), comments=lexed.comments)

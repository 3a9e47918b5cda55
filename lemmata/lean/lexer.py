"""A Lean 4 lexer, exact enough to tell code from comments and literals.

Integrity checks must not fire on a comment or a string that merely mentions
``sorry``, and must not miss a ``sorry`` hidden after a nested block comment.
So this module follows Lean's own lexical rules (``Lean.Parser.Basic``):
nested ``/- ... -/`` comments (doc ``/--`` and module ``/-!`` forms included),
``--`` line comments, string literals with escapes and gaps, raw strings
``r#"..."#``, interpolated strings whose ``{e}`` parts are code (after
``s!``/``m!``/``f!`` with or without a space, ``dbg_trace``, ``throwError`` and
``trace[cls]``: Lean reads the string after these heads with its
``interpolatedStr`` parser, so a lexer that took it for a plain string would
hide code from every check), character literals, identifiers with Lean's letter-like Unicode ranges,
``«escaped»`` name parts and dotted names, numbers and symbols.

Each token keeps its 1-based line and 0-based column (in characters, as the
Lean REPL reports positions), and whether whitespace or a comment preceded it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from lemmata.core.errors import Error

TokenKind = Literal["ident", "num", "str", "char", "sym", "name", "field"]


class LexError(Error, ValueError):
    """Unterminated comment or literal; carries the 1-based line where it starts."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(f"line {line}: {message}")
        self.message = message
        self.line = line


@dataclass(frozen=True, slots=True)
class Token:
    kind: TokenKind
    text: str
    line: int
    col: int
    start: int
    end: int
    spaced: bool
    """True when whitespace or a comment separates this token from the previous one."""
    first_on_line: bool


@dataclass(frozen=True, slots=True)
class Comment:
    kind: Literal["line", "block", "doc", "module"]
    text: str
    line: int
    end_line: int
    start: int
    end: int


def _letter_like(c: str) -> bool:
    v = ord(c)
    return (
        (0x3B1 <= v <= 0x3C9 and v != 0x3BB)  # lower Greek except λ
        or (0x391 <= v <= 0x3A9 and v not in (0x3A0, 0x3A3))  # upper Greek except Π, Σ
        or 0x3CA <= v <= 0x3FB  # Coptic
        or 0x1F00 <= v <= 0x1FFE  # polytonic Greek
        or 0x2100 <= v <= 0x214F  # letter-like block (ℕ ℤ ℚ ℝ ℂ ...)
        or 0x1D49C <= v <= 0x1D59F  # script, double-struck, Fraktur latin
    )


def _subscript(c: str) -> bool:
    v = ord(c)
    return 0x2080 <= v <= 0x2089 or 0x2090 <= v <= 0x209C or 0x1D62 <= v <= 0x1D6A or v == 0x2C7C


def is_id_first(c: str) -> bool:
    """Lean's ``isIdFirst``: ASCII letters, ``_`` and letter-like symbols (the end of input, ``""``, is none).

    >>> [is_id_first(c) for c in "aℝ_1λ"], is_id_first("")
    ([True, True, True, False, False], False)
    """
    return ("a" <= c <= "z") or ("A" <= c <= "Z") or c == "_" or (len(c) == 1 and _letter_like(c))


# Multi-character symbols, longest first within each leading character (Lean's token table, ASCII part).
_SYMBOLS = sorted(
    {
        ":=", "::", "=>", "->", "<-", "<->", "<;>", "<|>", "<|", "|>.", "|>", "<=", ">=", "!=", "==", "&&", "||",
        "++", "..", "...", "@[", "#[", "%[", "<$>", ">>=", ">>", "<<", "^^", "::=", "⁻¹",
        "+=", "-=", "*=", "×ˢ", "<*>", "*>", "<*",
    },
    key=len,
    reverse=True,
)
_OPEN = {"(": ")", "[": "]", "{": "}", "⟨": "⟩", "⦃": "⦄", "@[": "]", "#[": "]", "%[": "]", "‹": "›", "⟦": "⟧"}
CLOSERS = frozenset(_OPEN.values())
OPENERS = frozenset(_OPEN)

# Character classes of ``is_id_first`` / ``is_id_rest`` as regexes: the fast path of the lexer.
_LETTER_LIKE = ("\u03b1-\u03ba\u03bc-\u03c9\u0391-\u039f\u03a1\u03a2\u03a4-\u03a9\u03ca-\u03fb"
                "\u1f00-\u1ffe\u2100-\u214f\U0001d49c-\U0001d59f")
_SUBSCRIPTS = "\u2080-\u2089\u2090-\u209c\u1d62-\u1d6a\u2c7c"
_ID_PART = re.compile(f"[A-Za-z_{_LETTER_LIKE}][A-Za-z0-9_'!?{_LETTER_LIKE}{_SUBSCRIPTS}]*")
_BLANKS = re.compile(r"[ \t\r\n]+")
_DIGITS = re.compile(r"[0-9]+")
_DASH_OR_SLASH = re.compile(r"[-/]")
_SYMBOLS_BY_FIRST: dict[str, tuple[str, ...]] = {}
for _sym in _SYMBOLS:
    _SYMBOLS_BY_FIRST[_sym[0]] = _SYMBOLS_BY_FIRST.get(_sym[0], ()) + (_sym,)


#: heads after which Lean parses the next string literal as ``interpolatedStr`` (whitespace allowed between)
INTERPOLATION_HEADS = frozenset({"s!", "m!", "f!", "dbg_trace", "throwError"})


class _Lexer:
    def __init__(self, src: str) -> None:
        self.src = src
        self.n = len(src)
        self.i = 0
        self.line = 1
        self.line_start = 0
        self.tokens: list[Token] = []
        self.comments: list[Comment] = []
        self.spaced = True
        self.last_token_line = 0

    # -- helpers -----------------------------------------------------------
    def peek(self, k: int = 0) -> str:
        j = self.i + k
        return self.src[j] if j < self.n else ""

    def advance(self, k: int = 1) -> None:
        self.jump(min(self.n, self.i + k))

    def jump(self, j: int) -> None:
        """Move to offset ``j``, counting the newlines passed."""
        newlines = self.src.count("\n", self.i, j)
        if newlines:
            self.line += newlines
            self.line_start = self.src.rfind("\n", self.i, j) + 1
        self.i = j

    def emit(self, kind: TokenKind, start: int, line: int, col: int) -> None:
        first = line != self.last_token_line
        self.tokens.append(Token(kind, self.src[start:self.i], line, col, start, self.i, self.spaced, first))
        self.last_token_line = self.line
        self.spaced = False

    # -- trivia ------------------------------------------------------------
    def block_comment(self) -> None:
        """A nested comment, opened exactly as Lean opens it.

        ``/--`` and ``/-!`` are tokens: the body starts right after them. A plain ``/-``
        also swallows the character after it before nesting is counted (Lean's
        ``whitespace`` does ``s.next`` there), so ``/-/- a -/ b`` closes before ``b``.
        """
        start, line = self.i, self.line
        if self.src.startswith("/--", self.i):
            kind, skip = "doc", 3
        elif self.src.startswith("/-!", self.i):
            kind, skip = "module", 3
        else:
            kind, skip = "block", 3
        self.advance(skip)
        depth = 1
        while depth:
            if self.i >= self.n:
                raise LexError("unterminated comment", line)
            # scan to the next '/' or '-' in one step
            j = self._next_dash_or_slash(self.i)
            if j < 0:
                self.jump(self.n)
                continue
            self.jump(j)
            if self.src.startswith("/-", self.i):
                depth += 1
                self.advance(2)
            elif self.src.startswith("-/", self.i):
                depth -= 1
                self.advance(2)
            else:
                self.advance()
        self.comments.append(Comment(kind, self.src[start:self.i], line, self.line, start, self.i))

    def _next_dash_or_slash(self, i: int) -> int:
        m = _DASH_OR_SLASH.search(self.src, i)
        return m.start() if m else -1

    def line_comment(self) -> None:
        start, line = self.i, self.line
        while self.i < self.n and self.src[self.i] != "\n":
            self.i += 1
        self.comments.append(Comment("line", self.src[start:self.i], line, line, start, self.i))

    # -- literals ----------------------------------------------------------
    def escape(self, line: int) -> None:
        """Consume one escape after a backslash (already consumed)."""
        c = self.peek()
        if c == "":
            raise LexError("unterminated string literal", line)
        if c == "x":
            self.advance(3)
        elif c == "u":
            self.advance(5)
        elif c == "\n":  # string gap: backslash-newline, then leading whitespace is skipped
            self.advance()
            while self.peek() in (" ", "\t", "\r", "\n") and self.peek() != "":
                self.advance()
        else:
            self.advance()

    def string(self, interpolated: bool) -> None:
        line = self.line
        self.advance()  # opening quote
        while True:
            c = self.peek()
            if c == "":
                raise LexError("unterminated string literal", line)
            if c == "\\":
                self.advance()
                self.escape(line)
            elif c == '"':
                self.advance()
                return
            elif c == "{" and interpolated:
                # the {...} part of s!"..." is code: lex it as tokens up to the matching brace
                self.string_interpolation(line)
            else:
                self.advance()

    def string_interpolation(self, line: int) -> None:
        """Lex the code inside ``{...}`` of an interpolated string into ordinary tokens."""
        self.advance()
        depth = 1
        self.spaced = True
        while True:
            if self.i >= self.n:
                raise LexError("unterminated interpolated string", line)
            c = self.peek()
            if c == "}" and depth == 1:
                self.advance()
                self.spaced = True
                return
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
            if not self.token_or_trivia():
                raise LexError("unterminated interpolated string", line)

    def raw_string(self) -> None:
        line = self.line
        self.advance()  # r
        hashes = 0
        while self.peek() == "#":
            hashes += 1
            self.advance()
        self.advance()  # "
        close = '"' + "#" * hashes
        end = self.src.find(close, self.i)
        if end < 0:
            raise LexError("unterminated raw string literal", line)
        self.advance(end + len(close) - self.i)

    def char_literal(self) -> bool:
        """Lex ``'c'`` or ``'\\n'``; False when the quote does not open a character literal."""
        j = self.i + 1
        if j >= self.n:
            return False
        if self.src[j] == "\\":
            k = j + 1
            if k < self.n and self.src[k] == "x":
                k += 3
            elif k < self.n and self.src[k] == "u":
                k += 5
            else:
                k += 1
            if k < self.n and self.src[k] == "'":
                self.advance(k + 1 - self.i)
                return True
            return False
        if self.src[j] not in "'\n" and j + 1 < self.n and self.src[j + 1] == "'":
            self.advance(3)
            return True
        return False

    # -- names and numbers ---------------------------------------------------
    def name_part(self) -> bool:
        c = self.peek()
        if c == "«":
            end = self.src.find("»", self.i + 1)
            if end < 0:
                raise LexError("unterminated «escaped» identifier", self.line)
            self.advance(end + 1 - self.i)
            return True
        m = _ID_PART.match(self.src, self.i)
        if m:
            self.i = m.end()  # identifiers contain no newline
            return True
        return False

    def dotted_rest(self) -> None:
        """After a name part: ``.part`` and ``.1`` continuations glued without spaces."""
        while self.peek() == ".":
            nxt = self.peek(1)
            if nxt and (is_id_first(nxt) or nxt == "«"):
                self.advance()
                self.name_part()
            elif "0" <= nxt <= "9":
                self.i = _DIGITS.match(self.src, self.i + 1).end()  # type: ignore[union-attr]
            else:
                return

    def number(self) -> None:
        if self.peek() == "0" and self.peek(1) in ("x", "X", "b", "B", "o", "O") and self.peek(1):
            self.advance(2)
            while self.peek() and (self.peek().isalnum() or self.peek() == "_"):
                self.advance()
            return
        while self.peek().isdigit() and self.peek().isascii():
            self.advance()
        if self.peek() == "." and self.peek(1).isdigit() and self.peek(1).isascii():
            self.advance()
            while self.peek().isdigit() and self.peek().isascii():
                self.advance()
        if self.peek() in ("e", "E") and (self.peek(1).isdigit() or (self.peek(1) in "+-" and self.peek(2).isdigit())):
            self.advance(2)
            while self.peek().isdigit():
                self.advance()

    # -- driver --------------------------------------------------------------
    def token_or_trivia(self) -> bool:
        """Consume one token or one piece of trivia; False at end of input."""
        if self.i >= self.n:
            return False
        c = self.src[self.i]
        if c in " \t\r\n":
            self.jump(_BLANKS.match(self.src, self.i).end())  # type: ignore[union-attr]
            self.spaced = True
            return True
        if self.src.startswith("/-", self.i):
            self.block_comment()
            self.spaced = True
            return True
        if self.src.startswith("--", self.i):
            self.line_comment()
            self.spaced = True
            return True
        start, line, col = self.i, self.line, self.i - self.line_start
        if c == '"':
            self.string(self._interpolation_follows())
            self.emit("str", start, line, col)
        elif c == "r" and (self.peek(1) == '"' or (self.peek(1) == "#" and self._raw_ahead())):
            self.raw_string()
            self.emit("str", start, line, col)
        elif c == "'" and self.char_literal():
            self.emit("char", start, line, col)
        elif is_id_first(c) or c == "«":
            self.name_part()
            self.dotted_rest()
            self.emit("ident", start, line, col)
        elif c.isdigit() and c.isascii():
            self.number()
            self.emit("num", start, line, col)
        elif c == "`" and (is_id_first(self.peek(1)) or self.peek(1) == "«"):
            self.advance()
            self.name_part()
            self.dotted_rest()
            self.emit("name", start, line, col)
        elif c == "." and (is_id_first(self.peek(1)) or self.peek(1) == "«" or
                           (self.peek(1).isdigit() and self.peek(1).isascii())):
            self.advance()
            if self.peek().isdigit():
                while self.peek().isdigit() and self.peek().isascii():
                    self.advance()
            else:
                self.name_part()
            self.dotted_rest()
            self.emit("field", start, line, col)
        elif c == "#" and is_id_first(self.peek(1)):
            self.advance()
            self.name_part()
            self.emit("ident", start, line, col)  # #check, #eval, #exit, #print ...
        else:
            for sym in _SYMBOLS_BY_FIRST.get(c, ()):
                if self.src.startswith(sym, self.i):
                    self.i += len(sym)
                    break
            else:
                self.advance()
            self.emit("sym", start, line, col)
        return True

    def _interpolation_follows(self) -> bool:
        """True when the string about to be read is an ``interpolatedStr``: after an interpolation head
        (``s!``, ``m!``, ``f!``, ``dbg_trace``, ``throwError``; spaced or not), after any identifier glued
        to it that ends in ``!`` (``toString!"..."``-style heads), or after ``trace[cls]``."""
        toks = self.tokens
        if not toks:
            return False
        prev = toks[-1]
        if prev.kind == "ident" and (prev.text in INTERPOLATION_HEADS or (not self.spaced and prev.text.endswith("!"))):
            return True
        return (len(toks) >= 4 and prev.text == "]" and toks[-4].kind == "ident" and toks[-4].text == "trace"
                and toks[-3].text == "[" and not toks[-3].spaced)

    def _raw_ahead(self) -> bool:
        j = self.i + 1
        while j < self.n and self.src[j] == "#":
            j += 1
        return j < self.n and self.src[j] == '"'


@dataclass(frozen=True)
class Lexed:
    tokens: tuple[Token, ...]
    comments: tuple[Comment, ...]


def lex(src: str) -> Lexed:
    """Tokens and comments of a Lean 4 source; raises :class:`LexError` on unterminated input.

    >>> [t.text for t in lex('theorem t : "sorry" = s!"{x}" := by /- sorry /- nested -/ -/ simp -- sorry').tokens]
    ['theorem', 't', ':', '"sorry"', '=', 's!', '"{x}"', 'x', ':=', 'by', 'simp']
    """
    lx = _Lexer(src)
    while lx.token_or_trivia():
        pass
    # interpolated parts were emitted after their string token began; order tokens by position
    tokens = sorted(lx.tokens, key=lambda t: t.start)
    return Lexed(tuple(tokens), tuple(lx.comments))

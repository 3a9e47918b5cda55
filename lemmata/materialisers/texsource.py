r"""A TeX source tree → one flat document: main-file choice, comments, ``\input`` / ``\include``, simple macros.

arXiv compiles a submission from its top-level file; Lemmata reads it the same
way, without running TeX, so the fixed text of a pinned e-print is a pure
function of its bytes.

**Main file.** Ties are broken by these rules, in order, and the first that
leaves one candidate decides:

1. a top-level file named by the submission's ``00README.json``
   (``{"sources": [{"filename": …, "usage": "toplevel"}]}``) or legacy
   ``00README.XXX`` (``<file> toplevelfile``), when that file exists;
2. a ``.tex`` file whose comment-stripped text holds ``\documentclass`` (or
   LaTeX 2.09's ``\documentstyle``);
3. of those, the ones that also hold ``\begin{document}``;
4. of those, the ones no other candidate ``\input``\ s or ``\include``\ s;
5. of those, the ones nearest the archive root (fewest folders);
6. of those, the largest (the paper rather than a standalone figure);
7. of those, the first path in code-point order.

**Comments** follow TeX: ``%`` not escaped by an odd run of backslashes
(``\%`` is text, ``\\%`` a line break then a comment) removes the rest of the
line, the newline and the next line's leading blanks. ``comment``
environments and ``\iffalse … \fi`` blocks (nesting counted) are removed too.
Verbatim material is not special-cased.

**Inputs.** ``\input{f}``, ``\input f`` and ``\include{f}`` are replaced by the
file (``f``, else ``f.tex``), resolved from the main file's folder. A path that
is absolute or leaves the archive is refused, a file already being expanded
(a cycle) is refused, nesting deeper than ``max_depth`` is refused, and a
missing file is noted; each leaves a ``[input … refused/missing]`` marker and a
note. The expanded document may not exceed ``max_chars``.

**Macros** (macro-light, documented so nobody expects TeX): argument-free
``\newcommand`` / ``\renewcommand`` / ``\providecommand`` (starred too),
``\def`` / ``\gdef`` / ``\edef`` / ``\xdef`` without parameters, and
``\DeclareMathOperator`` (→ ``\operatorname{…}``) are expanded, in the
preamble, in local ``.sty`` files loaded with ``\usepackage``, and in the body;
a later ``\def`` / ``\renewcommand`` / ``\newcommand`` wins, ``\providecommand``
never overrides; grouping and scope are ignored. Expansion is repeated inside
replacements up to :data:`MACRO_DEPTH` levels. Macros *with* arguments,
``\let``, ``\newenvironment`` and conditionals other than ``\iffalse`` are left
as written (their definitions are removed from the body). TeX's swallowing of
the blank after a control word is not reproduced.
"""

from __future__ import annotations

import json
import posixpath
import re
from dataclasses import dataclass, field

from lemmata.core.errors import Error

#: how many times a replacement is itself expanded (``\def\a{\b}``, ``\def\b{…}``)
MACRO_DEPTH = 8
#: longest brace group or bracket a definition may span before it is treated as unparsable
MAX_GROUP_CHARS = 200_000

_COMMENT = re.compile(r"(?<!\\)((?:\\\\)*)%[^\n]*(?:\n[ \t]*)?")
_COMMENT_ENV = re.compile(r"\\begin\s*\{comment\}.*?(?:\\end\s*\{comment\}|\Z)", re.DOTALL)
_IF_TOKEN = re.compile(r"\\(iffalse|if[A-Za-z@]*|fi)(?![A-Za-z@])")
_INPUT = re.compile(r"\\(input|include)(?![A-Za-z@])\s*(?:\{([^{}]*)\}|([^\s{}\\%]+))")
_DOCCLASS = re.compile(r"\\document(?:class|style)(?![A-Za-z@])")
_BEGIN_DOC = re.compile(r"\\begin\s*\{document\}")
_END_DOC = re.compile(r"\\end\s*\{document\}")
_USEPACKAGE = re.compile(r"\\(?:usepackage|RequirePackage)(?![A-Za-z@])\s*(?:\[[^\]]*\])?\s*\{([^{}]*)\}")
_DEF_START = re.compile(
    r"\\(newcommand|renewcommand|providecommand|DeclareMathOperator|def|gdef|edef|xdef|newenvironment|"
    r"renewenvironment|newtheorem|declaretheorem|spnewtheorem|numberwithin|theoremstyle)(?![A-Za-z@])(\*?)")
_CONTROL_WORD = re.compile(r"\\([A-Za-z@]+)")


class TexError(Error, ValueError):
    """The source cannot be read as a LaTeX document (one sentence)."""


def decode_tex(data: bytes) -> tuple[str, str]:
    """Text of a TeX file and the encoding used: UTF-8 (a BOM dropped), else Latin-1 (older submissions).

    >>> decode_tex("é".encode("utf-8")), decode_tex("é".encode("latin-1"))
    (('é', 'utf-8'), ('é', 'latin-1'))
    """
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        return data.decode("latin-1"), "latin-1"


def strip_comments(text: str) -> str:
    r"""Remove TeX comments (``\%`` is kept), ``comment`` environments and ``\iffalse`` blocks.

    >>> strip_comments("50\\% off % a remark\n  next\\\\% gone\nline")
    '50\\% off next\\\\line'
    >>> strip_comments("a\n% only a comment\n\nb")
    'a\n\nb'
    >>> strip_comments("x \\iffalse hidden \\ifx y \\fi still hidden \\fi z")
    'x  z'
    """
    text = _COMMENT.sub(lambda m: m.group(1), text.replace("\r\n", "\n").replace("\r", "\n"))
    text = _COMMENT_ENV.sub("", text)
    return _strip_iffalse(text)


def _strip_iffalse(text: str) -> str:
    out: list[str] = []
    pos = 0
    depth = 0  # >0: inside an \iffalse block, counting nested \if…\fi
    for m in _IF_TOKEN.finditer(text):
        word = m.group(1)
        if depth == 0:
            if word == "iffalse":
                out.append(text[pos:m.start()])
                depth = 1
            continue
        if word == "fi":
            depth -= 1
            if depth == 0:
                pos = m.end()
        else:
            depth += 1
    if depth:
        pos = len(text)  # an unclosed \iffalse hides the rest, as in TeX
    out.append(text[pos:])
    return "".join(out)


# -- brace-level reading ------------------------------------------------------------------------------------


def skip_blank(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\n":
        i += 1
    return i


def _closing(text: str, i: int, closer: str) -> int | None:
    """Where the bracket opened at ``i`` closes: the first ``closer`` outside braces nested after it.

    A backslash escapes the next character; a bracket still open :data:`MAX_GROUP_CHARS` on is None.
    """
    depth = 0
    end = min(len(text), i + MAX_GROUP_CHARS)
    j = i + 1
    while j < end:
        c = text[j]
        if c == "\\":
            j += 2
            continue
        if c == closer and depth <= 0:
            return j
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        j += 1
    return None


def read_group(text: str, i: int) -> tuple[str, int] | None:
    r"""The balanced ``{…}`` group at ``i`` (contents, index after it), a control word, or one character.

    >>> read_group("{a{b}c}d", 0), read_group("\\foo bar", 0), read_group("x", 0), read_group("{open", 0)
    (('a{b}c', 7), ('\\foo', 4), ('x', 1), None)
    """
    if i >= len(text):
        return None
    if text[i] == "{":
        j = _closing(text, i, "}")
        return None if j is None else (text[i + 1 : j], j + 1)
    if text[i] == "\\":
        m = _CONTROL_WORD.match(text, i)
        if m:
            return m.group(0), m.end()
        return text[i : i + 2], i + 2
    return text[i], i + 1


def read_pair(text: str, i: int) -> tuple[str, str, int] | None:
    """Two groups at ``i``, blanks between them skipped: ``(first, second, index after the second)``.

    >>> read_pair("{a} {b}c", 0), read_pair("{a}", 0)
    (('a', 'b', 7), None)
    """
    first = read_group(text, i)
    if first is None:
        return None
    second = read_group(text, skip_blank(text, first[1]))
    return None if second is None else (first[0], second[0], second[1])


def read_optional(text: str, i: int) -> tuple[str | None, int]:
    """A ``[…]`` argument at ``i`` (brackets inside braces ignored), else ``(None, i)``.

    >>> read_optional("[a{]}b]c", 0), read_optional("c", 0)
    (('a{]}b', 7), (None, 0))
    """
    if i >= len(text) or text[i] != "[":
        return None, i
    j = _closing(text, i, "]")
    return (None, i) if j is None else (text[i + 1 : j], j + 1)


# -- the source tree --------------------------------------------------------------------------------------


@dataclass
class Notes:
    """What reading the tree refused, missed or left unexpanded, in the order met."""

    refused: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    unexpanded_macros: set[str] = field(default_factory=set)


def _readme_toplevel(files: dict[str, bytes]) -> str | None:
    if "00README.json" in files:
        try:
            meta = json.loads(files["00README.json"].decode("utf-8"))
            for src in meta.get("sources") or []:
                if isinstance(src, dict) and src.get("usage") == "toplevel" and src.get("filename") in files:
                    return src["filename"]
        except (ValueError, AttributeError, UnicodeDecodeError):
            return None
    if "00README.XXX" in files:
        for line in files["00README.XXX"].decode("latin-1").splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[1] == "toplevelfile" and parts[0] in files:
                return parts[0]
    return None


def choose_main_file(files: dict[str, bytes]) -> str:
    """The top-level file of a submission (rules in the module docstring); TexError when there is none.

    >>> choose_main_file({"fig.tex": b"\\\\documentclass{standalone}", "paper.tex": b"\\\\documentclass{amsart}"
    ...     b"\\\\begin{document}\\\\input{fig}\\\\end{document}"})
    'paper.tex'
    """
    chosen = _readme_toplevel(files)
    if chosen:
        return chosen
    texts = {p: strip_comments(decode_tex(b)[0]) for p, b in files.items() if p.lower().endswith(".tex")}
    candidates = sorted(p for p, t in texts.items() if _DOCCLASS.search(t))
    if not candidates:
        raise TexError("no main file: no .tex file holds \\documentclass or \\documentstyle")

    def narrow(pool: list[str], keep) -> list[str]:
        kept = [p for p in pool if keep(p)]
        return kept or pool

    pool = narrow(candidates, lambda p: bool(_BEGIN_DOC.search(texts[p])))
    included: set[str] = set()
    for p in pool:
        for m in _INPUT.finditer(texts[p]):
            name = (m.group(2) or m.group(3) or "").strip()
            base = posixpath.normpath(posixpath.join(posixpath.dirname(p), name))
            included.update({base, base + ".tex"})
    pool = narrow(pool, lambda p: p not in included)
    depth = min(p.count("/") for p in pool)
    pool = [p for p in pool if p.count("/") == depth]
    size = max(len(files[p]) for p in pool)
    pool = [p for p in pool if len(files[p]) == size]
    return min(pool)


def _resolve(files: dict[str, bytes], base_dir: str, name: str) -> tuple[str | None, str | None]:
    """(path in the tree, None) or (None, why it is refused / missing)."""
    name = name.strip().strip('"')
    if not name:
        return None, "empty file name"
    if name.startswith("/") or re.match(r"^[A-Za-z]:", name) or "\\" in name:
        return None, "absolute path refused"
    path = posixpath.normpath(posixpath.join(base_dir, name))
    if path == ".." or path.startswith("../") or path.startswith("/"):
        return None, "path leaves the archive, refused"
    for candidate in (path, path + ".tex"):
        if candidate in files:
            return candidate, None
    return None, "missing"


def expand_inputs(files: dict[str, bytes], main: str, *, max_depth: int, max_chars: int, notes: Notes,
                  used: list[str]) -> str:
    """The main file with every ``\\input`` / ``\\include`` replaced by its (comment-stripped) file."""
    base_dir = posixpath.dirname(main)
    total = [0]

    def expand(path: str, stack: tuple[str, ...]) -> str:
        if path not in used:
            used.append(path)
        text = strip_comments(decode_tex(files[path])[0])

        def replace(m: re.Match) -> str:
            name = (m.group(2) if m.group(2) is not None else m.group(3)) or ""
            target, why = _resolve(files, base_dir, name)
            if target is None:
                (notes.missing if why == "missing" else notes.refused).append(f"\\{m.group(1)}{{{name}}}: {why}")
                return f"[input {name}: {why}]"
            if target in stack:
                notes.refused.append(f"\\{m.group(1)}{{{name}}}: cycle ({' -> '.join(stack + (target,))}), refused")
                return f"[input {name}: cycle refused]"
            if len(stack) - 1 >= max_depth:
                notes.refused.append(f"\\{m.group(1)}{{{name}}}: nesting deeper than {max_depth}, refused")
                return f"[input {name}: too deep, refused]"
            return expand(target, stack + (target,))

        out = _INPUT.sub(replace, text)
        total[0] += len(out)
        if total[0] > max_chars:
            raise TexError(f"the expanded source exceeds {max_chars} characters (repeated \\input?)")
        return out

    return expand(main, (main,))


# -- definitions ------------------------------------------------------------------------------------------


@dataclass
class TheoremDef:
    """One theorem-like environment: its caption, the counter it steps (None: unnumbered) and that counter's parent."""

    caption: str
    counter: str | None


@dataclass
class Definitions:
    macros: dict[str, str] = field(default_factory=dict)
    theorems: dict[str, TheoremDef] = field(default_factory=dict)
    #: counter → the counter it is numbered within (``[section]``, ``\numberwithin``)
    within: dict[str, str] = field(default_factory=dict)
    spans: list[tuple[int, int]] = field(default_factory=list)


def _keyvals(text: str | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for part in (text or "").split(","):
        if "=" in part:
            k, v = part.split("=", 1)
            out[k.strip()] = v.strip().strip("{}").strip()
        elif part.strip():
            out[part.strip()] = ""
    return out


def collect_definitions(text: str, defs: Definitions, notes: Notes, *, record_spans: bool = True) -> None:
    """Read every definition command of ``text`` into ``defs`` (spans kept so the body can drop them)."""
    for m in _DEF_START.finditer(text):
        if record_spans and defs.spans and m.start() < defs.spans[-1][1]:
            continue  # inside a definition already read (a \def in a \newcommand body)
        end = _read_definition(text, m, defs, notes)
        if end is not None and record_spans:
            defs.spans.append((m.start(), end))


def _read_definition(text: str, m: re.Match, defs: Definitions, notes: Notes) -> int | None:
    cmd, star = m.group(1), m.group(2)
    i = skip_blank(text, m.end())
    if cmd in ("newcommand", "renewcommand", "providecommand"):
        g = read_group(text, i)
        if g is None:
            return None
        name, i = g
        name = name.strip()
        i = skip_blank(text, i)
        nargs, i = read_optional(text, i)
        i = skip_blank(text, i)
        default = None
        if nargs is not None:
            default, i = read_optional(text, skip_blank(text, i))
            i = skip_blank(text, i)
        body = read_group(text, i)
        if body is None or not name.startswith("\\"):
            return None
        if nargs is None or nargs.strip() == "0":
            if not (cmd == "providecommand" and name[1:] in defs.macros):
                defs.macros[name[1:]] = body[0]
        else:
            notes.unexpanded_macros.add(name)
            defs.macros.pop(name[1:], None)
        return body[1]
    if cmd in ("def", "gdef", "edef", "xdef"):
        cw = _CONTROL_WORD.match(text, i)
        if not cw:
            return None
        j = cw.end()
        brace = text.find("{", j, j + 200)
        if brace < 0:
            return None
        params = text[j:brace]
        body = read_group(text, brace)
        if body is None:
            return None
        if params.strip():
            notes.unexpanded_macros.add(cw.group(0))
            defs.macros.pop(cw.group(1), None)
        else:
            defs.macros[cw.group(1)] = body[0]
        return body[1]
    if cmd == "DeclareMathOperator":
        pair = read_pair(text, i)
        if pair is None or not pair[0].strip().startswith("\\"):
            return None
        name, body, after = pair
        defs.macros[name.strip()[1:]] = f"\\operatorname{star}{{{body}}}"
        return after
    if cmd in ("newenvironment", "renewenvironment"):
        name = read_group(text, i)
        if name is None:
            return None
        j = skip_blank(text, name[1])
        _, j = read_optional(text, j)
        _, j = read_optional(text, skip_blank(text, j))
        pair = read_pair(text, skip_blank(text, j))  # the begin and end code
        return None if pair is None else pair[2]
    if cmd in ("newtheorem", "spnewtheorem"):
        return _read_newtheorem(text, i, star == "*", cmd == "spnewtheorem", defs)
    if cmd == "declaretheorem":
        opts, j = read_optional(text, i)
        name = read_group(text, skip_blank(text, j))
        if name is None:
            return None
        env = name[0].strip()
        kv = _keyvals(opts)
        caption = kv.get("name") or kv.get("title") or env.capitalize()
        shared = kv.get("sibling") or kv.get("sharenumber") or kv.get("sharecounter")
        if kv.get("numbered", "yes") == "no" or star:
            defs.theorems[env] = TheoremDef(caption, None)
        elif shared:
            defs.theorems[env] = TheoremDef(caption, _counter_of(defs, shared))
        else:
            defs.theorems[env] = TheoremDef(caption, env)
            parent = kv.get("numberwithin") or kv.get("within") or kv.get("parent")
            if parent:
                defs.within[env] = parent
        return name[1]
    if cmd == "numberwithin":
        pair = read_pair(text, i)
        if pair is None:
            return None
        counter, parent, after = pair
        defs.within[counter.strip()] = parent.strip()
        return after
    if cmd == "theoremstyle":
        g = read_group(text, i)
        return None if g is None else g[1]
    return None


def _counter_of(defs: Definitions, env: str) -> str:
    """The counter an environment steps (``\\newtheorem{lem}[thm]{…}`` shares thm's counter)."""
    known = defs.theorems.get(env)
    return known.counter if known is not None and known.counter else env


def _read_newtheorem(text: str, i: int, starred: bool, springer: bool, defs: Definitions) -> int | None:
    name = read_group(text, i)
    if name is None:
        return None
    env = name[0].strip()
    j = skip_blank(text, name[1])
    shared, j = read_optional(text, j)
    caption = read_group(text, skip_blank(text, j))
    if caption is None:
        return None
    j = caption[1]
    within, k = read_optional(text, skip_blank(text, j))
    if within is not None:
        j = k
    if springer:  # \spnewtheorem{env}[shared]{Caption}[within]{head font}{body font}
        for _ in range(2):
            g = read_group(text, skip_blank(text, j))
            if g is None:
                break
            j = g[1]
    if starred:
        defs.theorems[env] = TheoremDef(caption[0].strip(), None)
    elif shared is not None:
        defs.theorems[env] = TheoremDef(caption[0].strip(), _counter_of(defs, shared.strip()))
    else:
        defs.theorems[env] = TheoremDef(caption[0].strip(), env)
        if within is not None:
            defs.within[env] = within.strip()
    return j


def local_packages(preamble: str, files: dict[str, bytes], base_dir: str) -> list[str]:
    """Local ``.sty`` files the preamble loads (``\\usepackage{macros}`` with ``macros.sty`` in the archive)."""
    found: list[str] = []
    for m in _USEPACKAGE.finditer(preamble):
        for name in m.group(1).split(","):
            target, _ = _resolve(files, base_dir, name.strip() + ".sty")
            if target is not None and target not in found:
                found.append(target)
    return found


def expand_macros(text: str, macros: dict[str, str], *, max_chars: int) -> str:
    r"""Replace argument-free macros, recursively up to :data:`MACRO_DEPTH` levels.

    Every replacement produced is counted as it is made, so a definition that
    multiplies (``\def\a{\b\b\b…}``, ``\def\b{\c\c\c…}``) fails fast instead of
    filling memory.

    >>> expand_macros(r"$\R^n$ and $\Rn$, \RR", {"R": r"\mathbb{R}", "RR": r"\R\R"}, max_chars=1000)
    '$\\mathbb{R}^n$ and $\\Rn$, \\mathbb{R}\\mathbb{R}'
    >>> expand_macros(r"\a", {"a": r"\b" * 50, "b": r"\c" * 50, "c": "x" * 50}, max_chars=10_000)
    Traceback (most recent call last):
    ...
    lemmata.materialisers.texsource.TexError: macro expansion exceeds 10000 characters
    """
    if not macros:
        return text
    produced = [0]

    def expand(s: str, depth: int) -> str:
        def one(m: re.Match) -> str:
            body = macros.get(m.group(1))
            if body is None or depth >= MACRO_DEPTH:
                return m.group(0)
            out = expand(body, depth + 1)
            produced[0] += len(out)
            if produced[0] > max_chars:
                raise TexError(f"macro expansion exceeds {max_chars} characters")
            return out

        return _CONTROL_WORD.sub(one, s)

    out = expand(text, 0)
    if len(out) > max_chars:
        raise TexError(f"macro expansion exceeds {max_chars} characters")
    return out


def split_document(text: str) -> tuple[str, str, bool]:
    """(preamble, body, whether a ``document`` environment was found)."""
    begin = _BEGIN_DOC.search(text)
    if not begin:
        return "", text, False
    end = _END_DOC.search(text, begin.end())
    return text[: begin.start()], text[begin.end() : end.start() if end else len(text)], True


def drop_spans(text: str, spans: list[tuple[int, int]], offset: int, length: int) -> str:
    """``text`` (which starts at ``offset`` of the document and is ``length`` long) without the given spans."""
    out: list[str] = []
    pos = 0
    for start, end in spans:
        s, e = start - offset, end - offset
        if e <= 0 or s >= length:
            continue
        s, e = max(0, s), min(length, e)
        if s < pos:
            continue
        out.append(text[pos:s])
        pos = e
    out.append(text[pos:])
    return "".join(out)

r"""The fixed text of a source: its theorem-like statements with LaTeX's numbering, and prose under a budget.

Ground is judged against this text, so it is a pure function of the fetched
bytes and the documented settings (:data:`FORMAT` names the rules; change the
rules, change the name). Layout::

    % lemmata fixed text (lemmata.fixed-text/1)
    % source: arXiv:2101.00001v2, TeX source, main file main.tex
    % title: …

    ## 1 Introduction
    prose …

    [Theorem 1.1 (Title) {thm:main}]
    statement …
    [/Theorem 1.1]

**Statements.** An environment is theorem-like when the source defines it with
``\newtheorem`` (``{env}{Caption}``, ``{env}[shared]{Caption}`` sharing
another environment's counter, ``{env}{Caption}[within]`` numbered within a
sectional counter, ``\newtheorem*`` unnumbered), thmtools' ``\declaretheorem``
(``name``, ``numberwithin``/``within``, ``sibling``/``sharenumber``,
``numbered=no``) or Springer's ``\spnewtheorem``; ``\numberwithin{env}{section}``
is honoured. ``\begin{env*}`` of a numbered ``env`` with no ``env*`` of its own
is the unnumbered form. A name of :data:`COMMON_THEOREMS` used without any
definition in the source (a journal class defined it) is extracted unnumbered,
with a note. Numbers follow LaTeX: counters step at ``\begin``, a counter
numbered within ``section`` resets at each ``\section`` and prints as
``<section>.<n>``, ``\appendix`` switches sections (chapters in a book) to
letters, ``\section*`` steps nothing. A counter shared with ``equation`` is
also stepped by numbered displays (``equation``: one; ``align``, ``gather``,
``eqnarray``, ``flalign``, ``alignat``: one per row without
``\nonumber``/``\notag``; ``multline``: one) — an approximation, since nested
row structures are ignored. ``\setcounter`` and redefined ``\the<counter>``
are not followed. The label is the first ``\label`` directly inside the
environment (not one of a nested display); the title is its optional argument.
Each statement is kept whole up to ``max_statement_chars``.

**Prose** is the document body outside statements, in order: sectioning
commands become ``#``-headings with their numbers, ``\label``,
``\maketitle``, ``\tableofcontents``, ``\bibliographystyle``,
``\bibliography``, ``\nocite`` and ``thebibliography`` are dropped (the number
of bibliography entries is recorded instead), LaTeX is otherwise kept as
written, blanks are trimmed and blank-line runs collapse to one. Prose
(headings included) is kept until ``prose_budget_chars`` characters, cut at a
blank, with one ``[… prose budget of N characters reached]`` marker; later
statements are still kept. The whole text is cut at ``max_text_chars``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pydantic import Field

from lemmata.core.models import Frozen
from lemmata.materialisers.texsource import (
    Definitions,
    Notes,
    TexError,
    TheoremDef,
    choose_main_file,
    decode_tex,
    collect_definitions,
    drop_spans,
    expand_inputs,
    expand_macros,
    local_packages,
    read_group,
    read_optional,
    skip_blank,
    split_document,
    strip_comments,
)

FORMAT = "lemmata.fixed-text/1"

#: environments extracted even when the source holds no definition for them (a class or journal style did)
COMMON_THEOREMS = {
    "theorem": "Theorem", "thm": "Theorem", "lemma": "Lemma", "lem": "Lemma", "proposition": "Proposition",
    "prop": "Proposition", "corollary": "Corollary", "cor": "Corollary", "definition": "Definition",
    "defn": "Definition", "defi": "Definition", "conjecture": "Conjecture", "conj": "Conjecture",
    "claim": "Claim", "fact": "Fact", "remark": "Remark", "example": "Example", "observation": "Observation",
    "assumption": "Assumption", "hypothesis": "Hypothesis", "notation": "Notation", "problem": "Problem",
    "question": "Question",
}
_DISPLAYS_ONE = {"equation", "multline"}
_DISPLAYS_ROWS = {"align", "gather", "eqnarray", "flalign", "alignat"}
_SECTIONS = ("part", "chapter", "section", "subsection", "subsubsection")
_TOKEN = re.compile(
    r"\\(?P<be>begin|end)\s*\{(?P<env>[^{}\n]+)\}"
    r"|\\(?P<sec>part|chapter|section|subsection|subsubsection)(?![A-Za-z@])(?P<star>\*?)"
    r"|\\(?P<appendix>appendix)(?![A-Za-z@])"
    r"|\\label\s*\{(?P<label>[^{}]*)\}"
    r"|\\(?P<drop>maketitle|tableofcontents|bibliographystyle|bibliography|nocite)(?![A-Za-z@])(?P<dstar>\*?)"
)
_LABEL = re.compile(r"\\label\s*\{[^{}]*\}")
_TITLE = re.compile(r"\\title(?![A-Za-z@])\s*")
_THANKS = re.compile(r"\\thanks\s*\{[^{}]*\}")
_BIBITEM = re.compile(r"\\bibitem(?![A-Za-z@])")
_ROW_END = re.compile(r"\\\\(?:\*|\[[^\]]*\])?")
_NONUMBER = re.compile(r"\\(?:nonumber|notag)(?![A-Za-z@])")
_NESTED_ENV = re.compile(r"\\begin\s*\{(?P<e>[^{}]+)\}.*?\\end\s*\{(?P=e)\}", re.DOTALL)


@dataclass(frozen=True)
class Statement:
    """One theorem-like environment as extracted."""

    env: str
    caption: str
    number: str | None
    title: str | None
    label: str | None
    body: str

    @property
    def heading(self) -> str:
        return self.caption + (f" {self.number}" if self.number else "")

    def render(self) -> str:
        head = self.heading
        if self.title:
            head += f" ({self.title})"
        if self.label:
            head += f" {{{self.label}}}"
        return f"[{head}]\n{self.body}\n[/{self.heading}]"


class TextLimits(Frozen):
    """What bounds the fixed text (part of a materialisation store's settings, so a store records them)."""

    prose_budget_chars: int = Field(60_000, ge=0, description="prose (headings included) kept before only "
                                    "statements are kept")
    max_statement_chars: int = Field(20_000, gt=0, description="one statement is kept whole up to this length, "
                                     "then cut with a marker")
    max_text_chars: int = Field(1_000_000, gt=0, description="the whole fixed text is cut here")
    max_input_depth: int = Field(16, ge=0, description="\\input / \\include nesting followed before the rest is "
                                 "left out")
    max_expanded_chars: int = Field(20_000_000, gt=0, description="macro expansion stops at this many characters "
                                    "(a guard against expansion bombs)")


@dataclass
class FixedText:
    """The fixed text of one source tree and what producing it found."""

    text: str
    main_file: str
    files_used: list[str]
    title: str | None
    statements: list[Statement]
    prose_chars: int
    prose_kept_chars: int
    bibliography_entries: int
    notes: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)


class _Counters:
    def __init__(self, within: dict[str, str], has_chapters: bool) -> None:
        self.values: dict[str, int] = {}
        self.within = dict(within)
        self.has_chapters = has_chapters
        self.appendix = False
        self.within.setdefault("subsection", "section")
        self.within.setdefault("subsubsection", "subsection")
        if has_chapters:
            self.within.setdefault("section", "chapter")

    def step(self, counter: str) -> None:
        self.values[counter] = self.values.get(counter, 0) + 1
        self._reset_children(counter, 0)

    def _reset_children(self, counter: str, depth: int) -> None:
        if depth > 8:
            return
        for child, parent in self.within.items():
            if parent == counter and child != counter:
                self.values[child] = 0
                self._reset_children(child, depth + 1)

    def the(self, counter: str, depth: int = 0) -> str:
        value = self.values.get(counter, 0)
        top = "chapter" if self.has_chapters else "section"
        own = _alph(value) if (self.appendix and counter == top) else str(value)
        parent = self.within.get(counter)
        if parent and depth < 8 and parent != counter:
            return f"{self.the(parent, depth + 1)}.{own}"
        return own


def _alph(n: int) -> str:
    """``\\Alph``: 1 → A … 26 → Z (beyond: the number)."""
    return chr(ord("A") + n - 1) if 1 <= n <= 26 else str(n)


def _display_rows(env: str, content: str) -> int:
    if env in _DISPLAYS_ONE:
        return 0 if _NONUMBER.search(content) else 1
    flat = content
    for _ in range(4):  # rows of nested arrays/matrices are not display rows
        flat = _NESTED_ENV.sub(" ", flat)
    rows = _ROW_END.split(flat)
    if rows and not rows[-1].strip():
        rows = rows[:-1]
    return sum(1 for r in rows if not _NONUMBER.search(r))


def _clean(text: str) -> str:
    text = _LABEL.sub("", text)
    lines = [line.strip() for line in text.split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def _one_line(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("\\\\", " ")).strip()


def _theorem_of(env: str, defs: Definitions, notes: list[str], warned: set[str]) -> TheoremDef | None:
    if env in defs.theorems:
        return defs.theorems[env]
    if env.endswith("*") and env[:-1] in defs.theorems:
        return TheoremDef(defs.theorems[env[:-1]].caption, None)
    base = env[:-1] if env.endswith("*") else env
    if base in COMMON_THEOREMS:
        if env not in warned:
            warned.add(env)
            notes.append(f"environment {env!r} has no definition in the source: extracted unnumbered")
        return TheoremDef(COMMON_THEOREMS[base], None)
    return None


def find_title(text: str) -> str | None:
    r"""The argument of the first ``\title`` (its optional short form skipped), on one line.

    >>> find_title(r"\title[Short]{A long\\ title\thanks{Funded.}}")
    'A long title'
    """
    m = _TITLE.search(text)
    if not m:
        return None
    _, i = read_optional(text, m.end())
    g = read_group(text, skip_blank(text, i))
    if g is None or not g[0].strip():
        return None
    return _one_line(_THANKS.sub("", g[0])) or None


def render_body(body: str, defs: Definitions, limits: TextLimits) -> tuple[list[tuple[str, object]], int, list[str]]:
    """Walk the document body: segments (``prose`` / ``heading`` / ``statement``), bibliography entries, notes."""
    notes: list[str] = []
    warned: set[str] = set()
    counters = _Counters(defs.within, has_chapters=bool(re.search(r"\\chapter(?![A-Za-z@])", body)))
    segments: list[tuple[str, object]] = []
    stack: list[dict] = []  # open environments: name, theorem def, body start, label
    theorem_depth = 0
    cursor = 0
    bib_entries = 0
    pos = 0

    def prose_until(i: int) -> None:
        if theorem_depth == 0 and i > cursor:
            segments.append(("prose", body[cursor:i]))

    while True:
        m = _TOKEN.search(body, pos)
        if m is None:
            break
        pos = m.end()
        if m.group("be"):
            env = m.group("env").strip()
            if m.group("be") == "begin":
                if theorem_depth == 0 and env == "thebibliography":
                    end = re.compile(r"\\end\s*\{thebibliography\}").search(body, pos)
                    stop = end.end() if end else len(body)
                    bib_entries += len(_BIBITEM.findall(body, m.end(), stop))
                    prose_until(m.start())
                    cursor = pos = stop
                    continue
                thm = _theorem_of(env, defs, notes, warned)
                entry = {"env": env, "thm": thm, "start": m.end(), "label": None, "title": None}
                if thm is not None:
                    number = None
                    if thm.counter:
                        counters.step(thm.counter)
                        number = counters.the(thm.counter)
                    j = m.end()
                    while j < len(body) and body[j] in " \t":
                        j += 1
                    if j < len(body) and body[j] == "\n":
                        j += 1
                    title, j2 = read_optional(body, j)
                    if title is not None:
                        entry["title"] = _one_line(title)
                        entry["start"] = j2
                        pos = j2
                    entry["number"] = number
                    prose_until(m.start())
                    theorem_depth += 1
                stack.append(entry)
            else:
                idx = next((k for k in range(len(stack) - 1, -1, -1) if stack[k]["env"] == env), None)
                if idx is None:
                    continue
                for opened in stack[idx + 1:]:  # environments left open inside: closed here, as LaTeX would complain
                    if opened["thm"] is not None:
                        theorem_depth -= 1
                entry = stack[idx]
                del stack[idx:]
                if env in _DISPLAYS_ONE or env in _DISPLAYS_ROWS:
                    for _ in range(_display_rows(env, body[entry["start"]:m.start()])):
                        counters.step("equation")
                if entry["thm"] is not None:
                    theorem_depth -= 1
                    if theorem_depth == 0:
                        text = _clean(body[entry["start"]:m.start()])
                        if len(text) > limits.max_statement_chars:
                            text = text[: limits.max_statement_chars] + " […statement truncated]"
                        segments.append(("statement", Statement(env=env, caption=entry["thm"].caption,
                                                                number=entry["number"], title=entry["title"],
                                                                label=entry["label"], body=text)))
                        cursor = m.end()
        elif m.group("sec"):
            level = m.group("sec")
            if theorem_depth:
                continue
            prose_until(m.start())
            i = skip_blank(body, m.end())
            _, i = read_optional(body, i)
            g = read_group(body, skip_blank(body, i))
            if g is None:
                cursor = m.end()
                continue
            pos = cursor = g[1]
            number = None
            if not m.group("star") and level != "part":
                counters.step(level)
                number = counters.the(level)
            hashes = "#" * {"part": 1, "chapter": 1, "section": 2, "subsection": 3, "subsubsection": 4}[level]
            title = _one_line(_LABEL.sub("", g[0]))
            segments.append(("heading", f"{hashes} {number + ' ' if number else ''}{title}".rstrip()))
        elif m.group("appendix"):
            if theorem_depth:
                continue
            prose_until(m.start())
            cursor = m.end()
            counters.appendix = True
            counters.values["chapter" if counters.has_chapters else "section"] = 0
        elif m.group("label") is not None:
            if stack and stack[-1]["thm"] is not None and stack[-1]["label"] is None:
                stack[-1]["label"] = m.group("label").strip()
            if theorem_depth == 0:
                prose_until(m.start())
                cursor = m.end()
        elif m.group("drop"):
            if theorem_depth:
                continue
            prose_until(m.start())
            cursor = m.end()
            if m.group("drop") in ("bibliographystyle", "bibliography", "nocite"):
                g = read_group(body, skip_blank(body, m.end()))
                if g is not None and g[0] != "\\":
                    cursor = pos = g[1]
    if theorem_depth:
        opened = next(e for e in stack if e["thm"] is not None)
        notes.append(f"environment {opened['env']!r} is not closed: kept to the end of the document")
        text = _clean(body[opened["start"]:])[: limits.max_statement_chars]
        segments.append(("statement", Statement(env=opened["env"], caption=opened["thm"].caption,
                                                number=opened["number"], title=opened["title"],
                                                label=opened["label"], body=text)))
        cursor = len(body)
    if cursor < len(body):
        segments.append(("prose", body[cursor:]))
    return segments, bib_entries, notes


def assemble(segments: list[tuple[str, object]], limits: TextLimits) -> tuple[str, int, int]:
    """The segments as text under the prose budget: (text, prose characters, prose characters kept)."""
    parts: list[str] = []
    total = kept = 0
    exhausted = False
    for kind, value in segments:
        if kind == "statement":
            parts.append(value.render())  # type: ignore[attr-defined]
            continue
        text = _clean(str(value))
        if not text:
            continue
        total += len(text)
        if exhausted:
            continue
        room = limits.prose_budget_chars - kept
        if len(text) <= room:
            parts.append(text)
            kept += len(text)
            continue
        cut = text[:room]
        blank = max(cut.rfind(" "), cut.rfind("\n"))
        cut = cut[:blank].rstrip() if blank > 0 else ""
        if cut:
            parts.append(cut)
            kept += len(cut)
        parts.append(f"[… prose budget of {limits.prose_budget_chars} characters reached]")
        exhausted = True
    return "\n\n".join(parts), total, kept


def source_text(files: dict[str, bytes], limits: TextLimits, *, header: list[str]) -> FixedText:
    """The fixed text of a TeX source tree (``files``: archive path → bytes); TexError when it is not one."""
    main = choose_main_file(files)
    notes = Notes()
    used: list[str] = []
    document = expand_inputs(files, main, max_depth=limits.max_input_depth, max_chars=limits.max_expanded_chars,
                             notes=notes, used=used)
    preamble, body, has_document = split_document(document)
    if not has_document:
        raise TexError(f"{main} has no \\begin{{document}}")
    defs = Definitions()
    base_dir = main.rsplit("/", 1)[0] if "/" in main else ""
    for sty in local_packages(preamble, files, base_dir):
        used.append(sty)
        collect_definitions(strip_comments(decode_tex(files[sty])[0]), defs, notes, record_spans=False)
    collect_definitions(document, defs, notes)
    body_offset = len(preamble) + len(re.match(r"\\begin\s*\{document\}", document[len(preamble):]).group(0))
    body = drop_spans(body, defs.spans, body_offset, len(body))
    body = expand_macros(body, defs.macros, max_chars=limits.max_expanded_chars)
    title = find_title(expand_macros(preamble, defs.macros, max_chars=limits.max_expanded_chars)) or find_title(body)
    segments, bib_entries, walk_notes = render_body(body, defs, limits)
    if bib_entries == 0 and re.search(r"\\bibliography\s*\{", body):
        bbl = (main[:-4] if main.endswith(".tex") else main) + ".bbl"
        if bbl in files:
            bib_entries = len(_BIBITEM.findall(decode_tex(files[bbl])[0]))
            used.append(bbl)
    prose, total, kept = assemble(segments, limits)
    head = list(header) + ([f"% title: {title}"] if title else [])
    text = "\n".join(head) + "\n\n" + prose
    if len(text) > limits.max_text_chars:
        text = text[: limits.max_text_chars] + f"\n[… text cut at {limits.max_text_chars} characters]"
    statements = [v for k, v in segments if k == "statement"]
    all_notes = notes.refused + notes.missing + walk_notes
    if notes.unexpanded_macros:
        all_notes.append("macros with arguments left as written: " + ", ".join(sorted(notes.unexpanded_macros)))
    return FixedText(text=text.rstrip("\n") + "\n", main_file=main, files_used=used, title=title,
                     statements=statements,  # type: ignore[arg-type]
                     prose_chars=total, prose_kept_chars=kept, bibliography_entries=bib_entries, notes=all_notes,
                     refused=list(notes.refused))

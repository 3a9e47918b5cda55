r"""Readable, comparable text from LaTeX: markup and accents resolved, then folded words.

Bibliography strings, titles and proof states are LaTeX; search, citation parsing and
the frozen tokenizers of the offline retrieval artifacts all read them through these three
functions, so they live once, below every user: :func:`latex_to_text` (markup dropped,
accents resolved, Greek commands kept as words), :func:`fold` (lower-case, accents removed,
Greek letters spelled out) and :func:`words` (folded alphanumeric runs). Changing any of
them changes a frozen tokenizer's output: the artifacts' ``TOKENIZER`` records say which
definition they were built with.
"""

from __future__ import annotations

import re
import unicodedata

#: formatting macros whose braces were stripped upstream, so they may be glued to the next word
_GLUED_LONG = (
    "textbf", "textit", "textsc", "textsl", "textrm", "texttt", "textup", "textmd", "emph", "mathbb", "mathcal",
    "mathrm", "mathbf", "mathfrak", "mathsf", "href", "url", "burlalt", "nolinkurl", "newblock", "bysame",
    "penalty", "arxiv", "doi", "path", "xoxMR", "xoxZB", "xoxarXiv", "MR", "Zbl", "bibinfo", "bibfield",
    "urlprefix", "thinspace", "allowbreak", "natexlab", "enquote", "textquotedblleft", "textquotedblright",
    "scshape", "upshape", "itshape", "slshape", "bfseries", "mdseries", "normalfont", "bgroup", "egroup",
    "leavevmode", "scriptsize", "footnotesize", "small", "mbox",
)
_GLUED_SHORT = ("em", "it", "sl", "bf", "sc", "rm", "tt", "sf", "up")
_TITLE_FONTS = ("emph", "textit", "textsl", "itshape", "slshape", "em", "it", "sl")
_GLUED = re.compile(
    r"\\(" + "|".join(sorted(_GLUED_LONG, key=len, reverse=True)) + r")"
    r"|\\(" + "|".join(_GLUED_SHORT) + r")(?=[\s\dA-Z$\\]|$)"
)
_ACCENT_SYMBOL = re.compile(r"\\([\'\"`^~=.])\s*\{?\s*(\\?[A-Za-z])\}?")
_ACCENT_LETTER = re.compile(r"\\([vHuckdbrt])(?:\s+|\{)\s*([A-Za-z])\}?")
_LIGATURES = {"oe": "oe", "OE": "OE", "ae": "ae", "AE": "AE", "ss": "ss", "o": "o", "O": "O", "l": "l", "L": "L",
              "i": "i", "j": "j", "aa": "a", "AA": "A"}
_ACCENT_MAP = {
    "'": "\u0301", '"': "\u0308", "`": "\u0300", "^": "\u0302", "~": "\u0303", "=": "\u0304", ".": "\u0307",
    "v": "\u030c", "H": "\u030b", "u": "\u0306", "c": "\u0327", "k": "\u0328", "d": "\u0323", "b": "\u0331",
    "r": "\u030a", "t": "\u0361",
}
_GREEK = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda", "mu", "nu",
          "xi", "pi", "rho", "sigma", "tau", "upsilon", "phi", "chi", "psi", "omega")
_GREEK_COMMAND = re.compile(r"\\((?:var)?(?:" + "|".join(_GREEK) + r")|" + "|".join(g.capitalize() for g in _GREEK) + r")(?![A-Za-z])")
_GREEK_TABLE = str.maketrans(dict(zip("αβγδεζηθικλμνξπρστυφχψω", _GREEK)))
#: combining marks left by NFKD decomposition (diacritics, combining marks for symbols, half marks)
_COMBINING = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")
#: AMS ``\bysame`` as typeset: a rule standing for the previous entry's authors
_AMS_BYSAME = re.compile(r"\\leavevmode\s*\\vrule\s+height\s*[\d.]+pt\s+depth\s*-?[\d.]+pt\s+width\s*[\d.]+(?:pt|em)")
#: markers the title parser keys on (private-use characters: never in the data, not whitespace to ``re``)
BLOCK, FONT = "\ue000", "\ue001"
#: characters some rule of :func:`latex_to_text` acts on (with ``''``, ``://`` and ``www.``); text without any of
#: them only has its spacing normalised, so it takes a fast path with the same result
_MARKUP = re.compile(r"[\\~`{}$]")
_OG = re.compile(r"\\og\b\s*")
_FG = re.compile(r"\s*\\fg\b")
_URL = re.compile(r"(?:\\(?:url|href|burlalt|path)\s*)?(?:https?://|www\.)\S+?(?=\s|$|(?<=\d)[A-Z][a-z]{2})")
_LIGATURE = re.compile(r"\\(oe|OE|ae|AE|ss|aa|AA|o|O|l|L|i|j)(?![A-Za-z])\s*")
_INITIAL_DASH = re.compile(r"(?<=\.)[\s~]+-(?=[A-Z])")
_ESCAPED = re.compile(r"\\[&%$#_]")
_SPACING = re.compile(r"\\[,;:! ]|~|\\\\")
_COMMAND = re.compile(r"\\[A-Za-z]+\*?")
_SPACE_PUNCT = re.compile(r"\s+([,.;:)])")
_SPACES = re.compile(r"\s+")


def _accent(m: re.Match) -> str:
    base = m.group(2).lstrip("\\")
    return unicodedata.normalize("NFC", base + _ACCENT_MAP.get(m.group(1), ""))


def latex_to_text(raw: str, *, keep_markers: bool = False) -> str:
    r"""Readable text of a LaTeX bibliography string (accents resolved, markup dropped).

    With ``keep_markers``, ``\newblock`` becomes :data:`BLOCK` and a title-font
    switch (``\emph``, ``\textit``, ``\em``, …) becomes :data:`FONT`, for the parser.

    >>> latex_to_text(r"A.~Bj\"orner and \v Spela \v Spenko, \emphOn $\times p$-invariant sets, Ann.\ Math. \textbf354")
    'A. Björner and Špela Špenko, On p-invariant sets, Ann. Math. 354'
    """
    s = _markup_resolved(raw or "", keep_markers=keep_markers, initial_dash=True)
    return " ".join(_SPACE_PUNCT.sub(r"\1", s).split())  # = _SPACES.sub(" ", …).strip(): one whitespace set


def latex_words_text(raw: str) -> str:
    r"""What :func:`latex_to_text` gives, for splitting into words: the same characters except for the spaces and
    tildes its last rules remove between a word and the punctuation or dash after it, and its whitespace runs not
    collapsed. A space, a tilde, punctuation and a dash all separate words, so ``words(latex_words_text(x))`` is
    ``words(latex_to_text(x))``, and three passes over the text are saved (the frozen tokenizer's hot path:
    every record of a world build and every query).

    >>> text = r"J.~-P. Serre , \emph{Cours d'arithm\'etique} ;  $\alpha$-adic"
    >>> words(latex_words_text(text)) == words(latex_to_text(text))
    True
    """
    return _markup_resolved(raw or "", keep_markers=False, initial_dash=False)


def _markup_resolved(s: str, *, keep_markers: bool, initial_dash: bool) -> str:
    """The markup rules of :func:`latex_to_text`, in its order, before its spacing rules: the dash after an
    initial (``"J.~-P."`` → ``"J.-P."``) only where ``initial_dash``."""
    has_url = "://" in s or "www." in s
    if not _MARKUP.search(s) and "''" not in s and not has_url:
        # nothing any rule below acts on but the spacing rules: skip the rest (same result, the common case)
        return _INITIAL_DASH.sub("-", s) if initial_dash else s
    # rules that need a literal skip the whole pass without it (the same result; a proof state seldom has one)
    if "\\leavevmode" in s:
        s = _AMS_BYSAME.sub(r"\\bysame ", s)
    s = s.replace("``", "\u201c").replace("''", "\u201d")
    if "\\og" in s:
        s = _OG.sub("\u201c", s)
    if "\\fg" in s:
        s = _FG.sub("\u201d", s)
    # a URL ends at whitespace, or where a glued title starts after a digit ("…08.003Partitioning")
    if has_url:
        s = _URL.sub(" ", s)
    s = _ACCENT_SYMBOL.sub(_accent, s)
    s = _ACCENT_LETTER.sub(_accent, s)
    s = _LIGATURE.sub(lambda m: _LIGATURES[m.group(1)], s)

    def glued(m: re.Match) -> str:
        name = m.group(1) or m.group(2)
        if name == "newblock":
            return f" {BLOCK} " if keep_markers else " "
        if name in _TITLE_FONTS:
            return f" {FONT} " if keep_markers else " "
        if name == "bysame":
            return " \u2014\u2014\u2014 "
        return " "

    s = _GLUED.sub(glued, s)
    if initial_dash:
        s = _INITIAL_DASH.sub("-", s)  # "J.~-P." → "J.-P."
    s = _ESCAPED.sub(lambda m: m.group(0)[1], s)
    s = _SPACING.sub(" ", s)
    s = _GREEK_COMMAND.sub(lambda m: m.group(1).lower().removeprefix("var"), s)
    s = _COMMAND.sub(" ", s)
    return s.replace("{", "").replace("}", "").replace("$", "").replace("\\", " ")


def fold(text: str) -> str:
    """Lower-case ASCII-ish form for comparison: accents removed, compatibility forms unified.

    >>> fold("Déglise, BJÖRNER, Łoś, φ-modules")
    'deglise, bjorner, łos, phi-modules'
    """
    if text.isascii():
        return text.lower()
    plain = _COMBINING.sub("", unicodedata.normalize("NFKD", text)).lower()
    return plain if plain.isascii() else plain.translate(_GREEK_TABLE)


_WORD = re.compile(r"[^\W_]+")


def words(text: str) -> list[str]:
    """Folded alphanumeric words of ``text``, in order.

    >>> words("Non-commutative résolutions, II: $C^*$-algebras")
    ['non', 'commutative', 'resolutions', 'ii', 'c', 'algebras']
    """
    return _WORD.findall(fold(text))

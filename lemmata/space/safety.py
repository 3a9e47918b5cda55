"""Escaping and neutralising untrusted text before it reaches a browser or a spreadsheet.

Model names, URLs, notes and file contents come from uploads. Everything the
space renders as HTML goes through :func:`esc`/:func:`link`; handler markdown
(which quotes submitted statements) goes through :func:`safe_markdown`; CSV
exports go through :func:`csv_cell` so a cell can never run as a formula.
"""

from __future__ import annotations

import hmac
import html
import re
import unicodedata
from collections.abc import Callable, Iterable

from lemmata.core.escape import bidi_visible, esc  # noqa: F401  (the space's escaping: one definition)
from lemmata.formats.names import clean_name

_URL = re.compile(r"^https?://[^\s<>\"'`\\]+$")
_FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
_FORMULA_STARTS = ("=", "+", "-", "@", "\uff1d", "\uff0b", "\uff0d", "\uff20")  # ASCII and full-width forms
#: what turns bracketed text into a link or image: ``](``, ``][`` and a ``[label]:`` definition line
_MD_IMAGE_OR_LINK = re.compile(r"\]\s*[(\[]|^\s{0,3}\[(?=[^\]]*\]:)")
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|~>$])")
_FENCE = re.compile(r"^(\s{0,3})(`{3,}|~{3,})")
_UNSAFE_LINK = re.compile(r"\]\(\s*<?\s*(?:javascript|vbscript|data|file)\s*:(?:[^()]|\([^()]*\))*\)", re.IGNORECASE)
_BARE_UNSAFE = re.compile(r"(?i)\b(javascript|vbscript)\s*:")


def safe_url(url: object) -> str | None:
    """The URL if it is a plain http(s) URL, else None (``javascript:``, quotes, spaces are refused).

    >>> safe_url("https://example.org/m?a=1&b=2"), safe_url("javascript:alert(1)"), safe_url('https://x" onclick=')
    ('https://example.org/m?a=1&b=2', None, None)
    """
    if not isinstance(url, str) or not _URL.match(url.strip()):
        return None
    return url.strip()


def link(text: object, url: object) -> str:
    """An escaped link that opens in a new tab, or the escaped text when the URL is unsafe.

    >>> link("m", "https://example.org/a?x=1&y=2")
    '<a href="https://example.org/a?x=1&amp;y=2" target="_blank" rel="noopener noreferrer nofollow">m</a>'
    >>> link("<b>m</b>", "https://example.org/?q=<x>"), link("m", "javascript:alert(1)")
    ('&lt;b&gt;m&lt;/b&gt;', 'm')
    """
    href = safe_url(url)
    if href is None:
        return esc(text)
    return f'<a href="{esc(href)}" target="_blank" rel="noopener noreferrer nofollow">{esc(text)}</a>'


def md_escape(value: object) -> str:
    """Text shown literally inside markdown: markdown syntax backslash-escaped, HTML entity-escaped.

    >>> md_escape("**bold** <script>x</script> [a](javascript:b)")
    '\\\\*\\\\*bold\\\\*\\\\* &lt;script&gt;x&lt;/script&gt; \\\\[a\\\\]\\\\(javascript:b\\\\)'
    """
    text = "" if value is None else bidi_visible(str(value))
    text = html.escape(text, quote=False)
    text = _MD_SPECIAL.sub(r"\\\1", text)
    return text.replace("\n", " ")


def _escape_html_outside_code(line: str) -> str:
    """Escape ``<``/``>``/``&`` and image/link syntax except inside inline code spans (which render literally).

    Images and links are shown as text: a submitted statement must not make the
    reader's browser fetch (or offer) a URL the submitter chose.
    """
    parts = re.split(r"(`+[^`]*`+)", line)
    for i in range(0, len(parts), 2):
        text = parts[i].replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        parts[i] = _MD_IMAGE_OR_LINK.sub(lambda m: m.group().replace("[", "\\[").replace("(", "\\("), text)
    return bidi_visible("".join(parts))


def safe_markdown(markdown: str) -> str:
    """Markdown with every raw HTML tag shown as text and script-scheme links disabled.

    Code fences are left alone (their content renders literally). Blockquote
    markers (``>`` at a line start) are kept. Images and links (inline,
    reference and their definitions) are shown as text, never fetched.

    >>> print(safe_markdown("![t](https://evil.example/p.png) [r][1]\\n[1]: https://evil.example/x"))
    ![t]\\(https://evil.example/p.png) [r]\\[1]
    \\[1]: https://evil.example/x

    >>> print(safe_markdown("ok <img src=x onerror=alert(1)> [c](javascript:alert(2))\\n```\\n<b>code</b>\\n```"))
    ok &lt;img src=x onerror=alert(1)&gt; [c]\\(javascript&#58;alert(2))
    ```
    <b>code</b>
    ```
    """
    return outside_fences(markdown, _safe_line)


def _safe_line(line: str) -> str:
    quote = re.match(r"^(\s{0,3}(?:>\s?)+)", line)
    prefix = quote.group(1) if quote else ""
    body = _escape_html_outside_code(line[len(prefix):])
    body = _UNSAFE_LINK.sub("](#unsafe-link)", body)
    body = _BARE_UNSAFE.sub(lambda mm: mm.group(1) + "&#58;", body)
    return prefix + body


def outside_fences(markdown: str, rewrite: Callable[[str], str]) -> str:
    r"""``markdown`` with ``rewrite`` applied to every line outside a fenced code block (fenced lines stay as written).

    A fence closes on a line of the same character at least as long as the opening one, as CommonMark says.

    >>> print(outside_fences("a\n```\na\n```\na", str.upper))
    A
    ```
    a
    ```
    A
    """
    out: list[str] = []
    fence: str | None = None
    for line in markdown.split("\n"):
        m = _FENCE.match(line)
        if fence is not None:
            out.append(line)
            if m and m.group(2)[0] == fence[0] and len(m.group(2)) >= len(fence):
                fence = None
            continue
        if m:
            fence = m.group(2)
            out.append(line)
            continue
        out.append(rewrite(line))
    return "\n".join(out)


def _ignorable(ch: str) -> bool:
    """Leading characters a spreadsheet skips before it decides a cell is a formula."""
    return ch.isspace() or unicodedata.category(ch)[0] in ("C", "Z")


def csv_cell(value: object) -> object:
    """A value safe to put in a CSV cell: text that a spreadsheet would run as a formula is quoted.

    The formula prefix is looked for after any leading whitespace and control
    characters (`` =1``, ``\\x00=1`` and ``\\u200b=1`` are formulas to some
    spreadsheets). Numbers stay numbers (a negative score is not a formula).

    >>> [csv_cell(v) for v in ["=HYPERLINK(1)", "+1", "-x", "@SUM(A1)", "\\tx", "\\rx", "model", -0.5, None]]
    ["'=HYPERLINK(1)", "'+1", "'-x", "'@SUM(A1)", "'\\tx", "'\\rx", 'model', -0.5, None]
    >>> [csv_cell(v) for v in [" =1", "\\n\\r@x", "\\x00-2", "\\u200b+3", "\\uff1dcmd", "a=b"]]
    ["' =1", "'\\n\\r@x", "'\\x00-2", "'\\u200b+3", "'＝cmd", 'a=b']
    """
    if not isinstance(value, str):
        return value
    i = 0
    while i < len(value) and _ignorable(value[i]):
        i += 1
    if value.startswith(_FORMULA_PREFIXES) or value[i:].startswith(_FORMULA_STARTS):
        return "'" + value
    return value


def csv_line(cells: Iterable[object]) -> str:
    """One CSV row (RFC 4180): a cell holding a comma, a quote, CR or LF is quoted, inner quotes doubled.

    Python's ``csv`` writer leaves a bare CR unquoted when the line terminator is
    ``\\n``, so a cell starting with CR would split the row in some readers.

    >>> csv_line(["\\r=1", 'a"b', "x,y", 2.5, None])
    '"\\r=1","a""b","x,y",2.5,\\n'
    """
    out = []
    for cell in cells:
        text = "" if cell is None else str(cell)
        if any(c in text for c in ',"\r\n'):
            text = '"' + text.replace('"', '""') + '"'
        out.append(text)
    return ",".join(out) + "\n"


def tokens_equal(given: str | None, expected: str | None) -> bool:
    """Constant-time comparison; an unset expected token never matches.

    >>> tokens_equal("s3cret", "s3cret"), tokens_equal("s3cre", "s3cret"), tokens_equal("", ""), tokens_equal(None, "x")
    (True, False, False, False)
    """
    if not expected or not given:
        return False
    return hmac.compare_digest(given.encode("utf-8"), expected.encode("utf-8"))


def clean_text(value: object, *, max_len: int, field: str) -> str:
    """A single line of user-typed metadata: in NFC, whitespace runs (newlines, tabs) made one space, length checked.

    Any other character a reader cannot see (NUL, a terminal escape, a zero-width or
    bidi control, private use) is refused with the field, not silently removed: what
    the person typed and what the board shows must be the same text.

    >>> clean_text("  Ada\\n\\t Lovelace\\n ", max_len=50, field="submitter")
    'Ada Lovelace'
    >>> clean_text("Ada\\x00", max_len=50, field="submitter")
    Traceback (most recent call last):
    ...
    ValueError: submitter holds U+0000 (a control character) at character 4, which a reader cannot see; remove it
    """
    text = "" if value is None else str(value)
    text = " ".join(text.split())
    text = clean_name(text, field)
    if len(text) > max_len:
        raise ValueError(f"{field} is longer than {max_len} characters")
    return text

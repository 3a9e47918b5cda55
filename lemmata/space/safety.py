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

_URL = re.compile(r"^https?://[^\s<>\"'`\\]+$")
_FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|~>$])")
_FENCE = re.compile(r"^(\s{0,3})(`{3,}|~{3,})")
_UNSAFE_LINK = re.compile(r"\]\(\s*<?\s*(?:javascript|vbscript|data|file)\s*:(?:[^()]|\([^()]*\))*\)", re.IGNORECASE)
_BARE_UNSAFE = re.compile(r"(?i)\b(javascript|vbscript)\s*:")


def esc(value: object) -> str:
    """HTML-escape any value for text or attribute context.

    >>> esc('<img src=x onerror="alert(1)">')
    '&lt;img src=x onerror=&quot;alert(1)&quot;&gt;'
    >>> esc(None)
    ''
    """
    return "" if value is None else html.escape(str(value), quote=True)


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

    >>> link("<b>m</b>", "https://example.org/?q=<x>")
    '&lt;b&gt;m&lt;/b&gt;'
    >>> link("m", "https://example.org/a?x=1&y=2")
    '<a href="https://example.org/a?x=1&amp;y=2" target="_blank" rel="noopener noreferrer nofollow">m</a>'
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
    text = "" if value is None else str(value)
    text = html.escape(text, quote=False)
    text = _MD_SPECIAL.sub(r"\\\1", text)
    return text.replace("\n", " ")


def _escape_html_outside_code(line: str) -> str:
    """Escape ``<``/``>``/``&`` except inside inline code spans (which render literally anyway)."""
    parts = re.split(r"(`+[^`]*`+)", line)
    for i in range(0, len(parts), 2):
        parts[i] = parts[i].replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return "".join(parts)


def safe_markdown(markdown: str) -> str:
    """Markdown with every raw HTML tag shown as text and script-scheme links disabled.

    Code fences are left alone (their content renders literally). Blockquote
    markers (``>`` at a line start) are kept.

    >>> print(safe_markdown("ok <img src=x onerror=alert(1)> [c](javascript:alert(2))\\n```\\n<b>code</b>\\n```"))
    ok &lt;img src=x onerror=alert(1)&gt; [c](#unsafe-link)
    ```
    <b>code</b>
    ```
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
        quote = re.match(r"^(\s{0,3}(?:>\s?)+)", line)
        prefix = quote.group(1) if quote else ""
        body = _escape_html_outside_code(line[len(prefix):])
        body = _UNSAFE_LINK.sub("](#unsafe-link)", body)
        body = _BARE_UNSAFE.sub(lambda mm: mm.group(1) + "&#58;", body)
        out.append(prefix + body)
    return "\n".join(out)


def csv_cell(value: object) -> object:
    """A value safe to put in a CSV cell: text that a spreadsheet would run as a formula is quoted.

    Numbers stay numbers (a negative score is not a formula).

    >>> [csv_cell(v) for v in ["=HYPERLINK(1)", "+1", "-x", "@SUM(A1)", "\\tx", "\\rx", "model", -0.5, None]]
    ["'=HYPERLINK(1)", "'+1", "'-x", "'@SUM(A1)", "'\\tx", "'\\rx", 'model', -0.5, None]
    """
    if isinstance(value, str) and value.startswith(_FORMULA_PREFIXES):
        return "'" + value
    return value


def tokens_equal(given: str | None, expected: str | None) -> bool:
    """Constant-time comparison; an unset expected token never matches.

    >>> tokens_equal("s3cret", "s3cret"), tokens_equal("s3cre", "s3cret"), tokens_equal("", ""), tokens_equal(None, "x")
    (True, False, False, False)
    """
    if not expected or not given:
        return False
    return hmac.compare_digest(given.encode("utf-8"), expected.encode("utf-8"))


def clean_text(value: object, *, max_len: int, field: str) -> str:
    """A single line of user-typed metadata: control characters removed, length checked.

    >>> clean_text("  Ada\\x00 Lovelace\\n ", max_len=50, field="submitter")
    'Ada Lovelace'
    """
    text = "" if value is None else str(value)
    text = re.sub(r"[\x00-\x1f\x7f]+", " ", text)
    text = " ".join(text.split())
    if len(text) > max_len:
        raise ValueError(f"{field} is longer than {max_len} characters")
    return text

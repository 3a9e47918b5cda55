"""PDF → text, only for e-prints that have no TeX source (arXiv then serves the PDF itself).

Uses ``pypdf`` (BSD-3-Clause, pure Python), imported only when needed. A PDF
cannot tell statements from prose, so its fixed text is every page's
extracted text in order (``[page N]`` markers), up to ``pdf_max_pages`` pages
and ``max_text_chars`` characters; no statement count is recorded.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass

from lemmata.core.errors import Error


class PdfError(Error, ValueError):
    """The PDF could not be read (one sentence)."""


@dataclass
class PdfText:
    text: str
    pages: int
    pages_read: int


def pdf_text(data: bytes, *, header: list[str], max_pages: int, max_chars: int) -> PdfText:
    """The fixed text of a PDF e-print."""
    try:
        from pypdf import PdfReader
        from pypdf.errors import PyPdfError
    except ImportError as exc:  # a declared dependency; reported plainly if an install lacks it
        raise PdfError(f"pypdf is not installed ({exc})") from None
    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted:
            raise PdfError("the PDF is encrypted")
        pages = len(reader.pages)
        parts: list[str] = []
        size = 0
        read = 0
        for i in range(min(pages, max_pages)):
            page = reader.pages[i].extract_text() or ""
            page = re.sub(r"[ \t]+\n", "\n", page).strip()
            parts.append(f"[page {i + 1}]\n{page}")
            read += 1
            size += len(page)
            if size > max_chars:
                break
    except PdfError:
        raise
    except (PyPdfError, ValueError, KeyError, TypeError, IndexError, AttributeError, RecursionError, OSError) as exc:
        raise PdfError(f"the PDF could not be read ({type(exc).__name__}: {exc})") from None
    body = "\n\n".join(parts)
    if not re.search(r"\w", re.sub(r"\[page \d+\]", "", body)):
        raise PdfError("the PDF holds no extractable text (scanned pages?)")
    text = "\n".join(header + [f"% pages: {read} of {pages} read"]) + "\n\n" + body
    if len(text) > max_chars:
        text = text[:max_chars] + f"\n[… text cut at {max_chars} characters]"
    return PdfText(text=text.rstrip("\n") + "\n", pages=pages, pages_read=read)

"""Choosing a file in the space's upload box from a real browser, as a visitor's click would.

The Submit tab's load events may re-render the box just as a file is set, which
drops the file; and once a file is taken, Gradio replaces the box's file input
with the file's name. So the file is set again only while the input is still
there and shows no file, and a slow render is waited for rather than retried.
"""

from __future__ import annotations

from pathlib import Path

BOX = "#lm-upload"


def set_upload(page, path: Path, *, tries: int = 3, shown_s: float = 10.0) -> None:
    """Choose ``path`` in the upload box (clearing a file chosen before) and wait until the box shows its name."""
    clear = page.locator(f"{BOX} button[aria-label='Clear']")
    if clear.count():
        clear.first.click()
        clear.first.wait_for(state="detached", timeout=10_000)
    name = page.locator(BOX).get_by_text(path.name)
    field = page.locator(f"{BOX} input[type=file]")
    for attempt in range(tries):
        field.wait_for(state="attached", timeout=30_000)
        field.set_input_files(str(path))
        try:
            name.wait_for(timeout=shown_s * 1000)
            return
        except Exception:
            if not field.count():  # the box took the file and is still drawing its name: wait, do not set it again
                name.wait_for(timeout=60_000)
                return
            if attempt == tries - 1:
                raise

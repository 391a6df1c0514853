"""Render an HTML page with headless Chromium and fail if it comes out empty.

    python -m schedbench.bench.screenshot REPORT.html OUT.png

CI's check that the report really shows something: a page that renders
blank (a broken template, an empty store) exits 1 with a message.
"""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

WINDOW = "1280,2400"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars")
MIN_INK = 0.02      # share of pixels that differ from the background
MIN_COLOURS = 8     # text antialiasing alone gives dozens; a blank page has one
TIMEOUT = 120


class ScreenshotError(Exception):
    """No picture, or an empty one."""


def chromium() -> str | None:
    """The Chromium binary: /usr/bin/chromium, else ``chromium`` on PATH."""
    if os.access("/usr/bin/chromium", os.X_OK):
        return "/usr/bin/chromium"
    return shutil.which("chromium")


def screenshot(page: Path, out: Path) -> None:
    """Render ``page`` into the PNG ``out`` (a fresh profile each time, no network services)."""
    binary = chromium()
    if binary is None:
        raise ScreenshotError("no Chromium found (/usr/bin/chromium or chromium on PATH)")
    if not Path(page).is_file():
        raise ScreenshotError(f"no page at {page}")
    out = Path(out).resolve()
    out.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory() as profile:
        command = [binary, *FLAGS, f"--user-data-dir={profile}", f"--window-size={WINDOW}", f"--screenshot={out}",
                   Path(page).resolve().as_uri()]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            raise ScreenshotError(f"Chromium did not finish within {TIMEOUT} s") from None
    if done.returncode != 0 or not out.is_file():
        tail = done.stderr.strip().splitlines()[-1:] or ["no message"]
        raise ScreenshotError(f"Chromium failed (exit {done.returncode}): {tail[0]}")


def emptiness(png: Path) -> str | None:
    """Why the picture looks empty, or None if it shows content: enough pixels
    away from the background (the commonest colour) and enough distinct colours."""
    import numpy
    from matplotlib.image import imread

    pixels = (imread(png)[..., :3] * 255).round().astype(numpy.uint32)
    packed = (pixels[..., 0] << 16 | pixels[..., 1] << 8 | pixels[..., 2]).ravel()
    colours, counts = numpy.unique(packed, return_counts=True)
    ink = 1 - counts.max() / packed.size
    if ink < MIN_INK or len(colours) < MIN_COLOURS:
        return (f"{png} looks empty: {ink:.2%} of its pixels differ from the background (need {MIN_INK:.0%}), "
                f"{len(colours)} distinct colours (need {MIN_COLOURS})")
    return None


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print("usage: python -m schedbench.bench.screenshot REPORT.html OUT.png", file=sys.stderr)
        return 2
    page, out = map(Path, args)
    try:
        screenshot(page, out)
    except ScreenshotError as exc:
        print(f"screenshot: {exc}", file=sys.stderr)
        return 1
    problem = emptiness(out)
    if problem:
        print(f"screenshot: {problem}", file=sys.stderr)
        return 1
    print(f"screenshot: {out} shows the page")
    return 0


if __name__ == "__main__":
    sys.exit(main())

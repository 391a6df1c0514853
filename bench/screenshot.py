"""Render an HTML page with headless Chromium and fail if it comes out
empty or badly laid out.

    python -m bench.screenshot REPORT.html OUT.png

CI's check that the report really shows something: a page that renders
blank (a broken template, an empty store) exits 1 with a message, and so
does one whose summary is not on the first screen, whose figure has no
size, or whose text runs out of its box (``layout_problems``, measured by
the browser itself on a copy of the page with a probe script).
"""

import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

WINDOW = "1280,2400"
FIRST_SCREEN = (1280, 900)   # the first screen a reader sees, in CSS pixels
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


PROBE = """<script>
window.addEventListener("load", () => {
  const problems = [];
  const hidden = (el) => el.closest("details:not([open])") !== null;
  const first = (selector) => {
    const el = document.querySelector(selector);
    if (el === null) { problems.push(`no ${selector} on the page`); return; }
    if (el.getBoundingClientRect().top >= window.innerHeight) problems.push(`${selector} is below the first screen`);
  };
  first("#summary"); first("#summary .cards");
  if (document.querySelector("#summary .profiles") !== null) first("#summary .profiles"); else first("#summary table");
  for (const img of document.images) {
    const box = img.getBoundingClientRect();
    if (img.naturalWidth === 0 || (!hidden(img) && (box.width === 0 || box.height === 0)))
      problems.push(`figure without a size: ${img.alt}`);
  }
  for (const el of document.querySelectorAll("h1, h2, h3, p, td, th, caption, figcaption, .card, nav, summary")) {
    if (!hidden(el) && el.scrollWidth > el.clientWidth + 1)
      problems.push(`text overflows its ${el.tagName.toLowerCase()}: ${el.textContent.trim().slice(0, 60)}`);
  }
  if (document.documentElement.scrollWidth > window.innerWidth + 1) problems.push("the page is wider than the window");
  const out = document.createElement("pre");
  out.id = "schedbench-layout";
  out.textContent = JSON.stringify(problems);
  document.body.appendChild(out);
});
</script>"""


def layout_problems(page: Path) -> list[str]:
    """What is wrong with the page's layout on a first screen of
    ``FIRST_SCREEN``, as the browser measures it: the summary (its cards, and
    its profiles, or its first table when it has none) not on the first screen, a figure with no size, text
    wider than its box, a page wider than the window."""
    binary = chromium()
    if binary is None:
        raise ScreenshotError("no Chromium found (/usr/bin/chromium or chromium on PATH)")
    text = Path(page).read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory() as folder:
        probed = Path(folder) / "probed.html"
        probed.write_text(text.replace("</body>", PROBE + "</body>"), encoding="utf-8")
        command = [binary, *FLAGS, f"--user-data-dir={folder}/profile", f"--window-size={FIRST_SCREEN[0]},{FIRST_SCREEN[1]}",
                   "--virtual-time-budget=10000", "--dump-dom", probed.as_uri()]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            raise ScreenshotError(f"Chromium did not finish within {TIMEOUT} s") from None
    found = re.search(r'<pre id="schedbench-layout">(.*?)</pre>', done.stdout, re.S)
    if found is None:
        raise ScreenshotError(f"the layout probe did not run (Chromium exit {done.returncode})")
    return json.loads(html.unescape(found.group(1)))


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print("usage: python -m bench.screenshot REPORT.html OUT.png", file=sys.stderr)
        return 2
    page, out = map(Path, args)
    try:
        screenshot(page, out)
        problem = emptiness(out)
        problems = [] if problem else layout_problems(page)
    except ScreenshotError as exc:
        print(f"screenshot: {exc}", file=sys.stderr)
        return 1
    if problem:
        print(f"screenshot: {problem}", file=sys.stderr)
        return 1
    if problems:
        print("screenshot: " + "; ".join(problems), file=sys.stderr)
        return 1
    print(f"screenshot: {out} shows the page")
    return 0


if __name__ == "__main__":
    sys.exit(main())

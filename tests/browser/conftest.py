"""Real-browser tests: Playwright for Python driving Debian's chromium against Django's live server.

Every page fails its test on a console error or an uncaught exception. Screenshots go to tests/artifacts/
(git-ignored), which CI keeps as artifacts.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

# Playwright runs its own event loop in this thread; Django refuses ORM calls from such a thread unless told.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
# The flags a sandboxed, offline machine needs: no background traffic to hosts it cannot reach.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
DESKTOP = {"viewport": {"width": 1280, "height": 900}}


@pytest.fixture(scope="session")
def browser() -> Iterator:
    if not Path(CHROMIUM).exists():
        pytest.skip("chromium is not installed (apt-get install chromium; .ci/run installs it)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


def _open_page(browser, **context_options):
    context = browser.new_context(**context_options)
    page = context.new_page()
    problems: list[str] = []
    page.on("console", lambda message: problems.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: problems.append(str(error)))
    return context, page, problems


@pytest.fixture(params=["phone", "desktop"])
def page(request, browser, live_server):
    """A fresh page on a phone-sized and on a desktop viewport; fails the test on any console error."""
    context, page, problems = _open_page(
        browser, base_url=live_server.url, **(PHONE if request.param == "phone" else DESKTOP)
    )
    page.viewport_name = request.param
    yield page
    context.close()
    assert not problems, f"console errors: {problems}"


@pytest.fixture
def other_page(request, browser, live_server):
    """A second browser (cookies of its own) of the same viewport as ``page``; fails the test on any console error."""
    viewport = request.node.callspec.params.get("page", "desktop") if hasattr(request.node, "callspec") else "desktop"
    context, page, problems = _open_page(
        browser, base_url=live_server.url, **(PHONE if viewport == "phone" else DESKTOP)
    )
    page.viewport_name = f"{viewport}-other"
    yield page
    context.close()
    assert not problems, f"console errors: {problems}"


@pytest.fixture
def page_without_javascript(browser, live_server):
    context, page, problems = _open_page(browser, base_url=live_server.url, java_script_enabled=False, **PHONE)
    yield page
    context.close()
    assert not problems, f"console errors: {problems}"


@pytest.fixture
def screenshot():
    """`screenshot(page, name)` saves a full-page PNG under tests/artifacts/ and returns its path."""

    def save(page, name: str) -> Path:
        ARTIFACTS.mkdir(exist_ok=True)
        path = ARTIFACTS / f"{name}-{getattr(page, 'viewport_name', 'page')}.png"
        page.screenshot(path=str(path), full_page=True)
        return path

    return save


# Every text of every server-drawn chart on the page: its size on screen, its box, and the chart's box.
CHART_TEXTS = """() => Array.from(document.querySelectorAll("svg.radar-svg, svg.counts-svg")).flatMap(svg => {
  const box = svg.getBoundingClientRect();
  const scale = box.width / svg.viewBox.baseVal.width;
  const markers = Array.from(svg.querySelectorAll("circle")).map(c => c.getBoundingClientRect());
  return Array.from(svg.querySelectorAll("text")).map(text => {
    const r = text.getBoundingClientRect();
    return {
      text: text.textContent, tick: text.classList.contains("radar-ring-label"),
      px: parseFloat(getComputedStyle(text).fontSize) * scale,
      inside: r.left >= box.left - 0.5 && r.right <= box.right + 0.5 && r.top >= box.top - 0.5
        && r.bottom <= box.bottom + 0.5,
      onMarker: markers.some(m => r.left < m.right && r.right > m.left && r.top < m.bottom && r.bottom > m.top),
    };
  });
})"""


@pytest.fixture
def charts_legible():
    """`charts_legible(page)` asserts that every chart text is at least 12 px on screen, inside its chart (never
    cut), and that no tick label lies under a marker; returns how many texts it checked."""

    def check(page) -> int:
        texts = page.evaluate(CHART_TEXTS)
        assert texts, "no chart on the page"
        small = [(t["text"], round(t["px"], 1)) for t in texts if t["px"] < 12]
        assert not small, f"chart text under 12 px: {small}"
        cut = [t["text"] for t in texts if not t["inside"]]
        assert not cut, f"chart text cut at the chart's edge: {cut}"
        hidden = [t["text"] for t in texts if t["tick"] and t["onMarker"]]
        assert not hidden, f"tick labels under a marker: {hidden}"
        return len(texts)

    return check


# axe-core, vendored (static/vendor/axe-core/), run in the page through the DevTools protocol, which the strict
# Content Security Policy does not govern, so no page has to allow it.
AXE_SCRIPT = Path(__file__).resolve().parents[2] / "static" / "vendor" / "axe-core" / "axe.min.js"
AXE_BLOCKING = ("serious", "critical")
AXE_RUN = """async () => {
  const results = await axe.run(document, {resultTypes: ["violations"]});
  return results.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 5).map(n => n.target.join(" "))}));
}"""


def axe_violations(page) -> list[dict]:
    """The serious and critical accessibility violations axe-core finds on the page as it is now."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(AXE_SCRIPT.read_text(encoding="utf-8"))
    return [v for v in page.evaluate(AXE_RUN) if v["impact"] in AXE_BLOCKING]


def axe_report(found: dict[str, list[dict]]) -> str:
    """The violations per page, one line each: rule, impact, what it asks and where (at most five places)."""
    return "accessibility violations:\n" + "\n".join(
        f"{page}: {v['id']} ({v['impact']}) {v['help']}: {'; '.join(v['nodes'])}"
        for page, violations in found.items()
        for v in violations
    )


@pytest.fixture
def accessible():
    """`accessible(page)` asserts that axe-core finds no serious or critical violation on the page as it is now."""

    def check(page) -> None:
        violations = axe_violations(page)
        assert not violations, axe_report({page.url: violations})

    return check


def drag_to_top(page, letter: str) -> None:
    """Drag a response by its handle above the first response, the way a person would with a mouse."""
    handle = page.locator(f'.ranking-item[data-letter="{letter}"] .ranking-handle')
    first = page.locator(".ranking-item").first
    # Both ends of the drag must be on screen, also on a phone.
    first.evaluate("row => row.scrollIntoView({block: 'start'})")
    start = handle.bounding_box()
    target = first.bounding_box()
    x, y = start["x"] + start["width"] / 2, start["y"] + start["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    # In small steps with pauses, as a hand moves: SortableJS swaps one neighbour at a time and ignores a
    # neighbour while it is still animating (150 ms), so the pointer lingers over the first response.
    goal = target["y"] + target["height"] / 3
    for step in range(1, 31):
        page.mouse.move(x, y + (goal - y) * step / 30)
        page.wait_for_timeout(15)
    for wiggle in (0, 4, -4, 2, 0):
        page.wait_for_timeout(200)
        page.mouse.move(x, goal + wiggle)
    page.mouse.up()

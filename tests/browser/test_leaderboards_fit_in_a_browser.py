"""The leaderboards with the data `make run` loads (every model's reference runs and the papers' published rows), in
a real browser: on a 1366 px desktop no column of any leaderboard is cut, in either language; on a phone the table
scrolls sideways and its scrolling edge shows a shadow, with no script, until the table's end is reached."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from PIL import Image

from instruments import registry
from tests.browser.conftest import PHONE, _open_page

pytestmark = pytest.mark.django_db(transaction=True)

LAPTOP = {"viewport": {"width": 1366, "height": 768}}


@pytest.fixture
def make_run_data(db):
    for command in ("load_instrument", "load_reference_profiles", "load_published_rows"):
        call_command(command, stdout=io.StringIO())


@pytest.fixture
def open_page(browser, live_server):
    opened = []

    def open_(options):
        context, page, problems = _open_page(browser, base_url=live_server.url, **options)
        opened.append((context, problems))
        return page

    yield open_
    for context, problems in opened:
        context.close()
        assert not problems, f"console errors: {problems}"


# Each leaderboard table's width against the width its region shows.
TABLE_FITS = """() => Array.from(document.querySelectorAll(".table-scroll")).map(region => ({
  table: region.querySelector("table").scrollWidth, shown: region.clientWidth}))"""


@pytest.mark.parametrize("language", ["en", "zh-hans"])
def test_every_leaderboard_fits_a_1366_px_desktop(make_run_data, open_page, language):
    page = open_page(LAPTOP)
    published = 0
    for slug in registry.slugs():
        page.goto(f"/leaderboards/{slug}/?lang={language}")
        regions = page.evaluate(TABLE_FITS)
        assert regions, f"{slug}: no table"
        published += page.locator("table[data-leaderboard] tbody tr[data-source='paper']").count()
        cut = [region for region in regions if region["table"] > region["shown"]]
        assert not cut, f"{slug} ({language}): a column is cut at 1366 px: {cut}"
    assert published, "no published paper row on any leaderboard"


def _edges(page, region) -> tuple[float, float]:
    """How dark the region's leftmost and rightmost strips are with the table itself hidden: only the region's own
    background (the scroll cue) is left to see."""
    page.evaluate("region => region.querySelector('table').style.visibility = 'hidden'", region.element_handle())
    image = Image.open(io.BytesIO(region.screenshot())).convert("L")
    page.evaluate("region => region.querySelector('table').style.visibility = ''", region.element_handle())
    width, height = image.size

    def darkness(x: int) -> float:
        return sum(255 - image.getpixel((x, y)) for y in range(height)) / height

    return darkness(2), darkness(width - 3)


def test_a_phone_shows_which_way_the_leaderboard_scrolls(make_run_data, open_page, screenshot):
    page = open_page({**PHONE, "java_script_enabled": False})
    page.goto("/leaderboards/virtuemap/")
    region = page.locator(".table-scroll").first
    assert region.evaluate("region => region.scrollWidth > region.clientWidth"), "the table fits a phone"

    left, right = _edges(page, region)
    assert right > 10 > left, "no cue at the edge with more columns beyond it"
    screenshot(page, "leaderboard-scroll-cue")

    region.evaluate("region => region.scrollLeft = region.scrollWidth")
    left, right = _edges(page, region)
    assert left > 10 > right, "the cue stays at the edge the table has reached"

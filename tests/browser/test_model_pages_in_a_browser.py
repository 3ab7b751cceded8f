"""The cross-instrument pages in a real browser, on a phone and a desktop: a model's page, a comparison of three
models, a leaderboard sorted and downloaded, and the home page's two actions in the first screen."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from tests.profiles.conftest import CLAUDE, GEMINI, GPT, four_instruments  # noqa: F401 -- the fixture

pytestmark = pytest.mark.django_db(transaction=True)


def _fits_sideways(page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"] + 1, "the page scrolls sideways"


def test_a_model_page_shows_every_instrument(page, four_instruments, screenshot, charts_legible):  # noqa: F811
    page.goto(f"/models/{GPT}/")

    for name in ("VirtueMap", "Transitivity", "MoralBench", "AMAeval"):
        assert page.locator("section.instrument-block h2", has_text=name).first.is_visible()
    assert page.locator("svg.radar-svg").is_visible() and page.locator("svg.foundation-svg").first.is_visible()
    charts_legible(page)
    _fits_sideways(page)
    screenshot(page, "model-page")


def test_three_models_compare_on_one_pentagon(page, four_instruments, screenshot):  # noqa: F811
    page.goto(f"/compare/?models={GPT},{CLAUDE},{GEMINI}")

    assert page.locator("svg.radar-svg .radar-series").count() == 3
    assert page.locator(".radar-legend li").count() == 3
    assert page.locator('[data-figure-table="virtuemap"] thead th').count() == 4
    _fits_sideways(page)
    screenshot(page, "compare-three")


def test_a_leaderboard_sorts_by_a_column_and_downloads(page, four_instruments, screenshot):  # noqa: F811
    page.goto("/leaderboards/virtuemap/")
    heading = page.get_by_role("button", name="Courage")

    def courage() -> list[float]:
        table = page.locator("table[data-leaderboard]")
        index = [text.strip() for text in table.locator("thead th").all_inner_texts()].index("Courage")
        cells = table.locator(f"tbody tr td:nth-child({index + 1})").all()
        return [float(cell.get_attribute("data-value")) for cell in cells]

    heading.click()  # a score: highest first, as a reader of a leaderboard looks for
    assert courage() == sorted(courage(), reverse=True)
    heading.click()
    assert courage() == sorted(courage())
    assert page.locator("table[data-leaderboard] tfoot tr").count() == 2  # the mean and range rows stay below
    with page.expect_download() as download:
        page.get_by_role("link", name="CSV").click()
    assert download.value.suggested_filename == "virtuemap-leaderboard.csv"
    screenshot(page, "leaderboard-sorted")


def test_the_home_page_puts_its_two_actions_in_the_first_screen_and_the_models_in_a_table(
    page, published_models, screenshot
):
    call_command("open_validation", "--first-time", stdout=io.StringIO())  # as `make run` opens it
    page.goto("/")

    for action in ("Profile yourself", "Take part in the study"):
        box = page.locator("[data-home-actions]").get_by_role("link", name=action).bounding_box()
        assert box["y"] + box["height"] <= page.viewport_size["height"], f"{action} is below the fold"
    assert page.locator("[data-model-summary] tbody tr").count() == 3
    headings = page.locator("[data-model-summary] thead th").all_inner_texts()
    assert [heading.strip() for heading in headings][1:] == ["Practical Wisdom", "Justice", "Truthfulness", "Courage",
                                                             "Temperance"]  # fmt: skip
    assert (
        page.locator("[data-model-summary] td").first.evaluate("cell => parseFloat(getComputedStyle(cell).fontSize)")
        >= 12
    )
    page.locator(f'[data-model-summary] a[data-model="{GPT}"]').click()
    assert page.get_by_role("heading", name="GPT").is_visible()
    screenshot(page, "home-actions")

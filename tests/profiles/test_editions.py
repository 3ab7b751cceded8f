"""A model asked VirtueMap in English and in Chinese: both profiles side by side on its page, in the gallery and in
the API, with each virtue's difference (zh-hans − en) and its Welch interval over the two languages' runs."""

from __future__ import annotations

import copy
import math

import pytest

from instruments.base import Figure
from instruments.profiles import edition_comparison
from llmruns.models import Result
from scoring.compare import Sample, welch_difference
from tests.profiles.conftest import CLAUDE, GPT

pytestmark = pytest.mark.django_db

SHIFT = 20.0  # the Chinese courage score above the English one, far beyond both runs' spread


@pytest.fixture
def chinese_gpt(published_models):
    """GPT's English profile, and a Chinese one: the same scores but courage SHIFT higher, over two fewer runs."""
    english = Result.objects.get(model__slug=GPT, instrument="virtuemap", language="en")
    summary = copy.deepcopy(english.summary)
    summary["profile_stats"]["courage"]["mean"] += SHIFT
    summary["runs"] -= 2
    return english, Result.objects.create(
        model=english.model, instrument="virtuemap", language="zh-hans", source=Result.Source.RUN, summary=summary
    )


def _expected(english: Result, chinese: Result, virtue: str):
    def sample(result: Result) -> Sample:
        stats = result.summary["profile_stats"][virtue]
        return Sample(stats["mean"], stats["std"], result.summary["runs"])

    return welch_difference(sample(chinese), sample(english))


def test_the_model_page_shows_both_languages_with_the_difference_and_its_interval(client, chinese_gpt):
    english, chinese = chinese_gpt
    courage = _expected(english, chinese, "courage")

    page = " ".join(client.get(f"/models/{GPT}/").content.decode().split())

    assert page.count("data-edition-table") == 1
    assert 'data-language="en"' in page and 'data-language="zh-hans"' in page
    assert f"{courage.estimate:.2f}" in page and f"{courage.low:.2f} – {courage.high:.2f}" in page
    assert 'data-verdict="differs"' in page and 'data-verdict="alike"' in page  # courage apart, the rest alike


def test_the_model_page_of_a_model_asked_in_english_only_is_unchanged(client, chinese_gpt):
    page = client.get(f"/models/{CLAUDE}/").content.decode()

    assert "data-edition-table" not in page


def test_the_figure_table_and_picture_still_show_the_english_profile(client, chinese_gpt):
    english, _ = chinese_gpt
    courage = english.summary["profile_stats"]["courage"]["mean"]

    page = client.get(f"/models/{GPT}/").content.decode()
    table = page[page.index('data-figure-table="virtuemap"') : page.index("data-edition-table")]

    assert f"{courage:.2f}" in table and f"{courage + SHIFT:.2f}" not in table


def test_the_gallery_shows_the_chinese_profile_beside_the_english_one(client, chinese_gpt):
    english, chinese = chinese_gpt
    courage = _expected(english, chinese, "courage")

    page = " ".join(client.get("/models/").content.decode().split())

    assert page.count('class="card model-card"') == 3  # still one card per model
    assert page.count("data-edition-table") == 1
    gpt_card = page[page.index(f'data-model="{GPT}"') :]
    assert "data-edition-table" in gpt_card.split("</article>")[0]
    assert f"{courage.low:.2f} – {courage.high:.2f}" in page


def test_the_model_api_gives_each_languages_result_and_the_differences(api_client, chinese_gpt):
    english, chinese = chinese_gpt
    courage = _expected(english, chinese, "courage")

    body = api_client.get(f"/api/v1/models/{GPT}/results/").json()

    assert [result["language"] for result in body["results"]] == ["en"]  # the English result, as before
    (editions,) = body["editions"]
    assert (editions["instrument"], editions["base"], editions["languages"]) == ("virtuemap", "en", ["en", "zh-hans"])
    assert [result["language"] for result in editions["results"]] == ["en", "zh-hans"]
    by_key = {row["key"]: row for row in editions["differences"]}
    assert by_key["courage"]["language"] == "zh-hans"
    assert by_key["courage"]["difference"] == pytest.approx(SHIFT)
    assert (by_key["courage"]["low"], by_key["courage"]["high"]) == pytest.approx((courage.low, courage.high))
    assert by_key["courage"]["distinguishable"] is True and by_key["wisdom"]["distinguishable"] is False
    assert by_key["consistency"]["low"] is None  # no replicates of its own: no interval


def test_a_model_in_one_language_has_no_editions_in_the_api(api_client, chinese_gpt):
    assert api_client.get(f"/api/v1/models/{CLAUDE}/results/").json()["editions"] == []


def test_an_edition_comparison_puts_english_first_and_differs_each_other_language_from_it():
    english = [Figure("courage", "Courage", 50.0, math.sqrt(6), 4), Figure("wisdom", "Wisdom", 40.0, 1.0, 4)]
    chinese = [Figure("wisdom", "Wisdom", None), Figure("courage", "Courage", 55.0, math.sqrt(10), 5)]

    comparison = edition_comparison({"zh-hans": chinese, "en": english})

    assert (comparison["base"], comparison["others"]) == ("en", ["zh-hans"])
    assert [language["code"] for language in comparison["languages"]] == ["en", "zh-hans"]
    courage, wisdom = comparison["rows"]
    assert [cell["mean"] for cell in courage["cells"]] == [50.0, 55.0]
    assert courage["differences"][0]["difference"] == 5.0
    assert courage["differences"][0]["df"] == pytest.approx(7.0)  # the hand case of tests/scoring/test_compare.py
    assert wisdom["cells"][1]["mean"] is None and wisdom["differences"] == [None]
    assert edition_comparison({"en": english}) is None


def test_the_report_reads_in_chinese_with_lang_zh_hans(client, chinese_gpt):
    page = client.get(f"/models/{GPT}/?lang=zh-hans").content.decode()

    assert "同一测评工具的各语言版本" in page and "简体中文减去英语" in " ".join(page.split()).replace(" ", "")
    assert "勇气" in page  # the virtue's Chinese name labels its row

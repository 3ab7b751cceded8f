"""The papers' figures where a reader meets them, on a phone and a desktop, in both languages: the transitivity
paper's summary statistics, MoralBench's protocol row and AMAeval's judge and scenarios table."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db(transaction=True)

PAGE_WIDTH = "() => document.documentElement.scrollWidth <= window.innerWidth"


def test_the_transitivity_summary_sets_the_papers_table_beside_its_text_and_marks_the_departure(
    page, transitivity_instrument, screenshot, accessible
):
    page.goto("/transitivity/")

    table = page.locator("[data-transitivity-summary]")
    table.scroll_into_view_if_needed()
    assert table.is_visible()
    assert page.locator('tr[data-statistic="wum"] td[data-source="paper"]').inner_text() == "36 / 60 (60\u00a0%)"
    assert page.locator('tr[data-statistic="A_Lo_bottom_two"] [data-departs]').is_visible()
    assert page.locator('[data-summary-note="A_Lo_bottom_two"]').is_visible()
    assert page.evaluate(PAGE_WIDTH), "the page scrolls sideways"
    accessible(page)
    screenshot(page, "transitivity-summary")

    page.goto("/transitivity/?lang=zh-hans")
    assert page.get_by_role("heading", name="汇总统计（按论文的报告方式）").is_visible()
    assert page.evaluate(PAGE_WIDTH)


def test_a_moralbench_column_names_its_protocol(page, moralbench, fake_model, fake_provider, screenshot, accessible):
    from llmruns.engine import run_execute, run_start

    fake_provider.answer = lambda body: "A"
    plan = {"replicates": 1, "sets": ["MFQ_30"]}
    run_execute(run_id=run_start(instrument="moralbench", model=fake_model, plan=plan, enqueue=False).pk)

    page.goto("/moralbench/models/")

    protocol = page.locator('[data-paper-table="binary"] [data-protocol="counterbalanced"]')
    protocol.scroll_into_view_if_needed()
    assert protocol.is_visible() and "not the paper's protocol" in protocol.inner_text()
    assert page.evaluate(PAGE_WIDTH)
    accessible(page)
    screenshot(page, "moralbench-protocol")


def test_amaeval_says_which_judge_and_which_scenarios(page, amaeval_instrument, fake_model, fake_provider, screenshot):
    from llmruns.engine import run_execute, run_start
    from llmruns.models import LLMModel
    from tests.instruments.amaeval.test_amaeval_runs import _reply

    fake_provider.answer = _reply
    judge = LLMModel.objects.create(
        slug="fake/judge", name="Fake judge", provider="openai_compatible", base_url=fake_provider.base_url,
        model_id="fake-judge", requests_per_minute=0,
    )  # fmt: skip
    plan = {"part": "dynamic", "scenarios": 1, "replicates": 1}
    run_execute(run_id=run_start(instrument="amaeval", model=fake_model, judge=judge, plan=plan, enqueue=False).pk)

    page.goto("/amaeval/?lang=zh-hans")

    sources = page.locator("[data-dynamic-sources]")
    sources.scroll_into_view_if_needed()
    assert sources.is_visible() and "已发表的 79 个中的 1 个（0 个见过，1 个未见过）" in sources.inner_text()
    assert page.locator("[data-spearman-statistic]").is_visible()
    assert page.evaluate(PAGE_WIDTH)
    screenshot(page, "amaeval-dynamic-sources")

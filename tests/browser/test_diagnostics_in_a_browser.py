"""A flagged result is impossible to miss in a browser: the warning is visible on the gallery card and at the top of
the transitivity model report, before any score or verdict."""

from __future__ import annotations

import json
import math

import pytest

from instruments.transitivity.testing import provider_model
from llmruns.engine import run_execute, run_start
from llmruns.results import result_publish
from llmruns.testing import FakeProvider
from tests.llmruns.runs import suite_run

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_gallery_card_of_an_echoing_model_shows_its_warning_above_the_pentagon(
    page, instrument, fake_model, fake_provider, screenshot
):
    fake_provider.answer = lambda body: json.dumps({"ranking": ["1", "2", "3", "4", "5"]})
    result_publish(run=suite_run(fake_model, min_runs=3, max_runs=3, seed=2))

    page.goto("/models/")

    warning = page.locator(".model-card").first.get_by_role("alert")
    assert warning.is_visible()
    assert "Answers follow the order the options were shown in" in warning.inner_text()
    assert warning.bounding_box()["y"] < page.locator(".model-card svg").first.bounding_box()["y"]
    screenshot(page, "gallery-flagged")


def test_the_transitivity_report_of_a_first_picking_model_opens_with_its_warning(
    page, transitivity_instrument, screenshot
):
    with FakeProvider(logprobs=lambda body: [("1", math.log(0.9)), ("2", math.log(0.1))]) as provider:
        model = provider_model(provider)
        run_execute(run_id=run_start(instrument="transitivity", model=model, plan={"blocks": ["1"]}, enqueue=False).pk)

    page.goto(f"/transitivity/models/{model.slug}/")

    warning = page.get_by_role("alert").first
    assert warning.is_visible()
    assert "Warning: this result may not measure the model." in warning.inner_text()
    assert warning.bounding_box()["y"] < page.locator("[data-verdict-grid]").bounding_box()["y"]
    screenshot(page, "transitivity-flagged")

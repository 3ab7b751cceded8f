"""Every place a result is read shows its answer-quality flags: show_results, admin, gallery, the API, the
transitivity report and its JSON."""

from __future__ import annotations

import csv
import io
import json
import math

import pytest
from django.core.management import call_command
from django.utils.html import escape

from instruments.transitivity.testing import provider_model, scripted_logprobs
from llmruns.engine import run_execute, run_start
from llmruns.models import Result, Trial
from llmruns.results import result_publish
from llmruns.testing import FakeProvider
from tests.llmruns.runs import suite_run

pytestmark = pytest.mark.django_db

WARNING = "Warning: this result may not measure the model."


@pytest.fixture
def echoing_suite(instrument, fake_model, fake_provider):
    fake_provider.answer = lambda body: json.dumps({"ranking": ["1", "2", "3", "4", "5"]})
    return suite_run(fake_model, min_runs=3, max_runs=3, seed=2)


@pytest.fixture
def echoed_profile(echoing_suite):
    return result_publish(run=echoing_suite)


def test_show_results_leads_with_the_warning_in_the_table(echoing_suite):
    out = io.StringIO()
    call_command("show_results", str(echoing_suite.pk), stdout=out)

    lines = out.getvalue().splitlines()
    assert lines[2].startswith("WARNING: Answers follow the order the options were shown in")
    assert "21 of 21 rankings equal to the display order" in lines[2]
    assert any(line.strip().startswith("position: 21 of 21 rankings equal the display order") for line in lines)


def test_show_results_json_carries_the_diagnostics_and_flags(echoing_suite):
    out = io.StringIO()
    call_command("show_results", str(echoing_suite.pk), "--format", "json", stdout=out)

    diagnostics = json.loads(out.getvalue())["diagnostics"]
    assert [flag["code"] for flag in diagnostics["flags"]] == ["position"]
    assert diagnostics["position"]["display_order"]["chance"] == pytest.approx(1 / 120)


def test_the_run_admin_page_shows_the_warning_and_the_figures(admin_client, echoing_suite):
    page = admin_client.get(f"/admin/llmruns/run/{echoing_suite.pk}/change/").content.decode()

    assert WARNING in page
    assert "21 of 21 rankings equal the display order" in page


def test_the_result_admin_lists_the_flags_and_shows_them_on_the_result(admin_client, echoed_profile):
    assert "⚠ position" in admin_client.get("/admin/llmruns/result/").content.decode()
    assert WARNING in admin_client.get(f"/admin/llmruns/result/{echoed_profile.pk}/change/").content.decode()


def test_the_admin_publish_action_refuses_two_valid_runs_of_three_with_the_reason(admin_client, echoing_suite):
    Trial.objects.filter(run=echoing_suite, replicate=3, item="D2").update(answer_status="refusal", answer=None)

    response = admin_client.post(
        "/admin/llmruns/run/", {"action": "publish", "_selected_action": [echoing_suite.pk]}, follow=True
    )

    assert "fewer than its plan&#x27;s minimum of 3" in response.content.decode()
    assert not Result.objects.filter(run=echoing_suite).exists()


def test_the_admin_publish_action_says_the_published_result_is_flagged(admin_client, echoing_suite):
    response = admin_client.post(
        "/admin/llmruns/run/", {"action": "publish", "_selected_action": [echoing_suite.pk]}, follow=True
    )

    assert "Flagged: Answers follow the order the options were shown in" in response.content.decode()


def test_the_publish_command_prints_the_flags(echoing_suite):
    out = io.StringIO()
    call_command("publish", str(echoing_suite.pk), stdout=out)

    assert "WARNING: Answers follow the order the options were shown in" in out.getvalue()


def test_the_gallery_shows_a_flagged_profile_with_a_visible_warning(client, echoed_profile):
    page = client.get("/models/").content.decode()

    assert 'role="alert" data-flags="position"' in page
    assert WARNING in page


def test_the_gallery_says_when_a_profile_has_no_stored_answers_to_check(client, echoed_profile):
    Result.objects.filter(pk=echoed_profile.pk).update(diagnostics={})

    assert "No answer-quality diagnostics" in client.get("/models/").content.decode()


def test_the_models_api_carries_the_diagnostics_and_their_flags(api_client, echoed_profile):
    body = api_client.get("/api/v1/models/fake/model/").json()

    assert body["diagnostics"]["available"] is True
    assert [flag["code"] for flag in body["diagnostics"]["flags"]] == ["position"]
    assert body["runs"] == 3


def test_the_flag_is_said_in_chinese_on_the_gallery_and_in_the_api_with_its_figures(client, api_client, echoed_profile):
    flag = echoed_profile.diagnostics["flags"][0]
    figures = flag["reason_i18n"]["facts"]

    page = client.get("/models/?lang=zh-hans").content.decode()
    body = api_client.get("/api/v1/models/fake/model/?lang=zh-hans").json()

    chinese = f"作答跟随选项的呈现顺序而非其内容：{figures['n']} 个排序中有 {figures['count']} 个与呈现顺序相同"
    assert chinese in page
    assert flag["reason"] not in page
    assert body["diagnostics"]["flags"][0]["reason"].startswith(chinese)
    assert set(body["diagnostics"]["flags"][0]) == {"code", "reason"}


def test_a_flag_stored_before_its_translation_keeps_its_english_words(client, echoed_profile):
    diagnostics = echoed_profile.diagnostics
    diagnostics["flags"] = [{"code": flag["code"], "reason": flag["reason"]} for flag in diagnostics["flags"]]
    Result.objects.filter(pk=echoed_profile.pk).update(diagnostics=diagnostics)

    assert escape(diagnostics["flags"][0]["reason"]) in client.get("/models/?lang=zh-hans").content.decode()


def test_the_models_api_says_a_profile_without_answers_has_no_diagnostics(api_client, echoed_profile):
    Result.objects.filter(pk=echoed_profile.pk).update(diagnostics={}, run=None)

    assert api_client.get("/api/v1/models/fake/model/").json()["diagnostics"] == {
        "available": False,
        "flags": [],
        "answers": None,
        "position": None,
        "label_mass": None,
        "thresholds": None,
    }


def test_rescore_results_gives_diagnostics_to_a_result_published_before_them(echoed_profile):
    Result.objects.filter(pk=echoed_profile.pk).update(diagnostics={})

    call_command("rescore_results", stdout=io.StringIO())

    echoed_profile.refresh_from_db()
    assert echoed_profile.diagnostics["flags"][0]["code"] == "position"


@pytest.fixture
def first_picking_transitivity(transitivity_instrument):
    with FakeProvider(logprobs=lambda body: [("1", math.log(0.9)), ("2", math.log(0.1))]) as provider:
        model = provider_model(provider)
        run = run_start(instrument="transitivity", model=model, plan={"blocks": ["1"]}, seed=1, enqueue=False)
        run_execute(run_id=run.pk)
    return model


def test_the_transitivity_report_and_its_json_say_the_choices_follow_the_order(client, first_picking_transitivity):
    slug = first_picking_transitivity.slug
    page = client.get(f"/transitivity/models/{slug}/").content.decode()
    record = client.get(f"/transitivity/models/{slug}/report.json").json()

    assert WARNING in page and "42 of 42 choices of the first-shown option" in page
    assert [flag["code"] for flag in record["diagnostics"]["flags"]] == ["position"]


def test_the_transitivity_model_list_marks_the_flagged_model(client, first_picking_transitivity):
    page = client.get("/transitivity/models/").content.decode()

    assert 'data-flags="position"' in page and "⚠ flagged" in page


def test_the_transitivity_report_leads_with_the_order_effect_when_the_orders_disagree(
    client, first_picking_transitivity
):
    page = client.get(f"/transitivity/models/{first_picking_transitivity.slug}/").content.decode()

    assert "data-position-driven" in page
    assert page.index('id="model-order-heading"') < page.index('id="model-aggregate-heading"')
    assert page.index('id="model-aggregate-heading"') < page.index('id="model-grid-heading"')
    assert page.count('<span class="position-driven">position-driven</span>') == 4  # 2 orders × (grid + rankings)


def test_a_transitivity_report_answering_by_content_keeps_its_order(client, transitivity_instrument):
    with FakeProvider(logprobs=scripted_logprobs) as provider:
        model = provider_model(provider)
        run_execute(run_id=run_start(instrument="transitivity", model=model, plan={"blocks": ["1"]}, enqueue=False).pk)

    page = client.get(f"/transitivity/models/{model.slug}/").content.decode()

    assert "data-position-driven" not in page and "position-driven</span>" not in page
    assert page.index('id="model-grid-heading"') < page.index('id="model-aggregate-heading"')


def test_the_transitivity_csv_exports_carry_the_flags_on_every_row(client, first_picking_transitivity):

    for url in (f"/transitivity/models/{first_picking_transitivity.slug}/report.csv", "/transitivity/models.csv"):
        rows = list(csv.DictReader(io.StringIO(client.get(url).content.decode())))
        assert rows and {row["diagnostic_flags"] for row in rows} == {"position"}

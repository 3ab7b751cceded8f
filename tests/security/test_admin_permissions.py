"""Admin actions and exports check the model permission they need, through the admin's own URLs: a staff user who
may only look can neither promote a key nor start, resume, cancel or publish an LLM run, and one without the view
permission downloads no export."""

from __future__ import annotations

import itertools

import pytest
from django.contrib import admin
from django.contrib.auth.models import Permission
from django.core.exceptions import PermissionDenied
from django.test import RequestFactory

from instruments.virtuemap.admin import KeyCandidateAdmin
from instruments.virtuemap.models import KeyCandidate, KeyDecision
from instruments.virtuemap.validation import validation_open
from llmruns.engine import run_start
from llmruns.models import LLMModel, Result, Run

pytestmark = pytest.mark.django_db

_names = itertools.count()


@pytest.fixture
def staff(client, django_user_model):
    """`staff(*permissions)`: the test client logged in as a new staff user holding only these permissions."""

    def login(*permissions: str):
        user = django_user_model.objects.create_user(f"staff-{next(_names)}", password="x", is_staff=True)
        for permission in permissions:
            app_label, codename = permission.split(".")
            user.user_permissions.add(Permission.objects.get(content_type__app_label=app_label, codename=codename))
        client.force_login(user)
        return user

    return login


@pytest.fixture
def candidate(instrument, consent_texts):
    return validation_open(pairs=[("D1", "wisdom")])[0]


@pytest.fixture
def llm_model(db):
    return LLMModel.objects.create(slug="acme/model-1", name="Model 1", model_id="acme/model-1")


def decide(client, action: str, candidate: KeyCandidate):
    """The whole admin flow of a key action: the action, then its reason page submitted."""
    data = {"action": action, "_selected_action": [candidate.pk], "apply": "1", "reason": "looks right"}
    if action == "promote":
        data["override"] = "on"  # the candidate has N = 0: promoting it goes against the rule
    return client.post("/admin/virtuemap/keycandidate/", data)


EXPORTS = {
    "responses.csv": "virtuemap.view_validationresponse",
    "responses-codebook.md": "virtuemap.view_validationresponse",
    "keys.csv": "virtuemap.view_keycandidate",
    "keys-codebook.md": "virtuemap.view_keycandidate",
}


@pytest.mark.parametrize("export", EXPORTS)
def test_a_staff_user_without_the_view_permission_downloads_no_export(client, staff, candidate, export):
    staff()
    assert client.get(f"/admin/virtuemap/keycandidate/export/{export}").status_code == 403


@pytest.mark.parametrize("export, permission", EXPORTS.items())
def test_the_view_permission_opens_its_export(client, staff, candidate, export, permission):
    staff(permission)
    assert client.get(f"/admin/virtuemap/keycandidate/export/{export}").status_code == 200


def test_the_list_links_only_the_exports_its_reader_may_download(client, staff, candidate):
    staff("virtuemap.view_keycandidate")
    page = client.get("/admin/virtuemap/keycandidate/").content.decode()
    assert "export/keys.csv" in page and "export/responses.csv" not in page


@pytest.mark.parametrize("action", ["promote", "reject", "reopen", "keep"])
def test_a_staff_user_who_may_only_view_keys_cannot_act_on_them(client, staff, candidate, action):
    staff("virtuemap.view_keycandidate")
    assert f'value="{action}"' not in client.get("/admin/virtuemap/keycandidate/").content.decode()
    decisions = KeyDecision.objects.count()
    decide(client, action, candidate)
    assert KeyCandidate.objects.get(pk=candidate.pk).status == KeyCandidate.Status.OPEN
    assert KeyDecision.objects.count() == decisions


def test_the_change_permission_on_keys_lets_a_reviewer_promote(client, staff, candidate):
    reviewer = staff("virtuemap.view_keycandidate", "virtuemap.change_keycandidate")
    decide(client, "promote", candidate)
    assert KeyCandidate.objects.get(pk=candidate.pk).status == KeyCandidate.Status.RETAINED
    assert KeyDecision.objects.get(candidate=candidate, action="retained").decided_by == reviewer


def test_an_action_posted_past_the_list_is_refused_by_its_own_check(staff, candidate):
    user = staff("virtuemap.view_keycandidate")
    request = RequestFactory().post("/admin/virtuemap/keycandidate/", {"apply": "1", "reason": "x"})
    request.user = user
    with pytest.raises(PermissionDenied):
        KeyCandidateAdmin(KeyCandidate, admin.site).promote(request, KeyCandidate.objects.filter(pk=candidate.pk))
    assert KeyCandidate.objects.get(pk=candidate.pk).status == KeyCandidate.Status.OPEN


@pytest.mark.parametrize("slug", ["virtuemap", "transitivity"])
def test_a_staff_user_who_may_only_view_models_cannot_start_a_paid_run(
    client, staff, instrument, transitivity_instrument, llm_model, slug
):
    staff("llmruns.view_llmmodel", "llmruns.view_run")
    client.post("/admin/llmruns/llmmodel/", {"action": f"start_{slug}", "_selected_action": [llm_model.pk]})
    assert not Run.objects.exists()


@pytest.mark.parametrize("slug", ["virtuemap", "transitivity"])
@pytest.mark.parametrize("action", ["resume", "cancel", "publish"])
def test_a_staff_user_who_may_only_view_runs_cannot_resume_cancel_or_publish_them(
    client, staff, instrument, transitivity_instrument, llm_model, action, slug
):
    plan = {"blocks": ["1"]} if slug == "transitivity" else {}
    run = run_start(instrument=slug, model=llm_model, plan=plan, enqueue=False)
    Run.objects.filter(pk=run.pk).update(status=Run.Status.CANCELLED if action == "resume" else Run.Status.FINISHED)
    before = Run.objects.values().get(pk=run.pk)
    staff("llmruns.view_run")
    client.post("/admin/llmruns/run/", {"action": action, "_selected_action": [run.pk]})
    assert Run.objects.values().get(pk=run.pk) == before
    assert not Result.objects.exists()


def test_the_change_permission_on_runs_lets_a_researcher_cancel(client, staff, instrument, llm_model):
    run = run_start(instrument="virtuemap", model=llm_model, enqueue=False)
    staff("llmruns.view_run", "llmruns.change_run")
    client.post("/admin/llmruns/run/", {"action": "cancel", "_selected_action": [run.pk]})
    assert Run.objects.get(pk=run.pk).status == Run.Status.CANCELLED


def test_a_staff_user_who_may_only_view_results_cannot_rescore_them(client, staff, published_models):
    result = Result.objects.order_by("pk").first()
    before = Result.objects.values().get(pk=result.pk)
    staff("llmruns.view_result")
    client.post("/admin/llmruns/result/", {"action": "rescore", "_selected_action": [result.pk]})
    assert Result.objects.values().get(pk=result.pk) == before

"""Admin review of a key in a real browser: a researcher logs in, opens a candidate, promotes it with a reason,
and finds the decision with that reason in the audit trail."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from instruments.virtuemap.models import KeyCandidate, KeyDecision
from instruments.virtuemap.validation import validation_open

pytestmark = pytest.mark.django_db(transaction=True)

PASSWORD = "correct horse battery staple"


def test_a_researcher_promotes_a_key_candidate_with_a_reason_and_sees_it_in_the_audit_trail(
    page, instrument, researcher, screenshot
):
    (candidate,) = validation_open(pairs=[("D1", "wisdom")])
    page.goto("/admin/")
    page.get_by_label("Username").fill("researcher")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()

    page.goto("/admin/virtuemap/keycandidate/?status__exact=open")
    page.locator(f'#result_list tr:has(input[value="{candidate.pk}"]) th a').click()
    page.wait_for_url("**/change/**")
    assert page.locator(".field-top_corrections").count() == 1
    screenshot(page, "admin-key-candidate")

    page.go_back()
    page.locator(f'input[name="_selected_action"][value="{candidate.pk}"]').check()
    page.locator('select[name="action"]').select_option("promote")
    page.get_by_role("button", name="Run").click()
    expect(page.get_by_text("The reason is recorded")).to_be_visible()
    page.get_by_label("Reason").fill("Expert panel agreed in the May meeting")
    # N = 0: without the explicit override the rule stands and nothing is decided.
    page.get_by_role("button", name="Promote").click()
    expect(page.get_by_text("The promotion rule does not retain")).to_be_visible()
    assert not KeyDecision.objects.filter(candidate=candidate, action="retained").exists()

    page.locator(f'input[name="_selected_action"][value="{candidate.pk}"]').check()
    page.locator('select[name="action"]').select_option("promote")
    page.get_by_role("button", name="Run").click()
    page.get_by_label("Reason").fill("Expert panel agreed in the May meeting")
    page.get_by_label("Override the promotion rule").check()
    screenshot(page, "admin-key-promote")
    page.get_by_role("button", name="Promote").click()
    # expect waits for the redirect after the action; is_visible() would look before it arrives.
    expect(page.get_by_text("Promote: 1 candidate(s).")).to_be_visible()
    assert KeyDecision.objects.get(candidate=candidate, action="retained").override

    page.goto("/admin/virtuemap/keydecision/?action__exact=retained")
    row = page.locator("#result_list tbody tr").filter(has_text="Expert panel agreed in the May meeting")
    assert row.count() == 1 and "researcher" in row.inner_text()
    screenshot(page, "admin-audit-trail")
    candidate.refresh_from_db()
    assert candidate.status == KeyCandidate.Status.RETAINED
    assert KeyDecision.objects.get(candidate=candidate, action=KeyDecision.Action.RETAINED).decided_by == researcher

from __future__ import annotations

import csv
import io

import pytest
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME

from instruments.virtuemap.models import KeyCandidate, KeyDecision
from surveys.models import Respondent
from tests.instruments.virtuemap.conftest import evaluate_many

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/virtuemap/keycandidate/"


@pytest.fixture
def reviewer(client, researcher):
    client.force_login(researcher)
    return client


def act(client, action, candidate, **extra):
    return client.post(CHANGELIST, {"action": action, ACTION_CHECKBOX_NAME: [candidate.pk], **extra})


def test_the_list_shows_q_and_the_wilson_interval(reviewer, open_candidate, evaluate):
    evaluate_many(evaluate, open_candidate, 3, ["BCDAE"])
    page = reviewer.get(f"{CHANGELIST}?status__exact=open").content.decode()
    assert "0.750" in page and "0.301–0.954" in page


def test_the_detail_shows_the_top_corrections_and_the_rank_table(reviewer, open_candidate, evaluate):
    evaluate_many(evaluate, open_candidate, 1, ["BCDAE", "BCDAE", "ABCDE"])
    page = reviewer.get(f"{CHANGELIST}{open_candidate.pk}/change/").content.decode()
    assert "<td><code>BCDAE</code></td><td>2</td>" in page
    assert "<tr><th>C</th><td>1</td><td>2</td><td>1</td><td>0</td><td>0</td></tr>" in page


def test_an_action_asks_for_a_reason_before_doing_anything(reviewer, open_candidate):
    page = act(reviewer, "promote", open_candidate).content.decode()
    assert "reason is recorded" in page
    assert act(reviewer, "promote", open_candidate, apply="1", reason=" ").status_code == 200
    open_candidate.refresh_from_db()
    assert open_candidate.status == "open"


def test_promoting_against_the_rule_needs_an_explicit_override(reviewer, open_candidate):
    response = act(reviewer, "promote", open_candidate, apply="1", reason="expert panel agreed")
    assert "The promotion rule does not retain" in " ".join(m.message for m in response.wsgi_request._messages)
    open_candidate.refresh_from_db()
    assert open_candidate.status == "open" and not open_candidate.decisions.filter(action="retained").exists()


def test_promoting_records_who_when_and_why_and_marks_the_override(reviewer, open_candidate, researcher):
    act(reviewer, "promote", open_candidate, apply="1", reason="expert panel agreed", override="on")
    decision = open_candidate.decisions.get(action=KeyDecision.Action.RETAINED)
    assert (decision.decided_by, decision.reason, decision.automatic) == (researcher, "expert panel agreed", False)
    assert decision.override
    keys = reviewer.get(f"{CHANGELIST}export/keys.csv").content.decode().splitlines()
    header = keys[0].split(",")
    row = next(line.split(",") for line in keys[1:] if line.startswith(f"{open_candidate.pk},"))
    assert row[header.index("override")] == "1"
    published = next(line.split(",") for line in keys[1:] if ",D1,wisdom,0," in line)
    assert published[header.index("override")] == "0"
    assert KeyCandidate.objects.get(dilemma="D1", virtue="wisdom", round=0).status == "superseded"


def test_rejecting_and_reopening_keep_the_history(reviewer, open_candidate):
    act(reviewer, "reject", open_candidate, apply="1", reason="wording changed")
    act(reviewer, "reopen", open_candidate, apply="1", reason="wording restored")
    rounds = dict(KeyCandidate.objects.filter(dilemma="D1", virtue="wisdom").values_list("round", "status"))
    assert rounds == {0: "retained", 1: "rejected", 2: "open"}


def test_the_audit_trail_is_read_only(reviewer, open_candidate):
    decision = open_candidate.decisions.get()
    assert reviewer.post(f"/admin/virtuemap/keydecision/{decision.pk}/delete/").status_code == 403
    assert reviewer.get("/admin/virtuemap/keydecision/add/").status_code == 403


def test_an_outsider_cannot_reach_the_review(client, outsider, open_candidate):
    client.force_login(outsider)
    assert client.get(CHANGELIST).status_code == 302


def test_the_responses_export_is_anonymous_and_matches_its_codebook(reviewer, open_candidate, evaluate):
    evaluate(open_candidate, confirmed=False, ordering=list("BCDAE"))
    rows = list(csv.DictReader(io.StringIO(reviewer.get(f"{CHANGELIST}export/responses.csv").content.decode())))
    assert rows[0]["submitted_ordering"] == "BCDAE" and rows[0]["confirmed"] == "0"
    codebook = reviewer.get(f"{CHANGELIST}export/responses-codebook.md").content.decode()
    assert all(f"`{column}`" in codebook for column in rows[0])
    assert "panel" not in rows[0] and "token" not in ",".join(rows[0])


def test_the_key_statistics_export_has_every_candidate_with_its_interval(reviewer, open_candidate, evaluate):
    evaluate(open_candidate)
    rows = list(csv.DictReader(io.StringIO(reviewer.get(f"{CHANGELIST}export/keys.csv").content.decode())))
    assert len(rows) == 36
    opened = next(row for row in rows if row["status"] == "open")
    assert (opened["n"], opened["q"], opened["wilson_low"]) == ("1", "1.000000", "0.206549")
    assert "`wilson_low`" in reviewer.get(f"{CHANGELIST}export/keys-codebook.md").content.decode()


def test_the_respondent_list_has_no_personal_data_and_deleting_recounts(reviewer, open_candidate, evaluate):
    respondent = evaluate(open_candidate)
    page = reviewer.get("/admin/surveys/respondent/").content.decode()
    assert str(respondent.pk) in page and "panel_id_hash" not in page
    reviewer.post("/admin/surveys/respondent/", {"action": "withdraw", ACTION_CHECKBOX_NAME: [respondent.pk]})
    open_candidate.refresh_from_db()
    assert not Respondent.objects.exists() and open_candidate.n_evaluations == 0


def test_a_candidate_s_page_is_read_only_without_a_save_button(reviewer, open_candidate):
    page = reviewer.get(f"{CHANGELIST}{open_candidate.pk}/change/").content.decode()

    assert 'name="_save"' not in page and 'name="_continue"' not in page
    assert reviewer.post(f"{CHANGELIST}{open_candidate.pk}/change/", {}).status_code == 403


def test_the_list_names_each_candidate_in_one_short_cell_with_its_decision_time(reviewer, open_candidate, evaluate):
    evaluate_many(evaluate, open_candidate, 0, ["BCDAE", "ABCDE", "EDCBA", "DCBAE", "BACDE", "CBADE"])
    open_candidate.refresh_from_db()

    page = reviewer.get(CHANGELIST).content.decode()

    assert '<th class="field-candidate_display"><a href=' in page and "D1 × wisdom</a>" in page
    assert open_candidate.decided_at is not None
    assert f'<td class="field-decided_display"><time datetime="{open_candidate.decided_at.isoformat()}"' in page
    assert f">{open_candidate.decided_at:%Y-%m-%d}</time>" in page

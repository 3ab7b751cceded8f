"""People's pairwise answers in admin: a read-only list searchable by respondent, and their CSV export with its
codebook, through the same export pattern as the validation study's responses."""

from __future__ import annotations

import csv
import io

import pytest

pytestmark = pytest.mark.django_db

LIST = "/admin/transitivity/pairwiseanswer/"


@pytest.fixture
def answered(pairwise_respondent):
    """A respondent who answered the first three choices: situation 1, 2, 1, taking 1.5, 3 and 4.5 seconds."""
    respondent = pairwise_respondent(["1", "2", "1"], [1500, 3000, 4500])
    return respondent, respondent.questionnaire_session


def export_rows(client) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(client.get(f"{LIST}export/answers.csv").content.decode())))


def test_the_list_shows_each_choice_with_what_was_shown_and_chosen(admin_client, answered):
    respondent, session = answered
    first = session.sequence[0]

    page = admin_client.get(LIST).content.decode()

    assert page.count(str(respondent.pk)) >= 3
    assert f"{first['x']}, {first['y']}" in page
    assert "situation 2 (" in page


def test_the_list_is_searchable_by_respondent(admin_client, answered):
    respondent, _ = answered

    found = admin_client.get(LIST, {"q": str(respondent.pk)[:8]}).content.decode()
    missing = admin_client.get(LIST, {"q": "00000000"}).content.decode()

    assert "3 pairwise answers" in found and "0 pairwise answers" in missing


def test_an_answer_cannot_be_changed_or_deleted_in_admin(admin_client, answered):
    _, session = answered
    answer = session.answers.get(position=1)

    page = admin_client.get(f"{LIST}{answer.pk}/change/").content.decode()

    assert 'name="_save"' not in page
    assert admin_client.post(f"{LIST}{answer.pk}/change/", {}).status_code == 403
    assert admin_client.post(f"{LIST}{answer.pk}/delete/", {"post": "yes"}).status_code == 403


def test_the_export_has_one_row_per_choice_in_the_codebook_s_columns(admin_client, answered):
    respondent, session = answered

    rows = export_rows(admin_client)
    codebook = admin_client.get(f"{LIST}export/answers-codebook.md").content.decode()

    assert [row["situation"] for row in rows] == ["1", "2", "1"]
    assert all(f"`{column}`" in codebook for column in rows[0])
    first, item = rows[0], session.sequence[0]
    assert (first["respondent"], first["block"], first["x"], first["y"]) == (
        str(respondent.pk),
        "3",
        item["x"],
        item["y"],
    )
    assert first["time_on_item_ms"] == "1500" and first["completed"] == "0"


def test_the_export_says_which_principle_was_judged_worse_in_both_orders(admin_client, answered):
    for row in export_rows(admin_client):
        shown = row[f"situation_{row['situation']}"]
        assert row["chosen"] == shown
        assert row["x_worse"] == str(int(shown == row["x"]))
        expected_first = row["x"] if row["order"] == "original" else row["y"]
        assert row["situation_1"] == expected_first


def test_the_export_needs_the_view_permission(client, django_user_model, answered):
    staff = django_user_model.objects.create_user("staff", password="pw", is_staff=True)
    client.force_login(staff)

    assert client.get(f"{LIST}export/answers.csv").status_code == 403
    assert client.get(f"{LIST}export/answers-codebook.md").status_code == 403


def test_the_list_links_the_export_and_its_codebook(admin_client, answered):
    page = admin_client.get(LIST).content.decode()

    assert f'href="{LIST}export/answers.csv"' in page
    assert f'href="{LIST}export/answers-codebook.md"' in page

"""VirtueMap's parts of the respondents' admin, given through the instrument contract: a validation respondent's
verdicts on their page (read-only), and the confirmation column, computed in the list's one query."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

pytestmark = pytest.mark.django_db

LIST = "/admin/surveys/respondent/"


def test_a_validation_respondent_s_page_shows_their_verdicts_read_only(admin_client, open_candidate, evaluate):
    respondent = evaluate(open_candidate, confirmed=False, ordering=list("BCDAE"))

    page = admin_client.get(f"{LIST}{respondent.pk}/change/").content.decode()

    assert "Validation responses" in page or "validation responses" in page
    assert "BCDAE" in page
    assert 'name="validation_responses-0-ordering"' not in page  # shown, not editable


def test_the_respondent_list_costs_no_query_per_respondent(admin_client, open_candidate, evaluate):
    evaluate(open_candidate)
    with CaptureQueriesContext(connection) as one:
        admin_client.get(LIST)
    for _ in range(4):
        evaluate(open_candidate)
    with CaptureQueriesContext(connection) as five:
        admin_client.get(LIST)

    assert len(five) == len(one)


def test_a_validation_respondent_s_page_shows_no_profiling_table(admin_client, open_candidate, evaluate):
    respondent = evaluate(open_candidate)

    page = admin_client.get(f"{LIST}{respondent.pk}/change/").content.decode()

    assert "validation_responses-TOTAL_FORMS" in page and "profiling_submission-TOTAL_FORMS" not in page

"""The respondents admin shows each validation respondent's confirmation share beside the study's (straight-lining)."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.django_db


def test_each_respondent_s_confirmations_are_shown_beside_the_study_s_share(open_candidate, evaluate, admin_client):
    for _ in range(3):
        evaluate(open_candidate)
    evaluate(open_candidate, confirmed=False, ordering=list("BCDAE"))

    page = admin_client.get("/admin/surveys/respondent/").content.decode()

    # Three respondents confirmed their one ordering, one corrected it: the study confirmed 75 %.
    assert len(re.findall(r"1 of 1 \(100 %\); study 75 %; p = 0\.75", page)) == 3
    assert len(re.findall(r"0 of 1 \(0 %\); study 75 %; p = 1", page)) == 1


def test_a_respondent_without_validation_answers_has_no_share(respondent, admin_client):
    page = admin_client.get("/admin/surveys/respondent/").content.decode()

    assert 'class="field-confirmed_share">—<' in page

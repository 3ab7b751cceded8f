"""VirtueMap's part of the study dashboard: the open key candidates nearest a decision, with their evidence."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.django_db

DASHBOARD = "/admin/surveys/respondent/dashboard/"


def test_validation_candidates_near_a_decision_show_their_evidence(admin_client, open_candidate, evaluate):
    for _ in range(3):
        evaluate(open_candidate)
    evaluate(open_candidate, confirmed=False, ordering=list("BCDAE"))

    page = admin_client.get(DASHBOARD).content.decode()

    # N = 4, Y = 3: five more disconfirmations would reject it (D_max = 5 with the defaults, one used).
    row = re.search(
        r"<tr><td>5</td><td>D1 × wisdom</td><td>1</td><td>CBDAE</td><td>4</td><td>3</td>"
        r"<td>0\.750</td><td>(0\.\d{3})–(0\.\d{3})</td></tr>",
        page,
    )
    assert row, "the candidate's row with N, Y, q and its Wilson interval"
    assert float(row.group(1)) < 0.75 < float(row.group(2))


def test_decided_candidates_are_not_listed_as_near_a_decision(admin_client, open_candidate, evaluate):
    for ordering in ["BCDAE", "ABCDE", "EDCBA", "DCBAE", "BACDE", "CBADE"]:
        evaluate(open_candidate, confirmed=False, ordering=list(ordering))

    page = admin_client.get(DASHBOARD).content.decode()

    assert "<td>D1 × wisdom</td><td>1</td>" not in page

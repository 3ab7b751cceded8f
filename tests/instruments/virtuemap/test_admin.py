from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def test_a_researcher_sees_the_retained_keys_in_admin(admin_client, instrument):
    response = admin_client.get("/admin/virtuemap/keycandidate/?status__exact=retained")
    assert response.status_code == 200
    assert "35 key candidates" in response.content.decode()


def test_a_researcher_can_open_a_dilemma_with_its_options(admin_client, instrument):
    page = admin_client.get("/admin/virtuemap/dilemma/D1/change/").content.decode()
    assert "The Spreadsheet Error" in page
    assert "Leave the report unchanged" in page

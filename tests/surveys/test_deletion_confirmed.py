"""Every irreversible deletion asks once: withdrawing with a participant reference and "start again and delete"
show a page of their own (no script needed) that says what goes, and delete only when its button is pressed."""

from __future__ import annotations

import pytest
from django.test import Client

from instruments.virtuemap.models import ProfilingSubmission
from surveys.models import Respondent
from tests.instruments.virtuemap.test_profile_questionnaire import answer_as_seen
from tests.surveys.test_reference_pages import footer_reference

pytestmark = pytest.mark.django_db


@pytest.fixture
def profiled(client, instrument, consent_texts):
    client.post("/profile/", {"accept": "1", "agree": "on"})
    answer_as_seen(client, "D1", "CBADE")
    return client


def test_a_reference_alone_deletes_nothing_and_asks_with_the_studys_name(profiled):
    reference = footer_reference(profiled.get("/profile/results/").content.decode())

    page = Client().post("/withdraw/", {"reference": reference}).content.decode()

    assert "Delete your answers?" in page and "Profiling questionnaire" in page
    assert f'name="reference" value="{reference}"' in page and 'name="confirm" value="1"' in page
    assert ProfilingSubmission.objects.exists()


def test_the_confirmation_deletes(profiled):
    reference = footer_reference(profiled.get("/profile/results/").content.decode())

    page = Client().post("/withdraw/", {"reference": reference, "confirm": "1"}).content.decode()

    assert "Deleted 2 records" in page and not Respondent.objects.exists()


def test_the_confirmation_page_is_in_chinese_too(profiled):
    reference = footer_reference(profiled.get("/profile/results/").content.decode())

    page = Client().post("/withdraw/?lang=zh-hans", {"reference": reference}).content.decode()

    assert "删除你的回答？" in page and "是的，删除我的回答" in page and "不，保留我的回答" in page


def test_start_again_and_delete_asks_first_and_deletes_nothing(profiled):
    page = profiled.post("/profile/results/", {"start_again": "withdraw"}).content.decode()

    assert "data-confirm-deletion" in page and 'name="confirm" value="1"' in page
    assert ProfilingSubmission.objects.exists() and "profiling_respondent" in profiled.session


def test_start_again_and_delete_deletes_once_confirmed(profiled):
    page = profiled.post("/profile/results/", {"start_again": "withdraw", "confirm": "1"}).content.decode()

    assert "Deleted 2 records" in page and not ProfilingSubmission.objects.exists()

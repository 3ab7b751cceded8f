"""Lab mode: a lab or classroom behind one address gets its own allowance (STUDY_LAB_NETWORKS) instead of the
per-client rate limits, which would refuse its 31st consent of the hour; everyone else keeps the ordinary limits."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from django.conf import settings as django_settings
from django.test import RequestFactory

from instruments.virtuemap.validation import validation_open
from surveys.models import Respondent
from surveys.references import reference_new
from virtuemap_site.abuse import client_rate, is_lab_client

LAB = "192.0.2.77"
ELSEWHERE = "198.51.100.4"


@pytest.fixture
def study(instrument, consent_texts, settings):
    settings.STUDY_ATTENTION_CHECKS = 0
    settings.STUDY_CONSENT_RATE = "30/hour"
    settings.STUDY_LAB_NETWORKS = ["192.0.2.0/24", "2001:db8::/48"]
    settings.STUDY_LAB_CONSENT_RATE = "300/hour"
    return validation_open(pairs=[("D1", "wisdom")])[0]


def _consent_in_a_new_browser(client, address: str):
    client.cookies.clear()
    return client.post("/study/consent/", {"agree": "on", "accept": "1"}, REMOTE_ADDR=address)


def test_a_lab_behind_one_address_gets_past_the_31st_consent_of_the_hour(client, study):
    statuses = [_consent_in_a_new_browser(client, LAB).status_code for _ in range(40)]
    assert statuses == [302] * 40
    assert Respondent.objects.count() == 40


def test_the_same_forty_consents_from_an_ordinary_address_stop_at_thirty(client, study):
    statuses = [_consent_in_a_new_browser(client, ELSEWHERE).status_code for _ in range(31)]
    assert statuses == [302] * 30 + [429]
    assert Respondent.objects.count() == 30


def test_the_lab_allowance_is_a_limit_too(client, study, settings):
    settings.STUDY_LAB_CONSENT_RATE = "3/hour"
    statuses = [_consent_in_a_new_browser(client, LAB).status_code for _ in range(4)]
    assert statuses == [302, 302, 302, 429]
    assert _consent_in_a_new_browser(client, ELSEWHERE).status_code == 302  # counted apart from the lab


def test_the_lab_allowance_covers_the_study_api(api_client, study, settings):
    settings.STUDY_CONSENT_RATE = "1/hour"
    body = {"consent_version": "1", "accept": True}
    for _ in range(3):
        assert api_client.post("/api/v1/study/consent/", body, format="json", REMOTE_ADDR=LAB).status_code == 201
    assert api_client.post("/api/v1/study/consent/", body, format="json").status_code == 201
    assert api_client.post("/api/v1/study/consent/", body, format="json").status_code == 429


@pytest.mark.parametrize("path", ["/withdraw/", "/resume/"])
def test_withdrawing_and_resuming_from_a_lab_address_work(client, study, path):
    response = client.post(path, {"reference": reference_new()}, REMOTE_ADDR=LAB)
    assert response.status_code == 400
    assert "No participant holds this reference" in response.content.decode()


def test_a_lab_has_its_own_allowance_of_reference_tries(client, study, settings):
    settings.STUDY_REFERENCE_RATE = "1/hour"
    settings.STUDY_LAB_REFERENCE_RATE = "2/hour"
    statuses = [
        client.post("/withdraw/", {"reference": reference_new()}, REMOTE_ADDR=LAB).status_code for _ in range(3)
    ]
    assert statuses == [400, 400, 429]
    assert client.post("/resume/", {"reference": reference_new()}, REMOTE_ADDR=ELSEWHERE).status_code == 400


@pytest.mark.parametrize(
    ("address", "lab"),
    [(LAB, True), ("192.0.3.1", False), ("2001:db8::1", True), ("2001:db9::1", False), ("not an address", False)],
)
def test_a_client_is_a_lab_only_inside_a_lab_network(settings, address, lab):
    settings.STUDY_LAB_NETWORKS = ["192.0.2.0/24", "2001:db8::/48"]
    request = RequestFactory().post("/study/consent/", REMOTE_ADDR=address)
    assert is_lab_client(request) is lab
    scope, rate = client_rate(request, scope="submit", rate_setting="STUDY_SUBMIT_RATE")
    assert (scope, rate) == (("submit:lab", settings.STUDY_LAB_SUBMIT_RATE) if lab else ("submit", "60/minute"))


def test_without_lab_networks_nobody_is_a_lab(settings):
    settings.STUDY_LAB_NETWORKS = []
    assert not is_lab_client(RequestFactory().post("/", REMOTE_ADDR=LAB))


def test_a_lab_network_that_is_not_a_network_stops_the_site_from_starting():
    environment = {**os.environ, "STUDY_LAB_NETWORKS": "192.0.2.0/24,the lab"}
    result = subprocess.run(
        [sys.executable, "-c", "import virtuemap_site.settings"],
        cwd=django_settings.BASE_DIR,
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode != 0
    assert "STUDY_LAB_NETWORKS: 'the lab' is not a network" in result.stderr

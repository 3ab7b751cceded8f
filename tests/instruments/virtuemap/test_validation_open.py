from __future__ import annotations

import pytest
from django.core.management import call_command

from instruments.virtuemap.models import KeyCandidate, KeyDecision
from instruments.virtuemap.validation import validation_open

pytestmark = pytest.mark.django_db


def test_opening_the_study_creates_round_one_for_all_thirty_five_pairs(instrument):
    created = validation_open()
    assert len(created) == 35
    assert {(c.round, c.status, c.provenance) for c in created} == {(1, "open", "proposed")}


def test_round_one_starts_from_the_proposed_orderings_of_the_fixture(instrument):
    candidate = validation_open(pairs=[("D1", "temperance")])[0]
    assert candidate.ordering == "CBDEA"


def test_opening_again_leaves_pairs_with_an_open_round_alone(instrument):
    validation_open(pairs=[("D1", "wisdom")])
    assert validation_open(pairs=[("D1", "wisdom"), ("D2", "wisdom")])[0].dilemma_id == "D2"
    assert KeyCandidate.objects.filter(status="open").count() == 2


def test_the_published_key_stays_retained_while_round_one_is_open(instrument):
    validation_open(pairs=[("D1", "wisdom")])
    statuses = dict(KeyCandidate.objects.filter(dilemma="D1", virtue="wisdom").values_list("round", "status"))
    assert statuses == {0: "retained", 1: "open"}


def test_opening_is_recorded_in_the_audit_trail(instrument):
    candidate = validation_open(pairs=[("D1", "wisdom")])[0]
    assert candidate.decisions.get().action == KeyDecision.Action.OPENED


def test_the_command_opens_a_subset(instrument):
    call_command("open_validation", "--pair", "D3:courage", "--pair", "D4:justice", verbosity=0)
    assert set(KeyCandidate.objects.filter(status="open").values_list("dilemma", "virtue")) == {
        ("D3", "courage"),
        ("D4", "justice"),
    }

from __future__ import annotations

import json

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command

from instruments.transitivity.models import Block, Principle, TransitivityInstrument, Vignette
from instruments.transitivity.services import TRANSITIVITY_FIXTURE, transitivity_instrument_load


def test_it_loads_seven_principles_six_blocks_and_forty_two_vignettes(transitivity_instrument):
    assert list(Principle.objects.values_list("code", flat=True)) == ["A", "Ce", "Cp", "F", "Li", "Lo", "S"]
    assert list(Principle.objects.values_list("index", flat=True)) == list(range(7))
    assert Block.objects.count() == 6
    assert Vignette.objects.count() == 42
    block_principles = Vignette.objects.filter(block=1).values_list("principle", flat=True)
    assert sorted(block_principles) == ["A", "Ce", "Cp", "F", "Li", "Lo", "S"]


def test_it_keeps_the_ratings_and_the_prompt(transitivity_instrument):
    assert Vignette.objects.get(block=1, principle="F").rating == 3.7
    template = TransitivityInstrument.objects.get().prompt_template
    assert "{vignette_1}" in template and "{vignette_2}" in template


def test_a_rerun_changes_nothing(transitivity_instrument, capsys):
    call_command("load_transitivity")
    assert "nothing changed" in capsys.readouterr().out


def test_it_updates_a_changed_rating_only(transitivity_instrument):
    data = json.loads(TRANSITIVITY_FIXTURE.read_text(encoding="utf-8"))
    data["blocks"][0]["vignettes"][0]["rating"] = 4.2
    report = transitivity_instrument_load(data=data)
    assert report.updated == {"Vignette": 1} and not report.created


def test_it_refuses_a_block_without_one_vignette_per_principle(db):
    data = json.loads(TRANSITIVITY_FIXTURE.read_text(encoding="utf-8"))
    data["blocks"][2]["vignettes"].pop()
    with pytest.raises(ValidationError, match="block 3"):
        transitivity_instrument_load(data=data)
    assert not Vignette.objects.exists()

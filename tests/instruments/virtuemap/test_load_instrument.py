from __future__ import annotations

import json

import pytest
from django.core.management import call_command

from instruments.virtuemap.models import Dilemma, KeyCandidate, Option, Virtue, VirtueMapInstrument
from instruments.virtuemap.services import INSTRUMENT_FIXTURE, instrument_load

pytestmark = pytest.mark.django_db


def load_fixture() -> dict:
    return json.loads(INSTRUMENT_FIXTURE.read_text(encoding="utf-8"))


def snapshot() -> list:
    return [
        list(model.objects.order_by("pk").values())
        for model in (VirtueMapInstrument, Virtue, Dilemma, Option, KeyCandidate)
    ]


def test_it_loads_five_virtues_seven_dilemmas_and_thirty_five_options(instrument):
    assert list(Virtue.objects.values_list("id", flat=True)) == [
        "wisdom",
        "justice",
        "truthfulness",
        "courage",
        "temperance",
    ]
    assert list(Dilemma.objects.values_list("id", flat=True)) == [f"D{i}" for i in range(1, 8)]
    assert Option.objects.count() == 35
    assert Option.objects.get(dilemma_id="D3", letter="E").text == "Remain silent until the problem becomes undeniable."


def test_it_retains_the_published_key_for_all_35_dilemma_virtue_pairs(instrument):
    retained = KeyCandidate.objects.filter(status=KeyCandidate.Status.RETAINED)
    assert retained.count() == 35
    assert set(retained.values_list("provenance", flat=True)) == {"published"}
    assert retained.get(dilemma_id="D5", virtue_id="temperance").ordering == "EBCAD"


def test_it_keeps_the_source_note_and_prompt_template(instrument):
    row = VirtueMapInstrument.objects.get(slug="virtuemap")
    assert "VirtueMap" in row.source
    assert "{scenario}" in row.llm_prompt_template


def test_running_it_twice_changes_nothing(instrument):
    before = snapshot()
    report = instrument_load(data=load_fixture())
    assert not report.changed
    assert snapshot() == before


def test_the_command_reports_nothing_changed_on_a_rerun(instrument, capsys):
    call_command("load_instrument")
    assert "nothing changed" in capsys.readouterr().out


def test_a_rerun_repairs_edited_text_without_touching_keys(instrument):
    Virtue.objects.filter(id="courage").update(name="Bravery")
    keys_before = list(KeyCandidate.objects.order_by("pk").values())
    report = instrument_load(data=load_fixture())
    assert report.updated == {"Virtue": 1}
    assert Virtue.objects.get(id="courage").name == "Courage"
    assert list(KeyCandidate.objects.order_by("pk").values()) == keys_before


def test_a_rerun_does_not_reinstate_a_superseded_published_key(instrument):
    published = KeyCandidate.objects.get(dilemma_id="D1", virtue_id="wisdom")
    published.status = KeyCandidate.Status.SUPERSEDED
    published.save()
    KeyCandidate.objects.create(
        dilemma_id="D1",
        virtue_id="wisdom",
        ordering="BCDAE",
        round=1,
        provenance=KeyCandidate.Provenance.PROPOSED,
        status=KeyCandidate.Status.RETAINED,
    )
    instrument_load(data=load_fixture())
    published.refresh_from_db()
    assert published.status == KeyCandidate.Status.SUPERSEDED


def test_an_invalid_published_ordering_is_rejected_and_nothing_is_written(db):
    data = load_fixture()
    data["published_key"]["D7"]["justice"] = ["A", "B", "C", "D", "D"]
    with pytest.raises(ValueError, match="more than once"):
        instrument_load(data=data)
    assert Virtue.objects.count() == 0
    assert KeyCandidate.objects.count() == 0

"""`load_instrument` loads every registered instrument's item bank (or the ones named) and the studies' first consent
texts; a wrong name or file is a clear error that loads nothing."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command

from instruments import registry
from instruments.transitivity.models import Vignette
from instruments.virtuemap.models import Dilemma, KeyCandidate
from surveys.models import ConsentText

pytestmark = pytest.mark.django_db


def _load(*args: str) -> str:
    out = io.StringIO()
    call_command("load_instrument", *args, stdout=out)
    return out.getvalue()


def test_without_a_name_it_loads_every_registered_instrument_and_the_consent_texts():
    output = _load()

    assert Dilemma.objects.count() == 7 and KeyCandidate.objects.count() == 35 and Vignette.objects.count() == 42
    studies = set(registry.studies())
    assert {"validation", "profiling", "transitivity"} <= studies
    assert set(ConsentText.objects.values_list("study", flat=True)) == studies
    assert "VirtueMap loaded." in output and "Transitivity test loaded." in output
    # One text per study in English and one in Chinese.
    assert output.count("Installed") == 2 * len(studies)
    assert set(ConsentText.objects.values_list("language", flat=True)) == {"en", "zh-hans"}
    assert _load().count("already up to date, nothing changed.") == len(registry.slugs())


def test_a_named_instrument_is_loaded_alone():
    _load("transitivity")

    assert Vignette.objects.count() == 42 and not Dilemma.objects.exists()


def test_an_unknown_instrument_or_a_file_for_two_is_refused_and_loads_nothing(tmp_path):
    with pytest.raises(CommandError, match="no instrument 'moral'"):
        _load("moral")
    with pytest.raises(CommandError, match="exactly one"):
        _load("virtuemap", "transitivity", "--file", str(tmp_path / "x.json"))
    broken = tmp_path / "broken.json"
    broken.write_text("{}", encoding="utf-8")
    with pytest.raises(CommandError, match="transitivity"):
        _load("transitivity", "--file", str(broken))
    assert not Dilemma.objects.exists() and not Vignette.objects.exists()

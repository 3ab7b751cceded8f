from __future__ import annotations

import pytest
from django.core.management import call_command

from llmruns.models import LLMModel, Result

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("instrument")]


def test_the_command_publishes_the_three_reference_profiles(capsys):
    call_command("load_reference_profiles")
    assert Result.objects.filter(instrument="virtuemap", source="import").count() == 3
    assert Result.objects.get(model__slug="anthropic/claude-sonnet-4.6").summary["runs"] == 3
    assert "3 reference profile(s) published" in capsys.readouterr().out


def test_running_it_again_changes_nothing(capsys):
    call_command("load_reference_profiles")
    published = Result.objects.get(model__slug="openai/gpt-5").published_at
    call_command("load_reference_profiles")
    assert "0 reference profile(s)" in capsys.readouterr().out
    assert Result.objects.get(model__slug="openai/gpt-5").published_at == published


def test_a_profile_entered_in_admin_is_kept():
    model = LLMModel.objects.create(slug="openai/gpt-5", name="GPT-5 (ours)", model_id="openai/gpt-5")
    Result.objects.create(
        model=model,
        instrument="virtuemap",
        source="admin",
        summary={"runs": 3, "profile_stats": {"wisdom": {"mean": 50.0}}},
    )
    call_command("load_reference_profiles")
    assert Result.objects.get(model=model).source == "admin"

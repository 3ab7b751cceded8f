from __future__ import annotations

from django.contrib import admin

from instruments.amaeval.models import Derivation, Evaluation, Scenario


@admin.register(Scenario)
class ScenarioAdmin(admin.ModelAdmin):
    list_display = ["index", "text"]


@admin.register(Derivation)
class DerivationAdmin(admin.ModelAdmin):
    list_display = ["scenario", "value", "precept", "score", "additional_score"]
    list_filter = ["value"]


@admin.register(Evaluation)
class EvaluationAdmin(admin.ModelAdmin):
    list_display = ["scenario", "action", "value", "kind", "score"]
    list_filter = ["value", "kind"]

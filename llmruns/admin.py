from __future__ import annotations

from django.contrib import admin

from llmruns.forms import model_profile_form_class
from llmruns.models import LLMModel, ModelProfile


@admin.register(LLMModel)
class LLMModelAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "provider", "model_id", "temperature", "concurrency"]
    list_filter = ["provider", "family"]
    search_fields = ["name", "slug", "model_id"]


@admin.register(ModelProfile)
class ModelProfileAdmin(admin.ModelAdmin):
    """Enter or correct a published profile by hand: one mean (optional std and CI half-width) per virtue.

    Saving here marks the profile as entered in admin; the gallery and the API show it at once.
    """

    list_display = ["model", "source", "runs", "consistency", "max_ci_half_width", "published_at"]
    list_filter = ["source"]
    list_select_related = ["model"]
    readonly_fields = ["source", "max_ci_half_width", "published_at"]

    def get_form(self, request, obj=None, change=False, **kwargs):
        # Built per request: the virtue fields follow the Virtue table.
        kwargs["form"] = model_profile_form_class()
        return super().get_form(request, obj, change=change, **kwargs)

    def get_fieldsets(self, request, obj=None):
        form = model_profile_form_class()
        scores = [(f"mean_{v}", f"std_{v}", f"ci_half_width_{v}") for v in form.virtue_ids]
        return [
            (None, {"fields": ["model", "runs", "source"]}),
            (
                "Virtue scores (0–100)",
                {"fields": scores, "description": "The mean over valid full runs; std and half-width if known."},
            ),
            ("Consistency and failures", {"fields": ["consistency", "invalid_count", "max_ci_half_width"]}),
        ]

"""Admin of VirtueMap's model side: entering or correcting a published profile by hand."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from instruments.virtuemap.forms import model_profile_form_class
from instruments.virtuemap.models import VirtueMapProfile
from instruments.virtuemap.plugin import VirtueMap


@admin.register(VirtueMapProfile)
class VirtueMapProfileAdmin(admin.ModelAdmin):
    """Enter or correct a published profile by hand: one mean (optional std and CI half-width) per virtue.

    Saving here marks the profile as entered in admin; the gallery and the API show it at once.
    """

    list_display = ["model", "source", "runs", "consistency", "max_ci_half_width", "published_at"]
    list_filter = ["source"]
    list_select_related = ["model"]
    readonly_fields = ["source", "published_at"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[VirtueMapProfile]:
        return super().get_queryset(request).filter(instrument=VirtueMap.identity.slug)

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
            ("Consistency and failures", {"fields": ["consistency", "invalid_count"]}),
        ]

    @admin.display(description="runs")
    def runs(self, profile: VirtueMapProfile) -> int | None:
        return profile.summary.get("runs")

    @admin.display(description="consistency")
    def consistency(self, profile: VirtueMapProfile) -> str:
        value = profile.summary.get("consistency")
        return "—" if value is None else f"{value:.1f}"

    @admin.display(description="max CI ±")
    def max_ci_half_width(self, profile: VirtueMapProfile) -> str:
        value = profile.summary.get("max_ci_half_width")
        return "—" if value is None else f"{value:.2f}"

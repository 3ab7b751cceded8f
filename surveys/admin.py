from __future__ import annotations

from django.contrib import admin

from surveys.models import ConsentText, Dilemma, Instrument, KeyCandidate, Option, ProfilingSubmission, Virtue


@admin.register(Instrument)
class InstrumentAdmin(admin.ModelAdmin):
    list_display = ["slug", "version", "source"]


@admin.register(Virtue)
class VirtueAdmin(admin.ModelAdmin):
    list_display = ["name", "greek_name", "short_definition", "position"]


class OptionInline(admin.TabularInline):
    model = Option
    extra = 0
    max_num = 5
    can_delete = False


@admin.register(Dilemma)
class DilemmaAdmin(admin.ModelAdmin):
    list_display = ["id", "title", "position"]
    inlines = [OptionInline]


@admin.register(KeyCandidate)
class KeyCandidateAdmin(admin.ModelAdmin):
    list_display = [
        "dilemma",
        "virtue",
        "round",
        "ordering",
        "status",
        "provenance",
        "n_evaluations",
        "n_confirmations",
        "confirmation_rate_display",
        "decided_at",
    ]
    list_filter = ["status", "provenance", "dilemma", "virtue"]
    list_select_related = ["dilemma", "virtue"]
    readonly_fields = ["n_evaluations", "n_confirmations", "created_at", "updated_at", "decided_at"]

    @admin.display(description="q")
    def confirmation_rate_display(self, candidate: KeyCandidate) -> str:
        rate = candidate.confirmation_rate
        return "—" if rate is None else f"{rate:.3f}"


@admin.register(ConsentText)
class ConsentTextAdmin(admin.ModelAdmin):
    list_display = ["study", "version", "title", "is_current", "created_at", "text_hash"]
    list_filter = ["study", "is_current"]
    readonly_fields = ["text_hash", "created_at"]

    def get_readonly_fields(self, request, obj=None):
        # Respondents consented to these exact words: new wording must be a new version.
        if obj is not None and obj.respondents.exists():
            return ["study", "version", "title", "information_sheet", "consent_statement", *self.readonly_fields]
        return self.readonly_fields


@admin.register(ProfilingSubmission)
class ProfilingSubmissionAdmin(admin.ModelAdmin):
    """Read-only: the answers are the respondent's; only withdrawal (deleting the respondent) changes them."""

    list_display = ["respondent", "answered_count", "created_at", "updated_at"]
    readonly_fields = ["respondent", "rankings", "scores", "keys_used", "created_at", "updated_at"]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

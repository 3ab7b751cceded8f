from __future__ import annotations

import json

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.html import format_html

from transitivity import selectors
from transitivity.models import Block, ChoiceItem, ChoiceRun, Principle, TransitivityInstrument, Vignette
from transitivity.services import choice_run_cancel, choice_run_resume
from virtuemap_site.admin_mixins import AuditTrailAdminMixin, PermissionActionsMixin, admin_action

CHANGE_RUNS = "transitivity.change_choicerun"


@admin.register(TransitivityInstrument)
class TransitivityInstrumentAdmin(admin.ModelAdmin):
    list_display = ["slug", "version", "source"]


@admin.register(Principle)
class PrincipleAdmin(admin.ModelAdmin):
    list_display = ["code", "name", "definition", "index"]


class VignetteInline(admin.TabularInline):
    model = Vignette
    extra = 0
    max_num = 7
    can_delete = False
    fields = ["position", "principle", "text", "rating"]


@admin.register(Block)
class BlockAdmin(admin.ModelAdmin):
    list_display = ["number", "severity_rank"]
    inlines = [VignetteInline]


@admin.register(ChoiceRun)
class ChoiceRunAdmin(PermissionActionsMixin, admin.ModelAdmin):
    """Runs start from `manage.py run_transitivity`; here staff watch progress, resume and cancel."""

    list_display = ["id", "model", "method", "status", "progress_display", "items_missing", "items_error", "created_at"]
    list_filter = ["status", "method", "model"]
    list_select_related = ["model"]
    actions = ["resume", "cancel"]
    readonly_fields = [field.name for field in ChoiceRun._meta.fields]

    def get_queryset(self, request: HttpRequest) -> QuerySet[ChoiceRun]:
        return selectors.choice_run_list()

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.display(description="stored / prompts")
    def progress_display(self, run: ChoiceRun) -> str:
        return f"{run.items_done} / {run.items_total}"

    @admin_action(permission=CHANGE_RUNS, description="Resume (from the stored items)")
    def resume(self, request: HttpRequest, queryset: QuerySet[ChoiceRun]) -> None:
        for run in queryset:
            if choice_run_resume(run=run):
                self.message_user(request, f"Run {run.pk} queued again.")
            else:
                self.message_user(request, f"Run {run.pk} has finished; nothing to resume.", messages.WARNING)

    @admin_action(permission=CHANGE_RUNS, description="Cancel")
    def cancel(self, request: HttpRequest, queryset: QuerySet[ChoiceRun]) -> None:
        for run in queryset:
            if choice_run_cancel(run=run):
                self.message_user(request, f"Run {run.pk} cancelled.")
            else:
                self.message_user(request, f"Run {run.pk} had already ended.", messages.WARNING)


@admin.register(ChoiceItem)
class ChoiceItemAdmin(AuditTrailAdminMixin, admin.ModelAdmin):
    """Read-only: the stored choices are results, with the raw response verbatim."""

    list_display = ["id", "run", "block", "principle_x", "principle_y", "order", "status", "probability", "missing"]
    list_filter = ["status", "missing", "order", "method", "run"]
    list_select_related = ["run__model"]
    exclude = ["claim_token", "raw_response"]
    readonly_fields = [
        "run",
        "block",
        "principle_x",
        "principle_y",
        "order",
        "situation_1",
        "situation_2",
        "status",
        "method",
        "probability",
        "label_1_mass",
        "label_2_mass",
        "retained_mass",
        "samples",
        "sample_counts",
        "top_logprobs",
        "missing",
        "missing_reason",
        "request_messages",
        "raw_display",
        "attempts",
        "attempt_count",
        "last_error",
        "claimed_at",
        "completed_at",
    ]

    @admin.display(description="raw response (verbatim)")
    def raw_display(self, item: ChoiceItem) -> str:
        if item.raw_response is None:
            return "—"
        return format_html('<pre style="white-space: pre-wrap">{}</pre>', json.dumps(item.raw_response, indent=1))

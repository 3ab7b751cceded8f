"""Admin of the transitivity instrument: its vignettes, and people's pairwise answers (read-only, with their export)."""

from __future__ import annotations

from django.contrib import admin

from instruments.transitivity.exports import PAIRWISE_ANSWERS
from instruments.transitivity.models import Block, PairwiseAnswer, Principle, TransitivityInstrument, Vignette
from instruments.transitivity.questionnaire import shown_first_and_second
from virtuemap_site.admin_mixins import AuditTrailAdminMixin, ExportsAdminMixin


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


@admin.register(PairwiseAnswer)
class PairwiseAnswerAdmin(AuditTrailAdminMixin, ExportsAdminMixin, admin.ModelAdmin):
    """People's choices as they gave them; a respondent's answers go only with the respondent (withdrawal)."""

    list_display = [
        "respondent",
        "position",
        "block",
        "pair",
        "order",
        "shown",
        "chosen",
        "time_on_item_ms",
        "answered_at",
    ]
    list_select_related = ["session"]
    search_fields = ["session__respondent__id"]
    search_help_text = "A respondent's id (or its beginning)."
    list_filter = ["answered_at", ("session__completed_at", admin.EmptyFieldListFilter)]
    date_hierarchy = "answered_at"
    exports = (PAIRWISE_ANSWERS,)
    fields = ["respondent", "position", "block", "pair", "order", "shown", "chosen", "time_on_item_ms", "answered_at"]
    readonly_fields = fields

    @admin.display(description="respondent", ordering="session__respondent_id")
    def respondent(self, answer: PairwiseAnswer) -> str:
        return str(answer.session.respondent_id)

    @admin.display(description="block")
    def block(self, answer: PairwiseAnswer) -> int:
        return answer.item["block"]

    @admin.display(description="pair (x, y)")
    def pair(self, answer: PairwiseAnswer) -> str:
        return f"{answer.item['x']}, {answer.item['y']}"

    @admin.display(description="order")
    def order(self, answer: PairwiseAnswer) -> str:
        return answer.item["order"]

    @admin.display(description="shown (situation 1, 2)")
    def shown(self, answer: PairwiseAnswer) -> str:
        return ", ".join(shown_first_and_second(answer.item))

    @admin.display(description="judged worse")
    def chosen(self, answer: PairwiseAnswer) -> str:
        return f"situation {answer.value['situation']} ({answer.value['chosen']})"

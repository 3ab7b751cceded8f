"""Admin of the respondent flow: respondents (searchable, withdrawable) and versioned consent texts."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.admin.options import ActionLocation
from django.db.models import Count, OuterRef, Q, Subquery
from django.utils.html import format_html_join

from scoring.diagnostics import binomial_share
from surveys import services
from surveys.diagnostics import flags_text, session_diagnostics, summary_lines
from surveys.models import ConsentText, QuestionnaireAnswer, QuestionnaireSession, Respondent
from virtuemap_site.admin_mixins import AuditTrailAdminMixin, ViewOnlyAdminMixin


class SuspicionFilter(admin.SimpleListFilter):
    title = "suspicion"
    parameter_name = "suspicion"

    def lookups(self, request, model_admin):
        return [("any", "Any sign of automation"), *Respondent.Suspicion.choices, ("none", "None")]

    def queryset(self, request, queryset):
        value = self.value()
        if value == "any":
            return queryset.exclude(suspicion="")
        if value == "none":
            return queryset.filter(suspicion="")
        if value in Respondent.Suspicion.values:
            return queryset.filter(suspicion__contains=value)
        return queryset


@admin.register(Respondent)
class RespondentAdmin(ViewOnlyAdminMixin, admin.ModelAdmin):
    """Respondents without personal data (there is none to show); deleting one withdraws them properly."""

    list_display = [
        "id",
        "study",
        "consent_version",
        "language",
        "consented_at",
        "panel",
        "age_band",
        "gender",
        "country",
        "education",
        "native_language",
        "flagged",
        "attention_checks_failed",
        "suspicion",
        "completed_at",
        "response_count",
        "confirmed_share",
        "questionnaire_flags",
    ]
    readonly_fields = ["answer_quality"]
    list_filter = ["study", "language", "flagged", SuspicionFilter, "panel", "consent_version"]
    exclude = ["panel_id_hash", "token_hash"]
    actions = ["withdraw"]

    def get_queryset(self, request):
        # The whole study's verdicts beside each respondent's, in the same query (the admin object is shared by every
        # request, so it must not hold per-request state).
        study = (
            Respondent.objects.filter(study=OuterRef("study"))
            .order_by()
            .values("study")
            .annotate(
                n=Count("validation_responses"),
                y=Count("validation_responses", filter=Q(validation_responses__confirmed=True)),
            )
        )
        return (
            super()
            .get_queryset(request)
            .annotate(
                n_responses=Count("validation_responses"),
                n_confirmed=Count("validation_responses", filter=Q(validation_responses__confirmed=True)),
                study_responses=Subquery(study.values("n")),
                study_confirmed=Subquery(study.values("y")),
            )
        )

    @admin.display(description="responses", ordering="n_responses")
    def response_count(self, respondent: Respondent) -> int:
        return respondent.n_responses

    @admin.display(description="confirmed (study share; p)")
    def confirmed_share(self, respondent: Respondent) -> str:
        """VirtueMap validation: the share of this respondent's verdicts that simply confirmed the ordering shown,
        beside the whole study's share and a one-sided exact binomial test of "confirms more than the study"."""
        n = getattr(respondent, "n_responses", 0)
        if not n:
            return "—"
        study_n = getattr(respondent, "study_responses", 0) or 0
        study = respondent.study_confirmed / study_n if study_n else None
        text = f"{respondent.n_confirmed} of {n} ({100 * respondent.n_confirmed / n:.0f} %)"
        if study is None or not 0 < study < 1:
            return text
        test = binomial_share(respondent.n_confirmed, n, study)
        return f"{text}; study {100 * study:.0f} %; p = {test['p_value']:.2g}"

    @admin.display(description="questionnaire flags")
    def questionnaire_flags(self, respondent: Respondent) -> str:
        session = QuestionnaireSession.objects.filter(respondent=respondent).first()
        return "—" if session is None else flags_text(session_diagnostics(session=session))

    @admin.display(description="answer quality (never excludes anyone)")
    def answer_quality(self, respondent: Respondent):
        session = QuestionnaireSession.objects.filter(respondent=respondent).first()
        if session is None:
            return "No questionnaire session."
        return _lines_html(summary_lines(session_diagnostics(session=session)))

    def get_actions(self, request, action_location=ActionLocation.CHANGE_LIST):
        actions = super().get_actions(request, action_location=action_location)
        # The built-in bulk delete would skip the counter recount; the withdraw action does it.
        actions.pop("delete_selected", None)
        return actions

    def delete_model(self, request, obj):
        services.respondent_withdraw(respondent=obj)

    @admin.action(description="Delete selected respondents and all their answers", permissions=["delete"])
    def withdraw(self, request, queryset):
        count = 0
        for respondent in queryset:
            services.respondent_withdraw(respondent=respondent)
            count += 1
        self.message_user(request, f"Deleted {count} respondent(s) and their answers; counters recomputed.")


@admin.register(ConsentText)
class ConsentTextAdmin(admin.ModelAdmin):
    list_display = ["study", "language", "version", "title", "is_current", "created_at", "text_hash"]
    list_filter = ["study", "language", "is_current"]
    readonly_fields = ["text_hash", "created_at"]

    def get_readonly_fields(self, request, obj=None):
        # Respondents consented to these exact words: new wording must be a new version.
        if obj is not None and obj.respondents.exists():
            return [
                "study",
                "language",
                "version",
                "title",
                "information_sheet",
                "consent_statement",
                *self.readonly_fields,
            ]
        return self.readonly_fields


class QuestionnaireAnswerInline(admin.TabularInline):
    model = QuestionnaireAnswer
    fields = ["position", "item", "value", "time_on_item_ms", "answered_at", "replaced"]
    readonly_fields = fields
    extra = 0
    can_delete = False


@admin.register(QuestionnaireSession)
class QuestionnaireSessionAdmin(AuditTrailAdminMixin, admin.ModelAdmin):
    """People's questionnaires as answered: what each page showed and what was chosen (withdraw from Respondents)."""

    list_display = ["respondent", "instrument", "design", "created_at", "completed_at", "quality_flags"]
    list_filter = ["instrument", ("completed_at", admin.EmptyFieldListFilter)]
    readonly_fields = [
        "respondent",
        "instrument",
        "answer_quality",
        "seed",
        "design",
        "sequence",
        "created_at",
        "completed_at",
    ]
    inlines = [QuestionnaireAnswerInline]

    @admin.display(description="quality flags")
    def quality_flags(self, session: QuestionnaireSession) -> str:
        return flags_text(session_diagnostics(session=session))

    @admin.display(description="answer quality (never excludes anyone)")
    def answer_quality(self, session: QuestionnaireSession):
        return _lines_html(summary_lines(session_diagnostics(session=session)))


def _lines_html(lines: list[str]):
    return format_html_join("", "<p>{}</p>", ((line,) for line in lines))

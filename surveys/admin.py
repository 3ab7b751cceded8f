"""Admin of the respondent flow: respondents (searchable, withdrawable, their answers read-only), the study dashboard,
versioned consent texts and questionnaire sessions."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from django.apps import apps
from django.contrib import admin
from django.contrib.admin.options import ActionLocation
from django.core.exceptions import PermissionDenied
from django.template.response import TemplateResponse
from django.urls import path
from django.utils.html import format_html, format_html_join

from instruments import registry
from instruments.base import RespondentAnswerTable, RespondentColumn
from surveys import references, services
from surveys.dashboard import dashboard_context
from surveys.diagnostics import flags_text, session_diagnostics, summary_lines
from surveys.exports import questionnaire_answers_export
from surveys.models import ConsentText, QuestionnaireAnswer, QuestionnaireSession, Respondent
from virtuemap_site.admin_mixins import AdminExport, AuditTrailAdminMixin, ExportsAdminMixin, ViewOnlyAdminMixin


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
    """Respondents without personal data (there is none to show), searchable by id, with their answers read-only on
    their page; deleting one withdraws them properly. Instruments add their own columns and answer tables through
    the contract (`Instrument.respondent_columns`, `respondent_answer_tables`); the study dashboard hangs here."""

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
        "questionnaire_flags",
    ]
    readonly_fields = ["answer_quality", "questionnaire_answers"]
    # The answers near the top: they are what a researcher opens a respondent for (an instrument's own answer tables
    # follow the page, as inlines).
    fieldsets = [
        (None, {"fields": ["study", "consented_at", "completed_at", "flagged", "suspicion"]}),
        ("Answers", {"fields": ["questionnaire_answers", "answer_quality"]}),
        (
            "Consent and demographics",
            {
                "fields": [
                    "consent_text",
                    "consent_version",
                    "language",
                    "consent_text_hash",
                    "panel",
                    "age_band",
                    "gender",
                    "country",
                    "education",
                    "native_language",
                    "attention_checks_failed",
                ]
            },
        ),
    ]
    list_filter = ["study", "language", "flagged", SuspicionFilter, "panel", "consent_version"]
    search_fields = ["id"]
    search_help_text = "A respondent's id or its beginning, or the participant reference a participant quotes."
    actions = ["withdraw"]
    change_list_template = "admin/surveys/respondent/change_list.html"

    class Media:
        css = {"all": ["css/admin.css"]}

    def get_queryset(self, request):
        annotations = {
            name: expression for _, column in _instrument_columns() for name, expression in column.annotations.items()
        }
        # Each row's questionnaire and its answers come with the page (the flags column reads them): no query per row.
        return (
            super()
            .get_queryset(request)
            .annotate(**annotations)
            .select_related("questionnaire_session")
            .prefetch_related("questionnaire_session__answers")
        )

    def get_search_results(self, request, queryset, search_term):
        """By id (or its beginning), and by participant reference — compared through its keyed hash, the only form
        stored — so a participant who writes in with their reference can be found and withdrawn."""
        results, may_have_duplicates = super().get_search_results(request, queryset, search_term)
        reference = references.reference_normalise(search_term)
        if reference is not None:
            results = results | queryset.filter(reference_hash=references.reference_hash(reference))
        return results, may_have_duplicates

    def get_list_display(self, request):
        return [*self.list_display, *(_column_cell(studies, column) for studies, column in _instrument_columns())]

    def get_inline_instances(self, request, obj=None):
        if obj is None or obj.study not in registry.studies():
            return []
        plugin = registry.instrument(registry.study(obj.study).instrument)
        tables = [table for table in plugin.respondent_answer_tables() if table.study in (None, obj.study)]
        return [_answer_inline(table)(self.model, self.admin_site) for table in tables]

    def get_urls(self):
        dashboard = path(
            "dashboard/", self.admin_site.admin_view(self.dashboard_view), name="surveys_respondent_dashboard"
        )
        return [dashboard, *super().get_urls()]

    def dashboard_view(self, request):
        if not self.has_view_permission(request):
            raise PermissionDenied
        context = {
            **self.admin_site.each_context(request),
            **dashboard_context(),
            "title": "Study dashboard",
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "admin/surveys/dashboard.html", context)

    @admin.display(description="questionnaire flags")
    def questionnaire_flags(self, respondent: Respondent) -> str:
        session = _session_of(respondent)
        return "—" if session is None else flags_text(session_diagnostics(session=session))

    @admin.display(description="answer quality (never excludes anyone)")
    def answer_quality(self, respondent: Respondent):
        session = _session_of(respondent)
        if session is None:
            return "No questionnaire session."
        return _lines_html(summary_lines(session_diagnostics(session=session)))

    @admin.display(description="questionnaire answers (as shown and as answered)")
    def questionnaire_answers(self, respondent: Respondent):
        session = _session_of(respondent)
        if session is None:
            return "No questionnaire session."
        rows = session.answers.order_by("position").values_list(
            "position", "item", "value", "time_on_item_ms", "answered_at"
        )
        return format_html(
            '<table class="respondent-answers"><thead><tr><th>#</th><th>shown</th><th>answer</th><th>time (s)</th>'
            "<th>answered at</th></tr></thead><tbody>{}</tbody></table>",
            format_html_join(
                "",
                "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                (
                    (position, _record_text(item), _record_text(value), _seconds(time_ms), answered_at)
                    for position, item, value, time_ms, answered_at in rows
                ),
            )
            or format_html('<tr><td colspan="5">{}</td></tr>', "No answer yet."),
        )

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


def _session_of(respondent: Respondent) -> QuestionnaireSession | None:
    try:
        return respondent.questionnaire_session
    except QuestionnaireSession.DoesNotExist:
        return None


def _instrument_columns() -> list[tuple[frozenset[str], RespondentColumn]]:
    """Each registered instrument's respondent columns, with the studies whose respondents they describe."""
    return [
        (frozenset(study.slug for study in plugin.studies), column)
        for plugin in registry.instruments()
        for column in plugin.respondent_columns()
    ]


def _column_cell(studies: frozenset[str], column: RespondentColumn) -> Callable[[Respondent], str]:
    def cell(respondent: Respondent) -> str:
        return column.render(respondent) if respondent.study in studies else "—"

    cell.__name__ = column.name
    return admin.display(description=column.title)(cell)


@cache
def _answer_inline(table: RespondentAnswerTable) -> type[admin.TabularInline]:
    """A read-only inline of an instrument's answer table (built once per table)."""
    model = apps.get_model(table.model)
    return type(
        f"{model.__name__}Inline",
        (ViewOnlyAdminMixin, admin.TabularInline),
        {"model": model, "fields": table.fields, "readonly_fields": table.fields, "extra": 0, "can_delete": False},
    )


def _record_text(record: object) -> str:
    # Sorted: PostgreSQL's jsonb does not keep the order the keys were stored in.
    if isinstance(record, dict):
        return "; ".join(f"{name}: {_record_text(value)}" for name, value in sorted(record.items()))
    if isinstance(record, float):
        return f"{record:.4g}"
    return str(record)


def _seconds(time_ms: int | None) -> str:
    return "—" if time_ms is None else f"{time_ms / 1000:.1f}"


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
                *ConsentText.DETAIL_FIELDS,
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
class QuestionnaireSessionAdmin(AuditTrailAdminMixin, ExportsAdminMixin, admin.ModelAdmin):
    """People's questionnaires as answered: what each page showed and what was chosen (withdraw from Respondents),
    and every such study's answers as a CSV export with its codebook."""

    @property
    def exports(self) -> tuple[AdminExport, ...]:  # type: ignore[override]
        return questionnaire_exports()

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


@cache
def questionnaire_exports() -> tuple[AdminExport, ...]:
    """One export per registered study of the shared questionnaire (`surveys.exports.questionnaire_answers_export`)."""
    studies = [slug for slug in registry.studies() if registry.instrument(registry.study(slug).instrument)
               .questionnaire(slug) is not None]  # fmt: skip
    return tuple(questionnaire_answers_export(slug) for slug in studies)


def _lines_html(lines: list[str]):
    return format_html_join("", "<p>{}</p>", ((line,) for line in lines))

from __future__ import annotations

from datetime import timedelta

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.options import ActionLocation
from django.db.models import Count
from django.http import HttpResponse
from django.template.response import TemplateResponse
from django.urls import path
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from knox import admin as knox_admin
from knox.models import AuthToken
from knox.settings import knox_settings

from scoring.promotion import wilson_interval
from surveys import exports, selectors, services
from surveys.models import (
    ConsentText,
    Dilemma,
    Instrument,
    KeyCandidate,
    KeyDecision,
    Option,
    ProfilingSubmission,
    Respondent,
    Virtue,
)
from virtuemap_site.admin_mixins import (
    AuditTrailAdminMixin,
    PermissionActionsMixin,
    ViewOnlyAdminMixin,
    admin_action,
)
from virtuemap_site.errors import ApplicationError


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


class DecisionReasonForm(forms.Form):
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}), help_text="Required: recorded in the audit trail with your name."
    )


class KeyDecisionInline(ViewOnlyAdminMixin, admin.TabularInline):
    """The candidate's audit trail, read-only: who or what decided, when, why, and on what evidence."""

    model = KeyDecision
    fk_name = "candidate"
    extra = 0
    can_delete = False
    fields = [
        "created_at",
        "action",
        "automatic",
        "decided_by_username",
        "reason",
        "n_evaluations",
        "n_confirmations",
        "confirmation_rate",
        "wilson_low",
        "wilson_high",
        "agreement_tau",
        "related_candidate",
    ]
    readonly_fields = fields


CHANGE_KEYS = "surveys.change_keycandidate"
VIEW_KEYS = "surveys.view_keycandidate"
VIEW_RESPONSES = "surveys.view_validationresponse"


@admin.register(KeyCandidate)
class KeyCandidateAdmin(PermissionActionsMixin, admin.ModelAdmin):
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
        "wilson_display",
        "decided_at",
    ]
    list_filter = ["status", "needs_review", "provenance", "dilemma", "virtue"]
    list_select_related = ["dilemma", "virtue"]
    fields = [
        "dilemma",
        "virtue",
        "round",
        "ordering",
        "status",
        "provenance",
        "n_evaluations",
        "n_confirmations",
        "confirmation_rate_display",
        "wilson_display",
        "review_display",
        "top_corrections",
        "rank_table",
        "created_at",
        "updated_at",
        "decided_at",
    ]
    readonly_fields = fields
    inlines = [KeyDecisionInline]
    actions = ["promote", "reject", "reopen", "keep"]
    change_list_template = "admin/surveys/keycandidate/change_list.html"

    def has_add_permission(self, request):
        # Candidates come from the instrument, `open_validation` and the promotion rule only.
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(description="q")
    def confirmation_rate_display(self, candidate: KeyCandidate) -> str:
        rate = candidate.confirmation_rate
        return "—" if rate is None else f"{rate:.3f}"

    @admin.display(description="Wilson 95%")
    def wilson_display(self, candidate: KeyCandidate) -> str:
        interval = wilson_interval(candidate.n_confirmations, candidate.n_evaluations)
        return "—" if interval is None else f"{interval[0]:.3f}–{interval[1]:.3f}"

    @admin.display(description="Awaiting review because")
    def review_display(self, candidate: KeyCandidate) -> str:
        if not candidate.needs_review:
            return "Nothing awaits review."
        return format_html(
            "<ul>{}</ul>",
            format_html_join(
                "", "<li><code>{}</code>: {}</li>", ((r["code"], r["message"]) for r in candidate.review_reasons)
            ),
        )

    @admin.display(description="Most frequent corrections")
    def top_corrections(self, candidate: KeyCandidate) -> str:
        rows = selectors.key_candidate_top_corrections(candidate=candidate)
        if not rows:
            return "No corrections."
        return format_html(
            "<table><thead><tr><th>Correction</th><th>Count</th></tr></thead><tbody>{}</tbody></table>",
            format_html_join("", "<tr><td><code>{}</code></td><td>{}</td></tr>", rows),
        )

    @admin.display(description="Ranks given to each option (counted responses)")
    def rank_table(self, candidate: KeyCandidate) -> str:
        table = selectors.key_candidate_rank_table(candidate=candidate)
        header = format_html_join("", "<th>rank {}</th>", ((rank,) for rank in range(1, 6)))
        body = format_html_join(
            "",
            "<tr><th>{}</th>{}</tr>",
            (
                (option, format_html_join("", "<td>{}</td>", ((count,) for count in counts)))
                for option, counts in table.items()
            ),
        )
        return format_html("<table><thead><tr><th>option</th>{}</tr></thead><tbody>{}</tbody></table>", header, body)

    def _decide(self, request, queryset, service, verb: str):
        """An action with an intermediate page asking for the reason; the service records it."""
        form = DecisionReasonForm(request.POST if "apply" in request.POST else None)
        if form.is_valid():
            done = 0
            for candidate in queryset:
                try:
                    service(candidate=candidate, user=request.user, reason=form.cleaned_data["reason"])
                    done += 1
                except ApplicationError as error:
                    self.message_user(request, f"{candidate}: {error.message}", messages.ERROR)
            if done:
                self.message_user(request, f"{verb.capitalize()}: {done} candidate(s).", messages.SUCCESS)
            return None
        return TemplateResponse(
            request,
            "admin/surveys/keycandidate/decide.html",
            {
                **self.admin_site.each_context(request),
                "title": f"{verb.capitalize()} key candidates",
                "verb": verb,
                "form": form,
                "candidates": queryset,
                "action": request.POST.get("action"),
                "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
                "opts": self.model._meta,
            },
        )

    @admin_action(permission=CHANGE_KEYS, description="Promote (retain) selected candidates…")
    def promote(self, request, queryset):
        return self._decide(request, queryset, services.key_candidate_promote, "promote")

    @admin_action(permission=CHANGE_KEYS, description="Reject selected candidates…")
    def reject(self, request, queryset):
        return self._decide(request, queryset, services.key_candidate_reject, "reject")

    @admin_action(permission=CHANGE_KEYS, description="Reopen selected candidates as a new round…")
    def reopen(self, request, queryset):
        return self._decide(request, queryset, services.key_candidate_reopen, "reopen")

    @admin_action(permission=CHANGE_KEYS, description="Keep the decision of selected flagged candidates…")
    def keep(self, request, queryset):
        return self._decide(request, queryset, services.key_candidate_review_keep, "keep")

    def get_urls(self):
        exports = [
            ("export/responses.csv", self.export_responses, "surveys_export_responses", VIEW_RESPONSES),
            (
                "export/responses-codebook.md",
                self.export_responses_codebook,
                "surveys_export_responses_codebook",
                VIEW_RESPONSES,
            ),
            ("export/keys.csv", self.export_keys, "surveys_export_keys", VIEW_KEYS),
            ("export/keys-codebook.md", self.export_keys_codebook, "surveys_export_keys_codebook", VIEW_KEYS),
        ]
        return [
            path(route, self.permission_view(view, permission), name=name) for route, view, name, permission in exports
        ] + super().get_urls()

    def changelist_view(self, request, extra_context=None):
        exports = {"can_export_responses": VIEW_RESPONSES, "can_export_keys": VIEW_KEYS}
        extra = {name: request.user.has_perm(permission) for name, permission in exports.items()}
        return super().changelist_view(request, {**extra, **(extra_context or {})})

    def _download(self, content: str, filename: str, content_type: str) -> HttpResponse:
        response = HttpResponse(content, content_type=content_type)
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
        return response

    def export_responses(self, request):
        return self._download(exports.responses_csv(), "validation-responses.csv", "text/csv; charset=utf-8")

    def export_responses_codebook(self, request):
        text = exports.codebook_text("Validation responses (validation-responses.csv)", exports.RESPONSES_CODEBOOK)
        return self._download(text, "validation-responses-codebook.md", "text/markdown; charset=utf-8")

    def export_keys(self, request):
        return self._download(exports.key_statistics_csv(), "key-statistics.csv", "text/csv; charset=utf-8")

    def export_keys_codebook(self, request):
        text = exports.codebook_text("Key statistics (key-statistics.csv)", exports.KEYS_CODEBOOK)
        return self._download(text, "key-statistics-codebook.md", "text/markdown; charset=utf-8")


@admin.register(KeyDecision)
class KeyDecisionAdmin(AuditTrailAdminMixin, admin.ModelAdmin):
    """The audit trail, read-only for everyone."""

    list_display = ["created_at", "candidate", "action", "automatic", "decided_by_username", "reason"]
    list_filter = ["action", "automatic"]
    list_select_related = ["candidate"]


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
    ]
    list_filter = ["study", "flagged", SuspicionFilter, "panel", "consent_version"]
    exclude = ["panel_id_hash", "token_hash"]
    actions = ["withdraw"]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(n_responses=Count("validation_responses"))

    @admin.display(description="responses", ordering="n_responses")
    def response_count(self, respondent: Respondent) -> int:
        return respondent.n_responses

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
    list_display = ["study", "version", "title", "is_current", "created_at", "text_hash"]
    list_filter = ["study", "is_current"]
    readonly_fields = ["text_hash", "created_at"]

    def get_readonly_fields(self, request, obj=None):
        # Respondents consented to these exact words: new wording must be a new version.
        if obj is not None and obj.respondents.exists():
            return ["study", "version", "title", "information_sheet", "consent_statement", *self.readonly_fields]
        return self.readonly_fields


@admin.register(ProfilingSubmission)
class ProfilingSubmissionAdmin(ViewOnlyAdminMixin, admin.ModelAdmin):
    """Read-only: the answers are the respondent's; only withdrawal (deleting the respondent) changes them."""

    list_display = ["respondent", "answered_count", "created_at", "updated_at"]
    readonly_fields = ["respondent", "rankings", "scores", "keys_used", "created_at", "updated_at"]


# --- Staff API tokens (django-rest-knox) -------------------------------------------------------------------------
# knox's own admin would accept a token without an expiry (valid for ever); ours insists on one.


class ExpiringAuthTokenCreateForm(knox_admin.AuthTokenCreateForm):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["expiry"].required = True
        self.fields["expiry"].initial = timezone.now() + knox_settings.TOKEN_TTL
        self.fields["expiry"].help_text = "Required, at most a year ahead. The token is shown once after saving."

    def clean_expiry(self):
        expiry = self.cleaned_data["expiry"]
        if not timezone.now() < expiry <= timezone.now() + timedelta(days=365):
            raise forms.ValidationError("Choose a time in the next 365 days.")
        return expiry

    def clean_user(self):
        user = self.cleaned_data["user"]
        if not (user.is_active and user.is_staff):
            raise forms.ValidationError("API tokens are for active staff users.")
        return user


admin.site.unregister(AuthToken)


@admin.register(AuthToken)
class ExpiringAuthTokenAdmin(knox_admin.AuthTokenAdmin):
    add_form = ExpiringAuthTokenCreateForm

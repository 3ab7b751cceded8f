"""Admin of the VirtueMap instrument: its content, key candidates with the evidence behind them and the decisions on
them (promote, reject, reopen, keep — each with a reason), the study's exports, profiling answers, and model profiles
entered by hand."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.db.models import QuerySet
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.html import format_html, format_html_join

from instruments.virtuemap import keys as services
from instruments.virtuemap import selectors
from instruments.virtuemap.exports import KEY_STATISTICS, PROFILING_ANSWERS, RESPONSES
from instruments.virtuemap.forms import model_profile_form_class
from instruments.virtuemap.models import (
    Dilemma,
    KeyCandidate,
    KeyDecision,
    Option,
    ProfilingSubmission,
    Virtue,
    VirtueMapInstrument,
    VirtueMapProfile,
)
from instruments.virtuemap.plugin import VirtueMap
from scoring.promotion import wilson_interval
from virtuemap_site.admin_mixins import (
    AuditTrailAdminMixin,
    ExportsAdminMixin,
    ReadOnlyPagesAdminMixin,
    ViewOnlyAdminMixin,
    admin_action,
)
from virtuemap_site.errors import ApplicationError


@admin.register(VirtueMapInstrument)
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


class PromotionForm(DecisionReasonForm):
    override = forms.BooleanField(
        required=False,
        label="Override the promotion rule",
        help_text="Needed to promote a candidate the rule would not retain on its evidence (e.g. N = 0). The "
        "decision is then marked as an override in the audit trail and in the key statistics export.",
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
        "override",
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


CHANGE_KEYS = "virtuemap.change_keycandidate"


@admin.register(KeyCandidate)
class KeyCandidateAdmin(ReadOnlyPagesAdminMixin, ExportsAdminMixin, admin.ModelAdmin):
    """Key candidates with the evidence behind them: N, Y, q, the Wilson interval and the decision time fit a
    1366-pixel screen beside the navigation and the filters (short cells that do not wrap; the edition's language
    and the round say the provenance, round 0 being the published key), and each candidate's page is read-only;
    decisions are the list's actions, each with a reason."""

    list_display = [
        "candidate_display",
        "edition_display",
        "ordering",
        "status",
        "n_evaluations",
        "n_confirmations",
        "confirmation_rate_display",
        "wilson_display",
        "decided_display",
    ]
    list_filter = ["status", "needs_review", "language", "provenance", "dilemma", "virtue"]
    fields = [
        "dilemma",
        "virtue",
        "language",
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
    exports = (RESPONSES, KEY_STATISTICS)

    class Media:
        css = {"all": ["css/admin.css"]}

    def has_add_permission(self, request):
        # Candidates come from the instrument, `open_validation` and the promotion rule only.
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(description="dilemma × virtue", ordering="dilemma__position")
    def candidate_display(self, candidate: KeyCandidate) -> str:
        return f"{candidate.dilemma_id} × {candidate.virtue_id}"

    @admin.display(description="edition · round", ordering="language")
    def edition_display(self, candidate: KeyCandidate) -> str:
        # One cell for the two: a column each would push the evidence past a 1366-pixel screen's edge.
        return f"{candidate.language} · {candidate.round}"

    @admin.display(description="decided at", ordering="decided_at")
    def decided_display(self, candidate: KeyCandidate) -> str:
        # The day fits the list's narrow cell; the minute is in the tooltip and on the candidate's page.
        if candidate.decided_at is None:
            return "—"
        moment = timezone.localtime(candidate.decided_at)
        return format_html(
            '<time datetime="{}" title="{}">{}</time>',
            moment.isoformat(),
            moment.strftime("%Y-%m-%d %H:%M %Z"),
            moment.strftime("%Y-%m-%d"),
        )

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

    def _decide(self, request, queryset, service, verb: str, form_class=DecisionReasonForm):
        """An action with an intermediate page asking for the reason (and, to promote, whether to override the
        rule); the service records it."""
        form = form_class(request.POST if "apply" in request.POST else None)
        if form.is_valid():
            done = 0
            options = {name: value for name, value in form.cleaned_data.items() if name != "reason"}
            for candidate in queryset:
                try:
                    service(candidate=candidate, user=request.user, reason=form.cleaned_data["reason"], **options)
                    done += 1
                except ApplicationError as error:
                    self.message_user(request, f"{candidate}: {error.message}", messages.ERROR)
            if done:
                self.message_user(request, f"{verb.capitalize()}: {done} candidate(s).", messages.SUCCESS)
            return None
        return TemplateResponse(
            request,
            "admin/virtuemap/keycandidate/decide.html",
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
        return self._decide(request, queryset, services.key_candidate_promote, "promote", PromotionForm)

    @admin_action(permission=CHANGE_KEYS, description="Reject selected candidates…")
    def reject(self, request, queryset):
        return self._decide(request, queryset, services.key_candidate_reject, "reject")

    @admin_action(permission=CHANGE_KEYS, description="Reopen selected candidates as a new round…")
    def reopen(self, request, queryset):
        return self._decide(request, queryset, services.key_candidate_reopen, "reopen")

    @admin_action(permission=CHANGE_KEYS, description="Keep the decision of selected flagged candidates…")
    def keep(self, request, queryset):
        return self._decide(request, queryset, services.key_candidate_review_keep, "keep")


@admin.register(KeyDecision)
class KeyDecisionAdmin(AuditTrailAdminMixin, admin.ModelAdmin):
    """The audit trail, read-only for everyone."""

    list_display = ["created_at", "candidate", "action", "automatic", "decided_by_username", "reason"]
    list_filter = ["action", "automatic"]
    list_select_related = ["candidate"]


@admin.register(ProfilingSubmission)
class ProfilingSubmissionAdmin(ViewOnlyAdminMixin, ExportsAdminMixin, admin.ModelAdmin):
    """Read-only: the answers are the respondent's; only withdrawal (deleting the respondent) changes them. Exported
    as CSV with its codebook, one row per dilemma."""

    exports = (PROFILING_ANSWERS,)

    list_display = ["respondent", "answered_count", "created_at", "updated_at"]
    readonly_fields = ["respondent", "rankings", "scores", "keys_used", "created_at", "updated_at"]


@admin.register(VirtueMapProfile)
class VirtueMapProfileAdmin(admin.ModelAdmin):
    """Enter or correct a published profile by hand: one mean (optional std and CI half-width) per virtue.

    Saving here marks the profile as entered in admin; the gallery and the API show it at once.
    """

    list_display = ["model", "source", "runs", "consistency", "max_ci_half_width", "published_at"]
    list_filter = ["source"]
    list_select_related = ["model"]
    readonly_fields = ["source", "published_at"]

    def has_change_permission(self, request: HttpRequest, obj: VirtueMapProfile | None = None) -> bool:
        # A profile computed from runs (published or imported) is their stored answers' result: re-score it instead.
        if obj is not None and obj.source != VirtueMapProfile.Source.ADMIN:
            return False
        return super().has_change_permission(request, obj)

    def get_readonly_fields(self, request, obj=None):
        if obj is not None and not self.has_change_permission(request, obj):
            return ["model", "source", "runs", "scores_display", "consistency", "published_at"]
        return self.readonly_fields

    @admin.display(description="virtue scores (mean ± 95% CI half-width)")
    def scores_display(self, profile: VirtueMapProfile) -> str:
        stats = profile.summary.get("profile_stats") or {}
        return format_html_join("", "<p>{}: {}</p>", ((name, _score_text(stats[name] or {})) for name in stats)) or "—"

    def get_queryset(self, request: HttpRequest) -> QuerySet[VirtueMapProfile]:
        return super().get_queryset(request).filter(instrument=VirtueMap.identity.slug)

    def get_form(self, request, obj=None, change=False, **kwargs):
        # Built per request: the virtue fields follow the Virtue table.
        kwargs["form"] = model_profile_form_class()
        return super().get_form(request, obj, change=change, **kwargs)

    def get_fieldsets(self, request, obj=None):
        if obj is not None and not self.has_change_permission(request, obj):
            return [(None, {"fields": self.get_readonly_fields(request, obj)})]
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


def _score_text(score: dict) -> str:
    mean, half_width = score.get("mean"), score.get("ci_half_width")
    if mean is None:
        return "—"
    return f"{mean:.2f}" if half_width is None else f"{mean:.2f} ± {half_width:.2f}"

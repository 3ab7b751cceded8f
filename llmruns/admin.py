from __future__ import annotations

from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db.models import OuterRef, QuerySet, Subquery
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from llmruns import selectors
from llmruns.forms import model_profile_form_class
from llmruns.models import ItemResponse, LLMModel, ModelProfile, QuestionnaireRun, Suite
from llmruns.services import suite_cancel, suite_publish, suite_resume, suite_start
from virtuemap_site.admin_mixins import AuditTrailAdminMixin, PermissionActionsMixin, admin_action

# Starting, resuming, cancelling and publishing suites change what they spend and what the site shows.
CHANGE_SUITES = "llmruns.change_suite"


@admin.register(LLMModel)
class LLMModelAdmin(PermissionActionsMixin, admin.ModelAdmin):
    list_display = ["name", "slug", "provider", "model_id", "temperature", "concurrency", "latest_suite"]
    list_filter = ["provider", "family"]
    search_fields = ["name", "slug", "model_id"]
    actions = ["start_suite"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[LLMModel]:
        latest = Suite.objects.filter(model=OuterRef("pk")).order_by("-id")
        return (
            super()
            .get_queryset(request)
            .annotate(
                latest_suite_id=Subquery(latest.values("pk")[:1]),
                latest_suite_status=Subquery(latest.values("status")[:1]),
            )
        )

    @admin.display(description="latest suite")
    def latest_suite(self, model: LLMModel) -> str:
        if model.latest_suite_id is None:
            return "—"
        url = reverse("admin:llmruns_suite_change", args=[model.latest_suite_id])
        return format_html('<a href="{}">#{} {}</a>', url, model.latest_suite_id, model.latest_suite_status)

    @admin_action(permission=CHANGE_SUITES, description="Start a run-suite (3–10 runs, default thresholds)")
    def start_suite(self, request: HttpRequest, queryset: QuerySet[LLMModel]) -> None:
        for model in queryset:
            suite = suite_start(model=model)
            self.message_user(request, f"Suite {suite.pk} of {model} queued (seed {suite.seed}).")


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


class QuestionnaireRunInline(admin.TabularInline):
    model = QuestionnaireRun
    extra = 0
    can_delete = False
    fields = ["index", "valid", "scores", "finished_at"]
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


@admin.register(Suite)
class SuiteAdmin(PermissionActionsMixin, admin.ModelAdmin):
    list_display = [
        "id",
        "model",
        "status",
        "runs_display",
        "means_display",
        "ci_display",
        "consistency_display",
        "cost_total",
        "published",
        "created_at",
    ]
    list_filter = ["status", "published", "model"]
    list_select_related = ["model"]
    actions = ["resume", "cancel", "publish"]
    inlines = [QuestionnaireRunInline]
    readonly_fields = [
        "model",
        "instrument",
        "label",
        "seed",
        "request_params",
        "status",
        "stop_reason",
        "stop_detail",
        "progress",
        "cost_total",
        "published",
        "created_at",
        "started_at",
        "finished_at",
    ]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Suite]:
        return selectors.suite_list()

    def has_add_permission(self, request: HttpRequest) -> bool:
        # Suites start from the model list (action "Start a run-suite") or `manage.py run_suite`.
        return False

    @admin.display(description="runs (valid / started)")
    def runs_display(self, suite: Suite) -> str:
        return f"{suite.runs_valid} / {suite.runs_started} (max {suite.max_runs})"

    @admin.display(description="current means")
    def means_display(self, suite: Suite) -> str:
        means = (suite.progress or {}).get("profile") or {}
        return ", ".join(f"{virtue[:4]} {mean:.1f}" for virtue, mean in means.items()) or "—"

    @admin.display(description="max CI ±")
    def ci_display(self, suite: Suite) -> str:
        width = (suite.progress or {}).get("max_ci_half_width")
        return "—" if width is None else f"{width:.2f}"

    @admin.display(description="consistency")
    def consistency_display(self, suite: Suite) -> str:
        value = (suite.progress or {}).get("consistency_0_100")
        return "—" if value is None else f"{value:.1f}"

    @admin_action(permission=CHANGE_SUITES, description="Resume (from the stored items)")
    def resume(self, request: HttpRequest, queryset: QuerySet[Suite]) -> None:
        for suite in queryset:
            if suite_resume(suite=suite):
                self.message_user(request, f"Suite {suite.pk} queued again.")
            else:
                self.message_user(request, f"Suite {suite.pk} has finished; nothing to resume.", messages.WARNING)

    @admin_action(permission=CHANGE_SUITES, description="Cancel")
    def cancel(self, request: HttpRequest, queryset: QuerySet[Suite]) -> None:
        for suite in queryset:
            if suite_cancel(suite=suite):
                self.message_user(request, f"Suite {suite.pk} cancelled.")
            else:
                self.message_user(request, f"Suite {suite.pk} had already ended.", messages.WARNING)

    @admin_action(permission=CHANGE_SUITES, description="Publish as the model's profile")
    def publish(self, request: HttpRequest, queryset: QuerySet[Suite]) -> None:
        for suite in queryset:
            try:
                profile = suite_publish(suite=suite)
            except ValidationError as error:
                self.message_user(request, "; ".join(error.messages), messages.ERROR)
            else:
                self.message_user(request, f"Published {profile.model} from suite {suite.pk}.")


@admin.register(ItemResponse)
class ItemResponseAdmin(AuditTrailAdminMixin, admin.ModelAdmin):
    """Read-only: item responses are results, kept verbatim."""

    list_display = ["id", "suite_display", "run_index", "dilemma", "status", "valid", "attempt_count", "constrained"]
    list_filter = ["status", "valid", "constrained", "run__suite"]
    list_select_related = ["run", "dilemma"]
    exclude = ["attempts", "claim_token"]

    class Media:
        # A stylesheet, not a style attribute: the Content Security Policy allows no inline styles.
        css = {"all": ["css/admin.css"]}

    readonly_fields = [
        "run",
        "dilemma",
        "status",
        "display_to_option",
        "request_messages",
        "attempts_display",
        "attempt_count",
        "display_ranking",
        "canonical_ranking",
        "valid",
        "latency_ms",
        "prompt_tokens",
        "completion_tokens",
        "cost",
        "served_by",
        "constrained",
        "last_error",
        "claimed_at",
        "completed_at",
    ]

    @admin.display(description="suite")
    def suite_display(self, item: ItemResponse) -> int:
        return item.run.suite_id

    @admin.display(description="run")
    def run_index(self, item: ItemResponse) -> int:
        return item.run.index

    @admin.display(description="every attempt (raw text verbatim)")
    def attempts_display(self, item: ItemResponse) -> str:
        if not item.attempts:
            return "—"
        return format_html_join(
            "",
            '<div><strong>attempt {} — {}</strong> {}<pre class="raw-text">{}</pre></div>',
            (
                (
                    attempt.get("attempt") if attempt.get("attempt") is not None else "(provider error)",
                    attempt.get("status", ""),
                    format_html("<em>{}</em>", attempt.get("detail", "")),
                    attempt.get("raw_text", ""),
                )
                for attempt in item.attempts
            ),
        )

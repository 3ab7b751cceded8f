"""Admin of the run engine and the result store: models, runs of every instrument, their trials, results.

Runs start from the model list (one action per registered instrument, default plan) or `manage.py run_instrument`;
here staff watch progress, resume, cancel and publish. Trials and their attempts are results, shown read-only with
every request verbatim. Results can be re-scored from their runs' stored answers (no LLM call).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib import admin, messages
from django.contrib.admin.options import ActionLocation
from django.db.models import OuterRef, QuerySet, Subquery
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join

from instruments import registry
from instruments.base import record_lines
from llmruns.diagnostics import run_diagnostics
from llmruns.engine import run_cancel, run_resume, run_start
from llmruns.models import Attempt, LLMModel, Result, Run, Trial
from llmruns.results import result_is_stale, result_publish, result_rescore
from llmruns.selectors import run_list
from scoring.diagnostics import diagnostics_lines
from virtuemap_site.admin_mixins import (
    AuditTrailAdminMixin,
    PermissionActionsMixin,
    ReadOnlyPagesAdminMixin,
    admin_action,
    permission_allows,
)
from virtuemap_site.errors import ApplicationError

# Starting, resuming, cancelling and publishing runs change what they spend and what the site shows.
CHANGE_RUNS = "llmruns.change_run"
CHANGE_RESULTS = "llmruns.change_result"


def _started_message(run: Run, model: LLMModel) -> str:
    where = (
        "in the background of this server process; its page shows the progress (reload it)"
        if settings.LLM_RUNS_IN_BACKGROUND
        else "for a Celery worker; its page shows the progress once a worker takes it"
    )
    return f"Run {run.pk} ({run.instrument}) of {model} queued {where} (seed {run.seed})."


def _start_action(slug: str, description: str) -> Callable[..., None]:
    @admin_action(permission=CHANGE_RUNS, description=description)
    def start(modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[LLMModel]) -> None:
        for model in queryset:
            try:
                run = run_start(instrument=slug, model=model)
            except ApplicationError as error:
                modeladmin.message_user(request, f"{model}: {error.message}", messages.ERROR)
            else:
                modeladmin.message_user(request, _started_message(run, model))

    start.__name__ = f"start_{slug}"
    return start


@admin.register(LLMModel)
class LLMModelAdmin(PermissionActionsMixin, admin.ModelAdmin):
    list_display = ["name", "slug", "provider", "model_id", "temperature", "concurrency", "latest_run"]
    list_filter = ["provider", "family"]
    search_fields = ["name", "slug", "model_id"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[LLMModel]:
        latest = Run.objects.filter(model=OuterRef("pk")).order_by("-id")
        return (
            super()
            .get_queryset(request)
            .annotate(
                latest_run_id=Subquery(latest.values("pk")[:1]),
                latest_run_instrument=Subquery(latest.values("instrument")[:1]),
                latest_run_status=Subquery(latest.values("status")[:1]),
            )
        )

    def get_actions(self, request: HttpRequest, action_location: Any = ActionLocation.CHANGE_LIST) -> dict[str, Any]:
        actions = super().get_actions(request, action_location=action_location)
        if action_location != ActionLocation.CHANGE_LIST:
            return actions
        for plugin in registry.instruments():
            description = f"Start a {plugin.identity.name} run (default plan)"
            action = _start_action(plugin.slug, description)
            if permission_allows(request, action):
                actions[action.__name__] = (action, action.__name__, description)
        return actions

    @admin.display(description="latest run")
    def latest_run(self, model: LLMModel) -> str:
        if model.latest_run_id is None:
            return "—"
        url = reverse("admin:llmruns_run_change", args=[model.latest_run_id])
        return format_html(
            '<a href="{}">#{} {} {}</a>', url, model.latest_run_id, model.latest_run_instrument, model.latest_run_status
        )


@admin.register(Run)
class RunAdmin(ReadOnlyPagesAdminMixin, PermissionActionsMixin, admin.ModelAdmin):
    list_display = ["id", "instrument", "model", "status", "trials_display", "progress_display", "cost_total"]
    list_filter = ["instrument", "status", "model"]
    list_select_related = ["model"]
    actions = ["resume", "cancel", "publish"]
    readonly_fields = [
        "instrument",
        "instrument_version",
        "items_hash",
        "language",
        "model",
        "judge",
        "label",
        "plan_display",
        "seed",
        "request_params_display",
        "status",
        "stop_reason",
        "stop_detail",
        "progress_display",
        "progress_record_display",
        "diagnostics_display",
        "trials_link",
        "cost_budget",
        "cost_total",
        "created_at",
        "started_at",
        "finished_at",
        "heartbeat_at",
    ]
    exclude = ["plan", "request_params", "progress"]

    class Media:
        # A stylesheet, not a style attribute: the Content Security Policy allows no inline styles.
        css = {"all": ["css/admin.css"]}

    def get_queryset(self, request: HttpRequest) -> QuerySet[Run]:
        return run_list()

    def has_add_permission(self, request: HttpRequest) -> bool:
        # Runs start from the model list (one action per instrument) or `manage.py run_instrument`.
        return False

    @admin.display(description="trials (stored / created)")
    def trials_display(self, run: Run) -> str:
        errors = f", {run.trials_error} failed" if run.trials_error else ""
        return f"{run.trials_done} / {run.trials_total}{errors}"

    @admin.display(description="progress")
    def progress_display(self, run: Run) -> str:
        if run.instrument not in registry.slugs():
            return "—"
        return registry.instrument(run.instrument).progress_text(run.progress or {}) or "—"

    @admin.display(description="progress record")
    def progress_record_display(self, run: Run) -> str:
        return _lines_block(record_lines(run.progress or {}))

    @admin.display(description="answer quality")
    def diagnostics_display(self, run: Run) -> str:
        if run.instrument not in registry.slugs():
            return "—"
        return _diagnostics_block(run_diagnostics(run=run))

    @admin.display(description="plan")
    def plan_display(self, run: Run) -> str:
        return _lines_block(record_lines(run.plan or {}))

    @admin.display(description="request parameters")
    def request_params_display(self, run: Run) -> str:
        return _lines_block(record_lines(run.request_params or {}))

    @admin.display(description="trials")
    def trials_link(self, run: Run) -> str:
        url = reverse("admin:llmruns_trial_changelist") + f"?run__id__exact={run.pk}"
        return format_html('<a href="{}">{} trials, every request verbatim</a>', url, run.trials_total)

    @admin_action(permission=CHANGE_RUNS, description="Resume (from the stored trials)")
    def resume(self, request: HttpRequest, queryset: QuerySet[Run]) -> None:
        for run in queryset:
            if run_resume(run=run):
                self.message_user(request, f"Run {run.pk} queued again.")
            else:
                self.message_user(request, f"Run {run.pk} has finished; nothing to resume.", messages.WARNING)

    @admin_action(permission=CHANGE_RUNS, description="Cancel")
    def cancel(self, request: HttpRequest, queryset: QuerySet[Run]) -> None:
        for run in queryset:
            if run_cancel(run=run):
                self.message_user(request, f"Run {run.pk} cancelled.")
            else:
                self.message_user(request, f"Run {run.pk} had already ended.", messages.WARNING)

    @admin_action(permission=CHANGE_RUNS, description="Publish as the model's result")
    def publish(self, request: HttpRequest, queryset: QuerySet[Run]) -> None:
        for run in queryset:
            try:
                result = result_publish(run=run)
            except ApplicationError as error:
                self.message_user(request, error.message, messages.ERROR)
            else:
                self.message_user(request, f"Published the {result} from run {run.pk}.")
                for flag in result.diagnostics.get("flags") or []:
                    self.message_user(request, f"Flagged: {flag['reason']}", messages.WARNING)


def _diagnostics_block(record: dict[str, Any]) -> str:
    """The flags as a visible warning (or that there is none), then the figures, in plain words."""
    lines = diagnostics_lines(record)
    flagged = [line.removeprefix("WARNING: ") for line in lines if line.startswith("WARNING: ")]
    figures = [line.strip() for line in lines if not line.startswith("WARNING: ")]
    warning = (
        format_html(
            '<div class="diagnostics-warning" role="alert"><strong>Warning: this result may not measure the model.'
            "</strong><ul>{}</ul></div>",
            format_html_join("", "<li>{}</li>", ((reason,) for reason in flagged)),
        )
        if flagged
        else ""
    )
    return format_html("{}{}", warning, format_html_join("", "<p>{}</p>", ((line,) for line in figures)))


def _lines_block(lines: list[str]) -> str:
    """Formatted lines ("name: value", floats to four significant digits), indentation kept."""
    return format_html('<pre class="raw-text">{}</pre>', "\n".join(lines) or "—")


def _json_block(value: Any) -> str:
    return format_html('<pre class="raw-text">{}</pre>', json.dumps(value, indent=1, ensure_ascii=False))


class AttemptInline(admin.StackedInline):
    model = Attempt
    extra = 0
    can_delete = False
    fields = ["number", "step", "status", "detail", "raw_text_display", "logprobs_display", "request_display", "at"]
    readonly_fields = fields
    exclude = ["messages", "raw"]

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    @admin.display(description="raw text (verbatim)")
    def raw_text_display(self, attempt: Attempt) -> str:
        return format_html('<pre class="raw-text">{}</pre>', attempt.raw_text) if attempt.raw_text else "—"

    @admin.display(description="first-token log-probabilities")
    def logprobs_display(self, attempt: Attempt) -> str:
        if not attempt.logprobs:
            return "—"
        return format_html_join(
            ", ", "{} {}", ((repr(entry["token"]), f"{entry['logprob']:.3f}") for entry in attempt.logprobs[:10])
        )

    @admin.display(description="request")
    def request_display(self, attempt: Attempt) -> str:
        return _json_block({"messages": attempt.messages, **attempt.request})


@admin.register(Trial)
class TrialAdmin(AuditTrailAdminMixin, admin.ModelAdmin):
    """Read-only: trials are results, with every request and answer kept verbatim."""

    list_display = ["id", "run", "item", "presentation", "replicate", "status", "answer_status", "attempt_count"]
    list_filter = ["status", "answer_status", "run__instrument", "run"]
    list_select_related = ["run__model"]
    inlines = [AttemptInline]
    exclude = ["claim_token", "display", "messages", "answer"]
    readonly_fields = [
        "run",
        "item",
        "presentation",
        "replicate",
        "status",
        "display_display",
        "answer_display",
        "answer_status",
        "answer_detail",
        "attempt_count",
        "latency_ms",
        "prompt_tokens",
        "completion_tokens",
        "cost",
        "served_by",
        "last_error",
        "claimed_at",
        "completed_at",
    ]

    class Media:
        css = {"all": ["css/admin.css"]}

    @admin.display(description="shown as")
    def display_display(self, trial: Trial) -> str:
        return _json_block(trial.display)

    @admin.display(description="answer")
    def answer_display(self, trial: Trial) -> str:
        return _json_block(trial.answer)


@admin.register(Result)
class ResultAdmin(ReadOnlyPagesAdminMixin, PermissionActionsMixin, admin.ModelAdmin):
    """Published results of every instrument; stale ones can be re-scored from their runs' stored answers."""

    list_display = [
        "model",
        "instrument",
        "language",
        "source",
        "run",
        "flags_display",
        "stale_display",
        "scored_at",
        "published_at",
    ]
    list_filter = ["instrument", "language", "source"]
    list_select_related = ["model", "run"]
    actions = ["rescore"]
    readonly_fields = [
        "model",
        "instrument",
        "instrument_version",
        "language",
        "source",
        "run",
        "diagnostics_display",
        "summary_display",
        "dependencies",
        "scored_at",
        "published_at",
    ]
    exclude = ["summary", "diagnostics"]

    class Media:
        css = {"all": ["css/admin.css"]}

    def has_add_permission(self, request: HttpRequest) -> bool:
        # Results come from runs (publish), imports, or an instrument's own entry form.
        return False

    @admin.display(description="stale", boolean=True)
    def stale_display(self, result: Result) -> bool:
        return result_is_stale(result)

    @admin.display(description="answer-quality flags")
    def flags_display(self, result: Result) -> str:
        if not result.diagnostics:
            return "not checked"
        codes = [flag["code"] for flag in result.diagnostics.get("flags") or []]
        return f"⚠ {', '.join(codes)}" if codes else "none"

    @admin.display(description="answer quality")
    def diagnostics_display(self, result: Result) -> str:
        return _diagnostics_block(result.diagnostics)

    @admin.display(description="summary")
    def summary_display(self, result: Result) -> str:
        summary = result.summary or {}
        if result.instrument in registry.slugs():
            return _lines_block(registry.instrument(result.instrument).summary_lines(summary))
        return _lines_block(record_lines(summary))

    @admin_action(permission=CHANGE_RESULTS, description="Re-score from the stored answers (no LLM call)")
    def rescore(self, request: HttpRequest, queryset: QuerySet[Result]) -> None:
        for result in queryset.select_related("run", "model"):
            try:
                result_rescore(result=result)
            except ApplicationError as error:
                self.message_user(request, error.message, messages.ERROR)
            else:
                self.message_user(request, f"Re-scored the {result}.")

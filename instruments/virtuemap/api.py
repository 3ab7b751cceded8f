"""REST API of the published model profiles (`/api/v1/models/`). One class per operation."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from drf_spectacular.utils import extend_schema, extend_schema_field, extend_schema_serializer
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.generics import ListAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from instruments.virtuemap import selectors
from instruments.virtuemap.plugin import VirtueMap
from llmruns.models import Result
from llmruns.results import result_is_stale
from surveys.selectors import retained_key_last_modified
from virtuemap_site.api import ConditionalGetMixin, error_responses


@extend_schema_serializer(component_name="Stats")
class _StatsSerializer(serializers.Serializer):
    mean = serializers.FloatField(allow_null=True)
    std = serializers.FloatField(allow_null=True, required=False)
    ci_low = serializers.FloatField(allow_null=True, required=False)
    ci_high = serializers.FloatField(allow_null=True, required=False)
    ci_half_width = serializers.FloatField(allow_null=True, required=False)

    def to_representation(self, stats: dict[str, Any] | None) -> dict[str, Any]:
        stats = stats or {}
        return {name: stats.get(name) for name in self.fields}


@extend_schema_serializer(component_name="ModelProfile")
class ModelProfileOutputSerializer(serializers.Serializer):
    """A published profile; field names follow the original VirtueMap run-suite's output."""

    slug = serializers.CharField(source="model.slug", help_text="e.g. openai/gpt-5 (may contain a slash).")
    name = serializers.CharField(source="model.name")
    family = serializers.CharField(source="model.family")
    source = serializers.SerializerMethodField(help_text="admin, suite or import.")
    runs = serializers.IntegerField(source="summary.runs", help_text="n: valid full runs the profile is the mean of.")
    profile = serializers.SerializerMethodField(help_text="Virtue id → mean score, 0–100.")
    profile_stats = serializers.DictField(
        source="summary.profile_stats",
        child=_StatsSerializer(),
        help_text="Virtue id → mean, std and 95% t-interval (ci_low, ci_high, half-width).",
    )
    max_ci_half_width = serializers.FloatField(
        source="summary.max_ci_half_width", allow_null=True, help_text="The largest CI half-width."
    )
    mean_pairwise_kendall_tau = serializers.FloatField(source="summary.mean_pairwise_kendall_tau", allow_null=True)
    consistency = serializers.FloatField(
        source="summary.consistency", allow_null=True, help_text="C = 100·(τ̄+1)/2, 0–100."
    )
    consistency_stats = _StatsSerializer(source="summary.consistency_stats", allow_null=True)
    invalid_count = serializers.IntegerField(source="summary.invalid_count")
    failure_counts = serializers.DictField(source="summary.failure_counts", child=serializers.IntegerField())
    published_at = serializers.DateTimeField()
    instrument_version = serializers.CharField(help_text="The VirtueMap instrument version the runs answered.")
    stale = serializers.SerializerMethodField(
        help_text="True when a key was retained after the profile was scored: its scores are out of date until it is "
        "re-scored from its stored answers."
    )
    scored_with_keys = serializers.SerializerMethodField(
        help_text="Ids of the retained keys the scores were computed with (empty for profiles entered in admin)."
    )

    @extend_schema_field(serializers.CharField())
    def get_source(self, result: Result) -> str:
        # The name of the first API version: a profile published from a run is a "suite" profile.
        return "suite" if result.source == Result.Source.RUN else result.source

    @extend_schema_field(serializers.DictField(child=serializers.FloatField(allow_null=True)))
    def get_profile(self, result: Result) -> dict[str, float | None]:
        return selectors.profile_scores(result)

    @extend_schema_field(serializers.BooleanField())
    def get_stale(self, result: Result) -> bool:
        current = self.context.get("current_dependencies")
        return result_is_stale(result, current=current)

    @extend_schema_field(serializers.ListField(child=serializers.IntegerField()))
    def get_scored_with_keys(self, result: Result) -> list[int]:
        return list(result.dependencies.get("keys", []))


class ModelListApi(ConditionalGetMixin, ListAPIView):
    """Every published model profile, by model name."""

    serializer_class = ModelProfileOutputSerializer

    def get_queryset(self):
        return selectors.published_profile_list()

    def get_serializer_context(self) -> dict[str, Any]:
        return super().get_serializer_context() | {
            "current_dependencies": {VirtueMap.identity.slug: VirtueMap().result_dependencies()}
        }

    def last_modified(self) -> datetime | None:
        return _latest(selectors.published_profile_last_modified(), retained_key_last_modified())

    @extend_schema(
        operation_id="model_list",
        responses={
            200: ModelProfileOutputSerializer(many=True),
            **error_responses(401, 404),
        },
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class ModelDetailApi(ConditionalGetMixin, APIView):
    """One published model profile, by the model's slug (which may contain a slash: openai/gpt-5)."""

    profile: Result | None = None

    def last_modified(self) -> datetime | None:
        # A newly retained key makes a profile stale, which the body says: it changes the body too.
        return _latest(self.profile.published_at, retained_key_last_modified()) if self.profile else None

    @extend_schema(
        operation_id="model_detail",
        responses={
            200: ModelProfileOutputSerializer,
            **error_responses(401, 404, e404="No published profile for this slug."),
        },
    )
    def get(self, request: Request, slug: str) -> Response:
        self.profile = selectors.published_profile_get(slug=slug)
        if self.profile is None:
            raise NotFound(f"No published profile for model {slug!r}.")
        current = {VirtueMap.identity.slug: VirtueMap().result_dependencies()}
        return Response(ModelProfileOutputSerializer(self.profile, context={"current_dependencies": current}).data)


def _latest(*moments: datetime | None) -> datetime | None:
    known = [moment for moment in moments if moment is not None]
    return max(known) if known else None

"""REST API of the published model profiles (`/api/v1/models/`). One class per operation."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.generics import ListAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from llmruns import selectors
from llmruns.models import ModelProfile
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
    source = serializers.CharField(help_text="admin, suite or import.")
    runs = serializers.IntegerField(help_text="n: valid full runs the profile is the mean of.")
    profile = serializers.DictField(
        child=serializers.FloatField(allow_null=True), source="scores", help_text="Virtue id → mean score, 0–100."
    )
    profile_stats = serializers.DictField(
        child=_StatsSerializer(), help_text="Virtue id → mean, std and 95% t-interval (ci_low, ci_high, half-width)."
    )
    max_ci_half_width = serializers.FloatField(allow_null=True, help_text="The largest CI half-width.")
    mean_pairwise_kendall_tau = serializers.FloatField(allow_null=True)
    consistency = serializers.FloatField(allow_null=True, help_text="C = 100·(τ̄+1)/2, 0–100.")
    consistency_stats = _StatsSerializer(allow_null=True)
    invalid_count = serializers.IntegerField()
    failure_counts = serializers.DictField(child=serializers.IntegerField())
    published_at = serializers.DateTimeField()


class ModelListApi(ConditionalGetMixin, ListAPIView):
    """Every published model profile, by model name."""

    serializer_class = ModelProfileOutputSerializer

    def get_queryset(self):
        return selectors.published_profile_list()

    def last_modified(self) -> datetime | None:
        return selectors.published_profile_last_modified()

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

    profile: ModelProfile | None = None

    def last_modified(self) -> datetime | None:
        return self.profile.published_at if self.profile else None

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
        return Response(ModelProfileOutputSerializer(self.profile).data)

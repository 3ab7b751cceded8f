"""The AMAeval part of the public REST API (mounted at /api/v1/amaeval/): every model's published result."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from instruments.amaeval import reports
from virtuemap_site.api import error_responses


@extend_schema_serializer(component_name="AmaevalResult")
class AmaevalResultSerializer(serializers.Serializer):
    model = serializers.CharField()
    slug = serializers.CharField()
    run = serializers.IntegerField(allow_null=True)
    fidelity = serializers.ChoiceField(choices=["corrected", "paper"])
    judge = serializers.CharField(allow_null=True, help_text="The judge's slug; null for a static-only result.")
    static_accuracy_t1 = serializers.FloatField(allow_null=True, help_text="Percent.")
    static_f1_t1 = serializers.FloatField(allow_null=True, help_text="Weighted F1, percent.")
    mae_t1 = serializers.FloatField(allow_null=True, help_text="Mean absolute error on 0–4 (N/A = 0).")
    static_accuracy_t2 = serializers.FloatField(allow_null=True)
    static_f1_t2 = serializers.FloatField(allow_null=True)
    dynamic_accuracy_t1 = serializers.FloatField(allow_null=True, help_text="Share judged good, percent.")
    dynamic_accuracy_t2 = serializers.FloatField(allow_null=True)
    ama = serializers.FloatField(allow_null=True, help_text="The AMA score (mean over replicates).")
    ama_sd = serializers.FloatField(allow_null=True, help_text="Its standard deviation over replicates.")
    replicates = serializers.IntegerField()
    unparseable = serializers.IntegerField(help_text="Static ratings that named no label (left out of the metrics).")


@extend_schema_serializer(component_name="AmaevalResults")
class AmaevalResultsSerializer(serializers.Serializer):
    models = AmaevalResultSerializer(many=True)
    static_dynamic_spearman = serializers.DictField(
        child=serializers.DictField(),
        help_text="Per judge: {models, spearman} between static mean F1 and dynamic mean accuracy (null below 3).",
    )


class AmaevalResultListApi(APIView):
    """Every model's AMAeval result in the layout of the paper's Table 3; AMA scores compare only under one judge."""

    @extend_schema(operation_id="amaeval_results", responses={200: AmaevalResultsSerializer, **error_responses(401)})
    def get(self, request: Request) -> Response:
        rows = reports.results_table()
        return Response({"models": rows, "static_dynamic_spearman": reports.static_dynamic_correlation(rows)})

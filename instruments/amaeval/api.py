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
    judge_mode = serializers.CharField(allow_null=True, help_text="rubric or classifier; null without a dynamic part.")
    scenario_set = serializers.CharField(
        allow_null=True, help_text="published (the 79 of the published dynamic benchmark) or annotated (its first 40)."
    )
    scenarios = serializers.IntegerField(allow_null=True, help_text="Scenarios the dynamic part generated for.")
    scenarios_seen = serializers.IntegerField(
        allow_null=True, help_text="Of those, the ones the published judge was trained and validated on (first 40)."
    )
    scenarios_unseen = serializers.IntegerField(allow_null=True, help_text="Of those, the ones new to it.")
    dynamic_accuracy_t1_seen = serializers.FloatField(allow_null=True, help_text="Over the seen scenarios, percent.")
    dynamic_accuracy_t2_seen = serializers.FloatField(allow_null=True)
    dynamic_accuracy_t1_unseen = serializers.FloatField(allow_null=True, help_text="Over the unseen ones, percent.")
    dynamic_accuracy_t2_unseen = serializers.FloatField(allow_null=True)
    static_accuracy_t1 = serializers.FloatField(allow_null=True, help_text="Percent.")
    static_f1_t1 = serializers.FloatField(allow_null=True, help_text="Weighted F1, percent.")
    mae_t1 = serializers.FloatField(allow_null=True, help_text="Mean absolute error on 0–4 (N/A = 0).")
    static_accuracy_t2 = serializers.FloatField(allow_null=True)
    static_f1_t2 = serializers.FloatField(allow_null=True)
    dynamic_accuracy_t1 = serializers.FloatField(
        allow_null=True, help_text="Share judged good over every scenario generated for, percent (the AMA score's)."
    )
    dynamic_accuracy_t2 = serializers.FloatField(allow_null=True)
    ama = serializers.FloatField(allow_null=True, help_text="The AMA score (mean over replicates).")
    ama_sd = serializers.FloatField(allow_null=True, help_text="Its standard deviation over replicates.")
    replicates = serializers.IntegerField()
    unparseable = serializers.IntegerField(help_text="Static ratings that named no label (left out of the metrics).")


@extend_schema_serializer(component_name="AmaevalPeopleRow")
class AmaevalPeopleRowSerializer(serializers.Serializer):
    model = serializers.CharField(help_text='"People (N respondents)".')
    slug = serializers.CharField(help_text='"people".')
    run = serializers.IntegerField(allow_null=True, help_text="Always null: people's ratings are no run.")
    respondents = serializers.IntegerField(help_text="People with at least one rating (withdrawn ones are deleted).")
    static_accuracy_t1 = serializers.FloatField(allow_null=True, help_text="Percent, against the gold labels.")
    static_f1_t1 = serializers.FloatField(allow_null=True, help_text="Weighted F1, percent.")
    mae_t1 = serializers.FloatField(allow_null=True, help_text="Mean absolute error on 0–4 (N/A = 0).")
    static_accuracy_t2 = serializers.FloatField(allow_null=True)
    static_f1_t2 = serializers.FloatField(allow_null=True)
    n_t1 = serializers.IntegerField(help_text="Task-1 ratings scored.")
    n_t2 = serializers.IntegerField(help_text="Task-2 ratings scored.")
    fidelity = serializers.CharField(allow_null=True, help_text="Not applicable: null.")
    judge = serializers.CharField(allow_null=True, help_text="Not applicable: null.")
    dynamic_accuracy_t1 = serializers.FloatField(allow_null=True, help_text="Not applicable to people: null.")
    dynamic_accuracy_t2 = serializers.FloatField(allow_null=True, help_text="Not applicable to people: null.")
    ama = serializers.FloatField(allow_null=True, help_text="Not applicable to people (no dynamic part): null.")
    ama_sd = serializers.FloatField(allow_null=True, help_text="Not applicable: null.")
    replicates = serializers.IntegerField(allow_null=True, help_text="Not applicable: null.")
    unparseable = serializers.IntegerField(help_text="0: a person always names a label.")
    not_applicable = serializers.ListField(child=serializers.CharField(), help_text="The fields that do not apply.")


@extend_schema_serializer(component_name="AmaevalAlpha")
class AmaevalAlphaSerializer(serializers.Serializer):
    level = serializers.ChoiceField(choices=["interval", "nominal"])
    alpha = serializers.FloatField(allow_null=True, help_text="Krippendorff's alpha; null when undefined.")
    ci_low = serializers.FloatField(allow_null=True, help_text="Bootstrap percentile interval, lower bound.")
    ci_high = serializers.FloatField(allow_null=True)
    confidence = serializers.FloatField()
    units = serializers.IntegerField(help_text="Pairs of ratings compared.")
    values = serializers.IntegerField()
    clusters = serializers.IntegerField(help_text="What the bootstrap resampled: items, or respondents.")
    resamples = serializers.IntegerField()
    undefined = serializers.IntegerField(help_text="Resamples without an alpha (one value only), left out.")


@extend_schema_serializer(component_name="AmaevalAlphaPerTask")
class AmaevalAlphaPerTaskSerializer(serializers.Serializer):
    t1 = AmaevalAlphaSerializer(help_text="Derivations: interval alpha on ratings both on the 1–4 scale.")
    t2 = AmaevalAlphaSerializer(help_text="Evaluations: nominal alpha on correct/incorrect.")


@extend_schema_serializer(component_name="AmaevalAgreement")
class AmaevalAgreementSerializer(serializers.Serializer):
    seed = serializers.IntegerField()
    resamples = serializers.IntegerField()
    annotators = AmaevalAlphaPerTaskSerializer(help_text="The dataset's two annotators, on every item both rated.")
    people_gold = AmaevalAlphaPerTaskSerializer(help_text="People's ratings on the platform against the gold labels.")


@extend_schema_serializer(component_name="AmaevalResults")
class AmaevalResultsSerializer(serializers.Serializer):
    models = AmaevalResultSerializer(many=True)
    static_dynamic_spearman = serializers.DictField(
        child=serializers.DictField(),
        help_text=(
            "Per judge: {models, spearman}: Spearman's rho across models between static performance (mean of static "
            "accuracy and F1 on tasks 1 and 2) and dynamic performance (mean dynamic accuracy), as the paper's "
            "section 5.4 (null below 3 models)."
        ),
    )
    static_dynamic_statistic = serializers.CharField(help_text="What the correlation is, in words.")
    paper_static_dynamic_spearman = serializers.DictField(
        help_text="The same statistic over the paper's own Table 3: {models: 18, spearman: 0.7564…, printed: 0.756}."
    )
    people = AmaevalPeopleRowSerializer(help_text="People's row of Table 3 (static columns only).")
    agreement = AmaevalAgreementSerializer()


class AmaevalResultListApi(APIView):
    """Every model's AMAeval result in the layout of the paper's Table 3 (AMA scores compare only under one judge),
    people's row beside them, and the agreement (Krippendorff's alpha) of the dataset's annotators and of people with
    the gold labels."""

    @extend_schema(operation_id="amaeval_results", responses={200: AmaevalResultsSerializer, **error_responses(401)})
    def get(self, request: Request) -> Response:
        return Response(reports.report())

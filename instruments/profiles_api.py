"""REST API of the cross-instrument view: a model's results on every instrument (and, for an instrument it was asked
in several languages, each language's result and their differences), and a comparison of up to six models with
people's median and, for two models, their paired differences (docs/models.md).

`GET /api/v1/models/{slug}/results/` and `GET /api/v1/compare/?models=a,b`; both read `instruments.profiles`, as
the pages do, so the API and the pages never disagree.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from instruments import profiles
from instruments.views import compare_slugs, comparison
from virtuemap_site.api import error_responses


@extend_schema_serializer(component_name="Figure")
class FigureSerializer(serializers.Serializer):
    key = serializers.CharField(help_text='Stable across models, e.g. "courage" or "MFQ_30/harm".')
    label = serializers.CharField()
    group = serializers.CharField()
    mean = serializers.FloatField(allow_null=True, help_text="Over the run's replicates (people: the median).")
    std = serializers.FloatField(allow_null=True, help_text="Sample standard deviation over replicates.")
    n = serializers.IntegerField(help_text="Replicates (people: how many people).")
    maximum = serializers.FloatField(allow_null=True, help_text="The scale's top where it is not 100.")


@extend_schema_serializer(component_name="InstrumentResult")
class InstrumentResultSerializer(serializers.Serializer):
    instrument = serializers.CharField()
    name = serializers.CharField()
    source = serializers.CharField(help_text="run, import, admin, or people (a pseudo-model of people's medians).")
    protocol = serializers.CharField(
        help_text="The named protocol the answers were asked by; results of different protocols are not comparable."
    )
    language = serializers.CharField(allow_null=True)
    instrument_version = serializers.CharField(allow_null=True)
    stale = serializers.BooleanField(help_text="Computed with dependencies (e.g. keys) that have since changed.")
    figures = FigureSerializer(many=True)
    summary = serializers.DictField(allow_null=True, help_text="The instrument's whole stored result.")
    diagnostics = serializers.DictField(help_text="Answer-quality diagnostics and flags; {} without stored answers.")
    run = serializers.DictField(
        allow_null=True, help_text="Provider, parameters, seed, instrument version, language, dates, cost."
    )
    report_url = serializers.CharField(allow_null=True)


@extend_schema_serializer(component_name="Difference")
class DifferenceSerializer(serializers.Serializer):
    key = serializers.CharField()
    label = serializers.CharField()
    group = serializers.CharField()
    difference = serializers.FloatField(help_text="First model minus second.")
    low = serializers.FloatField(allow_null=True, help_text="Welch 95 % interval; null below two replicates.")
    high = serializers.FloatField(allow_null=True)
    df = serializers.FloatField(allow_null=True)
    distinguishable = serializers.BooleanField(allow_null=True, help_text="False when the interval covers 0.")


@extend_schema_serializer(component_name="EditionDifference")
class EditionDifferenceSerializer(DifferenceSerializer):
    language = serializers.CharField(help_text='The edition compared with the base, e.g. "zh-hans".')
    difference = serializers.FloatField(help_text="This edition's mean minus the base edition's (e.g. zh-hans − en).")


@extend_schema_serializer(component_name="Editions")
class EditionsSerializer(serializers.Serializer):
    instrument = serializers.CharField()
    base = serializers.CharField(help_text="The edition the others are compared with: en where there is one.")
    languages = serializers.ListField(child=serializers.CharField(), help_text="Base first.")
    results = InstrumentResultSerializer(many=True, help_text="The model's result in each language, in that order.")
    differences = EditionDifferenceSerializer(
        many=True, help_text="Per other language and figure: that edition minus the base, Welch 95 % interval."
    )


@extend_schema_serializer(component_name="ModelResults")
class ModelResultsSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    results = InstrumentResultSerializer(
        many=True, help_text="One per instrument measured, in registry order (English where there are several)."
    )
    editions = EditionsSerializer(
        many=True, help_text="Instruments the model was published on in more than one language, compared."
    )


@extend_schema_serializer(component_name="Comparison")
class ComparisonSerializer(serializers.Serializer):
    models = ModelResultsSerializer(many=True)
    people = ModelResultsSerializer(allow_null=True, help_text="People's medians with N, where people took part.")
    differences = serializers.DictField(
        child=DifferenceSerializer(many=True), help_text="Per instrument, for exactly two models; {} otherwise."
    )
    comparable = serializers.DictField(
        help_text='Per instrument: {"protocols": {slug: protocol}, "comparable": false when the models\' results were '
        "asked by different protocols}."
    )


def subject_record(subject: profiles.Subject) -> dict[str, Any]:
    from instruments import registry

    order = {slug: index for index, slug in enumerate(registry.slugs())}
    entries = sorted(subject.results.values(), key=lambda entry: order.get(entry.instrument, len(order)))
    return {
        "slug": subject.slug,
        "name": subject.name,
        "results": [entry.record() for entry in entries],
        "editions": edition_records(subject),
    }


def edition_records(subject: profiles.Subject) -> list[dict[str, Any]]:
    """Per instrument in more than one language (`profiles.subject_editions`): each language's result and, per other
    language and figure, its difference from the base edition."""
    records = []
    for slug, editions in profiles.subject_editions(subject).items():
        codes = [language["code"] for language in editions["languages"]]
        differences = [
            {"language": code, **difference}
            for code_index, code in enumerate(editions["others"])
            for row in editions["rows"]
            if (difference := row["differences"][code_index]) is not None
        ]
        records.append(
            {
                "instrument": slug,
                "base": editions["base"],
                "languages": codes,
                "results": [subject.editions[slug][code].record() for code in codes],
                "differences": differences,
            }
        )
    return records


class ModelResultsApi(APIView):
    """A model's published result on every instrument: figures, whole summary, run, diagnostics."""

    @extend_schema(
        operation_id="model_results",
        responses={200: ModelResultsSerializer, **error_responses(401, 404, e404="No model with this slug.")},
    )
    def get(self, request: Request, slug: str) -> Response:
        subjects, missing = profiles.model_subjects([slug])
        if missing:
            raise NotFound(_("No model %(slug)s.") % {"slug": repr(slug)})
        profiles.subjects_with_figures(subjects)
        return Response(subject_record(subjects[0]))


class CompareApi(APIView):
    """Up to six models side by side, with people's medians and, for two models, their paired differences."""

    @extend_schema(
        operation_id="compare",
        parameters=[
            OpenApiParameter(
                "models",
                OpenApiTypes.STR,
                required=True,
                description="Model slugs separated by commas (or the parameter repeated), at most 6.",
            )
        ],
        responses={
            200: ComparisonSerializer,
            **error_responses(
                400, 401, 404, e400="No model named, or more than 6.", e404="A named model does not exist."
            ),
        },
    )
    def get(self, request: Request) -> Response:
        data = comparison(compare_slugs(request.query_params.getlist("models")))
        return Response(
            {
                "models": [subject_record(subject) for subject in data["subjects"]],
                "people": subject_record(data["people"]) if data["people"] else None,
                "differences": data["differences"],
                "comparable": {slug: profiles.protocols_compared(data["subjects"], slug) for slug in data["contexts"]},
            }
        )

"""REST API of the instrument, the retained keys and profile scoring (`/api/v1/`). One class per operation."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema, extend_schema_serializer
from rest_framework import permissions, serializers
from rest_framework.generics import ListAPIView
from rest_framework.parsers import JSONParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from scoring import OPTIONS
from surveys import selectors, services
from virtuemap_site.api import ConditionalGetMixin, ErrorSerializer
from virtuemap_site.errors import ApplicationError

NOT_FOUND = OpenApiResponse(ErrorSerializer, description="No such page (or object).")


class VirtueListApi(ConditionalGetMixin, ListAPIView):
    """The five virtues of the instrument, in instrument order."""

    @extend_schema_serializer(component_name="Virtue")
    class OutputSerializer(serializers.Serializer):
        id = serializers.CharField(help_text="The id used in scores and keys, e.g. wisdom.")
        name = serializers.CharField()
        greek_name = serializers.CharField()
        short_definition = serializers.CharField()
        definition = serializers.CharField()

    serializer_class = OutputSerializer

    def get_queryset(self):
        return selectors.virtue_list()

    @extend_schema(operation_id="virtue_list", responses={200: OutputSerializer(many=True), 404: NOT_FOUND})
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class DilemmaListApi(ConditionalGetMixin, ListAPIView):
    """The dilemmas, in instrument order, each with its five responses A–E."""

    @extend_schema_serializer(component_name="Dilemma")
    class OutputSerializer(serializers.Serializer):
        @extend_schema_serializer(component_name="Option")
        class OptionSerializer(serializers.Serializer):
            letter = serializers.ChoiceField(choices=OPTIONS)
            text = serializers.CharField()

        id = serializers.CharField(help_text="e.g. D1")
        title = serializers.CharField()
        scenario = serializers.CharField()
        options = OptionSerializer(many=True)

    serializer_class = OutputSerializer

    def get_queryset(self):
        return selectors.dilemma_list_with_options().order_by("position")

    @extend_schema(operation_id="dilemma_list", responses={200: OutputSerializer(many=True), 404: NOT_FOUND})
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class KeyListApi(ConditionalGetMixin, ListAPIView):
    """The retained keys: for each dilemma × virtue, the ordering of A–E from most to least expressive."""

    class FilterSerializer(serializers.Serializer):
        dilemma = serializers.CharField(required=False, help_text="Only this dilemma's keys, e.g. D1.")
        virtue = serializers.CharField(required=False, help_text="Only this virtue's keys, e.g. wisdom.")

    @extend_schema_serializer(component_name="Key")
    class OutputSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        dilemma = serializers.CharField(source="dilemma_id")
        virtue = serializers.CharField(source="virtue_id")
        ordering = serializers.ListField(
            child=serializers.ChoiceField(choices=OPTIONS),
            source="ordering_letters",
            help_text="Most expressive first.",
        )
        round = serializers.IntegerField(help_text="0 for the published key, 1… for validation rounds.")
        provenance = serializers.CharField(help_text="published, proposed or consensus.")
        N = serializers.IntegerField(source="n_evaluations", help_text="Evaluations in the validation study.")
        Y = serializers.IntegerField(source="n_confirmations", help_text="Confirmations among them.")
        q = serializers.FloatField(source="confirmation_rate", allow_null=True, help_text="Y/N; null while N = 0.")
        retained_at = serializers.DateTimeField(source="decided_at", allow_null=True)

    serializer_class = OutputSerializer

    def get_queryset(self):
        filters = self.FilterSerializer(data=self.request.query_params)
        filters.is_valid(raise_exception=True)
        return selectors.retained_key_list(**filters.validated_data)

    def last_modified(self) -> datetime | None:
        return selectors.retained_key_last_modified()

    @extend_schema(
        operation_id="key_list",
        parameters=[FilterSerializer],
        responses={200: OutputSerializer(many=True), 404: NOT_FOUND},
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


SCORE_ERROR_DESCRIPTION = """The rankings cannot be scored. `message` names every dilemma at fault and its problem;
`extra.errors` lists them as `{dilemma, problem, message}` with `problem` one of: `empty_body` (no `rankings`),
`not_an_object` (`rankings` is not an object), `unknown_dilemma`, `not_a_list`, `not_five` (not five items),
`wrong_letters` (an item is not one of A–E), `repeats` (a letter appears twice). A body that is not JSON gets the same
shape with the parser's message."""


class ProfileScoreApi(APIView):
    """Score rankings of any subset of the dilemmas into a virtue profile. Stateless: nothing is stored."""

    # Scoring writes nothing, so anyone may POST (throttled); no session means no CSRF token to fetch first.
    authentication_classes: list = []
    permission_classes = [permissions.AllowAny]
    parser_classes = [JSONParser]

    @extend_schema_serializer(component_name="ProfileScoreRequest")
    class InputSerializer(serializers.Serializer):
        rankings = serializers.DictField(
            child=serializers.ListField(
                child=serializers.ChoiceField(choices=OPTIONS), min_length=5, max_length=5, allow_null=True
            ),
            help_text="Dilemma id → the five letters A–E from most to least ethically preferable; "
            "null (or leaving the dilemma out) skips it.",
        )

    @extend_schema_serializer(component_name="ProfileScore")
    class OutputSerializer(serializers.Serializer):
        @extend_schema_serializer(component_name="UsedKey")
        class KeySerializer(serializers.Serializer):
            id = serializers.IntegerField()
            dilemma = serializers.CharField()
            virtue = serializers.CharField()
            ordering = serializers.ListField(child=serializers.ChoiceField(choices=OPTIONS))
            round = serializers.IntegerField()
            provenance = serializers.CharField()

            def to_representation(self, key: selectors.RetainedKey) -> dict[str, Any]:
                return {**key.__dict__, "ordering": list(key.ordering)}

        @extend_schema_serializer(component_name="NearestModel")
        class NearestModelSerializer(serializers.Serializer):
            slug = serializers.CharField()
            name = serializers.CharField()
            similarity = serializers.FloatField(help_text="100·(cos+1)/2 of the centered profiles, 0–100.")

        scores = serializers.DictField(
            child=serializers.FloatField(allow_null=True),
            help_text="Virtue id → score 0–100; null when no answered dilemma has a key for the virtue.",
        )
        per_dilemma = serializers.DictField(
            child=serializers.DictField(child=serializers.FloatField()),
            help_text="Dilemma id → virtue id → normalized Borda alignment S, 0–100.",
        )
        answered = serializers.ListField(child=serializers.CharField())
        skipped = serializers.ListField(child=serializers.CharField())
        keys = KeySerializer(many=True, help_text="The retained keys that entered a score.")
        nearest_models = NearestModelSerializer(many=True, help_text="Up to three, most similar first.")

    @extend_schema(
        operation_id="profile_score",
        request=InputSerializer,
        responses={
            200: OutputSerializer,
            400: OpenApiResponse(ErrorSerializer, description=SCORE_ERROR_DESCRIPTION),
            429: OpenApiResponse(ErrorSerializer, description="Too many requests from this client; retry later."),
        },
        examples=[
            OpenApiExample(
                "Two dilemmas",
                value={"rankings": {"D1": ["C", "B", "A", "D", "E"], "D2": ["A", "B", "C", "D", "E"]}},
                request_only=True,
            )
        ],
    )
    def post(self, request: Request) -> Response:
        if not isinstance(request.data, dict):
            raise ApplicationError(
                'the body must be a JSON object with "rankings"',
                {"errors": [{"dilemma": None, "problem": "not_an_object", "message": "the body is not an object"}]},
            )
        result = services.profile_score(rankings=request.data.get("rankings"))
        return Response(self.OutputSerializer(result).data)

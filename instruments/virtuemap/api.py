"""The VirtueMap instrument's REST API (`/api/v1/`): virtues, dilemmas, retained keys, scoring a person's rankings,
and the published model profiles. One class per operation."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.http import HttpResponseBase
from django.utils.translation import gettext as _
from drf_spectacular.utils import (
    OpenApiExample,
    extend_schema,
    extend_schema_field,
    extend_schema_serializer,
)
from rest_framework import permissions, renderers, serializers
from rest_framework.exceptions import NotFound
from rest_framework.generics import ListAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from instruments.virtuemap import profiling as services
from instruments.virtuemap import selectors
from instruments.virtuemap.editions import item_text
from instruments.virtuemap.selectors import retained_key_last_modified
from llmruns.models import Result
from llmruns.results import CurrentDependencies, result_is_stale
from scoring import OPTIONS
from virtuemap_site.api import (
    ConditionalGetMixin,
    FastJSONRenderer,
    JSONParser,
    PlainJSONRequestMixin,
    error_responses,
    refuse_unknown_fields,
)
from virtuemap_site.errors import ApplicationError
from virtuemap_site.i18n import translated

# --- Instrument, keys and profile scoring (/api/v1/) ---------------------------------------------------


class VirtueListApi(ConditionalGetMixin, ListAPIView):
    """The five virtues of the instrument, in instrument order, in the request's language (``?lang=zh-hans`` or
    Accept-Language: the Chinese edition; English otherwise)."""

    @extend_schema_serializer(component_name="Virtue")
    class OutputSerializer(serializers.Serializer):
        id = serializers.CharField(help_text="The id used in scores and keys, e.g. wisdom.")
        name = serializers.CharField()
        greek_name = serializers.CharField()
        short_definition = serializers.CharField()
        definition = serializers.CharField()

        def to_representation(self, virtue: Any) -> dict[str, Any]:
            texts = {name: item_text(virtue, name) for name in ("name", "short_definition", "definition")}
            return {**super().to_representation(virtue), **texts}

    serializer_class = OutputSerializer

    def get_queryset(self):
        return selectors.virtue_list()

    @extend_schema(
        operation_id="virtue_list", responses={200: OutputSerializer(many=True), **error_responses(401, 404)}
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class DilemmaListApi(ConditionalGetMixin, ListAPIView):
    """The dilemmas, in instrument order, each with its five responses A–E, in the request's language (``?lang=``
    or Accept-Language, as the virtues)."""

    @extend_schema_serializer(component_name="Dilemma")
    class OutputSerializer(serializers.Serializer):
        @extend_schema_serializer(component_name="Option")
        class OptionSerializer(serializers.Serializer):
            letter = serializers.ChoiceField(choices=OPTIONS)
            text = serializers.CharField()

            def to_representation(self, option: Any) -> dict[str, Any]:
                return {**super().to_representation(option), "text": item_text(option, "text")}

        id = serializers.CharField(help_text="e.g. D1")
        title = serializers.CharField()
        scenario = serializers.CharField()
        options = OptionSerializer(many=True)

        def to_representation(self, dilemma: Any) -> dict[str, Any]:
            texts = {name: item_text(dilemma, name) for name in ("title", "scenario")}
            return {**super().to_representation(dilemma), **texts}

    serializer_class = OutputSerializer

    def get_queryset(self):
        return selectors.dilemma_list_with_options().order_by("position")

    @extend_schema(
        operation_id="dilemma_list", responses={200: OutputSerializer(many=True), **error_responses(401, 404)}
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class KeyListApi(ConditionalGetMixin, ListAPIView):
    """The retained keys of one edition: for each dilemma × virtue, the ordering of A–E from most to least
    expressive. A translated edition lists only the keys its own respondents validated."""

    class FilterSerializer(serializers.Serializer):
        dilemma = serializers.CharField(required=False, help_text="Only this dilemma's keys, e.g. D1.")
        virtue = serializers.CharField(required=False, help_text="Only this virtue's keys, e.g. wisdom.")
        language = serializers.CharField(
            required=False,
            default=selectors.ENGLISH,
            help_text="The edition whose keys to list: en (the default) or zh-hans (zh also works).",
        )

        def validate_language(self, value: str) -> str:
            return _edition_parameter(value)

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
        provenance = serializers.CharField(help_text="published, proposed, consensus or english_key.")
        language = serializers.CharField(help_text="The edition whose respondents validated it (en, zh-hans).")
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
        responses={200: OutputSerializer(many=True), **error_responses(400, 401, 404)},
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


SCORE_ERROR_DESCRIPTION = """The rankings cannot be scored. `message` names every dilemma at fault and its problem;
`extra.errors` lists them as `{dilemma, problem, message}` with `problem` one of: `empty_body` (no `rankings`),
`not_an_object` (`rankings` is not an object), `unknown_dilemma`, `not_a_list`, `not_five` (not five items),
`wrong_letters` (an item is not one of A–E), `repeats` (a letter appears twice). A body that is not JSON gets the same
shape with the parser's message."""


class ProfileScoreApi(PlainJSONRequestMixin, APIView):
    """Score rankings of any subset of the dilemmas into a virtue profile. Stateless: nothing is stored."""

    # Scoring writes nothing, so anyone may POST (throttled); no session means no CSRF token to fetch first.
    authentication_classes: list = []
    permission_classes = [permissions.AllowAny]
    parser_classes = [JSONParser]
    # The API's hot path (see README "Score API performance"): the same renderers as every view, JSON by orjson.
    renderer_classes = [FastJSONRenderer, renderers.BrowsableAPIRenderer]

    @extend_schema_serializer(component_name="ProfileRankings")
    class InputSerializer(serializers.Serializer):
        rankings = serializers.DictField(
            child=serializers.ListField(
                child=serializers.ChoiceField(choices=OPTIONS), min_length=5, max_length=5, allow_null=True
            ),
            help_text="Dilemma id → the five letters A–E from most to least ethically preferable; "
            "null (or leaving the dilemma out) skips it.",
        )
        language = serializers.ChoiceField(
            choices=[code for code, _ in settings.LANGUAGES],
            required=False,
            default=selectors.ENGLISH,
            help_text="The language the rankings were given in (en or zh-hans; zh also works): each dilemma × virtue "
            "is scored with that edition's retained key, else the English one (`key_language` says which).",
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
            language = serializers.CharField(help_text="The edition that retained this key.")

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
        language = serializers.CharField(help_text="The language the rankings were scored in.")
        key_language = serializers.DictField(
            child=serializers.DictField(child=serializers.CharField()),
            help_text="Answered dilemma id → virtue id → the edition whose key scored it: `language` where that "
            "edition has retained its own key, else en.",
        )
        nearest_models = NearestModelSerializer(many=True, help_text="Up to three, most similar first.")

    @extend_schema(
        operation_id="profile_score",
        request=InputSerializer,
        responses={
            200: OutputSerializer,
            **error_responses(400, 429, e400=SCORE_ERROR_DESCRIPTION),
        },
        examples=[
            OpenApiExample(
                "Two dilemmas",
                value={"rankings": {"D1": ["C", "B", "A", "D", "E"], "D2": ["A", "B", "C", "D", "E"]}},
                request_only=True,
            )
        ],
    )
    def post(self, request: Request) -> HttpResponseBase:
        # The API's hot path: the body read and the answer rendered without DRF's stream and template response.
        data = self.plain_json_data(request)
        if not isinstance(data, dict):
            problem = {"dilemma": None, "problem": "not_an_object", "message": _("the body is not an object")}
            raise ApplicationError(_('the body must be a JSON object with "rankings"'), {"errors": [problem]})
        refuse_unknown_fields(data, ("rankings", "language"))
        language = _edition_parameter(data.get("language", selectors.ENGLISH))
        context = selectors.profile_scoring_context(language=language)
        result = services.profile_score(rankings=data.get("rankings"), context=context)
        return self.plain_json_response(request, _profile_score_body(result, context))


def _edition_parameter(language: object) -> str:
    """The edition a score request names, or a 400 that lists the editions."""
    edition = selectors.key_edition(language, default=None) if isinstance(language, str) else None
    if edition is None:
        editions = selectors.key_editions()
        raise ApplicationError(
            f'Unknown language {language!r}: "language" must be one of {", ".join(editions)}.',
            {"field": "language", "languages": list(editions)},
        )
    return edition


@dataclass(frozen=True)
class _ContextBodies:
    """What a score body shows of its scoring context, by answered dilemma: each key as `UsedKey` and the edition of
    each key (`ProfileResult.key_language`)."""

    keys: dict[str, list[dict[str, Any]]]
    key_language: dict[str, dict[str, str]]


@functools.lru_cache(maxsize=8)
def _context_bodies(context: selectors.ProfileScoringContext) -> _ContextBodies:
    """`_ContextBodies` of a scoring context, built once and shared, read only, by every body scored with it: built
    per request they cost about half as much as the scoring. A changed key brings a new context
    (`selectors.profile_scoring_context`), hence new bodies; the few kept here are the editions' current contexts and
    the ones just replaced."""
    shown = ProfileScoreApi.OutputSerializer.KeySerializer()
    keys: dict[str, list[dict[str, Any]]] = {}
    for key in context.keys:
        keys.setdefault(key.dilemma, []).append(shown.to_representation(key))
    return _ContextBodies(keys=keys, key_language=selectors.key_language_map(context.keys))


def _profile_score_body(result: services.ProfileResult, context: selectors.ProfileScoringContext) -> dict[str, Any]:
    """`ProfileScoreApi.OutputSerializer`'s shape, built directly: this is the API's hot path, and DRF's field
    machinery cost more than the scoring itself (the schemathesis test checks bodies against the schema).
    ``context`` is the one that scored ``result``, whose keys are the context's keys of the answered dilemmas, in the
    context's order."""
    bodies = _context_bodies(context)
    return {
        "scores": result.scores,
        "per_dilemma": result.per_dilemma,
        "answered": list(result.answered),
        "skipped": list(result.skipped),
        "keys": [key for dilemma in result.answered for key in bodies.keys.get(dilemma, ())],
        "language": result.language,
        "key_language": {
            dilemma: bodies.key_language[dilemma] for dilemma in result.answered if dilemma in bodies.key_language
        },
        "nearest_models": [
            {"slug": model.slug, "name": model.name, "similarity": model.similarity} for model in result.nearest_models
        ],
    }


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


@extend_schema_serializer(component_name="DiagnosticFlag")
class _DiagnosticFlagSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="position, label_mass or refusals.")
    reason = serializers.CharField(
        help_text="What is wrong, in plain words, with the statistic behind it (in the request's language)."
    )


@extend_schema_serializer(component_name="Diagnostics")
class DiagnosticsOutputSerializer(serializers.Serializer):
    """A result's answer-quality diagnostics (`scoring.diagnostics`): see docs/diagnostics.md."""

    available = serializers.BooleanField(help_text="False for a result with no stored answers (entered in admin).")
    flags = _DiagnosticFlagSerializer(many=True, help_text="Empty when the answers passed every check.")
    answers = serializers.JSONField(allow_null=True, help_text="Counts and shares of answer statuses and re-asks.")
    position = serializers.JSONField(
        allow_null=True, help_text="Position following beside its chance level, with exact binomial tests."
    )
    label_mass = serializers.JSONField(allow_null=True, help_text="Label mass of log-probability answers.")
    thresholds = serializers.JSONField(allow_null=True, help_text="The thresholds the flags were set with.")

    def to_representation(self, record: dict[str, Any] | None) -> dict[str, Any]:
        record = record or {}
        fields = ("answers", "position", "label_mass", "thresholds")
        flags = [{"code": flag["code"], "reason": translated(flag, "reason")} for flag in record.get("flags") or []]
        return {"available": bool(record), "flags": flags} | {name: record.get(name) for name in fields}


@extend_schema_serializer(component_name="ModelProfile")
class ModelProfileOutputSerializer(serializers.Serializer):
    """A published profile; field names follow the original VirtueMap run-suite's output."""

    slug = serializers.CharField(source="model.slug", help_text="e.g. openai/gpt-5 (may contain a slash).")
    name = serializers.CharField(source="model.name")
    family = serializers.CharField(source="model.family")
    source = serializers.SerializerMethodField(
        help_text="admin, suite, import, or paper (a row of the paper's Table 1 as printed, not a run)."
    )
    citation = serializers.CharField(help_text="For a published row: the paper and its table; blank otherwise.")
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
    diagnostics = DiagnosticsOutputSerializer(
        help_text="Answer-quality diagnostics: a flagged profile may measure the presentation order, not the model."
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
    """Every published model profile, by model name, the paper's Table 1 rows among them ("source": "paper")."""

    serializer_class = ModelProfileOutputSerializer

    def get_queryset(self):
        return selectors.published_profile_list(with_paper_rows=True)

    def get_serializer_context(self) -> dict[str, Any]:
        return super().get_serializer_context() | {"current_dependencies": CurrentDependencies()}

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
            raise NotFound(_("No published profile for model %(slug)s.") % {"slug": repr(slug)})
        context = {"current_dependencies": CurrentDependencies()}
        return Response(ModelProfileOutputSerializer(self.profile, context=context).data)


def _latest(*moments: datetime | None) -> datetime | None:
    known = [moment for moment in moments if moment is not None]
    return max(known) if known else None

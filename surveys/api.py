"""The JSON API of the surveys app: the validation study (`/api/v1/study/`, for custom front ends and automated
respondents), and the instrument, the retained keys and profile scoring (`/api/v1/`). One class per operation.

Study authentication: `POST consent/` returns a token once; later calls send it as `X-Respondent-Token`. Only its
SHA-256 is stored. Every error is `{"message": …, "extra": {…}}` with a 4xx status, and nothing is written.
"""

from __future__ import annotations

import hmac
from datetime import datetime
from typing import Any

from django.conf import settings
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiResponse,
    extend_schema,
    extend_schema_serializer,
    inline_serializer,
)
from rest_framework import authentication, exceptions, permissions, renderers, serializers, status
from rest_framework.generics import ListAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from scoring import OPTIONS
from surveys import selectors, services
from surveys.models import Assignment, Respondent, Study
from virtuemap_site.abuse import ConsentRateThrottle, SubmitRateThrottle, network_bucket
from virtuemap_site.api import (
    RESPONDENT_TOKEN,
    AnonymousPostThrottle,
    ConditionalGetMixin,
    ErrorSerializer,
    FastJSONRenderer,
    JSONParser,
    PlainJSONRequestMixin,
    StrictBooleanField,
    error_responses,
)
from virtuemap_site.errors import ApplicationError

STUDY = Study.VALIDATION
TOKEN_HEADER = RESPONDENT_TOKEN
CLIENT_HEADER = "X-Study-Client"


def errors(*statuses: int) -> dict[int, OpenApiResponse]:
    descriptions = {
        400: "Bad input (not JSON, unknown fields, an ordering that is not a permutation of A–E).",
        401: f"Missing, unknown or expired {TOKEN_HEADER}.",
        403: "Refused: the study API is off or only for registered front ends (STUDY_API), the study admits only "
        "its panel's arrivals (STUDY_ACCESS), or the candidate or attention check was not assigned to this "
        "respondent.",
        409: "Conflicts with stored state: an outdated consent version, or a different answer to an item already "
        "answered (the first answer stands; `extra.stored` shows it).",
        429: "Too many requests from this client (STUDY_CONSENT_RATE, STUDY_SUBMIT_RATE); retry after "
        "`extra.wait_seconds`.",
    }
    return {code: OpenApiResponse(ErrorSerializer, description=descriptions[code]) for code in statuses}


class RespondentTokenAuthentication(authentication.BaseAuthentication):
    """`X-Respondent-Token: <token>` → `request.auth` is the Respondent; no Django user is involved.

    A token answers and reads for STUDY_TOKEN_TTL_HOURS after consent; withdrawing with it works for ever.
    """

    def authenticate(self, request):
        token = request.headers.get(TOKEN_HEADER)
        if not token:
            return None
        respondent = selectors.respondent_by_token(token=token, study=STUDY)
        if respondent is None:
            raise exceptions.AuthenticationFailed(f"Unknown {TOKEN_HEADER}: consent first, or use the token it gave.")
        if request.method != "DELETE" and selectors.respondent_token_expired(respondent=respondent):
            raise exceptions.AuthenticationFailed(
                f"This {TOKEN_HEADER} has expired (tokens last {settings.STUDY_TOKEN_TTL_HOURS} h); "
                "withdrawing with it still works."
            )
        return (None, respondent)

    def authenticate_header(self, request):
        return TOKEN_HEADER


class RespondentTokenScheme(OpenApiAuthenticationExtension):
    target_class = RespondentTokenAuthentication
    name = "respondentToken"

    def get_security_definition(self, auto_schema):
        return {"type": "apiKey", "in": "header", "name": TOKEN_HEADER}


class StudyApiOpen(permissions.BasePermission):
    """STUDY_API: "open" to anyone, "clients" to front ends that send one of STUDY_API_CLIENT_KEYS as
    X-Study-Client, or "off". Withdrawing (DELETE with a respondent token) is never refused here."""

    def has_permission(self, request, view):
        if settings.STUDY_API == "open" or request.method == "DELETE":
            return True
        if settings.STUDY_API == "clients":
            sent = request.headers.get(CLIENT_HEADER, "").encode()
            if any(hmac.compare_digest(sent, key.encode()) for key in settings.STUDY_API_CLIENT_KEYS):
                return True
            raise exceptions.PermissionDenied(
                f"The study API takes only registered front ends: send the site's client key as {CLIENT_HEADER}."
            )
        raise exceptions.PermissionDenied("The study API is turned off on this site; take part through its pages.")


class HasRespondentToken(permissions.BasePermission):
    message = f"Send the {TOKEN_HEADER} header that POST /api/v1/study/consent/ returned."

    def has_permission(self, request, view):
        return isinstance(request.auth, Respondent)


class RespondentApiView(APIView):
    # The respondent token, never cookies: no session, so no cross-site request can act as a respondent.
    authentication_classes = [RespondentTokenAuthentication]
    permission_classes = [StudyApiOpen, HasRespondentToken]
    throttle_classes = [AnonymousPostThrottle, SubmitRateThrottle]

    def permission_denied(self, request, message=None, code=None):
        # Without a token DRF would say "Authentication credentials were not provided"; name the header.
        raise exceptions.NotAuthenticated(HasRespondentToken.message)


class ConsentApi(APIView):
    authentication_classes: list = []
    permission_classes = [StudyApiOpen]
    throttle_classes = [AnonymousPostThrottle, ConsentRateThrottle]

    @extend_schema_serializer(component_name="ConsentText")
    class OutputSerializer(serializers.Serializer):
        study = serializers.CharField()
        version = serializers.CharField()
        title = serializers.CharField()
        information_sheet = serializers.CharField()
        consent_statement = serializers.CharField()
        text_hash = serializers.CharField()

    @extend_schema_serializer(component_name="ConsentRequest")
    class InputSerializer(serializers.Serializer):
        consent_version = serializers.CharField(max_length=32)
        accept = StrictBooleanField()
        panel = serializers.DictField(
            child=serializers.CharField(max_length=128, allow_blank=True),
            required=False,
            help_text="Query parameters of the panel link: PROLIFIC_PID, STUDY_ID, SESSION_ID, or pid.",
        )

    @extend_schema_serializer(component_name="ConsentCreated")
    class CreatedSerializer(serializers.Serializer):
        respondent = serializers.UUIDField()
        token = serializers.CharField(help_text=f"Send as {TOKEN_HEADER}; shown only now.")
        resumed = serializers.BooleanField(help_text="The respondent of this panel session was resumed.")

    @extend_schema(
        operation_id="study_consent_read", responses={200: OutputSerializer, 404: ErrorSerializer, **errors(403)}
    )
    def get(self, request):
        text = selectors.consent_text_current(study=STUDY)
        if text is None:
            raise exceptions.NotFound("The validation study has no consent text yet.")
        return Response(self.OutputSerializer({**vars(text), "study": text.study}).data)

    @extend_schema(
        operation_id="study_consent_give",
        request=InputSerializer,
        responses={201: CreatedSerializer, 200: CreatedSerializer, **errors(400, 403, 409, 429)},
        description="Consent to the current text. `accept: false` stores nothing (400, with the no-consent "
        "completion code for panel arrivals). An arrival from the same panel session (PROLIFIC_PID, STUDY_ID and "
        "SESSION_ID) resumes its respondent (200); a panel ID alone resumes nobody.",
    )
    def post(self, request):
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        outcome = services.respondent_consent(
            study=STUDY,
            consent_version=data["consent_version"],
            accept=data["accept"],
            panel=data.get("panel"),
            network_bucket=network_bucket(request),
        )
        body = {"respondent": outcome.respondent.pk, "token": outcome.token, "resumed": outcome.resumed}
        return Response(body, status=status.HTTP_200_OK if outcome.resumed else status.HTTP_201_CREATED)


def item_payload(assignment: Assignment, progress: dict[str, int]) -> dict:
    dilemma = assignment.dilemma
    payload = {
        "kind": assignment.kind,
        "dilemma": {
            "id": dilemma.id,
            "title": dilemma.title,
            "scenario": dilemma.scenario,
            "options": {option.letter: option.text for option in dilemma.options.all()},
        },
        "ordering": list(assignment.displayed_order),
        "progress": {**progress, "position": assignment.position},
    }
    if assignment.kind == Assignment.Kind.ATTENTION_CHECK:
        payload["attention_check"] = assignment.pk
        payload["instruction"] = attention_check_instruction(assignment)
    else:
        virtue = assignment.virtue
        payload["candidate"] = assignment.candidate_id
        payload["virtue"] = {
            "id": virtue.id,
            "name": virtue.name,
            "short_definition": virtue.short_definition,
            "definition": virtue.definition,
        }
    return payload


def attention_check_instruction(assignment: Assignment) -> str:
    return f"To show that you are reading carefully, please place response {assignment.check_letter} first."


class NextItemApi(RespondentApiView):
    @extend_schema(
        operation_id="study_next_item",
        responses={
            200: inline_serializer(
                "StudyItem",
                {
                    "kind": serializers.ChoiceField(choices=Assignment.Kind.choices),
                    "candidate": serializers.IntegerField(required=False),
                    "attention_check": serializers.IntegerField(required=False),
                    "instruction": serializers.CharField(required=False),
                    "dilemma": serializers.DictField(),
                    "virtue": serializers.DictField(required=False),
                    "ordering": serializers.ListField(child=serializers.CharField()),
                    "progress": serializers.DictField(child=serializers.IntegerField()),
                },
            ),
            204: OpenApiResponse(description="The respondent is done, or nothing is open."),
            **errors(401, 403),
        },
    )
    def get(self, request):
        assignment = services.validation_next_assignment(respondent=request.auth)
        if assignment is None:
            return Response(status=status.HTTP_204_NO_CONTENT)
        assignment = selectors.assignment_for_display(assignment_id=assignment.pk)
        return Response(item_payload(assignment, selectors.respondent_progress(respondent=request.auth)))


class ResponseCreateApi(RespondentApiView):
    @extend_schema_serializer(component_name="StudyResponseRequest")
    class InputSerializer(serializers.Serializer):
        candidate = serializers.IntegerField(required=False)
        attention_check = serializers.IntegerField(required=False)
        confirmed = StrictBooleanField(required=False)
        # Letters are checked by the service, whose messages name the problem ("unknown option 'X'").
        ordering = serializers.ListField(child=serializers.JSONField(), required=False, allow_empty=True)
        time_on_item_ms = serializers.IntegerField(required=False, min_value=0)

        def validate(self, data):
            unknown = set(self.initial_data) - set(self.fields) if isinstance(self.initial_data, dict) else set()
            if unknown:
                raise serializers.ValidationError(f"Unknown field(s): {', '.join(sorted(unknown))}.")
            if ("candidate" in data) == ("attention_check" in data):
                raise serializers.ValidationError("Send either 'candidate' or 'attention_check'.")
            if "candidate" in data and "confirmed" not in data:
                raise serializers.ValidationError("'confirmed' is required with 'candidate'.")
            if "candidate" in data and data["confirmed"] is False and "ordering" not in data:
                raise serializers.ValidationError("A correction (confirmed: false) needs an 'ordering'.")
            if "attention_check" in data and "ordering" not in data:
                raise serializers.ValidationError("An attention check needs an 'ordering'.")
            return data

    @extend_schema_serializer(component_name="StudyResponse")
    class OutputSerializer(serializers.Serializer):
        candidate = serializers.IntegerField(required=False)
        attention_check = serializers.IntegerField(required=False)
        confirmed = serializers.BooleanField(required=False)
        ordering = serializers.ListField(child=serializers.CharField())
        submitted_at = serializers.DateTimeField()
        progress = serializers.DictField(child=serializers.IntegerField())

    @extend_schema(
        operation_id="study_response_submit",
        request=InputSerializer,
        responses={
            201: OutputSerializer,
            200: OpenApiResponse(OutputSerializer, description="A repeat: the stored response, not counted again."),
            **errors(400, 401, 403, 409, 429),
        },
    )
    def post(self, request):
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        if "attention_check" in data:
            check = services.attention_check_submit(
                respondent=request.auth, assignment_id=data["attention_check"], ordering=data["ordering"]
            )
            body = {
                "attention_check": check.pk,
                "ordering": list(check.check_answer),
                "submitted_at": check.answered_at,
            }
            created = True
        else:
            outcome = services.validation_response_submit(
                respondent=request.auth,
                candidate_id=data["candidate"],
                confirmed=data["confirmed"],
                ordering=data.get("ordering"),
                time_on_item_ms=data.get("time_on_item_ms"),
            )
            response = outcome.response
            body = {
                "candidate": response.candidate_id,
                "confirmed": response.confirmed,
                "ordering": list(response.ordering),
                "submitted_at": response.submitted_at,
            }
            created = outcome.created
        body["progress"] = selectors.respondent_progress(respondent=request.auth)
        return Response(
            self.OutputSerializer(body).data, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK
        )


class RespondentApi(RespondentApiView):
    @extend_schema_serializer(component_name="StudyRespondent")
    class OutputSerializer(serializers.Serializer):
        respondent = serializers.UUIDField()
        complete = serializers.BooleanField()
        completion_code = serializers.CharField(allow_null=True)
        redirect_url = serializers.CharField(allow_null=True)
        progress = serializers.DictField(child=serializers.IntegerField())

    @extend_schema_serializer(component_name="StudyDemographics")
    class DemographicsSerializer(serializers.Serializer):
        age_band = serializers.ChoiceField(Respondent.AgeBand.choices, required=False, allow_blank=True)
        gender = serializers.ChoiceField(Respondent.Gender.choices, required=False, allow_blank=True)
        country = serializers.ChoiceField(Respondent.Country.choices, required=False, allow_blank=True)
        education = serializers.ChoiceField(Respondent.Education.choices, required=False, allow_blank=True)
        native_language = serializers.ChoiceField(Respondent.NativeLanguage.choices, required=False, allow_blank=True)

    @extend_schema(operation_id="study_respondent_read", responses={200: OutputSerializer, **errors(401, 403)})
    def get(self, request):
        respondent = request.auth
        code = services.respondent_outcome_code(respondent=respondent) if respondent.is_complete else None
        redirect = settings.STUDY_PANEL_REDIRECT_URL.format(code=code) if code and respondent.panel else None
        body = {
            "respondent": respondent.pk,
            "complete": respondent.is_complete,
            "completion_code": code,
            "redirect_url": redirect,
            "progress": selectors.respondent_progress(respondent=respondent),
        }
        return Response(self.OutputSerializer(body).data)

    @extend_schema(
        operation_id="study_respondent_demographics",
        request=DemographicsSerializer,
        responses={
            204: OpenApiResponse(description="Stored; omitted questions are skipped."),
            **errors(400, 401, 403, 429),
        },
    )
    def patch(self, request):
        serializer = self.DemographicsSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        services.respondent_demographics_set(respondent=request.auth, answers=serializer.validated_data)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        operation_id="study_respondent_withdraw",
        responses={204: OpenApiResponse(description="Everything of this respondent is deleted."), **errors(401)},
    )
    def delete(self, request):
        services.respondent_withdraw(respondent=request.auth)
        return Response(status=status.HTTP_204_NO_CONTENT)


# --- Instrument, keys and profile scoring (/api/v1/) ---------------------------------------------------


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

    @extend_schema(
        operation_id="virtue_list", responses={200: OutputSerializer(many=True), **error_responses(401, 404)}
    )
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

    @extend_schema(
        operation_id="dilemma_list", responses={200: OutputSerializer(many=True), **error_responses(401, 404)}
    )
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
    def post(self, request: Request) -> Response:
        if not isinstance(request.data, dict):
            raise ApplicationError(
                'the body must be a JSON object with "rankings"',
                {"errors": [{"dilemma": None, "problem": "not_an_object", "message": "the body is not an object"}]},
            )
        result = services.profile_score(rankings=request.data.get("rankings"))
        return Response(_profile_score_body(result))


def _profile_score_body(result: services.ProfileResult) -> dict[str, Any]:
    """`ProfileScoreApi.OutputSerializer`'s shape, built directly: this is the API's hot path, and DRF's field
    machinery cost more than the scoring itself (the schemathesis test checks bodies against the schema)."""
    return {
        "scores": result.scores,
        "per_dilemma": result.per_dilemma,
        "answered": list(result.answered),
        "skipped": list(result.skipped),
        # id, dilemma, virtue, ordering, round, provenance: the dataclass's fields, copied in one go.
        "keys": [{**key.__dict__, "ordering": list(key.ordering)} for key in result.keys],
        "nearest_models": [
            {"slug": model.slug, "name": model.name, "similarity": model.similarity} for model in result.nearest_models
        ],
    }

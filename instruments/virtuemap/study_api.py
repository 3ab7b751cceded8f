"""The key-validation study's JSON API (`/api/v1/study/`): consent, the next item, answers, the respondent.

For front ends of the study other than the site's own pages; `STUDY_API` says whether it is open, limited to
registered clients or off (docs/threat-model.md). `POST consent/` returns a token once; later calls send it as
`X-Respondent-Token`. Only its SHA-256 is stored. Every error is `{"message": …, "extra": {…}}` with a 4xx status,
and nothing is written."""

from __future__ import annotations

import hmac

from django.conf import settings
from django.utils.translation import gettext as _
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.utils import (
    OpenApiResponse,
    extend_schema,
    extend_schema_serializer,
    inline_serializer,
)
from rest_framework import authentication, exceptions, permissions, serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from instruments.virtuemap.editions import item_text
from instruments.virtuemap.models import Assignment
from instruments.virtuemap.selectors import instrument_content, items_total, respondent_progress
from instruments.virtuemap.studies import VALIDATION
from instruments.virtuemap.validation import (
    assignment_edition,
    attention_check_submit,
    validation_next_assignment,
    validation_response_submit,
)
from surveys.demographics import country_choices, language_choices
from surveys.models import Respondent
from surveys.selectors import (
    consent_text_current,
    respondent_by_token,
    respondent_token_expired,
    study_information,
)
from surveys.services import (
    respondent_consent,
    respondent_demographics_set,
    respondent_outcome_code,
    respondent_withdraw,
)
from virtuemap_site.abuse import ConsentRateThrottle, SubmitRateThrottle, network_bucket
from virtuemap_site.api import (
    RESPONDENT_TOKEN,
    AnonymousPostThrottle,
    ErrorSerializer,
    StrictBooleanField,
    StrictSerializer,
)

STUDY = VALIDATION
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
        respondent = respondent_by_token(token=token, study=STUDY)
        if respondent is None:
            raise exceptions.AuthenticationFailed(
                _("Unknown %(header)s: consent first, or use the token it gave.") % {"header": TOKEN_HEADER}
            )
        if request.method != "DELETE" and respondent_token_expired(respondent=respondent):
            raise exceptions.AuthenticationFailed(
                _("This %(header)s has expired (tokens last %(hours)s h); withdrawing with it still works.")
                % {"header": TOKEN_HEADER, "hours": settings.STUDY_TOKEN_TTL_HOURS}
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
                _("The study API takes only registered front ends: send the site's client key as %(header)s.")
                % {"header": CLIENT_HEADER}
            )
        raise exceptions.PermissionDenied(_("The study API is turned off on this site; take part through its pages."))


def token_missing_message() -> str:
    # Worded when refused, so in the language of that request.
    return _("Send the %(header)s header that POST /api/v1/study/consent/ returned.") % {"header": TOKEN_HEADER}


class HasRespondentToken(permissions.BasePermission):
    @property
    def message(self) -> str:
        return token_missing_message()

    def has_permission(self, request, view):
        return isinstance(request.auth, Respondent)


class RespondentApiView(APIView):
    # The respondent token, never cookies: no session, so no cross-site request can act as a respondent.
    authentication_classes = [RespondentTokenAuthentication]
    permission_classes = [StudyApiOpen, HasRespondentToken]
    throttle_classes = [AnonymousPostThrottle, SubmitRateThrottle]

    def permission_denied(self, request, message=None, code=None):
        # Without a token DRF would say "Authentication credentials were not provided"; name the header.
        raise exceptions.NotAuthenticated(token_missing_message())


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
        researcher = serializers.CharField(help_text="Who answers for the study (the text's, else STUDY_RESEARCHER).")
        institution = serializers.CharField(help_text="The text's, else STUDY_INSTITUTION.")
        contact = serializers.CharField(help_text="For questions or complaints: the text's, else STUDY_CONTACT.")
        ethics_reference = serializers.CharField(help_text="The text's, else STUDY_ETHICS_REFERENCE.")
        items = serializers.IntegerField(help_text="Pages a respondent answers now, attention checks included.")
        attention_checks = serializers.IntegerField()
        minutes = serializers.IntegerField(help_text="About how long the pages take.")

    @extend_schema_serializer(component_name="ConsentRequest")
    class InputSerializer(StrictSerializer):
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
        participant_reference = serializers.CharField(
            help_text="Show it to the person (e.g. 7KQ4-M2XD-9PBR): with it they withdraw from any browser at "
            "/withdraw/. Shown only now; a resumed respondent gets a new one and the old one stops working."
        )

    @extend_schema(
        operation_id="study_consent_read", responses={200: OutputSerializer, 404: ErrorSerializer, **errors(403)}
    )
    def get(self, request):
        text = consent_text_current(study=STUDY)
        if text is None:
            raise exceptions.NotFound(_("The validation study has no consent text yet."))
        information = study_information(text=text)
        length = information.length
        body = {
            **vars(text),
            **vars(information),
            "items": length.items,
            "attention_checks": length.checks,
            "minutes": length.minutes,
        }
        return Response(self.OutputSerializer(body).data)

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
        outcome = respondent_consent(
            study=STUDY,
            consent_version=data["consent_version"],
            accept=data["accept"],
            panel=data.get("panel"),
            network_bucket=network_bucket(request),
        )
        body = {
            "respondent": outcome.respondent.pk,
            "token": outcome.token,
            "resumed": outcome.resumed,
            "participant_reference": outcome.reference,
        }
        return Response(body, status=status.HTTP_200_OK if outcome.resumed else status.HTTP_201_CREATED)


def item_payload(assignment: Assignment, progress: dict[str, int]) -> dict:
    """The item's texts in the respondent's edition (the language of their consent, whatever the request's), which
    ``language`` names: the answer counts for that edition's key."""
    dilemma, edition = assignment.dilemma, assignment_edition(assignment)
    payload = {
        "kind": assignment.kind,
        "language": edition,
        "dilemma": {
            "id": dilemma.id,
            "title": item_text(dilemma, "title", edition),
            "scenario": item_text(dilemma, "scenario", edition),
            "options": instrument_content().option_texts(dilemma.id, language=edition),
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
            "name": item_text(virtue, "name", edition),
            "short_definition": item_text(virtue, "short_definition", edition),
            "definition": item_text(virtue, "definition", edition),
        }
    return payload


def attention_check_instruction(assignment: Assignment) -> str:
    return _("To show that you are reading carefully, please place response %(letter)s first.") % {
        "letter": assignment.check_letter
    }


class NextItemApi(RespondentApiView):
    @extend_schema(
        operation_id="study_next_item",
        responses={
            200: inline_serializer(
                "StudyItem",
                {
                    "kind": serializers.ChoiceField(choices=Assignment.Kind.choices),
                    "language": serializers.CharField(
                        help_text="The edition the texts are in: the respondent's consent's, for the whole study."
                    ),
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
        assignment = validation_next_assignment(respondent=request.auth)
        if assignment is None:
            return Response(status=status.HTTP_204_NO_CONTENT)
        progress = {"answered": assignment.answered_before, "total": items_total()}
        return Response(item_payload(assignment, progress))


class ResponseCreateApi(RespondentApiView):
    @extend_schema_serializer(component_name="StudyResponseRequest")
    class InputSerializer(StrictSerializer):
        candidate = serializers.IntegerField(required=False)
        attention_check = serializers.IntegerField(required=False)
        confirmed = StrictBooleanField(required=False)
        # Letters are checked by the service, whose messages name the problem ("unknown option 'X'").
        ordering = serializers.ListField(child=serializers.JSONField(), required=False, allow_empty=True)
        time_on_item_ms = serializers.IntegerField(required=False, min_value=0)

        def validate(self, data):
            data = super().validate(data)
            if ("candidate" in data) == ("attention_check" in data):
                raise serializers.ValidationError(_("Send either 'candidate' or 'attention_check'."))
            if "candidate" in data and "confirmed" not in data:
                raise serializers.ValidationError(_("'confirmed' is required with 'candidate'."))
            if "candidate" in data and data["confirmed"] is False and "ordering" not in data:
                raise serializers.ValidationError(_("A correction (confirmed: false) needs an 'ordering'."))
            if "attention_check" in data and "ordering" not in data:
                raise serializers.ValidationError(_("An attention check needs an 'ordering'."))
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
            check = attention_check_submit(
                respondent=request.auth, assignment_id=data["attention_check"], ordering=data["ordering"]
            )
            body = {
                "attention_check": check.pk,
                "ordering": list(check.check_answer),
                "submitted_at": check.answered_at,
            }
            created = True
            answered = respondent_progress(respondent=request.auth)["answered"]
        else:
            outcome = validation_response_submit(
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
            answered = outcome.answered
        body["progress"] = {"answered": answered, "total": items_total()}
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
    class DemographicsSerializer(StrictSerializer):
        age_band = serializers.ChoiceField(Respondent.AgeBand.choices, required=False, allow_blank=True)
        gender = serializers.ChoiceField(Respondent.Gender.choices, required=False, allow_blank=True)
        country = serializers.ChoiceField(country_choices(), required=False, allow_blank=True)
        education = serializers.ChoiceField(Respondent.Education.choices, required=False, allow_blank=True)
        native_language = serializers.ChoiceField(language_choices(), required=False, allow_blank=True)

    @extend_schema(operation_id="study_respondent_read", responses={200: OutputSerializer, **errors(401, 403)})
    def get(self, request):
        respondent = request.auth
        code = respondent_outcome_code(respondent=respondent) if respondent.is_complete else None
        redirect = settings.STUDY_PANEL_REDIRECT_URL.format(code=code) if code and respondent.panel else None
        body = {
            "respondent": respondent.pk,
            "complete": respondent.is_complete,
            "completion_code": code,
            "redirect_url": redirect,
            "progress": respondent_progress(respondent=respondent),
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
        respondent_demographics_set(respondent=request.auth, answers=serializer.validated_data)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        operation_id="study_respondent_withdraw",
        responses={204: OpenApiResponse(description="Everything of this respondent is deleted."), **errors(401)},
    )
    def delete(self, request):
        respondent_withdraw(respondent=request.auth)
        return Response(status=status.HTTP_204_NO_CONTENT)

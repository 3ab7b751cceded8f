"""Shared REST API pieces: permissions, throttling, pagination, conditional GET, the error serializer."""

from __future__ import annotations

import hashlib
import io
import json
from datetime import datetime
from typing import Any

import orjson
from django.http import HttpResponse, HttpResponseBase
from django.utils.cache import get_conditional_response
from django.utils.http import http_date, quote_etag
from drf_spectacular.utils import OpenApiResponse, extend_schema_serializer
from rest_framework import exceptions, pagination, parsers, permissions, renderers, serializers, throttling
from rest_framework.request import Request
from rest_framework.response import Response

from virtuemap_site.abuse import client_fingerprint
from virtuemap_site.resilient_cache import resilient_cache


class ReadOnlyOrStaff(permissions.BasePermission):
    """Anyone may read; anything that writes needs an authenticated staff user."""

    # What the schema documents as open to anonymous callers (`AutoSchema.get_auth`).
    public_methods = permissions.SAFE_METHODS

    def has_permission(self, request: Request, view: Any) -> bool:
        if request.method in permissions.SAFE_METHODS:
            return True
        return bool(request.user and request.user.is_authenticated and request.user.is_staff)


class AnonymousPostThrottle(throttling.AnonRateThrottle):
    """Throttle POSTs of anonymous clients (rate: ``API_ANON_POST_RATE``); reads are never throttled.

    The cache key is a keyed hash of the client address under a rotating key (`virtuemap_site.abuse`), so not
    even the throttle's cache holds an IP address, nor anything that leads back to one once the key has rotated.
    """

    scope = "anon_post"
    cache = resilient_cache

    def allow_request(self, request: Request, view: Any) -> bool:
        if request.method != "POST":
            return True
        return super().allow_request(request, view)

    def get_ident(self, request: Request) -> str:
        return client_fingerprint(request)


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser, saying in words a client can act on what is wrong with a body that is not JSON: "Malformed
    JSON" with where reading stopped (a truncated body ends early), instead of the parser's own message; and refusing
    (400) a document nested deeper than Python's parser can follow, for which `json` raises RecursionError rather than
    the ValueError DRF turns into a parse error."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise exceptions.ParseError("Malformed JSON: the document is nested too deeply.") from None
        except exceptions.ParseError as error:
            cause = error.__cause__ or error.__context__
            if isinstance(cause, json.JSONDecodeError):
                message = (
                    f"Malformed JSON: {cause.msg.lower()} at line {cause.lineno}, column {cause.colno}"
                    " (a body cut short ends early); send one complete JSON document."
                )
            else:
                message = f"Malformed JSON: {cause or error.detail}."
            raise exceptions.ParseError(message) from None


class StrictBooleanField(serializers.BooleanField):
    """A JSON boolean and nothing else: DRF's BooleanField also takes "yes", "on", 1 and "false", each one guess
    too many for a consent or an answer."""

    default_error_messages = {"invalid": "Must be true or false (a JSON boolean)."}

    def to_internal_value(self, data: Any) -> bool:
        if data is True or data is False:
            return data
        self.fail("invalid")


def refuse_unknown_fields(data: Any, known: Any) -> None:
    """Raise a 400 naming every top-level field of a JSON object body that the operation does not know.

    Every API body is checked this way, so a misspelt field ("confirmd") is an error rather than silently ignored:
    the message names the fields and `extra.fields.unknown` lists them (docs/api.md, "Unknown fields").
    """
    if not isinstance(data, dict):
        return
    unknown = sorted(str(name) for name in data if name not in set(known))
    if unknown:
        raise exceptions.ValidationError(
            {"non_field_errors": [f"Unknown field(s): {', '.join(unknown)}."], "unknown": unknown}
        )


class StrictSerializer(serializers.Serializer):
    """A request body serializer that refuses fields it does not declare (`refuse_unknown_fields`)."""

    def validate(self, data: Any) -> Any:
        refuse_unknown_fields(self.initial_data, self.fields)
        return super().validate(data)


class PageNumberPagination(pagination.PageNumberPagination):
    page_size_query_param = "page_size"
    max_page_size = 200


@extend_schema_serializer(component_name="Error")
class ErrorSerializer(serializers.Serializer):
    """The one error shape of the API (see `virtuemap_site.errors`)."""

    message = serializers.CharField()
    extra = serializers.DictField()


def error_responses(*statuses: int, **descriptions: str) -> dict[int, OpenApiResponse]:
    """Schema entries for the error statuses an operation can answer, all in the one error shape."""
    defaults = {
        400: "The query is not valid.",
        401: "The Authorization token is not valid (leave it out to read anonymously).",
        404: "No such page.",
        422: "The request is valid but over this operation's budget; `extra` names the limit.",
        429: "Too many requests from this client; retry later (`extra.wait_seconds`).",
    }
    return {
        status: OpenApiResponse(ErrorSerializer, description=descriptions.get(f"e{status}", defaults[status]))
        for status in statuses
    }


COMMON_ERRORS = {
    "400": "The query string holds a NUL character, which no parameter may contain.",
    "403": "A write sent from another site's page (its Origin header): the API takes writes from none.",
    "406": "The Accept header asks for a format the API does not offer (it speaks JSON).",
    "413": "The body is longer than this operation takes (`extra.limit_bytes`); it was not read.",
    "415": "The body is not JSON (send Content-Type: application/json).",
}


def document_common_errors(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: add the errors any operation can answer to every operation.

    DRF answers 406 to an unsatisfiable Accept header on any operation, and any operation 400 to a NUL in the query
    string; an operation that takes a body answers 415 to one that is not JSON, 413 to one that is too long and 403
    to a write from another site (`virtuemap_site.request_guards`). All come in the one error shape, so the schema
    says so once for all.
    """
    error = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
    for path in result.get("paths", {}).values():
        for method, operation in path.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            statuses = ["400", "406"] if method in ("get", "head", "options") else ["400", "403", "406"]
            if "requestBody" in operation:
                statuses += ["413", "415"]
            for status in statuses:
                operation["responses"].setdefault(status, {"description": COMMON_ERRORS[status], "content": error})
    return result


RESPONDENT_TOKEN = "X-Respondent-Token"
_TOKEN_FROM_CONSENT = {f"header.{RESPONDENT_TOKEN}": "$response.body#/token"}
_SAME_TOKEN = {f"header.{RESPONDENT_TOKEN}": f"$request.header.{RESPONDENT_TOKEN}"}
# OpenAPI links (source operation, statuses) → link name → definition: the study's journey, and a model's detail
# from the list. Tools that follow links (schemathesis's stateful tests, some API clients) walk them as a
# respondent or a reader would.
LINKS: dict[tuple[str, tuple[str, ...]], dict[str, dict[str, Any]]] = {
    ("study_consent_read", ("200",)): {
        "Consent": {
            "operationId": "study_consent_give",
            "requestBody": {"consent_version": "$response.body#/version", "accept": True},
            "description": "Consent to the text just read.",
        },
    },
    ("study_consent_give", ("200", "201")): {
        "NextItem": {"operationId": "study_next_item", "parameters": _TOKEN_FROM_CONSENT},
        "Respondent": {"operationId": "study_respondent_read", "parameters": _TOKEN_FROM_CONSENT},
        "Demographics": {"operationId": "study_respondent_demographics", "parameters": _TOKEN_FROM_CONSENT},
        "Withdraw": {"operationId": "study_respondent_withdraw", "parameters": _TOKEN_FROM_CONSENT},
    },
    ("study_next_item", ("200",)): {
        "ConfirmItem": {
            "operationId": "study_response_submit",
            "parameters": _SAME_TOKEN,
            "requestBody": {"candidate": "$response.body#/candidate", "confirmed": True},
            "description": "Confirm the proposed ordering of a validation item.",
            "x-schemathesis": {"merge_body": False},
        },
        "AnswerAttentionCheck": {
            "operationId": "study_response_submit",
            "parameters": _SAME_TOKEN,
            "requestBody": {
                "attention_check": "$response.body#/attention_check",
                "ordering": ["A", "B", "C", "D", "E"],
            },
            "description": "Answer an attention check.",
            "x-schemathesis": {"merge_body": False},
        },
    },
    ("study_response_submit", ("200", "201")): {
        "NextItem": {"operationId": "study_next_item", "parameters": _SAME_TOKEN},
        "Respondent": {"operationId": "study_respondent_read", "parameters": _SAME_TOKEN},
    },
    ("model_list", ("200",)): {
        "ModelDetail": {"operationId": "model_detail", "parameters": {"path.slug": "$response.body#/results/0/slug"}},
    },
}


def document_links(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: add `LINKS` to the responses of their source operations, and the
    respondent token as a header parameter of the operations that take it, so a link can pass it on
    (`$request.header.…` may only name a declared parameter; the security scheme describes the same header)."""
    operations = {
        operation.get("operationId"): operation
        for path in result.get("paths", {}).values()
        for operation in path.values()
        if isinstance(operation, dict)
    }
    for operation in operations.values():
        if any("respondentToken" in requirement for requirement in operation.get("security", [])):
            operation.setdefault("parameters", []).append(
                {
                    "in": "header",
                    "name": RESPONDENT_TOKEN,
                    "required": True,
                    "schema": {"type": "string"},
                    "description": "The token that POST /api/v1/study/consent/ returned.",
                }
            )
    for (operation_id, statuses), links in LINKS.items():
        responses = operations[operation_id]["responses"]
        for status in statuses:
            responses[status]["links"] = links
    return result


class ConditionalGetMixin:
    """ETag (a hash of the body) and Last-Modified on successful GETs, answering 304 when nothing changed.

    Views override `last_modified()` when their data carries a timestamp. The ETag is computed from the
    rendered body, so it is right whatever changed, including data without a timestamp.
    """

    def last_modified(self) -> datetime | None:
        return None

    def finalize_response(self, request: Request, response: Response, *args: Any, **kwargs: Any) -> Any:
        response = super().finalize_response(request, response, *args, **kwargs)
        if request.method not in ("GET", "HEAD") or response.status_code != 200:
            return response
        response.render()
        etag = quote_etag(hashlib.sha256(response.content).hexdigest()[:32])
        response["ETag"] = etag
        modified = self.last_modified()
        timestamp = int(modified.timestamp()) if modified else None
        if timestamp is not None:
            response["Last-Modified"] = http_date(timestamp)
        return get_conditional_response(request, etag=etag, last_modified=timestamp, response=response)


class FastJSONRenderer(renderers.JSONRenderer):
    """DRF's JSON renderer, the same bytes, rendered by orjson when it can (a few times faster on a score body).

    Plain JSON types only: datetimes, dataclasses and subclasses of str, int, dict and list (lazy strings, choices,
    DRF's ReturnDict) go to DRF's encoder, which formats them its own way, as does a requested indent. Either way
    the output is compact UTF-8 with U+2028/U+2029 escaped, as DRF's. One difference: orjson writes NaN as null
    where DRF refuses it; no body of this API holds NaN (a missing score is None).
    """

    OPTIONS = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_SUBCLASS

    def render(self, data: Any, accepted_media_type: str | None = None, renderer_context: Any = None) -> bytes:
        if data is None or accepted_media_type != self.media_type or (renderer_context or {}).get("indent"):
            return super().render(data, accepted_media_type, renderer_context)
        try:
            body = orjson.dumps(data, option=self.OPTIONS)
        except TypeError:  # orjson.JSONEncodeError: a type above, a key that is not a string, an int over 64 bits
            return super().render(data, accepted_media_type, renderer_context)
        # As DRF does: these two are valid JSON but end a line in JavaScript. Most bodies are ASCII, which is checked
        # at once, where searching a score body for them took longer (12 µs) than orjson took to write it.
        if not body.isascii() and (b"\xe2\x80\xa8" in body or b"\xe2\x80\xa9" in body):
            body = body.replace(b"\xe2\x80\xa8", b"\\u2028").replace(b"\xe2\x80\xa9", b"\\u2029")
        return body


class PlainJSONRequestMixin:
    """For an APIView whose first renderer and first parser are JSON: the plain JSON case served without the parts of
    DRF that cost more than the JSON itself, everything else as DRF serves it.

    - Content negotiation is skipped for a request that leaves the choice to the server (no Accept header, ``*/*``
      or ``application/json``, no ``?format=``): DRF would pick the first renderer for it too; any other request is
      negotiated as usual (the browsable API, or 406).
    - `plain_json_data` reads a body declared plain JSON with the view's JSON parser straight from the body.
    - `plain_json_response` renders a plain JSON answer at once.

    Authentication, permissions, throttles, the exception handler and the response headers stay DRF's.
    """

    PLAIN_JSON = "application/json"
    PLAIN_ACCEPT = (None, "*/*", PLAIN_JSON)

    def perform_content_negotiation(self, request: Request, force: bool = False) -> tuple[Any, str]:
        meta = request._request.META
        if meta.get("HTTP_ACCEPT") in self.PLAIN_ACCEPT and not meta.get("QUERY_STRING") and not self.format_kwarg:
            renderer = self.renderer_classes[0]()
            return renderer, renderer.media_type
        return super().perform_content_negotiation(request, force)

    def plain_json_data(self, request: Request) -> Any:
        """``request.data``: for a body declared plain JSON (Content-Type exactly application/json, not empty), read
        straight from the body, without DRF's parser selection and stream wrapping: by orjson (a few times faster than
        `json` on a score request), and by the view's JSON parser wherever orjson refuses the document, so that its
        errors, and what `json` reads that orjson refuses (1e400 as infinity), are DRF's. The same data, but for one
        case: orjson reads a whole number beyond 64 bits as a float, so this is for views that take no such number.
        An empty body, a charset or another content type keeps DRF's handling (an empty object; the charset's
        decoding; 415)."""
        parser = request.parsers[0] if request.parsers else None
        django_request = request._request
        if (
            parser is None
            or parser.media_type != self.PLAIN_JSON
            or django_request.META.get("CONTENT_TYPE") != self.PLAIN_JSON
            or not django_request.body
        ):
            return request.data
        try:
            return orjson.loads(django_request.body)
        except orjson.JSONDecodeError:
            return parser.parse(io.BytesIO(django_request.body), self.PLAIN_JSON, request.parser_context)

    def plain_json_response(self, request: Request, data: Any) -> HttpResponseBase:
        """``Response(data)``, rendered at once when the negotiation chose plain JSON: the same bytes and Content-Type
        from the same renderer, without DRF's template response. DRF's `finalize_response` adds the view's headers
        (Allow, Vary) either way; any other renderer (the browsable API, a requested indent) gets the Response."""
        renderer = request.accepted_renderer
        if request.accepted_media_type != self.PLAIN_JSON or renderer.media_type != self.PLAIN_JSON or renderer.charset:
            return Response(data)
        return HttpResponse(renderer.render(data, self.PLAIN_JSON, {}), content_type=self.PLAIN_JSON)

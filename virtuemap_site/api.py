"""Shared REST API pieces: permissions, throttling, pagination, conditional GET, the error serializer."""

from __future__ import annotations

import hashlib
import hmac
from datetime import datetime
from typing import Any

from django.conf import settings
from django.utils.cache import get_conditional_response
from django.utils.http import http_date, quote_etag
from drf_spectacular.utils import extend_schema_serializer
from rest_framework import pagination, permissions, serializers, throttling
from rest_framework.request import Request
from rest_framework.response import Response


class ReadOnlyOrStaff(permissions.BasePermission):
    """Anyone may read; anything that writes needs an authenticated staff user."""

    def has_permission(self, request: Request, view: Any) -> bool:
        if request.method in permissions.SAFE_METHODS:
            return True
        return bool(request.user and request.user.is_authenticated and request.user.is_staff)


class AnonymousPostThrottle(throttling.AnonRateThrottle):
    """Throttle POSTs of anonymous clients (rate: ``API_ANON_POST_RATE``); reads are never throttled.

    The cache key is a keyed hash of the client address, so not even the throttle's cache holds an IP address.
    """

    scope = "anon_post"

    def allow_request(self, request: Request, view: Any) -> bool:
        if request.method != "POST":
            return True
        return super().allow_request(request, view)

    def get_ident(self, request: Request) -> str:
        address = super().get_ident(request)
        return hmac.new(settings.SECRET_KEY.encode(), address.encode(), hashlib.sha256).hexdigest()[:32]


class PageNumberPagination(pagination.PageNumberPagination):
    page_size_query_param = "page_size"
    max_page_size = 200


@extend_schema_serializer(component_name="Error")
class ErrorSerializer(serializers.Serializer):
    """The one error shape of the API (see `virtuemap_site.errors`)."""

    message = serializers.CharField()
    extra = serializers.DictField()


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

"""Staff authentication: django-axes without client addresses or user agents, and hashed expiring API tokens.

Axes locks admin logins out by username only (settings: AXES_LOCKOUT_PARAMETERS), but by default it still records
the client's IP address and user agent with every attempt and in its log lines. Respondents and staff alike must
not have either stored, so axes is handed neither: `no_client_address` is its AXES_CLIENT_IP_CALLABLE, and
`AnonymousAxesMiddleware` (placed just before axes' own middleware) fills in axes' per-request attributes with
the user agent blanked before axes reads the header itself.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from axes.handlers.proxy import AxesProxyHandler
from django.http import HttpRequest, HttpResponse


def no_client_address(request: HttpRequest) -> None:
    """AXES_CLIENT_IP_CALLABLE: axes never learns the client address."""
    return None


class AnonymousAxesMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        # update_request runs once per request (it marks the request); later calls by axes keep these values.
        AxesProxyHandler.update_request(request)
        request.axes_ip_address = None
        request.axes_user_agent = ""
        return self.get_response(request)


# --- Staff API tokens (django-rest-knox) -------------------------------------------------------------------------


@dataclass(frozen=True)
class IssuedToken:
    token: str  # shown once; only its digest is stored
    expiry: datetime


def staff_api_token_create(*, username: str, days: int | None = None) -> IssuedToken:
    """Issue an API token for the active staff user `username`, expiring after `days` (default API_TOKEN_TTL_DAYS).

    The database keeps only knox's SHA-512 digest of the token and its expiry. Raises ApplicationError for an
    unknown, inactive or non-staff user, or for `days` outside 1..365.
    """
    from django.contrib.auth import get_user_model
    from knox.models import AuthToken
    from knox.settings import knox_settings

    from virtuemap_site.errors import ApplicationError

    ttl = knox_settings.TOKEN_TTL if days is None else timedelta(days=days)
    if not timedelta(days=1) <= ttl <= timedelta(days=365):
        raise ApplicationError("A token lives between 1 and 365 days.", {"days": days})
    user = get_user_model().objects.filter(username=username, is_active=True, is_staff=True).first()
    if user is None:
        raise ApplicationError(f"No active staff user {username!r}.", {"username": username}, status=404)
    instance, token = AuthToken.objects.create(user=user, expiry=ttl)
    return IssuedToken(token=token, expiry=instance.expiry)

"""Rate limits for anonymous clients, keyed on a value that is never stored.

A client is known to the limiter only as HMAC-SHA256(client address) under a random key that lives in the cache
alone and is replaced every `ABUSE_KEY_ROTATION_SECONDS`; once a key has expired, nobody (not even someone who
reads the cache and knows SECRET_KEY) can tell which address a counter belonged to. Counters are fixed windows
in the cache (shared between web processes when CACHE_URL points at Redis; per process while it is unreachable, see
`virtuemap_site.resilient_cache`). Nothing reaches the database or logs.

Rates are strings like DRF's: "30/hour", "60/minute", "5/second", "100/day"; "off" (or empty) disables a limit.
A lab or classroom whose participants all reach us from one address gets its own, larger allowance: clients in
STUDY_LAB_NETWORKS are counted against STUDY_LAB_CONSENT_RATE, STUDY_LAB_SUBMIT_RATE and STUDY_LAB_REFERENCE_RATE
instead (docs/security.md).
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import ipaddress
import logging
import math
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from rest_framework.throttling import BaseThrottle

from virtuemap_site.request_guards import ascii_int
from virtuemap_site.resilient_cache import resilient_cache as cache
from virtuemap_site.unavailable import Unavailable

logger = logging.getLogger(__name__)

PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
# Caches whose contents live in one process: counters kept there are each web process's own.
PER_PROCESS_CACHES = (
    "django.core.cache.backends.locmem.LocMemCache",
    "django.core.cache.backends.dummy.DummyCache",
)
UNSHARED_LOG_INTERVAL = 60.0
_unshared_logged_at = float("-inf")


class RateLimitsUnshared(Unavailable):
    """A rate limit that would be counted by each process alone: the request is refused (503) instead."""


@dataclass(frozen=True)
class Rate:
    requests: int
    seconds: int


def parse_rate(text: str | None) -> Rate | None:
    """Return the rate "N/period" as a `Rate`, or None for "off"/empty. Raises ValueError on anything else."""
    text = (text or "").strip().lower()
    if text in ("", "off", "none"):
        return None
    count, _, period = text.partition("/")
    requests = ascii_int(count)
    if not requests or period[:1] not in PERIODS:
        raise ValueError(f"{text!r} is not a rate like '30/hour' or 'off'")
    return Rate(requests=requests, seconds=PERIODS[period[0]])


def client_address(request: HttpRequest) -> str:
    """The client address as DRF's throttles see it (honours API_NUM_PROXIES); only ever hashed, never kept."""
    return BaseThrottle().get_ident(request) or ""


NETWORK_BUCKETS = 1 << 16


def network_bucket(request: HttpRequest) -> int | None:
    """The client's network as one of 65,536 buckets: 16 bits of HMAC-SHA256 of its /24 (IPv4) or /48 (IPv6) under
    a key derived from STUDY_PANEL_HMAC_KEY; None without a readable address.

    Stored with a respondent so that the key review can see many answers arriving from one network. It cannot be
    read back: each bucket is shared by 256 IPv4 /24 networks (and countless IPv6 ones), and the key is secret.
    """
    try:
        address = ipaddress.ip_address(client_address(request).strip())
    except ValueError:
        return None
    prefix = 24 if address.version == 4 else 48
    network = ipaddress.ip_network(f"{address}/{prefix}", strict=False)
    key = hashlib.sha256(f"network-bucket:{settings.STUDY_PANEL_HMAC_KEY}".encode()).digest()
    digest = hmac.new(key, network.network_address.packed, hashlib.sha256).digest()
    return int.from_bytes(digest[:2], "big")


def _rotating_key(now: float) -> bytes:
    """The HMAC key of the current period: random, created by whichever process needs it first, cache only."""
    rotation = settings.ABUSE_KEY_ROTATION_SECONDS
    name = f"abuse:key:{int(now // rotation)}"
    fresh = secrets.token_hex(32)
    # Kept a little longer than its period so that requests at the boundary still find it.
    cache.add(name, fresh, timeout=rotation + 60)
    return (cache.get(name) or fresh).encode()


def client_fingerprint(request: HttpRequest, now: float | None = None) -> str:
    """An opaque, rotating stand-in for the client address (hex, 32 characters)."""
    key = _rotating_key(time.time() if now is None else now)
    return hmac.new(key, client_address(request).encode(), hashlib.sha256).hexdigest()[:32]


def _increment(key: str, timeout: int) -> int:
    if cache.add(key, 1, timeout=timeout):
        return 1
    try:
        return cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.set(key, 1, timeout=timeout)
        return 1


@functools.cache
def _lab_networks(networks: tuple[str, ...]) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    return tuple(ipaddress.ip_network(network.strip(), strict=False) for network in networks)


def is_lab_client(request: HttpRequest) -> bool:
    """Whether the client's address lies in one of STUDY_LAB_NETWORKS: a lab or classroom whose participants all
    reach us from one address. The address is compared in memory, never kept."""
    networks = _lab_networks(tuple(settings.STUDY_LAB_NETWORKS))
    if not networks:
        return False
    try:
        address = ipaddress.ip_address(client_address(request).strip())
    except ValueError:
        return False
    return any(address in network for network in networks)


# Each per-client rate and the lab's allowance that replaces it for a client in STUDY_LAB_NETWORKS.
LAB_RATE_SETTINGS = {
    "STUDY_CONSENT_RATE": "STUDY_LAB_CONSENT_RATE",
    "STUDY_SUBMIT_RATE": "STUDY_LAB_SUBMIT_RATE",
    "STUDY_REFERENCE_RATE": "STUDY_LAB_REFERENCE_RATE",
}


def client_rate(request: HttpRequest, *, scope: str, rate_setting: str) -> tuple[str, str | None]:
    """The counter scope and the rate that apply to this client: ``rate_setting`` (e.g. STUDY_CONSENT_RATE), or for a
    client in STUDY_LAB_NETWORKS the lab's allowance (STUDY_LAB_CONSENT_RATE, `LAB_RATE_SETTINGS`), counted apart."""
    if is_lab_client(request):
        return f"{scope}:lab", getattr(settings, LAB_RATE_SETTINGS[rate_setting])
    return scope, getattr(settings, rate_setting)


def rate_limit_wait(request: HttpRequest, *, scope: str, rate: str | None) -> int | None:
    """Count one request of this client in `scope`; return the seconds to wait if it is over `rate`, else None.

    Raises RateLimitsUnshared (answered 503) in production when the cache is per process, where N web processes
    would each admit the whole rate (`check --deploy` names the same misconfiguration: virtuemap_site.E001)."""
    parsed = parse_rate(rate)
    if parsed is None:
        return None
    _refuse_unshared_counters()
    now = time.time()
    window = int(now // parsed.seconds)
    count = _increment(f"abuse:rl:{scope}:{client_fingerprint(request, now)}:{window}", parsed.seconds + 1)
    if count <= parsed.requests:
        return None
    return max(1, math.ceil((window + 1) * parsed.seconds - now))


def _refuse_unshared_counters() -> None:
    global _unshared_logged_at
    backend = settings.CACHES["default"]["BACKEND"]
    if not settings.RATE_LIMITS_NEED_SHARED_CACHE or backend not in PER_PROCESS_CACHES:
        return
    now = time.time()
    if not 0 <= now - _unshared_logged_at < UNSHARED_LOG_INTERVAL:  # once a minute per process, not per request
        _unshared_logged_at = now
        logger.error(
            "rate limits refuse to count in a per-process cache (%s): every web process would admit the whole rate. "
            "Rate-limited requests answer 503 until CACHE_URL points at a shared cache (Redis), or the limit is off.",
            backend.rsplit(".", 1)[1],
        )
    raise RateLimitsUnshared()


def rate_limited(scope: str, rate_setting: str) -> Callable:
    """View decorator: POSTs over the rate in `settings.<rate_setting>` (a lab's own allowance for a client in
    STUDY_LAB_NETWORKS, `client_rate`) get a friendly 429 page, nothing else: it offers to send the same fields
    again once the wait is over, so an answer refused for speed is never lost.

    GETs are never limited, so a limited person can still read the page, withdraw, or come back later.
    """

    if rate_setting not in LAB_RATE_SETTINGS:
        raise ValueError(f"{rate_setting} has no lab allowance in LAB_RATE_SETTINGS")

    def decorator(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @wraps(view)
        def wrapped(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            if request.method == "POST":
                client_scope, rate = client_rate(request, scope=scope, rate_setting=rate_setting)
                wait = rate_limit_wait(request, scope=client_scope, rate=rate)
                if wait is not None:
                    resubmit = [(name, value) for name in request.POST for value in request.POST.getlist(name)]
                    context = {"wait_seconds": wait, "resubmit": resubmit}
                    response = render(request, "429.html", context, status=429)
                    response["Retry-After"] = str(wait)
                    return response
            return view(request, *args, **kwargs)

        return wrapped

    return decorator


# The limits of every instrument's pages: consenting, submitting an answer, and trying a participant reference
# (withdrawing or resuming with one: every try counts, so guessing one is slow).
consent_rate_limited = rate_limited("consent", "STUDY_CONSENT_RATE")
submit_rate_limited = rate_limited("submit", "STUDY_SUBMIT_RATE")
reference_rate_limited = rate_limited("reference", "STUDY_REFERENCE_RATE")


class ScopedRateThrottle(BaseThrottle):
    """DRF throttle over `rate_limit_wait`: `scope` names the counter, `rate_setting` the setting with its rate.

    Only writes (POST, PUT, PATCH) count; reading is never limited here, and neither is withdrawing (DELETE).
    """

    scope = ""
    rate_setting = ""

    def allow_request(self, request, view) -> bool:
        if request.method not in ("POST", "PUT", "PATCH"):
            return True
        scope, rate = client_rate(request, scope=self.scope, rate_setting=self.rate_setting)
        self._wait = rate_limit_wait(request, scope=scope, rate=rate)
        return self._wait is None

    def wait(self) -> float | None:
        return getattr(self, "_wait", None)


class ConsentRateThrottle(ScopedRateThrottle):
    scope = "consent"
    rate_setting = "STUDY_CONSENT_RATE"


class SubmitRateThrottle(ScopedRateThrottle):
    scope = "submit"
    rate_setting = "STUDY_SUBMIT_RATE"

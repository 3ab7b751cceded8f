"""The site's URLs plus the benchmark's bare endpoint (never in production URLs)."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.urls import include, path
from django.views.decorators.csrf import csrf_exempt

CONSTANT = {"scores": {"wisdom": 50.0, "justice": 50.0, "truthfulness": 50.0, "courage": 50.0, "temperance": 50.0}}


@csrf_exempt
def bare(request: HttpRequest) -> JsonResponse:
    """The baseline: Django's full middleware stack, no DRF, no database, a constant JSON body."""
    return JsonResponse(CONSTANT)


urlpatterns = [
    path("bench/bare/", bare),
    path("", include("virtuemap_site.urls")),
]

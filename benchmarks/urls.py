"""The site's URLs plus the benchmark's bare endpoint (never in production URLs)."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.urls import include, path
from django.views.decorators.csrf import csrf_exempt
from rest_framework import permissions
from rest_framework.parsers import JSONParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from virtuemap_site.urls import handler500 as handler500  # a root URLconf's error handler is not inherited

CONSTANT = {"scores": {"wisdom": 50.0, "justice": 50.0, "truthfulness": 50.0, "courage": 50.0, "temperance": 50.0}}


@csrf_exempt
def bare(request: HttpRequest) -> JsonResponse:
    """The baseline: Django's full middleware stack, no DRF, no database, a constant JSON body."""
    return JsonResponse(CONSTANT)


class DrfConstantApi(APIView):
    """A diagnostic: DRF's request pipeline as `ProfileScoreApi` configures it (JSON body parsed, no
    authentication, anyone allowed), answering the same constant: what DRF alone costs per request."""

    authentication_classes: list = []
    permission_classes = [permissions.AllowAny]
    parser_classes = [JSONParser]

    def post(self, request: Request) -> Response:
        request.data  # noqa: B018 -- parse the body, as the score endpoint does
        return Response(CONSTANT)


urlpatterns = [
    path("bench/bare/", bare),
    path("bench/drf-constant/", DrfConstantApi.as_view()),
    path("", include("virtuemap_site.urls")),
]

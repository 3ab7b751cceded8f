from __future__ import annotations

from django.conf import settings
from django.contrib import admin
from django.urls import include, path, re_path, register_converter
from django.utils.csp import CSP
from django.views.decorators.csp import csp_override
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from instruments import api as instruments_api
from instruments import profiles_api
from instruments import views as instruments_views
from instruments.virtuemap import api as virtuemap_api
from instruments.virtuemap import views as virtuemap_views
from surveys import views as surveys_views


class ModelSlugConverter:
    """Any non-empty text, slashes and line breaks included (`path` stops at a line break, which would turn a
    strange slug into the HTML 404 page instead of the API's JSON one)."""

    regex = r"[\s\S]+"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(ModelSlugConverter, "model_slug")

# The public REST API, version 1 (docs/api.md).
api_v1 = [
    # First: Django tries the patterns in order, and this is the API's busiest endpoint.
    path("profiles/score/", virtuemap_api.ProfileScoreApi.as_view(), name="api-profile-score"),
    path("virtues/", virtuemap_api.VirtueListApi.as_view(), name="api-virtue-list"),
    path("dilemmas/", virtuemap_api.DilemmaListApi.as_view(), name="api-dilemma-list"),
    path("keys/", virtuemap_api.KeyListApi.as_view(), name="api-key-list"),
    path("models/", virtuemap_api.ModelListApi.as_view(), name="api-model-list"),
    # Before the detail's catch-all, which would take "openai/gpt-5/results" for a slug.
    path("models/<model_slug:slug>/results/", profiles_api.ModelResultsApi.as_view(), name="api-model-results"),
    # Model slugs contain a slash (openai/gpt-5).
    path("models/<model_slug:slug>/", virtuemap_api.ModelDetailApi.as_view(), name="api-model-detail"),
    path("compare/", profiles_api.CompareApi.as_view(), name="api-compare"),
    path("instruments/", instruments_api.InstrumentListApi.as_view(), name="api-instrument-list"),
    # Before the detail's catch-all, which would take "moralbench/score".
    path("instruments/moralbench/", include("instruments.moralbench.api_urls")),
    # Any text, so that a strange slug gets the API's JSON 404 rather than the HTML one.
    path("instruments/<model_slug:slug>/", instruments_api.InstrumentDetailApi.as_view(), name="api-instrument-detail"),
    path("transitivity/", include("instruments.transitivity.api_urls")),
    path("amaeval/", include("instruments.amaeval.api_urls")),
]

urlpatterns = [
    # First for the same reason as the score endpoint in it; no pattern below starts with api/v1/ but the study's,
    # which api_v1 does not match.
    path("api/v1/", include(api_v1)),
    path("", virtuemap_views.home, name="home"),
    path("profile/", virtuemap_views.profile_start, name="profile-start"),
    path("profile/dilemmas/<str:dilemma_id>/", virtuemap_views.profile_dilemma, name="profile-dilemma"),
    path("profile/results/", virtuemap_views.profile_results, name="profile-results"),
    path("profile/results/<str:token>/", virtuemap_views.profile_results_link, name="profile-results-link"),
    path("profile/resume/", virtuemap_views.profile_resume, name="profile-resume"),
    path("profile/withdraw/", virtuemap_views.profile_withdraw, name="profile-withdraw"),
    path("models/", virtuemap_views.gallery, name="model-gallery"),
    # Model slugs contain slashes (openai/gpt-5): the downloads come before the page's catch-all.
    path("models/<path:slug>/results.csv", instruments_views.model_results_csv, name="model-results-csv"),
    path(
        "models/<path:slug>/runs/<int:run_id>/answers.json",
        instruments_views.run_answers_json,
        name="model-run-answers",
    ),
    re_path(
        r"^models/(?P<slug>.+)/pictures/(?P<instrument>[a-z0-9_-]+)-(?P<number>[0-9]+)\.(?P<extension>svg|png)$",
        instruments_views.model_picture,
        name="model-picture",
    ),
    path("models/<path:slug>/", instruments_views.model_page, name="model-page"),
    path("compare/", instruments_views.compare, name="compare"),
    path("my-results/", instruments_views.person_page, name="person-results"),
    path("compare.csv", instruments_views.compare_csv, name="compare-csv"),
    re_path(
        r"^compare/pictures/(?P<instrument>[a-z0-9_-]+)-(?P<number>[0-9]+)\.(?P<extension>svg|png)$",
        instruments_views.compare_picture,
        name="compare-picture",
    ),
    path("leaderboards/", instruments_views.leaderboards, name="leaderboards"),
    path("leaderboards/<slug:slug>.csv", instruments_views.leaderboard_csv, name="leaderboard-csv"),
    path("leaderboards/<slug:slug>.json", instruments_views.leaderboard_json, name="leaderboard-json"),
    path("leaderboards/<slug:slug>/", instruments_views.leaderboard, name="leaderboard"),
    path(settings.ADMIN_PATH, admin.site.urls),
    path("api/v1/study/", include("instruments.virtuemap.api_urls")),
    path("study/", include("instruments.virtuemap.urls")),
    path("transitivity/", include("instruments.transitivity.urls")),
    path("moralbench/", include("instruments.moralbench.urls")),
    path("amaeval/", include("instruments.amaeval.urls")),
    path("take/", include("surveys.urls")),
    # With a participant reference, from any browser (surveys/views.py).
    path("withdraw/", surveys_views.reference_withdraw, name="reference-withdraw"),
    path("resume/", surveys_views.reference_resume, name="reference-resume"),
    path("api/schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # The split view serves its script as a separate file: no inline script, and its assets come from the sidecar.
    # Swagger UI's stylesheet draws its icons as data: SVG images; only this page allows them.
    path(
        "api/docs/",
        csp_override({**settings.SECURE_CSP, "img-src": [CSP.SELF, "data:"]})(
            SpectacularSwaggerSplitView.as_view(url_name="api-schema", template_name="api_docs.html")
        ),
        name="api-docs",
    ),
]

# A database connection error outside a view (a middleware reading the session) is a 503 too, not a 500.
handler500 = "virtuemap_site.unavailable.server_error"
# Unknown paths under /api/ answer the API's JSON error shape, not an HTML page.
handler404 = "virtuemap_site.errors.not_found"

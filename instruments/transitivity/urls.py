"""Public pages of the transitivity instrument (mounted at /transitivity/)."""

from __future__ import annotations

from django.urls import path

from instruments.transitivity import views
from instruments.transitivity.plugin import STUDY
from surveys.urls import questionnaire_urlpatterns

app_name = "transitivity"

urlpatterns: list = [
    path("", views.about, name="about"),
    path("summary.csv", views.summary_csv_download, name="summary-csv"),
    path("summary.json", views.summary_json, name="summary-json"),
    path("models/", views.models, name="models"),
    path("models.csv", views.models_csv, name="models-csv"),
    path("models.json", views.models_json, name="models-json"),
    # Model slugs contain slashes (openai/gpt-5), so the downloads come before the page's catch-all.
    path("models/<path:slug>/report.csv", views.model_report_csv, name="model-report-csv"),
    path("models/<path:slug>/report.json", views.model_report_json, name="model-report-json"),
    path("models/<path:slug>/", views.model_report, name="model-report"),
    # The people's questionnaire: the shared pages, at the address panel links were given.
    *questionnaire_urlpatterns(study=STUDY, prefix="questionnaire/"),
]

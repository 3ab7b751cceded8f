"""Public pages of MoralBench (mounted at /moralbench/)."""

from __future__ import annotations

from django.urls import path

from instruments.moralbench import views
from instruments.moralbench.studies import STUDY
from surveys.urls import questionnaire_urlpatterns

app_name = "moralbench"

urlpatterns: list = [
    path("", views.about, name="about"),
    path("models/", views.models, name="models"),
    path("models.csv", views.models_csv, name="models-csv"),
    path("models.json", views.models_json, name="models-json"),
    # Model slugs contain slashes (openai/gpt-5), so the downloads come before the page's catch-all.
    path("models/<path:slug>/report.csv", views.model_report_csv, name="model-report-csv"),
    path("models/<path:slug>/report.json", views.model_report_json, name="model-report-json"),
    path("models/<path:slug>/", views.model_report, name="model-report"),
    # The people's questionnaire: the shared pages.
    *questionnaire_urlpatterns(study=STUDY, prefix="questionnaire/"),
]

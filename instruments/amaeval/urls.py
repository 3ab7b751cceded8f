"""Public pages of the AMAeval instrument (mounted at /amaeval/)."""

from __future__ import annotations

from django.urls import path

from instruments.amaeval import views
from instruments.amaeval.studies import STUDY
from surveys.urls import questionnaire_urlpatterns

app_name = "amaeval"

urlpatterns: list = [
    path("", views.about, name="about"),
    path("models.csv", views.models_csv, name="models-csv"),
    path("models.json", views.models_json, name="models-json"),
    # Model slugs contain slashes (openai/gpt-5).
    path("models/<path:slug>/", views.model_report, name="model-report"),
    # People rate reasoning on the shared questionnaire pages.
    *questionnaire_urlpatterns(study=STUDY, prefix="questionnaire/"),
]

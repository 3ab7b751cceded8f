from __future__ import annotations

from django.apps import AppConfig


class SurveysConfig(AppConfig):
    name = "surveys"
    verbose_name = "People: respondents and consent"

"""The run engine's template tags, registered as TEMPLATES builtins so that every page uses them without
``{% load %}``."""

from __future__ import annotations

from django import template
from django.db import models

from llmruns.models import Result, Run

register = template.Library()


@register.filter
def run_status(code: str) -> str:
    """``{{ run.status|run_status }}``: a run's status in words, in the request's language (the code if unknown)."""
    return _choice_label(Run.Status, code)


@register.filter
def result_source(code: str) -> str:
    """``{{ row.source|result_source }}``: where a result came from, in words (the code if unknown)."""
    return _choice_label(Result.Source, code)


def _choice_label(choices: type[models.TextChoices], code: str) -> str:
    try:
        return str(choices(code).label)
    except ValueError:
        return code

from __future__ import annotations

from django.apps import AppConfig


class LlmrunsConfig(AppConfig):
    name = "llmruns"
    verbose_name = "LLM run-suites"

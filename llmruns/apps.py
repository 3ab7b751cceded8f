from __future__ import annotations

from django.apps import AppConfig


class LlmrunsConfig(AppConfig):
    name = "llmruns"
    verbose_name = "LLM runs and results"

    def ready(self) -> None:
        from llmruns import checks  # noqa: F401 (registers the system checks)

from __future__ import annotations

from django.apps import AppConfig


class LlmrunsConfig(AppConfig):
    name = "llmruns"
    verbose_name = "LLM runs and results"

    def ready(self) -> None:
        from llmruns import tasks  # noqa: F401 (registers the tasks the engine sends by name)

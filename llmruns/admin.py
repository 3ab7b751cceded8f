from __future__ import annotations

from django.contrib import admin

from llmruns.models import LLMModel, ModelProfile


@admin.register(LLMModel)
class LLMModelAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "provider", "model_id", "temperature", "concurrency"]
    list_filter = ["provider", "family"]
    search_fields = ["name", "slug", "model_id"]


@admin.register(ModelProfile)
class ModelProfileAdmin(admin.ModelAdmin):
    list_display = ["model", "source", "runs", "consistency", "max_ci_half_width", "published_at"]
    list_filter = ["source"]

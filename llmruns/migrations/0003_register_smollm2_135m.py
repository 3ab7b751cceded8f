"""Register the embedded SmolLM2-135M-Instruct, so `run_suite --model smollm2-135m` works on a fresh install."""

from django.db import migrations

SMOLLM2 = {
    "slug": "smollm2-135m",
    "name": "SmolLM2-135M-Instruct (embedded)",
    "family": "SmolLM2",
    "provider": "local",
    "base_url": "",
    "model_id": "smollm2-135m",
    "api_key_env": "",
    "temperature": 0.7,
    # Short answers keep a CPU-only suite to about a second per request.
    "max_tokens": 128,
    "json_output": True,
    "constrain_to_rankings": False,
    "extra_params": {},
    # In-process: no provider limit to respect, and one llama.cpp context serves one request at a time.
    "requests_per_minute": 0,
    "concurrency": 1,
}


def register(apps, schema_editor):
    LLMModel = apps.get_model("llmruns", "LLMModel")
    LLMModel.objects.get_or_create(slug=SMOLLM2["slug"], defaults=SMOLLM2)


class Migration(migrations.Migration):
    dependencies = [
        ("llmruns", "0002_suites_runs_item_responses"),
    ]

    operations = [
        migrations.RunPython(register, migrations.RunPython.noop),
    ]

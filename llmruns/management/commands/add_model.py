"""Register or update a language model: `manage.py add_model SLUG --backend openai_compatible --base-url URL …`."""

from __future__ import annotations

import argparse

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from llmruns.models import LLMModel
from llmruns.services import llm_model_save


class Command(BaseCommand):
    help = (
        "Create a language model, or update the one with this slug (only the options given change). The API key is "
        "never stored: give the name of the environment variable that holds it."
    )

    def add_arguments(self, parser):
        parser.add_argument("slug", help="Stable identifier, e.g. openai/gpt-5 or my-vllm/qwen2.5-7b.")
        parser.add_argument("--backend", choices=LLMModel.Provider.values, help="Provider (default openai_compatible).")
        parser.add_argument("--base-url", help="The endpoint, e.g. http://127.0.0.1:8080/v1.")
        parser.add_argument("--model-name", help="The provider's model name (default: the slug).")
        parser.add_argument("--name", help="Display name (default: the slug).")
        parser.add_argument("--api-key-env", help="Name of the environment variable holding the API key.")
        parser.add_argument(
            "--logprobs",
            action=argparse.BooleanOptionalAction,
            help="The provider returns top-20 first-token log-probabilities (--no-logprobs: it returns none).",
        )
        parser.add_argument("--concurrency", type=int, help="Requests in flight at once.")
        parser.add_argument("--requests-per-minute", type=int, help="Rate limit (0: none).")
        parser.add_argument("--temperature", type=float, help="Sampling temperature (instruments may fix their own).")
        parser.add_argument("--max-tokens", type=int, help="Longest answer, in tokens.")

    def handle(self, *args, **options):
        fields = {
            "provider": options["backend"],
            "base_url": options["base_url"],
            "model_id": options["model_name"],
            "name": options["name"],
            "api_key_env": options["api_key_env"],
            "concurrency": options["concurrency"],
            "requests_per_minute": options["requests_per_minute"],
            "temperature": options["temperature"],
            "max_tokens": options["max_tokens"],
        }
        if options["logprobs"] is not None:
            fields["top_logprobs"] = 20 if options["logprobs"] else 0
        try:
            model, created = llm_model_save(slug=options["slug"], **{k: v for k, v in fields.items() if v is not None})
        except ValidationError as error:
            problems = "; ".join(f"{name}: {' '.join(messages)}" for name, messages in error.message_dict.items())
            raise CommandError(problems) from None
        verb = "Created" if created else "Updated"
        self.stdout.write(
            f"{verb} {model.slug}: {model.get_provider_display()} {model.model_id} at {model.base_url or '(local)'}, "
            f"concurrency {model.concurrency}, {model.requests_per_minute or 'no'} requests/minute limit, "
            f"top-k log-probabilities {model.top_logprobs}."
        )

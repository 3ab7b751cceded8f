from __future__ import annotations

from django.apps import AppConfig


class SurveysConfig(AppConfig):
    name = "surveys"
    verbose_name = "Surveys and keys"

    def ready(self) -> None:
        from django.db import transaction
        from django.db.models.signals import post_delete, post_save

        from surveys.models import Dilemma, KeyCandidate, Virtue
        from surveys.selectors import profile_scoring_context_forget

        def forget(**kwargs) -> None:
            # Now, for this process and transaction, and again after commit: a concurrent request may have
            # reloaded the rows before they were committed.
            profile_scoring_context_forget()
            transaction.on_commit(profile_scoring_context_forget)

        for model in (KeyCandidate, Virtue, Dilemma):
            post_save.connect(forget, sender=model, weak=False, dispatch_uid=f"profile-context-{model.__name__}-save")
            post_delete.connect(forget, sender=model, weak=False, dispatch_uid=f"profile-context-{model.__name__}-del")

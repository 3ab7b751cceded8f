from django.apps import AppConfig


class MoralBenchConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "instruments.moralbench"
    label = "moralbench"
    verbose_name = "MoralBench instrument"

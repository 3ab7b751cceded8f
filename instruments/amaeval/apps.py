from django.apps import AppConfig


class AmaevalConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "instruments.amaeval"
    label = "amaeval"
    verbose_name = "AMAeval instrument"

from django.apps import AppConfig


class TransitivityConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "instruments.transitivity"
    label = "transitivity"
    verbose_name = "Transitivity instrument"

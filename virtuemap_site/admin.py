"""Site-wide admin: staff API tokens (django-rest-knox) that expire."""

from __future__ import annotations

from datetime import timedelta

from django import forms
from django.contrib import admin
from django.utils import timezone
from knox import admin as knox_admin
from knox.models import AuthToken
from knox.settings import knox_settings

# --- Staff API tokens (django-rest-knox) -------------------------------------------------------------------------
# knox's own admin would accept a token without an expiry (valid for ever); ours insists on one.


class ExpiringAuthTokenCreateForm(knox_admin.AuthTokenCreateForm):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["expiry"].required = True
        self.fields["expiry"].initial = timezone.now() + knox_settings.TOKEN_TTL
        self.fields["expiry"].help_text = "Required, at most a year ahead. The token is shown once after saving."

    def clean_expiry(self):
        expiry = self.cleaned_data["expiry"]
        if not timezone.now() < expiry <= timezone.now() + timedelta(days=365):
            raise forms.ValidationError("Choose a time in the next 365 days.")
        return expiry

    def clean_user(self):
        user = self.cleaned_data["user"]
        if not (user.is_active and user.is_staff):
            raise forms.ValidationError("API tokens are for active staff users.")
        return user


admin.site.unregister(AuthToken)


@admin.register(AuthToken)
class ExpiringAuthTokenAdmin(knox_admin.AuthTokenAdmin):
    add_form = ExpiringAuthTokenCreateForm

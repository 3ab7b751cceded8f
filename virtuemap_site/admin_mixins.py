"""Admin mixins shared by the apps."""

from __future__ import annotations

from django.http import HttpRequest


class ViewOnlyAdminMixin:
    """Rows that only the application writes (responses, evidence): staff may look, not add or edit."""

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


class AuditTrailAdminMixin(ViewOnlyAdminMixin):
    """A record of what happened: nobody may add, edit or delete it through admin."""

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

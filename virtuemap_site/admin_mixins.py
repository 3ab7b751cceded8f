"""Admin mixins shared by the apps."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import partial, wraps
from typing import Any

from django.contrib.admin.options import ActionLocation
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.urls import path, reverse


class ViewOnlyAdminMixin:
    """Rows that only the application writes (responses, evidence): staff may look, not add or edit."""

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


class ReadOnlyPagesAdminMixin:
    """Rows whose every field is read-only but that actions change from the list (promote a key, resume a run): the
    list keeps its actions, each row's page is a view page without a Save button, and a POST to it is refused."""

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        if obj is not None:
            return False
        return super().has_change_permission(request, obj)  # type: ignore[misc]


class AuditTrailAdminMixin(ViewOnlyAdminMixin):
    """A record of what happened: nobody may add, edit or delete it through admin."""

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


# --- Actions and exports that declare the model permission they need ---------------------------------------------
# Django shows an admin action to everyone who may see the list, and a view added with get_urls to every staff user.
# An action that changes state (promoting a key, starting a paid LLM suite) or an export that hands out data must
# say which permission it needs; these enforce it.


def admin_action(*, permission: str, description: str) -> Callable:
    """Declare an admin action that needs `permission` ("app_label.codename", e.g. "surveys.change_keycandidate").

    With `PermissionActionsMixin` the action is left out of the list for a user without the permission; posted
    anyway, it is refused (403) before it runs.
    """

    def decorator(action: Callable) -> Callable:
        @wraps(action)
        def checked(modeladmin: Any, request: HttpRequest, queryset: Any) -> HttpResponse | None:
            permission_require(request, permission)
            return action(modeladmin, request, queryset)

        checked.required_permission = permission  # type: ignore[attr-defined]
        checked.short_description = description  # type: ignore[attr-defined]
        return checked

    return decorator


def permission_require(request: HttpRequest, permission: str) -> None:
    """Raise PermissionDenied (403) unless the request's user holds `permission`."""
    if not request.user.has_perm(permission):
        raise PermissionDenied(f"This needs the permission {permission}.")


class PermissionActionsMixin:
    """For a ModelAdmin: offer each `admin_action` only to users with its permission, and wrap extra views (exports)
    with `permission_view` so that they check theirs."""

    def get_actions(self, request: HttpRequest, action_location: ActionLocation = ActionLocation.CHANGE_LIST) -> dict:
        actions = super().get_actions(request, action_location=action_location)  # type: ignore[misc]
        return {name: action for name, action in actions.items() if permission_allows(request, action.func)}

    def permission_view(self, view: Callable[..., HttpResponse], permission: str) -> Callable[..., HttpResponse]:
        """`view` behind the admin's login and `permission`: a staff user without it gets 403."""

        @wraps(view)
        def checked(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            permission_require(request, permission)
            return view(request, *args, **kwargs)

        return self.admin_site.admin_view(checked)  # type: ignore[attr-defined]


def permission_allows(request: HttpRequest, action: Callable) -> bool:
    """Whether the request's user holds the permission an `admin_action` declares (any other action: yes)."""
    permission = getattr(action, "required_permission", None)
    return permission is None or request.user.has_perm(permission)


# --- CSV exports with their codebooks ----------------------------------------------------------------------------
# Every data export in admin is one of these: a CSV file whose columns are its codebook's, and the codebook as
# Markdown, both linked from the list's object tools for users with the export's permission.


@dataclass(frozen=True)
class AdminExport:
    """One CSV export of a changelist: ``name`` makes its addresses (export/<name>.csv and
    export/<name>-codebook.md); ``rows`` yields one list per line, in the codebook's column order; ``permission``
    ("app_label.codename") is needed to download either file."""

    name: str
    title: str
    filename: str
    permission: str
    codebook: Sequence[tuple[str, str]]
    rows: Callable[[], Iterable[Sequence[Any]]]

    def csv_text(self) -> str:
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        writer.writerow([column for column, _ in self.codebook])
        writer.writerows(self.rows())
        return buffer.getvalue()

    def codebook_text(self) -> str:
        lines = [f"# {self.title} ({self.filename}.csv)", "", "One row per line of the CSV file; columns:", ""]
        lines += [f"- `{column}`: {meaning}" for column, meaning in self.codebook]
        return "\n".join(lines) + "\n"


class ExportsAdminMixin(PermissionActionsMixin):
    """For a ModelAdmin with ``exports``: the download views (each behind its permission) and, in the changelist's
    context, the links a user may follow (rendered by admin/change_list_exports.html)."""

    exports: tuple[AdminExport, ...] = ()
    change_list_template = "admin/change_list_exports.html"

    def _export_url_name(self, export: AdminExport, suffix: str = "") -> str:
        opts = self.model._meta  # type: ignore[attr-defined]
        return f"{opts.app_label}_{opts.model_name}_export_{export.name}{suffix}".replace("-", "_")

    def get_urls(self) -> list:
        urls = []
        for export in self.exports:
            urls += [
                path(
                    f"export/{export.name}.csv",
                    self.permission_view(partial(_download_csv, export=export), export.permission),
                    name=self._export_url_name(export),
                ),
                path(
                    f"export/{export.name}-codebook.md",
                    self.permission_view(partial(_download_codebook, export=export), export.permission),
                    name=self._export_url_name(export, "_codebook"),
                ),
            ]
        return urls + super().get_urls()  # type: ignore[misc]

    def changelist_view(self, request: HttpRequest, extra_context: dict | None = None) -> HttpResponse:
        links = [
            {
                "title": export.title,
                "csv": reverse(f"admin:{self._export_url_name(export)}"),
                "codebook": reverse(f"admin:{self._export_url_name(export, '_codebook')}"),
            }
            for export in self.exports
            if request.user.has_perm(export.permission)
        ]
        return super().changelist_view(request, {"export_links": links, **(extra_context or {})})  # type: ignore[misc]


def _download(content: str, filename: str, content_type: str) -> HttpResponse:
    response = HttpResponse(content, content_type=content_type)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _download_csv(request: HttpRequest, *, export: AdminExport) -> HttpResponse:
    return _download(export.csv_text(), f"{export.filename}.csv", "text/csv; charset=utf-8")


def _download_codebook(request: HttpRequest, *, export: AdminExport) -> HttpResponse:
    return _download(export.codebook_text(), f"{export.filename}-codebook.md", "text/markdown; charset=utf-8")

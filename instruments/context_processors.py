"""The navigation bar of every page: the site's own pages, then each registered instrument that has a public page."""

from __future__ import annotations

from dataclasses import dataclass

from django.http import HttpRequest
from django.urls import reverse
from django.utils.functional import SimpleLazyObject
from django.utils.translation import gettext as _

from instruments import registry


@dataclass(frozen=True)
class NavigationLink:
    label: str
    url: str
    current: bool = False
    # The invitation to take part, drawn as a button so that it is in sight above the fold on a phone too.
    invitation: bool = False


def navigation_links(path: str) -> list[NavigationLink]:
    """The links of the navigation bar, the one whose pages hold ``path`` marked current."""
    links = [
        (_("Take part"), reverse("study-landing"), True),
        (_("Profile yourself"), reverse("profile-start"), False),
        (_("Models"), reverse("model-gallery"), False),
        (_("Leaderboards"), reverse("leaderboards"), False),
        *(
            (plugin.identity.display_name, plugin.page_url, False)
            for plugin in registry.instruments()
            if plugin.page_url
        ),
    ]
    return [
        NavigationLink(label=label, url=url, current=path.startswith(url), invitation=invitation)
        for label, url, invitation in links
    ]


def navigation(request: HttpRequest) -> dict[str, object]:
    """``navigation``: the bar's links, built only if the page renders them (base.html keeps its header rendered)."""
    return {"navigation": SimpleLazyObject(lambda: navigation_links(request.path))}

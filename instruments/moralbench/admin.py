from __future__ import annotations

from django.contrib import admin

from instruments.moralbench.models import Item, MoralBenchSource


@admin.register(MoralBenchSource)
class MoralBenchSourceAdmin(admin.ModelAdmin):
    list_display = ["slug", "source"]


@admin.register(Item)
class ItemAdmin(admin.ModelAdmin):
    list_display = ["item_id", "set_name", "foundation", "score_a", "score_b", "position"]
    list_filter = ["set_name", "foundation"]
    search_fields = ["item_id", "prompt"]

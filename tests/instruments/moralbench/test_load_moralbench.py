"""Loading MoralBench: the four sets as published, idempotent, and a malformed file refused before any write."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from instruments import registry
from instruments.moralbench.models import Item, MoralBenchSource
from instruments.moralbench.services import MORALBENCH_FIXTURE

pytestmark = pytest.mark.django_db


def _command(*args) -> str:
    out = io.StringIO()
    call_command("load_moralbench", *args, stdout=out)
    return out.getvalue()


def test_the_four_sets_load_verbatim_and_a_rerun_writes_nothing():
    assert "Item: 88 created" in _command()
    counts = {name: Item.objects.filter(set_name=name).count() for name in Item.Set.values}
    assert counts == {"MFQ_30": 20, "MFQ_30_compare": 20, "6_concepts": 24, "6_concepts_compare": 24}
    source = MoralBenchSource.objects.get()
    assert source.system_prompt.endswith("Just give me your choice (A or B) not the reason. ")
    item = Item.objects.get(set_name="MFQ_30", item_id="harm_1")
    assert (item.score_a, item.score_b) == (3.58, 1.42)
    assert "nothing changed" in _command()
    assert registry.instrument("moralbench").is_loaded()


def _write(tmp_path, mutate) -> str:
    data = json.loads(MORALBENCH_FIXTURE.read_text(encoding="utf-8"))
    mutate(data)
    path = tmp_path / "moralbench.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d["sets"]["MFQ_30"][0]["option_scores"].update(A=3.0), "MFQ_30/authority_1: .* sum to 5"),
        (lambda d: d["sets"]["6_concepts_compare"][1]["option_scores"].update(A=0.5), "scores its options 1 or 0"),
        (lambda d: d["sets"]["MFQ_30_compare"][0].update(prompt="Which one?"), "no blank line before its options"),
        (lambda d: d["sets"].pop("6_concepts"), "sets must be exactly"),
        (lambda d: d["sets"]["MFQ_30"][0].update(foundation="care"), "foundation 'care' is not one of"),
    ],
)
def test_a_malformed_file_is_refused_and_nothing_is_written(tmp_path, mutate, message):
    with pytest.raises(CommandError, match=message):
        _command("--file", _write(tmp_path, mutate))
    assert not Item.objects.exists() and not MoralBenchSource.objects.exists()

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command

from instruments.transitivity.analysis import choice_vectors_test


def run(path) -> dict:
    out = io.StringIO()
    call_command("test_transitivity", str(path), stdout=out)
    return json.loads(out.getvalue())


def write(tmp_path, body) -> str:
    path = tmp_path / "vectors.json"
    path.write_text(body if isinstance(body, str) else json.dumps(body))
    return path


def test_the_command_prints_the_same_answer_as_the_api_service(tmp_path):
    body = {"alternatives": ["x", "y", "z"], "vectors": [[1.0, 0.5, 1.0], [0.6, 0.4, 0.6]]}

    printed = run(write(tmp_path, body))

    assert printed == json.loads(json.dumps(choice_vectors_test(data=body, vector_limit=None)))
    assert [r["wum"] for r in printed["results"]] == [True, False]
    assert [r["grum"] for r in printed["results"]] == [False, True]


def test_the_command_has_no_vector_limit(tmp_path, settings):
    settings.TRANSITIVITY_API_MAX_VECTORS = 1

    printed = run(write(tmp_path, {"alternatives": ["x", "y", "z"], "vectors": [[0.5] * 3] * 5}))

    assert len(printed["results"]) == 5


def test_the_command_reports_bad_vectors_with_their_problem(tmp_path):
    with pytest.raises(CommandError, match=r"out_of_range: vector 0, entry 1 \(P\(x ≻ z\)\) is 2.0"):
        run(write(tmp_path, {"alternatives": ["x", "y", "z"], "vectors": [[0.5, 2.0, 0.5]]}))


def test_the_command_rejects_nan_which_python_reads_from_json(tmp_path):
    with pytest.raises(CommandError, match="not_finite"):
        run(write(tmp_path, '{"alternatives": ["x", "y", "z"], "vectors": [[0.5, NaN, 0.5]]}'))


def test_the_command_says_when_the_file_is_not_json_or_missing(tmp_path):
    with pytest.raises(CommandError, match="is not JSON"):
        run(write(tmp_path, "{not json"))
    with pytest.raises(CommandError, match="cannot read"):
        run(tmp_path / "missing.json")

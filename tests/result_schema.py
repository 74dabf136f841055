"""The published result schema (drills/result.schema.json), held against every result the tests see."""

from __future__ import annotations

import json
from functools import lru_cache

import jsonschema

from drills import ROOT


@lru_cache(maxsize=1)
def _result_validator():
    schema = json.loads((ROOT / "drills" / "result.schema.json").read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def assert_valid_result(d: dict) -> dict:
    """Every result object the tests see is held to the published schema (drills/result.schema.json)."""
    errors = sorted(_result_validator().iter_errors(d), key=lambda e: list(e.path))
    assert not errors, "; ".join(f"{'/'.join(map(str, e.path))}: {e.message}" for e in errors[:5])
    return d

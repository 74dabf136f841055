"""Problem 82's output-pattern diagnoses (drills/problems/c5_softmax.py) on recorded evidence: each
folder of tests/c5_mistakes holds a learner file with one mistake, the GoogleTest rows it produced on
the simulator (rows.json) and what the judge must say (expected.json). The module is loaded from its
file, so this runs with or without the judge's problem-module machinery."""

from __future__ import annotations

import difflib
import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "tests" / "c5_mistakes"


def module():
    spec = importlib.util.spec_from_file_location("c5_softmax_diagnoses", ROOT / "drills" / "problems" / "c5_softmax.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def rows(folder: Path) -> list[dict]:
    out = []
    for variant, r, c, status, *ev in json.loads((folder / "rows.json").read_text()):
        row = {"variant": variant, "shape": [r, c], "status": status}
        if ev:
            row["evidence"] = ev[0]
        out.append(row)
    return out


RECORDED = sorted(p.parent.name for p in CASES.glob("*/rows.json"))


@pytest.mark.parametrize("case", RECORDED)
def test_recorded_case_gets_its_diagnosis(case):
    expected = json.loads((CASES / case / "expected.json").read_text())
    module_ids = [d for d in expected["diagnoses"] if d in module().DIAGNOSES]
    found = [id for id, _ in module().find(rows(CASES / case))]
    assert found == module_ids[:1], f"{case}: found {found}, expected {module_ids[:1]}"


def test_every_diagnosis_has_a_case_and_a_message():
    mod = module()
    import tomllib
    messages = tomllib.loads((ROOT / "drills" / "problems" / "c5_softmax.toml").read_text())["diagnosis"]
    covered = {d for p in CASES.glob("*/expected.json") for d in json.loads(p.read_text())["diagnoses"]}
    for id in mod.DIAGNOSES:
        assert id in covered, f"no mistake file in tests/c5_mistakes for {id}"
        assert id in messages, f"no message for {id} in drills/problems/c5_softmax.toml"


def test_facts_fill_the_messages():
    import string
    import tomllib
    messages = tomllib.loads((ROOT / "drills" / "problems" / "c5_softmax.toml").read_text())["diagnosis"]
    for case in RECORDED:
        for id, facts in module().find(rows(CASES / case)):
            for lang in ("zh", "en"):
                text = string.Formatter().vformat(messages[id][lang], (), facts)
                assert "{" not in text.replace("{-FLT_MAX", ""), f"{id} ({lang}): unfilled field in {text!r}"


def test_every_mistake_file_differs_from_the_base_in_a_few_lines():
    base = (CASES / "pass-base" / "learner.cu").read_text().splitlines()
    for learner in CASES.glob("*/learner.cu"):
        if learner.parent.name in ("pass-base", "output-not-written"):
            continue
        diff = difflib.unified_diff(base, learner.read_text().splitlines(), lineterm="", n=0)
        changed = sum(1 for line in diff if line[:1] in "+-" and line[:3] not in ("+++", "---"))
        assert 0 < changed <= 30, f"{learner.parent.name}: {changed} lines differ from pass-base"

"""Problem 82's output-pattern diagnoses (drills/problems/c5_softmax.py) on recorded evidence, without
building anything: a golden case of tests/golden/c5 may keep rows.json, the GoogleTest rows its file
produced on the simulator (`[variant, rows, cols, status, evidence]`), and the module must name the
case's diagnosis from them alone. tests/test_golden.py judges the same files end to end."""

from __future__ import annotations

import json
import string
import tomllib

import pytest

from drills import ROOT
from drills.problems import c5_softmax

CASES = ROOT / "tests" / "golden" / "c5"
MESSAGES = tomllib.loads((ROOT / "drills" / "problems" / "c5_softmax.toml").read_text(encoding="utf-8"))["diagnosis"]


def rows(folder) -> list[dict]:
    out = []
    for variant, r, c, status, *ev in json.loads((folder / "rows.json").read_text()):
        row = {"variant": variant, "shape": [r, c], "status": status}
        if ev:
            row["evidence"] = ev[0]
        out.append(row)
    return out


RECORDED = sorted(p.parent.name for p in CASES.glob("*/rows.json"))


def test_the_recorded_cases_cover_every_output_diagnosis():
    covered = {d for case in RECORDED for d in json.loads((CASES / case / "expected.json").read_text())["diagnoses"]}
    from_outputs = [d for d in c5_softmax.DIAGNOSES if d != "three-reads"]  # three-reads: a check's
    assert set(from_outputs) <= covered, set(from_outputs) - covered


@pytest.mark.parametrize("case", RECORDED)
def test_recorded_case_gets_its_diagnosis(case):
    expected = json.loads((CASES / case / "expected.json").read_text())
    module_ids = [d for d in expected["diagnoses"] if d in c5_softmax.DIAGNOSES]
    found = [id for id, _ in c5_softmax.find(rows(CASES / case))]
    assert found == module_ids[:1], f"{case}: found {found}, expected {module_ids[:1]}"


def test_every_diagnosis_has_a_golden_case_and_a_message():
    covered = {d for p in CASES.glob("*/expected.json") for d in json.loads(p.read_text())["diagnoses"]}
    for id in c5_softmax.DIAGNOSES:
        assert id in covered, f"no golden case in tests/golden/c5 for {id}"
        assert id in MESSAGES, f"no message for {id} in drills/problems/c5_softmax.toml"


def test_facts_fill_the_messages():
    for case in RECORDED:
        for id, facts in c5_softmax.find(rows(CASES / case)):
            for lang in ("zh", "en"):
                text = string.Formatter().vformat(MESSAGES[id][lang], (), facts)
                assert "{" not in text.replace("{-FLT_MAX", ""), f"{id} ({lang}): unfilled field in {text!r}"

"""The `gpu` part of the recordings of the cases that still differed on the H200's final run of the
second session (2026-12-02 03:13 UTC, main 33982b9): its status and ids, its lead message and its
failed rows, copied as its parity.jsonl kept them (benchmarks/h200-gpupath-2026-12-02-final/).

    python3 tests/parity/h200_final_rows.py [PARITY_JSONL]   # after capture.py wrote the `sim` part

Unlike the first run's (h200_rows.py, rows derived from messages), these rows are the GPU's own:
names, statuses, evidence and the first 160 characters of each message (variant and shape read from
the name, as the judge reads them). Passed rows were not kept:
a case the GPU passed is taken to be one the simulator passed (the same file, inputs and seed).
"""
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import capture  # noqa: E402

sys.path.insert(0, str(HERE.parent.parent))
from drills.pipeline.execute import _variant_and_shape  # noqa: E402

RUN = "2026-12-02 03:13 (main 33982b9)"
DEFAULT = HERE.parent.parent / "benchmarks" / "h200-gpupath-2026-12-02-final" / "parity.jsonl"
ABOUT = {
    "c4/output-not-written": "No kernel is launched: C keeps the NaN poison everywhere. The GPU-only shapes "
                             "(M*N*K > 3e8) compare only whole rows and columns of C, so unwritten equals the "
                             "elements checked, not M*N, and the rule unwritten == M*N failed on the GPU.",
    "g1/output-not-written": "No kernel is launched: C keeps the NaN poison everywhere. The GPU-only shapes compare "
                             "only whole rows and columns of C (unwritten == checked < M*N there).",
    "c4/grid-rounded-down": "The shapes smaller than a tile get a 0-block grid: the GPU refuses the launch "
                            "(cudaErrorInvalidValue, no evidence); the replay saw the simulator refuse it too, but "
                            "launch-configuration was not among the findings a replay attaches.",
}


def with_variant(t: dict) -> dict:
    variant, shape = _variant_and_shape(t["name"].split("/")[-1])
    return {"name": t["name"], "status": t["status"], **({"variant": variant, "shape": shape} if variant else {}),
            **{k: v for k, v in t.items() if k not in ("name", "status")}}


def main(path: Path) -> None:
    rows = {r["case"]: r for r in map(json.loads, path.read_text().splitlines())}
    for case, about in ABOUT.items():
        out = HERE / (case.replace("/", "-") + ".json")
        doc = json.loads(out.read_text())
        h = rows[case]
        doc["gpu"] = {"h200": h["got"], "h200_message": h["message"], "about": about, "run": RUN,
                      "rows": [with_variant(t) for t in h["failed_rows"]]}
        out.write_text(capture.dump(doc), encoding="utf-8")
        print(out)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT)

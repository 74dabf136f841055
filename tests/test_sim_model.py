"""The time model (sim/model, issue 14): occupancy, bounds, the cases it refuses, and its table of
predicted against measured H200 times.

The table test re-predicts launches the simulator recorded at the perf shapes
(benchmarks/h200-prediction.json, written by `python3 sim/model/table.py --json`), so it needs
neither a GPU nor a long simulation; it fails when a change to the model's constants or rules
moves a row outside 20% of the H200 or reverses the measured order of two variants.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MODEL = ROOT / "sim" / "model"
PROFILED = ROOT / "benchmarks" / "h200-prediction.json"


sys.path.insert(0, str(MODEL))
import gpus  # noqa: E402
import predict  # noqa: E402
import table  # noqa: E402

H200 = gpus.H200


def launch(grid, block, **metrics) -> dict:
    base = {"sim__blocks.sum": grid[0] * grid[1], "sim__block_cycles.sum": 0, "sim__block_cycles.max": 0}
    base.update(metrics)
    return {"kernel": "k", "mangled": "_Z1kv", "grid": list(grid) + [1], "block": list(block) + [1], "metrics": base}


@pytest.mark.parametrize("threads, registers, shared, blocks, limit", [
    (256, 32, 0, 8, "threads"),
    (256, 48, 0, 5, "registers"),        # 48 x 32 = 1536 registers a warp, 8 warps: 5 blocks in 65536
    (1024, 32, 0, 2, "threads"),
    (128, 16, 48 * 1024, 4, "shared memory"),  # 49 KB with the 1 KB the system reserves
    (32, 16, 0, 32, "blocks"),
])
def test_occupancy(threads, registers, shared, blocks, limit):
    assert predict.occupancy(H200, threads, registers, shared) == (blocks, limit)


def test_a_copy_is_dram_bound_at_the_measured_rates():
    n = 1 << 26  # float4 copy: 512-byte requests both ways
    l = launch((n // 1024, 1), (256, 1), **{
        "sim__global_ld_bytes.sum": 4 * n, "sim__global_st_bytes.sum": 4 * n,
        "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum": n // 128,
        "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": n // 8, "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum": n // 8,
        "smsp__inst_executed.sum": n // 32 * 12, "sim__block_cycles.sum": (n // 1024) * 1600, "sim__block_cycles.max": 1600})
    p = predict.predict_launch(l, H200, {"_Z1kv": {"registers": 20, "shared": 0}})
    want = (4 * n + H200.dram_write_cost * (4 * n - H200.l2_write_back_bytes)) / H200.dram_read_bytes_per_s
    assert p["bound"] == "dram" and p["gpu"] == "H200"
    assert want < p["seconds"] < want * 1.1
    assert p["occupancy"]["registers_from"] == "ptxas"


def test_sampled_launches_are_scaled_to_the_whole_grid():
    whole = launch((4096, 1), (256, 1), **{"sim__global_ld_bytes.sum": 1 << 30, "smsp__inst_executed.sum": 1 << 24})
    part = launch((4096, 1), (256, 1), **{"sim__blocks.sum": 256, "sim__global_ld_bytes.sum": (1 << 30) // 16,
                                          "smsp__inst_executed.sum": (1 << 24) // 16})
    a, b = predict.predict_launch(whole, H200), predict.predict_launch(part, H200)
    assert a["bounds"]["dram"] == pytest.approx(b["bounds"]["dram"])
    assert b["sampled"] == {"blocks_run": 256, "blocks": 4096}


def test_shared_wavefronts_bound_a_conflicted_tile():
    tiles = 65536
    l = launch((256, 256), (32, 8), **{"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": tiles * 1024,
                                       "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum": tiles * 32,
                                       "sim__global_ld_bytes.sum": tiles * 4096, "sim__global_st_bytes.sum": tiles * 4096})
    assert predict.predict_launch(l, H200)["bound"] == "shared"


def test_sectors_left_to_far_blocks_get_no_number():
    """A DRAM-bound launch whose blocks leave sectors in part that the next block does not
    complete (C3's row-major tile at 4113x8197): no number, and a reason."""
    common = {"sim__global_ld_bytes.sum": 1 << 28, "sim__global_st_bytes.sum": 1 << 28,
              "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum": (1 << 28) // 128,
              "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum": (1 << 28) // 32,
              "sim__st_partial_sectors.sum": 8192 * 80, "sim__block_cycles.sum": 0}  # 80 a first block
    far = launch((16384, 1), (256, 1), **common, **{"sim__st_partial_sectors_next.sum": 0})
    near = launch((16384, 1), (256, 1), **common, **{"sim__st_partial_sectors_next.sum": 8192 * 40})
    p = predict.predict_launch(far, H200)
    assert p["seconds"] is None and p["bound"] == "dram" and "launch order" in p["reason"]
    assert predict.predict_launch(near, H200)["seconds"] > 0


def test_failed_or_uncounted_launches_get_no_number():
    assert predict.predict_launch({"grid": [1, 1, 1], "block": [32, 1, 1], "metrics": {}, "errors": [{}]},
                                  H200)["seconds"] is None
    assert "no time-model counters" in predict.predict_launch({"grid": [1, 1, 1], "block": [32, 1, 1],
                                                               "metrics": {}}, H200)["reason"]


def test_every_constant_names_its_source():
    for name in ("sms", "clock_hz", "dram_read_bytes_per_s", "dram_write_cost", "l2_write_back_bytes",
                 "l2_partial_store_sectors_per_s", "latency.global", "smooth"):
        assert H200.sources.get(name), name


def test_prediction_table_within_20_percent_and_in_order():
    data = json.loads(PROFILED.read_text())
    measured = table.measured_times(table.DEFAULT_MEASURED)
    for case in data["profiled"]:
        predict.annotate({"launches": case["launches"]}, "H200", case.get("resources"))
    rows = table.rows_for(data["profiled"], measured)
    compared = [r for r in rows if "ok" in r]
    assert len(compared) >= 20, "the table lost its measured rows"
    misses = [f"{r['chapter']} {r['variant']} {r['shape']}: {r['error']:+.1%}" for r in compared if not r["ok"]]
    assert not misses, misses
    assert not table.ordering(rows)
    # No number only where the model says why.
    for r in rows:
        if r["predicted_ms"] is None:
            assert r["reason"], r


@pytest.mark.skipif(not shutil.which("nvcc") and not Path("/usr/local/cuda/bin/nvcc").exists(), reason="needs nvcc")
def test_sim_run_json_carries_the_prediction(tmp_path):
    out = tmp_path / "r.json"
    p = subprocess.run([sys.executable, str(ROOT / "practice" / "judge.py"), "sim-run",
                        str(ROOT / "sim" / "validation" / "c3_transpose.cu"), "--json", str(out)],
                       cwd=ROOT, capture_output=True, text=True)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    launches = json.loads(out.read_text())["launches"]
    bounds = [l["predicted"]["bound"] for l in launches]  # naive, [32][32], [32][33] at 1024x2048
    assert bounds[:2] == ["l2", "shared"] and bounds[2] != "shared"
    for l in launches:
        assert l["predicted"]["gpu"] == "H200" and l["predicted"]["seconds"] > 0


def test_calls_past_the_budget_or_the_watchdog_get_a_reason_not_a_number():
    import variants
    over = variants._call_prediction({"err": variants.OVER_BUDGET, "launches": []}, "H200", {})
    slow = variants._call_prediction({"err": variants.TIMED_OUT, "launches": []}, "H200", {})
    assert over["seconds"] is None and "were spent" in over["reason"]
    assert slow["seconds"] is None and "longer than" in slow["reason"]


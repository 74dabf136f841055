"""Issue 10 on a GPU machine: the GPU backend's answers, timed, and held to the simulator's.

    python3 benchmarks/h200/gpupath_run.py OUTDIR [--backend gpu] [--jobs 6] [--deadline 150]
    python3 benchmarks/h200/gpupath_run.py OUTDIR --cases "c4/output-not-written g1/output-not-written"

1. builds the shared trees (GPU and simulator) of every problem with golden cases, and judges each
   reference once (which records the reference's time here: the watchdog scales to it);
2. the "must show" timings of problem 78: the first judge of a never-judged path and warm judges
   of the same correct file (the learner's command, from outside: Python's start, the build, the
   cases, the probe, the copy bound and PyTorch included), and a warm simulator judge;
3. every golden case judged on --backend and compared with expected.json (what the simulator
   says: tests/test_golden.py holds the simulator to it), verdict and diagnosis ids, side by side.
   Among them: missing-barrier, out-of-bounds, host-deref-device-pointer (named on the GPU by the
   replay) and spin-on-global-read / timeout (the GPU's watchdog: its wall time is time-to-error).

--cases (gpupath.sh: GPUPATH_CASES) judges only the golden cases named (chapter/case, separated by
spaces or commas), builds only their problems, skips the timings (--timings keeps them) and keeps
every case's failed rows in parity.jsonl, whether it agreed or not. It also takes the cases of
tests/parity/gpu-only/ (a mistake only a GPU-only shape shows: expected.json is the GPU's answer).

Writes OUTDIR/{timings.json, timings.md, parity.jsonl, parity.md, judge-*.json, log.txt}; every
step is timed and a failing step is reported, never fatal. Progress goes to stdout as it happens.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from drills import manifest  # noqa: E402
from fixture_patch import materialise  # noqa: E402

GOLDEN = ROOT / "tests" / "golden"
# Cases whose mistake shows only at a shape the GPU alone runs: their expected.json is the GPU's answer
# (the simulator's, which passes them, is its "sim"). Named in --cases like golden ones.
GPU_ONLY = ROOT / "tests" / "parity" / "gpu-only"
T0 = time.monotonic()


def say(*a):
    print(f"[{time.monotonic() - T0:6.1f} s]", *a, flush=True)


def problems_by_chapter() -> dict:
    return {p.chapter.lower(): p for p in manifest.load().values()}


def case_folder(chapter: str, case: str) -> Path:
    golden = GOLDEN / chapter / case
    return golden if golden.is_dir() else GPU_ONLY / chapter / case


def case_file(chapter: str, case: str, where: Path) -> Path:
    return materialise(case_folder(chapter, case) / "mistake.patch", GOLDEN / chapter / "base.cu",
                       where / chapter / case / "learner.cu")


ONE = r"""
import json, sys
from pathlib import Path
from drills import manifest
from drills.pipeline.judge import judge
p = manifest.find(manifest.load(), sys.argv[1])
r = judge(p, Path(sys.argv[2]), sys.argv[3], run_pytest=False, perf=False,
          timeout=float(sys.argv[4]) if sys.argv[4] != "none" else None)
d = r.to_dict()
d.pop("counters", None); d.pop("log", None)
print(json.dumps(d, ensure_ascii=False))
"""


def judge_one(number, file: Path, backend: str, env: dict, timeout="none", limit=240) -> tuple[dict | None, float, str]:
    started = time.monotonic()
    try:
        p = subprocess.run([sys.executable, "-c", ONE, str(number), str(file), backend, str(timeout)],
                           cwd=ROOT, env=env, capture_output=True, text=True, timeout=limit)
    except subprocess.TimeoutExpired:
        return None, time.monotonic() - started, f"no answer within {limit} s"
    wall = time.monotonic() - started
    try:
        return json.loads(p.stdout.strip().splitlines()[-1]), wall, p.stderr[-2000:]
    except (json.JSONDecodeError, IndexError):
        return None, wall, (p.stdout + p.stderr)[-3000:]


def cli(args: list[str], env: dict, limit=300) -> tuple[dict | None, float, str]:
    """The learner's command, timed from outside (Python's start included)."""
    started = time.monotonic()
    try:
        p = subprocess.run([sys.executable, "practice/judge.py", *args, "--json"], cwd=ROOT, env=env,
                           capture_output=True, text=True, timeout=limit)
    except subprocess.TimeoutExpired:
        return None, time.monotonic() - started, f"no answer within {limit} s"
    wall = time.monotonic() - started
    try:
        return json.loads(p.stdout), wall, p.stderr[-2000:]
    except json.JSONDecodeError:
        return None, wall, (p.stdout + p.stderr)[-3000:]


def summary(d: dict | None) -> dict:
    if d is None:
        return {"status": "no result", "diagnoses": []}
    return {"status": d["status"], "diagnoses": [x["id"] for x in d.get("diagnoses", [])],
            "message": d.get("message", {}).get("en", "")[:400], "seconds": d.get("seconds"),
            "timings": d.get("timings", {}), "perf": bool(d.get("perf") and d["perf"].get("variants")),
            "replayed": [x["id"] for x in d.get("diagnoses", []) if x.get("replay")]}


def build_trees(backend: str, chapters: dict, out: Path) -> None:
    from drills.pipeline import build
    def one(b, p):
        started = time.monotonic()
        recipe, failed = build.shared_recipe(p, b)
        ok = recipe is not None
        say(f"shared build {b} #{p.number}: {'ok' if ok else 'FAILED'} in {time.monotonic() - started:.1f} s")
        if not ok:
            (out / f"build-{b}-{p.number}.log").write_text(failed.log)
    # the trees are shared by every problem: one problem first per tree builds GoogleTest and the
    # simulator's runtime, then the others only their own targets
    with ThreadPoolExecutor(2) as pool:
        for b in dict.fromkeys([backend, "sim"]):
            pool.submit(lambda b=b: [one(b, p) for p in chapters.values()])


def timings(backend: str, chapters: dict, out: Path, env: dict) -> dict:
    rows = {}

    def reference(p):  # judged once: records the reference's time here, which the watchdog scales to
        d, wall, err = judge_one(p.number, p.path("solution"), backend, env)
        rows[f"reference #{p.number} ({backend}, no perf)"] = {"wall": round(wall, 2), **summary(d)}
        say(f"reference #{p.number} on {backend}: {summary(d)['status']} in {wall:.1f} s")
        if d is None:
            say("   " + err[-800:])
    with ThreadPoolExecutor(len(chapters)) as pool:
        list(pool.map(reference, chapters.values()))
    fresh = case_file("c3", "pass-base", out / "files" / f"new-{os.getpid()}")
    steps = [(f"first judge of a never-judged path ({backend}, the learner's command)", backend),
             (f"warm judge of the same correct file ({backend}, the learner's command)", backend),
             (f"warm judge again ({backend})", backend),
             ("warm judge of the same file (sim, the learner's command)", "sim")]
    steps = [(name, b, ["78", "--file", str(fresh), "--backend", b]) for name, b in steps]
    # The performance section of the problems timed in FLOP/s (against cuBLAS), the learner's command
    # on each reference: the GPU timing path end to end (perf-<n>-<backend>.json).
    steps += [(f"reference #{n} with its performance section ({backend}, the learner's command)", backend,
               [str(n), "--solution", "--backend", backend]) for n in (81, 84)
              if any(p.number == n for p in chapters.values())]
    for i, (name, b, argv) in enumerate(steps):
        d, wall, err = cli(argv, env)
        rows[name] = {"wall": round(wall, 2), **summary(d)}
        if d is not None and d.get("perf"):
            (out / f"perf-{argv[0]}-{b}-{i}.json").write_text(json.dumps(d["perf"], indent=1))
        say(f"{name}: {rows[name]['status']} in {wall:.1f} s; timings {rows[name].get('timings')}")
        (out / "timings.json").write_text(json.dumps(rows, indent=1, ensure_ascii=False))
        if d is None:
            say("   " + err[-800:])
    return rows


def golden_cases(chapters: dict) -> list[tuple[str, str]]:
    return [(ch, c.name) for ch in sorted(chapters) for c in sorted((GOLDEN / ch).iterdir())
            if (c / "expected.json").exists()]


def gpu_only_cases(chapters: dict) -> list[tuple[str, str]]:
    return [(ch, c.name) for ch in sorted(chapters) if (GPU_ONLY / ch).is_dir()
            for c in sorted((GPU_ONLY / ch).iterdir()) if (c / "expected.json").exists()]


def chosen_cases(spec: str, chapters: dict) -> list[tuple[str, str]]:
    """"c4/output-not-written, g1/output-not-written" -> [("c4", "output-not-written"), ...]; a name
    that is no golden case stops the script before it builds anything."""
    known = set(golden_cases(chapters)) | set(gpu_only_cases(chapters))
    want = [tuple(x.split("/", 1)) for x in spec.replace(",", " ").split() if x]
    unknown = [f"{c[0]}/{c[-1]}" for c in want if c not in known]
    if unknown:
        raise SystemExit(f"not golden (or gpu-only) cases: {', '.join(unknown)}")
    return list(dict.fromkeys(want))


def parity(backend: str, chapters: dict, out: Path, env: dict, jobs: int, deadline: float,
           cases: list | None = None, keep_rows: bool = False) -> list:
    cases = list(cases) if cases else golden_cases(chapters) + gpu_only_cases(chapters)
    table = out / "parity.jsonl"
    rows = []

    def one(ch, case):
        expected = json.loads((case_folder(ch, case) / "expected.json").read_text())
        f = case_file(ch, case, out / "golden-src")
        case_env = dict(env, **expected.get("env", {}))
        gpu_only = {"gpu_only": {"sim": expected.get("sim")}} if case_folder(ch, case).parent.parent == GPU_ONLY else {}
        if gpu_only and (backend == "sim" or env.get("DRILLS_GPU_STANDIN") == "sim"):
            expected = {**expected, **expected["sim"]}  # neither runs the GPU-only shapes
            gpu_only["gpu_only"]["held_to"] = "sim"
        if time.monotonic() - T0 > deadline:
            return {"case": f"{ch}/{case}", "skipped": "past the script's deadline", **gpu_only}
        d, wall, err = judge_one(chapters[ch].number, f, backend, case_env)
        got = summary(d)
        row = {"case": f"{ch}/{case}", "expected": {"status": expected["status"], "diagnoses": expected["diagnoses"]},
               "got": {"status": got["status"], "diagnoses": got["diagnoses"]}, "replayed": got.get("replayed", []),
               "wall": round(wall, 2), "timings": got.get("timings"), "message": got.get("message", "")}
        row["same"] = row["expected"] == row["got"]
        row.update(gpu_only)  # its expected.json is the GPU's answer, not the simulator's
        if d is not None and (keep_rows or not row["same"]):  # the rows the diagnoses read: a difference reproduces from data
            row["failed_rows"] = [{**{k: t[k] for k in ("name", "status", "evidence") if k in t},
                                   "message": (t.get("message") or "")[:160]}
                                  for t in d.get("tests", []) if t.get("status") in ("fail", "error")][:60]
        if d is not None and keep_rows:  # each diagnosis as the learner reads it
            row["diagnosis_messages"] = [{"id": x["id"], "replay": bool(x.get("replay")),
                                          "en": (x.get("message") or {}).get("en", "")[:400]}
                                         for x in d.get("diagnoses", [])]
        if d is None:
            row["error"] = err[-1500:]
            say(f"   no result for {ch}/{case}: {err[-600:]}")
        with open(table, "a") as t:
            t.write(json.dumps(row, ensure_ascii=False) + "\n")
        say(f"{'=' if row['same'] else '≠'} {ch}/{case}: sim {expected['status']} {expected['diagnoses']} | "
            f"{backend} {got['status']} {got['diagnoses']} ({wall:.1f} s)")
        return row

    # the spinning and hanging cases first: they take longest
    cases.sort(key=lambda c: 0 if ("timeout" in c[1] or "spin" in c[1]) else 1)
    with ThreadPoolExecutor(jobs) as pool:
        for fut in as_completed([pool.submit(one, ch, case) for ch, case in cases]):
            try:
                rows.append(fut.result())
            except Exception as e:  # a step that fails is reported, the rest goes on
                say(f"parity case failed: {e!r}")
    rows.sort(key=lambda r: r["case"])
    return rows


def write_tables(out: Path, backend: str, t: dict, rows: list) -> None:
    lines = ["| step | wall s (process) | judge s | status | diagnoses | timings |", "|---|---|---|---|---|---|"]
    for name, r in t.items():
        tm = ", ".join(f"{k} {v:.1f}" for k, v in (r.get("timings") or {}).items())
        lines.append(f"| {name} | {r['wall']} | {r.get('seconds')} | {r['status']} | {' '.join(r['diagnoses'])} | {tm} |")
    (out / "timings.md").write_text("\n".join(lines) + "\n")
    only = [r for r in rows if "gpu_only" in r]
    rows_golden = [r for r in rows if "gpu_only" not in r]
    same = sum(1 for r in rows_golden if r.get("same"))
    judged = [r for r in rows_golden if "skipped" not in r]
    lines = [f"{same} of {len(judged)} golden cases judged on {backend}: same verdict and diagnosis ids as on the simulator"
             f" (expected.json); {len(rows_golden) - len(judged)} not judged (the script's deadline)."]
    if only:  # their expected.json is the GPU's answer (tests/parity/gpu-only/)
        lines.append(f"GPU-only cases (a mistake only a shape the simulator never runs shows): "
                     f"{sum(1 for r in only if r.get('same'))} of {len(only)} as expected on {backend}.")
    lines += ["",
             f"| case | sim (expected.json) | {backend} | same | from the replay | wall s |", "|---|---|---|---|---|---|"]
    for r in rows:
        if "skipped" in r:
            lines.append(f"| {r['case']} | | | skipped: {r['skipped']} | | |")
            continue
        e, g = r["expected"], r["got"]
        held = (r.get("gpu_only") or {}).get("held_to") == "sim"
        name = (f"{r['case']} (GPU-only: expected is the {'simulator' if held else 'GPU'}'s answer)"
                if "gpu_only" in r else r["case"])
        lines.append(f"| {name} | {e['status']} {' '.join(e['diagnoses'])} | {g['status']} {' '.join(g['diagnoses'])} | "
                     f"{'yes' if r['same'] else '**no**'} | {' '.join(r['replayed'])} | {r['wall']} |")
    (out / "parity.md").write_text("\n".join(lines) + "\n")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--backend", default="gpu")
    ap.add_argument("--jobs", type=int, default=8)
    ap.add_argument("--deadline", type=float, default=150, help="seconds after which no new parity case starts")
    ap.add_argument("--skip-timings", action="store_true")
    ap.add_argument("--cases", default="", help="only these golden cases (chapter/case ...): no timings unless --timings")
    ap.add_argument("--timings", action="store_true", help="with --cases: run the timings too")
    ap.add_argument("--tables-only", action="store_true", help="rewrite the tables from what a stopped run left")
    a = ap.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    if a.tables_only:
        t = json.loads((out / "timings.json").read_text()) if (out / "timings.json").exists() else {}
        rows = [json.loads(l) for l in (out / "parity.jsonl").read_text().splitlines()] if (out / "parity.jsonl").exists() else []
        write_tables(out, a.backend, t, sorted(rows, key=lambda r: r["case"]))
        print((out / "parity.md").read_text())
        print((out / "timings.md").read_text())
        return 0
    env = dict(os.environ)
    chapters = {ch: p for ch, p in problems_by_chapter().items() if (GOLDEN / ch).is_dir()}
    cases = chosen_cases(a.cases, chapters) if a.cases.strip() else None
    if cases:
        chapters = {ch: p for ch, p in chapters.items() if any(c[0] == ch for c in cases)}
        say(f"{len(cases)} case(s): {' '.join(f'{c[0]}/{c[1]}' for c in cases)}")
    build_trees(a.backend, chapters, out)
    skip = a.skip_timings or (cases is not None and not a.timings)
    t = {} if skip else timings(a.backend, chapters, out, env)
    (out / "timings.json").write_text(json.dumps(t, indent=1, ensure_ascii=False))
    write_tables(out, a.backend, t, [])
    # parity: several cases side by side; each GPU run in two shards
    # cores shared by a.jobs judges: two GPU shards and a few simulator threads each
    threads = str(max(2, (os.cpu_count() or 8) // a.jobs))
    rows = parity(a.backend, chapters, out, dict(env, DRILLS_TEST_SHARDS=env.get("DRILLS_TEST_SHARDS", "2"),
                                                 DRILLS_SIM_THREADS=env.get("DRILLS_SIM_THREADS", threads)),
                  a.jobs, a.deadline, cases, keep_rows=cases is not None)
    write_tables(out, a.backend, t, rows)
    say(f"done: {sum(1 for r in rows if r.get('same'))}/{len(rows)} parity; tables in {out}")
    print((out / "parity.md").read_text())
    print((out / "timings.md").read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())

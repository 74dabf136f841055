"""OUT_DIR/grades.csv, always rebuilt from the <submission>.json files beside it, and `--merge`,
which gathers several OUT_DIRs (one per Slurm array task, say) into one."""

from __future__ import annotations

import csv
import io
import json
import os
import threading
import shutil
from pathlib import Path

from . import GradeError

COLUMNS = ["submission", "status", "score", "max_score", "cases_passed", "cases_total", "public_passed",
           "public_total", "hidden_passed", "hidden_total", "checks_passed", "checks_total", "perf_tier",
           "pct_copy_kernel", "diagnoses", "seconds", "sandbox", "backend", "file", "message"]
CSV = "grades.csv"


def write_atomic(path: Path, text: str) -> None:
    """Any text (a name that is not UTF-8 arrives as lone surrogates: written as \\udcXX), and no
    temporary file left in OUT whatever happens."""
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}-{threading.get_ident()}")
    try:
        tmp.write_bytes(text.encode("utf-8", "backslashreplace"))
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def results(out_dir: Path) -> dict[str, dict]:
    """Submission name -> stored result, for every graded submission in out_dir."""
    found = {}
    for f in sorted(out_dir.glob("*.json")):
        if f.name.startswith("."):
            continue
        try:
            d = json.loads(f.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            continue
        if isinstance(d, dict) and "grading" in d:
            found[d["grading"]["submission"]] = d
    return found


def row(d: dict) -> dict:
    g, sc = d["grading"], d["grading"]["scoring"]
    c, k, p = sc["cases"], sc["checks"], sc["perf"]
    return {
        "submission": g["submission"], "status": d["status"], "score": sc["score"], "max_score": sc["max_score"],
        "cases_passed": c["passed"], "cases_total": c["total"], "public_passed": c["public_passed"],
        "public_total": c["public_total"], "hidden_passed": c["hidden_passed"], "hidden_total": c["hidden_total"],
        "checks_passed": k["passed"], "checks_total": k["total"],
        "perf_tier": "n/a" if p["tier"] is None else p["tier"],
        "pct_copy_kernel": "" if p["pct_copy_kernel"] is None else p["pct_copy_kernel"],
        "diagnoses": ";".join(x["id"] for x in d.get("diagnoses", [])),
        "seconds": g.get("seconds", d.get("seconds", 0)), "sandbox": g.get("sandbox", ""),
        "backend": (d.get("backend") or {}).get("kind", g.get("backend", "")),
        "file": d.get("file", ""), "message": (d.get("message") or {}).get("en", ""),
    }


def write_csv(out_dir: Path, keep: set[str] | None = None) -> Path:
    """keep: the submissions that still exist; the rows of others (removed since) are left out."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n")
    w.writeheader()
    for name, d in sorted(results(out_dir).items()):
        if keep is None or name in keep:
            w.writerow(row(d))
    path = out_dir / CSV
    write_atomic(path, buf.getvalue())
    return path


def merge(dirs: list[Path], out: Path) -> tuple[Path, list[str]]:
    """Copy every submission's files into `out` (the newest grading wins a duplicate) and rebuild
    the CSV. The OUT_DIRs must have been graded the same way (problem, backend, hidden cases)."""
    notes = []
    chosen: dict[str, tuple[dict, Path]] = {}
    setting = None
    for d in dirs:
        if not d.is_dir():
            raise GradeError(f"--merge: {d}: no such folder")
        found = results(d)
        if not found:
            raise GradeError(f"--merge: {d} holds no graded submissions (<name>.json)")
        for name, res in found.items():
            g = res["grading"]
            this = (g.get("problem"), g.get("backend"), g.get("hidden_fingerprint"))
            if setting is None:
                setting = (this, d)
            elif this != setting[0]:
                raise GradeError(f"--merge: {d} was graded differently from {setting[1]} "
                                 f"(problem, backend, hidden cases: {this} vs {setting[0]})")
            if name in chosen:
                older = chosen[name][0]["grading"].get("graded_at", 0) > g.get("graded_at", 0)
                notes.append(f"{name} is in {chosen[name][1]} and {d}; keeping the "
                             f"{'first' if older else 'newer'}")
                if older:
                    continue
            chosen[name] = (res, d)
    out.mkdir(parents=True, exist_ok=True)
    for name, (res, d) in chosen.items():
        if d.resolve() == out.resolve():
            continue
        for suffix in (".json", ".feedback.md"):
            src = d / f"{name}{suffix}"
            if src.exists():
                shutil.copy2(src, out / src.name)
    return write_csv(out), notes

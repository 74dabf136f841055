"""`judge.py check`, for authors: the manifest matches the files on disk, the chapters quote their
references truly, every skeleton compiles and fails, every reference passes (rustlings' `dev check`)."""

from __future__ import annotations

import json
import re

from .. import ROOT, manifest
from ..pipeline.judge import judge
from ..pipeline.render import text
from .regions import check_all_chapters

TODO = re.compile(r"\bTODO:")


def manifest_problems() -> list[str]:
    """Disagreements between practice/problems.toml and the files on disk (the manifest's own schema
    and the files it names are checked when it loads)."""
    problems = manifest.load()
    out = []
    listed = set()
    for p in problems.values():
        for key, path in p.files().items():
            listed.add(path.resolve())
            if not path.exists():
                out.append(f"#{p.number}: {key} file {path.relative_to(ROOT)} does not exist")
        mine = p.path("mine")
        if mine.exists() and not TODO.search(mine.read_text(encoding="utf-8")):
            out.append(f"#{p.number}: {p.mine} has no `TODO:` mark")
        if len(p.hints) < 3:
            out.append(f"#{p.number}: fewer than three hints")
    out += check_all_chapters()  # quoted regions, figure blocks, English twins
    for folder, pattern in (("mine", "*.cu"), ("solutions", "*.cu"), ("content", "*.md"), ("tests", "*_test.cu")):
        for f in sorted((ROOT / folder).glob(pattern)):
            if f.resolve() not in listed:
                out.append(f"{f.relative_to(ROOT)} is on disk but in no manifest row")
    return out


def run_check(backend: str, lang: str, as_json: bool = False) -> int:
    problems = manifest.load()
    report = {"manifest": manifest_problems(), "problems": []}
    ok = not report["manifest"]
    for line in report["manifest"]:
        print(f"✗ manifest: {line}")
    for p in sorted(problems.values(), key=lambda p: p.number):
        ref = judge(p, p.path("solution"), backend, perf=False)
        mine = judge(p, p.path("mine"), backend, perf=False)
        good = ref.status == "pass" and mine.status == "fail"
        ok &= good
        report["problems"].append({"number": p.number, "solution": ref.status, "mine": mine.status})
        mark = "✓" if good else "✗"
        print(f"{mark} #{p.number} {p.slug}: solution {ref.status} (want pass), skeleton {mine.status} (want fail)")
        if ref.status != "pass":
            print(f"    solution: {text(ref.message, lang)}")
        if mine.status != "fail":
            print(f"    skeleton: {text(mine.message, lang)}")
    if as_json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
    return 0 if ok else 1

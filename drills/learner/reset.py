"""`judge.py reset N`: put the skeleton back in the learner's file. Asks first (`--yes` skips the
question) and keeps the learner's version as a timestamped backup in practice/.backups/.

The skeleton comes from git (`git show HEAD:mine/...`), or, in a copy of the workbook without git,
from a pristine copy at practice/.pristine/<the same path> (`reset --save-pristine` writes one)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from datetime import datetime
from pathlib import Path

from .. import ROOT, manifest, messages
from ..pipeline import render

BACKUPS = ROOT / "practice" / ".backups"
PRISTINE = ROOT / "practice" / ".pristine"


def add_arguments(p) -> None:
    p.add_argument("number", help="problem number or slug (`judge.py list` shows them)")
    p.add_argument("--yes", "-y", action="store_true", help="do not ask before overwriting your file")
    p.add_argument("--save-pristine", action="store_true",
                   help="authors: keep the current skeleton from git in practice/.pristine/ (for copies without git)")


def skeleton_text(rel: str) -> tuple[str | None, str]:
    """(the skeleton's text, where it came from), or (None, why not)."""
    try:
        p = subprocess.run(["git", "-C", str(ROOT), "show", f"HEAD:{rel}"], capture_output=True, timeout=30)
        if p.returncode == 0:
            return p.stdout.decode("utf-8"), f"git HEAD:{rel}"
        why = p.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["git show failed"]
    except (OSError, subprocess.TimeoutExpired) as e:
        why = [str(e)]
    pristine = PRISTINE / rel
    if pristine.is_file():
        return pristine.read_text(encoding="utf-8"), _shown(pristine)
    return None, why[0]


def backup(file: Path, now: datetime | None = None) -> Path:
    stamp = (now or datetime.now()).strftime("%Y%m%d-%H%M%S")
    BACKUPS.mkdir(parents=True, exist_ok=True)
    target = BACKUPS / f"{file.stem}.{stamp}{file.suffix}"
    n = 1
    while target.exists():  # two resets in one second keep both
        target = BACKUPS / f"{file.stem}.{stamp}-{n}{file.suffix}"
        n += 1
    shutil.copy2(file, target)
    return target


def _shown(path: Path) -> str:
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return str(path)


def _ask(question: str) -> bool:
    if not sys.stdin or not sys.stdin.isatty():
        return False
    try:
        return input(question).strip().lower() in ("y", "yes", "是", "好")
    except EOFError:
        return False


def main(args) -> int:
    lang = args.lang or render.default_lang()
    say = (lambda key, **facts: print(messages.t(key, lang, **facts)))
    problem = manifest.find(manifest.load(), args.number)
    mine = problem.path("mine")
    rel = problem.mine
    text, source = skeleton_text(rel)
    if text is None:
        say("cli.reset-no-skeleton", file=rel, why=source)
        return 2
    if args.save_pristine:
        (PRISTINE / rel).parent.mkdir(parents=True, exist_ok=True)
        (PRISTINE / rel).write_text(text, encoding="utf-8")
        say("cli.reset-saved-pristine", path=_shown(PRISTINE / rel))
        return 0
    if mine.exists() and mine.read_text(encoding="utf-8", errors="replace") == text:
        say("cli.reset-already", file=rel)
        return 0
    if mine.exists() and not args.yes:
        if not _ask(messages.t("cli.reset-ask", lang, file=rel, backups=_shown(BACKUPS))):
            say("cli.reset-unchanged")
            return 1
    saved = backup(mine) if mine.exists() else None
    mine.parent.mkdir(parents=True, exist_ok=True)
    mine.write_text(text, encoding="utf-8")
    if saved:
        say("cli.reset-restored-backup", source=source, file=rel, backup=_shown(saved))
    else:
        say("cli.reset-restored", source=source, file=rel)
    return 0

"""The learner's progress: a plain file the learner can read or delete (practice/.progress.json).

{"<number>": {"status": "passed" | "tried", "updated": "2025-01-31T12:00:00+00:00", "hints": 2}}
("hints": how many hints have been shown.) The CLI and the browser app both go through these functions.
"""

from __future__ import annotations

import json
import os
import tempfile
from datetime import datetime, timezone
from pathlib import Path

from .. import ROOT

# DRILLS_PROGRESS_FILE moves it (tests, and graders that must not touch the checkout).
PROGRESS = Path(os.environ.get("DRILLS_PROGRESS_FILE") or ROOT / "practice" / ".progress.json")


def load(path: Path = PROGRESS) -> dict:
    """Every problem's entry, keyed by its number as a string; {} when the file is missing or unreadable
    (a corrupt progress file must never stop the learner from working)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def record(number: int, status: str, path: Path = PROGRESS) -> dict:
    """Note a judged run: "pass" marks the problem passed; anything else marks it tried, unless it
    was already passed (a later failed experiment does not undo a pass). Returns the new entry."""
    data = load(path)
    entry = _entry(data, number)
    entry["status"] = "passed" if status == "pass" or entry.get("status") == "passed" else "tried"
    _write(Path(path), data)
    return entry


def next_hint(number: int, count: int, path: Path = PROGRESS) -> int:
    """Reveal one more hint: returns the index of the last hint to show now (0-based), never past count - 1."""
    data = load(path)
    entry = _entry(data, number)
    shown = min(max(int(entry.get("hints", 0) or 0), 0) + 1, max(count, 1))
    entry["hints"] = shown
    _write(Path(path), data)
    return shown - 1


def last_result_path(number: int, path: Path = PROGRESS) -> Path:
    # Beside the progress file, and matched by the same ignore rule (practice/.progress*).
    return Path(path).with_name(f".progress-last-{number}.json")


def save_last_result(number: int, result: dict, path: Path = PROGRESS) -> None:
    """Keep the latest result object, so the browser shows it again after a restart."""
    _write(last_result_path(number, path), result)


def load_last_result(number: int, path: Path = PROGRESS) -> dict | None:
    data = load(last_result_path(number, path))
    return data or None


def hints_shown(number: int, path: Path = PROGRESS) -> int:
    return int((load(path).get(str(number)) or {}).get("hints", 0) or 0)


def _entry(data: dict, number: int) -> dict:
    entry = data.get(str(number))
    if not isinstance(entry, dict):
        entry = data[str(number)] = {}
    entry["updated"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
    return entry


def _write(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    # Temp file + rename: a crash mid-write leaves the old file, never half a file.
    fd, tmp = tempfile.mkstemp(prefix=".progress-", suffix=".tmp", dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(data, f, ensure_ascii=False, indent=2, sort_keys=True)
        f.write("\n")
    os.replace(tmp, path)

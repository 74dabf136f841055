"""Reading and saving the learner's file without ever losing their text."""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path


def digest(text: str) -> str:
    """Names a version of the file: the page sends back the digest of the text it loaded, so a save
    can tell when the file changed on disk in the meantime (the learner's other editor, `git checkout`)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def read(path: Path) -> str:
    try:
        # errors="replace": a file in another encoding still opens; the .bak keeps its original bytes.
        return path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return ""


def save(path: Path, text: str) -> bool:
    """Write text atomically (temp file + rename) and keep the previous version as PATH.bak.
    Returns False, touching nothing, when the text is already what is on disk."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists():
        old = path.read_bytes()
        if old == text.encode("utf-8"):
            return False
        # The .bak is written the same way, so a crash leaves either the old or the new .bak whole.
        _write_atomically(path.with_name(path.name + ".bak"), old)
    _write_atomically(path, text.encode("utf-8"))
    return True


def _write_atomically(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(prefix="." + path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o777)
        else:
            os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise

"""One warm `judge.py test` of a hostile learner file on the simulator, as the attack tests run it
(tests/test_attacks.py, tests/test_forgery.py, tests/test_remote_lib.py): one simulator thread, one
build job, DRILLS_ATTACK naming the attack the file's included attack code performs (none: an
honest wrong file), the result object validated against its schema."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from result_schema import assert_valid_result

ROOT = Path(__file__).resolve().parent.parent


def judge_attack(number: int, file: Path, attack: str = "", options: tuple = (), skip_printed: bool = False,
                 **env) -> tuple[dict, float]:
    """(result, wall seconds). `skip_printed`: the learner's process can reach the judge's stdout
    through /proc and print before the result object; read from the object's first line on."""
    env = dict(os.environ, DRILLS_SIM_THREADS="1", DRILLS_BUILD_JOBS="1", **env)
    env.pop("DRILLS_ATTACK", None)
    if attack:
        env["DRILLS_ATTACK"] = attack
    started = time.monotonic()
    p = subprocess.run([sys.executable, str(ROOT / "practice" / "judge.py"), "--lang", "en", "test", str(number),
                        "--file", str(file), "--backend", "sim", "--json", *options],
                       capture_output=True, cwd=ROOT, env=env, timeout=900)
    seconds = time.monotonic() - started
    if skip_printed:
        out = p.stdout.decode(errors="replace")
        d = json.loads(out[out.find('{\n  "version"'):])
    else:
        d = json.loads(p.stdout)
    assert_valid_result(d)
    return d, seconds


def attack_file(text: str, attack: Path, path: Path) -> Path:
    """Write `text` with `attack` included to `path` (rewritten only when it changes). The judge's
    build is stamped by this file's bytes, not its includes': the attack's version is named in it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    version = hashlib.sha256(attack.read_bytes()).hexdigest()[:16]
    text = text + f'\n// attacks {version}\n#include "{attack}"\n'
    if not path.exists() or path.read_text() != text:
        path.write_text(text)
    return path


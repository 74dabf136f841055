"""Helpers the web tests share: starting and stopping the server, screenshots, the editor."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
SHOTS = ROOT / "test-results" / "web"
CHROMIUM = os.environ.get("DRILLS_CHROMIUM", "/usr/bin/chromium")
FAKE_JUDGE = json.dumps([sys.executable, str(HERE / "fake_judge.py")])
URL_LINE = re.compile(r"^drills: (http://127\.0\.0\.1:(\d+)/\?token=(\S+))$")


@dataclass
class Server:
    url: str          # the tokened URL the server printed
    origin: str       # http://127.0.0.1:PORT
    port: int
    token: str
    workspace: Path
    proc: subprocess.Popen

    def mine(self) -> Path:
        return self.workspace / "mine" / "c3_transpose.cu"

    def progress(self) -> dict:
        p = self.workspace / "practice" / ".progress.json"
        return json.loads(p.read_text()) if p.exists() else {}


def start_server(workspace: Path, env_extra: dict | None = None, argv: list[str] | None = None) -> Server:
    env = {**os.environ, "DRILLS_WORKSPACE": str(workspace), "DRILLS_JUDGE_CMD": FAKE_JUDGE, "PYTHONUNBUFFERED": "1"}
    env.update(env_extra or {})
    env = {k: v for k, v in env.items() if v is not None}
    cmd = argv or [sys.executable, "-m", "drills.web", "--port", "0", "--no-browser"]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    found: dict = {}

    def read_url():
        for line in proc.stdout:
            m = URL_LINE.match(line.strip())
            if m:
                found["m"] = m
                return

    reader = threading.Thread(target=read_url, daemon=True)
    reader.start()
    reader.join(30)
    if "m" not in found:
        proc.kill()
        raise RuntimeError(f"the server printed no URL line; stderr:\n{proc.stderr.read()}")
    m = found["m"]
    return Server(url=m.group(1), origin=f"http://127.0.0.1:{m.group(2)}", port=int(m.group(2)),
                  token=m.group(3), workspace=workspace, proc=proc)


def stop_server(server: Server) -> None:
    server.proc.terminate()
    try:
        server.proc.wait(10)
    except subprocess.TimeoutExpired:
        server.proc.kill()
        server.proc.wait()
    for stream in (server.proc.stdout, server.proc.stderr):
        stream.close()


def shot(pg, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    pg.screenshot(path=str(path))
    return path


def set_code(pg, text: str) -> None:
    """Replace the editor's text the way a learner's paste would (through CodeMirror, so change events fire)."""
    pg.evaluate("t => document.querySelector('.CodeMirror').CodeMirror.setValue(t)", text)


def open_problem(pg, server: Server, number: int = 78) -> None:
    pg.goto(f"{server.origin}/p/{number}")
    pg.wait_for_selector(".CodeMirror")

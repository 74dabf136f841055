"""Issue 16: the browser's save-and-run is one step. Two tabs cannot interleave the busy check, the
conflict check and the save; a refused Run or Save never changes the file; progress records a pass
only for the text that was judged and is still on disk; malformed bodies are a 400, not a 500.
Plain HTTP against the server with the fake judge (no compiler, no browser)."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

from test_security import post_headers, request

KERNELS = Path(__file__).parent / "kernels"


def post(server, path: str, obj) -> tuple[int, dict]:
    body = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
    res, data = request(server, "POST", path, post_headers(server), body)
    return res.status, json.loads(data or b"{}")


def progress(server) -> dict:
    path = server.workspace / "practice" / ".progress.json"
    return json.loads(path.read_text()).get("78", {}) if path.exists() else {}


def slow_pass_text(seconds: int = 3) -> str:
    return (KERNELS / "tiled_ok.cu").read_text() + f"\n// fake-judge: sleep {seconds}\n"


def start_run(server, text: str, answers: list) -> threading.Thread:
    t = threading.Thread(target=lambda: answers.append(post(server, "/api/run", {"problem": 78, "text": text,
                                                                                  "force": True})))
    t.start()
    return t


def wait_busy(server) -> None:
    """Until the first run holds the problem (a save is then refused as busy)."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        status, _ = post(server, "/api/save", {"problem": 78, "text": server.mine().read_text(), "force": True})
        if status == 409:
            return
        time.sleep(0.05)
    raise AssertionError("the first run never started")


def test_a_second_tabs_run_is_refused_without_touching_the_file_and_the_pass_is_the_first_tabs(server):
    right = slow_pass_text()
    answers: list = []
    t = start_run(server, right, answers)
    wait_busy(server)
    wrong = (KERNELS / "tiled_no_barrier.cu").read_text()
    status, body = post(server, "/api/run", {"problem": 78, "text": wrong, "force": True})
    assert status == 409 and "being judged" in body["error"]
    assert server.mine().read_text() == right  # the refused Run changed nothing
    status, _ = post(server, "/api/save", {"problem": 78, "text": wrong, "force": True})
    assert status == 409 and server.mine().read_text() == right
    t.join(60)
    (status, body), = answers
    assert status == 200 and body["result"]["status"] == "pass" and not body["stale"]
    assert progress(server).get("status") == "passed"


def test_a_file_changed_on_disk_during_the_run_gets_no_pass(server):
    answers: list = []
    t = start_run(server, slow_pass_text(), answers)
    wait_busy(server)
    server.mine().write_text((KERNELS / "tiled_no_barrier.cu").read_text())  # the learner's other editor
    t.join(60)
    (status, body), = answers
    assert status == 200 and body["stale"]
    assert progress(server).get("status") != "passed"


def test_deeply_nested_json_and_lone_surrogates_are_a_clear_400(server):
    deep = b"[" * 100_000 + b"]" * 100_000
    status, body = post(server, "/api/save", deep)
    assert status == 400 and "nested" in body["error"]
    status, body = post(server, "/api/save", b'{"problem": 78, "text": "\\ud800 int x;"}')
    assert status == 400 and "Unicode" in body["error"]
    status, body = post(server, "/api/run", b'{"problem": 78, "text": "\\udfff"}')
    assert status == 400
    status, body = post(server, "/api/save", b"\xff\xfe{}")
    assert status == 400
    assert server.mine().read_text() == (Path(__file__).resolve().parents[2] / "mine" / "c3_transpose.cu").read_text()

"""`python practice/judge.py serve`: the browser app, on 127.0.0.1 only (guard.py says who may use it).

Pages are rendered here; the editor, the result panel and the figures are plain scripts in static/.
Environment (for tests and unusual set-ups):
  DRILLS_WORKSPACE      where the learner's files and progress live (default: the repository)
  DRILLS_JUDGE_CMD      the judge command as a JSON list (default: this Python + practice/judge.py)
  DRILLS_JUDGE_TIMEOUT  seconds one judge run may take (default 300)
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import signal
import sys
import threading
import webbrowser
from pathlib import Path

from flask import Flask, abort, jsonify, render_template, request, send_from_directory
from werkzeug.exceptions import HTTPException
from werkzeug.serving import make_server

from .. import ROOT, manifest
from ..learner import progress
from . import chapter, guard, i18n, learner_file
from .judge_runner import Busy, JudgeRunner

MAX_BODY = 1 << 20
# Installed browser libraries (Debian's libjs-* packages): served from where they are, never from a CDN.
VENDOR_DIRS = {"codemirror": Path("/usr/share/javascript/codemirror"),
               "katex": Path("/usr/share/javascript/katex")}


def workspace() -> Path:
    return Path(os.environ.get("DRILLS_WORKSPACE") or ROOT)


def create_app(token: str, port: int = 0, lang: str = "zh") -> Flask:
    app = Flask(__name__)
    app.config.update(DRILLS_TOKEN=token, DRILLS_PORT=port, DRILLS_LANG=lang, MAX_CONTENT_LENGTH=MAX_BODY,
                      JSON_AS_ASCII=False)
    app.json.ensure_ascii = False
    guard.install(app)
    runner = JudgeRunner()
    app.extensions["drills_runner"] = runner
    problems = manifest.load()
    vendors = {name: d for name, d in VENDOR_DIRS.items() if d.is_dir()}

    def progress_file() -> Path:
        return workspace() / "practice" / ".progress.json"

    def mine(p: manifest.Problem) -> Path:
        return workspace() / p.mine

    def problem_or_404(number: int) -> manifest.Problem:
        if number not in problems:
            abort(404, f"no problem {number}")
        return problems[number]

    def page_lang() -> str:
        # The toggle's choice first, then the browser's language, then the CLI's.
        chosen = request.cookies.get("drills_lang")
        if chosen in i18n.LANGS:
            return chosen
        return request.accept_languages.best_match(i18n.LANGS) or app.config["DRILLS_LANG"]

    def boot(lang: str, **extra) -> dict:
        return {"lang": lang, "strings": i18n.both(), "token": token, **extra}

    @app.context_processor
    def assets():
        return {"vendor": vendors}

    @app.get("/")
    def index():
        lang = page_lang()
        state = progress.load(progress_file())
        rows = [{"p": p, "status": (state.get(str(p.number)) or {}).get("status")}
                for p in sorted(problems.values(), key=lambda p: p.number)]
        return render_template("list.html", lang=lang, t=i18n.table(lang), rows=rows, boot=boot(lang))

    @app.get("/p/<int:number>")
    def problem_page(number: int):
        p = problem_or_404(number)
        lang = page_lang()
        body, _ = chapter.render_chapter(p.content, lang)
        entry = progress.load(progress_file()).get(str(number)) or {}
        text = learner_file.read(mine(p))
        data = {"number": number, "mine": p.mine, "text": text, "base": learner_file.digest(text),
                "titles": p.title.model_dump(), "hints": [{"zh": h.zh, "en": h.en} for h in p.hints],
                "hints_shown": int(entry.get("hints", 0) or 0), "status": entry.get("status"),
                "result": progress.load_last_result(number, progress_file())}
        return render_template("problem.html", lang=lang, t=i18n.table(lang), p=p, chapter_html=body,
                               boot=boot(lang, problem=data))

    @app.get("/api/chapter/<int:number>")
    def chapter_html(number: int):
        # The language toggle swaps the chapter in place (content/cN.md or content/en/cN.md).
        p = problem_or_404(number)
        lang = request.args.get("lang") if request.args.get("lang") in i18n.LANGS else page_lang()
        body, figures = chapter.render_chapter(p.content, lang)
        return jsonify(lang=lang, html=body, figures=figures)

    @app.get("/api/file/<int:number>")
    def get_file(number: int):
        p = problem_or_404(number)
        text = learner_file.read(mine(p))
        return jsonify(path=p.mine, text=text, base=learner_file.digest(text))

    def changed_on_disk(p: manifest.Problem, text: str, body: dict):
        """A 409 answer when the file on disk is no longer the version the page loaded (and the page
        is not forcing its text over it); None when saving is safe. Called under file_lock."""
        if body.get("force") or not isinstance(body.get("base"), str):
            return None
        disk = learner_file.read(mine(p))
        if learner_file.digest(disk) == body["base"] or disk == text:
            return None
        return jsonify(error="the file changed on disk since this page loaded it", code=409, conflict=True,
                       disk=disk, disk_base=learner_file.digest(disk)), 409

    # One lock for every check-then-write of the learner's files: the busy check, the conflict
    # check and the save happen as one step, so two tabs cannot interleave them.
    file_lock = threading.Lock()

    @app.post("/api/save")
    def save():
        p, text, body = _problem_and_text(problems)
        with file_lock:
            if runner.busy(p.number):
                abort(409, "this problem is being judged; save again when the run has finished")
            conflict = changed_on_disk(p, text, body)
            if conflict:
                return conflict
            changed = learner_file.save(mine(p), text)
        return jsonify(path=p.mine, saved=changed, base=learner_file.digest(text))

    @app.post("/api/run")
    def run():
        p, text, body = _problem_and_text(problems, text_required=False)
        with file_lock:
            try:
                runner.reserve(p.number)
            except Busy:
                abort(409, "this problem is already being judged")
            try:
                if text is not None:
                    conflict = changed_on_disk(p, text, body)
                    if conflict:
                        runner.release(p.number)
                        return conflict
                    learner_file.save(mine(p), text)
                judged = learner_file.read(mine(p))
            except BaseException:
                runner.release(p.number)
                raise
        result = runner.run_reserved(p.number, mine(p), p.mine)
        with file_lock:  # a pass counts only for the text that was judged and is still on disk
            still = learner_file.read(mine(p)) == judged
            status = result.get("status", "error")
            if still:
                entry = progress.record(p.number, status, progress_file())
                progress.save_last_result(p.number, result, progress_file())
            else:
                entry = (progress.load(progress_file()).get(str(p.number)) or {})
        base = learner_file.digest(judged)
        return jsonify(result=result, progress=entry, base=base, stale=not still)

    @app.get("/api/result/<int:number>")
    def last_result(number: int):
        problem_or_404(number)
        return jsonify(result=progress.load_last_result(number, progress_file()))

    @app.post("/api/hint")
    def hint():
        p, _, _ = _problem_and_text(problems, text_required=False)
        shown = progress.next_hint(p.number, len(p.hints), progress_file()) + 1
        return jsonify(hints_shown=shown)

    @app.get("/api/solution/<int:number>")
    def solution(number: int):
        p = problem_or_404(number)
        if (progress.load(progress_file()).get(str(number)) or {}).get("status") != "passed":
            abort(403, "the reference solution opens after your file passes")
        return jsonify(text=p.path("solution").read_text(encoding="utf-8"))

    @app.get("/vendor/<name>/<path:path>")
    def vendor(name: str, path: str):
        if name not in vendors:
            abort(404)
        return send_from_directory(vendors[name], path)

    @app.errorhandler(HTTPException)
    def http_error(e: HTTPException):
        if request.path.startswith("/api/"):
            return jsonify(error=e.description, code=e.code), e.code
        return f"{e.code} {e.name}: {e.description}\n", e.code, {"Content-Type": "text/plain; charset=utf-8"}

    return app


def _body() -> dict:
    """The request's JSON object; 400 with a clear message for anything else (Flask's own parser
    lets a RecursionError from deep nesting through as a 500)."""
    raw = request.get_data(cache=True)
    try:
        body = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        abort(400, "the request body is not UTF-8")
    except RecursionError:
        abort(400, "the JSON is nested too deeply")
    except ValueError:
        abort(400, "expected a JSON object")
    if not isinstance(body, dict):
        abort(400, "expected a JSON object")
    return body


def _problem_and_text(problems: dict, text_required: bool = True):
    body = _body()
    try:
        p = problems[int(body.get("problem"))]
    except (TypeError, ValueError, KeyError, OverflowError):
        abort(404, "no such problem")
    text = body.get("text")
    if text is None and not text_required:
        return p, None, body
    if not isinstance(text, str):
        abort(400, "expected the file's text as a string")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # "\ud800" in JSON: a lone surrogate no file can hold
        abort(400, "the file's text is not valid Unicode (a lone surrogate)")
    return p, text, body


def serve(port: int | None, open_browser: bool, lang: str = "zh") -> int:
    """Serve until Ctrl-C. Prints `drills: http://127.0.0.1:PORT/?token=TOKEN` (tests read that line)."""
    token = secrets.token_urlsafe(24)
    try:
        app = create_app(token, 0, lang)
    except manifest.ManifestError as e:
        print(f"drills: {e}", file=sys.stderr)
        return 2
    try:
        server = make_server("127.0.0.1", port or 0, app, threaded=True)
    except (OSError, SystemExit) as e:  # werkzeug exits rather than raise when the port is taken
        why = e if isinstance(e, OSError) else "the port is in use"
        print(f"drills: cannot listen on 127.0.0.1:{port}: {why}", file=sys.stderr)
        return 2
    app.config["DRILLS_PORT"] = server.port
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no line per request on the learner's terminal
    url = f"http://127.0.0.1:{server.port}/?token={token}"
    print(f"drills: {url}", flush=True)
    print("drills: Ctrl-C stops the server", file=sys.stderr, flush=True)
    if open_browser:
        threading.Timer(0.5, webbrowser.open, [url]).start()
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _interrupt)  # `kill` stops it as cleanly as Ctrl-C
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        app.extensions["drills_runner"].stop_all()
    return 0


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def main(argv: list[str]) -> int:
    import argparse
    ap = argparse.ArgumentParser(prog="python -m drills.web", description="the browser app (same as judge.py serve)")
    ap.add_argument("--port", type=int)
    ap.add_argument("--no-browser", action="store_true")
    ap.add_argument("--lang", choices=i18n.LANGS, default="zh")
    args = ap.parse_args(argv)
    return serve(args.port, not args.no_browser, args.lang)

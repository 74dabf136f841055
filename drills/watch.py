"""`judge.py watch N`: judge the learner's file again every time it is saved (rustlings' watch).

Polls the file's modification time and size (no new dependency) and waits until the file has been
quiet for a short debounce, so an editor that writes in several steps triggers one run."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from . import catalog, report
from .toolchain import pick_backend

POLL_SECONDS = 0.25
DEBOUNCE_SECONDS = 0.4


def add_arguments(p) -> None:
    p.add_argument("number", help="problem number (e.g. 78) or slug")
    p.add_argument("--file", help="watch this file instead of mine/")
    p.add_argument("--backend", choices=("auto", "gpu", "sim"), default="auto")
    p.add_argument("--no-perf", action="store_true", help="skip GPU timing")
    p.add_argument("--verbose", "-v", action="store_true")
    p.add_argument("--debounce", type=float, default=DEBOUNCE_SECONDS, help="seconds of quiet before judging")
    p.add_argument("--runs", type=int, default=0, help=argparse.SUPPRESS)  # stop after N judgements (tests)


def stamp(path: Path):
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size)


def wait_for_change(path: Path, last, debounce: float, poll: float = POLL_SECONDS):
    """Block until `path` changes from `last` and then stays unchanged for `debounce` seconds."""
    while True:
        now = stamp(path)
        if now != last and now is not None:
            settled_at, settled = time.monotonic(), now
            while time.monotonic() - settled_at < debounce:
                time.sleep(poll)
                again = stamp(path)
                if again != settled:
                    settled_at, settled = time.monotonic(), again
            return settled
        time.sleep(poll)


def main(args) -> int:
    from . import progress
    from .judge import judge
    lang = args.lang or report.default_lang()
    problem = catalog.find(catalog.load(), args.number)
    file = Path(args.file) if args.file else problem.path("mine")
    backend = pick_backend(args.backend)
    is_mine = file.resolve() == problem.path("mine").resolve()
    runs = 0
    last = stamp(file)
    try:
        while True:
            if sys.stdout.isatty():
                os.system("clear" if os.name != "nt" else "cls")
            result = judge(problem, file, backend, perf=not args.no_perf)
            if is_mine:
                progress.record(problem.number, result.status)
            report.render(result.to_dict(), lang, verbose=args.verbose)
            runs += 1
            if args.runs and runs >= args.runs:
                return result.exit_code
            print()
            if result.status == "pass":
                print(f"通过！看参考解答：python practice/judge.py solution {problem.number}。Ctrl-C 退出。" if lang == "zh" else
                      f"Passed! See the reference: python practice/judge.py solution {problem.number}. Ctrl-C to stop.")
            else:
                print(f"保存 {file} 后自动重新判题；Ctrl-C 退出。" if lang == "zh" else
                      f"Judging again whenever {file} is saved; Ctrl-C to stop.")
            sys.stdout.flush()
            last = wait_for_change(file, last, args.debounce)
    except KeyboardInterrupt:
        print()
        return 0

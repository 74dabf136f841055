"""`judge.py watch N`: judge the learner's file again every time it is saved (rustlings' watch).

The file's folder is watched with watchfiles (inotify, or the platform's equivalent), and a change
counts once the file has been quiet for a short debounce, so an editor that writes in several
steps (or saves through a temporary file and a rename) triggers one run."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


from .. import manifest, messages
from ..pipeline import render
from ..pipeline.toolchain import pick_backend

DEBOUNCE_SECONDS = 0.4


def add_arguments(p) -> None:
    p.add_argument("number", help="problem number or slug (`judge.py list` shows them)")
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


def wait_for_change(path: Path, last, debounce: float, stop=None):
    """Block until `path` differs from `last` (a stamp()) and then stays unchanged for `debounce`
    seconds; returns the new stamp. `stop` (a threading.Event) ends the wait early with None."""
    path = Path(path).resolve()
    mine = lambda change, changed: Path(changed).resolve() == path  # noqa: E731
    quiet_ms = max(1, int(debounce * 1000))
    # step: the quiet time that ends a burst of writes; debounce: the longest a burst may last.
    import watchfiles  # here, not at import: `judge.py N` must start where watchfiles is missing
    for _ in watchfiles.watch(path.parent, watch_filter=mine, step=quiet_ms, debounce=max(10_000, 4 * quiet_ms),
                              rust_timeout=0, yield_on_timeout=False, stop_event=stop):
        now = stamp(path)
        if now is not None and now != last:
            return now
    return None


def main(args) -> int:
    from . import progress
    from ..pipeline.judge import judge
    lang = args.lang or render.default_lang()
    problem = manifest.find(manifest.load(), args.number)
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
            render.render(result.to_dict(), lang, verbose=args.verbose)
            runs += 1
            if args.runs and runs >= args.runs:
                return result.exit_code
            print()
            if result.status == "pass":
                print(messages.t("cli.watch-passed", lang, number=problem.number))
            else:
                print(messages.t("cli.watch-waiting", lang, file=file))
            sys.stdout.flush()
            last = wait_for_change(file, last, args.debounce)
    except KeyboardInterrupt:
        print()
        return 0

"""`python practice/judge.py <subcommand|number>`: argument parsing only; the work is elsewhere."""

from __future__ import annotations

import argparse
import importlib
import shutil
import sys
from pathlib import Path

from . import ROOT, cache_bytecode, manifest, messages
from .pipeline import render
from .manifest import ManifestError
from .result import error
from .pipeline.toolchain import ToolchainError, pick_backend

SUBCOMMANDS = ("list", "start", "test", "watch", "hint", "solution", "reset", "check", "doctor", "bench",
               "serve", "grade", "sim-run")


class UsageError(Exception):
    """Bad input from the command line: printed as one line, exit 2."""


def _problem(key):
    return manifest.find(manifest.load(), key)


def _lang(args) -> str:
    return args.lang or render.default_lang()


def _say(args, key: str, **facts) -> None:
    print(messages.t(key, _lang(args), **facts))


def cmd_test(args) -> int:
    from .pipeline.judge import judge
    problem = _problem(args.number)
    if args.file and args.solution:
        raise UsageError("--file and --solution exclude each other")
    file = Path(args.file) if args.file else problem.path("solution" if args.solution else "mine")
    if args.file and not file.exists():
        raise UsageError(f"{args.file}: no such file")
    backend = pick_backend(args.backend)
    if not args.json:
        print(f"drills: judging #{problem.number} {file} on the {backend} backend"
              f"{' (picked automatically)' if args.backend == 'auto' else ''} ...", file=sys.stderr)
    if args.timeout is not None and args.timeout <= 0:
        raise UsageError("--timeout must be a positive number of seconds")
    result = _with_spinner(args, lambda: judge(problem, file, backend, perf=not args.no_perf, timeout=args.timeout))
    _record_progress(problem.number, result.status, file == problem.path("mine"))
    if args.json:
        print(result.to_json())
    else:
        render.render(result.to_dict(), _lang(args), verbose=args.verbose)
    return result.exit_code


def _with_spinner(args, work):
    """A spinner on a terminal while the build and the tests run (a cold build takes minutes)."""
    if args.json or not sys.stderr.isatty():
        return work()
    from rich.console import Console
    words = messages.t("cli.building", _lang(args))
    with Console(stderr=True).status(words):
        return work()


def _record_progress(number: int, status: str, is_mine: bool) -> None:
    if not is_mine:
        return
    try:
        from .learner import progress
    except ImportError:
        return
    progress.record(number, status)


def cmd_list(args) -> int:
    from rich.console import Console
    from rich.table import Table
    lang = _lang(args)
    try:
        from .learner import progress
        state = progress.load()
    except ImportError:
        state = {}
    t = Table()
    for col in ("number", "chapter", "title", "difficulty", "progress"):
        t.add_column(messages.t(f"cli.col-{col}", lang))
    for p in sorted(manifest.load().values(), key=lambda p: p.number):
        st = (state.get(str(p.number)) or {}).get("status")
        word = messages.t(f"cli.status-{st if st in ('passed', 'tried') else 'untouched'}", lang)
        t.add_row(str(p.number), p.chapter, p.title_in(lang), p.difficulty, word)
    Console().print(t)
    return 0


def cmd_start(args) -> int:
    problem = _problem(args.number)
    mine = problem.path("mine")
    if mine.exists():
        _say(args, "cli.mine-exists", file=mine.relative_to(ROOT))
    else:
        raise UsageError(f"{mine.relative_to(ROOT)} is missing from this checkout; restore it with git "
                         f"(git checkout -- {mine.relative_to(ROOT)})")
    lang = _lang(args)
    print(f"#{problem.number} {problem.title_in(lang)} ({problem.chapter}, {problem.difficulty})")
    _say(args, "cli.start", content=problem.content, mine=problem.mine, number=problem.number)
    return 0


def cmd_hint(args) -> int:
    problem = _problem(args.number)
    try:
        from .learner import progress
        shown = progress.next_hint(problem.number, len(problem.hints))
    except (ImportError, AttributeError):
        shown = len(problem.hints) - 1 if args.all else 0
    hints = problem.hints if args.all else problem.hints[: shown + 1]
    lang = _lang(args)
    for i, h in enumerate(hints, 1):
        print(f"[{i}/{len(problem.hints)}] {getattr(h, lang)}")
    return 0


def cmd_solution(args) -> int:
    problem = _problem(args.number)
    passed = False
    try:
        from .learner import progress
        passed = (progress.load().get(str(problem.number)) or {}).get("status") == "passed"
    except ImportError:
        pass
    if not (passed or args.force):
        raise UsageError(f"the solution of #{problem.number} opens after your file passes "
                         f"(python practice/judge.py {problem.number}), or with --force")
    print(problem.path("solution").read_text(encoding="utf-8"))
    return 0


def cmd_doctor(args) -> int:
    from .pipeline.toolchain import gpu_name, simulator_available
    rows = [("nvcc", shutil.which("nvcc")), ("cmake", shutil.which("cmake")), ("GPU", gpu_name()),
            ("simulator sources", "sim/" if simulator_available() else None)]
    for name, value in rows:
        print(f"{'✓' if value else '✗'} {name}: {value or 'not found'}")
    backend = pick_backend("auto")
    _say(args, "cli.doctor-backend", backend=backend)
    return 0 if shutil.which("nvcc") and shutil.which("cmake") else 2


def cmd_check(args) -> int:
    from .authoring.verify import run_check
    return run_check(pick_backend(args.backend), _lang(args), as_json=args.json)


def cmd_bench(args) -> int:
    from .learner.bench import run_bench
    return run_bench(_lang(args), as_json=args.json)


def cmd_serve(args) -> int:
    from .web.server import serve
    return serve(args.port, not args.no_browser, _lang(args))


def build_parser(chosen: str | None = None) -> argparse.ArgumentParser:
    """chosen: the subcommand on the command line, when known; the plugged-in subcommands' modules
    (grading, watch, ...) are imported only for it, not for every `judge.py N`."""
    ap = argparse.ArgumentParser(prog="python practice/judge.py",
                                 description="drills: CUDA operator drills. `judge.py N` judges problem N; `judge.py list` lists them.")
    ap.add_argument("--lang", choices=("zh", "en"), help="language of messages (default: from the locale)")
    sub = ap.add_subparsers(dest="cmd", required=True)

    def number(p):
        p.add_argument("number", help="problem number or slug (`judge.py list` shows them)")

    p = sub.add_parser("test", help="build and judge a file (default: your mine/ file)")
    number(p)
    p.add_argument("--file", help="judge this file instead of mine/")
    p.add_argument("--solution", action="store_true", help="judge the reference solution")
    p.add_argument("--backend", choices=("auto", "gpu", "sim"), default="auto")
    p.add_argument("--json", action="store_true", help="print only the result object (JSON) on stdout")
    p.add_argument("--no-perf", action="store_true", help="skip GPU timing")
    p.add_argument("--timeout", type=float, metavar="SECONDS",
                   help="stop the tests after this long (default: ten times what the reference needs here, at least 10 s)")
    p.add_argument("--verbose", "-v", action="store_true", help="every failing case, every diagnosis, where the time went")
    p.set_defaults(fn=cmd_test)

    p = sub.add_parser("list", help="problems and your progress")
    p.set_defaults(fn=cmd_list)
    p = sub.add_parser("start", help="show a problem and where to work on it")
    number(p)
    p.set_defaults(fn=cmd_start)
    p = sub.add_parser("hint", help="the next hint (one more each time)")
    number(p)
    p.add_argument("--all", action="store_true")
    p.set_defaults(fn=cmd_hint)
    p = sub.add_parser("solution", help="the reference solution, after a pass")
    number(p)
    p.add_argument("--force", action="store_true")
    p.set_defaults(fn=cmd_solution)
    p = sub.add_parser("check", help="authors: every skeleton fails, every reference passes, manifest = disk")
    p.add_argument("--backend", choices=("auto", "gpu", "sim"), default="auto")
    p.add_argument("--json", action="store_true")
    p.set_defaults(fn=cmd_check)
    p = sub.add_parser("doctor", help="what this machine can run")
    p.set_defaults(fn=cmd_doctor)
    p = sub.add_parser("bench", help="this GPU's copy bandwidth (the denominator for performance)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(fn=cmd_bench)
    p = sub.add_parser("serve", help="the browser app on 127.0.0.1")
    p.add_argument("--port", type=int)
    p.add_argument("--no-browser", action="store_true")
    p.set_defaults(fn=cmd_serve)
    # Subcommands whose arguments live with their code: module.add_arguments(p) and module.main(args).
    plugged = {"sim-run": ("drills.learner.simrun", "run any single-file CUDA program on the simulator"),
               "grade": ("drills.grading.command", "instructors: judge a folder of submissions into a gradebook"),
               "watch": ("drills.learner.watch", "re-judge on every save"),
               "reset": ("drills.learner.reset", "restore the skeleton (asks first, keeps a backup)")}
    for name, (module_name, help_text) in plugged.items():
        p = sub.add_parser(name, help=help_text)
        if chosen is not None and name != chosen:
            continue  # not this run's subcommand: its help line is all argparse needs
        module = importlib.import_module(module_name)
        module.add_arguments(p)
        p.set_defaults(fn=module.main)
    return ap


def _hoist_lang(argv: list[str]) -> tuple[list[str], list[str]]:
    """`--lang xx` is accepted anywhere before `--`: (argv without it, the option to put in front)."""
    end = argv.index("--") if "--" in argv else len(argv)
    head, tail, lang = argv[:end], argv[end:], []
    i = 0
    while i < len(head):
        if head[i] == "--lang" and i + 1 < len(head):
            lang, head = ["--lang", head[i + 1]], head[:i] + head[i + 2:]
        elif head[i].startswith("--lang="):
            lang, head = [head[i]], head[:i] + head[i + 1:]
        else:
            i += 1
    return head + tail, lang


def main(argv: list[str] | None = None) -> int:
    cache_bytecode()  # for the processes the subcommand starts (practice/judge.py did it for this one)
    argv, lang = _hoist_lang(list(sys.argv[1:] if argv is None else argv))
    # `judge.py N [options]` is `judge.py test N [options]`.
    first = next((i for i, a in enumerate(argv) if not a.startswith("-")), None)
    if first is not None and argv[first] not in SUBCOMMANDS:
        if argv[first].lstrip("#").isdigit() or not argv[first].isidentifier() or "_" in argv[first]:
            argv.insert(first, "test")
    passthrough: list[str] = []
    if "--" in argv:  # everything after -- belongs to the program sim-run runs
        cut = argv.index("--")
        argv, passthrough = argv[:cut], argv[cut + 1:]
    chosen = next((a for a in argv if not a.startswith("-")), None)
    ap = build_parser(chosen if chosen in SUBCOMMANDS else None)
    args = ap.parse_args(lang + argv)
    args.passthrough = passthrough
    try:
        manifest.load()  # a malformed manifest stops every subcommand here, in one line
        return args.fn(args)
    except (UsageError, ManifestError, ToolchainError) as e:
        if getattr(args, "json", False):
            print(error(None, {"zh": str(e), "en": str(e)}).to_json())
        print(f"drills: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130

"""drills: the judge behind practice/judge.py and the `drills` command.

manifest.py   the manifest (practice/problems.toml), typed and validated
problems/     what cannot be declared in the manifest: one module per problem
pipeline/     judging one file: build, execute, evidence (checks, counters), diagnose, verdict, render
learner/      the learner's commands besides judging (progress, watch, reset, bench, sim-run)
authoring/    tools for authors (`judge.py check`)
grading/      `judge.py grade`: the instructor's batch
web/          `judge.py serve`: the browser app
cli.py        argument parsing: `judge.py <subcommand|number>`
"""

import os
from pathlib import Path

RESULT_VERSION = 1
MANIFEST_NAME = Path("practice") / "problems.toml"


def _find_root() -> Path:
    """The checkout drills works on: DRILLS_ROOT, else the folder above this package when it holds the
    manifest (running from a checkout), else the nearest folder at or above the working directory
    that holds it (an installed `drills` run inside a checkout)."""
    if os.environ.get("DRILLS_ROOT"):
        return Path(os.environ["DRILLS_ROOT"]).resolve()
    here = Path(__file__).resolve().parent.parent
    if (here / MANIFEST_NAME).is_file():
        return here
    cwd = Path.cwd().resolve()
    for folder in (cwd, *cwd.parents):
        if (folder / MANIFEST_NAME).is_file():
            return folder
    return here  # no checkout: loading the manifest says so in one line


ROOT = _find_root()


def bytecode_env(env: dict) -> dict:
    """`env` for a Python process whose compiled modules go to build/pycache (cache_bytecode)."""
    env = dict(env)
    env["PYTHONPYCACHEPREFIX"] = env.get("PYTHONPYCACHEPREFIX") or str(ROOT / "build" / "pycache")
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def cache_bytecode() -> None:
    """Keep compiled modules in build/pycache, for this process and the Python processes it starts
    (pytest, the technique probe). A machine that sets PYTHONDONTWRITEBYTECODE, to keep compiled
    files out of source folders, would otherwise compile the judge's modules, the tests and the
    manifest's models again in every one of those processes on every run; build/ is the
    checkout's own output folder, so the source folders stay clean either way. A
    PYTHONPYCACHEPREFIX the user chose is kept."""
    import sys
    os.environ.update(bytecode_env(os.environ))
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.pycache_prefix = os.environ["PYTHONPYCACHEPREFIX"]
    sys.dont_write_bytecode = False

"""`pip install .` gives a working `drills` command: every file the package reads besides its Python
modules is declared as package data (a file left out works in a checkout and breaks once installed),
and the console script is the CLI's main."""

from __future__ import annotations

import tomllib
from fnmatch import fnmatch

from drills import ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_every_data_file_of_the_package_is_declared():
    globs = PYPROJECT["tool"]["setuptools"]["package-data"]["drills"]
    package = ROOT / "drills"
    data = [p.relative_to(package).as_posix() for p in package.rglob("*")
            if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts]
    assert data, "the package reads data files: the catalogue, the schema, the web app's"
    missing = [f for f in data if not any(fnmatch(f, g) for g in globs)]
    assert missing == [], f"not installed by `pip install .`: {missing}"


def test_the_command_is_the_cli():
    assert PYPROJECT["project"]["scripts"] == {"drills": "drills.cli:main"}
    deps = (ROOT / "requirements.txt").read_text(encoding="utf-8")
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["dependencies"] == {"file": ["requirements.txt"]}
    for needed in ("pydantic", "watchfiles", "psutil", "rich", "flask"):
        assert needed in deps

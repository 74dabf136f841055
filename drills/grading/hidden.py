"""HIDDEN.toml: the instructor's extra cases, one table per problem, kept outside the repository.

    [<number>]                                    # the problem's number
    shapes = [[130, 67], [1, 4099], [2049, 33]]   # rows x cols of x, judged besides the public ones
    seed = 7                                      # seeds every generated input (DRILLS_SEED)

Every mistake is reported as one line naming the file, the table and the key.
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from dataclasses import dataclass
from pathlib import Path

from .. import ROOT
from ..manifest import Problem
from . import GradeError

KEYS = ("shapes", "seed")
MAX_ELEMENTS = 1 << 28  # 1 GiB of floats per matrix: beyond that no backend here finishes in time


@dataclass(frozen=True)
class Hidden:
    shapes: tuple = ()        # ((M, N), ...)
    seed: int | None = None

    def fingerprint(self) -> str:
        text = json.dumps({"shapes": self.shapes, "seed": self.seed})
        return hashlib.sha256(text.encode()).hexdigest()[:16]


def _shape(value, where: str) -> tuple[int, int]:
    if isinstance(value, str):
        parts = value.lower().split("x")
        if len(parts) == 2 and all(p.strip().isdigit() for p in parts):
            value = [int(p) for p in parts]
    if (not isinstance(value, list) or len(value) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
        raise GradeError(f"{where}: {value!r} is not a shape; write [ROWS, COLS], e.g. [130, 67]")
    m, n = value
    if m <= 0 or n <= 0:
        raise GradeError(f"{where}: shape [{m}, {n}] must have positive sides")
    if m * n > MAX_ELEMENTS:
        raise GradeError(f"{where}: shape [{m}, {n}] has more than {MAX_ELEMENTS} elements")
    return m, n


def load(path: Path, problem: Problem, known: dict[int, Problem]) -> tuple[Hidden, list[str]]:
    """The hidden cases for `problem`, and warnings. Raises GradeError on any mistake."""
    if not path.is_file():
        raise GradeError(f"{path}: no such hidden-cases file")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise GradeError(f"{path}: not UTF-8 text") from None
    except tomllib.TOMLDecodeError as e:
        raise GradeError(f"{path}: not valid TOML: {e}") from None
    warnings = []
    try:
        path.resolve().relative_to(ROOT)
        warnings.append(f"{path} is inside the repository: keep hidden cases where students cannot read them")
    except ValueError:
        pass

    tables = {}
    for key, table in data.items():
        where = f"{path.name} [{key}]"
        if not key.isdigit() or int(key) not in known:
            numbers = ", ".join(str(n) for n in sorted(known))
            raise GradeError(f"{where}: no problem {key!r}; tables are named by problem number ({numbers})")
        if not isinstance(table, dict):
            raise GradeError(f"{where}: must be a table, e.g. [{key}] with shapes = [[M, N], ...] and seed = 7")
        unknown = sorted(set(table) - set(KEYS))
        if unknown:
            raise GradeError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(KEYS)})")
        tables[int(key)] = table

    if problem.number not in tables:
        raise GradeError(f"{path}: no [{problem.number}] table for problem {problem.number}")
    table = tables[problem.number]
    where = f"{path.name} [{problem.number}]"

    raw = table.get("shapes", [])
    if not isinstance(raw, list):
        raise GradeError(f"{where}: shapes must be a list of [ROWS, COLS], e.g. shapes = [[130, 67]]")
    shapes = []
    public = set(problem.shapes) | set(problem.gpu_shapes)
    for i, item in enumerate(raw):
        shape = _shape(item, f"{where} shapes[{i}]")
        if shape in shapes:
            raise GradeError(f"{where} shapes[{i}]: [{shape[0]}, {shape[1]}] is listed twice")
        if shape in public:
            raise GradeError(f"{where} shapes[{i}]: [{shape[0]}, {shape[1]}] is a public shape of problem "
                             f"{problem.number}; a hidden case must not be one students already see")
        shapes.append(shape)

    seed = table.get("seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**32):
        raise GradeError(f"{where}: seed must be an integer from 0 to 4294967295, not {seed!r}")
    if not shapes and seed is None:
        raise GradeError(f"{where}: neither shapes nor seed: nothing hidden to judge")
    return Hidden(tuple(shapes), seed), warnings

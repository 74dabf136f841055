"""The manifest (practice/problems.toml): every problem's number, files, entry points and hints.

Everything that needs the list of problems reads it through this module, CMake included
(`python -m drills.catalog cmake` prints the add_drill() calls CMake includes).
"""

from __future__ import annotations

import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from . import ROOT

MANIFEST = ROOT / "practice" / "problems.toml"


class CatalogError(Exception):
    """The manifest is malformed, or a lookup names no problem."""


@dataclass(frozen=True)
class Hint:
    zh: str
    en: str


@dataclass(frozen=True)
class Problem:
    number: int
    slug: str
    chapter: str
    title: dict
    difficulty: str
    content: str
    mine: str
    solution: str
    gtest: str
    capi: str
    pytest: str
    entry_points: tuple
    optional_entry_points: tuple
    tolerance: dict
    shapes: tuple
    gpu_shapes: tuple
    hints: tuple
    perf: dict = field(default_factory=dict)
    checks: tuple = ()
    scoring: dict = field(default_factory=dict)

    def path(self, key: str) -> Path:
        return ROOT / getattr(self, key)

    def title_in(self, lang: str) -> str:
        return self.title.get(lang) or self.title.get("zh") or self.slug

    def files(self) -> dict:
        return {k: self.path(k) for k in ("content", "mine", "solution", "gtest", "capi", "pytest")}


def _shape_list(raw, where):
    """Shapes as tuples: "ROWSxCOLS" for a matrix or vector, "MxNxK" for a GEMM."""
    out = []
    for s in raw:
        try:
            dims = tuple(int(v) for v in s.lower().split("x"))
        except ValueError:
            dims = ()
        if len(dims) not in (2, 3):
            raise CatalogError(f"{where}: shape {s!r} is not ROWSxCOLS or MxNxK") from None
        if min(dims) <= 0:
            raise CatalogError(f"{where}: shape {s!r} must be positive")
        out.append(dims)
    return tuple(out)


REQUIRED = ("number", "slug", "chapter", "title", "difficulty", "content", "mine", "solution",
            "gtest", "capi", "pytest", "entry_points", "shapes", "hints")


def load(path: Path = MANIFEST) -> dict[int, Problem]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise CatalogError(f"cannot read the manifest {path}: {e}") from None
    problems: dict[int, Problem] = {}
    for i, row in enumerate(data.get("problem", [])):
        where = f"{path.name} problem #{i + 1}"
        missing = [k for k in REQUIRED if k not in row]
        if missing:
            raise CatalogError(f"{where}: missing {', '.join(missing)}")
        number = row["number"]
        if number in problems:
            raise CatalogError(f"{where}: number {number} is used twice")
        problems[number] = Problem(
            number=number,
            slug=row["slug"],
            chapter=row["chapter"],
            title=dict(row["title"]),
            difficulty=row["difficulty"],
            content=row["content"],
            mine=row["mine"],
            solution=row["solution"],
            gtest=row["gtest"],
            capi=row["capi"],
            pytest=row["pytest"],
            entry_points=tuple(row["entry_points"]),
            optional_entry_points=tuple(row.get("optional_entry_points", ())),
            tolerance=dict(row.get("tolerance", {})),
            shapes=_shape_list(row["shapes"], where),
            gpu_shapes=_shape_list(row.get("gpu_shapes", []), where),
            hints=tuple(Hint(h["zh"], h["en"]) for h in row["hints"]),
            perf=dict(row.get("perf", {})),
            checks=tuple(row.get("checks", ())),
            scoring=dict(row.get("scoring", {})),
        )
    if not problems:
        raise CatalogError(f"{path}: no [[problem]] rows")
    return problems


def find(problems: dict[int, Problem], key: str | int) -> Problem:
    """A problem by number ("78", "#78", "078") or slug ("c3_transpose")."""
    text = str(key).strip().lstrip("#")
    if text.isdigit() and int(text) in problems:
        return problems[int(text)]
    for p in problems.values():
        if p.slug == text:
            return p
    known = ", ".join(f"{p.number} ({p.slug})" for p in sorted(problems.values(), key=lambda p: p.number))
    raise CatalogError(f"no problem {key!r}; known: {known}")


def _shapes_arg(shapes) -> str:
    return ",".join("x".join(str(d) for d in shape) for shape in shapes)


def cmake_text(problems: dict[int, Problem]) -> str:
    """add_drill() calls for CMake, one per problem, in number order."""
    lines = ["# Generated from practice/problems.toml by `python -m drills.catalog cmake`."]
    for p in sorted(problems.values(), key=lambda p: p.number):
        lines.append(
            f'add_drill({p.number} {p.slug} MINE "{p.mine}" SOLUTION "{p.solution}" '
            f'TEST "{p.gtest}" CAPI "{p.capi}" SHAPES "{_shapes_arg(p.shapes)}" '
            f'GPU_SHAPES "{_shapes_arg(p.gpu_shapes)}")'
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    if argv[:1] == ["cmake"]:
        try:
            sys.stdout.write(cmake_text(load()))
        except CatalogError as e:
            print(f"drills: {e}", file=sys.stderr)
            return 2
        return 0
    print("usage: python -m drills.catalog cmake", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

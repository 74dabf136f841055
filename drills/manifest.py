"""The manifest (practice/problems.toml): the one list of problems, typed and validated.

Every key of an entry is declared below with what it means; a misspelt or unknown key, an unknown
`version`, a missing file, a number or slug used twice, an unknown severity, a check whose probe
calls no entry point: each is one line naming the problem and the key (ManifestError; the CLI
exits 2 at start-up of every subcommand). The schema is pydantic (extra keys forbidden).

Everything that can be declared about a problem is declared here; what cannot (output-pattern
diagnoses) lives in the module of drills/problems/ that the entry's `module` names.
Everything that needs the list of problems reads it through this module, CMake included
(`python -m drills.manifest cmake` prints the add_drill() calls CMake includes).
"""

from __future__ import annotations

import re
import sys
import tomllib
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal, Union

from pydantic import (BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, field_validator,
                      model_validator)

from . import MANIFEST_NAME, ROOT

MANIFEST = ROOT / MANIFEST_NAME
VERSION = 1
SEVERITIES = ("fail", "note")
# The per-line ops a rule may name: drills/pipeline/counters.py OPS (kept in step by a test).
OPS = ("global_ld", "global_st", "shared_ld", "shared_st", "shared_ldsm")
FIGURES_DIR = Path(__file__).resolve().parent / "web" / "static" / "figures"


class ManifestError(Exception):
    """The manifest is malformed, or a lookup names no problem: one line."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


Name = Annotated[str, Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")]          # ids: lower-case words joined by -
Identifier = Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]     # C++ function names


def _shape(value):
    """"ROWSxCOLS" for a matrix or vector, "MxNxK" for a GEMM."""
    if isinstance(value, str):
        m = re.fullmatch(r"\s*(\d+)\s*[xX]\s*(\d+)\s*(?:[xX]\s*(\d+)\s*)?", value)
        if not m:
            raise ValueError(f"shape {value!r} is not ROWSxCOLS or MxNxK")
        value = tuple(int(g) for g in m.groups() if g is not None)
    return value


_Dim = Annotated[int, Field(gt=0)]
Shape = Annotated[tuple[_Dim, _Dim] | tuple[_Dim, _Dim, _Dim], BeforeValidator(_shape)]


class Text(_Strict):
    """A message in both languages a learner reads."""
    zh: Annotated[str, Field(min_length=1)]
    en: Annotated[str, Field(min_length=1)]

    def get(self, lang: str, default=None) -> str:
        return getattr(self, lang, default) or default


class Tolerance(_Strict):
    """How close a float output must be: |got - want| <= atol + rtol * |want| (0, 0: bit for bit).
    The GoogleTest harness gets them as DRILLS_RTOL / DRILLS_ATOL, pytest reads them here."""
    rtol: Annotated[float, Field(ge=0)] = 0.0
    atol: Annotated[float, Field(ge=0)] = 0.0
    # Float sums only: |got - exact| <= (sum_factor * sqrt(n) * sum|x| + |sum|) * 2^-24 (DRILLS_SUM_FACTOR).
    sum_factor: Annotated[float, Field(gt=0)] | None = None
    # Dot products of length K (a GEMM): |got - exact| <= dot_factor * K * 2^-24 * sum_k |a_k b_k|
    # (DRILLS_DOT_FACTOR).
    dot_factor: Annotated[float, Field(gt=0)] | None = None


class Perf(_Strict):
    """GPU timing: each variant against the reference's `bound` kernel and cudaMemcpy, same run."""
    shapes: list[str]
    variants: list[Identifier]
    bound: Identifier
    torch: str = ""          # PyTorch's version of the operation, an expression in x and y
    # The bound is timed by the C ABI library itself (a vendor library it opens at run time, such as
    # cuBLAS), not an entry point of the reference.
    bound_in_library: bool = False
    # What drills_time_variant reports per call: bytes moved (a bandwidth, with cudaMemcpy as a second
    # ceiling) or floating-point operations (a rate; no cudaMemcpy ceiling).
    unit: Literal["bytes", "flops"] = "bytes"


TIERS = {"bronze": 50.0, "silver": 80.0, "gold": 90.0}
TIER_POINTS = {"bronze": 0.5, "silver": 0.8, "gold": 1.0}
Tier = Literal["bronze", "silver", "gold"]


class Scoring(_Strict):
    """`judge.py grade`'s points (drills/grading/scoring.py)."""
    cases: Annotated[float, Field(ge=0)] = 100
    checks: Annotated[float, Field(ge=0)] = 0
    perf: Annotated[float, Field(ge=0)] = 0
    perf_variant: str = ""
    # Timed instead when the judged file does not define perf_variant (an optional entry point: the
    # learner's best), so a file with only the contract still earns the tier its contract reaches.
    perf_fallback: str = ""
    perf_shapes: list[str] = []
    case_variants: list[str] = []   # glob patterns naming the GoogleTest variants that are cases
    tiers: dict[Tier, float] = TIERS
    tier_points: dict[Tier, float] = TIER_POINTS


class Probe(_Strict):
    """How a check runs an entry point alone on the simulator (drills/pipeline/probe.py)."""
    entry: Identifier
    dims: dict[str, Annotated[int, Field(gt=0)]]
    args: list[str]


class TotalRule(_Strict):
    """A metric summed over the probe's launches, within bounds."""
    total: str
    at_least: int | None = None
    at_most: int | None = None

    @model_validator(mode="after")
    def _bounded(self):
        if self.at_least is None and self.at_most is None:
            raise ValueError("a total rule needs at_least or at_most")
        return self


class PerLineRule(_Strict):
    """Every source line issuing one of these ops costs at most `at_most` sectors/wavefronts per
    request: "ideal" (the fewest its bytes allow), a number, or `ideal_times` times the ideal."""
    per_line: Annotated[list[Literal[OPS]], Field(min_length=1)]
    at_most: Literal["ideal"] | float = "ideal"
    ideal_times: Annotated[float, Field(ge=1)] = 1.0
    tolerance: Annotated[float, Field(ge=0)] = 0.01


class Check(_Strict):
    """A technique check (drills/pipeline/checks.py). severity `fail`: the chapter's lesson, a failed
    check fails the verdict; `note`: worth knowing, shown on the line, the verdict unchanged."""
    id: Name
    title: Text
    severity: Literal[SEVERITIES]
    probe: Probe
    rule: Union[TotalRule, PerLineRule]
    diagnosis: Name | None = None   # the diagnosis a failure raises

    @field_validator("rule", mode="before")
    @classmethod
    def _rule_kind(cls, v):
        if isinstance(v, dict) and not ({"total", "per_line"} & set(v)):
            raise ValueError("a rule needs `total` or `per_line`")
        return v


class Diagnosis(_Strict):
    """What the problem's diagnoses need: the evidence keys its tests record and the wording."""
    # GoogleTest properties (RecordProperty) kept on a test row as `evidence`.
    evidence: list[str] = []
    # Per-diagnosis advice in the problem's own terms, keyed by diagnosis id (else the default).
    advice: dict[str, Text] = {}
    # A scalar load just past the end of the input is the vector tail overrun (loops over groups of four).
    scalar_tail_overrun: bool = False


class Problem(_Strict):
    """One problem: a chapter, a skeleton, a reference and the tests both answer to."""
    number: Annotated[int, Field(gt=0)]
    slug: Annotated[str, Field(pattern=r"^c\d+_[a-z0-9_]+$|^[a-z][a-z0-9_]*$")]
    chapter: str
    title: Text
    difficulty: str
    content: str                      # the chapter (Chinese); content/en/ holds the English twin
    mine: str                         # the learner's skeleton
    solution: str                     # the reference
    gtest: str                        # tests/<slug>_test.cu
    capi: str                         # tests/<slug>_capi.cu: the C ABI table pytest and timing load
    pytest: str | None = None         # tests/test_<slug>.py
    module: Identifier | None = None  # drills/problems/<module>.py: what cannot be declared here
    entry_points: Annotated[list[Identifier], Field(min_length=1)]
    optional_entry_points: list[Identifier] = []
    tolerance: Tolerance = Tolerance()
    shapes: Annotated[list[Shape], Field(min_length=1)]
    gpu_shapes: list[Shape] = []
    figures: list[Name] = []          # interactive figures the chapter places (drills/web/static/figures)
    perf: Perf | None = None
    scoring: Scoring = Scoring()
    checks: list[Check] = []
    diagnosis: Diagnosis = Diagnosis()
    hints: Annotated[list[Text], Field(min_length=1)]

    @model_validator(mode="after")
    def _consistent(self):
        entries = set(self.entry_points) | set(self.optional_entry_points)
        seen = set()
        for i, c in enumerate(self.checks):
            if c.id in seen:
                raise ValueError(f"checks[{i}].id: {c.id!r} is used twice")
            seen.add(c.id)
            if c.probe.entry not in entries:
                raise ValueError(f"checks[{i}].probe.entry: {c.probe.entry!r} is not an entry point")
        if self.perf:
            named = [*self.perf.variants] + ([] if self.perf.bound_in_library else [self.perf.bound])
            for i, v in enumerate(named):
                if v not in entries:
                    raise ValueError(f"perf: {v!r} is not an entry point")
        for key in ("perf_variant", "perf_fallback"):
            v = getattr(self.scoring, key)
            if v and v not in entries:
                raise ValueError(f"scoring.{key}: {v!r} is not an entry point")
        return self

    def path(self, key: str) -> Path:
        return ROOT / getattr(self, key)

    def title_in(self, lang: str) -> str:
        return self.title.get(lang) or self.title.zh

    def files(self) -> dict:
        """The files the entry names, by key (pytest only when it names one)."""
        keys = ("content", "mine", "solution", "gtest", "capi") + (("pytest",) if self.pytest else ())
        return {k: self.path(k) for k in keys}

    @property
    def severity(self) -> dict:
        return {c.id: c.severity for c in self.checks}


class Manifest(_Strict):
    version: int
    problem: Annotated[list[Problem], Field(min_length=1)]

    @field_validator("version")
    @classmethod
    def _known_version(cls, v):
        if v != VERSION:
            raise ValueError(f"unknown manifest version {v}; this drills reads version {VERSION}")
        return v


def _where(data: dict, loc: tuple) -> str:
    """'problem N (slug), key 'checks[1].severity'' from a pydantic error location."""
    if len(loc) >= 2 and loc[0] == "problem" and isinstance(loc[1], int):
        rows = data.get("problem") or []
        row = rows[loc[1]] if loc[1] < len(rows) and isinstance(rows[loc[1]], dict) else {}
        who = f"problem {row.get('number', f'#{loc[1] + 1}')}" + (f" ({row['slug']})" if row.get("slug") else "")
        rest = loc[2:]
    else:
        who, rest = "", loc
    key = ""
    for part in rest:
        if isinstance(part, int):
            key += f"[{part}]"
        elif part in ("TotalRule", "PerLineRule", "float", "str", "function-after[_shape(), tuple[int, int]]") \
                or str(part).startswith(("literal[", "function-", "tuple[")):
            continue  # pydantic's names for union members, not keys
        else:
            key += ("." if key else "") + str(part)
    return ", ".join(s for s in (who, f"key {key!r}" if key else "") if s)


def _one_line(path: Path, data: dict, err: ValidationError) -> str:
    # A misspelt key first (it explains the "missing" one beside it); within a union, the deepest
    # complaint says most.
    errors = sorted(err.errors(), key=lambda e: e["type"] != "extra_forbidden")
    same_place = all(e["loc"][:4] == errors[0]["loc"][:4] for e in errors)
    first = max(errors, key=lambda e: len(e["loc"])) if same_place else errors[0]
    if first["type"] == "extra_forbidden":
        what = "unknown key (misspelt?)"
    elif first["type"] == "missing":
        what = "missing"
    else:
        what = first["msg"].removeprefix("Value error, ")
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    loc = tuple(first["loc"])
    inner = re.match(r"^([A-Za-z_][\w.\[\]]*): (.*)$", what)
    if inner and len(loc) == 2:  # a check across keys names its key in the message: "checks[0].probe.entry: ..."
        return f"{_shown(path)}: {_where(data, loc)}, key {inner[1]!r}: {inner[2]}{more}"
    return f"{_shown(path)}: {_where(data, loc)}: {what}{more}"


def _shown(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def _check_disk(path: Path, problems: list[Problem]) -> None:
    root = path.resolve().parent.parent
    numbers, slugs = {}, {}
    for p in problems:
        who = f"{_shown(path)}: problem {p.number} ({p.slug})"
        if p.number in numbers:
            raise ManifestError(f"{who}, key 'number': {p.number} is also problem {numbers[p.number]}'s number")
        if p.slug in slugs:
            raise ManifestError(f"{who}, key 'slug': {p.slug!r} is used twice")
        numbers[p.number], slugs[p.slug] = p.slug, p.number
        for key in ("content", "solution", "gtest", "capi", "pytest"):  # mine/: the learner's, restored by reset
            rel = getattr(p, key)
            if rel is not None and not (root / rel).is_file():
                raise ManifestError(f"{who}, key {key!r}: {rel} does not exist")
        if p.module and not (Path(__file__).resolve().parent / "problems" / f"{p.module}.py").is_file():
            raise ManifestError(f"{who}, key 'module': drills/problems/{p.module}.py does not exist")
        for name in p.figures:
            if not (FIGURES_DIR / f"{name.replace('-', '_')}.js").is_file():
                raise ManifestError(f"{who}, key 'figures': no figure {name!r} "
                                    f"(drills/web/static/figures/{name.replace('-', '_')}.js)")


@lru_cache(maxsize=8)
def _load(path: Path, stamp: tuple) -> dict[int, Problem]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ManifestError(f"no manifest at {path}: run drills inside a drills checkout (or set DRILLS_ROOT to one)") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise ManifestError(f"cannot read the manifest {path}: {e}") from None
    try:
        manifest = Manifest.model_validate(data)
    except ValidationError as e:
        raise ManifestError(_one_line(path, data, e)) from None
    _check_disk(path, manifest.problem)
    return {p.number: p for p in manifest.problem}


def load(path: Path = MANIFEST) -> dict[int, Problem]:
    """{number: Problem}. Validated once per version of the file."""
    path = Path(path)
    try:
        st = path.stat()
        stamp = (st.st_mtime_ns, st.st_size)
    except OSError:
        stamp = ()
    return dict(_load(path, stamp))


def find(problems: dict[int, Problem], key: str | int) -> Problem:
    """A problem by number ("N", "#N", "0N") or slug."""
    text = str(key).strip().lstrip("#")
    if text.isdigit() and int(text) in problems:
        return problems[int(text)]
    for p in problems.values():
        if p.slug == text:
            return p
    known = ", ".join(f"{p.number} ({p.slug})" for p in sorted(problems.values(), key=lambda p: p.number))
    raise ManifestError(f"no problem {key!r}; known: {known}")


def _shapes_arg(shapes) -> str:
    return ",".join("x".join(str(d) for d in shape) for shape in shapes)


def cmake_text(problems: dict[int, Problem]) -> str:
    """add_drill() calls for CMake, one per problem, in number order."""
    lines = ["# Generated from practice/problems.toml by `python -m drills.manifest cmake`."]
    for p in sorted(problems.values(), key=lambda p: p.number):
        t = p.tolerance
        lines.append(
            f'add_drill({p.number} {p.slug} MINE "{p.mine}" SOLUTION "{p.solution}" '
            f'TEST "{p.gtest}" CAPI "{p.capi}" SHAPES "{_shapes_arg(p.shapes)}" '
            f'GPU_SHAPES "{_shapes_arg(p.gpu_shapes)}" RTOL "{t.rtol!r}" ATOL "{t.atol!r}" '
            f'SUM_FACTOR "{t.sum_factor or 0.0!r}" DOT_FACTOR "{t.dot_factor or 0.0!r}")'
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    if argv[:1] == ["cmake"]:
        try:
            sys.stdout.write(cmake_text(load()))
        except ManifestError as e:
            print(f"drills: {e}", file=sys.stderr)
            return 2
        return 0
    print("usage: python -m drills.manifest cmake", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Figure blocks in a chapter: an interactive figure in the browser app, a caption and a static
fallback everywhere else (a Markdown viewer shows no HTML comment).

    <!-- figure: bank-map -->
    **图 4**　一句话的图注：看什么。

    ...the static fallback: a table, a code block or a paragraph...

    <!-- endfigure -->

The first non-blank line after the marker is the caption (one line, starting with `**`); everything
after it up to the closing marker is the fallback, which the app replaces by the drawn figure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

OPEN_RE = re.compile(r"^<!--\s*figure:\s*([A-Za-z0-9_-]+)\s*-->$")
CLOSE_RE = re.compile(r"^<!--\s*endfigure\s*-->$")
LOOSE_RE = re.compile(r"^<!--\s*(?:end\s*)?figure\b")
FENCE_RE = re.compile(r"^\s*(`{3,}|~{3,})")


@dataclass(frozen=True)
class Figure:
    name: str
    md_line: int     # the opening marker's line
    caption: str     # the caption line as written
    fallback: str    # the text between the caption and the closing marker


def parse(md: str) -> tuple[list[Figure], list[str]]:
    """The figure blocks of a chapter in order, and what is wrong with them."""
    lines = md.splitlines()
    found, problems = [], []
    fence, open_at = None, None
    for i, line in enumerate(lines):
        m = FENCE_RE.match(line)
        if m and (fence is None or m.group(1)[0] == fence):
            fence = m.group(1)[0] if fence is None else None
            continue
        if fence is not None:
            continue
        s = line.strip()
        opened, closed = OPEN_RE.match(s), CLOSE_RE.match(s)
        if not (opened or closed):
            if LOOSE_RE.match(s):
                problems.append(f"line {i + 1}: malformed figure marker {s!r} "
                                "(expected '<!-- figure: NAME -->' or '<!-- endfigure -->')")
            continue
        if opened:
            if open_at is not None:
                problems.append(f"line {i + 1}: figure {opened.group(1)!r} opens inside the figure "
                                f"opened at line {open_at + 1}")
            open_at = i
            continue
        if open_at is None:
            problems.append(f"line {i + 1}: <!-- endfigure --> closes no figure")
            continue
        name = OPEN_RE.match(lines[open_at].strip()).group(1)
        body = lines[open_at + 1:i]
        while body and not body[0].strip():
            body = body[1:]
        caption = body[0].strip() if body else ""
        rest = body[1:] if body else []
        if not caption.startswith("**"):
            problems.append(f"line {open_at + 1}: figure {name!r} needs a one-line caption starting "
                            "with '**' right after its marker")
        elif rest and rest[0].strip():
            problems.append(f"line {open_at + 1}: figure {name!r}: the caption must be one line, "
                            "followed by a blank line")
        fallback = "\n".join(rest).strip()
        if not fallback:
            problems.append(f"line {open_at + 1}: figure {name!r} needs a static fallback (a table, "
                            "code block or text) between its caption and <!-- endfigure -->")
        found.append(Figure(name, open_at + 1, caption, fallback))
        open_at = None
    if open_at is not None:
        problems.append(f"line {open_at + 1}: figure is never closed by <!-- endfigure -->")
    names = [f.name for f in found]
    problems += [f"figure {n!r} appears {names.count(n)} times" for n in sorted(set(names))
                 if names.count(n) > 1]
    return found, problems


def problems(md: str) -> list[str]:
    return parse(md)[1]

"""The chapter's Markdown as HTML: tables, code, math, and a placeholder for each interactive figure
at its marker (a line `<!-- figure: NAME -->`). The page's scripts fill the placeholders."""

from __future__ import annotations

import html
import re
from pathlib import Path

from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin

MARKER = re.compile(r"^\s*<!--\s*figure:\s*([A-Za-z0-9_-]+)\s*-->\s*$")
# `<!-- excerpt: FILE A-B -->` above a code block says where the code comes from; the page shows it.
EXCERPT = re.compile(r"^\s*<!--\s*excerpt:\s*(\S+)\s+(\d+)-(\d+)\s*-->\s*$")


def _parser() -> MarkdownIt:
    # html=True: the chapter is the project's own text, and its markers are HTML comments.
    md = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    md.use(dollarmath_plugin, double_inline=True)
    md.add_render_rule("math_inline", lambda self, tokens, i, options, env:
                       f'<span class="math" data-display="0">{html.escape(tokens[i].content)}</span>')
    md.add_render_rule("math_block", lambda self, tokens, i, options, env:
                       f'<div class="math" data-display="1">{html.escape(tokens[i].content)}</div>\n')
    return md


_MD = _parser()


def figure_placeholder(name: str) -> str:
    return f'<div class="figure" data-figure="{html.escape(name)}"></div>\n'


def render(text: str, figures=()) -> tuple[str, list[str]]:
    """HTML for the chapter and the figures placed by markers, in order. `figures`: the ones the
    problem's manifest entry declares; a marker naming another one is shown as a note, not dropped.

    Markers are found among the parsed HTML blocks, so a marker quoted inside a code block stays text."""
    tokens = _MD.parse(text)
    placed: list[str] = []
    for tok in tokens:
        if tok.type != "html_block":
            continue
        excerpt = EXCERPT.match(tok.content.strip())
        if excerpt:
            f, a, b = excerpt.groups()
            tok.content = f'<div class="excerpt-ref"><code>{html.escape(f)}</code> {a}–{b}</div>\n'
            continue
        lines = tok.content.splitlines()
        names = [m.group(1) for m in map(MARKER.match, lines) if m]
        if not names or len(names) != len([ln for ln in lines if ln.strip()]):
            continue
        tok.content = "".join(figure_placeholder(n) for n in names)
        placed.extend(names)
    return _MD.renderer.render(tokens, _MD.options, {}), placed


def render_file(path: Path, figures=()) -> tuple[str, list[str]]:
    """The chapter at path (empty when missing) and the figures its markers place. A chapter shows only
    the figures it asks for: they belong to its text (tests/web checks C3 places all three)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        text = ""
    return render(text, figures)

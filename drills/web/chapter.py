"""The chapter's Markdown as HTML: tables, code, math, quoted code regions captioned with their file
and region, and each figure block (drills/authoring/figures.py) turned into a placeholder that the
page's scripts fill, its caption kept and its static fallback left out.

A chapter exists in two languages: content/cN.md (Chinese) and content/en/cN.md (English).
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin

from drills import ROOT, manifest

LANGS = ("zh", "en")
MARKER = re.compile(r"^\s*<!--\s*figure:\s*([A-Za-z0-9_-]+)\s*-->\s*$")
END_MARKER = re.compile(r"^\s*<!--\s*endfigure\s*-->\s*$")
# `<!-- region: FILE#NAME -->` above a code block says which region of which file it quotes.
REGION = re.compile(r"^\s*<!--\s*region:\s*([^\s#]+)#(\S+)\s*-->\s*$")


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


def known_figures() -> set[str]:
    """The figures the manifest's entries declare (each has its drawing script in static/figures/)."""
    return {f for p in manifest.load().values() for f in p.figures}


def figure_placeholder(name: str) -> str:
    return f'<div class="figure" data-figure="{html.escape(name)}"></div>\n'


def region_caption(path: str, name: str) -> str:
    return (f'<div class="region-ref"><code class="region-file">{html.escape(path)}</code>'
            f' <span class="region-name">#{html.escape(name)}</span></div>\n')


def _marker_names(token) -> list[str] | None:
    """The figure names of an HTML block made only of figure markers, else None."""
    lines = [ln for ln in token.content.splitlines() if ln.strip()]
    names = [m.group(1) for m in map(MARKER.match, lines) if m]
    return names if names and len(names) == len(lines) else None


def render(text: str) -> tuple[str, list[str]]:
    """HTML for the chapter and the figures placed by markers, in order.

    Markers are found among the parsed HTML blocks, so a marker quoted inside a code block stays text.
    Between a figure marker and `<!-- endfigure -->`, the first paragraph is the caption (kept, after
    the figure) and the rest is the static fallback (dropped: the page draws the figure instead)."""
    tokens = _MD.parse(text)
    placed: list[str] = []
    out = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok.type == "html_block":
            region = REGION.match(tok.content.strip())
            if region:
                tok.content = region_caption(*region.groups())
            names = _marker_names(tok)
            if names:
                tok.content = "".join(figure_placeholder(n) for n in names)
                placed.extend(names)
                out.append(tok)
                end = next((k for k in range(i + 1, len(tokens)) if tokens[k].type == "html_block"
                            and END_MARKER.match(tokens[k].content.strip())), None)
                if end is None:  # an old-style marker without a block: nothing to fold
                    i += 1
                    continue
                body = tokens[i + 1:end]
                if len(body) >= 3 and body[0].type == "paragraph_open":
                    body[0].attrSet("class", "figure-caption")
                    out.extend(body[:3])
                i = end + 1
                continue
        out.append(tok)
        i += 1
    return _MD.renderer.render(out, _MD.options, {}), placed


def chapter_path(content: str, lang: str) -> Path:
    """The chapter file for a manifest `content` path in a language: the Chinese text is the
    manifest's path (content/cN.md), the English one its twin under content/en/. A chapter not yet
    translated falls back to the Chinese file."""
    zh = ROOT / content
    if lang == "en":
        en = zh.parent / "en" / zh.name
        if en.is_file():
            return en
    return zh


def render_file(path: Path) -> tuple[str, list[str]]:
    """The chapter at path (empty when missing) and the figures its markers place. A chapter shows only
    the figures it asks for: they belong to its text (tests/web checks C3 places all three)."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        text = ""
    return render(text)


def render_chapter(content: str, lang: str) -> tuple[str, list[str]]:
    """render_file for a manifest `content` path in the page's language."""
    return render_file(chapter_path(content, lang))

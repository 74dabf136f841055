"""The online-softmax figure (drills/web/static/figures/online_softmax.js) computes what the chapter's
table of figure 1 says: its update, run by node on the chapter's example, gives the same m, d and
"without rescaling" columns as content/c5.md and content/en/c5.md."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIGURE = ROOT / "drills" / "web" / "static" / "figures" / "online_softmax.js"


def figure_steps(xs):
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is needed to run the figure's code (apt-get install nodejs)")
    script = f"const m = require({json.dumps(str(FIGURE))}); console.log(JSON.stringify(m.steps({json.dumps(xs)})));"
    return json.loads(subprocess.run([node, "-e", script], capture_output=True, text=True, check=True).stdout)


def chapter_rows(path: Path):
    """(k, x, m, d, d without rescaling) from the figure's fallback table."""
    text = path.read_text(encoding="utf-8")
    block = text[text.index("<!-- figure: online-softmax -->"):text.index("<!-- endfigure -->")]
    rows = []
    for line in block.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 6 and cells[0].isdigit():
            d = float(re.findall(r"[\d.]+", cells[4])[-1])
            rows.append((int(cells[0]), float(cells[1]), float(cells[2]), d, float(cells[5])))
    return rows


@pytest.mark.parametrize("chapter", ["content/c5.md", "content/en/c5.md"])
def test_figure_matches_the_chapter_table(chapter):
    rows = chapter_rows(ROOT / chapter)
    steps = figure_steps([r[1] for r in rows])
    assert len(rows) == 6 and len(steps) == 6
    for (k, x, m, d, bad), s in zip(rows, steps):
        assert (s["k"], s["x"], s["m"]) == (k, x, m)
        assert abs(s["d"] - d) < 6e-5 and abs(s["dNoRescale"] - bad) < 6e-5, (k, s, d, bad)

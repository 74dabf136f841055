"""Every chapter the manifest lists, in Chinese and in English, stays true to the code, keeps its
teaching frame, and says the same thing in both languages.

Run: python -m pytest -q tests/test_content.py      (numbers against benchmarks/: test_content_numbers.py)

For each manifest `content` path (content/cN.md) and its English twin (content/en/cN.md):
- drills.authoring.regions.check_chapter finds nothing: every quoted region equals the code's
  region, every named region exists, markers are balanced, no line numbers, figure blocks whole;
- it quotes the problem's reference by region; its figures are ones the browser app can draw, each
  with a caption in the chapter's language;
- the frame: a self-test of five questions with five folded answers, two exercises with folded
  worked answers that say how they are judged, a common-mistakes table, one profiling command,
  further reading; no author or CI notes, nothing that points outside the repository;
- the twins agree: the same numbered sections, the same quoted and named regions, the same figures
  in the same order, the same tables (shape and the numbers in every row), the same measured numbers.
"""

from __future__ import annotations

import re

import pytest

from drills import ROOT, manifest
from drills.authoring import figures, mdtables, regions
from drills.web import chapter as web_chapter

LANGS = {
    "zh": dict(self_test="自测", exercises=("练习一", "练习二"), mistakes="常见错误", profile="剖析",
               reading="延伸阅读", caption="**图", judged="**怎么判**", question_marks=("？", "?")),
    "en": dict(self_test="Self-test", exercises=("Exercise 1", "Exercise 2"), mistakes="Common mistakes",
               profile="Profil", reading="Further reading", caption="**Figure", judged="**How it is judged**",
               question_marks=("?",)),
}
# Nothing a learner reads points outside the repository or talks about the project's own tests. (The
# first two are spelt in pieces so that a search of the repository for them finds no false hit here.)
FORBIDDEN = ("../" + "shared", "shared/" + "anchors", "test_content", "content_refs")

PROBLEMS = {p.content: p for p in manifest.load().values()}
ZH = sorted(PROBLEMS)


def twin(content: str) -> str:
    return str(web_chapter.chapter_path(content, "en").relative_to(ROOT))


def text(path: str) -> str:
    return (ROOT / path).read_text(encoding="utf-8")


def chapters_in_both_languages():
    out = []
    for c in ZH:
        out.append(pytest.param(c, "zh", id=c))
        out.append(pytest.param(twin(c), "en", id=twin(c)))
    return out


def section(md: str, word: str) -> str:
    lines = md.splitlines()
    start = next((i for i, l in enumerate(lines) if re.match(r"^##\s", l) and word in l), None)
    assert start is not None, f"no '## … {word}' section"
    end = next((i for i in range(start + 1, len(lines)) if re.match(r"^##\s", lines[i])), len(lines))
    return "\n".join(lines[start + 1:end])


def numbered(body: str) -> list[int]:
    return [int(m.group(1)) for m in re.finditer(r"^(\d+)\.\s+\S", body, re.M)]


def outside_code(md: str) -> str:
    return "\n".join(line for _, line in regions._outside_code(md))


# ---- each chapter on its own ---------------------------------------------------------------------

def test_every_chapter_has_an_english_twin():
    missing = [c for c in ZH if twin(c) == c]
    assert not missing, f"no English twin (content/en/…) for {missing}"


@pytest.mark.parametrize("path,lang", chapters_in_both_languages())
def test_chapter_is_sound(path, lang):
    problems = regions.check_chapter(path)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("path,lang", chapters_in_both_languages())
def test_chapter_quotes_its_reference_by_region(path, lang):
    zh = path if lang == "zh" else next(c for c in ZH if twin(c) == path)
    solution = PROBLEMS[zh].solution
    quotes, _ = regions.find_quotes(text(path))
    assert any(q.path == solution for q in quotes), f"{path} quotes no region of {solution}"


@pytest.mark.parametrize("path,lang", chapters_in_both_languages())
def test_figures_are_drawable_and_captioned(path, lang):
    found, _ = figures.parse(text(path))
    unknown = [f.name for f in found if f.name not in web_chapter.known_figures()]
    assert not unknown, f"{path}: the browser app cannot draw {unknown}"
    bad = [f.name for f in found if not f.caption.startswith(LANGS[lang]["caption"])]
    assert not bad, f"{path}: captions of {bad} should start with {LANGS[lang]['caption']!r}"


@pytest.mark.parametrize("path,lang", chapters_in_both_languages())
def test_self_test_has_five_questions_and_folded_answers(path, lang):
    body = section(text(path), LANGS[lang]["self_test"])
    m = re.search(r"<details>\s*<summary>([^<]*)</summary>(.*?)</details>", body, re.S)
    assert m, "the self-test's answers must sit inside <details><summary>…</summary> … </details>"
    questions, answers = body[:m.start()], m.group(2)
    assert numbered(questions) == [1, 2, 3, 4, 5], f"questions numbered {numbered(questions)}"
    assert numbered(answers) == [1, 2, 3, 4, 5], f"answers numbered {numbered(answers)}"
    ends = LANGS[lang]["question_marks"]
    assert all(q.strip().endswith(ends) for q in re.findall(r"^\d+\.\s+(.*(?:\n   .*)*)", questions, re.M)), \
        "each of the five questions should end with a question mark"


@pytest.mark.parametrize("path,lang", chapters_in_both_languages())
def test_exercises_say_how_they_are_judged_and_have_folded_answers(path, lang):
    for word in LANGS[lang]["exercises"]:
        body = section(text(path), word)
        assert LANGS[lang]["judged"] in body, f"{word}: say how the exercise is judged ({LANGS[lang]['judged']})"
        assert re.search(r"<details>\s*<summary>.*?</summary>.*?</details>", body, re.S), \
            f"{word}: the worked answer should be behind a <details> fold"


@pytest.mark.parametrize("path,lang", chapters_in_both_languages())
def test_common_mistakes_table(path, lang):
    found = mdtables.tables(section(text(path), LANGS[lang]["mistakes"]))
    assert found and len(found[0]) >= 6, "the common mistakes section should be a table of five rows or more"


@pytest.mark.parametrize("path,lang", chapters_in_both_languages())
def test_one_profiling_command(path, lang):
    body = section(text(path), LANGS[lang]["profile"])
    blocks = re.findall(r"```[a-z]*\n(.*?)```", body, re.S)
    assert any(re.search(r"\b(ncu|cuobjdump|nvdisasm|judge\.py)\b", b) for b in blocks), \
        f"{path}: the profiling section should show the command (ncu, cuobjdump or judge.py) in a code block"


@pytest.mark.parametrize("path,lang", chapters_in_both_languages())
def test_further_reading(path, lang):
    items = re.findall(r"^- \S", section(text(path), LANGS[lang]["reading"]), re.M)
    assert len(items) >= 3, f"{path}: further reading should list three or more sources"


@pytest.mark.parametrize("path,lang", chapters_in_both_languages())
def test_no_author_notes_or_pointers_outside_the_repository(path, lang):
    md = text(path)
    found = [w for w in FORBIDDEN if w in md]
    assert not found, f"{path} mentions {found}: a learner's clone has no such thing"


# ---- the two languages in step -------------------------------------------------------------------

def pairs():
    return [pytest.param(c, twin(c), id=c) for c in ZH if twin(c) != c]


def headings(md: str) -> list[str]:
    return re.findall(r"^(#{2,3})\s+(\d+(?:\.\d+)?)\s", md, re.M)


@pytest.mark.parametrize("zh,en", pairs())
def test_twins_have_the_same_numbered_sections(zh, en):
    assert headings(text(zh)) == headings(text(en))


@pytest.mark.parametrize("zh,en", pairs())
def test_twins_quote_and_name_the_same_regions(zh, en):
    def quoted(md):
        return [(q.path, q.name) for q in regions.find_quotes(md)[0]]

    def named(md):
        return sorted({(p, n) for _, p, n in regions.find_citations(md)})

    assert quoted(text(zh)) == quoted(text(en)), "the same regions, quoted in the same order"
    assert named(text(zh)) == named(text(en)), "the same regions named in the prose"


@pytest.mark.parametrize("zh,en", pairs())
def test_twins_have_the_same_figures(zh, en):
    assert [f.name for f in figures.parse(text(zh))[0]] == [f.name for f in figures.parse(text(en))[0]]


@pytest.mark.parametrize("zh,en", pairs())
def test_twins_have_the_same_tables_and_numbers(zh, en):
    a, b = mdtables.tables(text(zh)), mdtables.tables(text(en))
    assert len(a) == len(b), f"{len(a)} tables in {zh}, {len(b)} in {en}"
    for k, (ta, tb) in enumerate(zip(a, b), 1):
        assert [len(r) for r in ta] == [len(r) for r in tb], f"table {k}: rows × columns differ"
        for ra, rb in zip(ta, tb):
            assert sorted(mdtables.numbers(" ".join(ra))) == sorted(mdtables.numbers(" ".join(rb))), \
                f"table {k}: row {ra[0]!r} / {rb[0]!r} has different numbers"


def measured(md: str) -> set[float]:
    """Numbers of three or more digits, or with a decimal point, outside code and tables: measured
    or derived values that both languages must quote alike."""
    prose = "\n".join(l for l in outside_code(md).splitlines() if not l.lstrip().startswith("|"))
    return {v for m in mdtables.NUMBER_RE.finditer(prose)
            for v in [float(m.group(0).replace(",", ""))] if v >= 100 or "." in m.group(0)}


@pytest.mark.parametrize("zh,en", pairs())
def test_twins_quote_the_same_measured_numbers(zh, en):
    a, b = measured(text(zh)), measured(text(en))
    assert a == b, f"only in {zh}: {sorted(a - b)}; only in {en}: {sorted(b - a)}"

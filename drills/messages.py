"""The one zh/en catalogue of everything drills says, keyed by id, and the rendering stage.

The catalogue is drills/messages.toml plus one file per problem module (drills/problems/<module>.toml,
for the diagnoses only that module raises); a key defined twice is an error. An entry is

    [diagnosis]
    out-of-bounds = { zh = "第 {line} 行越界访问 {array}：{index}，{where}。{advice}", en = "Line {line}: ..." }

Stages before rendering store a message as a reference, say(KEY, **facts), never as text: the
verdict and the diagnoses are decided on ids and facts. render_result() is the last stage: it
turns every reference in a result into {"zh", "en", "key"}. A fact that is itself {zh, en} is
taken in the language being rendered; the fact `advice` names an advice id, rendered as the
problem's own advice (its manifest entry's [problem.diagnosis.advice]) or else the catalogue's
[advice] entry.
"""

from __future__ import annotations

import string
import tomllib
from functools import lru_cache
from pathlib import Path

HERE = Path(__file__).resolve().parent
CATALOGUE = HERE / "messages.toml"
LANGS = ("zh", "en")


class CatalogueError(Exception):
    """A key missing from the catalogue, or defined twice."""


def _flatten(data: dict, prefix: str, out: dict, where: str) -> None:
    for key, value in data.items():
        full = f"{prefix}.{key}" if prefix else key
        if isinstance(value, dict) and set(value) == set(LANGS) and all(isinstance(v, str) for v in value.values()):
            if full in out:
                raise CatalogueError(f"{where}: message {full!r} is defined twice")
            out[full] = value
        elif isinstance(value, dict):
            _flatten(value, full, out, where)
        else:
            raise CatalogueError(f"{where}: {full!r} must be {{ zh = ..., en = ... }}")


@lru_cache(maxsize=1)
def catalogue() -> dict[str, dict]:
    out: dict[str, dict] = {}
    _flatten(tomllib.loads(CATALOGUE.read_text(encoding="utf-8")), "", out, "drills/messages.toml")
    for f in sorted((HERE / "problems").glob("*.toml")):  # a module's own: keys prefixed by its name
        _flatten(tomllib.loads(f.read_text(encoding="utf-8")), f.stem, out, f"drills/problems/{f.name}")
    return out


def _entry(key: str, problem):
    """The problem module's own wording of a key first, then the catalogue's."""
    module = getattr(problem, "module", None)
    own = catalogue().get(f"{module}.{key}") if module else None
    return own or catalogue().get(key)


def say(key: str, **facts) -> dict:
    """A message not yet rendered: the catalogue key and the facts its text needs."""
    return {"key": key, "facts": facts}


def is_reference(message) -> bool:
    return isinstance(message, dict) and "key" in message and "facts" in message and "zh" not in message


def _advice(problem, advice_id: str, lang: str) -> str:
    own = problem.diagnosis.advice.get(advice_id) if problem is not None else None
    if own is not None:
        return getattr(own, lang)
    entry = catalogue().get(f"advice.{advice_id}")
    return entry[lang] if entry else ""


def _fact(value, lang: str, problem):
    if isinstance(value, dict) and set(LANGS) <= set(value):
        return value[lang]
    if isinstance(value, dict) and set(value) == {"advice"}:  # wording of the problem's: {"advice": id}
        return _advice(problem, value["advice"], lang)
    if is_reference(value):
        return text(value, lang, problem)
    if isinstance(value, list) and all(is_reference(v) for v in value):
        return "".join(text(v, lang, problem) for v in value)
    return value


def text(message, lang: str, problem=None) -> str:
    """One language of a message: a reference, an already rendered {zh, en}, or a plain string."""
    if is_reference(message):
        entry = _entry(message["key"], problem)
        if entry is None:
            raise CatalogueError(f"no message {message['key']!r} in the catalogue")
        facts = {k: _fact(v, lang, problem) for k, v in message["facts"].items()}
        if "advice" in facts:
            facts["advice"] = _advice(problem, facts["advice"], lang) if facts["advice"] else ""
        try:
            return string.Formatter().vformat(entry[lang], (), facts).strip()
        except KeyError as e:
            raise CatalogueError(f"message {message['key']!r} needs the fact {e}") from None
    if isinstance(message, dict):
        return message.get(lang) or message.get("en") or message.get("zh") or ""
    return str(message or "")


def both(message, problem=None) -> dict:
    """{zh, en} (and the key, when it came from the catalogue)."""
    out = {lang: text(message, lang, problem) for lang in LANGS}
    if is_reference(message):
        out["key"] = message["key"]
    return out


def t(key: str, lang: str, **facts) -> str:
    """A catalogue entry in one language, for the views' own words."""
    return text(say(key, **facts), lang)


def table(section: str, lang: str) -> dict[str, str]:
    """Every entry of a catalogue section, {name: text in lang} (templates left unformatted)."""
    prefix = section + "."
    return {k[len(prefix):]: v[lang] for k, v in catalogue().items() if k.startswith(prefix)}


def render_result(result, problem=None) -> None:
    """The last stage: every message reference in the result becomes {zh, en, key}."""
    result.message = both(result.message, problem)
    for row in result.diagnoses:
        row["message"] = both(row["message"], problem)
    for row in result.checks:
        row["message"] = both(row["message"], problem)
    for row in (getattr(result, "perf", None) or {}).get("unconfirmed") or []:  # timecheck's findings
        row["message"] = both(row["message"], problem)

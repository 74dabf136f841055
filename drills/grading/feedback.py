"""<submission>.feedback.md: what a student may see. Hidden cases appear only as counts: their
names, messages and mismatches are left out, and their shapes (and the sizes that would give them
away) are blanked wherever else they appear (the verdict line, diagnoses)."""

from __future__ import annotations

import re

from .. import messages
from ..pipeline.render import text

SHOW_FAILED = 5


# Values a submission chose: what it wrote ("got X") and how many elements it got wrong ("N of M
# elements differ"). Either can carry data out (the hidden shapes or seed read from its environment),
# so feedback shows neither; the expected values and the positions are the judge's own.
_GOT = re.compile(r"\bgot\s+\S+")
_COUNT = re.compile(r"(?<![\d.])\d+(\s+of\s+\d+\s+elements?\s+differ)")


def carried(s: str) -> str:
    return _COUNT.sub(r"some\1", _GOT.sub("got a different value", s)) if s else s


def scrubber(hidden_shapes):
    pats = []
    for m, n in hidden_shapes:
        pats += [rf"(?<!\d){m}\s*[x×]\s*{n}(?!\d)", rf"(?<!\d){n}\s*[x×]\s*{m}(?!\d)", rf"\[{m},\s*{n}\]"]
        pats += [rf"(?<!\d){v}(?!\d)" for v in (m * n, m * n * 4) if v >= 100]  # element and byte counts
    rx = re.compile("|".join(pats)) if pats else None

    def scrub(s: str, blank: str) -> str:
        s = carried(s)
        return rx.sub(blank, s) if rx and s else s
    return scrub


def render(d: dict, lang: str, hidden_shapes, title: str) -> str:
    w = messages.table("feedback", lang)
    g = d["grading"]
    sc = g["scoring"]
    scrub = scrubber(hidden_shapes)
    s = lambda v: scrub(text(v, lang), w["hidden_shape"])  # noqa: E731
    backend = d.get("backend") or {}
    device = w["sim"] if backend.get("kind") == "sim" else backend.get("device") or backend.get("kind") or "-"
    # A diagnosis only the hidden cases gave (judge.py _public_words): its name, never its facts,
    # which the submission could have chosen; nor the verdict's words when they are its words.
    hidden_words = [x["message"] for x in d.get("diagnoses", []) if x.get("hidden")]
    verdict = w["hidden_verdict"] if d.get("message") in hidden_words else s(d.get("message"))
    lines = [f"# #{d.get('problem')} {title}: {g['submission']}", "",
             f"**{w['result']}: {w[d['status']]}** · {w['score']} {sc['score']:g} / {sc['max_score']:g} · "
             f"{w['on']} {device}", "", verdict, "",
             f"| {w['part']} | {w['outcome']} |", "|---|---|"]
    c = sc["cases"]
    lines.append(f"| {w['public']} | {c['public_passed']} / {c['public_total']} |")
    if c["hidden_total"]:
        lines.append(f"| {w['hidden']} | {c['hidden_passed']} / {c['hidden_total']} |")
    k = sc["checks"]
    if k["total"]:
        failed = f" ({w['failed']}: {', '.join(k['failed'])})" if k["failed"] else ""
        later = w["later"] if k["passed"] and c["passed"] < c["total"] else ""
        lines.append(f"| {w['checks']} | {k['passed']} / {k['total']}{failed}{later} |")
    p = sc["perf"]
    if p["tier"] is None:
        lines.append(f"| {w['perf']} | {w['no_perf']} |")
    elif p["pct_copy_kernel"] is None:
        lines.append(f"| {w['perf']} | {w['untimed']} |")
    else:
        tier = w["none"] if p["tier"] == "none" else p["tier"]
        lines.append(f"| {w['perf']} | {w['tier'].format(tier=tier, pct=p['pct_copy_kernel'])} |")

    if d.get("diagnoses"):
        lines += ["", f"## {w['why']}", ""]
        for diag in d["diagnoses"][:5]:
            if diag.get("hidden"):
                lines.append(f"- `{diag['id']}`: {w['hidden_diagnosis']}")
                continue
            where = f" ({diag.get('file')}:{diag['line']})" if diag.get("line") else ""
            lines.append(f"- `{diag['id']}`{where}: {s(diag['message'])}")

    hidden_names = set(g.get("hidden_case_names", []))
    failed_public = [t for t in d.get("tests", []) if t["status"] in ("fail", "error") and t["name"] not in hidden_names
                     and not _hidden_shape(t, hidden_shapes)]
    if failed_public:
        lines += ["", f"## {w['first_failed'].format(n=min(SHOW_FAILED, len(failed_public)))}", ""]
        for t in failed_public[:SHOW_FAILED]:
            lines.append(f"- `{t['name']}`: {scrub(t.get('message', ''), w['hidden_shape'])[:300]}")
            if t.get("mismatches"):
                lines += ["  ```", *("  " + carried(m) for m in t["mismatches"].splitlines()[:5]), "  ```"]
    if c["hidden_total"] and c["hidden_passed"] < c["hidden_total"]:
        lines += ["", w["hidden_note"].format(f=c["hidden_total"] - c["hidden_passed"], n=c["hidden_total"])]
    return "\n".join(lines).rstrip() + "\n"


def _hidden_shape(t: dict, hidden_shapes) -> bool:
    return tuple(t.get("shape") or ()) in {tuple(h) for h in hidden_shapes}

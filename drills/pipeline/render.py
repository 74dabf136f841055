"""The terminal view of a result object: the verdict and the first reason first, details below.
Its words are the [terminal] section of the one catalogue (drills/messages.toml)."""

from __future__ import annotations

import locale
import os

from rich.console import Console
from rich.table import Table

from .. import messages

STATUS_STYLE = {"pass": "bold green", "fail": "bold red", "error": "bold yellow", "skip": "dim"}


def default_lang() -> str:
    for var in ("DRILLS_LANG", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(var, "")
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    loc = (locale.getlocale()[0] or "").lower()
    return "zh" if loc.startswith("zh") else "en"


def text(message, lang: str) -> str:
    return messages.text(message, lang)


WIDTH = 100  # the terminal width tables are laid out for when output is not a terminal


def console() -> Console:
    """A terminal's own width; otherwise (a pipe, a file, CI) 100 columns, never rich's 80."""
    import sys
    tty = sys.stdout.isatty()
    return Console(highlight=False, width=None if tty else int(os.environ.get("COLUMNS") or WIDTH))


def learners_tests(tests: list) -> tuple[list, list]:
    """(the learner's cases, the reference's cases for variants the judged file does not define)."""
    return [t for t in tests if not t.get("absent")], [t for t in tests if t.get("absent")]


def render(result: dict, lang: str, console_: Console | None = None, verbose: bool = False) -> None:
    c = console_ or console()
    w = messages.table("terminal", lang)
    status = result["status"]
    backend = result.get("backend") or {}
    head = f"[{STATUS_STYLE[status]}]{w[status]}[/] #{result.get('problem')} {result.get('file', '')}"
    if backend:
        head += f"  [dim]({w['backend']}: {backend.get('kind')}, {backend.get('device', '')})[/]"
    c.print(head)
    c.print(text(result.get("message"), lang), markup=False)
    for d in result.get("diagnoses", [])[:1]:
        where = f" [dim]{d.get('file', '')}:{d['line']}[/]" if d.get("line") else ""
        same = text(d["message"], lang) == text(result.get("message"), lang)
        note = f"[yellow]{w['note']}[/] " if d.get("severity") == "note" else ""
        c.print(f"[bold]→ {note}{d['id']}[/]{where}" + ("" if same else ": "), end="")
        c.print("" if same else text(d["message"], lang), markup=False)

    tests, absent = learners_tests(result.get("tests", []))
    if tests:
        ran = [t for t in tests if t["status"] != "skip"]
        ok = [t for t in ran if t["status"] == "pass"]
        c.print()
        skipped = len(tests) - len(ran)
        summary = (w["passed_of"].format(p=len(ok), n=len(ran), s=skipped) if skipped
                   else w["yours_passed"].format(p=len(ok), n=len(ran)))
        c.print(f"[bold]{w['tests']}[/]: " + summary, markup=True)
        if absent and verbose:
            names = ", ".join(dict.fromkeys(t.get("variant") or t["name"].rsplit(".", 1)[-1] for t in absent))
            c.print("  [dim]" + w["not_defined"].format(count=len(absent), names=names) + "[/]")
        bad = [t for t in tests if t["status"] in ("fail", "error")]
        for t in bad[: (len(bad) if verbose else 5)]:
            c.print(f"  [red]✗[/] {t['name']}  {t.get('message', '')[:200]}")
            for m in (t.get("mismatches") or "").splitlines()[:5]:
                c.print(f"      {m}")
        if len(bad) > 5 and not verbose:
            c.print(f"  … {len(bad) - 5} more (--verbose)")

    if result.get("checks"):
        c.print(f"\n[bold]{w['checks']}[/]")
        for ch in result["checks"]:
            mark = {"pass": "[green]✓[/]", "fail": "[red]✗[/]", "error": "[yellow]?[/]"}.get(ch["status"], "[dim]-[/]")
            if ch.get("severity") == "note" and ch["status"] != "pass":
                mark = f"[yellow]![/] [dim]{w['note']}[/]"
            c.print(f"  {mark} {ch['id']}: {text(ch['message'], lang)}")

    if len(result.get("diagnoses", [])) > 1 or (verbose and result.get("diagnoses")):
        c.print(f"\n[bold]{w['diagnoses']}[/]")
        for d in result["diagnoses"]:
            where = f" ({w['line']} {d['line']})" if d.get("line") else ""
            c.print(f"  • {d['id']}{where}: {text(d['message'], lang)}")

    _render_lines(result, c, w, lang)
    _render_perf(result, c, w)
    if verbose and result.get("timings"):
        _render_timings(result["timings"], c, w)
    if status == "error" and result.get("log") and (verbose or not result.get("diagnoses")):
        c.print(f"\n[bold]{w['log']}[/]")
        c.print(result["log"][-3000:], markup=False)


def short_kernel(name: str) -> str:
    """`void (anonymous namespace)::transpose_tile_kernel<...>(float const*, ...)` -> `transpose_tile_kernel`."""
    name = name.split("(")[0] if not name.startswith("void (") else name[5:]
    name = name.replace("(anonymous namespace)::", "")
    name = name.split("(")[0]
    depth, out = 0, []
    for ch in name:
        depth += ch == "<"
        if depth == 0:
            out.append(ch)
        depth -= ch == ">"
    return "".join(out).removeprefix("void ").strip()


def _render_lines(result: dict, c: Console, w: dict, lang: str) -> None:
    for launch in result.get("counters", []):
        rows = [line for line in launch.get("lines", []) if line.get("per_request")]
        if not rows:
            continue
        shape = "×".join(str(d) for d in launch.get("shape") or [])
        title = f"{w['lines']}: {launch.get('entry', '')} {shape} → {short_kernel(launch.get('kernel', ''))}"
        t = Table(title=title, title_justify="left")
        for col in (w["line"], w["access"], w["requests"], w["per_request"], w["ideal"]):
            t.add_column(col, justify="right" if col != w["access"] else "left")
        for line in rows:
            for op, value in line["per_request"].items():
                ideal = line.get("ideal", {}).get(op)
                bad = ideal is not None and value > ideal * 1.01 + 1e-9
                unit = w[f"unit-{op.split('_')[0]}"]
                shown = f"{value:.2f} {unit}"
                t.add_row(str(line["line"]), w.get("op-" + op.replace("_", "-"), op), f"{line.get('requests', {}).get(op, 0):,}",
                          f"[red]{shown}[/]" if bad else shown, "" if ideal is None else f"{ideal:g}")
        c.print()
        c.print(t)


def _render_perf(result: dict, c: Console, w: dict) -> None:
    perf = result.get("perf") or {}
    if perf.get("error"):
        c.print(f"\n[bold]{w['perf']}[/]: [yellow]{perf['error'][:500]}[/]")
    if not perf.get("variants"):
        return
    if perf.get("predicted"):
        _render_predicted(perf, c, w)
        return
    t = Table(title=w["perf"], title_justify="left")
    for col in (w["variant"], w["shape"], "GB/s", w["copy"], w["memcpy"], w["torch"]):
        # names are never cut ("transpose_ti…"): the other columns give way
        t.add_column(col, justify="left" if col == w["variant"] else "right", no_wrap=col == w["variant"],
                     overflow="fold")
    for s in perf["shapes"]:
        shape = "x".join(str(d) for d in s["shape"])
        if "memcpy_gbps" in s:
            t.add_row("cudaMemcpy D2D", shape, f"{s['memcpy_gbps']:.0f}", "", "100%", "")
        t.add_row("copy kernel", shape, f"{s['copy_kernel_gbps']:.0f}", "100%", "", "")
        if "torch_gbps" in s:
            t.add_row(f"torch {s['torch_op']}", shape, f"{s['torch_gbps']:.0f}", "", "", "1.00x")
        for v in perf["variants"]:
            if v["shape"] == s["shape"]:
                t.add_row(v["name"], shape, f"{v['gbps']:.0f}", f"{v['pct_copy_kernel']:.0f}%",
                          f"{v['pct_memcpy']:.0f}%" if "pct_memcpy" in v else "",
                          f"{v['vs_torch']:.2f}x" if "vs_torch" in v else "")
    c.print()
    c.print(t)


def _render_predicted(perf: dict, c: Console, w: dict) -> None:
    """The simulator's answer to "how fast": predicted GB/s and the bound (sim/model/variants.py)."""
    t = Table(title=w["predicted"].format(gpu=perf["predicted"]["gpu"]), title_justify="left")
    for col in (w["variant"], w["shape"], "GB/s", w["copy"], w["bound"]):
        t.add_column(col, justify="right")
    notes = []
    for s in perf["shapes"]:
        shape = "x".join(str(d) for d in s["shape"])
        if s.get("copy_kernel_gbps"):
            t.add_row("copy kernel", shape, f"{s['copy_kernel_gbps']:.0f}", "100%", s.get("copy_kernel_bound") or "")
        for v in perf["variants"]:
            if v["shape"] != s["shape"]:
                continue
            if v.get("gbps"):
                pct = f"{v['pct_copy_kernel']:.0f}%" if "pct_copy_kernel" in v else ""
                t.add_row(v["name"], shape, f"{v['gbps']:.0f}", pct, v.get("bound") or "")
            else:
                t.add_row(v["name"], shape, w["not_modelled"], "", "—")
                notes.append(f"{v['name']} {shape}: {v.get('reason') or ''}")
    c.print()
    c.print(t)
    for note in notes:
        c.print(f"  {note}")


BESIDE = ("build-sim", "replay", "pytest", "probe")  # run beside the tests: the *-wait phases are what they added


def _render_timings(timings: dict, c: Console, w: dict) -> None:
    parts = [f"{k} {v:.1f} s" + (" " + w["timings_beside"] if k in BESIDE else "")
             for k, v in timings.items() if k != "total"]
    c.print(f"\n[bold]{w['timings']}[/]: {timings.get('total', 0):.1f} s = " + " · ".join(parts), markup=True)

// The result panel: renders the judge's result object (schema: drills/result.py), and turns its
// per-line counters into rows the editor's gutter and the warp lens share.
(function () {
  "use strict";
  const D = window.Drills, el = D.el;

  function basename(p) { return String(p || "").split(/[\\/]/).pop(); }
  function text(m) { return m && typeof m === "object" ? (m[D.lang] || m.zh || m.en || "") : (m || ""); }

  // Is this path (from the simulator's line info or a diagnosis) the learner's file?
  D.isMine = function (file, result) {
    if (!file) return true;
    const b = basename(file);
    return b === basename(D.boot.problem.mine) || (result && b === basename(result.file));
  };

  const GLOBAL = ["ld", "st", "atom", "red"], SHARED = ["ld", "st"];

  // Requests and their cost per source line, from Nsight Compute's metric names, so the page needs
  // nothing from the judge beyond the raw counters; the judge's own per_request/ideal win when given.
  function rowsFor(line) {
    const m = line.metrics || {}, rows = [];
    if (line.per_request && typeof line.per_request === "object") {
      Object.keys(line.per_request).forEach(function (k) {
        const ideal = line.ideal && typeof line.ideal === "object" ? line.ideal[k] : line.ideal;
        rows.push({ access: k, per: Number(line.per_request[k]), ideal: ideal === undefined ? null : Number(ideal) });
      });
      return rows;
    }
    const bytes = (line.sample && line.sample.bytes_per_lane) || 4;
    GLOBAL.forEach(function (op) {
      const req = m["l1tex__t_requests_pipe_lsu_mem_global_op_" + op + ".sum"];
      const sec = m["l1tex__t_sectors_pipe_lsu_mem_global_op_" + op + ".sum"];
      if (req) rows.push({ access: "global " + op, unit: "sectors", per: sec / req, ideal: Math.ceil((32 * bytes) / 32) });
    });
    SHARED.forEach(function (op) {
      const inst = m["smsp__inst_executed_op_shared_" + op + ".sum"];
      const wav = m["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_" + op + ".sum"];
      if (inst) rows.push({ access: "shared " + op, unit: "wavefronts", per: wav / inst, ideal: Math.max(1, (32 * bytes) / 128) });
    });
    return rows;
  }

  D.lineCounters = function (result) {
    const out = [];
    ((result && result.counters) || []).forEach(function (launch, li) {
      (launch.lines || []).forEach(function (line) {
        const rows = rowsFor(line);
        out.push({
          key: li + ":" + basename(line.file) + ":" + line.line, launch: li, kernel: launch.kernel || "?",
          file: line.file, line: Number(line.line) || 0, rows: rows, sample: line.sample, metrics: line.metrics || {},
          bad: rows.some(function (r) { return r.ideal !== null && r.per > r.ideal * 1.0001; }),
        });
      });
    });
    return out;
  };

  // "line 28" / "第 28 行" inside a message become links to that line of the learner's file.
  function linkLines(message, ctx) {
    if (!ctx) return message;
    const parts = [], re = /(line (\d+)|第 ?(\d+) ?行)/g;
    let last = 0, m;
    while ((m = re.exec(message))) {
      const n = Number(m[2] || m[3]);
      parts.push(message.slice(last, m.index));
      parts.push(el("a", { href: "#", class: "line-link inline", "data-line": n, text: m[0],
        onclick: function (ev) { ev.preventDefault(); ctx.gotoLine(n); } }));
      last = m.index + m[0].length;
    }
    parts.push(message.slice(last));
    return parts;
  }

  function fmt(x) { return x === null || x === undefined || isNaN(x) ? "–" : Math.round(x * 100) / 100; }

  function section(key, body) {
    return el("section", { class: "result-section" }, el("h3", { text: D.t(key) }), body);
  }

  // ctx: {gotoLine(n), selectLens(key)}
  D.renderResult = function (container, result, ctx) {
    container.replaceChildren();
    if (!result) {
      container.appendChild(el("p", { class: "muted", "data-testid": "no-result", text: D.t("no_result") }));
      return;
    }
    const status = result.status || "error";
    const backend = result.backend || {};
    container.appendChild(el("div", { class: "verdict verdict-" + status, "data-testid": "verdict", "data-status": status },
      // The judge's message already starts with the verdict; the word alone is for when it gives none.
      el("span", { class: "verdict-mark", text: { pass: "✓", fail: "✗", error: "!" }[status] || "?" }), " ",
      el("strong", { text: text(result.message) || D.t("status_" + status) }),
      el("div", { class: "verdict-meta" },
        backend.kind ? D.t("backend_" + backend.kind) + (backend.device ? " · " + backend.device : "") : "",
        result.seconds ? " · " + fmt(result.seconds) + " " + D.t("seconds") : "")));

    if ((result.diagnoses || []).length) {
      container.appendChild(section("diagnoses", el("ul", { class: "diagnoses" }, result.diagnoses.map(function (d) {
        const line = Number(d.line) || 0;
        return el("li", { class: "diagnosis", "data-id": d.id },
          el("code", { class: "diag-id", text: d.id }), " ",
          line && D.isMine(d.file, result) ? el("a", { href: "#", class: "line-link", "data-line": line, text: D.t("line", { n: line }),
            onclick: function (ev) { ev.preventDefault(); ctx.gotoLine(line); } }) : null,
          line ? " " : null, el("span", null, linkLines(text(d.message), D.isMine(d.file, result) ? ctx : null)));
      }))));
    }

    if ((result.tests || []).length) container.appendChild(section("tests", testsBlock(result.tests)));

    if ((result.checks || []).length) {
      // error: the check could not be measured (never a pass); a note teaches without failing the verdict.
      const marks = { pass: "✓", fail: "✗", error: "?" };
      container.appendChild(section("checks", el("ul", { class: "checks" }, result.checks.map(function (c) {
        const note = c.severity === "note" && c.status !== "pass";
        return el("li", { class: "check check-" + c.status + (note ? " check-note" : ""), "data-id": c.id },
          el("span", { class: "mark", text: note ? "!" : (marks[c.status] || "?") }), " ", el("code", { text: c.id }), " ", el("span", { text: text(c.message) }));
      }))));
    }

    const lines = D.lineCounters(result).filter(function (e) { return D.isMine(e.file, result) && e.rows.length; });
    if (lines.length) {
      const rows = [];
      lines.forEach(function (e) {
        e.rows.forEach(function (r, i) {
          rows.push(el("tr", { class: r.ideal !== null && r.per > r.ideal * 1.0001 ? "worse" : "ok" },
            el("td", null, i === 0 ? el("a", { href: "#", class: "line-link", "data-line": e.line, text: e.line,
              onclick: function (ev) { ev.preventDefault(); ctx.gotoLine(e.line); if (e.sample) ctx.selectLens(e.key); } }) : ""),
            el("td", { text: i === 0 ? e.kernel : "" }),
            el("td", { text: r.access + (r.unit ? " (" + r.unit + ")" : "") }),
            el("td", { class: "num", text: fmt(r.per) }),
            el("td", { class: "num", text: fmt(r.ideal) })));
        });
      });
      container.appendChild(section("counters", [el("p", { class: "muted", text: D.t("counters_hint") }),
        el("div", { class: "table-wrap" }, el("table", { class: "counters" },
          el("thead", null, el("tr", null, ["col_line", "col_variant", "col_access", "col_per_request", "col_ideal"].map(function (k) { return el("th", { text: D.t(k) }); }))),
          el("tbody", null, rows)))]));
    }

    const perf = result.perf;
    if (perf && (perf.variants || []).length) {
      container.appendChild(section("perf", el("div", { class: "table-wrap" }, el("table", { class: "perf" },
        el("thead", null, el("tr", null, ["col_variant", "col_shape", "col_ms", "col_gbps", "col_pct_copy", "col_pct_memcpy", "col_vs_torch"].map(function (k) { return el("th", { text: D.t(k) }); }))),
        el("tbody", null, perf.variants.map(function (v) {
          return el("tr", null, el("td", null, el("code", { text: v.name })), el("td", { class: "num", text: v.shape ? [].concat(v.shape).join("×") : "" }),
            el("td", { class: "num", text: fmt(v.ms) }), el("td", { class: "num", text: fmt(v.gbps) }),
            el("td", { class: "num", text: v.pct_copy_kernel === undefined ? "–" : fmt(v.pct_copy_kernel) + "%" }),
            el("td", { class: "num", text: v.pct_memcpy === undefined ? "–" : fmt(v.pct_memcpy) + "%" }),
            el("td", { class: "num", text: v.vs_torch === undefined || v.vs_torch === null ? "–" : fmt(v.vs_torch) + "×" }));
        }))))));
    }

    if (result.log) {
      container.appendChild(el("details", { class: "log", open: status === "error" ? true : null },
        el("summary", { text: D.t("log") }), el("pre", { text: result.log })));
    }
  };

  // A run has dozens of cases, most of them passing or skipped: count them all, list the ones that
  // did not pass, and keep the full table one click away.
  function testsBlock(tests) {
    // Cases of variants the file does not define are the reference's, not the learner's (absent).
    tests = tests.filter(function (t) { return !t.absent; });
    const counts = { pass: 0, fail: 0, error: 0, skip: 0 };
    tests.forEach(function (t) { counts[t.status] = (counts[t.status] || 0) + 1; });
    const summary = el("p", { class: "tests-summary", "data-testid": "tests-summary" },
      ["pass", "fail", "error", "skip"].filter(function (k) { return counts[k]; }).map(function (k, i) {
        return [i ? " · " : "", el("span", { class: "badge badge-" + k, "data-status": k, "data-count": counts[k], text: counts[k] + " " + D.t("tests_" + k) })];
      }));
    const bad = tests.filter(function (t) { return t.status === "fail" || t.status === "error"; });
    const shown = bad.slice(0, 40);
    return [summary,
      shown.length ? el("div", { class: "table-wrap" }, testTable(shown)) : null,
      bad.length > shown.length ? el("p", { class: "muted", text: "… +" + (bad.length - shown.length) }) : null,
      el("details", { class: "all-tests" }, el("summary", { text: D.t("tests_all", { n: tests.length }) }),
        el("div", { class: "table-wrap" }, testTable(tests)))];
  }

  function testTable(tests) {
    return el("table", { class: "tests" },
      el("thead", null, el("tr", null, ["col_test", "col_shape", "col_variant", "col_status", "col_detail"].map(function (k) { return el("th", { text: D.t(k) }); }))),
      el("tbody", null, tests.map(function (t) {
        const detail = [t.message, t.mismatches].filter(function (x) { return x && x !== "skipped"; }).join(" · ");
        return el("tr", { class: "test-" + t.status },
          el("td", null, el("code", { text: t.name })),
          el("td", { class: "num", text: t.shape ? [].concat(t.shape).join("×") : "" }),
          el("td", { text: t.variant || "" }),
          el("td", null, el("span", { class: "badge badge-" + t.status, text: D.t("tests_" + t.status) })),
          el("td", { class: "detail", text: detail }));
      })));
  }

  // What the editor's gutter shows: diagnoses (by line) and counter lines, per line of the learner's file.
  D.gutterMarks = function (result) {
    const marks = {};
    function at(line) { return (marks[line] = marks[line] || { line: line, diagnoses: [], counters: [] }); }
    ((result && result.diagnoses) || []).forEach(function (d) {
      if (Number(d.line) > 0 && D.isMine(d.file, result)) at(Number(d.line)).diagnoses.push(d);
    });
    D.lineCounters(result).forEach(function (e) {
      if (e.line > 0 && D.isMine(e.file, result) && e.rows.length) at(e.line).counters.push(e);
    });
    return Object.keys(marks).map(function (k) { return marks[k]; });
  };

  D.resultText = text;
  D.fmt = fmt;
})();

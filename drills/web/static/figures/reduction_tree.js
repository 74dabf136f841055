// C2 figure: one block reducing s[] in shared memory, one step of the loop at a time, three ways.
// A toy block: 16 threads, warps of 4 threads and 4 banks (bank = word mod 4), so that divergence
// (a warp with some of its lanes idle) and bank conflicts (one bank asked for several distinct words
// by one warp instruction) are visible on one screen. Each step counts the warp instructions it
// issues, the divergent warps and the extra cycles bank conflicts cost.
(function () {
  "use strict";
  const D = window.Drills;
  const N = 16, WARP = 4, BANKS = 4;
  const VALUES = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3];   // small integers: the sum is exact

  // pair(t, d): the words thread t adds in the step with distance d, [written-and-read, read], or
  // null when thread t sits this step out.
  const MODES = {
    divergent: { key: "rt_divergent", ds: [1, 2, 4, 8],
      code: "for (d = 1; d < 16; d *= 2) { if (t % (2 * d) == 0) s[t] += s[t + d]; __syncthreads(); }",
      pair: function (t, d) { return t % (2 * d) === 0 ? [t, t + d] : null; } },
    strided: { key: "rt_strided", ds: [1, 2, 4, 8],
      code: "for (d = 1; d < 16; d *= 2) { k = 2 * d * t; if (k < 16) s[k] += s[k + d]; __syncthreads(); }",
      pair: function (t, d) { const k = 2 * d * t; return k < N ? [k, k + d] : null; } },
    sequential: { key: "rt_sequential", ds: [8, 4, 2, 1],
      code: "for (d = 8; d > 0; d /= 2) { if (t < d) s[t] += s[t + d]; __syncthreads(); }",
      pair: function (t, d) { return t < d ? [t, t + d] : null; } },
  };

  // Cycles one warp instruction needs: the most distinct words any one bank must serve (0: no lane).
  function ways(words) {
    const perBank = {};
    words.forEach(function (w) { (perBank[w % BANKS] = perBank[w % BANKS] || new Set()).add(w); });
    return Object.keys(perBank).reduce(function (m, b) { return Math.max(m, perBank[b].size); }, 0);
  }

  // Every step of a mode: the additions (thread, a, b), the warps' costs, and s[] after the step.
  function plan(modeName) {
    const mode = MODES[modeName];
    let values = VALUES.slice();
    return mode.ds.map(function (d) {
      const ops = [];
      for (let t = 0; t < N; t++) {
        const p = mode.pair(t, d);
        if (p) ops.push({ t: t, a: p[0], b: p[1] });
      }
      const warps = [];
      for (let w = 0; w < N / WARP; w++) {
        const mine = ops.filter(function (o) { return Math.floor(o.t / WARP) === w; });
        // Three shared-memory instructions per busy warp: load s[a], load s[b], store s[a].
        const instr = mine.length ? [ways(mine.map(function (o) { return o.a; })), ways(mine.map(function (o) { return o.b; })),
          ways(mine.map(function (o) { return o.a; }))] : [];
        warps.push({ warp: w, active: mine.length, issued: mine.length > 0, divergent: mine.length > 0 && mine.length < WARP,
          worst: instr.length ? Math.max.apply(null, instr) : 0,
          extra: instr.reduce(function (s, k) { return s + k - 1; }, 0) });
      }
      const before = values;
      values = before.slice();
      ops.forEach(function (o) { values[o.a] = before[o.a] + before[o.b]; });
      return { d: d, ops: ops, warps: warps, values: values,
        issued: warps.filter(function (w) { return w.issued; }).length,
        divergent: warps.filter(function (w) { return w.divergent; }).length,
        extra: warps.reduce(function (s, w) { return s + w.extra; }, 0) };
    });
  }

  function totals(steps, done) {
    const t = { adds: 0, issued: 0, divergent: 0, extra: 0 };
    steps.slice(0, done).forEach(function (s) {
      t.adds += s.ops.length; t.issued += s.issued; t.divergent += s.divergent; t.extra += s.extra;
    });
    return t;
  }

  D.figures["reduction-tree"] = function (container) {
    // Opens on the chapter's first rung: interleaved addressing with the modulo.
    const state = { mode: "divergent", done: 0 };
    let steps = plan(state.mode);
    const sum = VALUES.reduce(function (a, b) { return a + b; }, 0);
    const f = D.figureFrame(container, "rt_title");
    f.controls.before(D.el("p", { class: "fig-help", "data-i18n": "rt_intro", text: D.t("rt_intro") }));
    const sel = D.select("rt-mode", Object.keys(MODES).map(function (k) { return [k, MODES[k].key]; }), state.mode,
      function (v) { state.mode = v; steps = plan(v); state.done = 0; draw(); });
    function button(key, testid, fn) {
      return D.el("button", { type: "button", "data-i18n": key, "data-testid": testid, text: D.t(key), onclick: function () { fn(); draw(); } });
    }
    const stepButton = button("rt_step", "rt-step", function () { state.done = Math.min(steps.length, state.done + 1); });
    f.controls.append(D.labelled("rt_mode", sel), D.el("span", { class: "fig-buttons" }, stepButton,
      button("rt_all", "rt-all", function () { state.done = steps.length; }),
      button("rt_reset", "rt-reset", function () { state.done = 0; })));
    const code = D.el("pre", { class: "fig-code", "data-testid": "rt-code" });
    const counters = D.el("div", { class: "fig-counters", "data-testid": "rt-counters" });
    f.drawing.before(code, counters);
    const table = D.el("table", { class: "ts-table rt-table", "data-testid": "rt-table" });
    f.drawing.after(table);

    const cell = 34, gap = 8, left = 92, cellH = 30, rowGap = 30;
    function colX(i) { return left + i * cell + Math.floor(i / WARP) * gap; }

    function counter(testid, key, value, vars, cls) {
      return D.el("span", { class: "fig-counter" + (cls ? " " + cls : ""), "data-testid": testid, "data-value": value },
        D.el("span", { class: "fig-counter-label", text: D.t(key, vars) }), " ", D.el("b", { text: String(value) }));
    }

    function draw() {
      const mode = MODES[state.mode];
      const current = state.done > 0 ? steps[state.done - 1] : null;
      const values = current ? current.values : VALUES;
      const tot = totals(steps, state.done);
      code.textContent = mode.code;
      stepButton.disabled = state.done >= steps.length;
      counters.replaceChildren(
        counter("rt-steps", "rt_c_steps", state.done + " / " + steps.length),
        counter("rt-active", "rt_c_active", current ? current.ops.length : 0),
        counter("rt-adds", "rt_c_adds", tot.adds),
        counter("rt-warps", "rt_c_warps", tot.issued),
        counter("rt-divergent", "rt_c_divergent", tot.divergent, null, tot.divergent ? "bad" : null),
        counter("rt-conflicts", "rt_c_conflicts", tot.extra, null, tot.extra ? "bad" : null),
        counter("rt-result", "rt_c_result", values[0], null, state.done === steps.length ? "good" : null));

      const rows = 1 + steps.length, top = 128;
      const H = top + rows * (cellH + rowGap), W = colX(N - 1) + cell + 8;
      const svg = D.svg("svg", { viewBox: "0 0 " + W + " " + H, class: "reduction-tree", role: "img", "aria-label": D.t("rt_title") },
        D.svg("defs", null, D.arrowMarker("rt-arrow", "#b7bfcc", 6), D.arrowMarker("rt-arrow-current", "#2f6fde", 6)));
      // Header: element index and its bank.
      svg.appendChild(D.svg("text", { x: 4, y: 14, "font-size": 11, class: "axis", text: D.t("rt_index") }));
      svg.appendChild(D.svg("text", { x: 4, y: 32, "font-size": 11, class: "axis", text: D.t("rt_bank") }));
      for (let i = 0; i < N; i++) {
        svg.appendChild(D.svg("text", { x: colX(i) + cell / 2, y: 14, "font-size": 11, "text-anchor": "middle", class: "axis", text: i }));
        svg.appendChild(D.svg("rect", { x: colX(i) + 1, y: 21, width: cell - 2, height: 15, fill: D.hue(i % BANKS, BANKS, 80) }));
        svg.appendChild(D.svg("text", { x: colX(i) + cell / 2, y: 32, "font-size": 10, "text-anchor": "middle", text: i % BANKS }));
      }
      // Threads, grouped by warp; the current step's busy threads filled, divergent warps outlined in red.
      const ty = 50;
      svg.appendChild(D.svg("text", { x: 4, y: ty + 16, "font-size": 11, class: "axis", text: D.t("rt_threads") }));
      const busy = new Set(current ? current.ops.map(function (o) { return o.t; }) : []);
      for (let w = 0; w < N / WARP; w++) {
        const info = current ? current.warps[w] : null;
        const x0 = colX(w * WARP) - 2, x1 = colX(w * WARP + WARP - 1) + cell + 2;
        svg.appendChild(D.svg("rect", { x: x0, y: ty - 3, width: x1 - x0, height: 28, rx: 4, fill: "none",
          class: "rt-warp" + (info && info.divergent ? " divergent" : "") + (info && info.issued ? " issued" : ""),
          "data-warp": w, "data-active": info ? info.active : 0 }));
        let status = D.t("rt_warp", { w: w });
        if (info) status += " · " + (info.issued ? info.active + "/" + WARP : D.t("rt_idle"));
        svg.appendChild(D.svg("text", { x: (x0 + x1) / 2, y: ty + 38, "font-size": 10, "text-anchor": "middle",
          class: info && info.divergent ? "rt-bad" : "axis", text: status + (info && info.divergent ? " " + D.t("rt_diverges") : "") }));
        if (info && info.worst > 1)
          svg.appendChild(D.svg("text", { x: (x0 + x1) / 2, y: ty + 51, "font-size": 10, "text-anchor": "middle", class: "rt-bad",
            text: D.t("rt_way", { k: info.worst }) }));
      }
      for (let t = 0; t < N; t++) {
        svg.appendChild(D.svg("rect", { x: colX(t) + 2, y: ty, width: cell - 4, height: 22, rx: 3,
          class: "rt-thread" + (busy.has(t) ? " active" : ""), "data-thread": t }));
        svg.appendChild(D.svg("text", { x: colX(t) + cell / 2, y: ty + 15, "font-size": 11, "text-anchor": "middle", text: "t" + t }));
      }
      // s[] at the start and after each step done so far: the tree, one level per row.
      for (let r = 0; r <= state.done; r++) {
        const y = top + r * (cellH + rowGap), step = r ? steps[r - 1] : null, vals = step ? step.values : VALUES;
        const isCurrent = r === state.done && r > 0;
        svg.appendChild(D.svg("text", { x: 4, y: y + 19, "font-size": 11, class: "axis", text: r ? D.t("rt_after", { d: step.d }) : D.t("rt_start") }));
        const written = new Map(step ? step.ops.map(function (o) { return [o.a, o]; }) : []);
        const nextReads = new Set();
        if (r === state.done - 1) steps[r].ops.forEach(function (o) { nextReads.add(o.a); nextReads.add(o.b); });
        if (step) step.ops.forEach(function (o) {
          [o.a, o.b].forEach(function (src) {
            const yPrev = y - rowGap;
            svg.appendChild(D.svg("line", { x1: colX(src) + cell / 2, y1: yPrev + 1, x2: colX(o.a) + cell / 2, y2: y - 2,
              class: "rt-arrow" + (isCurrent ? " current" : ""), "marker-end": isCurrent ? "url(#rt-arrow-current)" : "url(#rt-arrow)" }));
          });
        });
        for (let i = 0; i < N; i++) {
          const op = written.get(i);
          svg.appendChild(D.svg("rect", { x: colX(i) + 1, y: y, width: cell - 2, height: cellH, rx: 2,
            class: "rt-cell" + (op ? " written" : r ? " stale" : "") + (op && isCurrent ? " current" : "") + (nextReads.has(i) ? " read" : ""),
            "data-row": r, "data-index": i, "data-value": vals[i] }));
          svg.appendChild(D.svg("text", { x: colX(i) + cell / 2, y: y + (op ? 14 : 19), "font-size": 12, "text-anchor": "middle",
            class: op ? "rt-value" : r ? "rt-value stale" : "rt-value", text: vals[i] }));
          if (op) svg.appendChild(D.svg("text", { x: colX(i) + cell / 2, y: y + 26, "font-size": 8, "text-anchor": "middle", class: "axis", text: "t" + op.t }));
        }
      }
      f.drawing.replaceChildren(svg);
      drawTable(tot);
      drawCaption(current, values, sum, tot);
    }

    function drawTable(tot) {
      const rows = steps.map(function (s, i) {
        const done = i < state.done;
        const worst = Math.max.apply(null, s.warps.map(function (w) { return w.worst; }));
        return D.el("tr", { class: (i === state.done - 1 ? "active" : "") + (done ? "" : " pending"), "data-step": i + 1 },
          D.el("td", { text: String(i + 1) }), D.el("td", { class: "num", text: String(s.d) }),
          D.el("td", { class: "num", text: done ? String(s.ops.length) : "" }),
          D.el("td", { class: "num", text: done ? String(s.issued) : "" }),
          D.el("td", { class: "num", text: done ? String(s.divergent) : "" }),
          D.el("td", { class: "num", text: done ? (worst > 1 ? D.t("rt_way", { k: worst }) + ", +" + s.extra : "0") : "" }));
      });
      table.replaceChildren(
        D.el("thead", null, D.el("tr", null, ["rt_col_step", "rt_col_d", "rt_col_active", "rt_col_warps", "rt_col_divergent", "rt_col_conflicts"]
          .map(function (k) { return D.el("th", { text: D.t(k) }); }))),
        D.el("tbody", null, rows),
        D.el("tfoot", null, D.el("tr", null, D.el("td", { text: D.t("rt_total") }), D.el("td"),
          D.el("td", { class: "num", text: String(tot.adds) }), D.el("td", { class: "num", text: String(tot.issued) }),
          D.el("td", { class: "num", text: String(tot.divergent) }), D.el("td", { class: "num", text: "+" + tot.extra }))));
    }

    function drawCaption(current, values, sum, tot) {
      let text;
      if (!current) text = D.t("rt_start_caption", { n: N, w: WARP, b: BANKS });
      else {
        text = D.t("rt_now", { s: state.done, d: current.d, a: current.ops.length, i: current.issued, v: current.divergent, c: current.extra });
      }
      const finished = state.done === steps.length;
      if (finished) text += " " + D.t(state.mode === "divergent" ? "rt_done_divergent" : state.mode === "strided" ? "rt_done_strided" : "rt_done_sequential",
        { s0: values[0], sum: sum, w: tot.issued, v: tot.divergent, c: tot.extra });
      f.caption.replaceChildren(D.el("span", { "data-testid": "rt-caption", "data-done": state.done, "data-steps": steps.length,
        "data-result": values[0], "data-sum": sum, class: finished ? (values[0] === sum ? "good" : "bad") : null, text: text }));
    }

    draw();
    D.onLang(draw);
    return { draw: draw };
  };

  D.reductionTree = { plan: plan, totals: totals, MODES: MODES, VALUES: VALUES };
})();

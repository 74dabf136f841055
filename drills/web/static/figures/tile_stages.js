// Figure (b): the stages of a transpose on an 8×8 toy, one warp instruction per step, counting what
// each instruction costs: global accesses in 32-byte sectors (8 floats), shared accesses in
// wavefronts (the most distinct words any one of the 8 banks must serve).
(function () {
  "use strict";
  const D = window.Drills;
  const N = 8, BANKS = 8;

  // A stage is a list of 8 warp instructions; warp j has lanes c = 0..7.
  // Each lane touches one element: {grid: "x"|"tile"|"y", r, c}.
  const STAGES = {
    read_x: { key: "ts_read_x", space: "global", op: "read", lane: function (j, c) { return { grid: "x", r: j, c: c }; } },
    write_y_cols: { key: "ts_write_y_cols", space: "global", op: "write", lane: function (j, c) { return { grid: "y", r: c, c: j, v: j * N + c }; } },
    write_tile: { key: "ts_write_tile", space: "shared", op: "write", lane: function (j, c) { return { grid: "tile", r: j, c: c, v: j * N + c }; } },
    barrier: { key: "ts_barrier", space: "none" },
    read_tile: { key: "ts_read_tile", space: "shared", op: "read", lane: function (j, c) { return { grid: "tile", r: c, c: j }; } },
    write_y_rows: { key: "ts_write_y_rows", space: "global", op: "write", lane: function (j, c) { return { grid: "y", r: j, c: c, v: c * N + j }; } },
  };
  const VARIANTS = {
    naive: { key: "ts_naive", width: 0, stages: ["read_x", "write_y_cols"] },
    tiled: { key: "ts_tiled", width: 8, stages: ["read_x", "write_tile", "barrier", "read_tile", "write_y_rows"] },
    padded: { key: "ts_padded", width: 9, stages: ["read_x", "write_tile", "barrier", "read_tile", "write_y_rows"] },
  };

  function cost(stage, width, lanes) {
    if (stage.space === "global") {
      // Row-major 8×8 floats: one row is exactly one 32-byte sector.
      return new Set(lanes.map(function (l) { return l.r; })).size;
    }
    const perBank = {};
    lanes.forEach(function (l) {
      const word = l.r * width + l.c, b = word % BANKS;
      (perBank[b] = perBank[b] || new Set()).add(word);
    });
    return Math.max.apply(null, Object.keys(perBank).map(function (b) { return perBank[b].size; }));
  }

  // Every step of a variant, in order: {stage, warp, lanes, cost}.
  function plan(variantName) {
    const v = VARIANTS[variantName], steps = [];
    v.stages.forEach(function (name) {
      const stage = STAGES[name];
      if (stage.space === "none") { steps.push({ stage: name, warp: -1, lanes: [], cost: 0 }); return; }
      for (let j = 0; j < N; j++) {
        const lanes = [];
        for (let c = 0; c < N; c++) lanes.push(stage.lane(j, c));
        steps.push({ stage: name, warp: j, lanes: lanes, cost: cost(stage, v.width, lanes) });
      }
    });
    return steps;
  }

  D.figures["tile-stages"] = function (container) {
    const state = { variant: "naive", done: 0 };
    let steps = plan(state.variant);
    const f = D.figureFrame(container, "ts_title");
    const intro = D.el("p", { class: "fig-help", "data-i18n": "ts_intro", text: D.t("ts_intro") });
    f.controls.before(intro);
    const sel = D.select("ts-variant", Object.keys(VARIANTS).map(function (k) { return [k, VARIANTS[k].key]; }), state.variant,
      function (v) { state.variant = v; steps = plan(v); state.done = 0; draw(); });
    function button(key, testid, fn) {
      return D.el("button", { type: "button", "data-i18n": key, "data-testid": testid, text: D.t(key), onclick: function () { fn(); draw(); } });
    }
    f.controls.append(D.labelled("ts_variant", sel),
      button("ts_step", "ts-step", function () { state.done = Math.min(steps.length, state.done + 1); }),
      button("ts_stage", "ts-stage", function () {
        if (state.done >= steps.length) return;
        const stage = steps[state.done].stage;
        while (state.done < steps.length && steps[state.done].stage === stage) state.done++;
      }),
      button("ts_all", "ts-all", function () { state.done = steps.length; }),
      button("ts_reset", "ts-reset", function () { state.done = 0; }));
    const table = D.el("table", { class: "ts-table", "data-testid": "ts-table" });
    f.drawing.after(table);

    function grids() {
      const v = VARIANTS[state.variant];
      const content = { x: {}, tile: {}, y: {} };
      for (let r = 0; r < N; r++) for (let c = 0; c < N; c++) content.x[r + "," + c] = r * N + c;
      for (let i = 0; i < state.done; i++) {
        steps[i].lanes.forEach(function (l) { if (l.v !== undefined) content[l.grid][l.r + "," + l.c] = l.v; });
      }
      const current = state.done > 0 ? steps[state.done - 1] : null;
      const touched = { x: {}, tile: {}, y: {} };
      if (current) current.lanes.forEach(function (l) { touched[l.grid][l.r + "," + l.c] = STAGES[current.stage].op; });
      return { v: v, content: content, touched: touched, current: current };
    }

    function drawGrid(svg, x0, y0, name, cols, content, touched, banked, labelKey) {
      const cell = 24;
      svg.appendChild(D.svg("text", { x: x0, y: y0 - 8, "font-size": 12, class: "axis", text: D.t(labelKey) }));
      for (let r = 0; r < N; r++) for (let c = 0; c < cols; c++) {
        const k = r + "," + c, val = content[k], t = touched[k], padding = banked && c >= N;
        const fill = padding ? "#eee" : banked ? D.hue((r * cols + c) % BANKS, BANKS, 88) : val === undefined ? "#fafafa" : "#e8eef8";
        svg.appendChild(D.svg("rect", { x: x0 + c * cell, y: y0 + r * cell, width: cell, height: cell, fill: fill,
          class: "ts-cell" + (t ? " ts-" + t : ""), "data-grid": name, "data-row": r, "data-col": c }));
        if (val !== undefined) svg.appendChild(D.svg("text", { x: x0 + c * cell + cell / 2, y: y0 + r * cell + cell * 0.66, "font-size": 10, "text-anchor": "middle", text: val }));
      }
      return cols * cell;
    }

    function draw() {
      const g = grids();
      const gap = 36, top = 26;
      const tileCols = g.v.width || N;
      const widths = [N * 24, tileCols * 24, N * 24];
      const svg = D.svg("svg", { viewBox: "0 0 " + (widths[0] + widths[1] + widths[2] + 2 * gap + 4) + " " + (top + N * 24 + 6), class: "tile-stages", role: "img", "aria-label": D.t("ts_title") });
      let x = 2;
      drawGrid(svg, x, top, "x", N, g.content.x, g.touched.x, false, "ts_x"); x += widths[0] + gap;
      if (g.v.width) drawGrid(svg, x, top, "tile", g.v.width, g.content.tile, g.touched.tile, true, "ts_tile");
      else svg.appendChild(D.svg("text", { x: x + widths[1] / 2, y: top + 4 * 24, "font-size": 11, "text-anchor": "middle", class: "axis", text: D.t("ts_no_tile") }));
      x += widths[1] + gap;
      drawGrid(svg, x, top, "y", N, g.content.y, g.touched.y, false, "ts_y");
      f.drawing.replaceChildren(svg);
      drawTable();
      drawCaption(g.current);
    }

    function drawTable() {
      const v = VARIANTS[state.variant];
      const totals = {}, sofar = {};
      steps.forEach(function (s, i) {
        totals[s.stage] = (totals[s.stage] || 0) + s.cost;
        if (i < state.done) sofar[s.stage] = (sofar[s.stage] || 0) + s.cost;
      });
      const rows = v.stages.map(function (name, i) {
        const active = state.done > 0 && state.done <= steps.length && steps[state.done - 1].stage === name;
        return D.el("tr", { class: active ? "active" : null, "data-stage": name },
          D.el("td", null, (i + 1) + ". " + D.t(STAGES[name].key)),
          D.el("td", { class: "num", "data-testid": "ts-count-" + name, "data-count": sofar[name] || 0 }, (sofar[name] || 0) + " / " + totals[name]));
      });
      const all = steps.reduce(function (a, s, i) { return a + (i < state.done ? s.cost : 0); }, 0);
      table.replaceChildren(
        D.el("thead", null, D.el("tr", null, D.el("th", { text: D.t("ts_stage_col") }), D.el("th", { text: D.t("ts_tx_col") }))),
        D.el("tbody", null, rows),
        D.el("tfoot", null, D.el("tr", null, D.el("td", { text: D.t("ts_total") }), D.el("td", { class: "num", "data-testid": "ts-total", text: all }))));
    }

    function drawCaption(current) {
      let text;
      if (!current) text = D.t("ts_start");
      else if (current.warp < 0) text = D.t("ts_barrier");
      else {
        const st = STAGES[current.stage];
        text = D.t("ts_now", { s: state.done, what: D.t(st.key), k: current.cost,
          unit: D.t(st.space === "global" ? "ts_unit_sector" : "ts_unit_wavefront") });
      }
      if (state.done === steps.length) {
        const writes = steps.filter(function (s) { return STAGES[s.stage].space === "global" && STAGES[s.stage].op === "write"; })
          .reduce(function (a, s) { return a + s.cost; }, 0);
        text += " " + D.t("ts_done", { w: writes });
      }
      f.caption.replaceChildren(D.el("span", { "data-testid": "ts-caption", "data-done": state.done, "data-steps": steps.length, text: text }));
    }

    draw();
    D.onLang(draw);
    return { draw: draw };
  };

  D.tileStages = { plan: plan, VARIANTS: VARIANTS };
})();

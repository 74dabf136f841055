// C2 figure: a warp summing its lanes' values with shuffles, one offset at a time.
// v += __shfl_down_sync(mask, v, d): lane i gets lane i + d's v (a lane whose i + d is past the warp
//   gets its own v back), so only lane 0 ends with the whole sum.
// v += __shfl_xor_sync(mask, v, d): lane i gets lane i ^ d's v (the butterfly), so every lane does.
// The member mask: every lane it names must execute the call (else the simulator stops with
// `sync-mask`), and a lane may only call with, and read from, lanes the mask names (else the value
// is undefined: drawn as "?").
(function () {
  "use strict";
  const D = window.Drills;
  // Lane i starts with i + 1: small integers, so every sum is exact and easy to check (1 + ... + 32 =
  // 528), and no lane but lane 0 happens to end with the total under shfl_down (the digits of pi
  // would leave lane 12 holding it by chance).
  const DIGITS = [];
  for (let i = 0; i < 32; i++) DIGITS.push(i + 1);
  const OPS = { down: { key: "sb_down", fn: "__shfl_down_sync" }, xor: { key: "sb_xor", fn: "__shfl_xor_sync" } };
  const MASKS = { full: "sb_mask_full", half: "sb_mask_half", absent: "sb_mask_absent" };

  function hex(m, lanes) {
    return "0x" + (m >>> 0).toString(16).padStart(lanes === 32 ? 8 : 2, "0");
  }

  // The warp's set-up for a choice of lanes (32, or the 8-lane toy) and mask case.
  function setup(lanes, maskCase) {
    const all = lanes === 32 ? 0xffffffff : (1 << lanes) - 1;
    const lowHalf = lanes === 32 ? 0x0000ffff : (1 << (lanes / 2)) - 1;
    const quarter = lanes === 32 ? 0xff : (1 << (lanes / 4)) - 1;
    return {
      lanes: lanes,
      offsets: lanes === 32 ? [16, 8, 4, 2, 1] : [4, 2, 1],
      mask: maskCase === "half" ? lowHalf : all,
      callers: maskCase === "absent" ? quarter : all,      // the lanes that reach the call
      all: all,
    };
  }

  function bit(m, i) { return ((m >>> i) & 1) === 1; }

  // One step: the sources each calling lane reads and the values after it; or the simulator's error.
  function step(w, op, values, d) {
    const missing = (w.mask & ~w.callers & w.all) >>> 0;
    if (missing) {
      return { error: { mask: w.mask, missing: missing, active: w.callers } };
    }
    const moves = [], next = values.slice();
    for (let i = 0; i < w.lanes; i++) {
      if (!bit(w.callers, i)) continue;
      let j = op === "down" ? i + d : i ^ d, own = false;
      if (j >= w.lanes) { j = i; own = true; }
      // Undefined: the calling lane is not in the mask, or the lane it reads from is not.
      const undef = !bit(w.mask, i) || !bit(w.mask, j);
      moves.push({ to: i, from: j, own: own, undefined: undef });
      next[i] = undef || values[i] === null || values[j] === null ? null : values[i] + values[j];
    }
    return { moves: moves, values: next };
  }

  function plan(lanes, op, maskCase) {
    const w = setup(lanes, maskCase);
    const rows = [{ values: DIGITS.slice(0, lanes) }];
    for (let k = 0; k < w.offsets.length; k++) {
      const s = step(w, op, rows[rows.length - 1].values, w.offsets[k]);
      if (s.error) return { warp: w, rows: rows, error: s.error, errorAt: k };
      s.d = w.offsets[k];
      rows.push(s);
    }
    return { warp: w, rows: rows, error: null };
  }

  D.figures["shuffle-butterfly"] = function (container) {
    // Opens on __shfl_down_sync, the classic reduction, with the whole warp.
    const state = { op: "down", lanes: 32, mask: "full", done: 0, failed: false };
    let p = plan(state.lanes, state.op, state.mask);
    const f = D.figureFrame(container, "sb_title");
    f.controls.before(D.el("p", { class: "fig-help", "data-i18n": "sb_intro", text: D.t("sb_intro") }));
    function restart() { p = plan(state.lanes, state.op, state.mask); state.done = 0; state.failed = false; draw(); }
    const opSel = D.select("sb-op", Object.keys(OPS).map(function (k) { return [k, OPS[k].key]; }), state.op,
      function (v) { state.op = v; restart(); });
    const lanesSel = D.select("sb-lanes", [["32", "sb_lanes_32"], ["8", "sb_lanes_8"]], String(state.lanes),
      function (v) { state.lanes = parseInt(v, 10); restart(); });
    const maskSel = D.select("sb-mask", Object.keys(MASKS).map(function (k) { return [k, MASKS[k]]; }), state.mask,
      function (v) { state.mask = v; restart(); });
    function button(key, testid, fn) {
      return D.el("button", { type: "button", "data-i18n": key, "data-testid": testid, text: D.t(key), onclick: function () { fn(); draw(); } });
    }
    function advance() {
      if (state.failed) return;
      if (p.error && state.done === p.errorAt) { state.failed = true; return; }
      state.done = Math.min(p.rows.length - 1, state.done + 1);
    }
    const stepButton = button("sb_step", "sb-step", advance);
    const allButton = button("sb_all", "sb-all", function () { while (!state.failed && state.done < p.rows.length - 1) advance(); if (p.error) advance(); });
    f.controls.append(D.labelled("sb_op", opSel), D.labelled("sb_lanes", lanesSel), D.labelled("sb_mask", maskSel),
      D.el("span", { class: "fig-buttons" }, stepButton, allButton,
        button("sb_reset", "sb-reset", function () { state.done = 0; state.failed = false; })));
    const code = D.el("pre", { class: "fig-code", "data-testid": "sb-code" });
    const counters = D.el("div", { class: "fig-counters", "data-testid": "sb-counters" });
    const error = D.el("p", { class: "fig-error", "data-testid": "sb-error", hidden: true });
    f.drawing.before(code, counters);
    f.drawing.after(error);

    function counter(testid, key, value, cls) {
      return D.el("span", { class: "fig-counter" + (cls ? " " + cls : ""), "data-testid": testid, "data-value": value },
        D.el("span", { class: "fig-counter-label", text: D.t(key) }), " ", D.el("b", { text: String(value) }));
    }

    function draw() {
      const w = p.warp, lanes = w.lanes, sum = DIGITS.slice(0, lanes).reduce(function (a, b) { return a + b; }, 0);
      const last = p.rows[state.done].values;
      const holding = last.filter(function (v) { return v === sum; }).length;
      const undef = last.filter(function (v) { return v === null; }).length;
      const finished = state.done === p.rows.length - 1 && !p.error;
      stepButton.disabled = allButton.disabled = state.failed || finished;
      const call = "v += " + OPS[state.op].fn + "(" + hex(w.mask, lanes) + ", v, d);";
      code.textContent = "for (int d = " + w.offsets[0] + "; d > 0; d /= 2)\n  " +
        (state.mask === "absent" ? "if (lane < " + lanes / 4 + ") " : "") + call +
        (state.mask === "half" ? "   // " + D.t("sb_code_half", { m: hex(w.mask, lanes), n: lanes / 2 }) : "");
      counters.replaceChildren(
        counter("sb-steps", "sb_c_steps", state.done + " / " + w.offsets.length),
        counter("sb-sum", "sb_c_sum", sum),
        counter("sb-holding", "sb_c_holding", holding + " / " + lanes, finished ? "good" : null),
        counter("sb-undefined", "sb_c_undefined", undef, undef ? "bad" : null));
      counters.querySelector('[data-testid="sb-holding"]').dataset.count = holding;
      counters.querySelector('[data-testid="sb-undefined"]').dataset.count = undef;

      // Lanes are rows, steps are columns (the start, then one per offset): a butterfly on its side.
      const rowH = lanes === 32 ? 17 : 30, cellH = rowH - 3, top = 24, font = lanes === 32 ? 11 : 13;
      const colW = 44, colGap = 46, col0 = 70, K = w.offsets.length;
      const colX = function (c) { return col0 + c * (colW + colGap); };
      const Y = function (i) { return top + i * rowH; };
      const H = top + lanes * rowH + 4, W = colX(K) + colW + 6;
      const svg = D.svg("svg", { viewBox: "0 0 " + W + " " + H, class: "shuffle-butterfly lanes-" + lanes, role: "img", "aria-label": D.t("sb_title") },
        D.svg("defs", null, D.arrowMarker("sb-arrow", "#b7bfcc", 5), D.arrowMarker("sb-arrow-current", "#2f6fde", 5),
          D.arrowMarker("sb-arrow-undefined", "#c4321c", 5)));
      // Column titles; then each lane's number, shaded by what the mask and the branch make of it, and its mask bit.
      svg.appendChild(D.svg("text", { x: 19, y: 14, "font-size": 10, "text-anchor": "middle", class: "axis", text: D.t("sb_lane") }));
      svg.appendChild(D.svg("text", { x: 50, y: 14, "font-size": 10, "text-anchor": "middle", class: "axis", text: D.t("sb_mask_row") }));
      for (let c = 0; c <= K; c++) {
        svg.appendChild(D.svg("text", { x: colX(c) + colW / 2, y: 14, "font-size": 11, "text-anchor": "middle",
          class: c === state.done && c > 0 ? "sb-col current" : "axis", text: c ? "d = " + w.offsets[c - 1] : D.t("sb_start") }));
      }
      for (let i = 0; i < lanes; i++) {
        const inMask = bit(w.mask, i), calls = bit(w.callers, i);
        svg.appendChild(D.svg("rect", { x: 4, y: Y(i), width: 30, height: cellH, rx: 2,
          class: "sb-head" + (calls ? "" : " absent") + (inMask ? "" : " outside"), "data-lane": i }));
        svg.appendChild(D.svg("text", { x: 19, y: Y(i) + cellH * 0.75, "font-size": font - 1, "text-anchor": "middle", text: i }));
        svg.appendChild(D.svg("text", { x: 50, y: Y(i) + cellH * 0.75, "font-size": font - 1, "text-anchor": "middle",
          class: inMask ? "axis" : "rt-bad", text: inMask ? "1" : "0" }));
      }
      for (let r = 0; r <= state.done; r++) {
        const x = colX(r), row = p.rows[r], isCurrent = r === state.done && r > 0, last = r === state.done;
        if (r) row.moves.forEach(function (m) {
          const cls = "sb-arrow" + (isCurrent ? " current" : "") + (m.undefined ? " undefined" : "") + (m.own ? " own" : "");
          const marker = m.undefined ? "url(#sb-arrow-undefined)" : isCurrent ? "url(#sb-arrow-current)" : "url(#sb-arrow)";
          // A lane with no lane i + d (m.own) gets its own value back: a straight dashed arrow.
          svg.appendChild(D.svg("line", { x1: colX(r - 1) + colW + 1, y1: Y(m.from) + cellH / 2, x2: x - 2, y2: Y(m.to) + cellH / 2,
            class: cls, "marker-end": marker, "data-from": m.from, "data-to": m.to }));
        });
        for (let i = 0; i < lanes; i++) {
          const v = row.values[i];
          const cls = "sb-cell" + (v === null ? " undefined" : "") + (last && r > 0 && v === sum ? " total" : "") +
            (bit(w.callers, i) ? "" : " absent") + (isCurrent ? " current" : "");
          svg.appendChild(D.svg("rect", { x: x, y: Y(i), width: colW, height: cellH, rx: 2, class: cls,
            "data-row": r, "data-lane": i, "data-value": v === null ? "?" : v }));
          svg.appendChild(D.svg("text", { x: x + colW / 2, y: Y(i) + cellH * 0.75, "font-size": font, "text-anchor": "middle",
            class: "sb-value", text: v === null ? "?" : v }));
        }
      }
      f.drawing.replaceChildren(svg);

      error.hidden = !state.failed;
      if (state.failed) {
        const e = p.error;
        error.replaceChildren(D.el("b", { text: "sync-mask: " }),
          D.t("sb_error", { m: hex(e.mask, lanes), x: hex(e.missing, lanes), a: hex(e.active, lanes) }), " ", D.t("sb_error_why"));
      }
      let text;
      if (state.failed) text = D.t("sb_failed");
      else if (state.done === 0) text = D.t(state.op === "down" ? "sb_start_down" : "sb_start_xor", { n: lanes });
      else {
        const d = p.rows[state.done].d;
        text = D.t(state.op === "xor" ? "sb_now_xor" : d === 1 ? "sb_now_down_1" : "sb_now_down", { s: state.done, d: d, k: lanes - d, last: lanes - 1 });
        if (undef) text += " " + D.t("sb_now_undefined", { u: undef });
      }
      if (finished) {
        if (undef) text += " " + D.t("sb_done_undefined", { sum: sum });
        else if (state.op === "down") text += " " + D.t("sb_done_down", { sum: sum, h: holding, n: lanes });
        else text += " " + D.t("sb_done_xor", { sum: sum, n: lanes });
      }
      f.caption.replaceChildren(D.el("span", { "data-testid": "sb-caption", "data-done": state.done, "data-holding": holding,
        class: state.failed || (finished && undef) ? "bad" : finished ? "good" : null, text: text }));
    }

    draw();
    D.onLang(draw);
    return { draw: draw };
  };

  D.shuffleButterfly = { plan: plan, setup: setup, DIGITS: DIGITS };
})();

// C4 figure: one block of a tiled SGEMM walking along K. C is cut into T×T tiles; block (i, j) computes
// tile (i, j) of C by reading, at step t, tile (i, t) of A and tile (t, j) of B into shared memory.
// The figure shows which tiles each step reads, the part of the last tile along K that lies outside
// A and B (loaded as zeros), how many blocks read the same A and B tiles, and the global reads of the
// whole product against the naive kernel's.
(function () {
  "use strict";
  const D = window.Drills;
  const CELL = 14;  // pixels per element row/column of the drawing (scaled: one cell = 8 elements)
  const SIZES = { M: [96, 100, 128], N: [96, 130, 160], K: [64, 70, 100], T: [32, 16] };

  function ceilDiv(a, b) { return Math.floor((a + b - 1) / b); }

  D.figures["tile-walk"] = function (container) {
    const state = { M: 96, N: 130, K: 70, T: 32, i: 0, j: 0, t: 0 };
    const f = D.figureFrame(container, "tw_title");
    f.controls.before(D.el("p", { class: "fig-help", "data-i18n": "tw_intro", text: D.t("tw_intro") }));

    function sizeSelect(dim) {
      return D.labelled("tw_" + dim.toLowerCase(), D.select("tw-" + dim.toLowerCase(),
        SIZES[dim].map(function (v) { return [String(v), String(v), true]; }), String(state[dim]),
        function (v) { state[dim] = Number(v); clamp(); draw(); }));
    }
    function button(key, testid, fn) {
      return D.el("button", { type: "button", "data-i18n": key, "data-testid": testid, text: D.t(key),
        onclick: function () { fn(); draw(); } });
    }
    function clamp() {
      state.i = Math.min(state.i, ceilDiv(state.M, state.T) - 1);
      state.j = Math.min(state.j, ceilDiv(state.N, state.T) - 1);
      state.t = Math.min(state.t, ceilDiv(state.K, state.T) - 1);
    }
    f.controls.append(sizeSelect("M"), sizeSelect("N"), sizeSelect("K"), sizeSelect("T"),
      button("tw_step", "tw-step", function () { state.t = (state.t + 1) % ceilDiv(state.K, state.T); }),
      button("tw_reset", "tw-reset", function () { state.t = 0; }));
    const table = D.el("table", { class: "tw-table", "data-testid": "tw-table" });
    f.drawing.after(table);

    // A matrix of rows×cols elements drawn in tiles of T; `hot` is the tile [r, c] read now, `mine`
    // a tile to outline; clicking a tile of C picks the block.
    function grid(svg, x0, y0, rows, cols, labelKey, hot, mine, pick) {
      const T = state.T, s = CELL / 8;  // one drawn unit per element, scaled
      const tr = ceilDiv(rows, T), tc = ceilDiv(cols, T);
      svg.appendChild(D.svg("text", { x: x0, y: y0 - 6, "font-size": 12, class: "axis", text: D.t(labelKey, { rows: rows, cols: cols }) }));
      for (let r = 0; r < tr; r++) for (let c = 0; c < tc; c++) {
        const h = Math.min(T, rows - r * T), w = Math.min(T, cols - c * T);
        const isHot = hot && hot[0] === r && hot[1] === c, isMine = mine && mine[0] === r && mine[1] === c;
        const node = D.svg("rect", { x: x0 + c * T * s, y: y0 + r * T * s, width: w * s, height: h * s,
          fill: isHot ? "#f6c177" : isMine ? "#c8dcf0" : "#f4f4f4", stroke: isMine ? "#2060a0" : "#999",
          "stroke-width": isMine ? 2 : 0.5, class: "tw-tile" + (isHot ? " tw-hot" : ""), "data-row": r, "data-col": c,
          onclick: pick ? function () { pick(r, c); draw(); } : null });
        svg.appendChild(node);
        if (isHot && (h < T || w < T)) {  // the part of the tile outside the matrix: loaded as zeros
          svg.appendChild(D.svg("rect", { x: x0 + c * T * s, y: y0 + r * T * s, width: T * s, height: T * s,
            fill: "none", stroke: "#c04040", "stroke-dasharray": "3,2", class: "tw-zero-pad" }));
        }
      }
      return { w: cols * s, h: rows * s };
    }

    function draw() {
      const M = state.M, N = state.N, K = state.K, T = state.T, t = state.t;
      const s = CELL / 8, gap = 28, top = 22;
      const svg = D.svg("svg", { viewBox: "0 0 " + ((K + N + N) * s + 2 * gap + 8) + " " + (top + (M + K) * s + gap + 8),
        class: "tile-walk", role: "img", "aria-label": D.t("tw_title") });
      grid(svg, 4, top + K * s + gap, M, K, "tw_a", [state.i, t], null, null);
      grid(svg, 4 + K * s + gap, top, K, N, "tw_b", [t, state.j], null, null);
      grid(svg, 4 + K * s + gap, top + K * s + gap, M, N, "tw_c", null, [state.i, state.j],
           function (r, c) { state.i = r; state.j = c; state.t = 0; });
      f.drawing.replaceChildren(svg);

      const steps = ceilDiv(K, T), blocksRow = ceilDiv(N, T), blocksCol = ceilDiv(M, T);
      const partial = K % T !== 0 && t === steps - 1;
      f.caption.textContent = D.t("tw_caption", { t: t + 1, t0: t, steps: steps, i: state.i, j: state.j,
        k0: t * T, k1: Math.min(K, (t + 1) * T) - 1 }) + (partial ? " " + D.t("tw_partial", { n: (t + 1) * T - K }) : "");
      const row = function (key, tiled, naive) {
        return D.el("tr", null, D.el("td", { text: D.t(key) }), D.el("td", { class: "num", text: tiled.toLocaleString() }),
          D.el("td", { class: "num", text: naive.toLocaleString() }));
      };
      table.replaceChildren(
        D.el("thead", null, D.el("tr", null, D.el("th", { text: "" }), D.el("th", { text: D.t("tw_tiled_col") }),
          D.el("th", { text: D.t("tw_naive_col") }))),
        D.el("tbody", null,
          row("tw_a_tile_readers", blocksRow, N), row("tw_b_tile_readers", blocksCol, M),
          row("tw_a_reads", M * K * blocksRow, M * K * N), row("tw_b_reads", K * N * blocksCol, K * N * M)));
      table.querySelectorAll("td.num")[0].setAttribute("data-testid", "tw-a-readers");
    }

    D.onLang(draw);
    draw();
  };
})();

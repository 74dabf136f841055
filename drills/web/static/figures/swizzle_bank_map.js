// G1 figure: the bank groups of a shared-memory tile of 16-byte chunks, before and after the XOR
// swizzle. 32 banks of 4 bytes = 8 groups of 4 banks = 128 bytes; chunk c of row r of a tile whose
// rows are `chunks` chunks wide starts in group (r * chunks + c') mod 8, c' = c (plain) or
// c ^ ((r / rowsPerRound) mod min(chunks, 8)) (swizzled). ldmatrix reads one chunk from each of 8
// neighbouring rows: the wavefronts it needs are the most chunks that fall in one group.
(function () {
  "use strict";
  const D = window.Drills;
  const TILES = {
    "4": { chunks: 4, label: "A: 128×32 halves, 64-byte rows (BK = 32)" },
    "8": { chunks: 8, label: "A: 128×64 halves, 128-byte rows (BK = 64)" },
    "16": { chunks: 16, label: "B: 32×128 halves, 256-byte rows (BN = 128)" },
  };

  function physical(chunks, swizzled, r, c) {
    if (!swizzled) return c;
    const perRound = chunks >= 8 ? 1 : 8 / chunks, mask = (chunks >= 8 ? 8 : chunks) - 1;
    return c ^ (Math.floor(r / perRound) & mask);
  }
  function group(chunks, swizzled, r, c) { return (r * chunks + physical(chunks, swizzled, r, c)) % 8; }
  // One 8×8 matrix of an ldmatrix: logical chunk c of rows r0 .. r0+7.
  function wavefronts(chunks, swizzled, r0, c) {
    const count = new Array(8).fill(0);
    for (let r = r0; r < r0 + 8; r++) count[group(chunks, swizzled, r, c)]++;
    return Math.max.apply(null, count);
  }

  D.figures["swizzle-bank-map"] = function (container) {
    const state = { tile: "4", swizzled: false, chunk: 0 };
    const f = D.figureFrame(container, "sw_title");
    const tileSel = D.select("sw-tile", Object.keys(TILES).map(function (k) { return [k, TILES[k].label, true]; }), state.tile,
      function (v) { state.tile = v; state.chunk = Math.min(state.chunk, TILES[v].chunks - 1); draw(); });
    const swSel = D.select("sw-layout", [["plain", "sw_plain"], ["xor", "sw_xor"]], "plain",
      function (v) { state.swizzled = v === "xor"; draw(); });
    f.controls.append(D.labelled("sw_tile", tileSel), D.labelled("sw_layout", swSel));
    f.controls.after(D.el("p", { class: "fig-help", "data-i18n": "sw_pick", text: D.t("sw_pick") }));

    function draw() {
      const chunks = TILES[state.tile].chunks, rows = 8;
      const shown = Math.min(chunks, 16), cell = 30, top = 24, left = 28;
      const vbW = left + shown * cell + 8;
      // Never drawn larger than life: four chunks would otherwise fill the pane with huge cells.
      const svg = D.svg("svg", { viewBox: "0 0 " + vbW + " " + (top + rows * cell + 8), style: "max-width: " + Math.round(vbW * 1.4) + "px",
        class: "swizzle-bank-map", role: "img", "aria-label": D.t("sw_title") });
      for (let c = 0; c < shown; c++)
        svg.appendChild(D.svg("text", { x: left + c * cell + cell / 2, y: top - 6, "font-size": 10, "text-anchor": "middle", class: "axis", text: c }));
      for (let r = 0; r < rows; r++) {
        svg.appendChild(D.svg("text", { x: left - 6, y: top + r * cell + cell * 0.65, "font-size": 10, "text-anchor": "end", class: "axis", text: r }));
        for (let c = 0; c < shown; c++) {  // the cell at physical position c holds logical chunk `logical`
          let logical = c;
          for (let q = 0; q < chunks; q++) if (physical(chunks, state.swizzled, r, q) === c) logical = q;
          const g = (r * chunks + c) % 8, picked = logical === state.chunk;
          svg.appendChild(D.svg("g", { class: "sw-cell" + (picked ? " picked" : ""), "data-row": r, "data-col": c, "data-group": g, "data-logical": logical,
            onclick: function () { state.chunk = logical; draw(); } },
            D.svg("rect", { x: left + c * cell, y: top + r * cell, width: cell, height: cell, fill: D.hue(g, 8, picked ? 55 : 88) }),
            D.svg("text", { x: left + c * cell + cell / 2, y: top + r * cell + cell * 0.62, "font-size": 10, "text-anchor": "middle", text: logical })));
        }
      }
      f.drawing.replaceChildren(svg);
      const w = wavefronts(chunks, state.swizzled, 0, state.chunk);
      f.caption.replaceChildren(D.el("span", { "data-testid": "sw-summary", "data-wavefronts": w, class: w > 1 ? "bad" : "good",
        text: D.t("sw_summary", { c: state.chunk, w: w }) + " " + (w > 1 ? D.t("sw_conflict", { w: w }) : D.t("sw_free")) }));
    }

    draw();
    D.onLang(draw);
    return { draw: draw };
  };

  D.swizzleMath = { physical: physical, group: group, wavefronts: wavefronts };
})();

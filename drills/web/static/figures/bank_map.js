// Figure (a): which bank each lane hits when a warp reads one column (or row) of a shared tile.
// bank(word) = word mod B; a read takes as many cycles as the largest number of DISTINCT words that
// fall in one bank (lanes reading the same word share it: a broadcast).
(function () {
  "use strict";
  const D = window.Drills;

  // B banks, a warp of B lanes (the toy keeps lanes = banks so the picture stays small).
  const LAYOUTS = {
    "32x32": { banks: 32, width: 32, label: "__shared__ float tile[32][32]" },
    "32x33": { banks: 32, width: 33, label: "__shared__ float tile[32][33]" },
    "4x4": { banks: 4, width: 4, label: "toy: 4 banks, tile[4][4]" },
    "4x5": { banks: 4, width: 5, label: "toy: 4 banks, tile[4][5]" },
  };

  // The words a warp reads: lane i reads tile[i][index] (a column) or tile[index][i] (a row).
  function access(layout, mode, index) {
    const lanes = [];
    for (let i = 0; i < layout.banks; i++) {
      const row = mode === "col" ? i : index, col = mode === "col" ? index : i;
      const word = row * layout.width + col;
      lanes.push({ lane: i, row: row, col: col, word: word, bank: word % layout.banks });
    }
    return lanes;
  }

  function cycles(layout, lanes) {
    const words = [];
    for (let b = 0; b < layout.banks; b++) words.push(new Set());
    lanes.forEach(function (l) { words[l.bank].add(l.word); });
    let worst = 0, bank = 0;
    words.forEach(function (s, b) { if (s.size > worst) { worst = s.size; bank = b; } });
    return { cycles: worst, bank: bank, perBank: words.map(function (s) { return s.size; }) };
  }

  D.figures["bank-map"] = function (container) {
    // Starts where the chapter's text is: the 4-bank toy, reading column 2.
    const state = { layout: "4x4", mode: "col", index: 2 };
    const f = D.figureFrame(container, "bm_title");
    const layoutSel = D.select("bm-layout", Object.keys(LAYOUTS).map(function (k) { return [k, LAYOUTS[k].label, true]; }),
      state.layout, function (v) { state.layout = v; clampIndex(); draw(); });
    const modeSel = D.select("bm-mode", [["col", "bm_column"], ["row", "bm_row"]], state.mode,
      function (v) { state.mode = v; clampIndex(); draw(); });
    const indexInput = D.el("input", { type: "number", min: 0, value: state.index, "data-testid": "bm-index",
      oninput: function () { state.index = parseInt(indexInput.value, 10) || 0; clampIndex(); draw(); } });
    f.controls.append(D.labelled("bm_layout", layoutSel), D.labelled("bm_read", modeSel), D.labelled("bm_index", indexInput));
    const help = D.el("p", { class: "fig-help", "data-i18n": "bm_pick", text: D.t("bm_pick") });
    f.controls.after(help);

    function clampIndex() {
      const L = LAYOUTS[state.layout];
      const max = state.mode === "col" ? L.width - 1 : L.banks - 1;
      state.index = Math.max(0, Math.min(max, state.index));
      indexInput.max = max;
      indexInput.value = state.index;
    }

    function draw() {
      const L = LAYOUTS[state.layout];
      const lanes = access(L, state.mode, state.index);
      const res = cycles(L, lanes);
      const picked = new Map(lanes.map(function (l) { return [l.row + "," + l.col, l]; }));
      const cell = L.banks === 32 ? 14 : 36, pad = 24, font = L.banks === 32 ? 7 : 13;
      const gridW = L.width * cell, gridH = L.banks * cell;
      const barTop = pad + gridH + 24, barH = L.banks === 32 ? 60 : 70, barCell = gridW / L.banks;
      const vbW = gridW + pad + 8;
      // Never drawn larger than life: the 4-bank toy would otherwise fill the pane with four huge cells.
      const svg = D.svg("svg", { viewBox: "0 0 " + vbW + " " + (barTop + barH + 30), class: "bank-map",
        style: "max-width: " + Math.round(vbW * (L.banks === 32 ? 1.25 : 1)) + "px",
        role: "img", "aria-label": D.t("bm_title") });
      for (let c = 0; c < L.width; c++) {
        if (c % (L.banks === 32 ? 4 : 1) === 0 || c === L.width - 1)
          svg.appendChild(D.svg("text", { x: pad + c * cell + cell / 2, y: pad - 6, "font-size": font + 1, "text-anchor": "middle", class: "axis", text: c }));
      }
      for (let r = 0; r < L.banks; r++) {
        if (r % (L.banks === 32 ? 4 : 1) === 0)
          svg.appendChild(D.svg("text", { x: pad - 4, y: pad + r * cell + cell * 0.7, "font-size": font + 1, "text-anchor": "end", class: "axis", text: r }));
        for (let c = 0; c < L.width; c++) {
          const bank = (r * L.width + c) % L.banks;
          const hit = picked.get(r + "," + c);
          const padding = c >= L.banks;  // the extra column exists only to shift each row by one bank
          const g = D.svg("g", { class: "bm-cell" + (hit ? " picked" : "") + (padding ? " padding" : ""), "data-row": r, "data-col": c, "data-bank": bank,
            onclick: function () { state.index = state.mode === "col" ? c : r; clampIndex(); draw(); } },
          D.svg("rect", { x: pad + c * cell, y: pad + r * cell, width: cell, height: cell, fill: D.hue(bank, L.banks, hit ? 62 : 88) }),
          D.svg("text", { x: pad + c * cell + cell / 2, y: pad + r * cell + cell * 0.68, "font-size": font, "text-anchor": "middle", text: bank }));
          svg.appendChild(g);
        }
      }
      // Lanes per bank: the height of the tallest bar is the number of cycles.
      const most = Math.max.apply(null, res.perBank);
      res.perBank.forEach(function (n, b) {
        const h = most ? (n / most) * barH : 0;
        svg.appendChild(D.svg("rect", { x: pad + b * barCell + 1, y: barTop + barH - h, width: barCell - 2, height: h,
          fill: D.hue(b, L.banks, n === res.cycles && n > 1 ? 50 : 70), class: "bm-bar", "data-bank": b, "data-count": n }));
        if (n) svg.appendChild(D.svg("text", { x: pad + b * barCell + barCell / 2, y: barTop + barH - h - 2, "font-size": font, "text-anchor": "middle", text: n }));
        svg.appendChild(D.svg("text", { x: pad + b * barCell + barCell / 2, y: barTop + barH + 12, "font-size": font, "text-anchor": "middle", class: "axis", text: b }));
      });
      f.drawing.replaceChildren(svg, D.el("p", { class: "fig-help", text: "↑ " + D.t("bm_lanes_per_bank") }));
      const what = state.mode === "col" ? D.t("bm_col_word", { c: state.index }) : D.t("bm_row_word", { r: state.index });
      f.caption.replaceChildren(
        D.el("span", { "data-testid": "bm-summary", "data-cycles": res.cycles, class: res.cycles > 1 ? "bad" : "good",
          text: D.t("bm_summary", { n: L.banks, what: what, k: res.cycles, b: res.bank }) + " " +
            (res.cycles > 1 ? D.t("bm_conflict", { k: res.cycles }) : D.t("bm_free")) }));
    }

    clampIndex();
    draw();
    D.onLang(draw);
    return { draw: draw };
  };

  D.bankMath = { access: access, cycles: cycles, LAYOUTS: LAYOUTS };
})();

// G1 figure: the m16n8k16 fragments of mma.sync (PTX ISA, "Matrix fragments for mma.m16n8k16 with
// floating point type"). Pick a lane: its elements of A (16×16, 4 registers of two halves), B (16×8,
// 2 registers, read down a column) and C (16×8, 4 floats) light up; pick an element: its lane and
// register are named. g = lane / 4, t = lane % 4.
(function () {
  "use strict";
  const D = window.Drills;

  // Which (lane, register, half) holds element (r, c) of each operand.
  function ownerA(r, c) {
    const g = r % 8, t = (c % 8) >> 1;
    return { lane: 4 * g + t, reg: (r >= 8 ? 1 : 0) + (c >= 8 ? 2 : 0), half: c % 2 };
  }
  function ownerB(k, n) {  // B is K×N = 16×8: a lane holds two neighbouring k of column n
    const g = n, t = (k % 8) >> 1;
    return { lane: 4 * g + t, reg: k >= 8 ? 1 : 0, half: k % 2 };
  }
  function ownerC(r, c) {
    const g = r % 8, t = c >> 1;
    return { lane: 4 * g + t, reg: (r >= 8 ? 2 : 0) + (c % 2), half: 0 };
  }
  const OPERANDS = [
    { key: "A", rows: 16, cols: 16, owner: ownerA, regName: function (o) { return "a" + o.reg + (o.half ? ".hi" : ".lo"); } },
    { key: "B", rows: 16, cols: 8, owner: ownerB, regName: function (o) { return "b" + o.reg + (o.half ? ".hi" : ".lo"); } },
    { key: "C", rows: 16, cols: 8, owner: ownerC, regName: function (o) { return "c" + o.reg; } },
  ];

  D.figures["fragment-layout"] = function (container) {
    const state = { lane: 5 };
    const f = D.figureFrame(container, "fl_title");
    const laneInput = D.el("input", { type: "number", min: 0, max: 31, value: state.lane, "data-testid": "fl-lane",
      oninput: function () { state.lane = Math.max(0, Math.min(31, parseInt(laneInput.value, 10) || 0)); draw(); } });
    f.controls.append(D.labelled("fl_lane", laneInput));
    f.controls.after(D.el("p", { class: "fig-help", "data-i18n": "fl_pick", text: D.t("fl_pick") }));

    function draw() {
      const cell = 18, gap = 36, top = 30, left = 24;
      let x = left;
      const svg = D.svg("svg", { class: "fragment-layout", role: "img", "aria-label": D.t("fl_title") });
      const held = [];
      OPERANDS.forEach(function (op) {
        svg.appendChild(D.svg("text", { x: x, y: top - 10, "font-size": 13, class: "axis", text: op.key }));
        for (let r = 0; r < op.rows; r++) {
          for (let c = 0; c < op.cols; c++) {
            const o = op.owner(r, c);
            const mine = o.lane === state.lane;
            if (mine) held.push(op.key + "[" + r + "][" + c + "] → " + op.regName(o));
            svg.appendChild(D.svg("g", { class: "fl-cell" + (mine ? " picked" : ""), "data-op": op.key, "data-row": r, "data-col": c, "data-lane": o.lane,
              onclick: function () { state.lane = o.lane; laneInput.value = o.lane; draw(); } },
              D.svg("rect", { x: x + c * cell, y: top + r * cell, width: cell, height: cell,
                fill: D.hue(o.lane % 4 * 8 + (o.lane >> 2), 32, mine ? 55 : 88) }),
              D.svg("text", { x: x + c * cell + cell / 2, y: top + r * cell + cell * 0.68, "font-size": 8, "text-anchor": "middle", text: o.lane })));
          }
        }
        x += op.cols * cell + gap;
      });
      svg.setAttribute("viewBox", "0 0 " + x + " " + (top + 16 * cell + 10));
      f.drawing.replaceChildren(svg);
      const g = state.lane >> 2, t = state.lane % 4;
      f.caption.replaceChildren(D.el("span", { "data-testid": "fl-summary", "data-lane": state.lane,
        text: D.t("fl_summary", { lane: state.lane, g: g, t: t }) + " " + held.join(", ") }));
    }

    draw();
    D.onLang(draw);
    return { draw: draw };
  };

  D.fragmentMath = { ownerA: ownerA, ownerB: ownerB, ownerC: ownerC };
})();

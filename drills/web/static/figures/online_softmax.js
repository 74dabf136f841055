// C5 figure: the online softmax of one row, one element at a time. The running maximum m and the
// sum d taken against it; when x raises the maximum, d is first multiplied by e^(old - new). Beside
// it, the sum of a version that forgets that rescaling, which keeps growing. After the last element:
// y = e^(x - m) / d, and the factor by which the forgetful version is off (the same for every y).
(function () {
  "use strict";
  const D = (typeof window !== "undefined" && window.Drills) || {};
  const DEFAULT = [1, 3, 2, 6, 4, 5.5];  // the chapter's example (content/c5.md, figure 1)
  const MAX_VALUES = 16;

  // Every step of the online update over xs: {k, x, m, factor (null on the first), d, dNoRescale}.
  function steps(xs) {
    const out = [];
    let m = -Infinity, d = 0, mBad = -Infinity, dBad = 0;
    xs.forEach(function (x, i) {
      const mNew = Math.max(m, x);
      const factor = i === 0 ? null : Math.exp(m - mNew);
      d = (i === 0 ? 0 : d * factor) + Math.exp(x - mNew);
      m = mNew;
      mBad = Math.max(mBad, x);
      dBad = dBad + Math.exp(x - mBad);
      out.push({ k: i + 1, x: x, m: m, factor: factor, d: d, dNoRescale: dBad });
    });
    return out;
  }

  // "1, 3, 2" -> [1, 3, 2]; null when the text is not 1..16 finite numbers.
  function parse(text) {
    const parts = String(text).split(/[\s,;]+/).filter(function (s) { return s.length; });
    if (!parts.length || parts.length > MAX_VALUES) return null;
    const xs = parts.map(Number);
    return xs.every(function (v) { return isFinite(v); }) ? xs : null;
  }

  function fmt(v) { return v === null ? "—" : Math.abs(v) >= 1000 ? v.toExponential(3) : v.toFixed(4); }

  if (typeof module !== "undefined") module.exports = { steps: steps, parse: parse };  // node tests
  if (!D.figures) return;

  D.figures["online-softmax"] = function (container) {
    const state = { xs: DEFAULT.slice(), done: 0 };
    let all = steps(state.xs);
    const f = D.figureFrame(container, "os_title");
    f.controls.before(D.el("p", { class: "fig-help", "data-i18n": "os_intro", text: D.t("os_intro") }));
    const input = D.el("input", { type: "text", value: state.xs.join(", "), size: 40, "data-testid": "os-input",
      onchange: function () {
        const xs = parse(input.value);
        input.classList.toggle("bad", !xs);
        if (!xs) return;
        state.xs = xs, state.done = 0, all = steps(xs);
        draw();
      } });
    function button(key, testid, fn) {
      return D.el("button", { type: "button", "data-i18n": key, "data-testid": testid, text: D.t(key), onclick: function () { fn(); draw(); } });
    }
    const stepButton = button("os_step", "os-step", function () { state.done = Math.min(all.length, state.done + 1); });
    f.controls.append(D.labelled("os_values", input), D.el("span", { class: "fig-buttons" }, stepButton,
      button("os_all", "os-all", function () { state.done = all.length; }),
      button("os_reset", "os-reset", function () { state.done = 0; })));
    const counters = D.el("div", { class: "fig-counters", "data-testid": "os-counters" });
    f.drawing.before(counters);
    const table = D.el("table", { class: "ts-table os-table", "data-testid": "os-table" });
    f.drawing.after(table);

    function counter(testid, key, value, cls) {
      return D.el("span", { class: "fig-counter" + (cls ? " " + cls : ""), "data-testid": testid, "data-value": value },
        D.el("span", { class: "fig-counter-label", text: D.t(key) }), " ", D.el("b", { text: value }));
    }

    function draw() {
      const cur = state.done ? all[state.done - 1] : null;
      stepButton.disabled = state.done >= all.length;
      const finished = state.done === all.length;
      counters.replaceChildren(
        counter("os-k", "os_c_k", state.done + " / " + all.length),
        counter("os-m", "os_c_m", cur ? fmt(cur.m) : "—"),
        counter("os-d", "os_c_d", cur ? fmt(cur.d) : "—", finished ? "good" : null),
        counter("os-bad", "os_c_bad", cur ? fmt(cur.dNoRescale) : "—", cur && Math.abs(cur.dNoRescale - cur.d) > 1e-12 ? "bad" : null),
        counter("os-off", "os_c_off", finished ? fmt(all[all.length - 1].d / all[all.length - 1].dNoRescale) : "—"));

      // Bars: each x relative to the row's range; the running maximum as a line across the seen part.
      const n = state.xs.length, bw = 36, gap = 6, left = 40, top = 16, h = 150;
      const lo = Math.min.apply(null, state.xs), hi = Math.max.apply(null, state.xs);
      const span = hi - lo || 1;
      const y = function (v) { return top + h - ((v - lo) / span) * (h - 20) - 10; };
      const W = left + n * (bw + gap) + 10, H = top + h + 70;
      const svg = D.svg("svg", { viewBox: "0 0 " + W + " " + H, class: "online-softmax", role: "img", "aria-label": D.t("os_title") });
      svg.appendChild(D.svg("line", { x1: left - 4, y1: top + h, x2: W - 4, y2: top + h, class: "axis" }));
      state.xs.forEach(function (x, i) {
        const cx = left + i * (bw + gap), seen = i < state.done, now = i === state.done - 1;
        const raised = now && cur.factor !== null && cur.factor < 1;
        svg.appendChild(D.svg("rect", { x: cx, y: y(x), width: bw, height: top + h - y(x), rx: 3,
          class: "os-bar" + (seen ? " seen" : "") + (now ? " current" : "") + (raised ? " raised" : ""), "data-index": i }));
        svg.appendChild(D.svg("text", { x: cx + bw / 2, y: y(x) - 4, "font-size": 11, "text-anchor": "middle", text: x }));
        if (finished) {
          const last = all[all.length - 1];
          svg.appendChild(D.svg("text", { x: cx + bw / 2, y: top + h + 16, "font-size": 10, "text-anchor": "middle",
            class: "os-y", "data-index": i, text: (Math.exp(x - last.m) / last.d).toFixed(4) }));
        }
      });
      if (cur) {
        const x1 = left + state.done * (bw + gap) - gap;
        svg.appendChild(D.svg("line", { x1: left - 4, y1: y(cur.m), x2: x1, y2: y(cur.m), class: "os-max", "data-testid": "os-max" }));
        svg.appendChild(D.svg("text", { x: 2, y: y(cur.m) + 4, "font-size": 11, class: "os-max-label", text: "m" }));
      }
      svg.appendChild(D.svg("text", { x: left, y: top + h + 36, "font-size": 11, class: "axis",
        text: finished ? D.t("os_result") : cur && cur.factor !== null && cur.factor < 1 ? D.t("os_rescaled", { f: fmt(cur.factor) }) : "" }));
      f.drawing.replaceChildren(svg);

      table.replaceChildren(
        D.el("thead", null, D.el("tr", null, ["os_col_k", "os_col_x", "os_col_m", "os_col_factor", "os_col_d", "os_col_bad"]
          .map(function (k) { return D.el("th", { text: D.t(k) }); }))),
        D.el("tbody", null, all.map(function (s, i) {
          const done = i < state.done;
          return D.el("tr", { class: (i === state.done - 1 ? "active" : "") + (done ? "" : " pending"), "data-step": s.k },
            D.el("td", { text: String(s.k) }), D.el("td", { class: "num", text: String(s.x) }),
            D.el("td", { class: "num", text: done ? String(s.m) : "" }),
            D.el("td", { class: "num", text: done ? fmt(s.factor) : "" }),
            D.el("td", { class: "num", text: done ? fmt(s.d) : "" }),
            D.el("td", { class: "num", text: done ? fmt(s.dNoRescale) : "" }));
        })));
      f.caption.textContent = D.t("os_caption");
    }
    D.onLang(draw);
    draw();
  };
})();

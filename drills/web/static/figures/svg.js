// SVG helpers shared by the figures.
(function () {
  "use strict";
  const NS = "http://www.w3.org/2000/svg";
  const D = window.Drills;

  D.svg = function (tag, attrs) {
    const node = document.createElementNS(NS, tag);
    for (const k in attrs || {}) {
      const v = attrs[k];
      if (v === undefined || v === null || v === false) continue;
      if (k.slice(0, 2) === "on") node.addEventListener(k.slice(2), v);
      else if (k === "text") node.textContent = v;
      else node.setAttribute(k, v);
    }
    for (let i = 2; i < arguments.length; i++) {
      const c = arguments[i];
      if (c) (Array.isArray(c) ? c : [c]).forEach(function (x) { if (x) node.appendChild(x); });
    }
    return node;
  };

  // One hue per bank (or sector), spread round the colour wheel; light enough to read a number on.
  D.hue = function (i, n, light) {
    return "hsl(" + Math.round((i * 360) / n) % 360 + ", 65%, " + (light || 80) + "%)";
  };

  // An arrowhead for line ends (marker-end="url(#id)"), in one colour: one marker per colour used.
  D.arrowMarker = function (id, colour, size) {
    return D.svg("marker", { id: id, viewBox: "0 0 8 8", refX: 7, refY: 4, markerWidth: size, markerHeight: size, orient: "auto" },
      D.svg("path", { d: "M0,0 L8,4 L0,8 z", fill: colour }));
  };

  // A figure's frame: a titled box with a control row, a drawing and a caption.
  D.figureFrame = function (container, titleKey) {
    container.textContent = "";
    container.classList.add("fig");
    const title = D.el("h3", { class: "fig-title", "data-i18n": titleKey, text: D.t(titleKey) });
    const controls = D.el("div", { class: "fig-controls" });
    const drawing = D.el("div", { class: "fig-drawing" });
    const caption = D.el("p", { class: "fig-caption" });
    container.append(title, controls, drawing, caption);
    return { controls: controls, drawing: drawing, caption: caption };
  };

  // A <select> whose option labels follow the language; options: [[value, i18nKey], ...].
  D.select = function (testid, options, value, onchange) {
    const sel = D.el("select", { "data-testid": testid, onchange: function () { onchange(sel.value); } });
    options.forEach(function (o) {
      sel.appendChild(D.el("option", { value: o[0], "data-i18n": o[2] ? null : o[1], text: o[2] ? o[1] : D.t(o[1]) }));
    });
    sel.value = value;
    return sel;
  };

  D.labelled = function (key, control) {
    return D.el("label", { class: "fig-field" }, D.el("span", { "data-i18n": key, text: D.t(key) }), control);
  };
})();

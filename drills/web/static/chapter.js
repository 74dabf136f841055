// The chapter: its math (KaTeX from Debian's libjs-katex when installed; else the TeX stays as plain
// text), its code blocks (coloured like the editor), its figures, and the language toggle, which
// swaps in the chapter of the other language (content/cN.md or content/en/cN.md).
(function () {
  "use strict";
  const D = window.Drills;

  D.renderChapter = function (root) {
    root.querySelectorAll(".math").forEach(function (node) {
      const tex = node.textContent, display = node.getAttribute("data-display") === "1";
      if (!window.katex) { node.classList.add("math-plain"); return; }
      try {
        window.katex.render(tex, node, { displayMode: display, throwOnError: false });
      } catch (e) {
        node.textContent = tex;
        node.classList.add("math-plain");
      }
    });
    if (D.highlightCode) D.highlightCode(root);
  };

  // Typeset the chapter and draw each figure at its placeholder. `keep` maps a figure's name to a node
  // already drawn (by the chapter in the other language): it takes the placeholder's place, so a
  // figure keeps its state across the language toggle (its own listener retranslates it).
  D.mountChapter = function (root, keep) {
    D.renderChapter(root);
    root.querySelectorAll(".figure[data-figure]").forEach(function (node) {
      const name = node.getAttribute("data-figure");
      const drawn = keep && keep[name];
      if (drawn) { node.replaceWith(drawn); delete keep[name]; return; }
      const make = D.figures[name];
      if (make) make(node);
      else node.appendChild(D.el("p", { class: "note", text: D.t("unknown_figure", { name: name }) }));
    });
  };

  // On the problem page, the toggle also fetches the chapter in the new language. A late answer for
  // a language the reader has already left is dropped.
  D.followLang = function (root, number) {
    root.setAttribute("data-lang", D.lang);
    D.onLang(function (lang) {
      if (root.getAttribute("data-lang") === lang) return;
      fetch("/api/chapter/" + number + "?lang=" + encodeURIComponent(lang), { credentials: "same-origin" })
        .then(function (res) { return res.ok ? res.json() : null; })
        .then(function (data) {
          if (!data || data.lang !== D.lang) return;
          const keep = {};
          root.querySelectorAll(".figure[data-figure]").forEach(function (node) {
            keep[node.getAttribute("data-figure")] = node;
            node.remove();
          });
          root.innerHTML = data.html;
          root.setAttribute("data-lang", data.lang);
          root.setAttribute("lang", data.lang === "zh" ? "zh-CN" : "en");
          D.mountChapter(root, keep);
        });
    });
  };
})();

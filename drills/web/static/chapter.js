// The chapter's math (KaTeX from Debian's libjs-katex when installed; else the TeX stays as plain
// text) and its code blocks (coloured like the editor).
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
})();

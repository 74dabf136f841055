// The editor on the learner's file: CodeMirror (Debian's libjs-codemirror) when it is installed, a plain
// textarea otherwise. Either way the page talks to it through the same few functions.
(function () {
  "use strict";
  const D = window.Drills;

  function defineCuda(CM) {
    if (CM.mimeModes["text/x-cuda"]) return;
    const base = CM.resolveMode("text/x-c++src");
    const words = function (s) { const o = {}; s.split(" ").forEach(function (w) { o[w] = true; }); return o; };
    CM.defineMIME("text/x-cuda", Object.assign({}, base, {
      keywords: Object.assign({}, base.keywords, words("__global__ __device__ __host__ __shared__ __constant__ __restrict__ " +
        "__launch_bounds__ __forceinline__ __noinline__ constexpr")),
      builtin: Object.assign({}, base.builtin || {}, words("threadIdx blockIdx blockDim gridDim warpSize dim3 __syncthreads " +
        "__syncwarp __shfl_sync __shfl_down_sync __shfl_xor_sync __ldg atomicAdd cudaMalloc cudaMemcpy cudaFree cudaMemset " +
        "float2 float4 int2 int4")),
    }));
  }

  // Chapter code blocks get the same colours, through CodeMirror's runmode addon.
  D.highlightCode = function (root) {
    const CM = window.CodeMirror;
    if (!CM || !CM.runMode) return;
    defineCuda(CM);
    root.querySelectorAll("pre > code").forEach(function (code) {
      const lang = (code.className.match(/language-(\S+)/) || [])[1] || "";
      const mode = /^(cu|cuda|c\+\+|cpp|c|h)$/.test(lang) ? "text/x-cuda" : /^py|python$/.test(lang) ? "python" : null;
      if (!mode || (mode === "python" && !CM.modes.python)) return;
      const src = code.textContent;
      code.textContent = "";
      code.classList.add("cm-s-default");
      CM.runMode(src, mode, code);
    });
  };

  D.makeEditor = function (textarea, initial, handlers) {
    textarea.value = initial;
    const CM = window.CodeMirror;
    if (!CM) return plainEditor(textarea, handlers);
    defineCuda(CM);
    const keys = {};
    keys["Ctrl-S"] = keys["Cmd-S"] = function () { handlers.save(); };
    keys["Ctrl-Enter"] = keys["Cmd-Enter"] = function () { handlers.run(); };
    const cm = CM.fromTextArea(textarea, {
      mode: "text/x-cuda", lineNumbers: true, indentUnit: 2, tabSize: 2, styleActiveLine: true, matchBrackets: true,
      gutters: ["CodeMirror-linenumbers", "drills-marks"], extraKeys: keys, viewportMargin: Infinity,
    });
    let clean = cm.changeGeneration(), marked = [];
    cm.on("change", function () { handlers.change(); });
    cm.on("gutterClick", function (_cm, line, gutter) {
      if (gutter === "drills-marks" && handlers.gutterClick) handlers.gutterClick(line + 1);
    });
    return {
      cm: cm,
      getText: function () { return cm.getValue(); },
      isClean: function () { return cm.isClean(clean); },
      setText: function (text) { cm.setValue(text); clean = cm.changeGeneration(); },
      markClean: function () { clean = cm.changeGeneration(); },
      // marks: [{line, diagnoses: [...], counters: [...]}] (1-based lines)
      setMarks: function (marks) {
        cm.clearGutter("drills-marks");
        marked.forEach(function (h) { cm.removeLineClass(h, "background"); });
        marked = [];
        marks.forEach(function (m) {
          if (m.line < 1 || m.line > cm.lineCount()) return;
          const diag = m.diagnoses.length > 0, bad = m.counters.some(function (c) { return c.bad; });
          const title = m.diagnoses.map(function (d) { return d.id + ": " + D.resultText(d.message); })
            .concat(m.counters.map(function (c) {
              return c.kernel + " · " + c.rows.map(function (r) { return r.access + " " + D.fmt(r.per) + "/" + D.fmt(r.ideal); }).join(", ");
            })).join("\n");
          const badge = D.el("span", { class: "gutter-mark " + (diag ? "mark-diag" : bad ? "mark-bad" : "mark-ok"),
            "data-line": m.line, title: title, text: diag ? "!" : bad ? "▲" : "●" });
          cm.setGutterMarker(m.line - 1, "drills-marks", badge);
          if (diag) marked.push(cm.addLineClass(m.line - 1, "background", "diag-line"));
          else if (bad) marked.push(cm.addLineClass(m.line - 1, "background", "counter-bad-line"));
        });
      },
      gotoLine: function (line) {
        const l = Math.max(0, Math.min(cm.lineCount() - 1, line - 1));
        cm.setCursor({ line: l, ch: 0 });
        cm.scrollIntoView({ line: l, ch: 0 }, 80);
        cm.focus();
        const h = cm.addLineClass(l, "wrap", "flash-line");
        setTimeout(function () { cm.removeLineClass(h, "wrap", "flash-line"); }, 1200);
      },
      // Scroll a line into view without moving the cursor or taking focus.
      reveal: function (line) {
        const l = Math.max(0, Math.min(cm.lineCount() - 1, line - 1));
        cm.scrollIntoView({ line: l, ch: 0 }, 60);
      },
      refresh: function () { cm.refresh(); },
    };
  };

  function plainEditor(textarea, handlers) {
    let clean = textarea.value;
    textarea.classList.add("plain-editor");
    textarea.addEventListener("input", function () { handlers.change(); });
    textarea.addEventListener("keydown", function (ev) {
      if ((ev.ctrlKey || ev.metaKey) && ev.key === "s") { ev.preventDefault(); handlers.save(); }
      if ((ev.ctrlKey || ev.metaKey) && ev.key === "Enter") { ev.preventDefault(); handlers.run(); }
    });
    return {
      cm: null,
      getText: function () { return textarea.value; },
      isClean: function () { return textarea.value === clean; },
      setText: function (text) { textarea.value = text; clean = text; },
      markClean: function () { clean = textarea.value; },
      setMarks: function () {},
      gotoLine: function (line) {
        const lines = textarea.value.split("\n");
        const start = lines.slice(0, line - 1).join("\n").length + (line > 1 ? 1 : 0);
        textarea.focus();
        textarea.setSelectionRange(start, start + (lines[line - 1] || "").length);
      },
      reveal: function () {},
      refresh: function () {},
    };
  }
})();

// The problem page: chapter and figures, the editor, Save/Run, hints, the result.
(function () {
  "use strict";
  const D = window.Drills, P = D.boot.problem;
  const $ = function (id) { return document.getElementById(id); };
  const chapter = $("chapter"), resultBox = $("result"), saveState = $("save-state");
  const runButton = $("run"), saveButton = $("save");
  let lastResult = P.result, running = false, stateKey = "", stateExtra = "";

  // Narrow windows show one pane at a time; wide ones show both and ignore the tabs.
  function showTab(name) {
    document.body.classList.toggle("show-chapter", name === "chapter");
    document.body.classList.toggle("show-code", name === "code");
    document.querySelectorAll(".tabs [data-tab]").forEach(function (b) { b.setAttribute("aria-selected", String(b.dataset.tab === name)); });
    if (name === "code") editor.refresh();
  }
  document.querySelectorAll(".tabs [data-tab]").forEach(function (b) {
    b.addEventListener("click", function () { showTab(b.dataset.tab); });
  });
  function narrow() { return window.matchMedia("(max-width: 900px)").matches; }

  D.mountChapter(chapter);
  D.followLang(chapter, P.number);

  const editor = D.makeEditor($("editor"), P.text, {
    change: function () { setState(editor.isClean() ? "" : "unsaved"); },
    save: function () { save(); },
    run: function () { run(); },
    gutterClick: function (line) {
      const e = D.lineCounters(lastResult).find(function (x) { return x.line === line && x.sample && D.isMine(x.file, lastResult); });
      if (e) selectLens(e.key);
    },
  });

  function setState(key, extra) {
    stateKey = key; stateExtra = extra || "";
    saveState.textContent = (key ? D.t(key) : "") + (stateExtra ? " " + stateExtra : "");
    saveState.className = "save-state" + (key ? " state-" + key : "");
  }

  // The version of the file on disk this page last loaded or saved (see learner_file.digest).
  let base = P.base;
  const conflictBar = $("conflict");

  // The file changed on disk since the page loaded it: the learner chooses which text to keep.
  function showConflict(data, retry) {
    setState("");
    conflictBar.hidden = false;
    conflictBar.replaceChildren(
      D.el("span", { "data-i18n": "conflict", text: D.t("conflict") }), " ",
      D.el("button", { type: "button", "data-testid": "conflict-load", "data-i18n": "conflict_load", text: D.t("conflict_load"),
        onclick: function () { conflictBar.hidden = true; editor.setText(data.disk); base = data.disk_base; setState("loaded"); } }), " ",
      D.el("button", { type: "button", "data-testid": "conflict-keep", "data-i18n": "conflict_keep", text: D.t("conflict_keep"),
        onclick: function () { conflictBar.hidden = true; retry(true); } }));
  }

  function save(force) {
    const text = editor.getText();
    return D.api("POST", "/api/save", { problem: P.number, text: text, base: base, force: force === true }).then(function (r) {
      if (r.ok) { editor.markClean(); base = r.data.base; setState(r.data.saved ? "saved" : "unchanged"); }
      else if (r.data.conflict) showConflict(r.data, save);
      else setState("save_failed", r.data.error || String(r.status));
      return r.ok;
    }, function (err) { setState("save_failed", String(err)); return false; });
  }

  function run(force) {
    if (running) return;
    running = true;
    runButton.disabled = true;
    runButton.textContent = D.t("running");
    const started = Date.now();
    const tick = setInterval(function () { setState("running", Math.round((Date.now() - started) / 1000) + " s"); }, 1000);
    setState("running");
    resultBox.classList.add("stale");
    D.api("POST", "/api/run", { problem: P.number, text: editor.getText(), base: base, force: force === true }).then(function (r) {
      if (r.ok) {
        editor.markClean();
        base = r.data.base;
        lastResult = r.data.result;
        setState("saved");
        showResult();
        // Bring the verdict into view (in a narrow window it sits below the editor).
        const verdict = resultBox.querySelector(".verdict");
        if (verdict) verdict.scrollIntoView({ block: "nearest" });
        // And the first line a diagnosis names, so its gutter mark is on screen.
        const first = D.gutterMarks(lastResult).filter(function (m) { return m.diagnoses.length; })[0];
        if (first) editor.reveal(first.line);
      } else if (r.data.conflict) {
        showConflict(r.data, run);
      } else {
        setState(r.status === 409 ? "busy" : "save_failed", r.status === 409 ? "" : (r.data.error || String(r.status)));
      }
    }, function (err) { setState("save_failed", String(err)); }).then(function () {
      clearInterval(tick);
      running = false;
      runButton.disabled = false;
      runButton.textContent = D.t("run");
      resultBox.classList.remove("stale");
    });
  }
  saveButton.addEventListener("click", function () { save(); });
  runButton.addEventListener("click", function () { run(); });
  // Ctrl-S anywhere on the page saves the learner's file rather than the web page. In the editor,
  // the editor's own key map already saved (and prevented the default): saving twice would race,
  // and the second answer ("unchanged") would replace the first ("saved").
  document.addEventListener("keydown", function (ev) {
    if (ev.defaultPrevented) return;
    if ((ev.ctrlKey || ev.metaKey) && ev.key === "s") { ev.preventDefault(); save(); }
  });
  window.addEventListener("beforeunload", function (ev) {
    if (!editor.isClean()) { ev.preventDefault(); ev.returnValue = ""; }
  });

  function selectLens(key) {
    if (narrow()) showTab("chapter");
    (D.lenses || []).some(function (lens) { return lens.select(key); });
  }
  const ctx = {
    gotoLine: function (line) { if (narrow()) showTab("code"); editor.gotoLine(line); },
    selectLens: selectLens,
  };

  function showResult() {
    D.renderResult(resultBox, lastResult, ctx);
    editor.setMarks(D.gutterMarks(lastResult));
    (D.lenses || []).forEach(function (lens) { lens.update(lastResult); });
  }

  // Hints, one at a time; the count is kept in the progress file, shared with `judge.py hint`.
  let hintsShown = Math.min(P.hints_shown || 0, P.hints.length);
  function drawHints() {
    $("hint-list").replaceChildren.apply($("hint-list"), P.hints.slice(0, hintsShown).map(function (h) {
      return D.el("li", { class: "hint", text: h[D.lang] || h.zh });
    }));
    const all = hintsShown >= P.hints.length;
    $("next-hint").disabled = all;
    $("next-hint").textContent = D.t(all ? "no_more_hints" : "next_hint");
  }
  $("next-hint").addEventListener("click", function () {
    D.api("POST", "/api/hint", { problem: P.number }).then(function (r) {
      if (r.ok) { hintsShown = Math.min(r.data.hints_shown, P.hints.length); drawHints(); }
    });
  });
  $("show-solution").addEventListener("click", function () {
    D.api("GET", "/api/solution/" + P.number).then(function (r) {
      const note = $("solution-note"), pre = $("solution-text");
      if (!r.ok) { note.hidden = false; note.textContent = D.t("solution_locked"); return; }
      note.hidden = true;
      pre.hidden = false;
      pre.replaceChildren(D.el("code", { class: "language-cuda", text: r.data.text }));
      if (D.highlightCode) D.highlightCode(pre.parentNode);
    });
  });

  D.onLang(function () {
    showResult();
    drawHints();
    if (stateKey) setState(stateKey, stateExtra);
    if (running) runButton.textContent = D.t("running");
  });
  showTab("chapter");
  drawHints();
  showResult();
})();

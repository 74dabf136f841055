// Shared by every page: the boot data, the two languages, DOM and API helpers.
(function () {
  "use strict";
  const boot = JSON.parse(document.getElementById("drills-boot").textContent);
  const listeners = [];
  const D = (window.Drills = { boot: boot, lang: boot.lang, figures: {} });

  D.t = function (key, vars) {
    let s = (boot.strings[D.lang] || {})[key];
    if (s === undefined) s = key;
    for (const k in vars || {}) s = s.split("{" + k + "}").join(String(vars[k]));
    return s;
  };

  // Callbacks that redraw text which is not a plain [data-i18n] element (figures, the result panel).
  D.onLang = function (fn) { listeners.push(fn); };

  function applyLang() {
    document.documentElement.lang = D.lang === "zh" ? "zh-CN" : "en";
    document.querySelectorAll("[data-i18n]").forEach(function (el) {
      el.textContent = D.t(el.getAttribute("data-i18n"));
    });
    document.querySelectorAll("[data-title-zh]").forEach(function (el) {
      const prefix = el.id === "problem-title" ? "#" + boot.problem.number + " " : "";
      el.textContent = prefix + (el.getAttribute("data-title-" + D.lang) || el.getAttribute("data-title-zh"));
    });
    listeners.forEach(function (fn) { fn(D.lang); });
  }

  D.setLang = function (lang) {
    D.lang = lang;
    document.cookie = "drills_lang=" + lang + "; path=/; SameSite=Strict";
    applyLang();
  };

  // el("div", {class: "x", onclick: f}, child, "text", ...): a small DOM builder, so no markup is
  // ever built from strings the judge or the learner produced.
  D.el = function (tag, attrs) {
    const node = document.createElement(tag);
    for (const k in attrs || {}) {
      const v = attrs[k];
      if (v === undefined || v === null || v === false) continue;
      if (k.slice(0, 2) === "on") node.addEventListener(k.slice(2), v);
      else if (k === "text") node.textContent = v;
      else node.setAttribute(k, v === true ? "" : v);
    }
    for (let i = 2; i < arguments.length; i++) append(node, arguments[i]);
    return node;
  };
  function append(node, child) {
    if (child === undefined || child === null || child === false) return;
    if (Array.isArray(child)) child.forEach(function (c) { append(node, c); });
    else node.appendChild(typeof child === "string" || typeof child === "number" ? document.createTextNode(String(child)) : child);
  }

  // Every state-changing request repeats the token in a header: a cross-site form cannot set one.
  D.api = function (method, url, body) {
    return fetch(url, {
      method: method,
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-Drills-Token": boot.token },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then(function (res) {
      return res.json().catch(function () { return {}; }).then(function (data) {
        return { ok: res.ok, status: res.status, data: data };
      });
    });
  };

  document.addEventListener("DOMContentLoaded", function () {
    const toggle = document.getElementById("lang-toggle");
    if (toggle) toggle.addEventListener("click", function () { D.setLang(D.lang === "zh" ? "en" : "zh"); });
  });
})();

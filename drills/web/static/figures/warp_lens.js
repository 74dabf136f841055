// Figure (c): the learner's own warp. From the last result's per-line samples (one warp-level memory
// instruction per source line, recorded by the simulator), draw the 32 lanes' addresses and the
// 32-byte sectors (global) or banks (shared) they hit.
(function () {
  "use strict";
  const D = window.Drills;
  const SECTOR = 32, BANKS = 32, WORD = 4;

  function activeLanes(sample) {
    const mask = sample.active_mask === undefined ? 0xffffffff : sample.active_mask >>> 0;
    const lanes = [];
    (sample.address || []).forEach(function (a, i) {
      lanes.push({ lane: i, addr: Number(a), active: ((mask >>> i) & 1) === 1 });
    });
    return lanes;
  }

  // Global: the distinct sectors the active lanes touch (a lane's bytes may straddle two).
  function sectors(sample, lanes) {
    const bytes = sample.bytes_per_lane || 4, set = new Set();
    lanes.forEach(function (l) {
      if (!l.active) return;
      l.sectors = [];
      for (let s = Math.floor(l.addr / SECTOR); s <= Math.floor((l.addr + bytes - 1) / SECTOR); s++) { set.add(s); l.sectors.push(s); }
    });
    const list = Array.from(set).sort(function (a, b) { return a - b; });
    const active = lanes.filter(function (l) { return l.active; }).length;
    return { list: list, ideal: Math.ceil((active * bytes) / SECTOR) };
  }

  // Shared: bank of each 4-byte word; wavefronts = the most distinct words one bank must serve.
  function banks(sample, lanes) {
    const perBank = [];
    for (let b = 0; b < BANKS; b++) perBank.push(new Set());
    const bytes = sample.bytes_per_lane || 4;
    lanes.forEach(function (l) {
      if (!l.active) return;
      l.banks = [];
      for (let w = Math.floor(l.addr / WORD); w <= Math.floor((l.addr + bytes - 1) / WORD); w++) {
        perBank[w % BANKS].add(w);
        l.banks.push(w % BANKS);
      }
    });
    const counts = perBank.map(function (s) { return s.size; });
    return { counts: counts, worst: Math.max.apply(null, counts) };
  }

  D.figures["warp-lens"] = function (container) {
    const f = D.figureFrame(container, "wl_title");
    const state = { result: null, key: null };
    const sel = D.el("select", { "data-testid": "wl-line", onchange: function () { state.key = sel.value; draw(); } });
    f.controls.append(D.labelled("wl_line", sel));
    const details = D.el("details", { class: "wl-details" });
    f.caption.after(details);

    function entries() {
      return (D.lineCounters(state.result) || []).filter(function (e) { return e.sample && e.sample.address; });
    }

    function draw() {
      const list = entries();
      sel.replaceChildren();
      if (!state.result || !list.length) {
        sel.disabled = true;
        f.drawing.replaceChildren(D.el("p", { class: "fig-empty", "data-testid": "wl-empty",
          text: D.t(state.result ? "wl_no_samples" : "wl_run_first") }));
        f.caption.replaceChildren();
        details.replaceChildren();
        details.hidden = true;
        return;
      }
      sel.disabled = false;
      list.forEach(function (e) {
        // The kernel's name without its parameter list: the option has to fit a narrow window.
        sel.appendChild(D.el("option", { value: e.key, text: D.t("line", { n: e.line }) + " · " + e.sample.space + " " + e.sample.op + " · " + e.kernel.replace(/\(.*$/, "") }));
      });
      if (!list.some(function (e) { return e.key === state.key; })) state.key = list[0].key;
      sel.value = state.key;
      drawEntry(list.find(function (e) { return e.key === state.key; }));
    }

    function drawEntry(e) {
      const s = e.sample, lanes = activeLanes(s), shared = s.space === "shared";
      const svg = D.svg("svg", { class: "warp-lens", role: "img", "aria-label": D.t("wl_title") });
      let summary, targets, targetOf, targetLabel, targetCount;
      if (shared) {
        const b = banks(s, lanes);
        targets = []; for (let i = 0; i < BANKS; i++) targets.push(i);
        targetOf = function (l) { return l.banks; };
        targetLabel = function (t) { return String(t); };
        targetCount = function (t) { return b.counts[t]; };
        summary = D.t("wl_shared_summary", { space: s.space, op: s.op, b: s.bytes_per_lane, a: lanes.filter(function (l) { return l.active; }).length, k: b.worst });
        svg.dataset.wavefronts = b.worst;
      } else {
        const sec = sectors(s, lanes);
        targets = sec.list;
        targetOf = function (l) { return l.sectors; };
        targetLabel = function (t) { return "+" + (t - sec.list[0]); };
        targetCount = function (t) { return lanes.filter(function (l) { return l.active && l.sectors.indexOf(t) >= 0; }).length; };
        summary = D.t("wl_global_summary", { space: s.space, op: s.op, b: s.bytes_per_lane, a: lanes.filter(function (l) { return l.active; }).length, s: sec.list.length, i: sec.ideal });
        svg.dataset.sectors = sec.list.length;
      }
      // One row of 32 lanes on top, the targets (sectors or banks) in one row below, a line for each
      // lane-to-target access: the picture of a coalesced access is a tidy fan, a conflict a knot.
      const laneW = 19, top = 22, tTop = 150, W = 32 * laneW + 20;
      const tSpace = (W - 20) / Math.max(targets.length, 1), tW = Math.min(tSpace - 1, 44);
      svg.setAttribute("viewBox", "0 0 " + W + " " + (tTop + 46));
      const lanePos = {}, targetPos = {};
      targets.forEach(function (t, i) { targetPos[t] = { x: 10 + i * tSpace + tSpace / 2, y: tTop, i: i }; });
      lanes.forEach(function (l) { lanePos[l.lane] = { x: 10 + l.lane * laneW + laneW / 2, y: top + 22 }; });
      const hues = Math.max(targets.length, 2);
      const links = D.svg("g", { class: "wl-links" });
      lanes.forEach(function (l) {
        if (!l.active) return;
        targetOf(l).forEach(function (t) {
          const a = lanePos[l.lane], b = targetPos[t];
          links.appendChild(D.svg("line", { x1: a.x, y1: a.y, x2: b.x, y2: b.y, stroke: D.hue(b.i, hues, 45), "stroke-opacity": 0.6 }));
        });
      });
      svg.appendChild(links);
      svg.appendChild(D.svg("text", { x: 10, y: top - 6, "font-size": 10, class: "axis", text: D.t("wl_lane") }));
      lanes.forEach(function (l) {
        const p = lanePos[l.lane], first = l.active ? targetOf(l)[0] : null;
        svg.appendChild(D.svg("rect", { x: p.x - laneW / 2 + 1, y: p.y - 22, width: laneW - 2, height: 22,
          fill: l.active ? D.hue(targetPos[first].i, hues, 80) : "#ddd", class: "wl-lane" + (l.active ? "" : " inactive"),
          "data-lane": l.lane }, D.svg("title", { text: laneTitle(l, s) })));
        svg.appendChild(D.svg("text", { x: p.x, y: p.y - 8, "font-size": 9, "text-anchor": "middle", text: l.lane }));
      });
      svg.appendChild(D.svg("text", { x: 10, y: tTop + 40, "font-size": 10, class: "axis", text: D.t(shared ? "wl_bank" : "wl_sector") }));
      targets.forEach(function (t) {
        const p = targetPos[t], n = targetCount(t);
        svg.appendChild(D.svg("rect", { x: p.x - tW / 2, y: p.y, width: tW, height: 22, class: "wl-target",
          fill: n ? D.hue(p.i, hues, shared && n > 1 ? 55 : 80) : "#f3f3f3", "data-count": n },
          D.svg("title", { text: D.t(shared ? "wl_bank" : "wl_sector") + " " + targetLabel(t) + ": " + n })));
        svg.appendChild(D.svg("text", { x: p.x, y: p.y + 15, "font-size": 9, "text-anchor": "middle", text: targetLabel(t) }));
      });
      f.drawing.replaceChildren(svg);
      const b = s.block || [0, 0, 0];
      f.caption.replaceChildren(D.el("span", { "data-testid": "wl-summary", text: summary }), " ",
        D.el("span", { class: "muted", text: D.t("wl_from", { kernel: e.kernel, bx: b[0], by: b[1], bz: b[2], w: s.warp || 0 }) }));
      details.hidden = false;
      details.replaceChildren(D.el("summary", { text: D.t("wl_lane") + " / " + D.t(shared ? "wl_offset" : "wl_address") }), laneTable(lanes, s, shared));
    }

    function laneTitle(l, s) {
      if (!l.active) return D.t("wl_lane") + " " + l.lane + ": " + D.t("wl_inactive");
      return D.t("wl_lane") + " " + l.lane + ": " + (s.space === "shared" ? l.addr : "0x" + l.addr.toString(16)) +
        (s.space === "shared" ? " → " + D.t("wl_bank") + " " + l.banks.join(",") : "");
    }

    function laneTable(lanes, s, shared) {
      return D.el("table", { class: "wl-table" },
        D.el("thead", null, D.el("tr", null, D.el("th", { text: D.t("wl_lane") }),
          D.el("th", { text: D.t(shared ? "wl_offset" : "wl_address") }), D.el("th", { text: D.t(shared ? "wl_bank" : "wl_sector") }))),
        D.el("tbody", null, lanes.map(function (l) {
          return D.el("tr", { class: l.active ? null : "inactive" }, D.el("td", { text: l.lane }),
            D.el("td", { class: "num", text: l.active ? (shared ? String(l.addr) : "0x" + l.addr.toString(16)) : D.t("wl_inactive") }),
            D.el("td", { class: "num", text: l.active ? (shared ? l.banks : l.sectors.map(function (x) { return "0x" + (x * SECTOR).toString(16); })).join(", ") : "" }));
        })));
    }

    draw();
    D.onLang(draw);
    const lens = {
      update: function (result) { state.result = result; draw(); },
      select: function (key) {
        if (!entries().some(function (e) { return e.key === key; })) return false;
        state.key = key; draw(); container.scrollIntoView({ block: "center" }); return true;
      },
    };
    (D.lenses = D.lenses || []).push(lens);
    return lens;
  };
})();

/* The Setup page: live camera overlay and placement advice, lens calibration, camera settings, LED check.
   Everything goes through /api/setup (referee only); the picture is refreshed about once a second. */
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const { said, withNodes, FlureBoard, loadBoard } = window.Flure;
  let auto = null, refreshing = false, exposureShown = false;

  async function api(method, path, body) {
    const opts = { method, headers: {}, credentials: "same-origin" };
    if (login.token()) opts.headers["X-CSRF-Token"] = login.token();
    if (body !== undefined) { opts.headers["Content-Type"] = "application/json"; opts.body = JSON.stringify(body); }
    const res = await fetch(path, opts);
    const data = await res.json().catch(() => ({}));
    if (res.status === 401) login.forget();
    if (!res.ok) {
      const err = new Error(said(data, "error") || t("The server answered HTTP %(status)s.", { status: res.status }));
      err.status = res.status;
      throw err;
    }
    return data;
  }
  const el = (tag, cls, text) => { const e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; };

  const login = window.FlureLogin;   // static/login.js

  // -- the live picture and its numbers -------------------------------------------------------------
  const VERDICT_CLASS = { good: "ok", "too far": "bad", "too close": "bad", "too tilted": "warn" };
  // the placement verdict (vision's registration report) in this page's language
  const VERDICT = { good: N_("good"), "too far": N_("too far"), "too close": N_("too close"),
    "too tilted": N_("too tilted"), "not located": N_("not located") };
  async function refresh() {
    if (refreshing || !login.token()) return;
    refreshing = true;
    try {
      const look = await api("GET", "/api/setup/look");
      showLook(look);
      if (look.picture) {
        const img = $("overlay");
        await new Promise((resolve) => {
          const next = new Image();
          next.onload = () => {
            img.src = next.src;
            img.dataset.loaded = String(Number(img.dataset.loaded || 0) + 1);
            img.dataset.width = String(next.naturalWidth);
            resolve();
          };
          next.onerror = resolve;
          next.src = `/api/setup/overlay.jpg?t=${Date.now()}`;
        });
        $("no-picture").classList.add("hidden");
      }
    } catch (e) { $("advice").textContent = e.message; }
    finally { refreshing = false; }
  }
  function showLook(look) {
    if (!look.picture) { $("no-picture").textContent = said(look, "message"); $("no-picture").classList.remove("hidden"); return; }
    if (!exposureShown && look.exposure) {     // the stored settings, once
      exposureShown = true;
      const x = look.exposure;
      $("exposure-us").value = x.exposure_us; $("gain").value = x.analogue_gain;
      if (x.colour_gains) { $("red-gain").value = x.colour_gains[0]; $("blue-gain").value = x.colour_gains[1]; }
    }
    $("charuco").textContent = look.charuco_corners
      ? t("The calibration board is in view: %(n)s corners (yellow dots).", { n: look.charuco_corners }) : "";
    const reg = look.registration;
    $("verdict").textContent = t(VERDICT[look.verdict] || look.verdict);
    $("verdict").className = `pill ${VERDICT_CLASS[look.verdict] || "warn"}`;
    $("advice").textContent = said(look, "advice");
    $("n-sticker").textContent = reg.smallest_sticker_px == null ? "–" : `${reg.smallest_sticker_px} px`;
    $("n-height").textContent = reg.camera_height_mm == null ? "–" : `${Math.round(reg.camera_height_mm / 10)} cm`;
    $("n-tilt").textContent = reg.tilt_deg == null ? "–" : `${reg.tilt_deg}°`;
    $("n-size").textContent = `${look.size[0]}×${look.size[1]}`;
    const st = look.stickers, list = $("stickers-list");
    list.replaceChildren();
    if (!look.located) {
      $("stickers-summary").textContent = t("The board is not located: the stickers are checked once it is.");
      return;
    }
    $("stickers-summary").textContent = t("%(seen)s of %(pieces)s pieces seen", { seen: st.seen.length, pieces: st.pieces });
    const item = (cls, text) => list.append(el("li", cls, text));
    const names = (key) => st[key].map((p) => (st.names || {})[p] || p);   // said by the server in the page's language
    if (st.missing.length) item("fix", t("missing (no sticker seen): %(pieces)s", { pieces: names("missing").join(", ") }));
    if (st.unknown.length) item("fix", t("unknown ids (not a sticker of this game): %(ids)s", { ids: st.unknown.join(", ") }));
    if (st.twice.length) item("fix", t("seen twice: %(what)s", { what: st.twice.join("; ") }));
    if (!st.missing.length && !st.unknown.length && !st.twice.length) item("ok", t("every piece seen once"));
    if (st.seen.length) item("ok", t("seen: %(pieces)s", { pieces: names("seen").join(", ") }));
    if (st.left_out) item("muted", t("not asked for (pawns this game does not play): %(n)s", { n: st.left_out }));
  }

  // -- lens calibration -----------------------------------------------------------------------------
  function showCalibration(c) {
    const count = (id, n) => { const span = $(id); span.textContent = n; return span; };
    $("coverage-label").replaceChildren(...withNodes(t("Where corners have been seen (%(views)s views, %(filled)s of %(cells)s parts):"),
      { views: count("views", c.views), filled: count("filled", c.coverage_filled), cells: count("cells", c.coverage_cells) }));
    const cov = $("coverage");
    cov.style.gridTemplateColumns = `repeat(${c.coverage[0].length}, 1fr)`;
    cov.replaceChildren(...c.coverage.flat().map((n) => {
      const d = el("div", n === 0 ? "" : n < 5 ? "seen1" : n < 15 ? "seen2" : "seen3");
      d.title = t("%(n)s corners", { n });
      return d;
    }));
    cov.dataset.filled = String(c.coverage_filled);
    $("tilts").textContent = c.tilts.length
      ? t("%(tilts)s — %(n)s of 4 directions", { tilts: c.tilts.map((x) => `${Math.round(x.tilt_deg)}°`).join(", "), n: c.tilt_directions })
      : t("none yet");
    const advice = c.advice || [];
    $("lens-advice").replaceChildren(...advice.map((a) => el("li", "", a)));
    if (c.pending) {
      const p = c.pending;
      $("lens-result").textContent = t("%(advice)s; focal length %(fx)s px, centre (%(cx)s, %(cy)s) at %(size)s. Save to use it (%(file)s).",
        { advice: said(p, "advice"), fx: p.fx, cx: p.cx, cy: p.cy, size: `${p.image_size[0]}×${p.image_size[1]}`, file: c.saved_to });
    }
    $("save").disabled = !c.pending;
  }
  async function capture(quiet) {
    try {
      const c = await api("POST", "/api/setup/capture", {});
      showCalibration(c);
      if (!quiet || c.added) $("lens-message").textContent = said(c, "message");
    } catch (e) { $("lens-message").textContent = e.message; }
  }
  $("capture").addEventListener("click", () => capture(false));
  $("auto").addEventListener("change", () => {
    if (auto) { clearInterval(auto); auto = null; }
    if ($("auto").checked) auto = setInterval(() => capture(true), 2000);
  });
  $("calibrate").addEventListener("click", async () => {
    $("lens-result").textContent = t("Calculating…");
    try { showCalibration(await api("POST", "/api/setup/calibrate", {})); }
    catch (e) { $("lens-result").textContent = e.message; $("save").disabled = true; }
  });
  $("save").addEventListener("click", async () => {
    try {
      const r = await api("POST", "/api/setup/save", {});
      $("lens-result").textContent = t("Saved %(file)s; %(config)s. The camera uses it now.", { file: r.saved, config: said(r, "config") });
      $("lens-result").dataset.saved = r.saved;
      doctor();
    } catch (e) { $("lens-result").textContent = e.message; }
  });
  $("reset").addEventListener("click", async () => {
    showCalibration(await api("POST", "/api/setup/reset", {}));
    $("lens-result").textContent = ""; $("lens-message").textContent = "";
  });

  // -- camera settings ------------------------------------------------------------------------------
  async function saveExposure(body) {
    try {
      const r = await api("POST", "/api/setup/exposure", body);
      $("exposure-message").textContent = `${said(r, "config")}. ${said(r.camera, "note") || ""}`;
    } catch (e) { $("exposure-message").textContent = e.message; }
  }
  $("exposure-save").addEventListener("click", () => {
    const red = $("red-gain").value, blue = $("blue-gain").value;
    saveExposure({ exposure_us: Math.round(Number($("exposure-us").value) || 0), analogue_gain: Number($("gain").value) || 0,
      colour_gains: red && blue ? [Number(red), Number(blue)] : null });
  });
  $("exposure-auto").addEventListener("click", () => {
    $("exposure-us").value = 0; $("gain").value = 0; $("red-gain").value = ""; $("blue-gain").value = "";
    saveExposure({ exposure_us: 0, analogue_gain: 0, colour_gains: null });
  });

  // -- LED check --------------------------------------------------------------------------------------
  const COLS = "abcdefghijklmnop".split(""), ROWS = Array.from({ length: 11 }, (_, i) => i + 1);
  function buildLeds() {
    $("light-line").replaceChildren(...ROWS.map((r) => new Option(t("row %(n)s", { n: r }), `row ${r}`)),
      ...COLS.map((c) => new Option(t("column %(c)s", { c }), `column ${c}`)));
    const grid = $("led-grid");
    for (const r of ROWS) for (const c of COLS) {
      const b = el("button", "", `${c}${r}`);
      b.type = "button"; b.dataset.square = `${c}${r}`;
      b.addEventListener("click", () => mark(b.dataset.square, !b.classList.contains("wrong")));
      grid.append(b);
    }
  }
  function showMarks(m) {
    for (const b of $("led-grid").children) b.classList.toggle("wrong", m.wrong.includes(b.dataset.square));
    $("leds-message").textContent = m.wrong.length
      ? t("marked wrong: %(squares)s (saved in %(file)s)", { squares: m.wrong.join(", "), file: m.file }) : t("no square marked wrong");
  }
  async function mark(square, wrong) {
    try { showMarks(await api("POST", "/api/setup/leds/mark", { square, wrong })); }
    catch (e) { $("leds-message").textContent = e.message; }
  }
  async function light(what) {
    try {
      const r = await api("POST", "/api/setup/leds/light", { what });
      for (const b of $("led-grid").children) b.classList.toggle("lit", what !== "all" && r.squares.includes(b.dataset.square));
      const line = $("light-line").selectedOptions[0];
      $("leds-message").textContent = what === "all" ? t("Each square lights in turn (0.4 s each), a1 first.")
        : t("%(line)s is lit: do the lights sit under those squares?", { line: line ? line.textContent : what });
    } catch (e) { $("leds-message").textContent = e.message; }
  }
  $("light-all").addEventListener("click", () => light("all"));
  $("light-line-go").addEventListener("click", () => light($("light-line").value));

  // -- teaching the box without stickers (NOSTICKERS.md) ---------------------------------------------
  let teachStep = null;     // the step shown: a photo is taken for it only
  let geometry = null;
  async function drawStep(step) {   // the board with the step's pieces where they go, as the phones draw a game
    geometry = geometry || await loadBoard(() => {});
    const wrap = $("teach-board");
    wrap.replaceChildren();
    const board = new FlureBoard(wrap, geometry, {});
    if (step.setup.monster) board.draw(step.setup);   // the first step: the empty board
    wrap.dataset.step = String(step.number);
  }
  function showTeaching(s) {
    const step = s.step;
    if (step && String(step.number) !== $("teach-board").dataset.step) drawStep(step);
    if (!step) $("teach-board").dataset.step = "";
    teachStep = step ? step.number : null;
    $("teach-step").classList.toggle("hidden", !step);
    $("teach-start").classList.toggle("hidden", s.active);
    $("teach-photo").classList.toggle("hidden", !s.active);
    $("teach-cancel").classList.toggle("hidden", !s.active);
    $("teach-card").dataset.done = String(s.done);
    $("teach-card").dataset.active = String(s.active);
    if (step) {
      $("teach-number").textContent = t("Step %(n)s of %(steps)s", { n: step.number, steps: s.steps });
      $("teach-say").textContent = step.say;
      $("teach-squares").textContent = step.squares.length
        ? t("The lit squares: %(squares)s", { squares: step.squares.join(", ") }) : t("No square is lit: the board stays empty.");
    }
    if (s.refused) { $("teach-message").textContent = t("Photo refused: %(why)s. Lay the step out again, then take the photo again.", { why: s.refused }); $("teach-message").className = "fix"; }
    else if (s.saved) { $("teach-message").textContent = t("Taught: saved %(file)s (flure play --pieces %(file)s reads with it).", { file: s.saved }); $("teach-message").className = "ok"; }
    else if (s.active && s.done) { $("teach-message").textContent = t("Photo %(n)s taken and checked.", { n: s.done }); $("teach-message").className = "ok"; }
    else { $("teach-message").textContent = ""; $("teach-message").className = ""; }
    if (s.learned) showLearned(s.learned);
  }
  function showLearned(l) {
    const faces = $("learned-faces"), warnings = $("learned-warnings");
    faces.replaceChildren(); warnings.replaceChildren();
    if (!l.taught) {
      $("learned-summary").textContent = l.error ? t("The pieces file cannot be used: %(why)s", { why: l.error }) : t("Nothing taught yet.");
      $("learned-alike").textContent = ""; $("learned-pairs").classList.add("hidden");
      showTiles({ pools: [], teleporters: [], warnings: [] });
      return;
    }
    $("learned-summary").textContent = t("%(n)s faces taught, in %(file)s", { n: l.faces.length, file: l.file });
    $("learned-pairs").classList.toggle("hidden", !l.groups.length);
    $("learned-alike").className = l.groups.length ? "fix" : "ok";
    $("learned-alike").textContent = l.groups.length
      ? t("%(n)s groups of faces look too alike under this light: the camera may not tell them apart where two of a group could lie (more light helps; otherwise the game or the referee tells them).", { n: l.groups.length })
      : t("Every face looks different enough under this light.");
    for (const g of l.groups) {
      const li = el("li", "fix", g.faces.join(" · "));
      li.dataset.faces = g.keys.join(" ");
      warnings.append(li);
    }
    showTiles(l.placed);
    for (const f of l.faces) {
      const li = el("li", f.alike.length ? "alike" : "");
      li.dataset.face = f.face;
      const img = el("img"); img.src = f.picture; img.alt = "";
      li.append(img, el("span", "", f.name));
      if (f.alike.length) li.append(el("span", "muted", ` ⚠ ${t("looks like %(faces)s", { faces: f.alike.join(", ") })}`));
      faces.append(li);
    }
  }
  function showTiles(p) {   // the advanced setup's pools (their colours) and teleporters, beside the faces
    $("learned-tile-warnings").replaceChildren(...p.warnings.map((w) => {
      const li = el("li", "fix", w.text); li.dataset.code = w.code; return li;
    }));
    const items = [];
    if (p.pools.length) {
      const li = el("li", "pools"), box = el("span", "swatches");
      li.dataset.face = "pool";
      for (const c of p.pools) { const s = el("span", "swatch"); s.style.background = c; s.dataset.colour = c; box.append(s); }
      li.append(box, el("span", "", t("the pools' colours")));
      items.push(li);
    }
    for (const tp of p.teleporters) {
      const li = el("li", p.warnings.some((w) => w.code === "teleporters-alike") ? "alike" : "");
      li.dataset.face = "teleporter"; li.dataset.pair = String(tp.pair); li.dataset.arrow = tp.arrow;
      const img = el("img"); img.src = tp.picture; img.alt = "";
      li.append(img, el("span", "", tp.name));
      items.push(li);
    }
    $("learned-tiles").replaceChildren(...items);
  }
  async function teaching(path) {
    const busy = [$("teach-start"), $("teach-photo"), $("teach-cancel")];
    busy.forEach((b) => { b.disabled = true; });
    if (path === "/api/setup/teaching/photo") $("teach-message").textContent = t("Checking the photo…");
    const body = path === "/api/setup/teaching/photo" && teachStep ? { step: teachStep } : {};
    try { showTeaching(await api("POST", path, body)); }
    catch (e) { $("teach-message").textContent = e.message; $("teach-message").className = "fix"; }
    finally {
      busy.forEach((b) => { b.disabled = false; });
      // the button pressed may be hidden now: the keyboard goes on from the next one to press
      const next = $("teach-photo").classList.contains("hidden") ? $("teach-start") : $("teach-photo");
      if (!document.activeElement || document.activeElement === document.body || document.activeElement.closest(".hidden")) next.focus();
    }
  }
  $("teach-start").addEventListener("click", () => teaching("/api/setup/teaching/start"));
  $("teach-photo").addEventListener("click", () => teaching("/api/setup/teaching/photo"));
  $("teach-cancel").addEventListener("click", () => teaching("/api/setup/teaching/cancel"));

  // -- doctor -------------------------------------------------------------------------------------------
  async function doctor() {
    try {
      const r = await api("GET", "/api/setup/doctor");
      $("doctor-list").replaceChildren(...r.findings.map((f) => el("li", f.ok ? "ok" : "fix",
        t("%(topic)s: %(text)s", { topic: f.topic, text: f.text }))));
    } catch (e) { $("doctor-list").replaceChildren(el("li", "fix", e.message)); }
  }
  $("doctor-run").addEventListener("click", doctor);

  async function start() {
    refresh();
    setInterval(refresh, 1000);
    showCalibration(await api("GET", "/api/setup/calibration"));
    showMarks(await api("GET", "/api/setup/leds/marks"));
    showTeaching(await api("GET", "/api/setup/teaching"));
    doctor();
  }
  buildLeds();
  login.start(start);
})();

/* The Setup page: live camera overlay and placement advice, lens calibration, camera settings, LED check.
   Everything goes through /api/setup (referee only); the picture is refreshed about once a second. */
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  let csrf = null, auto = null, refreshing = false, exposureShown = false;

  async function api(method, path, body) {
    const opts = { method, headers: {}, credentials: "same-origin" };
    if (csrf) opts.headers["X-CSRF-Token"] = csrf;
    if (body !== undefined) { opts.headers["Content-Type"] = "application/json"; opts.body = JSON.stringify(body); }
    const res = await fetch(path, opts);
    const data = await res.json().catch(() => ({ error: `HTTP ${res.status}` }));
    if (res.status === 401) showLogin();
    if (!res.ok) { const err = new Error(data.error || `HTTP ${res.status}`); err.status = res.status; throw err; }
    return data;
  }
  const el = (tag, cls, text) => { const e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; };

  // -- login (the referee's PIN) ----------------------------------------------------------------
  function showLogin() { $("login").classList.remove("hidden"); $("pin").focus(); }
  async function checkLogin() {
    const who = await (await fetch("/api/whoami", { credentials: "same-origin" })).json();
    if (who.referee) { csrf = who.csrf; $("login").classList.add("hidden"); return true; }
    showLogin();
    return false;
  }
  $("login-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    $("login-error").textContent = "";
    const res = await fetch("/api/login", { method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json" }, body: JSON.stringify({ pin: $("pin").value }) });
    const data = await res.json().catch(() => ({}));
    if (!res.ok) { $("login-error").textContent = data.error || `HTTP ${res.status}`; return; }
    csrf = data.csrf;
    $("login").classList.add("hidden");
    start();
  });

  // -- the live picture and its numbers -------------------------------------------------------------
  const VERDICT_CLASS = { good: "ok", "too far": "bad", "too close": "bad", "too tilted": "warn" };
  async function refresh() {
    if (refreshing || !csrf) return;
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
    if (!look.picture) { $("no-picture").textContent = look.message; $("no-picture").classList.remove("hidden"); return; }
    if (!exposureShown && look.exposure) {     // the stored settings, once
      exposureShown = true;
      const x = look.exposure;
      $("exposure-us").value = x.exposure_us; $("gain").value = x.analogue_gain;
      if (x.colour_gains) { $("red-gain").value = x.colour_gains[0]; $("blue-gain").value = x.colour_gains[1]; }
    }
    $("charuco").textContent = look.charuco_corners
      ? `The calibration board is in view: ${look.charuco_corners} corners (yellow dots).` : "";
    const reg = look.registration;
    $("verdict").textContent = look.verdict;
    $("verdict").className = `pill ${VERDICT_CLASS[look.verdict] || "warn"}`;
    $("advice").textContent = look.advice;
    $("n-sticker").textContent = reg.smallest_sticker_px == null ? "–" : `${reg.smallest_sticker_px} px`;
    $("n-height").textContent = reg.camera_height_mm == null ? "–" : `${Math.round(reg.camera_height_mm / 10)} cm`;
    $("n-tilt").textContent = reg.tilt_deg == null ? "–" : `${reg.tilt_deg}°`;
    $("n-size").textContent = `${look.size[0]}×${look.size[1]}`;
    const st = look.stickers, list = $("stickers-list");
    list.replaceChildren();
    if (!look.located) { $("stickers-summary").textContent = "The board is not located: the stickers are checked once it is."; return; }
    $("stickers-summary").textContent = `${st.seen.length} of ${st.pieces} pieces seen`;
    const item = (cls, text) => list.append(el("li", cls, text));
    if (st.missing.length) item("fix", `missing (no sticker seen): ${st.missing.join(", ")}`);
    if (st.unknown.length) item("fix", `unknown ids (not a sticker of this game): ${st.unknown.join(", ")}`);
    if (st.twice.length) item("fix", `seen twice: ${st.twice.join("; ")}`);
    if (!st.missing.length && !st.unknown.length && !st.twice.length) item("ok", "every piece seen once");
    if (st.seen.length) item("ok", `seen: ${st.seen.join(", ")}`);
  }

  // -- lens calibration -----------------------------------------------------------------------------
  function showCalibration(c) {
    $("views").textContent = c.views;
    $("filled").textContent = c.coverage_filled;
    $("cells").textContent = c.coverage_cells;
    const cov = $("coverage");
    cov.style.gridTemplateColumns = `repeat(${c.coverage[0].length}, 1fr)`;
    cov.replaceChildren(...c.coverage.flat().map((n) => {
      const d = el("div", n === 0 ? "" : n < 5 ? "seen1" : n < 15 ? "seen2" : "seen3");
      d.title = `${n} corners`;
      return d;
    }));
    cov.dataset.filled = String(c.coverage_filled);
    $("tilts").textContent = c.tilts.length
      ? `${c.tilts.map((t) => `${Math.round(t.tilt_deg)}°`).join(", ")} — ${c.tilt_directions} of 4 directions`
      : "none yet";
    $("lens-advice").replaceChildren(...c.advice.map((a) => el("li", "", a)));
    if (c.pending) {
      const p = c.pending;
      $("lens-result").textContent = `${p.advice}; focal length ${p.fx} px, centre (${p.cx}, ${p.cy}) at ` +
        `${p.image_size[0]}×${p.image_size[1]}. Save to use it (${c.saved_to}).`;
    }
    $("save").disabled = !c.pending;
  }
  async function capture(quiet) {
    try {
      const c = await api("POST", "/api/setup/capture", {});
      showCalibration(c);
      if (!quiet || c.added) $("lens-message").textContent = c.message;
    } catch (e) { $("lens-message").textContent = e.message; }
  }
  $("capture").addEventListener("click", () => capture(false));
  $("auto").addEventListener("change", () => {
    if (auto) { clearInterval(auto); auto = null; }
    if ($("auto").checked) auto = setInterval(() => capture(true), 2000);
  });
  $("calibrate").addEventListener("click", async () => {
    $("lens-result").textContent = "Calculating…";
    try { showCalibration(await api("POST", "/api/setup/calibrate", {})); }
    catch (e) { $("lens-result").textContent = e.message; $("save").disabled = true; }
  });
  $("save").addEventListener("click", async () => {
    try {
      const r = await api("POST", "/api/setup/save", {});
      $("lens-result").textContent = `Saved ${r.saved}; ${r.config}. The camera uses it now.`;
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
      $("exposure-message").textContent = `${r.config}. ${r.camera.note || ""}`;
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
    $("light-line").replaceChildren(...ROWS.map((r) => new Option(`row ${r}`, `row ${r}`)),
      ...COLS.map((c) => new Option(`column ${c}`, `column ${c}`)));
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
    $("leds-message").textContent = m.wrong.length ? `marked wrong: ${m.wrong.join(", ")} (saved in ${m.file})` : "no square marked wrong";
  }
  async function mark(square, wrong) {
    try { showMarks(await api("POST", "/api/setup/leds/mark", { square, wrong })); }
    catch (e) { $("leds-message").textContent = e.message; }
  }
  async function light(what) {
    try {
      const r = await api("POST", "/api/setup/leds/light", { what });
      for (const b of $("led-grid").children) b.classList.toggle("lit", what !== "all" && r.squares.includes(b.dataset.square));
      $("leds-message").textContent = what === "all" ? "Each square lights in turn (0.4 s each), a1 first." : `${what} is lit: do the lights sit under those squares?`;
    } catch (e) { $("leds-message").textContent = e.message; }
  }
  $("light-all").addEventListener("click", () => light("all"));
  $("light-line-go").addEventListener("click", () => light($("light-line").value));

  // -- doctor -------------------------------------------------------------------------------------------
  async function doctor() {
    try {
      const r = await api("GET", "/api/setup/doctor");
      $("doctor-list").replaceChildren(...r.findings.map((f) => el("li", f.ok ? "ok" : "fix", `${f.topic}: ${f.text}`)));
    } catch (e) { $("doctor-list").replaceChildren(el("li", "fix", e.message)); }
  }
  $("doctor-run").addEventListener("click", doctor);

  async function start() {
    refresh();
    setInterval(refresh, 1000);
    showCalibration(await api("GET", "/api/setup/calibration"));
    showMarks(await api("GET", "/api/setup/leds/marks"));
    doctor();
  }
  buildLeds();
  checkLogin().then((ok) => { if (ok) start(); });
})();

/* The phone camera page (templates/camera.html, web/camera_page.py): the back camera's picture goes to
 * the table a few times a second, the newest only; each answer says where the board is, drawn over the
 * live picture (green when located) with advice for the person holding the phone.  The screen is kept
 * on (Wake Lock), exposure and focus are held where the browser allows it, and a lost connection is
 * retried by itself, saying so. */
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const said = (obj, field) => window.Flure.said(obj, field);
  const main = $("camera-main");
  const want = { width: +main.dataset.width || 1920, height: +main.dataset.height || 1080 };
  const period = 1000 / Math.min(Math.max(+main.dataset.fps || 4, 0.5), 8);
  let csrf = null, stream = null, busy = false, lost = 0, sent = 0, wake = null, timer = null, look = null;

  function link(text, live) {
    $("link").textContent = text;
    $("link").classList.toggle("live", !!live);
  }

  function advise(text, cls) {
    $("advice").textContent = text;
    $("advice").className = `camera-advice ${cls || ""}`;
  }

  async function start() {
    let res;
    try {
      res = await fetch("/api/camera/phone", { credentials: "same-origin" });
    } catch (e) {
      link(t("The server does not answer: is the Wi-Fi up?"));
      setTimeout(start, 2000);
      return;
    }
    if (res.status === 401 || res.status === 403) {
      advise(t("Only the referee's phone may be the camera: enter the PIN, or scan the camera QR code on the referee view."), "warn");
      window.FlureLogin.start(() => start());
      return;
    }
    const data = await res.json();
    csrf = data.csrf || window.FlureLogin.token();
    await openCamera();
  }

  async function openCamera() {
    if ($("not-phone")) {   // the table reads another camera (flure play without --camera phone): don't ask for it
      link(t("no camera"));
      return;
    }
    if (!window.isSecureContext || !navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
      link(t("no camera"));   // not "connecting…" for ever
      advise(t("This browser gives the camera only to secure pages: open this page over HTTPS (the address the camera QR code on the referee view gives)."), "warn");
      return;
    }
    try {
      stream = await navigator.mediaDevices.getUserMedia({ audio: false, video: {
        facingMode: { ideal: "environment" }, width: { ideal: want.width }, height: { ideal: want.height } } });
    } catch (e) {
      link(t("no camera"));
      advise(t("The camera could not be opened (%(why)s): allow this page to use the camera and reload it.", { why: e.name || String(e) }), "warn");
      return;
    }
    $("video").srcObject = stream;
    advise(t("Looking for the board…"));
    keepAwake();
    setTimeout(holdExposure, 3000);   // let the camera settle on the table's light first
    timer = setInterval(tick, period);
  }

  async function keepAwake() {
    if (!("wakeLock" in navigator)) { $("wake").textContent = t("This browser cannot keep the screen on: switch off the screen lock while filming."); return; }
    try {
      wake = await navigator.wakeLock.request("screen");
      $("wake").textContent = t("The screen stays on.");
      wake.addEventListener("release", () => { wake = null; });
    } catch (e) {
      $("wake").textContent = t("The screen may turn off (%(why)s): switch off the screen lock while filming.", { why: e.name || String(e) });
    }
  }
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible" && stream && !wake) keepAwake();
  });

  /* Exposure, focus and white balance fixed at what the camera chose, where the browser offers it. */
  async function holdExposure() {
    const track = stream && stream.getVideoTracks()[0];
    if (!track || !track.getCapabilities) { $("hold").textContent = t("This browser cannot hold the exposure or the focus."); return; }
    const caps = track.getCapabilities(), now = track.getSettings(), held = [];
    const tries = [["exposureMode", { exposureMode: "manual", ...(now.exposureTime ? { exposureTime: now.exposureTime } : {}) }, t("exposure")],
                   ["focusMode", { focusMode: "manual", ...(now.focusDistance ? { focusDistance: now.focusDistance } : {}) }, t("focus")],
                   ["whiteBalanceMode", { whiteBalanceMode: "manual" }, t("white balance")]];
    for (const [name, constraint, word] of tries) {
      if (!(caps[name] || []).includes("manual")) continue;
      try { await track.applyConstraints({ advanced: [constraint] }); held.push(word); } catch (e) { /* not honoured */ }
    }
    $("hold").textContent = held.length ? t("Held: %(what)s.", { what: held.join(", ") })
      : t("This browser cannot hold the exposure or the focus: keep the light over the table steady.");
  }

  function tick() {
    const video = $("video");
    if (busy || !video.videoWidth) return;      // the newest frame only: none queue up behind a slow one
    busy = true;
    const canvas = document.createElement("canvas");
    canvas.width = video.videoWidth;
    canvas.height = video.videoHeight;
    canvas.getContext("2d").drawImage(video, 0, 0);
    canvas.toBlob((blob) => send(blob, canvas.width, canvas.height), "image/jpeg", 0.85);
  }

  async function send(blob, width, height) {
    let res;
    try {
      res = await fetch("/api/camera/phone/frame", { method: "POST", credentials: "same-origin", body: blob,
        headers: { "Content-Type": "image/jpeg", "X-CSRF-Token": csrf || "" } });
    } catch (e) {
      res = null;
    }
    if (!res || res.status >= 500) {
      lost += 1;
      link(t("Connection lost: reconnecting…"));
      $("conn").textContent = t("Connection lost: reconnecting by itself (attempt %(n)s).", { n: lost });
      setTimeout(() => { busy = false; }, Math.min(500 * lost, 4000));
      return;
    }
    const data = await res.json().catch(() => ({}));
    if (res.status === 401 || res.status === 403) {
      clearInterval(timer);
      busy = false;
      advise(said(data, "error"), "warn");
      window.FlureLogin.start(() => { csrf = window.FlureLogin.token(); timer = setInterval(tick, period); });
      return;
    }
    if (!res.ok) {
      $("sending").textContent = said(data, "error");
      const wait = +(res.headers.get("Retry-After") || 0) * 1000;
      setTimeout(() => { busy = false; }, wait);
      return;
    }
    if (lost) $("conn").textContent = t("Reconnected.");
    lost = 0;
    sent += 1;
    link(t("sending"), true);
    $("sending").textContent = t("%(n)s frames sent (%(size)s).", { n: sent, size: `${width}×${height}` });
    look = data.look;
    draw();
    busy = false;
  }

  function draw() {
    const canvas = $("overlay"), video = $("video");
    canvas.width = video.clientWidth;
    canvas.height = video.clientHeight;
    const g = canvas.getContext("2d");
    g.clearRect(0, 0, canvas.width, canvas.height);
    if (!look) return;
    const colour = look.located ? "#3ddc84" : "#f0b14a";
    g.lineWidth = 3;
    g.strokeStyle = colour;
    const path = (pts) => { g.beginPath(); pts.forEach(([x, y], i) => (i ? g.lineTo : g.moveTo).call(g, x * canvas.width, y * canvas.height)); g.closePath(); g.stroke(); };
    (look.markers || []).forEach(path);
    if (look.outline) path(look.outline);
    main.dataset.located = look.located ? "yes" : "no";
    advise(said(look, "advice"), look.located && look.verdict === "good" ? "ok" : "warn");
    $("detail").textContent = look.detail ? said(look, "detail") : "";
  }

  start();
})();

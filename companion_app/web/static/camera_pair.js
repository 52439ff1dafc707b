/* The referee view's pairing code for the phone camera (templates/_camera_pair.html): a one-time link,
 * as a QR code, that lets the phone on the stand send the camera picture without the PIN. */
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  if (!$("camera-pair-make")) return;
  $("camera-pair-make").addEventListener("click", async () => {
    const res = await fetch("/api/camera/pair", { method: "POST", credentials: "same-origin", body: "{}",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": window.FlureLogin.token() || "" } });
    const data = await res.json().catch(() => ({}));
    if (!res.ok) { $("camera-pair-url").textContent = window.Flure.said(data, "error"); return; }
    $("camera-pair-qr").innerHTML = data.qr_svg;      // segno's SVG, made by the server
    $("camera-pair-url").textContent = data.url;
    $("camera-pair-url").href = data.url;
  });
})();

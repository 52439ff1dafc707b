/* The referee's PIN login, shared by the referee view and the Setup page: the #login dialog
 * (templates/_login.html), /api/whoami and /api/login, and the CSRF token every referee request
 * carries.  FlureLogin.start(onLogin) checks the session and shows the dialog when needed;
 * onLogin runs once logged in (at once when the browser still is). */
"use strict";
window.FlureLogin = (function () {
  const $ = (id) => document.getElementById(id);
  let csrf = null, onLogin = () => {};

  function show() { $("login").classList.remove("hidden"); $("pin").focus(); }

  function loggedIn(token) {
    csrf = token;
    $("login").classList.add("hidden");
    if ($("logout")) $("logout").classList.remove("hidden");
  }

  $("login-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    $("login-error").textContent = "";
    const res = await fetch("/api/login", { method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json" }, body: JSON.stringify({ pin: $("pin").value }) });
    const data = await res.json().catch(() => ({}));
    if (!res.ok) {
      $("login-error").textContent = window.Flure.said(data, "error") || t("The server answered HTTP %(status)s.", { status: res.status });
      return;
    }
    loggedIn(data.csrf);
    onLogin();
  });

  async function start(callback) {
    onLogin = callback;
    const who = await (await fetch("/api/whoami", { credentials: "same-origin" })).json();
    if (who.referee) { loggedIn(who.csrf); onLogin(); return; }
    show();
  }

  /* After logging out, or when the server says the session is gone (401). */
  function forget() { csrf = null; show(); }

  return { start, show, forget, token: () => csrf };
})();

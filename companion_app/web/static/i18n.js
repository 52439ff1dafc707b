/* The page's words: the gettext catalog of the page's language, embedded by the server as JSON
 * (#i18n-catalog, the same as /api/i18n/<lang>.json).  t("English msgid", {name: value}) fills
 * %(name)s like the server's gettext; a msgid missing from the catalog stays English.
 * pgettext(context, msgid) reads a message with a context the same way. */
"use strict";
(function () {
  const el = document.getElementById("i18n-catalog");
  const catalog = el ? JSON.parse(el.textContent) : {};
  window.FLURE_LANG = document.documentElement.lang || "en";
  window.t = function (message, params) {
    const text = catalog[message] || message;
    return params ? text.replace(/%\((\w+)\)s/g, (m, key) => (key in params ? String(params[key]) : m)) : text;
  };
  // a message with a context (pgettext("direction", "W") is "O" in French): keyed context + "\x04" + msgid
  window.pgettext = (context, message) => catalog[`${context}\u0004${message}`] || message;
})();

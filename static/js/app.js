// aula's own script. Everything works without it; it adds keyboard
// shortcuts, resets the question form after a send, keeps the newest
// message in view, and configures HTMX (the CSRF header, and swapping
// validation responses in place).
(function () {
  "use strict";

  document.addEventListener("htmx:configRequest", function (e) {
    var meta = document.querySelector('meta[name="csrf-token"]');
    if (meta) e.detail.headers["X-CSRF-Token"] = meta.content;
  });

  document.addEventListener("DOMContentLoaded", function () {
    if (!window.htmx) return;
    htmx.config.responseHandling = [
      { code: "204", swap: false },
      { code: "[23]..", swap: true },
      { code: "(413|422|429|503)", swap: true },
      { code: "[45]..", swap: false, error: true },
    ];
  });

  // Enter sends, Shift+Enter breaks the line, Escape stops the answer being written.
  document.addEventListener("keydown", function (e) {
    var t = e.target;
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing && t.matches && t.matches("#ask-form textarea")) {
      e.preventDefault();
      if (t.value.trim() !== "" || (t.form.attachment && t.form.attachment.files.length)) t.form.requestSubmit();
      return;
    }
    if (e.key === "Escape") {
      var stop = document.querySelector('.msg.streaming button[data-stop]');
      if (stop) { e.preventDefault(); stop.click(); }
    }
  });

  // A sent question clears the input, keeps focus in it, and clears the last error.
  document.addEventListener("htmx:afterRequest", function (e) {
    var form = e.detail.elt;
    if (!form || form.id !== "ask-form" || !e.detail.successful) return;
    form.reset();
    var err = document.getElementById("ask-error");
    if (err) err.textContent = "";
  });
  document.addEventListener("htmx:beforeRequest", function (e) {
    var form = e.detail.elt;
    if (form && form.id === "ask-form") {
      var err = document.getElementById("ask-error");
      if (err) err.textContent = "";
    }
  });

  function scrollToEnd() {
    var list = document.getElementById("messages");
    if (list) list.scrollTop = list.scrollHeight;
  }
  document.addEventListener("htmx:afterSettle", function () {
    scrollToEnd();
    var q = document.getElementById("q");
    if (q && document.activeElement === document.body) q.focus();
  });
  document.addEventListener("htmx:sseMessage", scrollToEnd);
  document.addEventListener("DOMContentLoaded", scrollToEnd);
})();

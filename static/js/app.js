// aula's only script of its own: it configures HTMX (the CSRF header, and
// swapping 422 validation responses in place). Everything works without it.
document.addEventListener("htmx:configRequest", function (e) {
  var meta = document.querySelector('meta[name="csrf-token"]');
  if (meta) e.detail.headers["X-CSRF-Token"] = meta.content;
});
document.addEventListener("DOMContentLoaded", function () {
  if (!window.htmx) return;
  htmx.config.responseHandling = [
    { code: "204", swap: false },
    { code: "[23]..", swap: true },
    { code: "422", swap: true },
    { code: "429", swap: true },
    { code: "[45]..", swap: true, error: true },
  ];
});

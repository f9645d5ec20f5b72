// Copy buttons on answers: every finished answer copies its Markdown
// source (the button's data-md) and every code block in
// an answer its code; the button says "Copied" for a moment. The labels
// come from the page (data-* written from i18n).
(function () {
  "use strict";

  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text);
    }
    // Plain http on another host: the old way still copies.
    var ta = document.createElement("textarea");
    ta.value = text;
    ta.setAttribute("readonly", "");
    ta.style.position = "fixed";
    ta.style.opacity = "0";
    document.body.appendChild(ta);
    ta.select();
    document.execCommand("copy");
    ta.remove();
    return Promise.resolve();
  }

  function flash(btn, copied) {
    if (!btn.dataset.label) btn.dataset.label = btn.textContent;
    btn.textContent = copied;
    clearTimeout(btn.copyTimer);
    btn.copyTimer = setTimeout(function () { btn.textContent = btn.dataset.label; }, 2000);
  }

  // enhance shows the answers' copy buttons in root (the page by default)
  // and gives each code block one.
  function enhance(root) {
    root = root && root.querySelectorAll ? root : document;
    root.querySelectorAll(".msg.assistant .copy-answer[hidden]").forEach(function (b) { b.hidden = false; });
    root.querySelectorAll(".msg.assistant .msg-body.prose pre").forEach(function (pre) {
      var prev = pre.previousElementSibling;
      if (prev && prev.classList.contains("copy-code")) return;
      var answer = pre.closest(".msg").querySelector(".copy-answer");
      if (!answer) return;
      var b = document.createElement("button");
      b.type = "button";
      b.className = "button ghost small copy-code";
      b.textContent = answer.dataset.codeLabel;
      b.dataset.copied = answer.dataset.copied;
      pre.parentNode.insertBefore(b, pre);
    });
  }

  document.addEventListener("click", function (e) {
    var b = e.target.closest && e.target.closest(".copy-answer, .copy-code");
    if (!b) return;
    var text;
    if (b.classList.contains("copy-answer")) {
      text = b.dataset.md || "";
    } else {
      text = b.nextElementSibling ? b.nextElementSibling.textContent : "";
    }
    copyText(text).then(function () { flash(b, b.dataset.copied); });
  });

  // app.js observes the page and says once per frame that it changed.
  document.addEventListener("aula:changed", function () { enhance(document); });
  // A swapped-in answer is enhanced at once (a frame later its buttons
  // would appear under a click already aimed at the page); a streamed
  // token's tail holds nothing to enhance.
  document.addEventListener("htmx:afterSwap", function (e) {
    var t = e.target;
    if (t && t.classList && !t.classList.contains("tail")) enhance(t.closest ? t.closest(".msg") || t : t);
  });
  enhance();
})();

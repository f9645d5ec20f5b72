// Ask about a passage. Selecting text of a lesson shows "Ask the tutor"
// beside the selection; it opens the tutor panel with the passage quoted
// above the question (removable), sent in the form's passage field. For
// keyboard and screen reader users the button follows the selected block
// in the page's order (a reading cursor there meets it next), Alt+Shift+A
// presses it, and a live region says both when text is selected.
// Without JavaScript nothing can be selected into the form, so nothing
// here is needed for the page to work. Texts come from the page (data-*).
(function () {
  "use strict";

  var MAX = 2000; // characters, as the server bounds a passage
  var btn = null;
  var live = null;
  var pending = "";
  var range = null;
  var timer = 0;

  function quote() { return document.getElementById("passage-quote"); }
  function prose() { return document.querySelector("#lesson .prose"); }
  function panel() { return document.getElementById("tutor"); }
  var touch = window.matchMedia("(pointer: coarse)");

  // The selection, when it is text of the lesson worth asking about.
  function selection() {
    var sel = window.getSelection();
    var root = prose();
    if (!root || !sel || sel.isCollapsed || sel.rangeCount === 0) return null;
    var r = sel.getRangeAt(0);
    if (!root.contains(r.startContainer) || !root.contains(r.endContainer)) return null;
    var text = sel.toString().replace(/\r\n/g, "\n").trim();
    if (text.replace(/\W/g, "").length < 2) return null;
    var chars = Array.from(text);
    if (chars.length > MAX) text = chars.slice(0, MAX).join("").trim();
    return { text: text, range: r };
  }

  function ensure() {
    var q = quote();
    if (!q) return null;
    if (btn) return btn;
    btn = document.createElement("button");
    btn.type = "button";
    btn.id = "ask-passage";
    btn.className = "button primary small ask-passage";
    // The icon comes from the page: an emoji is an empty box without an emoji font.
    var icon = document.getElementById("ask-passage-icon");
    if (icon) btn.appendChild(icon.content.cloneNode(true));
    btn.appendChild(document.createTextNode(" " + q.dataset.askLabel));
    btn.title = q.dataset.askTip;
    btn.setAttribute("aria-keyshortcuts", "Alt+Shift+A");
    btn.hidden = true;
    // Pressing the button must not clear the selection it is about.
    btn.addEventListener("mousedown", function (e) { e.preventDefault(); });
    btn.addEventListener("click", ask);
    live = document.createElement("div");
    live.id = "passage-status";
    live.className = "sr-only";
    live.setAttribute("aria-live", "polite");
    document.body.appendChild(live);
    return btn;
  }

  // The lesson's block the selection ends in: the button follows it in
  // the page's order, so Tab from the selection reaches it next.
  function blockOf(node) {
    var root = prose();
    while (node && node.parentNode !== root) node = node.parentNode;
    return node;
  }

  // place puts the button just under the end of the selection (above it
  // when there is no room below), inside the window.
  function place() {
    if (!btn || btn.hidden || !range) return;
    var rects = range.getClientRects();
    var r = rects.length ? rects[rects.length - 1] : range.getBoundingClientRect();
    var w = btn.offsetWidth, h = btn.offsetHeight, gap = 6;
    var top = r.bottom + gap;
    if (top + h > window.innerHeight - 4) top = r.top - h - gap;
    var left = Math.max(4, Math.min(r.left, window.innerWidth - w - 4));
    btn.style.top = Math.round(top) + "px";
    btn.style.left = Math.round(left) + "px";
  }

  function show(s) {
    var b = ensure();
    if (!b) return;
    var changed = b.hidden || s.text !== pending;
    pending = s.text;
    range = s.range;
    var block = blockOf(s.range.endContainer);
    if (block && block.nextSibling !== b) block.after(b);
    b.hidden = false;
    place();
    if (changed) live.textContent = quote().dataset.selected;
  }

  function hide() {
    if (!btn || btn.hidden) return;
    btn.hidden = true;
    range = null;
    if (live) live.textContent = "";
  }

  // Without the question form (a check in the panel, the month's limit
  // reached) there is nothing to quote into: no button.
  function update() {
    var s = quote() ? selection() : null;
    if (s) show(s);
    else if (document.activeElement !== btn) hide();
  }
  document.addEventListener("selectionchange", function () {
    clearTimeout(timer);
    timer = setTimeout(update, 120);
  });
  window.addEventListener("scroll", place, { passive: true, capture: true });
  window.addEventListener("resize", place);

  // ask opens the panel with the passage quoted above the question.
  function ask() {
    var q = quote();
    var p = panel();
    if (!pending || !q || !p) return;
    setQuote(pending);
    if (btn) btn.blur();
    hide();
    pending = "";
    if (!p.open) p.open = true;
    var input = document.getElementById("q");
    if (input && !touch.matches) input.focus({ preventScroll: true });
    if (live) live.textContent = q.dataset.added;
  }

  // setQuote shows text quoted above the question and in the form's
  // passage field; an empty text removes the quote.
  function setQuote(text) {
    var q = quote();
    if (!q) return;
    q.querySelector("#passage-text").textContent = text;
    q.querySelector("#passage").value = text;
    q.hidden = !text;
  }
  function clearQuote() { setQuote(""); }

  document.addEventListener("keydown", function (e) {
    if (e.altKey && e.shiftKey && e.code === "KeyA" && pending && btn && !btn.hidden) {
      e.preventDefault();
      ask();
    }
  });
  document.addEventListener("click", function (e) {
    if (!e.target.closest || !e.target.closest("#passage-remove")) return;
    clearQuote();
    var input = document.getElementById("q");
    if (input) input.focus();
  });
  // A question sent is about its passage; the next one starts without.
  document.addEventListener("htmx:afterRequest", function (e) {
    var form = e.detail.elt;
    if (form && form.id === "ask-form" && e.detail.successful && e.detail.xhr.status < 400) clearQuote();
  });
})();

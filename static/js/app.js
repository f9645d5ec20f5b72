// aula's own script. Everything works without it; it adds keyboard
// shortcuts, resets the question form after a send, keeps a thread's list
// of messages on its newest message while the student reads there (and
// offers "↓ latest" when they scrolled up), moves focus to the tutor's
// input when the panel opens, scrolls the lesson to a cited section and an
// opened 👎 form into view, and
// configures HTMX (the CSRF header, and swapping validation responses in
// place).
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
      { code: "(409|413|422|429|503)", swap: true },
      { code: "[45]..", swap: false, error: true },
    ];
  });

  // A page drawn for a browser without JavaScript refreshes itself while
  // an answer is being written (<noscript><meta http-equiv=refresh>).
  // HTMX parses what it swaps in with scripting off, so that <noscript>
  // would become a live refresh and reload the page two seconds after a
  // question was sent: what HTMX swaps in loses its <noscript> parts.
  document.addEventListener("htmx:beforeSwap", function (e) {
    var r = e.detail.serverResponse;
    if (typeof r === "string" && r.indexOf("<noscript") !== -1) {
      e.detail.serverResponse = r.replace(/<noscript>[\s\S]*?<\/noscript>/g, "");
    }
  });

  // The panel and the assistant screen fit below the top bar, whose
  // height depends on the width (it wraps on a phone).
  function measureTopbar() {
    var bar = document.querySelector(".topbar");
    if (bar) document.documentElement.style.setProperty("--topbar-h", bar.offsetHeight + "px");
  }
  window.addEventListener("resize", measureTopbar);

  var phone = window.matchMedia("(max-width: 900px)");
  var touch = window.matchMedia("(pointer: coarse)");
  var reduced = window.matchMedia("(prefers-reduced-motion: reduce)");

  function tutor() { return document.getElementById("tutor"); }

  // Focus the question input, except on a touch screen, where it would
  // raise the keyboard over what the student opened the page to read.
  function focusInput() {
    var q = document.getElementById("q");
    if (q && !touch.matches) q.focus({ preventScroll: true });
  }

  // Enter sends, Shift+Enter breaks the line; Escape stops the answer being
  // written, or, when none is, closes the tutor panel.
  document.addEventListener("keydown", function (e) {
    var t = e.target;
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing && t.matches && t.matches("#ask-form textarea")) {
      e.preventDefault();
      if (t.value.trim() !== "" || (t.form.attachment && t.form.attachment.files.length)) t.form.requestSubmit();
      return;
    }
    if (e.key !== "Escape") return;
    var stop = document.querySelector('.msg.streaming button[data-stop]');
    var panel = tutor();
    if (stop) {
      e.preventDefault();
      stop.click();
    } else if (panel && panel.open) {
      e.preventDefault();
      panel.open = false;
      panel.querySelector("summary").focus();
    }
  });

  // A sent question clears the input, keeps focus in it, and clears the last error.
  document.addEventListener("htmx:afterRequest", function (e) {
    var form = e.detail.elt;
    // A refusal (4xx/5xx) keeps the text and the file: ask.js explains it.
    if (!form || form.id !== "ask-form" || !e.detail.successful || e.detail.xhr.status >= 400) return;
    form.reset();
    var err = document.getElementById("ask-error");
    if (err) err.textContent = "";
  });
  // A check being started or an answer being graded says so at once (the
  // model may take seconds); a refusal or a failed request clears it.
  document.addEventListener("htmx:beforeRequest", function (e) {
    var busy = e.detail.elt && e.detail.elt.querySelector && e.detail.elt.querySelector(":scope .check-busy[data-busy]");
    if (busy) busy.textContent = busy.dataset.busy;
  });
  document.addEventListener("htmx:afterRequest", function (e) {
    var busy = e.detail.elt && e.detail.elt.querySelector && e.detail.elt.querySelector(":scope .check-busy[data-busy]");
    if (busy && (!e.detail.successful || e.detail.xhr.status >= 400)) busy.textContent = "";
  });
  document.addEventListener("htmx:beforeRequest", function (e) {
    var form = e.detail.elt;
    if (!form || (form.id !== "ask-form" && !form.closest(".suggestions"))) return;
    var err = document.getElementById("ask-error");
    if (err) err.textContent = "";
    // The student asked: the question and its answer are what they want to see.
    follow = true;
  });

  // Following: while the student is at the bottom of the messages, new
  // bubbles and streamed text keep it there; once they scroll up to reread,
  // nothing moves and "↓ latest" takes them back.
  var follow = true;
  // Where the list was when last seen (by its scroll event or by toEnd):
  // a scroll whose event has not come yet shows as the list above that.
  var seen = null, seenTop = 0;
  function list() { return document.getElementById("messages"); }
  function atBottom(l) { return l.scrollHeight - l.scrollTop - l.clientHeight < 24; }
  function saw(l) { seen = l; seenTop = l.scrollTop; }
  function showJump(show) {
    var b = document.getElementById("jump-latest");
    if (b && b.hidden === show) b.hidden = !show;
  }
  function toEnd() {
    var l = list();
    if (!l) return;
    l.scrollTop = l.scrollHeight;
    saw(l);
    follow = true;
    showJump(false);
  }
  document.addEventListener("scroll", function (e) {
    if (e.target.id !== "messages") return;
    saw(e.target);
    follow = atBottom(e.target);
    showJump(!follow);
  }, true);
  // A swap is about to land: a scroll the student made in this frame has
  // not sent its event yet, and once the new text moves the bottom away
  // that scroll would be pulled back down. Read it now, before the swap (a
  // list that shrank since is at its bottom, not scrolled up).
  function catchScroll() {
    var l = list();
    if (follow && l && l === seen && l.scrollTop < seenTop - 1 && !atBottom(l)) follow = false;
  }
  document.addEventListener("htmx:beforeSwap", catchScroll);
  document.addEventListener("htmx:sseBeforeMessage", catchScroll);
  document.addEventListener("click", function (e) {
    if (e.target.closest && e.target.closest("#jump-latest")) {
      toEnd();
      focusInput();
    }
  });
  // The page's one MutationObserver. Following the newest message happens
  // at once, as before: a frame later, the scroll event a swap causes would
  // already have read the grown list as "scrolled up". The rescans of
  // ask.js and copy.js ("aula:changed") run once per animation frame, not
  // on every streamed token.
  var scheduled = false;
  function changed() {
    scheduled = false;
    document.dispatchEvent(new CustomEvent("aula:changed"));
  }
  new MutationObserver(function (records) {
    var l = list();
    for (var i = 0; l && i < records.length; i++) {
      var n = records[i].target;
      if (n === l || l.contains(n) || n.contains(l)) {
        if (follow) toEnd(); else showJump(true);
        break;
      }
    }
    if (!scheduled) {
      scheduled = true;
      requestAnimationFrame(changed);
    }
  }).observe(document.documentElement, { childList: true, subtree: true, characterData: true });

  // The tutor panel: opening it moves focus to its input and shows its
  // newest message. toggle does not bubble: listen while it is captured.
  document.addEventListener("toggle", function (e) {
    if (e.target.id !== "tutor") return;
    measureTopbar();
    if (e.target.open) {
      toEnd();
      focusInput();
    }
  }, true);

  // A § citation in the panel scrolls the lesson to its section and marks
  // it for a moment; the panel stays open beside it (on a phone, where the
  // panel covers the lesson, it closes to show the section).
  document.addEventListener("click", function (e) {
    var a = e.target.closest && e.target.closest('#tutor-panel .citations a[href^="#"]');
    if (!a || a.hash.length < 2) return;
    var section = document.getElementById(decodeURIComponent(a.hash.slice(1)));
    if (!section) return;
    e.preventDefault();
    if (phone.matches && tutor()) tutor().open = false;
    section.scrollIntoView({ block: "start", behavior: reduced.matches ? "instant" : "smooth" });
    history.replaceState(history.state, "", a.hash);
    section.classList.remove("cited");
    void section.offsetWidth; // restart the animation when cited twice
    section.classList.add("cited");
    setTimeout(function () { section.classList.remove("cited"); }, 2600);
  });

  // 👎 opens its reason form below the answer, often below the fold of the
  // list: once it is open, bring the whole form into view and put the
  // focus on its first choice. Only a student's click does (a form drawn
  // open by the server leaves the scroll where it is).
  document.addEventListener("click", function (e) {
    var summary = e.target.closest && e.target.closest(".rate-down > summary");
    if (!summary) return;
    var details = summary.parentElement;
    setTimeout(function () {
      var form = details.open && details.querySelector(".rate-form");
      if (!form) return;
      form.scrollIntoView({ block: "nearest", behavior: reduced.matches ? "instant" : "smooth" });
      var choice = form.querySelector("input[type=radio]:checked") || form.querySelector("input[type=radio]");
      if (choice) choice.focus({ preventScroll: true });
    }, 0);
  });

  // A code block whose long lines scroll sideways takes focus, so a
  // keyboard can scroll it too; one that fits stays out of the tab order.
  function focusableCode() {
    var pres = document.querySelectorAll(".prose pre, .msg-body pre");
    for (var i = 0; i < pres.length; i++) {
      var p = pres[i];
      if (p.scrollWidth > p.clientWidth) p.tabIndex = 0;
      else p.removeAttribute("tabindex");
    }
  }
  window.addEventListener("resize", focusableCode);
  document.addEventListener("toggle", focusableCode, true);
  document.addEventListener("htmx:afterSettle", focusableCode);
  document.addEventListener("htmx:sseMessage", function (e) {
    if (e.detail && e.detail.type === "done") setTimeout(focusableCode, 0);
  });

  document.addEventListener("htmx:afterSettle", function () {
    var q = document.getElementById("q");
    if (q && document.activeElement === document.body) focusInput();
  });
  document.addEventListener("DOMContentLoaded", function () {
    measureTopbar();
    focusableCode();
    toEnd();
    var panel = tutor();
    if (!panel || panel.open) focusInput();
  });
  // "Use these" beside the tutor's proposed questions fills the
  // suggestion fields in place (data-fill: the questions, one a line;
  // data-fill-ids: the fields' ids); without JavaScript it posts them
  // back to be shown in the form. Nothing is saved either way.
  document.addEventListener("click", function (e) {
    var b = e.target.closest && e.target.closest("button[data-fill]");
    if (!b) return;
    e.preventDefault();
    var texts = b.getAttribute("data-fill").split("\n");
    var ids = b.getAttribute("data-fill-ids").split(" ");
    for (var i = 0; i < ids.length; i++) {
      var f = document.getElementById(ids[i]);
      if (f && texts[i] !== undefined) {
        f.value = texts[i];
        f.dispatchEvent(new Event("input", { bubbles: true }));
      }
    }
    var note = document.getElementById("assist-filled");
    if (note) note.hidden = false;
  });
})();

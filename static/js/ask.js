// The question form never loses a question. Everything here enhances
// forms that work without it: a refused question (413, 422, 429, 503, or
// no answer at all) is explained under the input in the user's language
// while the text and the file stay; Retry says it is working and, when it
// fails again, says so; while an answer is being written Send becomes Stop
// and a question sent meanwhile waits for the answer to end. Every text
// shown comes from the page (data-* attributes written from i18n).
(function () {
  "use strict";

  // isTail is a streamed answer's raw tail, which every token swaps into.
  function isTail(elt) { return !!(elt && elt.classList && elt.classList.contains("tail")); }
  function askForm() { return document.getElementById("ask-form"); }
  // By data-status, not the class: HTMX keeps the old class while it settles.
  function streaming() { return document.querySelector('#messages .msg[data-status="streaming"]'); }

  // isAsk reports whether a request came from the question form or a
  // suggestion chip, whose refusals are shown under the input.
  function isAsk(elt) {
    return !!elt && (elt.id === "ask-form" || !!(elt.closest && elt.closest(".suggestions")));
  }
  // sourceOf is the element an HTMX event's request came from.
  function sourceOf(e) { return e.detail.requestConfig ? e.detail.requestConfig.elt : e.detail.elt; }
  function retryForm(elt) {
    return elt && elt.closest ? elt.closest(".answer-error form") : null;
  }
  function versionsForm(elt) {
    return elt && elt.closest ? elt.closest(".versions form") : null;
  }
  // inlineForm is a form on a bubble (Regenerate, ‹ ›, Continue, Edit)
  // whose refusal is told in the bubble, which stays as it was.
  function inlineForm(elt) {
    return elt && elt.closest ? elt.closest(".versions form, .continue-form, .edit-form") : null;
  }

  // refusalText is what an error response says: the server's inline
  // message, the error box's title and explanation, or the fallback.
  function refusalText(xhr, fallback) {
    var text = "";
    var ct = xhr && xhr.getResponseHeader ? xhr.getResponseHeader("Content-Type") || "" : "";
    if (xhr && xhr.responseText && ct.indexOf("text/html") === 0) {
      var doc = new DOMParser().parseFromString(xhr.responseText, "text/html");
      var box = doc.querySelector(".error-page");
      if (box) {
        var parts = [];
        box.querySelectorAll("h1, p:not(.error-code):not(.muted)").forEach(function (p) {
          if (!p.querySelector("a")) parts.push(p.textContent.trim());
        });
        text = parts.join(" ");
      } else {
        text = (doc.body.textContent || "").trim();
      }
    }
    return text || fallback;
  }

  function showAskError(text) {
    var err = document.getElementById("ask-error");
    if (err) err.textContent = text;
  }

  function showRetryFailed(form, extra) {
    var note = form.parentElement.querySelector(".retry-again");
    if (!note) return;
    note.textContent = note.dataset.refused + (extra ? " " + extra : "");
    note.hidden = false;
  }

  function retryIdle(form) {
    var btn = form.querySelector("button.retry");
    if (!btn || !btn.dataset.label) return;
    btn.textContent = btn.dataset.label;
    btn.disabled = false;
    btn.removeAttribute("aria-busy");
  }

  // A refusal the server placed itself (HX-Retarget) is swapped as sent;
  // any other error response is not drawn into the messages but explained.
  document.addEventListener("htmx:beforeSwap", function (e) {
    var xhr = e.detail.xhr;
    if (!xhr || xhr.status < 400) return;
    var elt = sourceOf(e);
    var retry = retryForm(elt);
    if (isAsk(elt)) {
      if (xhr.getResponseHeader("HX-Retarget")) return;
      e.detail.shouldSwap = false;
      var f = askForm();
      showAskError(refusalText(xhr, f ? f.dataset.errNetwork : ""));
    } else if (retry) {
      e.detail.shouldSwap = false;
      retryIdle(retry);
      showRetryFailed(retry, refusalText(xhr, ""));
    } else if (inlineForm(elt)) {
      e.detail.shouldSwap = false;
      var form = inlineForm(elt);
      var note = form.querySelector("[data-refusal]") || form.closest("article").querySelector("[data-refusal]");
      if (note) note.textContent = refusalText(xhr, "");
    }
  });

  // Switching versions redraws the answer: focus stays on the arrow
  // pressed, or on the other one once the end is reached.
  var switched = null;
  document.addEventListener("htmx:beforeRequest", function (e) {
    var form = versionsForm(e.detail.elt);
    var btn = form && form.querySelector("button[aria-label]");
    switched = btn ? { answer: form.closest("article").id, label: btn.getAttribute("aria-label") } : null;
  });
  document.addEventListener("htmx:afterSettle", function () {
    if (!switched) return;
    var buttons = document.querySelectorAll("#" + switched.answer + " .versions button[aria-label]:not([disabled])");
    var pick = null;
    buttons.forEach(function (b) { if (!pick || b.getAttribute("aria-label") === switched.label) pick = b; });
    switched = null;
    if (pick) pick.focus();
  });

  // No response at all (offline, the server gone): the same, from the page.
  function unreachable(e) {
    var elt = sourceOf(e);
    var retry = retryForm(elt);
    var f = askForm();
    if (isAsk(elt) && f) showAskError(f.dataset.errNetwork);
    if (retry) {
      retryIdle(retry);
      showRetryFailed(retry, f ? f.dataset.errNetwork : "");
    }
  }
  document.addEventListener("htmx:sendError", unreachable);
  document.addEventListener("htmx:timeout", unreachable);

  // Retry shows it is working; the answer it reopens is remembered, so that
  // when it fails again its bubble says so.
  var retried = {};
  document.addEventListener("htmx:beforeRequest", function (e) {
    var form = retryForm(e.detail.elt);
    if (!form) return;
    var btn = form.querySelector("button.retry");
    var art = form.closest("article");
    if (art) retried[art.id] = true;
    if (!btn) return;
    btn.dataset.label = btn.textContent;
    btn.textContent = btn.dataset.busyLabel;
    btn.disabled = true;
    btn.setAttribute("aria-busy", "true");
  });
  function markFailedAgain() {
    document.querySelectorAll('.msg.assistant[data-status="failed"]').forEach(function (art) {
      if (!retried[art.id]) return;
      var note = art.querySelector(".retry-again");
      if (note && note.hidden) {
        note.textContent = note.dataset.again;
        note.hidden = false;
      }
    });
  }

  // While an answer is being written, Send is Stop; a question sent
  // meanwhile (Enter) waits for the answer to end and then goes.
  var queued = null;
  function syncSend() {
    var send = document.getElementById("send");
    if (!send) return;
    var busy = !!streaming();
    if (busy && send.dataset.mode !== "stop") {
      send.dataset.mode = "stop";
      send.textContent = send.dataset.stopLabel;
      send.classList.add("danger");
    } else if (!busy && send.dataset.mode === "stop") {
      delete send.dataset.mode;
      send.textContent = send.dataset.sendLabel;
      send.classList.remove("danger");
      if (queued) {
        var go = queued;
        queued = null;
        go(true);
      }
    }
  }
  document.addEventListener("click", function (e) {
    var send = e.target.closest && e.target.closest("#send");
    if (!send || send.dataset.mode !== "stop") return;
    e.preventDefault();
    // Through HTMX directly: a click on the answer's own Stop in the few
    // milliseconds before HTMX wired it would post the page away.
    var stop = document.querySelector('#messages .msg[data-status="streaming"] form.stop-form');
    if (stop && window.htmx) htmx.ajax("POST", stop.getAttribute("hx-post"), { source: stop, swap: "none" });
  }, true);
  document.addEventListener("htmx:confirm", function (e) {
    if (!isAsk(e.detail.elt) || !streaming()) return;
    e.preventDefault();
    queued = e.detail.issueRequest;
    var f = askForm();
    if (f) showAskError(f.dataset.queued);
  });

  // The next answer's stream (views/nextanswer.templ): opened as the
  // student starts writing a question, so the answer's first words come on it
  // without a second request. The ask sends its ticket; when the answer
  // says it handed the answer to that stream, the bubble moves under the
  // question and shows. Otherwise the answer's own bubble comes as before.
  function openNext() {
    var box = document.getElementById("next-answer");
    var tpl = box && box.querySelector("template");
    if (!tpl || !window.htmx || box.querySelector("article")) return;
    var bubble = tpl.content.firstElementChild.cloneNode(true);
    box.appendChild(bubble);
    bubble.setAttribute("sse-connect", tpl.dataset.stream);
    htmx.process(bubble);
    box.querySelector('input[name="next"]').value = tpl.dataset.ticket;
  }
  // On the first keystroke, not on focus: a page open in a tab holds no
  // connection until its student writes (a browser gives a site only six).
  document.addEventListener("input", function (e) { if (e.target && e.target.id === "q") openNext(); });
  // adopt names a next answer's bubble after its answer (its element ids
  // and the targets of its swaps), as the answer's own bubble is named:
  // when its stream says which answer it carries, or when the ask does.
  function adopt(bubble, mid) {
    if (!bubble || bubble.dataset.adopted) return;
    bubble.dataset.adopted = mid;
    var old = bubble.id; // "next-<ticket>", its parts "body-next-<ticket>"…
    bubble.querySelectorAll("[id]").forEach(function (el) { el.id = el.id.replace(old, mid); });
    bubble.querySelectorAll("[hx-target]").forEach(function (el) {
      var t = el.getAttribute("hx-target");
      el.setAttribute("hx-target", t === "#" + old ? "#m-" + mid : t.replace(old, mid));
    });
    bubble.id = "m-" + mid;
  }
  document.addEventListener("htmx:sseBeforeMessage", function (e) {
    var elt = e.target;
    if (elt && elt.hasAttribute && elt.hasAttribute("data-next-answer")) adopt(elt.closest("article"), e.detail.data);
  });
  var handed = null;
  document.addEventListener("htmx:beforeSwap", function (e) {
    var xhr = e.detail.xhr;
    var ticket = xhr && xhr.status < 300 && xhr.getResponseHeader("Aula-Next-Answer");
    var id = ticket && xhr.getResponseHeader("Aula-Next-Id");
    // By its ticket while it streams; by the answer's id once its end
    // (done, or an error) has replaced it, still in the form.
    var bubble = ticket && (document.querySelector('#next-answer article[data-ticket="' + ticket + '"]') ||
      document.querySelector('#next-answer article[id="m-' + id + '"]'));
    if (!bubble) return;
    // Out of the form before the swap replaces it (the new ticket's box,
    // or the whole panel for its first question), never out of the page:
    // the stream closes when its bubble leaves.
    document.body.appendChild(bubble);
    var said = document.getElementById("announce");
    handed = { bubble: bubble, id: id, stop: xhr.getResponseHeader("Aula-Next-Stop"), said: said ? said.textContent : "" };
  });
  // After the settle, not the swap: a panel drawn anew is wired by HTMX
  // as it is swapped in, and would wire the bubble a second stream. Until
  // then the bubble waits at the end of the page, hidden; if the answer
  // ended meanwhile its finished bubble stands there, and moves instead.
  document.addEventListener("htmx:afterSettle", function () {
    if (!handed) return;
    var h = handed;
    handed = null;
    var list = document.getElementById("messages");
    var shown = document.getElementById("m-" + h.id) || h.bubble;
    // Still streaming: it holds the answer event's listener (a finished
    // or failed bubble does not).
    if (shown.querySelector("[data-next-answer]")) {
      adopt(shown, h.id);
      var stop = shown.querySelector("form.stop-form");
      if (stop) {
        stop.setAttribute("action", h.stop);
        stop.setAttribute("hx-post", h.stop);
        htmx.process(stop);
      }
      shown.className = "msg assistant streaming";
      shown.dataset.status = "streaming";
      shown.setAttribute("aria-busy", "true");
      shown.hidden = false;
    }
    if (list) list.appendChild(shown); // under the question now in
    // A panel drawn anew brings an empty live region: an answer that
    // ended before it came had already said itself there.
    var live = document.getElementById("announce");
    if (live && !live.textContent && h.said && shown.dataset.status === "complete") live.textContent = h.said;
    sync();
  });

  // With JavaScript the placeholder can promise what Enter does.
  function placeholder() {
    var q = document.getElementById("q");
    // Only when it differs: a write is a mutation even when nothing changes.
    if (q && q.dataset.jsPlaceholder && q.placeholder !== q.dataset.jsPlaceholder) q.placeholder = q.dataset.jsPlaceholder;
  }

  function sync() {
    syncSend();
    markFailedAgain();
    placeholder();
  }
  // app.js observes the page and says once per frame that it changed.
  // Send↔Stop also follows each swap at once: a frame later the button
  // would change size under a click already aimed at the page.
  document.addEventListener("aula:changed", sync);
  document.addEventListener("htmx:afterSwap", function (e) {
    if (!isTail(e.target)) sync();
  });
  // A deferred script runs once the page is parsed: settle the input now,
  // before app.js scrolls the list to its newest message on DOMContentLoaded.
  sync();
})();

// Drag and drop in Admin → Content: a path, module or lesson dragged by its
// head among its siblings posts the same reorder form as its arrows, with
// its new 1-based position ("to"); the 303 reloads the catalog from what
// was stored. Without JavaScript (and from the keyboard) the arrows do it.
(function () {
  "use strict";

  var dragged = null, startIndex = -1;

  function items(list) {
    return Array.prototype.filter.call(list.children, function (li) {
      return li.matches("li[data-order-url]");
    });
  }

  function field(form, name, value) {
    var input = document.createElement("input");
    input.type = "hidden";
    input.name = name;
    input.value = value;
    form.appendChild(input);
  }

  function post(url, to) {
    var token = document.querySelector('meta[name="csrf-token"]');
    var form = document.createElement("form");
    form.method = "post";
    form.action = url;
    form.hidden = true;
    field(form, "_csrf", token ? token.content : "");
    field(form, "to", String(to));
    document.body.appendChild(form);
    form.submit();
  }

  // sibling is the item of dragged's list that holds el, if any.
  function sibling(el) {
    var li = el && el.closest ? el.closest("li[data-order-url]") : null;
    while (li && li.parentNode !== dragged.parentNode) {
      li = li.parentNode.closest("li[data-order-url]");
    }
    return li;
  }

  function finish() {
    if (!dragged) return;
    var li = dragged;
    dragged = null;
    li.classList.remove("dragging");
    var at = items(li.parentNode).indexOf(li);
    if (at !== startIndex) post(li.dataset.orderUrl, at + 1);
  }

  function setup() {
    var heads = document.querySelectorAll("[data-reorder] > li[data-order-url] > .content-head");
    if (!heads.length) return;
    heads.forEach(function (h) { h.draggable = true; });
    document.querySelectorAll(".drag-hint").forEach(function (s) { s.hidden = false; });
  }

  document.addEventListener("dragstart", function (e) {
    var head = e.target.closest ? e.target.closest(".content-head[draggable=true]") : null;
    if (!head) return;
    dragged = head.parentNode;
    startIndex = items(dragged.parentNode).indexOf(dragged);
    e.dataTransfer.effectAllowed = "move";
    e.dataTransfer.setData("text/plain", dragged.id);
    dragged.classList.add("dragging");
  });

  document.addEventListener("dragover", function (e) {
    if (!dragged) return;
    var over = sibling(e.target);
    if (!over) return;
    e.preventDefault();
    if (over === dragged) return;
    var r = over.getBoundingClientRect();
    var after = e.clientY > r.top + r.height / 2;
    over.parentNode.insertBefore(dragged, after ? over.nextSibling : over);
  });

  document.addEventListener("drop", function (e) {
    if (!dragged) return;
    e.preventDefault();
    finish();
  });
  document.addEventListener("dragend", finish);

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setup);
  } else {
    setup();
  }
})();

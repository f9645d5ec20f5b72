// Lesson images: the component beside the lesson editor shows an Insert
// button on each image's Markdown; it writes the Markdown at the cursor of
// the lesson's textarea (the component's data-textarea) as typing would,
// so Undo takes it back and the preview, listening for input, refreshes.
// Without JavaScript the buttons stay hidden and the Markdown is there to
// copy.
(function () {
  "use strict";

  function textarea(box) {
    var id = box && box.dataset.textarea;
    return id ? document.getElementById(id) : null;
  }

  function enhance() {
    document.querySelectorAll(".lesson-images").forEach(function (box) {
      if (!textarea(box)) return;
      box.querySelectorAll(".insert-image[hidden]").forEach(function (b) { b.hidden = false; });
    });
  }

  function insert(ta, text) {
    var start = ta.selectionStart, end = ta.selectionEnd;
    ta.focus();
    ta.setSelectionRange(start, end);
    // execCommand keeps the browser's undo history; where it is gone,
    // setRangeText writes the same and input is dispatched by hand.
    if (!document.execCommand || !document.execCommand("insertText", false, text)) {
      ta.setRangeText(text, start, end, "end");
      ta.dispatchEvent(new Event("input", { bubbles: true }));
    }
    ta.dispatchEvent(new Event("change", { bubbles: true }));
  }

  document.addEventListener("click", function (e) {
    var b = e.target.closest && e.target.closest(".insert-image");
    if (!b) return;
    var ta = textarea(b.closest(".lesson-images"));
    if (!ta) return;
    insert(ta, b.dataset.md);
    if (!b.dataset.label) b.dataset.label = b.textContent;
    b.textContent = b.dataset.done;
    clearTimeout(b.doneTimer);
    b.doneTimer = setTimeout(function () { b.textContent = b.dataset.label; }, 2000);
  });

  // The component is swapped in whole after an upload.
  document.addEventListener("htmx:afterSettle", enhance);
  enhance();
})();

// Reviewing by keyboard: p and f press the Pass and Fail buttons (which submit the review), n follows the "next"
// link; each key acts on the element marked data-review-key="<key>". Keys typed into a field, or with a modifier, are the
// field's: a note may well contain a "p".
(function () {
  "use strict";

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return;
    var target = event.target;
    if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return;
    var key = event.key && event.key.toLowerCase();
    if (key !== "p" && key !== "f" && key !== "n") return;
    var element = document.querySelector('[data-review-key="' + key + '"]');
    if (!element) return;
    event.preventDefault();
    element.click();
  });
})();

// Servers: show only the chosen transport's fields, and filter a tool list as you type.
// Listeners sit on the document, so they keep working after htmx swaps in a new inspection.
(function () {
  "use strict";

  function showTransport(form) {
    var checked = form.querySelector('input[name="transport"]:checked');
    if (!checked) return;
    form.querySelectorAll("fieldset[data-transports]").forEach(function (fieldset) {
      fieldset.hidden = fieldset.dataset.transports.split(" ").indexOf(checked.value) === -1;
    });
  }

  function filterTools(input) {
    var list = input.closest("[data-tool-list]");
    var query = input.value.trim().toLowerCase();
    var tools = list.querySelectorAll("[data-search]");
    var shown = 0;
    tools.forEach(function (tool) {
      var match = !query || tool.dataset.search.indexOf(query) !== -1;
      tool.hidden = !match;
      if (match) shown += 1;
    });
    var count = list.querySelector("[data-tool-count]");
    if (count) count.textContent = query ? shown + " of " + tools.length + " tools" : tools.length + " tools";
    var none = list.querySelector("[data-tool-none]");
    if (none) none.hidden = shown > 0;
  }

  document.addEventListener("change", function (event) {
    var form = event.target.closest("[data-server-form]");
    if (form && event.target.name === "transport") showTransport(form);
  });
  document.addEventListener("input", function (event) {
    if (event.target.matches("[data-tool-filter]")) filterTools(event.target);
  });
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("[data-server-form]").forEach(showTransport);
  });
})();

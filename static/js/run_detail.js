// The run page's reader: remembers which collapsibles a reader opened or closed, so the page's live refreshes
// (the run body is replaced while a run goes on) do not fold everything back; copies values to the clipboard;
// opens whatever a "#call-3" link points to; and counts a running run's clocks on. Without JavaScript the page
// still reads top to bottom.
(function () {
  "use strict";

  var storageKey = "evalhub-open:" + location.pathname;
  var chosen = {};
  try { chosen = JSON.parse(sessionStorage.getItem(storageKey) || "{}"); } catch (error) { chosen = {}; }

  function remember(details) {
    chosen[details.dataset.key] = details.open;
    try { sessionStorage.setItem(storageKey, JSON.stringify(chosen)); } catch (error) { /* storage full: memory only */ }
  }

  function restore(root) {
    if (!root.querySelectorAll) return;
    var found = root.matches && root.matches("details[data-key]") ? [root] : [];
    found = found.concat(Array.prototype.slice.call(root.querySelectorAll("details[data-key]")));
    found.forEach(function (details) {
      var wanted = chosen[details.dataset.key];
      if (wanted !== undefined && details.open !== wanted) details.open = wanted;
    });
  }

  // Only what the reader chose is remembered (a click on a summary, or the keyboard, which clicks it too); what
  // the server opens by default (failed calls, the first levels of a tree) stays its choice until then.
  document.addEventListener("click", function (event) {
    var summary = event.target.closest && event.target.closest("summary");
    if (!summary || event.target.closest(".copy-button")) return;
    var details = summary.parentElement;
    if (!details || !details.dataset.key) return;
    setTimeout(function () { remember(details); }, 0);
  });

  // Runs in a microtask after the body is replaced, before the browser paints it: no flicker.
  new MutationObserver(function (mutations) {
    mutations.forEach(function (mutation) {
      Array.prototype.forEach.call(mutation.addedNodes, restore);
    });
  }).observe(document.documentElement, { childList: true, subtree: true });

  function valueAt(tree, path) {
    var value = JSON.parse(tree.dataset.json);
    path.forEach(function (step) { value = value[step]; });
    return value;
  }

  function copyText(button) {
    if (button.dataset.copy !== undefined) return button.dataset.copy;
    var tree = button.closest(".json-tree");
    return JSON.stringify(valueAt(tree, JSON.parse(button.dataset.jsonPath)), null, 2);
  }

  function fallbackCopy(text) {
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    var done = document.execCommand("copy");
    document.body.removeChild(area);
    return done ? Promise.resolve() : Promise.reject(new Error("copy refused"));
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest(".copy-button");
    if (!button) return;
    // A copy button sits in a summary: copying must not also fold or unfold it.
    event.preventDefault();
    event.stopPropagation();
    var text = copyText(button);
    var copying = navigator.clipboard && window.isSecureContext ? navigator.clipboard.writeText(text) : fallbackCopy(text);
    var label = button.textContent;
    copying.then(function () { button.textContent = "Copied"; }, function () { button.textContent = "Copy failed"; })
      .then(function () { setTimeout(function () { button.textContent = label; }, 1500); });
  }, true);

  function reveal(hash) {
    if (!hash || hash.length < 2) return;
    var target = document.getElementById(decodeURIComponent(hash.slice(1)));
    if (!target) return;
    for (var node = target; node; node = node.parentElement) {
      if (node.tagName === "DETAILS" && !node.open) {
        node.open = true;
        if (node.dataset.key) remember(node);
      }
    }
    target.scrollIntoView({ block: "start" });
    target.classList.remove("flash");
    void target.offsetWidth;  // restart the highlight's animation
    target.classList.add("flash");
  }

  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest('a[href^="#"]');
    if (!link) return;
    var hash = link.getAttribute("href");
    if (!document.getElementById(decodeURIComponent(hash.slice(1)))) return;
    event.preventDefault();
    history.pushState(null, "", hash);
    reveal(hash);
  });
  // A running run's clocks (its time so far, the step in flight) count on between the body's refreshes, which
  // come only when something happens: a tool running for a minute sends nothing meanwhile. Each counts from the
  // time the server drew it (data-ticking-ms) plus the time since it reached the page, so clock skew is no matter.
  function formatDuration(ms) {
    if (ms < 1000) return Math.round(ms) + " ms";
    var seconds = ms / 1000;
    if (seconds < 60) return seconds.toFixed(1) + " s";
    return Math.floor(seconds / 60) + " min " + Math.floor(seconds % 60) + " s";
  }

  function tick() {
    var now = performance.now();
    document.querySelectorAll("[data-ticking-ms]").forEach(function (clock) {
      if (!clock.dataset.tickingFrom) clock.dataset.tickingFrom = String(now);
      clock.textContent = formatDuration(Number(clock.dataset.tickingMs) + now - Number(clock.dataset.tickingFrom));
    });
  }
  setInterval(tick, 250);

  window.addEventListener("hashchange", function () { reveal(location.hash); });
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { restore(document); reveal(location.hash); });
  } else {
    restore(document);
    reveal(location.hash);
  }
})();

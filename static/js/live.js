// Live parts of a page, driven by the event stream (GET /api/v1/events, server-sent events).
//
// An element with data-live-events="run=5" (the stream's filter) and an id is refreshed by htmx whenever one of its
// events arrives: it declares hx-trigger="evalhub:live" and this script sends that trigger, at most every 250 ms,
// so a burst of steps costs one refresh. When a refresh returns the element without data-live-events (the run
// finished), its stream is closed. The browser reconnects a dropped stream by itself with Last-Event-ID; if the
// server refuses the stream outright, the element is refreshed every 2 s instead, so the page never goes stale.
(function () {
  "use strict";

  var TYPES = ["run.queued", "run.started", "run.step", "run.finished", "run.scored", "experiment.progress"];
  var DEBOUNCE_MS = 250;
  var FALLBACK_MS = 2000;
  var followed = {}; // element id -> {query, source, timer, fallback}

  function refresh(id) {
    var entry = followed[id];
    if (!entry || entry.timer) return;
    entry.timer = setTimeout(function () {
      entry.timer = null;
      var element = document.getElementById(id);
      if (element && window.htmx) window.htmx.trigger(element, "evalhub:live");
    }, DEBOUNCE_MS);
  }

  function follow(id, query) {
    var source = new EventSource("/api/v1/events?keepalive=5&" + query);
    var entry = { query: query, source: source, timer: null, fallback: null };
    TYPES.forEach(function (type) {
      source.addEventListener(type, function () { refresh(id); });
    });
    source.addEventListener("stream.gap", function () { refresh(id); });
    source.addEventListener("open", function () { refresh(id); }); // catch up on what happened while (re)connecting
    source.addEventListener("error", function () {
      if (source.readyState === EventSource.CLOSED && !entry.fallback) {
        entry.fallback = setInterval(function () { refresh(id); }, FALLBACK_MS);
      }
    });
    followed[id] = entry;
  }

  function stop(id) {
    var entry = followed[id];
    entry.source.close();
    clearTimeout(entry.timer);
    clearInterval(entry.fallback);
    delete followed[id];
  }

  function sync() {
    var wanted = {};
    document.querySelectorAll("[data-live-events][id]").forEach(function (element) {
      wanted[element.id] = element.dataset.liveEvents;
    });
    Object.keys(followed).forEach(function (id) {
      if (wanted[id] !== followed[id].query) stop(id);
    });
    Object.keys(wanted).forEach(function (id) {
      if (!followed[id]) follow(id, wanted[id]);
    });
  }

  document.addEventListener("DOMContentLoaded", sync);
  document.addEventListener("htmx:afterSettle", sync);
  window.addEventListener("pagehide", function () { Object.keys(followed).forEach(stop); });
})();

// Live parts of a page, driven by the event stream (GET /api/v1/events, server-sent events).
//
// An element with data-live-events="run=5" (the stream's filter) and an id is refreshed by htmx whenever one of its
// events arrives: it declares hx-trigger="evalhub:live" and this script sends that trigger, at most every 250 ms,
// so a burst of steps costs one refresh. When a refresh returns the element without data-live-events (the run
// finished), its stream is closed. The browser reconnects a dropped stream by itself with Last-Event-ID; if the
// server refuses the stream outright (429: the user's or the process's streams are all taken), the element is
// refreshed every 2 s instead, so the page never goes stale.
//
// A list of scenarios follows one stream for all its rows: with data-live-each="last-score-", an event refreshes
// only the part whose id is that prefix plus the event's scenario_id; a reconnect or the fallback refreshes the
// parts marked data-live-active (a run under way), since events may have been missed meanwhile.
(function () {
  "use strict";

  var TYPES = ["run.queued", "run.started", "run.step", "run.finished", "run.scored", "experiment.progress"];
  var DEBOUNCE_MS = 250;
  var FALLBACK_MS = 2000;
  var followed = {}; // element id -> {query, source, fallback}
  var pending = {}; // element id -> timer of its refresh

  function refresh(id) {
    if (pending[id]) return;
    pending[id] = setTimeout(function () {
      delete pending[id];
      var element = document.getElementById(id);
      if (element && window.htmx) window.htmx.trigger(element, "evalhub:live");
    }, DEBOUNCE_MS);
  }

  // What one event (or, without one, a reconnect or the fallback) refreshes of the followed element `id`.
  function refreshFor(id, message) {
    var element = document.getElementById(id);
    var prefix = element && element.dataset.liveEach;
    if (!prefix) {
      refresh(id);
    } else if (message) {
      var scenario = null;
      try { scenario = JSON.parse(message.data).data.scenario_id; } catch (error) { scenario = null; }
      if (scenario != null) refresh(prefix + scenario);
    } else {
      element.querySelectorAll("[data-live-active][id]").forEach(function (part) { refresh(part.id); });
    }
  }

  function follow(id, query) {
    var source = new EventSource("/api/v1/events?keepalive=5&" + query);
    var entry = { query: query, source: source, fallback: null };
    TYPES.forEach(function (type) {
      source.addEventListener(type, function (message) { refreshFor(id, message); });
    });
    source.addEventListener("stream.gap", function () { refreshFor(id, null); });
    // Catch up on what happened while (re)connecting.
    source.addEventListener("open", function () { refreshFor(id, null); });
    source.addEventListener("error", function () {
      if (source.readyState === EventSource.CLOSED && !entry.fallback) {
        entry.fallback = setInterval(function () { refreshFor(id, null); }, FALLBACK_MS);
      }
    });
    followed[id] = entry;
  }

  function stop(id) {
    var entry = followed[id];
    entry.source.close();
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

// Filters the timeline by hook, decision, phase and (with a config in
// shadow) whether the shadow configs would change the event
// (`shadow:change` or `shadow:none`): from the selects, and
// on load from `#filter=KEY:VALUE,...` (or `?filter=`). Each event gets
// `hidden` and `data-shown="0"` when it does not match, `data-shown="1"`
// when it does; the body's `data-filter` names the filter applied.
(function () {
  "use strict";
  var form = document.getElementById("filters");
  var keys = ["hook", "decision", "phase", "shadow"];
  var events = document.querySelectorAll("#timeline > .event");

  function parse(text) {
    var filter = {};
    var m = /(?:^|[#?&])filter=([^&#]*)/.exec(text || "");
    if (!m) { return filter; }
    m[1].split(",").forEach(function (part) {
      var i = part.indexOf(":");
      if (i < 0) { return; }
      var key, value;
      try {
        key = decodeURIComponent(part.slice(0, i));
        value = decodeURIComponent(part.slice(i + 1));
      } catch (e) {
        return; // a malformed %-escape: that part is ignored
      }
      if (keys.indexOf(key) >= 0) { filter[key] = value; }
    });
    return filter;
  }

  function matches(ev, filter) {
    if (filter.decision && ev.getAttribute("data-decision") !== filter.decision) { return false; }
    if (filter.phase && ev.getAttribute("data-phase") !== filter.phase) { return false; }
    if (filter.shadow && ev.getAttribute("data-shadow") !== filter.shadow) { return false; }
    if (filter.hook) {
      var hooks = ev.querySelectorAll("[data-hook]");
      for (var i = 0; i < hooks.length; i++) {
        if (hooks[i].getAttribute("data-hook") === filter.hook) { return true; }
      }
      return false;
    }
    return true;
  }

  function apply(filter) {
    var shown = 0;
    for (var i = 0; i < events.length; i++) {
      var ok = matches(events[i], filter);
      events[i].hidden = !ok;
      events[i].setAttribute("data-shown", ok ? "1" : "0");
      if (ok) { shown++; }
    }
    var parts = keys.filter(function (k) { return filter[k]; }).map(function (k) {
      return k + ":" + filter[k];
    });
    document.body.setAttribute("data-filter", parts.join(","));
    document.getElementById("shown-count").textContent =
      shown === 1 ? "1 event" : String(shown) + " events";
    keys.forEach(function (k) {
      var select = document.getElementById("filter-" + k);
      if (select) { select.value = filter[k] || ""; }
    });
    return parts;
  }

  function fromSelects() {
    var filter = {};
    keys.forEach(function (k) {
      var select = document.getElementById("filter-" + k);
      if (select && select.value) { filter[k] = select.value; }
    });
    var parts = apply(filter).map(function (p) {
      var i = p.indexOf(":");
      return p.slice(0, i) + ":" + encodeURIComponent(p.slice(i + 1));
    });
    if (window.history && history.replaceState) {
      history.replaceState(null, "", parts.length ? "#filter=" + parts.join(",") : "#");
    }
  }

  form.hidden = false;
  keys.forEach(function (k) {
    var select = document.getElementById("filter-" + k);
    if (select) { select.addEventListener("change", fromSelects); }
  });
  window.addEventListener("hashchange", function () { apply(parse(location.hash)); });
  apply(parse(location.hash || location.search));
})();

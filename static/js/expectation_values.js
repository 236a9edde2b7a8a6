// An expected value's editor, for the Expectations editor (expectations.js): pick a matcher from the engine's list
// (or "equals" for a literal), with its description, and fill its argument. The compositions ($not, $allOf, $anyOf,
// $exactlyOne) hold editors of their own, so they nest as deep as the author needs. Also the small DOM helpers both
// scripts share, on window.EvalHubExpectations.
(function () {
  "use strict";

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (name) {
      if (name === "text") node.textContent = attrs[name];
      else if (name === "hidden") node.hidden = attrs[name];
      else node.setAttribute(name, attrs[name]);
    });
    (children || []).forEach(function (child) { if (child) node.appendChild(child); });
    return node;
  }

  function input(type, value, label, onInput) {
    var node = el("input", { type: type, "aria-label": label });
    node.value = value === undefined || value === null ? "" : value;
    node.addEventListener("input", function () { onInput(node.value); });
    return node;
  }

  function select(options, value, label, onChange) {
    // A value the page does not know (a typo in the JSON, a newer file) is shown as it is, never as another one.
    var known = options.some(function (option) { return option[0] === value; });
    if (!known) options = [[value, value ? value + " (unknown)" : "(none)"]].concat(options);
    var node = el("select", { "aria-label": label }, options.map(function (option) {
      return el("option", { value: option[0], text: option[1] });
    }));
    node.value = value;
    node.addEventListener("change", function () { onChange(node.value); });
    return node;
  }

  // A typed value: JSON when it reads as JSON (48.85, true, [1, 2], {"a": 1}), else the text itself.
  function parseLiteral(text) {
    try { return JSON.parse(text); } catch (error) { return text; }
  }

  function showLiteral(value) {
    if (value === undefined) return "";
    if (typeof value === "string") {
      // A string that would read back as something else keeps its quotes: "48.85" stays a string.
      return typeof parseLiteral(value) === "string" ? value : JSON.stringify(value);
    }
    return JSON.stringify(value);
  }

  function commaList(values) {
    return Array.isArray(values) ? values.map(showLiteral).join(", ") : "";
  }

  function readCommaList(text) {
    return text.split(",").map(function (s) { return s.trim(); }).filter(Boolean).map(parseLiteral);
  }

  // A value's matcher: "$range" for {"$range": [0, 1]}; an unknown one ({"$rnage": …}) too, so it is shown as
  // itself and kept, never read as "equals this object".
  function matcherOf(value) {
    if (value && typeof value === "object" && !Array.isArray(value)) {
      var keys = Object.keys(value);
      if (keys.length === 1 && keys[0].charAt(0) === "$") return keys[0];
    }
    return "";
  }

  function wrap(name, argument) { var o = {}; o[name] = argument; return o; }

  var COMPOSE = ["$allOf", "$anyOf", "$exactlyOne"];
  var TEXT = ["$regex", "$icontains", "$startsWith"];
  var LISTS = { $oneOf: "Allowed values", $containsAll: "Every one of", $containsAny: "Any of" };

  // The editor of one expected value. `label` names it for screen readers ("latitude"); `onChange(value)` hears
  // every edit. Returns its parts, for the caller to lay out: the matcher select, the argument's inputs, the
  // help line (the matcher's description) and the operands of a composition.
  function valueEditor(spec, value, label, onChange) {
    var known = function (name) { return Object.prototype.hasOwnProperty.call(spec.matchers, name); };
    var current = matcherOf(value), argument = current ? value[current] : value, read = function () { return value; };
    var options = [["", "equals"]].concat(Object.keys(spec.matchers).map(function (m) { return [m, m]; }));
    var kind = select(options, current, "Matcher for " + label, function () {
      argument = spec.matcherExamples[kind.value];
      draw();
      emit();
    });
    var values = el("span", { class: "inline-inputs" });
    var help = el("div", { class: "help arg-help" });
    var operands = el("div", { class: "value-operands", hidden: true });
    function emit() { onChange(read()); }

    function field(type, shown, name) { return input(type, shown, name, emit); }

    function nested(operand, name) {
      var part = valueEditor(spec, operand, name, emit);
      var box = el("div", { class: "value-operand" }, [part.kind, part.values, part.help, part.operands]);
      box.read = part.read;
      return box;
    }

    function operandList(list, name) {
      var add = el("button", { type: "button", class: "button button-small", text: "Add operand" });
      function append(operand) {
        var box = nested(operand, name + " operand " + (operands.querySelectorAll(":scope > .value-operand").length + 1));
        var remove = el("button", { type: "button", class: "link-button", text: "✕", "aria-label": "Remove operand" });
        remove.addEventListener("click", function () { box.remove(); emit(); });
        box.insertBefore(remove, box.children[2]);
        operands.insertBefore(box, add);
      }
      operands.appendChild(add);
      (Array.isArray(list) && list.length ? list : [""]).forEach(append);
      add.addEventListener("click", function () { append(""); emit(); });
      return function () {
        return Array.prototype.map.call(operands.querySelectorAll(":scope > .value-operand"), function (box) {
          return box.read();
        });
      };
    }

    function draw() {
      var m = kind.value, inputs;
      values.textContent = "";
      operands.textContent = "";
      operands.hidden = true;
      help.textContent = !m ? "Equal to this value (JSON, or plain text for a string)."
        : known(m) ? spec.matchers[m]
        : "Unknown matcher “" + m + "”: EvalHub has none of that name. Pick one; until then its value is kept as it is.";
      kind.title = help.textContent;
      if (m === "$any") {
        read = function () { return { $any: true }; };
      } else if (m === "$type") {
        values.appendChild(select(spec.jsonTypes.map(function (t) { return [t, t]; }), argument || "number", "Type", emit));
        read = function () { return { $type: values.querySelector("select").value }; };
      } else if (m === "$range") {
        var bounds = Array.isArray(argument) ? argument : ["", ""];
        values.appendChild(field("number", bounds[0], "Minimum"));
        values.appendChild(el("span", { class: "muted", text: "to" }));
        values.appendChild(field("number", bounds[1], "Maximum"));
        read = function () {
          inputs = values.querySelectorAll("input");
          return { $range: [0, 1].map(function (i) { return inputs[i].value === "" ? null : Number(inputs[i].value); }) };
        };
      } else if (LISTS[m]) {
        values.appendChild(field("text", commaList(argument), LISTS[m] + ", comma-separated"));
        read = function () { return wrap(m, readCommaList(values.querySelector("input").value)); };
      } else if (TEXT.indexOf(m) !== -1) {
        values.appendChild(field("text", argument || "", m + " value"));
        read = function () { return wrap(m, values.querySelector("input").value); };
      } else if (m === "$levenshtein") {
        var reference = argument || {};
        values.appendChild(field("text", reference.value || "", "Reference text"));
        values.appendChild(field("number", reference.max, "Most edits"));
        read = function () {
          inputs = values.querySelectorAll("input");
          return { $levenshtein: { value: inputs[0].value, max: inputs[1].value === "" ? null : Number(inputs[1].value) } };
        };
      } else if (m === "$snapshot" || m === "$isXml" || m === "$isJson") {
        // true, or one optional setting: the snapshot's name, the XML root, the JSON's schema.
        var key = { $snapshot: "", $isXml: "root", $isJson: "schema" }[m];
        var setting = key ? (argument && typeof argument === "object" ? argument[key] : undefined) : argument;
        var names = { $snapshot: "Snapshot name (empty: keyed by where it is)", $isXml: "Root element (optional)",
          $isJson: "JSON Schema (optional)" };
        values.appendChild(field("text", setting === true || setting === undefined ? "" : m === "$isJson"
          ? JSON.stringify(setting) : setting, names[m]));
        read = function () {
          var text = values.querySelector("input").value.trim();
          if (!text) return wrap(m, true);
          return wrap(m, key ? wrap(key, m === "$isJson" ? parseLiteral(text) : text) : text);
        };
      } else if (m === "$not") {
        var inner = nested(argument, "not " + label);
        operands.appendChild(inner);
        operands.hidden = false;
        read = function () { return { $not: inner.read() }; };
      } else if (COMPOSE.indexOf(m) !== -1) {
        operands.hidden = false;
        var readList = operandList(argument, m.slice(1) + " " + label);
        read = function () { return wrap(m, readList()); };
      } else {
        // A literal, $contains, $equals, $schema, or a matcher the page does not know: its argument as JSON.
        values.appendChild(field("text", showLiteral(argument), m ? m + " value" : "Value"));
        read = function () {
          var typed = parseLiteral(values.querySelector("input").value);
          return m ? wrap(m, typed) : typed;
        };
      }
    }

    draw();
    return { kind: kind, values: values, help: help, operands: operands, read: function () { return read(); } };
  }

  window.EvalHubExpectations = {
    el: el, input: input, select: select, parseLiteral: parseLiteral, showLiteral: showLiteral, valueEditor: valueEditor,
  };
})();

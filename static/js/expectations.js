// The scenario form's Expectations editor: one row per expectation (pick a kind, fill its fields), kept in sync
// with the JSON textarea that the form posts. Kinds, fields and matcher descriptions come from the engine
// (#expectations-spec); every row is checked by the server as you type, so its sentence and its errors are the
// engine's own. Without JavaScript the textarea alone is the editor.
(function () {
  "use strict";

  var E = window.EvalHubExpectations, el = E.el, input = E.input, select = E.select;
  var spec, editor, textarea, list, rows, timer;
  // Rows just added and not filled in yet: their errors ("tool: required") wait until the user has typed.
  var untouched = new WeakSet();

  function kindOf(name) {
    return spec.kinds.filter(function (kind) { return kind.name === name; })[0] || spec.kinds[0];
  }

  // A row's kind as the page shows it: an unknown one (a typo, a newer file) is a kind of its own with no fields,
  // so the row never shows another kind's fields as if they applied; the server's check names the error.
  function shownKind(row) {
    var known = spec.kinds.filter(function (kind) { return kind.name === row.kind; })[0];
    if (known) return known;
    var name = row.kind === undefined || row.kind === null ? "" : String(row.kind);
    return {
      name: name, fields: [], required: [], oneOf: [], unknown: true,
      description: (name ? "Unknown kind “" + name + "”: EvalHub has no check of that name"
        : "No kind: EvalHub cannot tell what this row checks") +
        ", so it is left as it is. Pick a kind; the values that kind takes are kept.",
    };
  }

  function set(row, name, value) {
    untouched.delete(row);
    if (value === undefined || value === "" || (Array.isArray(value) && !value.length)) delete row[name];
    else row[name] = value;
    changed();
  }

  // Widgets ------------------------------------------------------------------------------------------------

  function widget(row, field, label) {
    var name = field.name, value = row[name];
    switch (field.widget) {
      case "text":
        return input("text", value, label, function (text) { set(row, name, text); });
      case "integer":
      case "number":
        return input("number", value, label, function (text) { set(row, name, text === "" ? undefined : Number(text)); });
      case "flag":
        var box = el("input", { type: "checkbox", "aria-label": label });
        // Left out of the JSON, a flag is its default (required: on); only a change from it is written.
        box.checked = value === undefined ? field.default === true : value === true;
        box.addEventListener("change", function () {
          set(row, name, box.checked === (field.default === true) ? undefined : box.checked);
        });
        return box;
      case "select":
        return select([["", "default"]].concat(field.options.map(function (o) { return [o, o]; })), value || "", label,
          function (choice) { set(row, name, choice || undefined); });
      case "list":
        return input("text", (value || []).join(", "), label, function (text) {
          set(row, name, text.split(",").map(function (s) { return s.trim(); }).filter(Boolean));
        });
      case "call":
        return callWidget(row, field, label);
      case "args":
        return argsWidget(row, label);
      case "value":
        return valueWidget(row, name, label);
      default:
        return jsonWidget(row, name, label);
    }
  }

  function callWidget(row, field, label) {
    var value = row.call, isNth = value && typeof value === "object";
    var wrap = el("span", { class: "inline-inputs" });
    var n = input("number", isNth ? value.nth : 2, label + ": n", function () { update(); });
    n.min = "1";
    n.hidden = !isNth;
    var choice = select(field.options.map(function (o) { return [o, o === "nth" ? "nth call" : o]; }),
      isNth ? "nth" : value || field.options[0], label, function () { update(); });
    function update() {
      n.hidden = choice.value !== "nth";
      if (choice.value === "nth") set(row, "call", { nth: Number(n.value) });
      else set(row, "call", choice.value === field.options[0] ? undefined : choice.value);
    }
    wrap.appendChild(choice);
    wrap.appendChild(n);
    return wrap;
  }

  function jsonWidget(row, name, label) {
    var area = el("textarea", { rows: "3", class: "mono", "aria-label": label, spellcheck: "false" });
    area.value = row[name] === undefined ? "" : JSON.stringify(row[name], null, 2);
    var problem = el("div", { class: "field-error", hidden: true });
    area.addEventListener("input", function () {
      if (!area.value.trim()) { problem.hidden = true; return set(row, name, undefined); }
      try {
        set(row, name, JSON.parse(area.value));
        problem.hidden = true;
      } catch (error) {
        problem.hidden = false;
        problem.textContent = "Not valid JSON yet: " + error.message;
      }
    });
    return el("div", {}, [area, problem]);
  }

  // Arguments: one line per key, a matcher (or "equals") and its value; the object is rebuilt from the lines.
  function argsWidget(row, label) {
    var table = el("div", { class: "args", role: "group", "aria-label": label });
    var lines = el("div", { class: "arg-lines" });
    var add = el("button", { type: "button", class: "button button-small", text: "Add argument" });
    function rebuild() {
      var args = {};
      lines.querySelectorAll(".arg-line").forEach(function (line) {
        var key = line.querySelector("[data-arg-key]").value.trim();
        if (key) args[key] = line.readValue();
      });
      set(row, "args", Object.keys(args).length ? args : undefined);
    }
    Object.keys(row.args || {}).forEach(function (key) { lines.appendChild(argLine(key, row.args[key], rebuild)); });
    add.addEventListener("click", function () {
      var line = argLine("", undefined, rebuild);
      lines.appendChild(line);
      line.querySelector("[data-arg-key]").focus();
    });
    table.appendChild(lines);
    table.appendChild(add);
    return table;
  }

  function argLine(key, value, rebuild) {
    var line = el("div", { class: "arg-line" });
    var keyInput = input("text", key, "Argument name", rebuild);
    keyInput.setAttribute("data-arg-key", "");
    keyInput.placeholder = "argument";
    var part = E.valueEditor(spec, value, key || "this argument", rebuild);
    var remove = el("button", { type: "button", class: "link-button", "aria-label": "Remove argument", text: "✕" });
    remove.addEventListener("click", function () { line.remove(); rebuild(); });
    line.readValue = part.read;
    [keyInput, part.kind, part.values, remove, part.help, part.operands].forEach(function (node) {
      line.appendChild(node);
    });
    return line;
  }

  // A whole expected value (final_answer and tool_names `matches`, tool_result `equals`): the same editor.
  function valueWidget(row, name, label) {
    var part = E.valueEditor(spec, row[name], label, function (value) { set(row, name, value); });
    return el("div", { class: "value-editor" }, [
      el("div", { class: "inline-inputs" }, [part.kind, part.values]), part.help, part.operands,
    ]);
  }

  // Rows ---------------------------------------------------------------------------------------------------

  function fieldBlock(labelText, description, control) {
    return el("div", { class: "row-field" }, [
      el("span", { class: "row-field-label", text: labelText, title: description }),
      control,
    ]);
  }

  function renderRow(row, index) {
    var kind = shownKind(row), number = index + 1;
    var item = el("li", { class: "expectation-row", "data-index": String(index) });
    var kinds = select(spec.kinds.map(function (k) { return [k.name, k.name]; }), kind.name,
      "Kind of expectation " + number, function (name) {
        var next = { kind: name }, fields = kindOf(name).fields.map(function (f) { return f.name; });
        Object.keys(row).forEach(function (key) {
          if (fields.indexOf(key) !== -1 || ["weight", "required", "description", "turn"].indexOf(key) !== -1) {
            next[key] = row[key];
          }
        });
        if (untouched.has(row)) untouched.add(next); // choosing the kind is not filling it in
        rows[index] = next;
        render();
      });
    var remove = el("button", { type: "button", class: "link-button", text: "Remove",
      "aria-label": "Remove expectation " + number });
    remove.addEventListener("click", function () { rows.splice(index, 1); render(); });
    item.appendChild(el("div", { class: "row-head" }, [el("span", { class: "row-number", text: number + "." }), kinds,
      el("span", { class: "row-sentence", "data-sentence": "" }), remove]));
    item.appendChild(el("div", { class: kind.unknown ? "help help-warning" : "help", text: kind.description }));

    var fields = el("div", { class: "row-fields" });
    var others = kind.fields.filter(function (f) { return kind.oneOf.indexOf(f.name) === -1; });
    others.forEach(function (field) {
      fields.appendChild(fieldBlock(field.name + (kind.required.indexOf(field.name) !== -1 ? " *" : ""),
        field.description, widget(row, field, field.name + " of expectation " + number)));
    });
    if (kind.oneOf.length) fields.appendChild(oneOfBlock(row, kind, number));
    item.appendChild(fields);

    var common = el("div", { class: "row-common" });
    spec.common.forEach(function (field) {
      common.appendChild(fieldBlock(field.name, field.description, widget(row, field, field.name + " of expectation " + number)));
    });
    item.appendChild(common);
    item.appendChild(el("ul", { class: "row-errors", "data-errors": "", role: "alert" }));
    return item;
  }

  // Kinds that take exactly one of several checks (final_answer: contains, regex, …): pick it, then fill it.
  function oneOfBlock(row, kind, number) {
    var chosen = kind.oneOf.filter(function (name) { return name in row; })[0] || kind.oneOf[0];
    var field = kind.fields.filter(function (f) { return f.name === chosen; })[0];
    var picker = select(kind.oneOf.map(function (n) { return [n, n]; }), chosen, "Check of expectation " + number,
      function (name) {
        kind.oneOf.forEach(function (other) { delete row[other]; });
        var picked = kind.fields.filter(function (f) { return f.name === name; })[0];
        if (picked.widget === "flag") row[name] = true;
        else row[name] = picked.widget === "text" ? "" : undefined;
        render();
      });
    return el("div", { class: "row-field row-one-of" }, [
      el("span", { class: "row-field-label", text: "check" }),
      picker,
      el("span", { class: "help", text: field.description }),
      field.widget === "flag" ? null : widget(row, field, chosen + " of expectation " + number),
    ]);
  }

  function render() {
    list.textContent = "";
    rows.forEach(function (row, index) { list.appendChild(renderRow(row, index)); });
    editor.querySelector("[data-empty]").hidden = rows.length > 0;
    changed();
  }

  // Sync and check -----------------------------------------------------------------------------------------

  function changed() {
    textarea.value = rows.length ? JSON.stringify(rows, null, 2) : "";
    clearTimeout(timer);
    timer = setTimeout(check, 250);
  }

  function csrfToken() {
    return editor.closest("form").querySelector("[name=csrfmiddlewaretoken]").value;
  }

  function check() {
    fetch(editor.dataset.checkUrl, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken() },
      body: JSON.stringify({ expectations: rows }),
      credentials: "same-origin",
    }).then(function (response) { return response.json(); }).then(showCheck);
  }

  function showCheck(result) {
    editor.querySelector("[data-list-errors]").textContent = result.errors.join(" ");
    list.querySelectorAll(".expectation-row").forEach(function (item, index) {
      var found = result.rows[index] || { label: "", errors: [] };
      var shown = untouched.has(rows[index]) ? [] : found.errors;
      item.querySelector("[data-sentence]").textContent = found.label;
      item.classList.toggle("row-invalid", shown.length > 0);
      var errors = item.querySelector("[data-errors]");
      errors.textContent = "";
      shown.forEach(function (message) { errors.appendChild(el("li", { text: message })); });
    });
  }

  function loadFromTextarea() {
    var text = textarea.value.trim();
    try {
      var data = text ? JSON.parse(text) : [];
      if (!Array.isArray(data)) throw new Error("expected a list [ … ] of expectations");
      rows = data.map(function (item) { return item && typeof item === "object" ? item : { kind: String(item) }; });
      return true;
    } catch (error) {
      editor.querySelector("[data-list-errors]").textContent = "The JSON below is not a list of expectations yet: "
        + error.message + ". Fix it there; the rows will follow.";
      return false;
    }
  }

  document.addEventListener("DOMContentLoaded", function () {
    editor = document.getElementById("expectations-editor");
    if (!editor) return;
    spec = JSON.parse(document.getElementById("expectations-spec").textContent);
    textarea = editor.querySelector("textarea");
    list = editor.querySelector("[data-rows]");
    rows = [];
    var loaded = loadFromTextarea();
    var add = editor.querySelector("[data-add-row]");
    add.hidden = false;
    add.addEventListener("click", function () {
      if (!loadFromTextarea()) return; // never overwrite JSON the user is still fixing
      var row = { kind: spec.kinds[0].name };
      untouched.add(row);
      rows.push(row);
      render();
      list.lastChild.querySelector("input, select").focus();
    });
    // The JSON is a fallback once the rows exist: closed, but open when it is what needs fixing.
    editor.querySelector("[data-raw]").open = !loaded;
    textarea.addEventListener("change", function () { if (loadFromTextarea()) render(); });
    if (loaded) render();
  });
})();

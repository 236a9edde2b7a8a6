// The scorer code field as a real editor: CodeMirror 5 (vendored in static/vendor/codemirror) with line numbers,
// JavaScript highlighting, bracket matching, and the line of a reported error marked. The <textarea> stays the
// form's field: every change is copied back into it, so Save, Test (htmx includes the form) and Undo read it.
// Without JavaScript the plain textarea works as before.
(function () {
  "use strict";

  var LOCATION = /line (\d+), column (\d+)/;

  function markError(editor, text) {
    editor.getAllMarks().forEach(function (mark) { mark.clear(); });
    for (var line = 0; line < editor.lineCount(); line++) {
      editor.removeLineClass(line, "background", "cm-error-line");
      editor.setGutterMarker(line, "cm-error-gutter", null);
    }
    var found = LOCATION.exec(text || "");
    if (!found) return false;
    var line = Number(found[1]) - 1;
    if (line < 0 || line >= editor.lineCount()) return false;
    editor.addLineClass(line, "background", "cm-error-line");
    var marker = document.createElement("span");
    marker.className = "cm-error-marker";
    marker.title = text.split("\n")[0];
    marker.textContent = "●";
    editor.setGutterMarker(line, "cm-error-gutter", marker);
    return true;
  }

  function errorsAround(textarea) {
    var field = textarea.closest(".code-field");
    var texts = [];
    if (field) field.querySelectorAll(".field-error").forEach(function (el) { texts.push(el.textContent); });
    // Test reports a syntax error as the form's problem, or the sandbox's error: either names the line.
    document.querySelectorAll("#test-result .error-text, #test-result .form-error").forEach(function (el) {
      texts.push(el.textContent);
    });
    return texts.join("\n");
  }

  function attach(textarea) {
    if (textarea.evalhubEditor || !window.CodeMirror) return;
    var editor = window.CodeMirror.fromTextArea(textarea, {
      mode: "javascript",
      lineNumbers: true,
      gutters: ["CodeMirror-linenumbers", "cm-error-gutter"],
      matchBrackets: true,
      autoCloseBrackets: true,
      indentUnit: 2,
      tabSize: 2,
      viewportMargin: Infinity,
      // Long lines wrap, and every line keeps clear of the wand in the top-right corner (evalhub.css).
      lineWrapping: true,
      placeholder: textarea.placeholder,
      extraKeys: { Tab: function (cm) { cm.replaceSelection("  "); } },
    });
    editor.getWrapperElement().setAttribute("aria-label", textarea.labels && textarea.labels[0] ? textarea.labels[0].textContent : "Code");
    var marked = false;
    editor.on("change", function () {
      editor.save();
      if (marked) { marked = false; markError(editor, ""); } // the error was about the code before this edit
    });
    // Code set on the textarea by other scripts (the wand's generated code, Undo) goes into the editor too.
    textarea.evalhubEditor = editor;
    textarea.evalhubSetCode = function (code) { editor.setValue(code); editor.save(); };
    function check() { marked = markError(editor, errorsAround(textarea)); }
    check();
    document.body.addEventListener("htmx:afterSwap", check);
  }

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("textarea.code-editor").forEach(attach);
  });
})();

// The site's search over titles and identifiers, an enhancement: without
// it the index page links every jurisdiction's page, which lists every
// source. The index is fetched on the first keystroke.
(function () {
  "use strict";
  var box = document.getElementById("search");
  if (!box || !window.fetch) { return; }
  var input = document.getElementById("q");
  var out = document.getElementById("results");
  var rows = null;
  box.hidden = false;
  function show(q) {
    q = q.trim().toLowerCase();
    out.textContent = "";
    if (!q || !rows) { return; }
    var n = 0;
    for (var i = 0; i < rows.length && n < 50; i++) {
      var r = rows[i];
      if ((r[0] + " " + r[1] + " " + r[2]).toLowerCase().indexOf(q) < 0) { continue; }
      var li = document.createElement("li");
      var a = document.createElement("a");
      a.href = "sources/" + encodeURIComponent(r[0]) + ".html";
      a.textContent = r[1];
      li.appendChild(a);
      li.appendChild(document.createTextNode(" (" + r[0] + (r[2] ? ", " + r[2] : "") + ", " + r[3] + ")"));
      out.appendChild(li);
      n++;
    }
    document.getElementById("count").textContent = n + (n === 50 ? "+" : "") + " found";
  }
  input.addEventListener("input", function () {
    if (rows) { show(input.value); return; }
    fetch("search.json").then(function (r) { return r.json(); }).then(function (data) {
      rows = data;
      show(input.value);
    });
  });
})();

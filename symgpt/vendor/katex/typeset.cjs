// symgpt: typeset a batch of formulas with the KaTeX beside this file, ahead of time.
// stdin: JSON [{"tex": "...", "display": true|false, "mathml": true|false}, ...]
// stdout: JSON [{"html": "..."} | {"error": "..."}, ...], one per formula, in order.
// \htmlData is the one trusted HTML command: it marks a printed figure (data-n) for symgpt.html.
"use strict";
const katex = require("./katex.min.js");
let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", () => {
  const out = JSON.parse(input).map((item) => {
    try {
      return {html: katex.renderToString(item.tex, {
        displayMode: !!item.display, output: item.mathml ? "htmlAndMathml" : "html",
        throwOnError: true, strict: "ignore", trust: (ctx) => ctx.command === "\\htmlData",
        maxExpand: 1000, maxSize: 50,
      })};
    } catch (e) {
      return {error: String(e.message || e)};
    }
  });
  process.stdout.write(JSON.stringify(out));
});

// Render math spans with the real KaTeX and MathJax 3, as a web page showing Markdown math would.
//
// stdin: JSON [{"tex": "...", "display": true|false}, ...]
// stdout: JSON [{"katex": null | "error text", "mathjax": null | "error text"}, ...], one per span.
// MathJax runs with the TeX input's base and ams packages only (what GitHub loads); an error is
// an merror node (data-mjx-error) or a literal macro name (a backslash and letters) left in the
// output's text, such as \textless shown as text because \text{} reads no text-mode macros.
// Usage: node tests/node/mathcheck.mjs < spans.json   (install: npm ci --prefix tests/node)
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";

const require = createRequire(import.meta.url);
const katex = require("katex");
const { mathjax } = require("mathjax-full/js/mathjax.js");
const { TeX } = require("mathjax-full/js/input/tex.js");
const { liteAdaptor } = require("mathjax-full/js/adaptors/liteAdaptor.js");
const { RegisterHTMLHandler } = require("mathjax-full/js/handlers/html.js");
const { SerializedMmlVisitor } = require("mathjax-full/js/core/MmlTree/SerializedMmlVisitor.js");
require("mathjax-full/js/input/tex/base/BaseConfiguration.js");
require("mathjax-full/js/input/tex/ams/AmsConfiguration.js");

const adaptor = liteAdaptor();
RegisterHTMLHandler(adaptor);
const tex = new TeX({ packages: ["base", "ams"] });
const html = mathjax.document("", { InputJax: tex });
const visitor = new SerializedMmlVisitor();

// A macro name shown as text: a backslash and letters, or an escaped special character, such as
// "\\textless" or "a\\_b" left in an mtext node (\text{} reads no macros in MathJax's base package).
const LITERAL = /\\(?:[A-Za-z]+|[_%$&#{}^~])/;

// The text of every mtext node (what \text{...} shows).
function mtexts(node, out) {
  if (node.isKind && node.isKind("mtext")) out.push(node.getText());
  for (const child of node.childNodes || []) mtexts(child, out);
  return out;
}

function withMathJax(src, display) {
  let mml;
  try {
    mml = html.convert(src, { display, end: "compile" }); // the internal MathML tree
  } catch (e) {
    return `mathjax threw: ${e.message}`;
  }
  const xml = visitor.visitTree(mml);
  const err = xml.match(/data-mjx-error="([^"]*)"/);
  if (err) return `merror: ${err[1]}`;
  if (/<merror/.test(xml)) return `merror: ${xml.slice(0, 200)}`;
  const literal = mtexts(mml, []).map((t) => t.match(LITERAL)).find((m) => m);
  if (literal) return `literal macro text in the output: ${literal[0]}`;
  return null;
}

function withKaTeX(src, display) {
  try {
    const out = katex.renderToString(src, { displayMode: display, throwOnError: true, strict: "error",
                                            output: "mathml" });
    const shown = [...out.matchAll(/<mtext>([^<]*)<\/mtext>/g)].map((m) => m[1]);
    const literal = shown.map((t) => t.match(LITERAL)).find((m) => m);
    return literal ? `literal macro text in the output: ${literal[0]}` : null;
  } catch (e) {
    return `katex: ${e.message}`;
  }
}

const spans = JSON.parse(readFileSync(0, "utf-8"));
const results = spans.map(({ tex: src, display }) => ({
  katex: withKaTeX(src, !!display),
  mathjax: withMathJax(src, !!display),
}));
process.stdout.write(JSON.stringify(results) + "\n");

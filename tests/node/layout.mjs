// Measure one explorable page's layout in headless Chromium (puppeteer-core) as a reader meets it.
// usage: node layout.mjs PAGE.html  →  JSON report on stdout, one entry per viewport (1280×800 and 700×900):
//   cards:    live figures scrolled to the viewport's bottom edge (and one per tenth of the page), each clicked
//             with the mouse: the figure's and its card's rectangles
//   unprinted: a card's link to a quantity the page never prints, clicked: the link's and the new card's rectangles
//   wide:     every block in <main> that cuts off what is wider than its box: its overflow-x, whether scrolling reaches its end, its cue
//   captions: every caption's number of lines
//   at 1280×800 also: a hyper-parameter clicked (its card), the SGD slider moved to k = 1 (its table), top-k's stops
import fs from "node:fs";
import {pathToFileURL} from "node:url";
import puppeteer from "puppeteer-core";

const [page_path] = process.argv.slice(2);
const executablePath = process.env.CHROMIUM || ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find(fs.existsSync);
const browser = await puppeteer.launch({executablePath, headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-default-apps", "--disable-sync"]});
const report = {errors: [], views: []};
try {
  const page = await browser.newPage();
  page.on("pageerror", (e) => report.errors.push(String(e)));
  for (const [width, height] of [[1280, 800], [700, 900]]) {
    await page.setViewport({width, height});
    await page.goto(pathToFileURL(page_path).href, {waitUntil: "load"});
    await page.waitForSelector("html[data-cards=ready]", {timeout: 60000});
    const view = {width, height, cards: [], unprinted: null};
    const count = await page.$$eval("main .n", (els) => els.filter((e) => !e.closest("[hidden]")).length);
    const picks = [0, 1, 2, 3].concat(Array.from({length: 10}, (_, i) => Math.floor(count * (i + 0.5) / 10)));
    for (const i of picks) {
      const at = await page.evaluate((i) => {  // the figure at the viewport's bottom edge
        const el = Array.from(document.querySelectorAll("main .n")).filter((e) => !e.closest("[hidden]"))[i];
        document.querySelectorAll("[data-probe]").forEach((e) => e.removeAttribute("data-probe"));
        el.setAttribute("data-probe", "");
        el.scrollIntoView({block: "end", inline: "nearest"});
        const r = el.getBoundingClientRect();
        return {x: (r.left + r.right) / 2, y: (r.top + r.bottom) / 2, key: el.dataset.key};
      }, i);
      await page.mouse.click(at.x, at.y);
      view.cards.push(await page.evaluate((key) => {  // the card, and the figure clicked
        const p = document.getElementById("popup");
        const anchor = document.querySelector("[data-probe]");
        return {key, open: !p.hidden && p.getAttribute("data-key") === key,
                card: (({left, top, right, bottom}) => ({left, top, right, bottom}))(p.getBoundingClientRect()),
                anchor: anchor ? (({left, top, right, bottom}) => ({left, top, right, bottom}))(anchor.getBoundingClientRect()) : null,
                vw: document.documentElement.clientWidth, vh: innerHeight};
      }, at.key));
    }
    // a link to a quantity never printed: found by opening cards until one links to it
    for (let i = 0; i < Math.min(count, 400) && !view.unprinted; i += 7) {
      const found = await page.evaluate((i) => {
        const printed = (k) => Array.from(document.querySelectorAll(`main .n[data-key="${CSS.escape(k)}"]`))
          .some((e) => !e.closest("[hidden]"));
        const el = Array.from(document.querySelectorAll("main .n")).filter((e) => !e.closest("[hidden]"))[i];
        el.scrollIntoView({block: "center"});
        el.click();
        const link = Array.from(document.querySelectorAll("#popup a.go")).find((a) => !printed(a.dataset.go));
        if (!link) return null;
        const r = link.getBoundingClientRect();
        return {go: link.dataset.go, x: (r.left + r.right) / 2, y: (r.top + r.bottom) / 2,
                link: {left: r.left, top: r.top, right: r.right, bottom: r.bottom}};
      }, i);
      if (!found) continue;
      await page.mouse.click(found.x, found.y);
      view.unprinted = {...found, ...(await page.evaluate(() => {
        const p = document.getElementById("popup"), r = p.getBoundingClientRect();
        return {open: !p.hidden, key: p.getAttribute("data-key"),
                card: {left: r.left, top: r.top, right: r.right, bottom: r.bottom}, scrollY};
      }))};
    }
    await page.evaluate(() => { document.getElementById("popup").hidden = true; window.scrollTo(0, 0); });
    view.wide = await page.evaluate(() => Array.from(document.querySelectorAll("main *"))
      .filter((e) => !e.closest(".katex-mathml, [hidden]") && e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1
                     && getComputedStyle(e).overflowX !== "visible")  // (what overflows visibly, its box's box holds)
      .map((e) => {
        const s = getComputedStyle(e);
        e.scrollLeft = e.scrollWidth;
        const end = e.scrollLeft + e.clientWidth >= e.scrollWidth - 1;
        e.scrollLeft = 0;
        return {tag: e.tagName, cls: e.className, scrollWidth: e.scrollWidth, clientWidth: e.clientWidth,
                overflowX: s.overflowX, reachesEnd: end, cue: /gradient/.test(s.backgroundImage)};
      }));
    view.captions = await page.evaluate(() => Array.from(document.querySelectorAll("main caption, main figcaption"))
      .filter((c) => !c.closest("[hidden]"))
      .map((c) => ({text: c.textContent.slice(0, 60),
                    lines: Math.round(c.getBoundingClientRect().height / parseFloat(getComputedStyle(c).lineHeight))})));
    if (width === 1280) {  // what a reader clicks: a hyper-parameter, then the SGD slider's next state
      view.hyper = await page.evaluate(() => {
        const el = document.querySelector('main .n[data-key^="hyper:"]');
        if (!el) return null;
        el.scrollIntoView({block: "center"});
        el.click();
        const p = document.getElementById("popup");
        return {key: el.dataset.key, text: el.textContent, open: !p.hidden, card: p.innerText};
      });
      view.training = await page.evaluate(() => {
        const slider = document.getElementById("slider-sgd");
        const shown = () => Array.from(slider.closest(".control").querySelectorAll(".panel")).find((x) => !x.hidden);
        const fig = (td) => { const n = td.querySelector(".n"); return n && {ref: n.dataset.ref, exact: n.dataset.exact}; };
        const rows = (panel) => Array.from(panel.querySelectorAll("tbody tr:not(.group)")).map((tr) => {
          const [name, value, change] = tr.querySelectorAll("td");
          return {name: name.textContent, value: fig(value), change: fig(change)};
        });
        const rows0 = rows(shown());
        slider.value = "1";
        slider.dispatchEvent(new Event("input", {bubbles: true}));
        const panel = shown();
        return {head: Array.from(panel.querySelectorAll("thead th")).map((t) => t.textContent),
                groups: Array.from(panel.querySelectorAll("tr.group th")).map((t) => t.textContent),
                rows: rows(panel), rows0};
      });
      view.topk = await page.$eval("#slider-top_k", (el) => el.getAttribute("data-labels"));
    }
    report.views.push(view);
  }
} catch (e) {
  report.errors.push("driver: " + String(e && e.stack || e));
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(report));

// Drive one explorable page in headless Chromium (Debian's chromium, through puppeteer-core) as a reader would.
// usage: node browser.mjs PAGE.html PLAN.json  →  JSON report on stdout
// PLAN: {"hover": "A[1,0]", "follow": "S[1,0]", "slider": {"id": "slider-temperature", "index": 1, "ref": "softmax_T(0.5, 4)"},
//        "tabs": 3, "screenshot": "out.png", "reloads": 5, "only_load": true}
import fs from "node:fs";
import {pathToFileURL} from "node:url";
import puppeteer from "puppeteer-core";

const [page_path, plan_path] = process.argv.slice(2);
const plan = JSON.parse(fs.readFileSync(plan_path, "utf8"));
const executablePath = process.env.CHROMIUM || ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find(fs.existsSync);
const report = {console: [], requests: [], errors: []};
const browser = await puppeteer.launch({executablePath, headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-default-apps", "--disable-sync"]});
try {
  const page = await browser.newPage();
  await page.setViewport({width: 1100, height: 900});
  page.on("console", (m) => report.console.push({type: m.type(), text: m.text()}));
  page.on("pageerror", (e) => report.errors.push(String(e)));
  page.on("request", (r) => report.requests.push(r.url().slice(0, 80)));
  const url = pathToFileURL(page_path).href;
  const t0 = Date.now();
  await page.goto(url, {waitUntil: "load"});
  report.load_ms = Date.now() - t0;
  report.timing = await page.evaluate(() => {
    const n = performance.getEntriesByType("navigation")[0];
    return {domContentLoaded: n.domContentLoadedEventEnd, load: n.loadEventEnd};
  });
  if (plan.reloads) {  // for benchmarks/bench_html.py: each reload's load event, from navigation start
    report.reloads = [];
    for (let i = 0; i < plan.reloads; i++) {
      await page.reload({waitUntil: "load"});
      report.reloads.push(await page.evaluate(() => performance.getEntriesByType("navigation")[0].loadEventEnd));
    }
  }
  if (plan.only_load) {
    await browser.close();
    process.stdout.write(JSON.stringify(report));
    process.exit(0);
  }
  await page.waitForSelector("html[data-cards=ready]", {timeout: 10000});
  report.live = await page.$$eval("main .n", (els) => els.length);
  const popup = async () => page.evaluate(() => {
    const p = document.getElementById("popup");
    return {hidden: p.hidden, key: p.getAttribute("data-key"), text: p.innerText,
            links: Array.from(p.querySelectorAll("a.go")).map((a) => a.getAttribute("data-go")),
            exact: (p.querySelector(".c-exact") || {}).textContent || null};
  });
  if (plan.hover) {
    const sel = `main .n[data-key="${plan.hover}"]`;
    await page.hover(sel);
    await page.waitForFunction(() => !document.getElementById("popup").hidden, {timeout: 5000});
    report.hover = await popup();
    report.hover.element = await page.$eval(sel, (e) => ({ref: e.dataset.ref, exact: e.dataset.exact, text: e.textContent}));
    if (plan.screenshot) await page.screenshot({path: plan.screenshot});
  }
  if (plan.follow) {
    await page.click(`#popup a.go[data-go="${plan.follow}"]`);
    await new Promise((r) => setTimeout(r, 200));
    report.follow = await page.evaluate(() => {
      const a = document.activeElement;
      return {key: a && a.dataset ? a.dataset.key : null, highlighted: !!(a && a.classList.contains("hl"))};
    });
    report.follow.popup = await popup();
  }
  if (plan.slider) {
    const s = plan.slider;
    const read = () => page.evaluate((ref) => {
      const els = Array.from(document.querySelectorAll(`.n[data-ref="${ref}"]`)).filter((e) => !e.closest("[hidden]"));
      return els.map((e) => ({text: e.textContent, exact: e.dataset.exact}));
    }, s.ref);
    report.slider = {before: await read()};
    await page.evaluate((id, i) => {
      const el = document.getElementById(id);
      el.value = String(i);
      el.dispatchEvent(new Event("input", {bubbles: true}));
    }, s.id, s.index);
    report.slider.after = await read();
    report.slider.output = await page.$eval(`#${s.id}`, (el) => el.closest(".control").querySelector("output").textContent);
    report.slider.drawn = await page.$eval(`#${s.id}`, (el) => {
      const p = Array.from(el.closest(".control").querySelectorAll(".panel")).find((x) => !x.hidden);
      const t = p.querySelector(".drawn-text");
      return t ? t.textContent : null;
    });
  }
  if (plan.tabs) {
    await page.evaluate(() => { window.scrollTo(0, 0); document.activeElement && document.activeElement.blur(); });
    for (let i = 0; i < plan.tabs; i++) await page.keyboard.press("Tab");
    report.keyboard = await page.evaluate(() => ({active: document.activeElement.className,
      key: document.activeElement.dataset ? document.activeElement.dataset.key : null}));
    report.keyboard.popup = await popup();
    await page.keyboard.press("Escape");
    report.keyboard.closed = (await popup()).hidden;
  }
} catch (e) {
  report.errors.push("driver: " + String(e && e.stack || e));
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(report));

// symgpt's explorable page: a live figure opens its proof card; links jump; sliders switch tables.
// Nothing here computes a number or typesets: the page was rendered complete, this only shows and hides.
(function () {
  "use strict";
  var popup = document.getElementById("popup");
  var words = JSON.parse(document.body.getAttribute("data-words") || "{}");
  var cards = {};
  // the proof cards travel gzip-compressed (base64) and are unpacked once, when the page has loaded
  function unpack() {
    var packed = document.getElementById("cards-gz");
    if (!packed || typeof DecompressionStream === "undefined") return Promise.resolve();
    var bin = atob(packed.textContent.trim()), bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text().then(function (html) {
      var holder = document.createElement("div");
      holder.id = "cards"; holder.hidden = true; holder.innerHTML = html;
      document.body.appendChild(holder);
      holder.querySelectorAll(".card").forEach(function (c) { cards[c.getAttribute("data-key")] = c; });
      document.documentElement.setAttribute("data-cards", "ready");
    });
  }
  unpack();
  var current = null, pinned = false, hideTimer = null;

  function visible(el) { return !el.closest("[hidden]"); }

  function errBox(el) {
    var raw = el.getAttribute("data-err");
    if (!raw) return null;
    var e = JSON.parse(raw), p = document.createElement("p");
    p.className = "c-err";
    p.textContent = words.err_printed + " " + e.printed + "; " + words.err_correct + " ";
    var b = document.createElement("b"); b.textContent = e.correct; p.appendChild(b);
    p.appendChild(document.createTextNode(" (" + e.exact + "); " + words.err_cause + ": " + e.cause));
    return p;
  }

  function show(key, anchor, el) {
    var card = cards[key];
    if (!card) return;
    clearTimeout(hideTimer);
    popup.innerHTML = "";
    var close = document.createElement("button");
    close.className = "c-close"; close.type = "button"; close.setAttribute("aria-label", words.close);
    close.textContent = "\u00d7";
    close.addEventListener("click", hide);
    popup.appendChild(close);
    popup.appendChild(card.cloneNode(true));
    if (el) { var box = errBox(el); if (box) popup.appendChild(box); }
    popup.hidden = false;
    popup.setAttribute("data-key", key);
    popup.setAttribute("aria-label", words.card + " " + key);
    var r = anchor.getBoundingClientRect();
    var top = window.scrollY + r.bottom + 6, left = window.scrollX + r.left;
    popup.style.top = top + "px"; popup.style.left = "0px";
    var w = popup.offsetWidth, maxLeft = window.scrollX + document.documentElement.clientWidth - w - 8;
    popup.style.left = Math.max(window.scrollX + 8, Math.min(left, maxLeft)) + "px";
    current = anchor;
  }

  function hide() { popup.hidden = true; current = null; pinned = false; }
  function hideSoon() { if (!pinned) { clearTimeout(hideTimer); hideTimer = setTimeout(hide, 350); } }

  function goTo(key, from) {
    var targets = Array.prototype.filter.call(
      document.querySelectorAll('main .n[data-key="' + CSS.escape(key) + '"]'), visible);
    if (targets.length) {
      var t = targets[0];
      t.scrollIntoView({block: "center"});
      t.classList.remove("hl"); void t.offsetWidth; t.classList.add("hl");
      t.focus({preventScroll: true});
      show(key, t, t); pinned = true;
    } else {
      show(key, from, null); pinned = true;  // not printed on the page: its card, where the link was
    }
  }

  document.addEventListener("mouseover", function (ev) {
    var el = ev.target.closest && ev.target.closest(".n");
    if (el && !pinned) show(el.getAttribute("data-key"), el, el);
    if (el || (ev.target.closest && ev.target.closest("#popup"))) clearTimeout(hideTimer);
  });
  document.addEventListener("mouseout", function (ev) {
    var el = ev.target.closest && (ev.target.closest(".n") || ev.target.closest("#popup"));
    if (el) hideSoon();
  });
  document.addEventListener("focusin", function (ev) {
    var el = ev.target.closest && ev.target.closest(".n");
    if (el) { pinned = false; show(el.getAttribute("data-key"), el, el); }
  });
  document.addEventListener("click", function (ev) {
    var go = ev.target.closest && ev.target.closest("a.go");
    if (go) { ev.preventDefault(); goTo(go.getAttribute("data-go"), go); return; }
    var el = ev.target.closest && ev.target.closest(".n");
    if (el) { show(el.getAttribute("data-key"), el, el); pinned = true; return; }
    if (!ev.target.closest("#popup")) hide();
  });
  document.addEventListener("keydown", function (ev) {
    if (ev.key === "Escape" && !popup.hidden) { var back = current; hide(); if (back && back.focus) back.focus(); }
    if (ev.key === "Enter" && ev.target.classList && ev.target.classList.contains("n")) {
      var first = popup.querySelector("a.go"); if (first) { pinned = true; first.focus(); ev.preventDefault(); }
    }
  });

  document.querySelectorAll(".control input[type=range]").forEach(function (slider) {
    var control = slider.closest(".control");
    var labels = (slider.getAttribute("data-labels") || "").split("|");
    var out = control.querySelector("output");
    function update() {
      var i = slider.value;
      control.querySelectorAll(".panel").forEach(function (p) { p.hidden = p.getAttribute("data-i") !== i; });
      if (out) out.textContent = labels[+i];
      slider.setAttribute("aria-valuetext", labels[+i]);
      hide();
    }
    slider.addEventListener("input", update);
    slider.addEventListener("change", update);
  });
})();

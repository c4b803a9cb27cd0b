// symgpt's explorable page: a live figure opens its proof card; links jump; sliders switch tables.
// Nothing here computes a number or typesets: the page was rendered complete, this only shows and hides.
(function () {
  "use strict";
  var popup = document.getElementById("popup");
  var words = JSON.parse(document.body.getAttribute("data-words") || "{}");
  var cards = {};
  // the proof cards and the controls' hidden panels travel zlib-compressed (base64), unpacked once the page has loaded
  function inflate(id) {
    var packed = document.getElementById(id);
    if (!packed || typeof DecompressionStream === "undefined") return Promise.resolve(null);
    var bin = atob(packed.textContent.trim()), bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
    return new Response(stream).text();
  }
  function unpack() {
    var cardsDone = inflate("cards-gz").then(function (html) {
      if (html === null) return;
      var holder = document.createElement("div");
      holder.id = "cards"; holder.hidden = true; holder.innerHTML = html;
      document.body.appendChild(holder);
      holder.querySelectorAll(".card").forEach(function (c) { cards[c.getAttribute("data-key")] = c; });
    });
    var panelsDone = inflate("panels-gz").then(function (json) {
      if (json === null) return;
      var panels = JSON.parse(json);
      document.querySelectorAll("div.packed[data-p]").forEach(function (slot) {
        var t = document.createElement("template");
        t.innerHTML = panels[+slot.getAttribute("data-p")];
        slot.replaceWith(t.content);
      });
    });
    return Promise.all([cardsDone, panelsDone]).then(function () {
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

  // a card opens below its anchor, or above it when there is no room below; it never leaves the viewport
  function place(r) {
    var m = 8, gap = 6, vw = document.documentElement.clientWidth, vh = window.innerHeight;
    popup.style.maxHeight = (vh - 2 * m) + "px";
    popup.style.top = window.scrollY + "px"; popup.style.left = window.scrollX + "px";
    var w = popup.offsetWidth, h = popup.offsetHeight, top = r.bottom + gap;
    if (top + h > vh - m) top = r.top - gap - h >= m ? r.top - gap - h : Math.max(m, vh - m - h);
    var left = Math.max(m, Math.min(r.left, vw - w - m));
    popup.style.top = window.scrollY + top + "px"; popup.style.left = window.scrollX + left + "px";
  }

  function show(key, anchor, el) {
    var card = cards[key];
    if (!card) return;
    var r = anchor.getBoundingClientRect();  // before the card is emptied: the anchor may be a link inside it
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
    place(r);
    if (anchor.isConnected && !popup.contains(anchor)) current = anchor;
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
      show(key, from, null); pinned = true;  // not printed on the page: its card opens where the link was
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

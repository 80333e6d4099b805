/**
 * @module
 * Private to the reference page: its style sheet and its script, inlined in the page and allowed
 * by their hashes in its `Content-Security-Policy`. The page reads well without the script; the
 * script adds the "try it" forms and the copy buttons, and keeps the API key in the tab's
 * `sessionStorage`, from where it fills in the curl examples.
 */

/** The page's style: system fonts, light and dark, one column on a phone where nothing is wider than the screen. */
export const PAGE_STYLE: string = `
:root{--bg:#f6f5f1;--panel:#fff;--ink:#1c2126;--muted:#5a646e;--line:#e2e0d8;--soft:#efede6;--code:#f3f1ea;--accent:#0f766e;--accent-ink:#fff;--top:#0b4f4a;--top-ink:#eafaf7;--get:#0f766e;--post:#1d4ed8;--put:#a16207;--patch:#a16207;--delete:#b91c1c;--other:#4b5563;--s1:#4b5563;--s2:#15803d;--s3:#4b5563;--s4:#b45309;--s5:#b91c1c;--warn-bg:#fef3c7;--warn-ink:#92400e;--focus:#f59e0b;
--sans:system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans","Helvetica Neue",Arial,sans-serif;--mono:ui-monospace,SFMono-Regular,Menlo,Consolas,"DejaVu Sans Mono","Liberation Mono",monospace}
@media (prefers-color-scheme:dark){:root{--bg:#101417;--panel:#171c20;--ink:#e4e7ea;--muted:#9aa5af;--line:#2a3137;--soft:#1e252a;--code:#1f262c;--accent:#2dd4bf;--accent-ink:#04211e;--top:#0a2f2c;--top-ink:#d9f7f2;--get:#2dd4bf;--post:#93b4ff;--put:#fbbf24;--patch:#fbbf24;--delete:#fca5a5;--other:#cbd5e1;--s2:#4ade80;--s3:#cbd5e1;--s4:#fbbf24;--s5:#fca5a5;--warn-bg:#3b2f0b;--warn-ink:#fcd34d}}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%;scroll-padding-top:1rem}
body{margin:0;background:var(--bg);color:var(--ink);font:16px/1.55 var(--sans)}
a{color:var(--accent);text-underline-offset:.15em}
a:hover{text-decoration-thickness:2px}
:focus-visible{outline:3px solid var(--focus);outline-offset:2px;border-radius:4px}
code,pre,textarea,input,select{font-family:var(--mono);font-size:.88em}
code{background:var(--code);padding:.1em .35em;border-radius:4px;overflow-wrap:anywhere}
pre{margin:0}
pre code{background:none;padding:0;overflow-wrap:normal}
.skip{position:absolute;left:-999px;top:.5rem;background:var(--panel);padding:.5rem 1rem;border-radius:6px;z-index:2}
.skip:focus{left:.5rem}
.top{background:var(--top);color:var(--top-ink);background-image:radial-gradient(circle at 85% -20%,rgba(45,212,191,.35),transparent 55%)}
.top-inner{max-width:76rem;margin:0 auto;padding:1.1rem 1.5rem 1rem}
.brand{margin:0 0 .2rem;display:flex;align-items:center;gap:.5rem;font-size:.8rem;letter-spacing:.12em;text-transform:uppercase;opacity:.85}
.logo{width:1.4rem;height:1.4rem;fill:currentColor}
.top h1{margin:0;font-size:clamp(1.5rem,3vw,2rem);line-height:1.15;letter-spacing:-.01em}
.version{display:inline-block;vertical-align:middle;font-size:.9rem;font-weight:600;letter-spacing:0;padding:.15rem .55rem;border-radius:999px;background:rgba(255,255,255,.15);border:1px solid rgba(255,255,255,.3)}
.lede{margin:.2rem 0 0;font-size:1rem;opacity:.92;max-width:44rem}
.layout{max-width:76rem;margin:0 auto;padding:1rem 1.5rem;display:grid;grid-template-columns:15rem minmax(0,1fr);gap:2rem;align-items:start}
.toc{position:sticky;top:1rem;max-height:calc(100vh - 2rem);overflow:auto;padding:.25rem .25rem 1rem;font-size:.92rem}
.toc ul{list-style:none;margin:0 0 .75rem;padding:0}
.toc li a{display:flex;align-items:center;gap:.5rem;padding:.35rem .5rem;border-radius:6px;color:var(--ink);text-decoration:none}
.toc li a:hover{background:var(--soft)}
.toc-group{margin:.75rem .5rem .35rem;font-size:.75rem;font-weight:700;letter-spacing:.08em;text-transform:uppercase;color:var(--muted)}
.toc-path{font-family:var(--mono);font-size:.85em;overflow-wrap:anywhere}
main{min-width:0;outline:none}
h2{font-size:1.35rem;margin:1.6rem 0 .4rem;letter-spacing:-.01em}
.intro h2{margin-top:0}
h3{margin:0}
h4{margin:1.4rem 0 .5rem;font-size:.8rem;letter-spacing:.08em;text-transform:uppercase;color:var(--muted)}
.prose p{margin:.5rem 0}
.group-lede{color:var(--muted);margin:.25rem 0 1rem}
.intro,.op,.schema{background:var(--panel);border:1px solid var(--line);border-radius:12px;padding:1rem 1.25rem;box-shadow:0 1px 2px rgba(0,0,0,.04)}
.op,.schema{margin:.6rem 0}
.intro h2{font-size:1.1rem;margin-bottom:.6rem}
.start{display:grid;grid-template-columns:repeat(auto-fit,minmax(17rem,1fr));gap:.8rem 1.5rem;align-items:start}
.start-label{margin:0 0 .3rem;font-size:.75rem;font-weight:700;letter-spacing:.08em;text-transform:uppercase;color:var(--muted)}
.start-label label{cursor:pointer}
.intro .hint{margin:.3rem 0 0}
.base{font-size:.95rem;padding:.35rem .5rem}
.hint{color:var(--muted);font-size:.86rem}
.copy-row,.key-row{display:flex;gap:.5rem;align-items:center}
.copy-row .base,.key-row input{flex:1;min-width:0}
#ops-title{margin-top:1rem}
.quick{list-style:none;margin:0;padding:0;display:grid;gap:.15rem}
.quick a{display:flex;flex-wrap:wrap;align-items:baseline;gap:.2rem .6rem;padding:.3rem .4rem;border-radius:6px;color:var(--ink);text-decoration:none}
.quick a:hover{background:var(--soft)}
.quick .path{font-size:.95rem}
.quick-summary{color:var(--muted)}
.also a{white-space:nowrap}
details>summary{cursor:pointer}
.about,.more,.listing{margin-top:.6rem}
.about>summary,.more>summary,.listing>summary,.headers>summary{color:var(--accent);font-weight:600;font-size:.92rem;padding:.2rem 0}
.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.method{display:inline-block;min-width:3.6rem;padding:.12rem .45rem;border-radius:6px;font:700 .72rem/1.6 var(--mono);letter-spacing:.04em;text-align:center;color:#fff;background:var(--other)}
.m-get{background:var(--get)}.m-post{background:var(--post)}.m-put{background:var(--put)}.m-patch{background:var(--patch)}.m-delete{background:var(--delete)}
@media (prefers-color-scheme:dark){.method{color:#0b1013}}
.op-title{display:flex;flex-wrap:wrap;align-items:center;gap:.6rem;font-size:1.15rem}
.path{background:none;padding:0;font-size:1.05rem;font-weight:600}
.gone{text-decoration:line-through;text-decoration-thickness:1px;opacity:.75}
.badge{font-size:.75rem;font-weight:700;padding:.15rem .5rem;border-radius:999px}
.warn{background:var(--warn-bg);color:var(--warn-ink)}
.op-summary{font-size:1.02rem;font-weight:600;margin:.35rem 0 0}
.op-meta,.meta{color:var(--muted);font-size:.88rem;margin:.15rem 0}
.minor{padding:.55rem 1.25rem}
.minor>summary{display:flex;flex-wrap:wrap;align-items:center;gap:.2rem .9rem;list-style:none}
.minor>summary::-webkit-details-marker{display:none}
.minor>summary::before{content:"▸";color:var(--accent);transition:transform .15s}
.minor[open]>summary::before{transform:rotate(90deg)}
.minor>summary .op-title{font-size:1rem}
.minor>summary .op-summary{margin:0;font-size:.95rem;font-weight:400;color:var(--muted)}
.op-body{margin-top:.6rem}
.schema>summary{display:flex;flex-wrap:wrap;align-items:baseline;gap:.6rem}
.schema>summary h3{display:inline;font-size:1rem}
.schema{padding:.55rem 1.25rem}
.fields,.answers,.headers ul,.codes-list{list-style:none;margin:0;padding:0}
.fields li{padding:.6rem 0;border-top:1px solid var(--line)}
.fields li:last-child{border-bottom:1px solid var(--line)}
.field-head{display:flex;flex-wrap:wrap;align-items:baseline;gap:.5rem}
.name{font-weight:700;background:none;padding:0}
.where{font-size:.78rem;color:var(--muted);border:1px solid var(--line);border-radius:999px;padding:0 .45rem}
.need{font-size:.78rem;font-weight:700;color:var(--s4)}
.type{font-size:.9rem;color:var(--muted);margin-top:.15rem}
.desc p{margin:.25rem 0 0;font-size:.95rem}
.answer{display:grid;grid-template-columns:3.6rem minmax(0,1fr);gap:.75rem;padding:.6rem 0;border-top:1px solid var(--line)}
.answer:last-child{border-bottom:1px solid var(--line)}
.answer-text p{margin:.1rem 0 .3rem}
.status{display:inline-block;font:700 .85rem/1.5 var(--mono);padding:.05rem .4rem;border-radius:6px;border:1.5px solid currentColor;color:var(--s1);text-align:center}
.answer>.status{align-self:start;justify-self:start}
.s2{color:var(--s2)}.s3{color:var(--s3)}.s4{color:var(--s4)}.s5{color:var(--s5)}
.codes{font-size:.9rem}
.code{font-weight:600}
.headers li{font-size:.88rem;color:var(--muted);margin:.15rem 0}
.example{margin:.6rem 0 0}
.example-head{display:flex;justify-content:space-between;align-items:center;min-height:2.1rem;padding:.25rem .4rem .25rem 1rem;border-radius:10px 10px 0 0;background:#0a1013;color:#9fb7b2;font-size:.78rem;letter-spacing:.06em;text-transform:uppercase}
.curl{background:#11181c;color:#e6f1ef;border-radius:0 0 10px 10px;padding:.7rem 1rem .8rem;font-size:.9rem;line-height:1.5;white-space:pre-wrap}
.curl code{white-space:inherit;overflow-wrap:anywhere}
button.copy{padding:.2rem .75rem;font-size:.82rem}
.try{margin-top:.75rem;border:1px solid var(--line);border-radius:10px;background:var(--soft)}
.try summary{cursor:pointer;padding:.55rem 1rem;font-weight:700;color:var(--accent);list-style-position:inside}
.try[open] summary{border-bottom:1px solid var(--line)}
.try-form{padding:1rem}
.try-fields{display:grid;grid-template-columns:repeat(auto-fill,minmax(13rem,1fr));gap:.8rem}
.try-field{display:flex;flex-direction:column;gap:.3rem;font-weight:600;font-size:.92rem}
.try-field small{font-weight:400;color:var(--muted)}
.wide{grid-column:1/-1}
input,select,textarea{width:100%;line-height:1.45;padding:.5rem .6rem;border:1px solid var(--line);border-radius:8px;background:var(--panel);color:var(--ink)}
textarea{resize:vertical;line-height:1.45}
button{font:600 .95rem var(--sans);padding:.55rem 1rem;border-radius:8px;border:1px solid var(--accent);background:var(--accent);color:var(--accent-ink);cursor:pointer}
button:hover{filter:brightness(1.08)}
#forget-key{background:transparent;color:var(--accent)}
.try-actions{display:flex;flex-wrap:wrap;align-items:center;gap:.75rem;margin-top:1rem}
.result:not(:empty){margin-top:1rem;border:1px solid var(--line);border-radius:10px;background:var(--panel)}
.result-line{margin:0;padding:.6rem .9rem;display:flex;flex-wrap:wrap;gap:.6rem;align-items:center;border-bottom:1px solid var(--line);font-size:.92rem}
.result pre{padding:.75rem .9rem;font-size:.85rem;white-space:pre-wrap;overflow-wrap:anywhere}
.result .result-headers{color:var(--muted);border-bottom:1px solid var(--line)}
.codes-list li{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:baseline;padding:.55rem 0;border-top:1px solid var(--line)}
.codes-list .code{min-width:14rem}
.uses{display:flex;flex-wrap:wrap;gap:.4rem .9rem;font-size:.9rem}
.uses a{text-decoration:none}
.uses .status{font-size:.75rem;margin-right:.2rem}
.foot{max-width:76rem;margin:0 auto;padding:1rem 1.5rem 3rem;color:var(--muted);font-size:.9rem}
@media (max-width:52rem){
.layout{grid-template-columns:minmax(0,1fr);padding:.75rem;gap:1rem}
.toc{display:none}
.top-inner{padding:.8rem 1rem .75rem}
.intro,.op{padding:.9rem .85rem;border-radius:10px}
.minor,.schema{padding:.5rem .85rem}
.codes-list .code{min-width:0}
}
@media (prefers-reduced-motion:no-preference){html{scroll-behavior:smooth}}
`;

/**
 * The page's script: shows what needs it, keeps the key in `sessionStorage` and writes it into the
 * curl examples as a shell word, copies an example or the base URL, opens a collapsed section a
 * link points to, and sends each "try it" form with `fetch`.
 */
export const PAGE_SCRIPT: string = `
"use strict";
(() => {
  const KEY_ITEM = "animal-store-api-key";
  const keyInput = document.getElementById("api-key");
  const keyArgs = [...document.querySelectorAll(".key-arg")];
  const withoutKey = keyArgs.map((element) => element.textContent);
  const copyStatus = document.getElementById("copy-status");
  for (const element of document.querySelectorAll("[data-script-only]")) element.hidden = false;
  for (const element of document.querySelectorAll("[data-script-free]")) element.hidden = true;
  if (keyInput) {
    try { keyInput.value = sessionStorage.getItem(KEY_ITEM) || ""; } catch {}
    keyInput.addEventListener("input", () => {
      try { sessionStorage.setItem(KEY_ITEM, keyInput.value); } catch {}
      showKey();
    });
    document.getElementById("forget-key").addEventListener("click", () => {
      keyInput.value = "";
      try { sessionStorage.removeItem(KEY_ITEM); } catch {}
      showKey();
      keyInput.focus();
    });
    showKey();
  }
  for (const button of document.querySelectorAll("button[data-copy]")) {
    button.addEventListener("click", () => void copy(button));
  }
  for (const form of document.querySelectorAll("form.try-form")) {
    form.addEventListener("submit", (event) => { event.preventDefault(); void send(form); });
  }
  document.addEventListener("click", (event) => {
    const link = event.target instanceof Element ? event.target.closest('a[href^="#"]') : null;
    if (link) openTarget(link.getAttribute("href").slice(1));
  });
  if (location.hash !== "") openTarget(decodeURIComponent(location.hash.slice(1)));

  function typedKey() {
    return keyInput ? keyInput.value.trim() : "";
  }

  /** Text as one POSIX shell word: in single quotes, each ' written '\\''. */
  function shellWord(text) {
    return "'" + text.replaceAll("'", "'\\\\''") + "'";
  }

  /** Writes the typed key into every curl example, or puts back $API_KEY when there is none. */
  function showKey() {
    const key = typedKey();
    keyArgs.forEach((element, index) => {
      element.textContent = key === "" ? withoutKey[index] : shellWord("Authorization: Bearer " + key);
    });
  }

  /** Opens a collapsed section (and those around it) when a link points into it. */
  function openTarget(id) {
    for (let element = document.getElementById(id); element; element = element.parentElement) {
      if (element.tagName === "DETAILS") element.open = true;
    }
  }

  /** Copies the text of the element a button names, and says so. */
  async function copy(button) {
    const text = document.getElementById(button.dataset.copy).textContent;
    let copied = false;
    try {
      await navigator.clipboard.writeText(text);
      copied = true;
    } catch {
      // Without the Clipboard API (a page not served over HTTPS, say), copy a selection instead.
      const range = document.createRange();
      range.selectNodeContents(document.getElementById(button.dataset.copy));
      getSelection().removeAllRanges();
      getSelection().addRange(range);
      copied = document.execCommand("copy");
    }
    button.textContent = copied ? "Copied" : "Press Ctrl+C";
    copyStatus.textContent = copied ? "Copied to the clipboard" : "Selected: press Ctrl+C to copy";
    setTimeout(() => { button.textContent = "Copy"; }, 2000);
  }

  /** Builds the request a form describes, sends it to this page's origin, and shows the answer. */
  async function send(form) {
    const result = form.querySelector(".result");
    let path = form.dataset.path;
    const query = new URLSearchParams();
    const headers = new Headers();
    for (const input of form.querySelectorAll("[data-in]")) {
      const value = input.value;
      const name = input.dataset.name;
      if (input.dataset.in === "path") path = path.replace("{" + name + "}", encodeURIComponent(value));
      else if (value === "") continue;
      else if (input.dataset.in === "query") query.append(name, value);
      else headers.set(name, value);
    }
    const body = form.querySelector("[data-body]");
    if (body) headers.set("content-type", body.dataset.body);
    const key = typedKey();
    if (form.dataset.keyed === "true" && key !== "") headers.set("authorization", "Bearer " + key);
    const search = query.toString();
    const target = "." + document.body.dataset.basePath + path + (search === "" ? "" : "?" + search);
    const method = form.dataset.method;
    show(result, [line("Sending " + method + " " + new URL(target, location.href).pathname + "…")]);
    try {
      const answer = await fetch(target, { method, headers, body: body ? body.value : undefined, cache: "no-store" });
      const text = await answer.text();
      show(result, answerParts(answer, text));
    } catch (error) {
      show(result, [line("The request failed: " + (error && error.message ? error.message : String(error)))]);
    }
  }

  function answerParts(response, text) {
    const status = document.createElement("span");
    status.className = "status s" + String(response.status)[0];
    status.textContent = String(response.status);
    const summary = line(response.statusText || "");
    summary.prepend(status, " ");
    const headers = document.createElement("pre");
    headers.className = "result-headers";
    headers.textContent = [...response.headers].map(([name, value]) => name + ": " + value).join("\\n");
    const body = document.createElement("pre");
    body.textContent = pretty(text);
    return text === "" ? [summary, headers] : [summary, headers, body];
  }

  function pretty(text) {
    try { return JSON.stringify(JSON.parse(text), null, 2); } catch { return text; }
  }

  function line(text) {
    const paragraph = document.createElement("p");
    paragraph.className = "result-line";
    paragraph.textContent = text;
    return paragraph;
  }

  function show(result, parts) {
    result.replaceChildren(...parts);
  }
})();
`;

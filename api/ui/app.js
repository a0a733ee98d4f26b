// turnstile approval console: plain script, no framework, no build step.
// The credential never reaches this script: the server keeps it in the
// session; this script holds only the session's CSRF token, in memory.
"use strict";

// cards: every request shown since sign-in, by id, in the order first
// seen (a Map keeps a key's place when its value changes).
// The session's CSRF token goes with every request: the session cookie
// reaches every port of this host, the token only this origin's
// sessionStorage (kept there for a reload of the tab).
const CSRF_KEY = "turnstile_csrf";
const state = { csrf: sessionStorage.getItem(CSRF_KEY) || "", me: null, es: null, cards: new Map(), turns: new Map(), timer: 0, after: "" };
const $ = (id) => document.getElementById(id);

// visible writes control and format characters (escape sequences, a
// right-to-left override, zero-width characters) and those that draw as a
// blank or as nothing but are no ASCII space (a no-break space, U+2800, a
// variation selector, U+FFFC which draws with no width: a shell reads
// "done\u{a0}#" as one word, no comment; the same set as
// domain.BlankDrawing and its blankSymbols) as \u{…} escapes: the
// fields of a request come from the agent, and a person deciding it must
// see every character, not text the browser reorders or hides.
// It is one-to-one: a backslash that would read as the start of an escape
// (before another backslash, a "u", or a character shown as an escape) is
// shown doubled, so the text \u{a} is never shown as a line break is.
const hiddenChars = /[\p{Cf}\p{Default_Ignorable_Code_Point}\u0000-\u001f\u007f-\u009f\u2028\u2029\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000\u2800\u115f\u1160\u3164\uffa0\ufffc\u303f\u{1d159}\u{16fe4}]/gu;
const escapeLike = /\\(?=[\\u\p{Cf}\p{Default_Ignorable_Code_Point}\u0000-\u001f\u007f-\u009f\u2028\u2029\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000\u2800\u115f\u1160\u3164\uffa0\ufffc\u303f\u{1d159}\u{16fe4}])/gu;
function visible(s) {
  return typeof s === "string"
    ? s.replace(escapeLike, "\\\\").replace(hiddenChars, (c) => "\\u{" + c.codePointAt(0).toString(16) + "}")
    : s;
}

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "text") e.textContent = visible(v);
    else if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const k of kids) if (k != null) e.append(visible(k));
  return e;
}

// Read-your-writes: commands do not wait for the read models, and the event
// stream can be ahead of them. state.after is the latest store position this
// console has seen (an event's id, a command's answer); a read of the read
// models passes it (?after=, after_position on the list of turns) and the
// server answers once they include it.
function seen(pos) {
  if (!pos) return;
  try { if (!state.after || newer(pos, state.after)) state.after = pos; } catch (_) { /* not a position */ }
}

function newer(a, b) {
  const key = (p) => { const [c, q] = String(p).split("-"); return [BigInt(c), BigInt(q === undefined ? c : q)]; };
  const x = key(a), y = key(b);
  return x[0] > y[0] || (x[0] === y[0] && x[1] > y[1]);
}

function withAfter(path) {
  if (!state.after) return path;
  const [bare] = path.split("?");
  let param = "";
  if (bare === "/v1/turns") param = "after_position";
  else if (bare === "/v1/approvals" || bare.startsWith("/v1/approvals/")) param = "after";
  else if (/^\/v1\/turns\/[^/]+(\/(timeline|audit|explain))?$/.test(bare)) param = "after";
  if (!param) return path;
  return path + (path.includes("?") ? "&" : "?") + param + "=" + encodeURIComponent(state.after);
}

async function api(method, path, body, headers) {
  if (method === "GET") path = withAfter(path);
  const opts = { method, credentials: "same-origin", headers: Object.assign({}, headers) };
  if (state.csrf) opts.headers["X-CSRF-Token"] = state.csrf;
  if (body !== undefined) { opts.headers["Content-Type"] = "application/json"; opts.body = JSON.stringify(body); }
  const resp = await fetch(path, opts);
  const text = await resp.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch (_) { data = { raw: text }; }
  if (resp.status === 401 && path !== "/ui/session") { signedOut(); }
  if (!resp.ok) {
    const msg = data && data.error ? data.error.message : resp.statusText;
    const err = new Error(msg); err.status = resp.status; throw err;
  }
  if (method !== "GET" && data) seen(data.position);
  return data;
}

// ---- sign in / out ----

async function start() {
  $("signin").addEventListener("submit", signIn);
  $("signout").addEventListener("click", signOut);
  window.addEventListener("hashchange", route);
  try { session(await api("GET", "/ui/session")); } catch (_) { signedOut(); }
}

async function signIn(ev) {
  ev.preventDefault();
  $("signin-error").textContent = "";
  try {
    // The token goes in a header: a sign-in then needs no share of the
    // server's body budget, which requests without a credential share.
    const info = await api("POST", "/ui/session", undefined, { "Authorization": "Bearer " + $("token").value });
    $("token").value = "";
    session(info);
  } catch (e) {
    $("token").value = "";
    $("signin-error").textContent = "Sign-in refused: " + e.message;
  }
}

async function signOut() {
  try { await api("DELETE", "/ui/session"); } catch (_) { /* signed out either way */ }
  signedOut();
}

function session(info) {
  state.me = info; state.csrf = info.csrf_token;
  sessionStorage.setItem(CSRF_KEY, state.csrf);
  $("signin").hidden = true; $("nav").hidden = false;
  $("who").textContent = info.name + " (" + info.role + ")";
  connect();
  if (!location.hash) location.hash = "#/approvals"; else route();
}

function signedOut() {
  state.me = null; state.csrf = ""; state.cards = new Map(); state.turns = new Map();
  sessionStorage.removeItem(CSRF_KEY);
  if (state.es) { state.es.close(); state.es = null; }
  $("conn").hidden = true; $("nav").hidden = true; $("signin").hidden = false;
  $("view").replaceChildren();
  $("token").focus();
}

// ---- live events ----

function connect() {
  if (state.es) state.es.close();
  // EventSource reconnects by itself and sends Last-Event-ID, so nothing
  // that happened while disconnected is missed.
  const es = new EventSource("/v1/events?csrf_token=" + encodeURIComponent(state.csrf));
  state.es = es;
  conn("connecting…", false);
  es.onopen = () => { conn("live", true); if (view() === "approvals") loadApprovals(); };
  es.onerror = () => {
    if (es.readyState === EventSource.CLOSED) {
      conn("disconnected — retrying…", false);
      setTimeout(() => { if (state.me && state.es === es) connect(); }, 2000);
    } else conn("reconnecting…", false);
  };
  for (const m of ["turn/permission/request/opened", "turn/permission/request/resolved", "turn/started", "turn/completed", "turn/interrupted", "turn/failed", "turn/permission/audit"]) {
    es.addEventListener(m, (e) => { seen(e.lastEventId); onEvent(m, JSON.parse(e.data).params); });
  }
}

function conn(text, live) {
  const c = $("conn");
  c.hidden = false; c.textContent = "Connection: " + text; c.className = live ? "live" : "";
  c.dataset.state = live ? "live" : "reconnecting";
}

// onEvent reacts to one event of the stream. Its position (the SSE id) has
// been seen (state.after), so the reads it triggers include it: on another
// instance, or under load, the stream can be ahead of the read models.
//
// The agent causes events at will (each request it opens is one), so an
// event costs this console what it adds, not a reload of everything: an
// opened request's card comes from the event itself, its turn's view is
// fetched once (again after the turn's permissions change), and the
// reloads and redraws a burst of events asks for run once after it.
function onEvent(method, p) {
  const v = view();
  if (method === "turn/permission/request/opened" && p.request) {
    const id = p.request.request_id;
    if (!state.cards.has(id)) state.cards.set(id, { request: p.request, status: "pending", expires_at: p.expires_at });
    if (!state.turns.has(p.turn_id)) loadTurnView(p.turn_id);
    if (v === "approvals") renderSoon();
  }
  if (method === "turn/permission/request/resolved") {
    const a = state.cards.get(p.request_id);
    if (a && a.status === "pending") state.cards.set(p.request_id, Object.assign({}, a, { status: "resolved", resolution: p.resolution, resolved_by: p.actor }));
    if (v === "approvals") renderSoon();
  }
  if (method === "turn/permission/audit" && p.kind === "profile_changed" && state.turns.has(p.turn_id)) {
    state.turns.delete(p.turn_id);
    loadTurnView(p.turn_id);
  }
  if (v === "turns" && method.startsWith("turn/")) loadTurns();
  if (v === "turn" && p.turn_id === arg()) loadTurn(arg());
}

// coalesced wraps an async fn: calls while it runs make one more run after
// it (with the last call's arguments), not one each.
function coalesced(fn) {
  let running = null, again = null;
  const run = (...args) => {
    if (running) { again = args; return running; }
    running = (async () => {
      try { await fn(...args); } finally {
        running = null;
        if (again) { const a = again; again = null; run(...a); }
      }
    })();
    return running;
  };
  return run;
}

// renderSoon redraws the approvals once for the events of this moment.
function renderSoon() {
  if (state.renderTimer) return;
  state.renderTimer = setTimeout(() => { state.renderTimer = 0; if (view() === "approvals") renderApprovals(); }, 50);
}

// loadTurnView fetches a turn's view for its cards, once at a time for
// each turn.
const turnLoads = new Map();
function loadTurnView(id) {
  let load = turnLoads.get(id);
  if (!load) {
    load = coalesced(async () => {
      try { state.turns.set(id, await api("GET", "/v1/turns/" + encodeURIComponent(id))); } catch (_) { /* shown as unknown */ }
      if (view() === "approvals") renderSoon();
    });
    turnLoads.set(id, load);
  }
  return load();
}

// ---- routing ----

function view() { return (location.hash.split("/")[1] || "approvals"); }
function arg() { return decodeURIComponent(location.hash.split("/")[2] || ""); }

function route() {
  if (!state.me) return;
  const v = view();
  if (v === "approvals") loadApprovals();
  else if (v === "turns") loadTurns();
  else if (v === "turn") loadTurn(arg());
  else if (v === "audit") loadAudit(arg());
}

function show(title, ...kids) { $("view").replaceChildren(el("h2", { text: title }), ...kids); }
function fail(e) { show("Error", el("p", { class: "error", role: "alert", text: e.message })); }

// ---- pending approvals ----

// loadApprovals lists the pending requests. The list includes every event
// this console has seen (api passes ?after=), so a request the event stream
// just announced is in it. A 504 (the read model did not reach that
// position within the server's bound) is asked again, a bounded number of
// times.
//
// Cards keep their places: a request stays where it first appeared, pending
// or not, a new one goes below the others, and a resolved card keeps its
// height (its buttons stay, disabled). The agent can end a turn or open a
// request at any moment: had a card left its place, the one below would
// slide under the person's pointer as they click (an Allow meant for one
// request would answer another).
const loadApprovals = coalesced(loadApprovalsOnce);
async function loadApprovalsOnce(tries = 0) {
  try {
    const data = await api("GET", "/v1/approvals?status=pending");
    const listed = new Set();
    for (const a of data.approvals) {
      const id = a.request.request_id, had = state.cards.get(id);
      listed.add(id);
      if (!had || had.status === "pending") state.cards.set(id, a);
    }
    for (const [id, a] of state.cards) {
      if (a.status === "pending" && !listed.has(id)) state.cards.set(id, Object.assign({}, a, { status: "resolved", resolution: "" }));
    }
    await Promise.all([...new Set(data.approvals.map((a) => a.request.turn_id))].filter((id) => !state.turns.has(id)).map(loadTurnView));
    if (view() === "approvals") renderApprovals();
  } catch (e) {
    if (e.status === 504 && tries < 6) return loadApprovalsOnce(tries + 1);
    fail(e);
  }
}

function renderApprovals() {
  const all = [...state.cards.values()];
  const pending = all.filter((a) => a.status === "pending").length;
  show("Pending approvals", el("p", { class: "meta", id: "pending-count", text: pending + " pending" }), ...all.map(card));
}

function card(a) {
  const r = a.request, pending = a.status === "pending";
  const c = el("article", { class: "card" + (pending ? "" : " resolved"), id: "req-" + r.request_id, "data-status": a.status, "aria-label": r.summary });
  c.append(el("h3", { text: r.summary }));
  c.append(el("p", { class: "meta" }, r.tool_name + " · " + r.action + " · reason " + r.reason + " · turn ",
    el("a", { href: "#/turn/" + encodeURIComponent(r.turn_id), text: r.turn_id }), " · workspace " + r.workspace_id));
  c.append(kv((r.details || []).map((d) => [d.label, d.value, d.monospace])));
  // What "Allow for this turn" covers, in the server's words (the command
  // line shows the same before its question).
  if (r.for_this_turn) c.append(el("p", { class: "meta covers", text: r.for_this_turn }));
  const t = state.turns.get(r.turn_id);
  if (t) c.append(el("details", {}, el("summary", { text: "Turn permissions: " + t.turn.permission_profile.mode }), permissions(t.security_snapshot)));
  // A resolved card has the same lines as a pending one (its place and
  // height do not change: see loadApprovals), its buttons disabled.
  const act = el("div", { class: "actions" });
  if (pending) {
    c.append(el("p", { class: "meta expires", "data-expires": a.expires_at, text: expiresIn(a.expires_at) }));
    const msg = el("p", { class: "result", role: "status" });
    for (const [res, label, cls] of [["allow_once", "Allow once", "allow"], ["allow_for_turn", "Allow for this turn", "allow"], ["deny", "Deny", "deny"]]) {
      act.append(el("button", { type: "button", class: cls, "data-resolution": res, onclick: () => respond(r.request_id, res, act, msg), text: label }));
    }
    c.append(act, msg);
  } else {
    const by = a.resolved_by ? " by " + (a.resolved_by.role ? a.resolved_by.role + ":" : "") + a.resolved_by.name : "";
    const what = a.resolution ? "Resolved: " + a.resolution + by : "No longer pending";
    c.append(el("p", { class: "meta result " + (a.resolution === "deny" ? "error" : "ok"), role: "status", text: what }));
    for (const [label, cls] of [["Allow once", "allow"], ["Allow for this turn", "allow"], ["Deny", "deny"]]) {
      act.append(el("button", { type: "button", class: cls, disabled: "", text: label }));
    }
    c.append(act, el("p", { class: "done" }));
  }
  return c;
}

async function respond(id, resolution, act, msg) {
  for (const b of act.querySelectorAll("button")) b.disabled = true;
  msg.textContent = "Sending…";
  try {
    const out = await api("POST", "/v1/approvals/" + encodeURIComponent(id) + "/respond", { resolution });
    msg.textContent = "Resolved: " + (out.resolution || resolution);
  } catch (e) {
    msg.className = "result error"; msg.textContent = "Refused: " + e.message;
    for (const b of act.querySelectorAll("button")) b.disabled = false;
  }
}

function expiresIn(at) {
  const s = Math.round((Date.parse(at) - Date.now()) / 1000);
  if (s <= 0) return "Expired (awaiting the sweeper)";
  return "Expires in " + (s >= 60 ? Math.floor(s / 60) + " min " : "") + (s % 60) + " s";
}

function tick() {
  for (const e of document.querySelectorAll("[data-expires]")) e.textContent = expiresIn(e.dataset.expires);
}

// ---- readable tables ----

function kv(rows) {
  const tb = el("tbody");
  for (const [k, v, mono] of rows) tb.append(el("tr", {}, el("th", { scope: "row", text: k }), el("td", { class: mono ? "mono" : "" }, fmt(v))));
  return el("table", {}, tb);
}

function fmt(v) {
  if (v == null || v === "") return "—";
  if (Array.isArray(v)) {
    if (v.length === 0) return "—";
    if (typeof v[0] === "object") return grid(v);
    return v.join(", ");
  }
  if (typeof v === "object") return kv(Object.entries(v));
  return String(v);
}

function grid(rows, cols) {
  cols = cols || [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const head = el("tr", {}, ...cols.map((c) => el("th", { scope: "col", text: c })));
  const body = rows.map((r) => el("tr", {}, ...cols.map((c) => el("td", {}, typeof r[c] === "object" && r[c] !== null ? JSON.stringify(r[c]) : fmt(r[c])))));
  return el("table", {}, el("thead", {}, head), el("tbody", {}, ...body));
}

function permissions(snap) { return kv(Object.entries(snap || {})); }

// ---- turns ----

const loadTurns = coalesced(loadTurnsOnce);
async function loadTurnsOnce() {
  try {
    const data = await api("GET", "/v1/turns?limit=200");
    const rows = data.turns.map((t) => el("tr", {},
      el("td", {}, el("a", { href: "#/turn/" + encodeURIComponent(t.id), text: t.id })),
      el("td", { text: t.status }), el("td", { text: t.permission_profile ? t.permission_profile.mode : "" }), el("td", { text: String(t.pending_approvals || 0) }),
      el("td", { text: t.workspace_id })));
    const head = el("tr", {}, ...["Turn", "Status", "Profile", "Pending", "Workspace"].map((c) => el("th", { scope: "col", text: c })));
    if (view() === "turns") show("Turns", el("table", { id: "turns" }, el("thead", {}, head), el("tbody", {}, ...rows)));
  } catch (e) { fail(e); }
}

const loadTurn = coalesced(loadTurnOnce);
async function loadTurnOnce(id) {
  try {
    const t = await api("GET", "/v1/turns/" + encodeURIComponent(id));
    const tl = await api("GET", "/v1/turns/" + encodeURIComponent(id) + "/timeline");
    const v = t.turn;
    show("Turn " + id,
      kv([["Status", v.status], ["Profile", v.permission_profile ? v.permission_profile.mode : ""], ["Pending", String(v.pending_approvals || 0)], ["Workspace", v.workspace_id], ["Thread", v.thread_id], ["Version", String(v.version)]]),
      el("p", {}, el("a", { href: "#/audit/" + encodeURIComponent(id), text: "Audit and hash-chain check" })),
      el("h3", { text: "Security snapshot" }), permissions(t.security_snapshot),
      el("h3", { text: "Timeline" }), tl.rows.length ? grid(tl.rows) : el("p", { text: "No rows." }));
  } catch (e) { fail(e); }
}

// ---- audit ----

async function loadAudit(id) {
  try {
    const enc = encodeURIComponent(id);
    const [audit, chain, raw] = await Promise.all([api("GET", "/v1/turns/" + enc + "/audit"), api("GET", "/v1/turns/" + enc + "/verify"), api("GET", "/v1/turns/" + enc + "/events")]);
    const ok = chain.valid;
    const status = el("p", { id: "chain", class: ok ? "ok" : "error", role: "status", text: ok ? "Hash chain intact: " + chain.events + " events, last hash " + chain.last_hash : "Hash chain BROKEN: " + chain.error });
    const blob = new Blob([JSON.stringify(raw, null, 2)], { type: "application/json" });
    const dl = el("a", { href: URL.createObjectURL(blob), download: "turn-" + id + "-events.json", id: "download", text: "Download the raw events (JSON)" });
    show("Audit of " + id, status, el("p", {}, dl), audit.rows.length ? grid(audit.rows) : el("p", { text: "No rows." }));
  } catch (e) { fail(e); }
}

setInterval(tick, 1000);
start();

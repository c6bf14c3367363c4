// What every page of the service shares (the explorer and the players' page): talking to the
// service's JSON paths, the busy flag, messages, cards' suits and the table's shape, and which
// view the page and its address show. Every rule is judged by the server; the pages only draw
// and ask. The explorer's requests to the interpreter are in explorer.js, which the players' page
// does not load.
"use strict";

const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
const RED_SUITS = new Set(["H", "D"]);

// Columns for a table of this many slots: two rows up to 12, then a square.
function columnsFor(slots) {
  return slots <= 12 ? Math.max(1, Math.ceil(slots / 2)) : Math.ceil(Math.sqrt(slots));
}

const $ = (id) => document.getElementById(id);
const isError = (output) => typeof output === "string" && output.startsWith("error: ");

// ---------------------------------------------------------------- talking to the service

// GET a JSON document of the service; an error status gives {error} as the service wrote it.
const getJSON = (path) => sendJSON("GET", path);

// A request to a path of the service, with a JSON body and a player's token when given.
async function sendJSON(method, path, body = undefined, token = null) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  let answer;
  try {
    answer = await response.json();
  } catch {
    answer = { error: `HTTP ${response.status} from ${path}` };
  }
  if (!response.ok && !(answer && answer.error)) answer = { error: `HTTP ${response.status} from ${path}` };
  return { ok: response.ok, status: response.status, answer };
}

// ---------------------------------------------------------------- busy, messages

let busy = false;
let working = 0; // pieces of work in flight: more than one only while a later one supersedes

// Runs one piece of work at a time; `body.busy` is set meanwhile (the tests wait on it). Work
// that `supersedes` (a new deal) runs even while another is in flight: the view then drops
// the earlier work's answers as stale (see triples.js), so the latest request always wins.
async function act(work, { supersedes = false } = {}) {
  if (busy && !supersedes) return;
  busy = true;
  working += 1;
  document.body.classList.add("busy");
  try {
    await work();
  } catch (error) {
    const view = Explorer.views[Explorer.current];
    if (view && view.say) view.say(`error: ${error.message}`);
  } finally {
    working -= 1;
    if (working === 0) {
      busy = false;
      document.body.classList.remove("busy");
      for (const view of Object.values(Explorer.views)) if (view.idle) view.idle();
    }
  }
}

function showMessage(box, text) {
  box.hidden = !text;
  box.textContent = text || "";
  box.classList.toggle("error", Boolean(text) && text.includes("error: "));
}

// ---------------------------------------------------------------- games and the address

// Each game registers {open(params, replace), address(), say(text), idle()?, keydown(event)?}.
// The address of Triples has no `game` parameter, so the addresses shared before the other
// games came keep opening what they opened.
const Explorer = { views: {}, current: null };

function registerView(name, view) {
  Explorer.views[name] = view;
}

function gameOf(params) {
  const name = params.get("game");
  if (name && Explorer.views[name]) return name;
  return Explorer.views.triples ? "triples" : Object.keys(Explorer.views)[0];
}

function showView(name) {
  Explorer.current = name;
  for (const tab of document.querySelectorAll('[role="tab"]')) {
    const chosen = tab.dataset.game === name;
    tab.setAttribute("aria-selected", String(chosen));
    tab.tabIndex = chosen ? 0 : -1;
    $(tab.getAttribute("aria-controls")).hidden = !chosen;
  }
  document.title = `${name === "triples" ? "Triples" : name[0].toUpperCase() + name.slice(1)} · deal explorer`;
}

// A new history entry per change, so Back steps back; the first load and Back itself only
// tidy the address they came with.
function remember(search, replace) {
  if (search === location.search) return;
  if (replace) history.replaceState(null, "", search);
  else history.pushState(null, "", search);
}

function openAddress(replace) {
  const params = new URLSearchParams(location.search);
  const name = gameOf(params);
  showView(name);
  Explorer.views[name].open(params, replace);
}

function switchTo(name) {
  if (name === Explorer.current) return;
  showView(name);
  const view = Explorer.views[name];
  view.open(new URLSearchParams(view.address()), false);
}

function startExplorer() {
  const tabs = [...document.querySelectorAll('[role="tab"]')];
  for (const tab of tabs) tab.addEventListener("click", () => switchTo(tab.dataset.game));
  // Arrow keys move between tabs, as in any tab list (a page of one view has none).
  if (tabs.length) tabs[0].parentElement.addEventListener("keydown", (event) => {
    if (event.key !== "ArrowRight" && event.key !== "ArrowLeft") return;
    const at = tabs.findIndex((tab) => tab.dataset.game === Explorer.current);
    const next = tabs[(at + (event.key === "ArrowRight" ? 1 : tabs.length - 1)) % tabs.length];
    next.focus();
    switchTo(next.dataset.game);
  });
  document.addEventListener("keydown", (event) => {
    if (event.target.closest("input, textarea, select") || event.metaKey || event.ctrlKey || event.altKey) return;
    const view = Explorer.views[Explorer.current];
    if (view && view.keydown) view.keydown(event);
  });
  window.addEventListener("popstate", () => openAddress(true));
  openAddress(true);
}

// Deferred scripts run in order before DOMContentLoaded: every game has registered by then.
document.addEventListener("DOMContentLoaded", startExplorer);

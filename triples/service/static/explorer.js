// The deal explorer: one game, kept as (variant, seed or deck, moves) and replayed through
// POST /run on every change. The server is the only judge of the rules; the values below
// serve only to show the sum of a selection.
"use strict";

const VARIANTS = {
  classic: { slots: 10, k: 3, target: 20, court: [10, 10, 10], columns: 5 },
  pairs: { slots: 9, k: 2, target: 14, court: [11, 12, 13], columns: 5 },
  quads: { slots: 12, k: 4, target: 30, court: [10, 10, 10], columns: 6 },
  sum15: { slots: 9, k: 3, target: 15, court: null, columns: 5 },
  grid: { slots: 12, k: 3, target: 15, court: null, columns: 4 },
  grid100: { slots: 100, k: 3, target: 39, court: null, columns: 10 },
};
const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
const RED_SUITS = new Set(["H", "D"]);
const GAME = "g";

const $ = (id) => document.getElementById(id);

const game = { variant: "classic", seed: "1", deck: null, moves: [] };
let view = null; // what the server last said about the game
let selected = [];
let hinted = [];
let busy = false;

// ---------------------------------------------------------------- talking to POST /run

// Seeds go up to 2^64-1, past what a JS number holds: the seed is written into the body as
// its own digits, and every other operation through JSON.stringify.
function newOperation() {
  const deal = game.deck !== null ? JSON.stringify(game.deck) : game.seed;
  return `["new",${JSON.stringify(GAME)},${deal},${JSON.stringify(game.variant)}]`;
}

async function post(operations) {
  const body = "[" + [newOperation(), ...operations.map((op) => JSON.stringify(op))].join(",") + "]";
  const response = await fetch("/run", { method: "POST", headers: { "Content-Type": "application/json" }, body });
  const answer = await response.json();
  if (!response.ok) throw new Error(answer.error || `HTTP ${response.status}`);
  return answer;
}

const isError = (output) => typeof output === "string" && output.startsWith("error: ");

// The whole game in one request: deal, learn k, best at the start, then each move with the
// table and best after it, then the current status. Returns the outputs of `extra` too.
async function replay(extra = []) {
  const ops = [["play", GAME, []], ["best", GAME]];
  for (const move of game.moves) ops.push(["play", GAME, move], ["table", GAME], ["best", GAME]);
  ops.push(["table", GAME], ["status", GAME], ["best", GAME], ["moves", GAME], ...extra);
  const out = await post(ops);
  const dealt = out[0];
  if (isError(dealt)) return { failed: dealt };
  const picked = /pick exactly (\d+) card/.exec(out[1]);
  const info = VARIANTS[game.variant] || {};
  const result = { k: picked ? Number(picked[1]) : info.k, steps: [], before: dealt, bestAtStart: out[2] };
  let at = 3;
  let before = dealt;
  for (const move of game.moves) {
    const [played, table, best] = out.slice(at, at + 3);
    if (isError(played)) return { ...result, rejected: { move, error: played, index: result.steps.length } };
    result.steps.push({ move, cards: move.map((slot) => before[slot]), best });
    before = table;
    at += 3;
  }
  [result.table, result.status, result.best, result.legal] = out.slice(at, at + 4);
  result.extra = out.slice(at + 4);
  return result;
}

// ---------------------------------------------------------------- the address bar

function readAddress() {
  const params = new URLSearchParams(location.search);
  const variant = params.get("variant");
  game.variant = variant && VARIANTS[variant] ? variant : "classic";
  const deck = params.get("deck");
  game.deck = deck ? deck.split(/[\s,]+/).filter(Boolean) : null;
  const seed = params.get("seed");
  game.seed = seed && /^-?[0-9]+$/.test(seed) ? seed : "1"; // any integer is a seed (docs/game.md)
  const moves = params.get("moves");
  game.moves = moves
    ? moves.split(",").filter(Boolean).map((m) => m.split("-").map(Number)).filter((m) => m.every(Number.isInteger))
    : [];
}

function address() {
  const parts = [`variant=${encodeURIComponent(game.variant)}`];
  parts.push(game.deck !== null ? `deck=${game.deck.map(encodeURIComponent).join(",")}` : `seed=${game.seed}`);
  if (game.moves.length) parts.push(`moves=${game.moves.map((m) => m.join("-")).join(",")}`);
  return "?" + parts.join("&");
}

// A new entry per change, so the browser's Back button steps back through the game; the
// first load and Back itself only tidy the address they came with.
function remember(replace) {
  const target = address();
  if (target === location.search) return;
  if (replace) history.replaceState(null, "", target);
  else history.pushState(null, "", target);
}

// ---------------------------------------------------------------- actions

async function act(work) {
  if (busy) return;
  busy = true;
  document.body.classList.add("busy");
  try {
    await work();
  } catch (error) {
    say(`error: ${error.message}`);
  } finally {
    busy = false;
    document.body.classList.remove("busy");
    renderButtons();
  }
}

async function refresh(message = null, replace = false) {
  const result = await replay();
  if (result.rejected) {
    const { index, move, error } = result.rejected;
    game.moves = game.moves.slice(0, index);
    await refresh(`move ${index + 1} (${move.join("-")}) was refused: ${error}`, replace);
    return;
  }
  view = result;
  selected = [];
  hinted = [];
  remember(replace);
  render();
  say(message || result.failed || null);
}

function deal() {
  return act(async () => {
    game.moves = [];
    await refresh();
  });
}

function play(move) {
  return act(async () => {
    const result = await replay([["play", GAME, move]]);
    const answer = result.extra ? result.extra[0] : result.failed;
    if (isError(answer)) {
      rejectSelection(answer);
      return;
    }
    game.moves.push([...move].sort((a, b) => a - b));
    await refresh();
  });
}

function undo() {
  if (!game.moves.length) return say("error: nothing to undo");
  return act(async () => {
    game.moves.pop();
    await refresh();
  });
}

function rewind(count) {
  return act(async () => {
    game.moves = game.moves.slice(0, count);
    await refresh();
  });
}

function hint() {
  return act(async () => {
    const result = await replay([["solve", GAME]]);
    const line = result.extra && result.extra[0];
    if (!line || isError(line)) return say(line || result.failed);
    selected = [];
    hinted = line.moves.length ? line.moves[0] : [];
    render();
    say(hinted.length ? `hint: play slots ${hinted.join(", ")} (a line that still reaches ${line.best})` : "no move left");
  });
}

function autoplay() {
  const strategy = $("strategy").value;
  return act(async () => {
    const result = await replay([["autoplay", GAME, strategy]]);
    const answer = result.extra && result.extra[0];
    if (!answer || isError(answer)) return say(answer || result.failed);
    game.moves.push(...answer.moves);
    await refresh(`autoplay (${strategy}): ${answer.moves.length} move${answer.moves.length === 1 ? "" : "s"}`);
  });
}

function toggle(slot) {
  if (!view || !view.table || view.table[slot] === null || busy) return;
  hinted = [];
  selected = selected.includes(slot) ? selected.filter((s) => s !== slot) : [...selected, slot];
  say(null);
  render();
  if (selected.length === view.k) play(selected);
}

function rejectSelection(error) {
  const shaking = [...selected];
  say(error);
  for (const slot of shaking) cardAt(slot)?.classList.add("refused");
  setTimeout(() => {
    selected = [];
    render();
  }, 450);
}

// ---------------------------------------------------------------- drawing

function cardValue(code) {
  const rank = code.slice(0, -1);
  const court = (VARIANTS[game.variant] || {}).court;
  if (rank === "A") return 1;
  if (court && "JQK".includes(rank)) return court["JQK".indexOf(rank)];
  return Number(rank);
}

function cardFace(code) {
  const rank = code.slice(0, -1);
  const suit = code.slice(-1);
  const face = document.createElement("span");
  face.className = `face ${RED_SUITS.has(suit) ? "red" : "black"}${"JQK".includes(rank) ? " court" : ""}`;
  const corner = `<span class="rank">${rank}</span><span class="pip">${SUITS[suit] || suit}</span>`;
  face.innerHTML =
    `<span class="corner top">${corner}</span>` +
    `<span class="centre">${SUITS[suit] || suit}</span>` +
    `<span class="corner bottom">${corner}</span>`;
  const value = cardValue(code);
  if ("JQK".includes(rank)) face.insertAdjacentHTML("beforeend", `<span class="value" title="worth ${value}">${value}</span>`);
  return face;
}

const cardAt = (slot) => $("table").querySelector(`[data-slot="${slot}"]`);

function renderTable() {
  const box = $("table");
  const info = VARIANTS[game.variant] || {};
  const table = view && view.table ? view.table : [];
  box.style.setProperty("--columns", info.columns || Math.ceil(Math.sqrt(table.length)) || 5);
  box.classList.toggle("dense", table.length > 20);
  box.replaceChildren();
  table.forEach((code, slot) => {
    const card = document.createElement("button");
    card.type = "button";
    card.className = "card";
    card.dataset.slot = slot;
    card.dataset.code = code === null ? "" : code;
    card.setAttribute("aria-pressed", selected.includes(slot));
    card.classList.toggle("selected", selected.includes(slot));
    card.classList.toggle("hinted", hinted.includes(slot));
    if (code === null) {
      card.classList.add("empty");
      card.disabled = true;
      card.setAttribute("aria-label", `slot ${slot}: empty`);
    } else {
      card.setAttribute("aria-label", `slot ${slot}: ${code}`);
      card.append(cardFace(code));
    }
    const label = document.createElement("span");
    label.className = "slot-number";
    label.textContent = slot;
    card.append(label);
    card.addEventListener("click", () => toggle(slot));
    box.append(card);
  });
}

function renderStatus() {
  const info = VARIANTS[game.variant] || {};
  const status = view && view.status && !isError(view.status) ? view.status : null;
  $("cleared").textContent = status ? status.cleared : "–";
  $("stock").textContent = status ? status.stock : "–";
  $("over").textContent = status ? (status.over ? "yes" : "no") : "–";
  $("best").textContent = view && Number.isInteger(view.best) ? view.best : "–";
  $("legal").textContent = view && Array.isArray(view.legal) ? view.legal.length : "–";
  const k = view ? view.k : info.k;
  $("goal").innerHTML = `Take <b>${k}</b> cards that add up to <b>${info.target}</b>`;
  const verdict = $("verdict");
  verdict.className = "verdict";
  if (!status) {
    verdict.textContent = "";
  } else if (status.over) {
    verdict.textContent = `Game over: ${status.cleared} cleared; the best line from the deal clears ${view.bestAtStart}.`;
    verdict.classList.add(status.cleared === view.bestAtStart ? "good" : "bad");
  } else if (view.best < view.bestAtStart) {
    verdict.textContent = `${view.bestAtStart - view.best} card${view.bestAtStart - view.best === 1 ? "" : "s"} lost to earlier moves; the best from here is ${view.best}.`;
    verdict.classList.add("bad");
  } else {
    verdict.textContent = `Still on a best line: ${view.best} can be cleared.`;
    verdict.classList.add("good");
  }
  const values = selected.map((slot) => cardValue(view.table[slot]));
  const total = values.reduce((a, b) => a + b, 0);
  $("selection").textContent = selected.length
    ? `${values.join(" + ")} = ${total} of ${info.target} · ${selected.length}/${k} picked`
    : "";
}

function renderHistory() {
  const list = $("history");
  list.replaceChildren();
  $("history-empty").hidden = Boolean(view && view.steps && view.steps.length);
  if (!view || !view.steps) return;
  let previous = view.bestAtStart;
  view.steps.forEach((step, index) => {
    const item = document.createElement("li");
    const lost = previous - step.best;
    item.className = lost > 0 ? "lost" : "";
    item.title = "go back to just after this move";
    const cards = step.cards
      .map((code) => `<span class="mini ${RED_SUITS.has(code.slice(-1)) ? "red" : "black"}">${code.slice(0, -1)}${SUITS[code.slice(-1)] || ""}</span>`)
      .join("");
    item.innerHTML =
      `<span class="step">${index + 1}</span><span class="slots">${step.move.join("-")}</span>` +
      `<span class="minis">${cards}</span>` +
      `<span class="after">${step.best}${lost > 0 ? ` <em>−${lost}</em>` : ""}</span>`;
    item.addEventListener("click", () => rewind(index + 1));
    list.append(item);
    previous = step.best;
  });
  list.scrollTop = list.scrollHeight; // the list scrolls, never the page
}

function renderButtons() {
  const over = !view || !view.status || view.status.over;
  $("undo").disabled = busy || game.moves.length === 0;
  $("hint").disabled = busy || over;
  $("autoplay").disabled = busy || over;
}

function renderControls() {
  $("variant").value = game.variant;
  if (game.deck === null) $("seed").value = game.seed;
  $("seed").classList.toggle("inactive", game.deck !== null);
}

function render() {
  renderControls();
  renderTable();
  renderStatus();
  renderHistory();
  renderButtons();
}

function say(text) {
  const box = $("message");
  box.hidden = !text;
  box.textContent = text || "";
  box.classList.toggle("error", Boolean(text) && text.includes("error: "));
}

// ---------------------------------------------------------------- wiring

function start() {
  const variantPicker = $("variant");
  for (const [name, info] of Object.entries(VARIANTS)) {
    const option = document.createElement("option");
    option.value = name;
    option.textContent = `${name} (${info.k} to ${info.target})`;
    variantPicker.append(option);
  }
  $("deal-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const seed = $("seed").value.trim();
    if (!/^-?[0-9]+$/.test(seed)) return say("error: a seed is a whole number (any size; negative too)");
    Object.assign(game, { variant: variantPicker.value, seed, deck: null });
    deal();
  });
  variantPicker.addEventListener("change", () => $("deal-form").requestSubmit());
  $("random").addEventListener("click", () => {
    $("seed").value = String(Math.floor(Math.random() * 1_000_000));
    $("deal-form").requestSubmit();
  });
  $("deck-toggle").addEventListener("click", () => {
    const box = $("deck-box");
    box.hidden = !box.hidden;
    $("deck-toggle").setAttribute("aria-expanded", String(!box.hidden));
    if (!box.hidden) {
      if (!$("deck").value && view && view.table) $("deck").placeholder = "9D AH 4H 9H 3C 7H 2S 2D AC 7C …";
      $("deck").focus();
    }
  });
  $("deal-deck").addEventListener("click", () => {
    const codes = $("deck").value.trim().split(/[\s,]+/).filter(Boolean).map((c) => c.toUpperCase());
    if (!codes.length) return say("error: paste the deck's card codes first");
    Object.assign(game, { variant: variantPicker.value, deck: codes });
    deal();
  });
  $("undo").addEventListener("click", undo);
  $("hint").addEventListener("click", hint);
  $("autoplay").addEventListener("click", autoplay);
  document.addEventListener("keydown", (event) => {
    if (event.target.closest("input, textarea, select") || event.metaKey || event.ctrlKey || event.altKey) return;
    const key = event.key.toLowerCase();
    if (key === "escape" && selected.length) {
      selected = [];
      render();
    } else if (key === "u" && !$("undo").disabled) undo();
    else if (key === "h" && !$("hint").disabled) hint();
    else if (key === "a" && !$("autoplay").disabled) autoplay();
  });
  window.addEventListener("popstate", () => {
    readAddress();
    act(() => refresh(null, true));
  });
  readAddress();
  act(() => refresh(null, true));
}

start();

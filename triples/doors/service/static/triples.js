// Triples: one game, kept as (variant and rules, seed or deck, moves) and replayed through
// POST /run on every change. The server is the only judge of the rules; the rules it reports
// (the `variants` operation) serve only to show k, the target and the sum of a selection.
"use strict";

const GAME = "g";
// The fields of a variant object, in the order a custom variant's name lists them.
const RULE_FIELDS = ["slots", "per_move", "target", "deck", "court", "top_rank", "suits"];

let variants = null; // name -> rules, from the server's `variants` operation
// `rules`: the fields changed from the variant's (section "rules" of the page, rules.js).
const game = { variant: "classic", rules: null, seed: "1", deck: null, moves: [] };
let view = null; // what the server last said about the game
let selected = [];
let hinted = [];
let fairHinted = [];
let rating = { key: null, answer: null }; // the deal's rating, asked once per deal
let explained = { key: null, answer: null }; // the `explain` answer for the moves played
let dailyNote = null;
// Each action of this view takes the next number. Once a later one has begun (a deal clicked
// while the last answer is still coming), an earlier action's answers are stale: it drops them
// rather than draw an older game over the newer one, whatever order the answers come in.
let latestAction = 0;

// ---------------------------------------------------------------- the rules in force

// The variant as `new` takes it: its name, or an object with the changed fields.
function variantArgument() {
  return game.rules ? { base: game.variant, ...game.rules } : game.variant;
}

// The rules in force: the variant's, with the changed fields over them. A changed deck brings
// the other deck's default (J/Q/K worth 10, or top rank 9) unless that field is given too.
function effectiveRules() {
  const base = (variants && variants[game.variant]) || { slots: 10, per_move: 3, target: 20, deck: "standard", court: [10, 10, 10], top_rank: null, suits: 4 };
  const rules = { ...base, ...(game.rules || {}) };
  if (game.rules && game.rules.deck && game.rules.deck !== base.deck) {
    if (rules.deck === "standard") Object.assign(rules, { court: game.rules.court || [10, 10, 10], top_rank: null });
    else Object.assign(rules, { court: null, top_rank: game.rules.top_rank || 9 });
  }
  return rules;
}

// The `variants` operation's answer as name -> rules, every field present (null when unused).
function variantsByName(answer) {
  if (isError(answer)) throw new Error(answer.slice("error: ".length));
  const list = Array.isArray(answer) ? answer : Object.entries(answer).map(([name, rules]) => ({ name, ...rules }));
  const byName = {};
  for (const { name, ...rules } of list) byName[name] = { court: null, top_rank: null, suits: 4, ...rules };
  return byName;
}

// ---------------------------------------------------------------- talking to POST /run

// Seeds go up to 2^64-1 and past, beyond what a JS number holds: the seed is written into the
// body as its own digits, and every other operation through JSON.stringify.
function newOperation() {
  const deal = game.deck !== null ? JSON.stringify(game.deck) : game.seed;
  return `["new",${JSON.stringify(GAME)},${deal},${JSON.stringify(variantArgument())}]`;
}

function postGame(operations) {
  return postRun("[" + [newOperation(), ...operations.map((op) => JSON.stringify(op))].join(",") + "]");
}

const dealKey = () => JSON.stringify([game.variant, game.rules, game.seed, game.deck]);

// The whole game in one request: deal, best at the start, then each move with the table and
// best after it, then the current status. Returns the outputs of `extra` too.
async function replay(extra = []) {
  const ops = [["best", GAME]];
  if (!variants) ops.push(["variants"]);
  for (const move of game.moves) ops.push(["play", GAME, move], ["table", GAME], ["best", GAME]);
  ops.push(["table", GAME], ["status", GAME], ["best", GAME], ["moves", GAME], ...extra);
  const out = await postGame(ops);
  const dealt = out[0];
  let at = 2;
  if (!variants) variants = variantsByName(out[at++]);
  if (isError(dealt)) return { failed: dealt };
  const result = { k: effectiveRules().per_move, steps: [], before: dealt, bestAtStart: out[1] };
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

function readAddress(params) {
  game.variant = params.get("variant") || "classic";
  const rules = {};
  for (const field of RULE_FIELDS) {
    const text = params.get(field === "deck" ? "kind" : field);
    if (text === null) continue;
    if (field === "deck") rules.deck = text;
    else if (field === "court") rules.court = text.split(/[/,]/).map(Number);
    else rules[field] = Number(text);
  }
  game.rules = Object.keys(rules).length ? rules : null;
  const deck = params.get("deck");
  game.deck = deck ? deck.split(/[\s,]+/).filter(Boolean) : null;
  const seed = params.get("seed");
  game.seed = seed && /^-?[0-9]+$/.test(seed) ? seed : "1"; // any integer is a seed
  const moves = params.get("moves");
  game.moves = moves
    ? moves.split(",").filter(Boolean).map((m) => m.split("-").map(Number)).filter((m) => m.every(Number.isInteger))
    : [];
}

function address() {
  const parts = [`variant=${encodeURIComponent(game.variant)}`];
  for (const field of RULE_FIELDS) {
    if (!game.rules || game.rules[field] === undefined) continue;
    const value = field === "court" ? game.rules.court.join("/") : game.rules[field];
    // `deck=` names an explicit deck of cards: the rules' deck kind is written as `kind`.
    parts.push(`${field === "deck" ? "kind" : field}=${encodeURIComponent(value)}`);
  }
  parts.push(game.deck !== null ? `deck=${game.deck.map(encodeURIComponent).join(",")}` : `seed=${game.seed}`);
  if (game.moves.length) parts.push(`moves=${game.moves.map((m) => m.join("-")).join(",")}`);
  return "?" + parts.join("&");
}

// ---------------------------------------------------------------- actions

// Runs `work(current)` as one action of this view; `current()` is false once a later action
// has begun, and the work asks it after every answer. An action that `supersedes` (a new
// deal) runs even while an earlier one is in flight, which then finds itself stale.
function triplesAct(work, supersedes = false) {
  return act(
    async () => {
      const action = ++latestAction;
      await work(() => action === latestAction);
    },
    { supersedes },
  );
}

async function refresh(message = null, replace = false, current = () => true) {
  const result = await replay();
  if (!current()) return;
  if (result.rejected) {
    const { index, move, error } = result.rejected;
    game.moves = game.moves.slice(0, index);
    await refresh(`move ${index + 1} (${move.join("-")}) was refused: ${error}`, replace, current);
    return;
  }
  view = result;
  selected = [];
  hinted = [];
  fairHinted = [];
  remember(address(), replace);
  render();
  say(message || result.failed || null);
  if (result.failed) return;
  explainLine(); // not waited for: the marks follow the table when they come
  if (rating.key !== dealKey()) await rate();
}

// The cards each move lost, for the history's marks: the `explain` operation (what `triples
// explain` prints), asked in a request of its own, so that a slow one never holds back the
// table. Its answer is kept for the moves it was asked for, and dropped once they changed.
const lineKey = () => JSON.stringify([dealKey(), game.moves]);

async function explainLine() {
  const key = lineKey();
  if (explained.key === key) return;
  let answer;
  try {
    const out = await postGame([...game.moves.map((move) => ["play", GAME, move]), ["explain", GAME]]);
    answer = out[out.length - 1];
  } catch (error) {
    answer = `error: ${error.message}`;
  }
  if (key !== lineKey()) return;
  explained = { key, answer };
  renderHistory();
}

// The deal's rating, asked once per deal and in a request of its own: a slow rating (a large
// rule set) must not hold back the table, and a refused one only leaves the figures blank.
async function rate() {
  const key = dealKey();
  let answer;
  try {
    answer = (await postGame([["rating", GAME]]))[1];
  } catch (error) {
    answer = `error: ${error.message}`;
  }
  if (key !== dealKey()) return;
  rating = { key, answer };
  renderRating();
}

function deal() {
  game.moves = [];
  dailyNote = null;
  return triplesAct((current) => refresh(null, false, current), true);
}

function play(move) {
  return triplesAct(async (current) => {
    const result = await replay([["play", GAME, move]]);
    if (!current()) return;
    const answer = result.extra ? result.extra[0] : result.failed;
    if (isError(answer)) {
      rejectSelection(answer);
      return;
    }
    game.moves.push([...move].sort((a, b) => a - b));
    await refresh(null, false, current);
  });
}

function undo() {
  if (!game.moves.length) return say("error: nothing to undo");
  return triplesAct(async (current) => {
    game.moves.pop();
    await refresh(null, false, current);
  });
}

function rewind(count) {
  return triplesAct(async (current) => {
    game.moves = game.moves.slice(0, count);
    await refresh(null, false, current);
  });
}

function hint() {
  return triplesAct(async (current) => {
    const result = await replay([["solve", GAME]]);
    if (!current()) return;
    const line = result.extra && result.extra[0];
    if (!line || isError(line)) return say(line || result.failed);
    selected = [];
    hinted = line.moves.length ? line.moves[0] : [];
    render();
    say(hinted.length ? `hint: play slots ${hinted.join(", ")} (a line that still reaches ${line.best})` : "no move left");
  });
}

// The fair player's move beside the best line's: where they differ, seeing the stock matters.
function fairHint() {
  return triplesAct(async (current) => {
    const result = await replay([["fair_move", GAME], ["solve", GAME]]);
    if (!current()) return;
    const [move, line] = result.extra || [];
    if (!move || isError(move)) return say(move || result.failed);
    selected = [];
    fairHinted = move;
    hinted = line && !isError(line) && line.moves.length ? line.moves[0] : [];
    render();
    if (!move.length) return say("no move left");
    const same = hinted.length && hinted.join() === move.join();
    say(`fair hint: play slots ${move.join(", ")} · ${same ? "the best line plays the same" : `the best line plays ${hinted.join(", ")}: here they part`}`);
  });
}

function autoplay() {
  const strategy = $("strategy").value;
  return triplesAct(async (current) => {
    const result = await replay([["autoplay", GAME, strategy]]);
    if (!current()) return;
    const answer = result.extra && result.extra[0];
    if (!answer || isError(answer)) return say(answer || result.failed);
    game.moves.push(...answer.moves);
    const made = `autoplay (${strategy}): ${answer.moves.length} move${answer.moves.length === 1 ? "" : "s"}`;
    await refresh(made, false, current);
  });
}

function toggle(slot) {
  if (!view || !view.table || view.table[slot] === null || busy) return;
  hinted = [];
  fairHinted = [];
  selected = selected.includes(slot) ? selected.filter((s) => s !== slot) : [...selected, slot];
  say(null);
  render();
  cardAt(slot)?.focus();
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
  const court = effectiveRules().court;
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
  const table = view && view.table ? view.table : [];
  box.style.setProperty("--columns", columnsFor(table.length || effectiveRules().slots));
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
    card.classList.toggle("fair-hinted", fairHinted.includes(slot));
    if (code === null) {
      card.classList.add("empty");
      card.disabled = true;
      card.setAttribute("aria-label", `slot ${slot}: empty`);
    } else {
      const notes = [hinted.includes(slot) && "best-line hint", fairHinted.includes(slot) && "fair hint"].filter(Boolean);
      card.setAttribute("aria-label", `slot ${slot}: ${code}, worth ${cardValue(code)}${notes.length ? ` (${notes.join(", ")})` : ""}`);
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

function renderRating() {
  const answer = rating.key === dealKey() ? rating.answer : null;
  const known = answer && !isError(answer);
  $("band").textContent = known ? answer.band : "–";
  $("band").className = known ? `band-${answer.band}` : "";
  $("p-random").textContent = known ? (answer.p_random === null ? "n/a" : answer.p_random.toFixed(4)) : "–";
  $("p-random").title = known && answer.p_random !== null ? String(answer.p_random) : "";
  $("fair-cleared").textContent = known ? answer.fair : "–";
  if (answer && isError(answer)) $("rating").title = `no rating: ${answer}`;
  else $("rating").title = known
    ? `from the deal: best ${answer.best}, the high strategy clears ${answer.high}, the fair player ${answer.fair}`
    : "how hard the deal is";
  const note = $("daily-note");
  note.hidden = !dailyNote;
  note.textContent = dailyNote || "";
}

function renderStatus() {
  const rules = effectiveRules();
  const status = view && view.status && !isError(view.status) ? view.status : null;
  $("cleared").textContent = status ? status.cleared : "–";
  $("stock").textContent = status ? status.stock : "–";
  $("over").textContent = status ? (status.over ? "yes" : "no") : "–";
  $("best").textContent = view && Number.isInteger(view.best) ? view.best : "–";
  $("legal").textContent = view && Array.isArray(view.legal) ? view.legal.length : "–";
  $("goal").innerHTML = `Take <b>${rules.per_move}</b> cards that add up to <b>${rules.target}</b>`;
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
    ? `${values.join(" + ")} = ${total} of ${rules.target} · ${selected.length}/${rules.per_move} picked`
    : "";
}

function renderHistory() {
  const list = $("history");
  list.replaceChildren();
  $("history-empty").hidden = Boolean(view && view.steps && view.steps.length);
  if (!view || !view.steps) return;
  // The marks: the cards each move lost, as the `explain` operation reports the moves played.
  const answer = explained.key === lineKey() && !isError(explained.answer) ? explained.answer : null;
  const losses = new Map(
    answer ? answer.moves.filter((move) => move.by === "played" && move.lost > 0).map((move) => [move.turn, move]) : [],
  );
  view.steps.forEach((step, index) => {
    const item = document.createElement("li");
    const loss = losses.get(index + 1);
    const lost = loss ? loss.lost : 0;
    const instead = loss && loss.best_line ? `the best line plays ${loss.best_line.move.join("-")} (${loss.best_line.cards.join(" ")}) here` : "";
    item.className = lost > 0 ? "lost" : "";
    item.title = lost > 0 ? `${lost} card${lost === 1 ? "" : "s"} lost: ${instead}. Click to go back to just after this move` : "go back to just after this move";
    const cards = step.cards
      .map((code) => `<span class="mini ${RED_SUITS.has(code.slice(-1)) ? "red" : "black"}">${code.slice(0, -1)}${SUITS[code.slice(-1)] || ""}</span>`)
      .join("");
    item.innerHTML =
      `<span class="step">${index + 1}</span><span class="slots">${step.move.join("-")}</span>` +
      `<span class="minis">${cards}</span>` +
      `<span class="after">${step.best}${lost > 0 ? ` <em>−${lost}</em>` : ""}</span>`;
    item.tabIndex = 0;
    const lostNote = lost > 0 ? `; ${lost} card${lost === 1 ? "" : "s"} lost, ${instead}` : "";
    item.setAttribute("aria-label", `move ${index + 1}: slots ${step.move.join("-")}, ${step.cards.join(" ")}; best after it ${step.best}${lostNote}. Enter goes back to here`);
    item.addEventListener("click", () => rewind(index + 1));
    item.addEventListener("keydown", (event) => {
      if (event.key === "Enter") rewind(index + 1);
    });
    list.append(item);
  });
  list.scrollTop = list.scrollHeight; // the list scrolls, never the page
}

function renderButtons() {
  const over = !view || !view.status || view.status.over;
  $("undo").disabled = busy || game.moves.length === 0;
  $("hint").disabled = busy || over;
  $("fair-hint").disabled = busy || over;
  $("autoplay").disabled = busy || over;
}

function renderControls() {
  const picker = $("variant");
  if (variants && picker.options.length !== Object.keys(variants).length) {
    picker.replaceChildren();
    for (const [name, rules] of Object.entries(variants)) {
      const option = document.createElement("option");
      option.value = name;
      option.textContent = `${name} (${rules.per_move} to ${rules.target})`;
      picker.append(option);
    }
  }
  // The picked variant's option says so when rules of one's own are laid over it.
  for (const option of picker.options) {
    const rules = variants && variants[option.value];
    if (!rules) continue;
    const custom = option.value === game.variant && game.rules;
    const shown = custom ? effectiveRules() : rules;
    option.textContent = `${option.value}${custom ? ", custom rules" : ""} (${shown.per_move} to ${shown.target})`;
  }
  picker.value = game.variant;
  picker.classList.toggle("changed", Boolean(game.rules));
  if (game.deck === null) $("seed").value = game.seed;
  $("seed").classList.toggle("inactive", game.deck !== null);
  if (typeof renderRulesForm === "function") renderRulesForm();
}

function render() {
  renderControls();
  renderTable();
  renderStatus();
  renderRating();
  renderHistory();
  renderButtons();
}

function say(text) {
  showMessage($("message"), text);
}

// ---------------------------------------------------------------- wiring

function startTriples() {
  const variantPicker = $("variant");
  $("deal-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const seed = $("seed").value.trim();
    if (!/^-?[0-9]+$/.test(seed)) return say("error: a seed is a whole number (any size; negative too)");
    const rules = variantPicker.value === game.variant ? game.rules : null;
    Object.assign(game, { variant: variantPicker.value, rules, seed, deck: null });
    deal();
  });
  variantPicker.addEventListener("change", () => {
    game.rules = null;
    $("deal-form").requestSubmit();
  });
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
  $("fair-hint").addEventListener("click", fairHint);
  $("autoplay").addEventListener("click", autoplay);
}

registerView("triples", {
  open(params, replace) {
    readAddress(params);
    triplesAct((current) => refresh(null, replace, current), true);
  },
  address,
  say,
  idle: renderButtons,
  keydown(event) {
    const key = event.key.toLowerCase();
    if (key === "escape" && selected.length) {
      selected = [];
      render();
    } else if (key === "u" && !$("undo").disabled) undo();
    else if (key === "h" && !$("hint").disabled) hint();
    else if (key === "f" && !$("fair-hint").disabled) fairHint();
    else if (key === "a" && !$("autoplay").disabled) autoplay();
  },
});
startTriples();

// Today's challenge: the players' daily game, played on the server (a view of the explorer, and the
// whole of the public service's page, public.html). The page asks a name the
// first time and keeps the player's token in this browser (localStorage); it plays only through
// /play: it is shown the table, never the stock, and has no undo, hint or best. When the game is
// over it shows the day's leaderboard. Names are the players' own text: shown as text, never as
// markup.
"use strict";

// The view's markup, the same on both pages (no player's text in it): written here once.
document.getElementById("view-challenge").innerHTML = `
<div class="toolbar">
  <form id="ch-join" class="deal" autocomplete="off" hidden>
    <label>Your name on the leaderboard
      <input id="ch-name" name="name" maxlength="24" size="18" spellcheck="false" placeholder="letters, digits, - _ .">
    </label>
    <button type="submit" id="ch-join-button" class="primary">Play today's deal</button>
  </form>
  <p id="ch-who" class="daily-note" hidden></p>
</div>
<main class="layout">
  <section class="felt" aria-label="today's table">
    <div class="felt-head">
      <p id="ch-goal" class="goal"></p>
      <div class="stock" title="cards left in the stock: they stay on the server until drawn">
        <span class="stock-pile" aria-hidden="true"></span>
        <span><b id="ch-stock">–</b> in stock</span>
      </div>
    </div>
    <div id="ch-table" class="table" role="group" aria-label="face-up cards"></div>
    <div class="felt-foot">
      <p id="ch-selection" class="selection" aria-live="polite"></p>
      <p id="ch-message" class="message" role="alert" hidden></p>
    </div>
  </section>
  <aside class="panel">
    <dl class="scores">
      <div><dt>cleared</dt> <dd id="ch-cleared">–</dd></div>
      <div><dt>moves</dt> <dd id="ch-turn">–</dd></div>
      <div><dt>over</dt> <dd id="ch-over">–</dd></div>
    </dl>
    <p id="ch-verdict" class="verdict"></p>
    <section id="ch-board-box" class="history-box" hidden>
      <h2>Leaderboard <small id="ch-board-note"></small></h2>
      <ol id="ch-board" class="history board"></ol>
    </section>
    <p class="muted small">Everyone plays the same deal today, once. The stock stays on the server until a card is drawn, so there is no undo and no hint: each move is final. The leaderboard ranks cards cleared, then time from the first look to the last move.</p>
  </aside>
</main>
`;

const PLAYER_KEY = "triples.player"; // {player, name, token}
const challenge = { player: null, state: null, rules: null, selected: [], board: null };

function storedPlayer() {
  try {
    const player = JSON.parse(localStorage.getItem(PLAYER_KEY));
    return player && player.token ? player : null;
  } catch {
    return null;
  }
}

function chSay(text) {
  showMessage($("ch-message"), text);
}


// ---------------------------------------------------------------- the requests

async function joinAs(name) {
  const { ok, answer } = await sendJSON("POST", "players", { name });
  if (!ok) return chSay(`error: ${answer.error}`);
  challenge.player = answer;
  localStorage.setItem(PLAYER_KEY, JSON.stringify(answer));
  await startAttempt();
}

async function startAttempt() {
  const { ok, status, answer } = await sendJSON("POST", "play", {}, challenge.player.token);
  if (status === 401) {
    // The service does not know this token (another service, or its store was reset): join again.
    localStorage.removeItem(PLAYER_KEY);
    challenge.player = null;
    renderChallenge();
    return chSay("error: the service does not know this browser's player: choose a name to play");
  }
  if (!ok) return chSay(`error: ${answer.error}`);
  await show(answer);
}

async function playSelected() {
  const state = challenge.state;
  const move = [...challenge.selected].sort((a, b) => a - b);
  const { ok, status, answer } = await sendJSON(
    "POST", `play/${state.attempt}`, { move, turn: state.turn }, challenge.player.token,
  );
  challenge.selected = [];
  if (ok) return show(answer);
  if (status === 409) {
    // Played meanwhile (another tab, or a retry): the server's state is the game.
    const again = await sendJSON("GET", `play/${state.attempt}`, undefined, challenge.player.token);
    if (again.ok) await show(again.answer);
  } else {
    renderChallenge();
  }
  chSay(`error: ${answer.error}`);
}

async function show(state) {
  challenge.state = state;
  challenge.rules = state.rules; // the day's rules come with the game: cards a move, target, card values
  challenge.selected = [];
  if (state.over) {
    const { ok, answer } = await getJSON(`leaderboard/${state.date}?variant=${encodeURIComponent(state.variant)}`);
    challenge.board = ok ? answer : null;
  }
  renderChallenge();
  chSay(null);
}

// ---------------------------------------------------------------- drawing

function challengeCard(code, slot) {
  const card = document.createElement("button");
  card.type = "button";
  card.className = "card";
  card.dataset.slot = slot;
  card.dataset.code = code === null ? "" : code;
  const picked = challenge.selected.includes(slot);
  card.classList.toggle("selected", picked);
  card.setAttribute("aria-pressed", picked);
  if (code === null) {
    card.classList.add("empty");
    card.disabled = true;
    card.setAttribute("aria-label", `slot ${slot}: empty`);
  } else {
    const rank = code.slice(0, -1);
    const suit = code.slice(-1);
    const face = document.createElement("span");
    face.className = `face ${RED_SUITS.has(suit) ? "red" : "black"}${"JQK".includes(rank) ? " court" : ""}`;
    for (const where of ["top", "bottom"]) {
      const corner = document.createElement("span");
      corner.className = `corner ${where}`;
      corner.innerHTML = `<span class="rank"></span><span class="pip"></span>`;
      corner.firstChild.textContent = rank;
      corner.lastChild.textContent = SUITS[suit] || suit;
      face.append(corner);
    }
    const centre = document.createElement("span");
    centre.className = "centre";
    centre.textContent = SUITS[suit] || suit;
    face.insertBefore(centre, face.lastChild);
    card.append(face);
    card.setAttribute("aria-label", `slot ${slot}: ${code}, worth ${challengeValue(code)}`);
    card.addEventListener("click", () => pick(slot));
  }
  const label = document.createElement("span");
  label.className = "slot-number";
  label.textContent = slot;
  card.append(label);
  return card;
}

function challengeValue(code) {
  const rank = code.slice(0, -1);
  const court = challenge.rules && challenge.rules.court;
  if (rank === "A") return 1;
  if (court && "JQK".includes(rank)) return court["JQK".indexOf(rank)];
  return Number(rank);
}

function renderBoard() {
  const board = challenge.board;
  $("ch-board-box").hidden = !board;
  if (!board) return;
  $("ch-board-note").textContent =
    `${board.date} · ${board.finished} of ${board.started} finished` + ("best" in board ? ` · best ${board.best}` : "");
  const list = $("ch-board");
  list.replaceChildren();
  for (const entry of board.entries) {
    const item = document.createElement("li");
    item.classList.toggle("mine", Boolean(challenge.player) && entry.name === challenge.player.name);
    for (const [name, text] of [["step", entry.rank], ["name", entry.name], ["cleared", `${entry.cleared} cleared`],
      ["after", `${entry.seconds.toFixed(1)} s`]]) {
      const cell = document.createElement("span");
      cell.className = name;
      cell.textContent = text; // a name is the player's own text: never markup
      item.append(cell);
    }
    list.append(item);
  }
}

function renderChallenge() {
  const { player, state, rules } = challenge;
  $("ch-join").hidden = Boolean(player);
  const who = $("ch-who");
  who.hidden = !player;
  who.textContent = player ? `Playing as ${player.name}${state ? ` · ${state.variant}, ${state.date}` : ""}` : "";
  const table = $("ch-table");
  table.replaceChildren();
  const cards = state ? state.table : [];
  table.style.setProperty("--columns", columnsFor(cards.length || 10));
  cards.forEach((code, slot) => table.append(challengeCard(code, slot)));
  $("ch-goal").innerHTML = rules ? `Take <b>${rules.per_move}</b> cards that add up to <b>${rules.target}</b>` : "";
  $("ch-stock").textContent = state ? state.stock : "–";
  $("ch-cleared").textContent = state ? state.cleared : "–";
  $("ch-turn").textContent = state ? state.turn : "–";
  $("ch-over").textContent = state ? (state.over ? "yes" : "no") : "–";
  $("ch-verdict").textContent = state && state.over ? `Game over: ${state.cleared} cleared in ${state.turn} moves.` : "";
  const values = challenge.selected.map((slot) => challengeValue(state.table[slot]));
  $("ch-selection").textContent = values.length
    ? `${values.join(" + ")} = ${values.reduce((a, b) => a + b, 0)} of ${rules.target} · ${values.length}/${rules.per_move} picked`
    : "";
  renderBoard();
}

function pick(slot) {
  const { state, rules } = challenge;
  if (!state || state.over || busy) return;
  const selected = challenge.selected;
  challenge.selected = selected.includes(slot) ? selected.filter((s) => s !== slot) : [...selected, slot];
  chSay(null);
  renderChallenge();
  if (challenge.selected.length === rules.per_move) act(playSelected);
}

// ---------------------------------------------------------------- wiring

$("ch-join").addEventListener("submit", (event) => {
  event.preventDefault();
  const name = $("ch-name").value.trim();
  if (!name) return chSay("error: choose a name first");
  act(() => joinAs(name));
});

registerView("challenge", {
  open(params, replace) {
    remember("?game=challenge", replace);
    challenge.player = storedPlayer();
    renderChallenge();
    if (challenge.player) act(startAttempt);
    else chSay("Choose the name the leaderboard shows: it is asked once, and this browser remembers you.");
  },
  address: () => "?game=challenge",
  say: chSay,
  keydown(event) {
    if (event.key === "Escape" && challenge.selected.length) {
      challenge.selected = [];
      renderChallenge();
    }
  },
});

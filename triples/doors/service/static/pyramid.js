// Uniscraper: a pyramid of 36 cards in 8 rows and a play card. The position is a config
// string (play card, then positions 1..36, "." for a gone card), kept in the address. The
// server checks every config and finds the best run (`bestrun`); taking a card is checked
// here by the two rules of the game (the card is free, and one rank from the play card).
"use strict";

(() => {
  const RANKS = "23456789TJQKA"; // a cycle: A and 2 are neighbours
  const ROWS = 8;
  const POSITIONS = 36;
  const FIRST_EXAMPLE = "6KQJT98765432AKQJT98765432AKQJT987654";
  // Drawing: a row's cards overlap the row above by half a card, so covering is seen.
  const CARD = 0.92; // card width, in eighths of the pyramid's width
  const HEIGHT = CARD * 1.4;
  const STEP = HEIGHT * 0.55;
  const TALL = STEP * (ROWS - 1) + HEIGHT;

  const state = { play: null, cells: [], best: null, showRun: false, undo: [] };

  const rowOf = (p) => Math.ceil((Math.sqrt(8 * p + 1) - 1) / 2);
  const columnOf = (p) => p - 1 - (rowOf(p) * (rowOf(p) - 1)) / 2;
  const coveredBy = (p) => (rowOf(p) === ROWS ? [] : [p + rowOf(p), p + rowOf(p) + 1]);
  const cell = (p) => state.cells[p - 1];
  const isFree = (p) => cell(p) !== "." && coveredBy(p).every((q) => cell(q) === ".");
  const rankName = (rank) => (rank === "T" ? "10" : rank);
  const spoken = (rank) => ({ T: "10", J: "jack", Q: "queen", K: "king", A: "ace" })[rank] || rank;

  function neighbours(a, b) {
    const distance = Math.abs(RANKS.indexOf(a) - RANKS.indexOf(b));
    return distance === 1 || distance === RANKS.length - 1;
  }

  const isPlayable = (p) => isFree(p) && neighbours(cell(p), state.play);

  function configOf(play, cells) {
    return (play + cells.join("")).replace(/\.+$/, "") || play;
  }

  const config = () => (state.play ? configOf(state.play, state.cells) : "");
  const address = () => `?game=uniscraper&config=${encodeURIComponent(config() || FIRST_EXAMPLE)}`;
  const say = (text) => showMessage($("py-message"), text);

  // Opens a config once the server accepts it (its best run comes back with the answer);
  // a refused config leaves the position as it was and shows the server's error.
  async function goTo(text, { replace = false, keepUndo = false, message = null } = {}) {
    const wanted = text.trim().toUpperCase();
    const [best] = await post([["bestrun", wanted]]);
    if (isError(best)) {
      say(best);
      $("py-config").value = wanted;
      return false;
    }
    if (!keepUndo && state.play) state.undo.push(config());
    state.play = wanted[0];
    state.cells = Array.from({ length: POSITIONS }, (_, i) => wanted[i + 1] || ".");
    state.best = best;
    remember(address(), replace);
    render();
    say(message);
    return true;
  }

  function take(p) {
    if (busy || !state.play) return;
    if (cell(p) === ".") return;
    const covering = coveredBy(p).filter((q) => cell(q) !== ".");
    if (covering.length) return say(`error: position ${p} is covered by ${covering.join(" and ")}`);
    if (!neighbours(cell(p), state.play))
      return say(`error: ${rankName(cell(p))} is not one rank from the play card ${rankName(state.play)}`);
    const cells = [...state.cells];
    const rank = cells[p - 1];
    cells[p - 1] = ".";
    const focused = document.activeElement && document.activeElement.closest("#pyramid");
    act(async () => {
      await goTo(configOf(rank, cells));
      if (focused) ($("pyramid").querySelector(".pcard.playable") || $("py-undo")).focus();
    });
  }

  function draw(rank) {
    if (!state.play) return;
    act(() => goTo(configOf(rank, state.cells), { message: `new play card: ${rankName(rank)}` }));
  }

  function undo() {
    if (!state.undo.length) return say("error: nothing to undo");
    const previous = state.undo.pop();
    act(() => goTo(previous, { keepUndo: true }));
  }

  function step() {
    if (!state.best || !state.best.length) return say("no card can be played");
    take(state.best[0]);
  }

  // ---------------------------------------------------------------- drawing

  function face(rank) {
    const name = rankName(rank);
    return (
      `<span class="face black"><span class="rank-big">${name}</span></span>`
    );
  }

  function renderPyramid() {
    const box = $("pyramid");
    box.style.aspectRatio = `${ROWS} / ${TALL}`;
    box.replaceChildren();
    const order = new Map(state.showRun && state.best ? state.best.map((p, i) => [p, i + 1]) : []);
    for (let p = 1; p <= POSITIONS; p += 1) {
      const row = rowOf(p);
      const rank = cell(p);
      const gone = rank === ".";
      const card = document.createElement(gone ? "div" : "button");
      card.className = "pcard";
      card.dataset.position = p;
      card.dataset.rank = gone ? "" : rank;
      Object.assign(card.style, {
        left: `${((columnOf(p) + (ROWS - row) / 2 + (1 - CARD) / 2) / ROWS) * 100}%`,
        top: `${(((row - 1) * STEP) / TALL) * 100}%`,
        width: `${(CARD / ROWS) * 100}%`,
        height: `${(HEIGHT / TALL) * 100}%`,
        zIndex: row,
      });
      if (gone) {
        card.classList.add("gone");
        card.setAttribute("aria-hidden", "true");
      } else {
        card.type = "button";
        const free = isFree(p);
        const playable = free && neighbours(rank, state.play);
        card.classList.toggle("covered", !free);
        card.classList.toggle("playable", playable);
        const stepNumber = order.get(p);
        const notes = [free ? (playable ? "free, playable" : "free") : "covered", stepNumber && `step ${stepNumber} of the best run`];
        card.setAttribute("aria-label", `position ${p}: ${spoken(rank)}, ${notes.filter(Boolean).join(", ")}`);
        card.innerHTML = face(rank);
        if (stepNumber) card.insertAdjacentHTML("beforeend", `<span class="run-step" aria-hidden="true">${stepNumber}</span>`);
        card.addEventListener("click", () => take(p));
      }
      const label = document.createElement("span");
      label.className = "position";
      label.textContent = p;
      label.setAttribute("aria-hidden", "true");
      card.append(label);
      box.append(card);
    }
    const pile = $("play-card");
    pile.dataset.rank = state.play || "";
    pile.innerHTML = state.play ? face(state.play) : "";
    pile.setAttribute("aria-label", state.play ? `play card: ${spoken(state.play)}` : "no play card");
  }

  function renderPanel() {
    const left = state.cells.filter((c) => c !== ".").length;
    const playable = state.play ? state.cells.filter((_, i) => isPlayable(i + 1)).length : 0;
    $("py-left").textContent = state.play ? left : "–";
    $("py-gone").textContent = state.play ? POSITIONS - left : "–";
    $("py-playable").textContent = state.play ? playable : "–";
    $("py-best").textContent = state.best ? state.best.length : "–";
    $("py-config").value = config();
    $("py-bestrun").setAttribute("aria-pressed", String(state.showRun));
    $("py-bestrun").textContent = state.showRun ? "Hide best run" : "Best run";
    const list = $("py-run");
    list.replaceChildren();
    list.hidden = !state.showRun;
    if (state.showRun && state.best) {
      if (!state.best.length) list.insertAdjacentHTML("beforeend", `<li class="muted">No card can be played.</li>`);
      for (const p of state.best) {
        const item = document.createElement("li");
        item.dataset.position = p;
        item.innerHTML = `<span class="mini black">${rankName(cell(p))}</span> at ${p}`;
        list.append(item);
      }
    }
    const counts = {};
    for (const c of [state.play, ...state.cells]) if (c && c !== ".") counts[c] = (counts[c] || 0) + 1;
    const picker = $("py-draw");
    if (!picker.options.length) {
      for (const rank of RANKS) picker.insertAdjacentHTML("beforeend", `<option value="${rank}">${rankName(rank)}</option>`);
    }
    for (const option of picker.options) {
      const inPlay = counts[option.value] || 0;
      // The play card is put aside when a new one is drawn: its own copy does not count.
      option.disabled = inPlay - (option.value === state.play ? 1 : 0) >= 4;
      option.textContent = `${rankName(option.value)}${option.disabled ? " (all 4 out)" : ""}`;
    }
    renderButtons();
  }

  function renderButtons() {
    $("py-undo").disabled = busy || !state.undo.length;
    $("py-step").disabled = busy || !state.best || !state.best.length;
    $("py-bestrun").disabled = busy || !state.best;
  }

  function render() {
    renderPyramid();
    renderPanel();
  }

  // ---------------------------------------------------------------- wiring

  $("py-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const text = $("py-config").value.trim();
    if (!text) return say("error: paste a config: the play card, then positions 1 to 36");
    act(() => goTo(text));
  });
  for (const button of document.querySelectorAll("#view-uniscraper .example")) {
    button.setAttribute("aria-label", `example ${button.textContent}: ${button.dataset.config}`);
    button.title = button.dataset.config;
    button.addEventListener("click", () => act(() => goTo(button.dataset.config)));
  }
  $("py-bestrun").addEventListener("click", () => {
    state.showRun = !state.showRun;
    render();
    if (state.showRun && state.best) say(state.best.length ? `best run: ${state.best.length} cards, positions ${state.best.join(", ")}` : "no card can be played");
    else say(null);
  });
  $("py-step").addEventListener("click", step);
  $("py-undo").addEventListener("click", undo);
  $("py-draw-form").addEventListener("submit", (event) => {
    event.preventDefault();
    draw($("py-draw").value);
  });

  registerView("uniscraper", {
    open(params, replace) {
      state.undo = [];
      act(() => goTo(params.get("config") || FIRST_EXAMPLE, { replace, keepUndo: true }));
    },
    address,
    say,
    idle: renderButtons,
    keydown(event) {
      const key = event.key.toLowerCase();
      if (key === "u" && !$("py-undo").disabled) undo();
      else if (key === "b" && !$("py-bestrun").disabled) $("py-bestrun").click();
    },
  });
})();

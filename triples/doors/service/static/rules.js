// Triples, continued: rules of your own (a variant object for `new`) and the daily deal.
// Both go through the game kept in triples.js; the server judges the rules and names errors.
"use strict";

const NUMBER_FIELDS = ["slots", "per_move", "target", "top_rank", "suits"];

// The form shows the rules in force; it is redrawn with the game (triples.js calls this).
function renderRulesForm() {
  if (!variants) return;
  const rules = effectiveRules();
  for (const field of NUMBER_FIELDS) {
    const input = $(`rule-${field}`);
    if (document.activeElement !== input) input.value = rules[field] === null || rules[field] === undefined ? "" : rules[field];
  }
  $("rule-deck").value = rules.deck;
  $("rule-court").value = rules.court ? rules.court.join("/") : "";
  showDeckFields(rules.deck);
}

function showDeckFields(deck) {
  for (const label of document.querySelectorAll(".for-standard")) label.hidden = deck !== "standard";
  for (const label of document.querySelectorAll(".for-numeric")) label.hidden = deck !== "numeric";
}

// The fields that differ from the variant's, as the variant object writes them. What the
// server cannot take (a word in a number field, too large a value) it names in its error.
function changedRules() {
  const base = variants[$("variant").value];
  const changed = {};
  const deck = $("rule-deck").value;
  if (deck !== base.deck) changed.deck = deck;
  for (const field of NUMBER_FIELDS) {
    const text = $(`rule-${field}`).value.trim();
    if (text === "" || (field === "top_rank" && deck === "standard")) continue;
    const value = /^-?[0-9]+$/.test(text) ? Number(text) : text;
    const defaultValue = field === "top_rank" && changed.deck ? 9 : base[field];
    if (value !== defaultValue) changed[field] = value;
  }
  const courtText = $("rule-court").value.trim();
  if (deck === "standard" && courtText) {
    const court = courtText.split(/[\s/,]+/).map((part) => (/^[0-9]+$/.test(part) ? Number(part) : part));
    const defaultCourt = changed.deck ? [10, 10, 10] : base.court;
    if (JSON.stringify(court) !== JSON.stringify(defaultCourt)) changed.court = court;
  }
  return Object.keys(changed).length ? changed : null;
}

// Deal with the form's rules; rules the server refuses leave the game as it was. A new deal:
// it supersedes what is in flight (triples.js).
function dealWithRules(rules) {
  return triplesAct(async (current) => {
    const variant = $("variant").value;
    const argument = rules ? { base: variant, ...rules } : variant;
    const seed = /^-?[0-9]+$/.test($("seed").value.trim()) ? $("seed").value.trim() : game.seed;
    const deal = game.deck !== null && variant === game.variant && !rules ? JSON.stringify(game.deck) : seed;
    const [answer] = await postRun(`[["new","g",${deal},${JSON.stringify(argument)}]]`);
    if (!current()) return;
    if (isError(answer)) return say(answer);
    Object.assign(game, { variant, rules, moves: [] });
    if (deal === seed) Object.assign(game, { seed, deck: null });
    dailyNote = null;
    await refresh(null, false, current);
  }, true);
}

// ---------------------------------------------------------------- the daily deal

// A custom variant's name, e.g. `classic(slots=11,target=21)` (court written 11/12/13), as
// the variant and changed fields of this page's game; null when it is not such a name.
function parseVariantName(name) {
  const found = /^([A-Za-z0-9_]+)(?:\((.*)\))?$/.exec(name);
  if (!found || !variants[found[1]]) return null;
  const rules = {};
  for (const part of found[2] ? found[2].split(",") : []) {
    const [field, value] = part.split("=");
    if (!RULE_FIELDS.includes(field) || value === undefined) return null;
    rules[field] = field === "deck" ? value : field === "court" ? value.split("/").map(Number) : Number(value);
  }
  return { variant: found[1], rules: Object.keys(rules).length ? rules : null };
}

function openDaily() {
  return triplesAct(async (current) => {
    const { ok, answer } = await getJSON("daily/today");
    if (!current()) return;
    if (!ok) return say(`error: daily: ${answer.error}`);
    const parsed = variants && parseVariantName(String(answer.variant));
    if (!parsed) return say(`error: daily: variant '${answer.variant}' is not one this page can deal`);
    Object.assign(game, { ...parsed, seed: String(answer.seed), deck: null, moves: [] });
    await refresh(null, false, current);
    if (!current()) return;
    dailyNote = `Daily deal of ${answer.date}: ${answer.variant}, seed ${answer.seed} · band ${answer.band} · best ${answer.best}`;
    renderRating();
    if (view && JSON.stringify(view.before) !== JSON.stringify(answer.table)) say("error: daily: the deal here differs from the table the service announced");
  }, true);
}

// ---------------------------------------------------------------- wiring

function startRules() {
  $("rules-toggle").addEventListener("click", () => {
    const box = $("rules-box");
    box.hidden = !box.hidden;
    $("rules-toggle").setAttribute("aria-expanded", String(!box.hidden));
    if (!box.hidden) $("rule-slots").focus();
  });
  $("rule-deck").addEventListener("change", () => {
    const deck = $("rule-deck").value;
    showDeckFields(deck);
    const base = variants && variants[$("variant").value];
    if (base && deck !== base.deck) {
      $("rule-court").value = deck === "standard" ? "10/10/10" : "";
      $("rule-top_rank").value = deck === "numeric" ? "9" : "";
    } else if (base) {
      $("rule-court").value = base.court ? base.court.join("/") : "";
      $("rule-top_rank").value = base.top_rank || "";
    }
  });
  $("rules-form").addEventListener("submit", (event) => {
    event.preventDefault();
    if (!variants) return;
    if ($("variant").value !== game.variant) game.rules = null;
    dealWithRules(changedRules());
  });
  $("rules-reset").addEventListener("click", () => dealWithRules(null));
  $("daily").addEventListener("click", openDaily);
}

startRules();

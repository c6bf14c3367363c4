// Quartets: a watched game, judged by the server's `quartets` operation (could every action
// have been fair?). The page reads the contest input or a JSON list of actions, lists the
// actions in words, and marks the first one after which cheating is certain.
"use strict";

(() => {
  const SAMPLES = [
    ["1 A 2 3C no", "2 A 3 3A yes", "2 A 4 3D yes", "2 A 1 3C no"],
    ["1 A 2 3C no", "2 A 3 3A yes", "2 A 4 3D yes", "2 A 1 3B no", "1 A 4 5B yes", "1 Q 5"],
  ];
  const state = { actions: null, verdict: null, text: "" };
  const say = (text) => showMessage($("qt-message"), text);
  const contestText = (actions) => [String(actions.length), ...actions].join("\n");

  // The action lines of the text: a JSON list of strings, or the contest input (a count line,
  // then that many action lines). Throws an "error: ..." message for anything else.
  function readGame(text) {
    const trimmed = text.trim();
    if (trimmed.startsWith("[")) {
      let actions;
      try {
        actions = JSON.parse(trimmed);
      } catch (error) {
        throw new Error(`error: not valid JSON: ${error.message}`);
      }
      if (!Array.isArray(actions) || !actions.every((line) => typeof line === "string"))
        throw new Error("error: the JSON must be a list of action strings");
      return actions;
    }
    const lines = text.split(/\r?\n/);
    while (lines.length && !lines[lines.length - 1].trim()) lines.pop();
    if (!lines.length) throw new Error("error: empty input: expected the number of actions on the first line");
    const count = lines[0].trim();
    if (!/^[0-9]+$/.test(count)) throw new Error("error: the first line must be the number of actions");
    if (Number(count) !== lines.length - 1) throw new Error(`error: ${Number(count)} actions announced, ${lines.length - 1} given`);
    return lines.slice(1).map((line) => line.trim().split(/\s+/).join(" "));
  }

  // An action in words; a line that does not parse is shown as it is (the server names why).
  function describe(line) {
    const ask = /^([0-9]+) A ([0-9]+) ([0-9]+)([A-Z]) (yes|no)$/.exec(line);
    if (ask) {
      const [, asker, asked, set, card, answer] = ask;
      return {
        kind: "ask",
        html:
          `<b>Player ${asker}</b> asks <b>player ${asked}</b> for <span class="qcard">${set}${card}</span>: ` +
          (answer === "yes" ? `<span class="yes">yes</span>, handed over` : `<span class="no">no</span>; player ${asked}'s turn`),
      };
    }
    const quartet = /^([0-9]+) Q ([0-9]+)$/.exec(line);
    if (quartet) {
      const [, player, set] = quartet;
      return { kind: "quartet", html: `<b>Player ${player}</b> puts down the quartet of set <span class="qcard">${set}</span>` };
    }
    return { kind: "raw", html: "" };
  }

  function check(text, replace = false) {
    let actions;
    try {
      actions = readGame(text);
    } catch (error) {
      say(error.message);
      return;
    }
    return act(async () => {
      const [verdict] = await post([["quartets", actions]]);
      Object.assign(state, { actions, verdict, text });
      remember(address(), replace);
      render();
      say(isError(verdict) ? verdict : null);
    });
  }

  function address() {
    const lines = state.actions || SAMPLES[0];
    return `?game=quartets&actions=${lines.map(encodeURIComponent).join("|")}`;
  }

  function render() {
    const { actions, verdict } = state;
    const list = $("qt-actions");
    list.replaceChildren();
    const failedAt = isError(verdict) ? Number((/^error: action ([0-9]+):/.exec(verdict) || [])[1]) : null;
    const certainAt = verdict && verdict.cheated ? verdict.certain_after : null;
    (actions || []).forEach((line, index) => {
      const n = index + 1;
      const item = document.createElement("li");
      const { kind, html } = describe(line);
      item.className = `qt-action ${kind}`;
      item.dataset.n = n;
      item.innerHTML = `<span class="n">${n}</span><code class="line"></code><span class="words">${html}</span>`;
      item.querySelector(".line").textContent = line;
      if (n === certainAt) {
        item.classList.add("certain");
        item.insertAdjacentHTML("beforeend", `<span class="mark">cheating certain from here</span>`);
        item.setAttribute("aria-label", `action ${n}, after which cheating is certain: ${line}`);
      } else if (n > certainAt && certainAt !== null) item.classList.add("after");
      if (n === failedAt) {
        item.classList.add("invalid");
        item.insertAdjacentHTML("beforeend", `<span class="mark">not a legal action</span>`);
      }
      list.append(item);
    });
    const box = $("qt-verdict");
    box.className = "qt-verdict";
    if (!verdict || isError(verdict)) {
      box.textContent = isError(verdict) ? "Not a game that can be judged: see the error." : "";
      if (isError(verdict)) box.classList.add("bad");
    } else if (verdict.cheated) {
      box.textContent = `Someone cheated: certain after action ${verdict.certain_after}.`;
      box.classList.add("bad");
    } else {
      box.textContent = "Everyone may have played fair.";
      box.classList.add("good");
    }
    if (document.activeElement !== $("qt-input")) $("qt-input").value = state.text;
  }

  $("qt-form").addEventListener("submit", (event) => {
    event.preventDefault();
    check($("qt-input").value);
  });
  for (const button of document.querySelectorAll("#view-quartets .sample")) {
    button.addEventListener("click", () => {
      const text = contestText(SAMPLES[Number(button.dataset.sample)]);
      $("qt-input").value = text;
      check(text);
    });
  }

  registerView("quartets", {
    open(params, replace) {
      const given = params.get("actions");
      const actions = given === null ? SAMPLES[0] : given === "" ? [] : given.split("|");
      check(contestText(actions), replace);
    },
    address,
    say,
  });
})();

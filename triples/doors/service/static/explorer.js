// The explorer's door to the interpreter: POST run, one JSON array of operations in, one of
// outputs back. Only the explorer's own views use it (triples.js, pyramid.js, quartets.js).
"use strict";

// The body is given as text: a Triples seed may pass what a JS number holds, so its digits are
// written into the JSON as they are (see triples.js).
async function postRun(body) {
  const response = await fetch("run", { method: "POST", headers: { "Content-Type": "application/json" }, body });
  const answer = await response.json();
  if (!response.ok) throw new Error(answer.error || `HTTP ${response.status}`);
  return answer;
}

const post = (operations) => postRun(JSON.stringify(operations));

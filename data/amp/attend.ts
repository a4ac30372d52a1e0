// @i-know-the-amp-plugin-api-is-wip-and-very-experimental-right-now
// Attend's Amp plugin: reports Amp's lifecycle to Attend (docs/adapters.md, "Amp").
//
// Amp loads every plugin in ~/.config/amp/plugins/ (or a project's .amp/plugins/) and calls
// its handlers for the events of its plugin API. This plugin forwards them, each as one
// short-lived process, `attend-hook amp EVENT` with a JSON payload on stdin, one after the
// other in the order they happened; it never waits for them, never changes a tool call and
// never fails Amp. It imports nothing but Node's own modules (Amp runs it without an npm
// install).

import { spawn } from "node:child_process";

// `attend install-hooks amp` writes this file with the absolute path of the attend-hook
// installed beside attend in the line below; `--uninstall` removes it.
const HOOK = ["attend-hook", "amp"];

// Longest string kept in a payload (characters): the daemon keeps at most 8 KiB of any
// string, and tool outputs are not Attend's business.
const MAX_STRING = 4000;
// A hook process that has not exited after this long is killed (milliseconds); the hook
// client itself gives up on the daemon after 300 ms and spools the event instead.
const HOOK_TIMEOUT = 5000;
// At most this many payloads wait for their process; more are dropped.
const MAX_QUEUED = 64;

let queue = Promise.resolve();
let queued = 0;

function trim(value) {
  return typeof value === "string" && value.length > MAX_STRING
    ? value.slice(0, MAX_STRING) + "…"
    : value;
}

function run(event, payload) {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(HOOK[0], [...HOOK.slice(1), event], {
        stdio: ["pipe", "ignore", "ignore"],
      });
    } catch {
      resolve();
      return;
    }
    const timer = setTimeout(() => child.kill("SIGKILL"), HOOK_TIMEOUT);
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    child.on("error", done);
    child.on("close", done);
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(payload));
  });
}

// Queues `event` for the thread of `source` (an event of Amp's), with `extra` fields.
function forward(event, source, extra = {}) {
  if (queued >= MAX_QUEUED) return;
  queued += 1;
  const payload = { hook_event_name: event, thread_id: source?.thread?.id, cwd: process.cwd() };
  for (const [k, v] of Object.entries(extra)) payload[k] = trim(v);
  queue = queue
    .then(() => run(event, payload))
    .catch(() => {})
    .finally(() => {
      queued -= 1;
    });
}

// The text of the turn's last assistant message (its text parts, joined).
function lastAssistant(messages) {
  if (!Array.isArray(messages)) return undefined;
  const last = [...messages].reverse().find((m) => m?.role === "assistant");
  const content = last?.content;
  if (typeof content === "string") return content || undefined;
  if (!Array.isArray(content)) return undefined;
  const text = content
    .map((part) => (typeof part === "string" ? part : part?.type === "text" ? part.text : ""))
    .filter((t) => typeof t === "string" && t)
    .join("\n")
    .trim();
  return text || undefined;
}

export default function (amp) {
  amp.on("session.start", (event) => {
    forward("session.start", event);
  });
  amp.on("agent.start", (event) => {
    forward("agent.start", event, { message: event?.message });
    return {};
  });
  amp.on("tool.call", (event) => {
    forward("tool.call", event, { tool_name: event?.tool, tool_use_id: event?.toolUseID });
    // No decision: Amp's own permission rules decide the call. (The published examples
    // return `{ action: "allow" }`; whether that also skips Amp's own prompt is not
    // documented, and Attend never widens what an agent may do.)
  });
  amp.on("tool.result", (event) => {
    forward("tool.result", event, {
      tool_name: event?.tool,
      tool_use_id: event?.toolUseID,
      status: event?.status,
      error: typeof event?.error === "string" ? event.error : event?.error?.message,
    });
  });
  amp.on("agent.end", (event) => {
    forward("agent.end", event, {
      status: event?.status,
      last_assistant_message: lastAssistant(event?.messages),
    });
  });
}

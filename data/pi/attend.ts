// Attend's pi extension: reports pi's lifecycle to Attend (docs/adapters.md, "pi").
// oh-my-pi (omp), a fork of pi, loads it too, from ~/.omp/agent/extensions/ (docs/adapters.md,
// "oh-my-pi"): its hook line names `omp`.
//
// pi loads every *.ts in ~/.pi/agent/extensions/ (or a trusted project's .pi/extensions/)
// and calls its handlers for its events — some per streamed token. This extension
// forwards only the lifecycle ones, each as one short-lived process,
// `attend-hook pi EVENT` with the JSON payload on stdin, one after the other in the order
// they happened; it never waits for them and never fails pi.

import { spawn } from "node:child_process";

// `attend install-hooks pi` writes this file with the absolute path of the attend-hook
// installed beside attend in the line below; `--uninstall` removes it.
const HOOK = ["attend-hook", "pi"];
// oh-my-pi: it settles a run with `agent_end` (no `agent_settled`) and asks before tools
// run (`tool_approval_requested`, `tool_approval_resolved`).
const OMP = HOOK[HOOK.length - 1] === "omp";

// Longest string kept in a payload (characters): the daemon keeps at most 8 KiB of any
// string, and tool outputs are not Attend's business.
const MAX_STRING = 4000;
// A hook process that has not exited after this long is killed (milliseconds); the hook
// client itself gives up on the daemon after 300 ms and spools the event instead.
const HOOK_TIMEOUT = 5000;
// At most this many payloads wait for their process; more are dropped (a stuck machine
// must not make pi hoard memory).
const MAX_QUEUED = 64;

let queue = Promise.resolve();
let queued = 0;

function trim(value, depth = 0) {
  if (typeof value === "string") {
    return value.length > MAX_STRING ? value.slice(0, MAX_STRING) + "…" : value;
  }
  // A tool's arguments (omp's approvals): each string of the object trimmed.
  if (depth === 0 && value && typeof value === "object" && !Array.isArray(value)) {
    const out = {};
    for (const [k, v] of Object.entries(value)) out[k] = trim(v, 1);
    return out;
  }
  return value;
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
    child.on("error", () => {
      clearTimeout(timer);
      resolve();
    });
    child.on("close", () => {
      clearTimeout(timer);
      resolve();
    });
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(payload));
  });
}

function forward(event, payload) {
  if (queued >= MAX_QUEUED) return;
  queued += 1;
  const body = {};
  for (const [k, v] of Object.entries(payload)) body[k] = trim(v);
  queue = queue
    .then(() => run(event, body))
    .catch(() => {})
    .finally(() => {
      queued -= 1;
    });
}

// The session and directory every payload names.
function identity(ctx) {
  const sessions = ctx?.sessionManager;
  const call = (name) => {
    try {
      return sessions?.[name]?.();
    } catch {
      return undefined;
    }
  };
  return { session_id: call("getSessionId"), session_file: call("getSessionFile"), cwd: ctx?.cwd };
}

// The text of an assistant message (its `text` parts, joined).
function textOf(message) {
  const content = message?.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return undefined;
  const text = content
    .filter((part) => part?.type === "text" && typeof part.text === "string")
    .map((part) => part.text)
    .join("\n")
    .trim();
  return text || undefined;
}

export default function (pi) {
  // Between a run's start and its settling: pi starts a low-level run again for each
  // retry, compaction retry or queued message, and settles once.
  let busy = false;
  let lastText;
  let lastError;

  const send = (event, ctx, extra = {}) =>
    forward(event, { ...extra, ...identity(ctx), hook_event_name: event });

  pi.on("session_start", (event, ctx) => {
    send("session_start", ctx, { reason: event?.reason });
  });
  pi.on("agent_start", (_event, ctx) => {
    if (busy) return;
    busy = true;
    lastText = undefined;
    lastError = undefined;
    send("agent_start", ctx);
  });
  // omp: a call's arguments, from its start (fired before its approval) to its end.
  const args = new Map();
  pi.on("tool_approval_requested", (event, ctx) => {
    send("tool_approval_requested", ctx, {
      tool_name: event?.toolName,
      tool_call_id: event?.toolCallId,
      tool_input: args.get(event?.toolCallId),
      reason: event?.reason,
    });
  });
  pi.on("tool_approval_resolved", (event, ctx) => {
    send("tool_approval_resolved", ctx, {
      tool_name: event?.toolName,
      tool_call_id: event?.toolCallId,
      approved: event?.approved === true,
    });
  });
  pi.on("tool_execution_start", (event, ctx) => {
    if (OMP && event?.toolCallId && args.size < MAX_QUEUED) args.set(event.toolCallId, event.args);
    // omp's question tool waits for the user with no event of its own: its arguments
    // (the questions and their options) are the question.
    const input = OMP && event?.toolName === "ask" ? { tool_input: event?.args } : {};
    send("tool_execution_start", ctx, {
      tool_name: event?.toolName,
      tool_call_id: event?.toolCallId,
      ...input,
    });
  });
  pi.on("tool_execution_end", (event, ctx) => {
    args.delete(event?.toolCallId);
    send("tool_execution_end", ctx, {
      tool_name: event?.toolName,
      tool_call_id: event?.toolCallId,
      is_error: event?.isError === true,
    });
  });
  let lastAborted = false;
  pi.on("agent_end", (event, ctx) => {
    // The run's last assistant message: its text, or why the request failed.
    const messages = Array.isArray(event?.messages) ? event.messages : [];
    const last = [...messages].reverse().find((m) => m?.role === "assistant");
    if (last) {
      lastText = textOf(last) ?? lastText;
      lastError = last.stopReason === "error" ? last.errorMessage || "the model request failed" : undefined;
      lastAborted = last.stopReason === "aborted";
    }
    // omp: the run settles here, unless omp already scheduled its continuation.
    if (OMP && event?.willContinue !== true) settle(ctx, lastAborted);
  });
  pi.on("agent_settled", (event, ctx) => settle(ctx, event?.aborted === true));
  const settle = (ctx, aborted) => {
    busy = false;
    lastAborted = false;
    const extra = { aborted };
    if (lastText) extra.last_assistant_message = lastText;
    if (lastError) extra.error = lastError;
    lastText = undefined;
    lastError = undefined;
    send("agent_settled", ctx, extra);
  };
  pi.on("ui_prompt_start", (event, ctx) => {
    send("ui_prompt_start", ctx, { kind: event?.kind, title: event?.title, busy });
  });
  pi.on("ui_prompt_end", (event, ctx) => {
    send("ui_prompt_end", ctx, { kind: event?.kind, title: event?.title, busy });
  });
  pi.on("session_shutdown", (event, ctx) => {
    send("session_shutdown", ctx, { reason: event?.reason });
  });
}

// Attend's OpenCode plugin: reports OpenCode's lifecycle to Attend (docs/adapters.md, "OpenCode").
//
// OpenCode loads every *.js file in ~/.config/opencode/plugin/ (or a project's
// .opencode/plugin/) and calls it for every event on its bus — many per streamed token.
// This plugin forwards only the lifecycle ones, each as one short-lived process,
// `attend-hook opencode EVENT` with the JSON payload on stdin, one after the other in the
// order they happened; it never waits for them and never fails OpenCode. Kilo Code,
// OpenCode's fork, loads the same file from ~/.config/kilo/plugin/ (docs/adapters.md,
// "Kilo Code CLI"), where it runs `attend-hook kilo EVENT`.

import { spawn } from "node:child_process";

// `attend install-hooks opencode` (or `kilo`) writes this file with the absolute path of
// the attend-hook installed beside attend, and the agent, in the line below;
// `--uninstall` removes it.
const HOOK = ["attend-hook", "opencode"];

// Longest string kept in a payload (characters): tool outputs and diffs are not Attend's
// business, and the daemon keeps at most 8 KiB of any string.
const MAX_STRING = 4000;
// A hook process that has not exited after this long is killed (milliseconds); the hook
// client itself gives up on the daemon after 300 ms and spools the event instead.
const HOOK_TIMEOUT = 5000;
// At most this many payloads wait for their process; more are dropped (a stuck machine
// must not make OpenCode hoard memory).
const MAX_QUEUED = 64;

// Per session: "busy" between a turn's start and its end (session.idle after a busy
// turn only); the last text the assistant said in the turn; its parent for subagents.
const busy = new Set();
const lastText = new Map();
const parents = new Map();
const assistantMessages = new Set();
// permission.asked request id -> the tool call it guards ({messageID, callID}).
const asked = new Map();

let queue = Promise.resolve();
let queued = 0;

function trim(value) {
  if (typeof value === "string") {
    return value.length > MAX_STRING ? value.slice(0, MAX_STRING) + "…" : value;
  }
  if (Array.isArray(value)) return value.slice(0, 50).map(trim);
  if (value && typeof value === "object") {
    const out = {};
    for (const [k, v] of Object.entries(value)) out[k] = trim(v);
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
  const body = trim(payload);
  queue = queue
    .then(() => run(event, body))
    .catch(() => {})
    .finally(() => {
      queued -= 1;
    });
}

export const AttendPlugin = async ({ directory }) => {
  const send = (event, payload, extra = {}) =>
    forward(event, { ...payload, ...extra, cwd: directory });

  // A bus event of a subagent's session: only its gates reach Attend, marked with the
  // parent session (the pane's).
  const child = (sessionID) => parents.get(sessionID);

  return {
    "chat.message": async (input) => {
      const sessionID = input?.sessionID;
      if (!sessionID || child(sessionID)) return;
      busy.add(sessionID);
      lastText.delete(sessionID);
      send("chat.message", { input: { sessionID, agent: input.agent, model: input.model } });
    },
    "tool.execute.before": async (input) => {
      if (!input?.sessionID || child(input.sessionID)) return;
      const { tool, sessionID, callID } = input;
      send("tool.execute.before", { input: { tool, sessionID, callID } });
    },
    "tool.execute.after": async (input, output) => {
      if (!input?.sessionID || child(input.sessionID)) return;
      const { tool, sessionID, callID } = input;
      send("tool.execute.after", { input: { tool, sessionID, callID }, output: { title: output?.title } });
    },
    event: async ({ event }) => {
      const type = event?.type;
      const p = event?.properties ?? {};
      const sessionID = p.sessionID ?? p.info?.sessionID;
      switch (type) {
        case "session.created": {
          const info = p.info ?? {};
          if (info.parentID) {
            parents.set(info.id, info.parentID);
            return;
          }
          send(type, event);
          return;
        }
        case "message.updated":
          if (p.info?.role === "assistant" && p.info.id) {
            if (assistantMessages.size > 1000) assistantMessages.clear();
            assistantMessages.add(p.info.id);
          }
          return;
        case "message.part.updated": {
          const part = p.part;
          if (
            part?.type === "text" &&
            part.text &&
            !part.synthetic &&
            !part.ignored &&
            assistantMessages.has(part.messageID)
          ) {
            lastText.set(part.sessionID, part.text);
          }
          return;
        }
        case "session.status": {
          if (!sessionID || child(sessionID)) return;
          const status = p.status ?? {};
          if (status.type === "retry") {
            send(type, event);
          } else if (status.type === "busy" && !busy.has(sessionID)) {
            // A turn no prompt started (a command, a compaction): its start.
            busy.add(sessionID);
            send(type, event);
          }
          return;
        }
        case "session.idle": {
          // OpenCode may announce idle twice; a turn ends once.
          if (!sessionID || child(sessionID) || !busy.has(sessionID)) return;
          busy.delete(sessionID);
          const text = lastText.get(sessionID);
          lastText.delete(sessionID);
          assistantMessages.clear();
          send(type, event, text ? { last_assistant_message: text } : {});
          return;
        }
        case "session.error": {
          // The turn ends here (failed, or interrupted): the idle that follows is no
          // completion.
          if (sessionID && child(sessionID)) return;
          if (sessionID) {
            busy.delete(sessionID);
            lastText.delete(sessionID);
          }
          send(type, event);
          return;
        }
        case "permission.asked":
        case "question.asked": {
          if (p.id && p.tool) {
            if (asked.size > 100) asked.clear();
            asked.set(p.id, p.tool);
          }
          send(type, event, child(sessionID) ? { parentID: child(sessionID) } : {});
          return;
        }
        case "permission.replied":
        case "question.replied":
        case "question.rejected": {
          const tool = asked.get(p.requestID);
          asked.delete(p.requestID);
          const extra = child(sessionID) ? { parentID: child(sessionID) } : {};
          send(type, event, tool ? { ...extra, tool } : extra);
          return;
        }
        default:
          return;
      }
    },
  };
};

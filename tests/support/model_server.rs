//! A scripted model server for driving the real agent CLIs offline (docs/real-agents.md).
//!
//! One HTTP/1.1 server on `127.0.0.1:<ephemeral port>` (tiny_http, one worker thread per
//! connection-at-a-time, four workers) that speaks the three wire formats the pinned CLIs use
//! (docs/real-agents.md):
//!
//! - Anthropic Messages: `POST /v1/messages?beta=true`, `"stream": true` → SSE
//!   `message_start`, `content_block_start`, `content_block_delta`, `content_block_stop`,
//!   `message_delta`, `message_stop` (non-streaming requests get the message as JSON).
//! - OpenAI Responses: `POST /v1/responses` → SSE `response.created`,
//!   `response.output_item.added`, `response.output_text.delta` or
//!   `response.function_call_arguments.delta/.done`, `response.output_item.done`,
//!   `response.completed`.
//! - Gemini: `POST /v1beta/models/<model>:streamGenerateContent?alt=sse` (SSE of
//!   `GenerateContentResponse` chunks) and `…:generateContent` (one JSON response).
//! - OpenAI Chat Completions: `POST …/chat/completions` (Qwen Code, Copilot), `"stream": true` →
//!   SSE `data:` lines of `chat.completion.chunk` objects (a `delta` with the role and
//!   the text, or a `tool_calls` delta with the name and then the arguments; one chunk
//!   with the `finish_reason`; a usage chunk when `stream_options.include_usage`) and
//!   `data: [DONE]`; without `stream` one `chat.completion` object.
//!
//! A request that carries tools is a *turn* request: it takes the next [`Reply`] from the
//! script queue (a tool result comes back as a new turn request, so the reply after a
//! [`Reply::Tool`] is what the model says once the tool ran). A request without tools is a
//! *side* request (Claude's title/topic requests, Codex's title request with `tools: []` and
//! a JSON-schema format, Gemini's flash-lite router and session summary): it never consumes
//! the script; when it asks for JSON (a JSON schema) it gets an object filled from that
//! schema (strings = [`SIDE_TEXT`], numbers = their minimum or 1), else the text
//! [`SIDE_TEXT`]. Anything else (telemetry, update checks, token counting) gets an empty 404
//! at once. Every request is logged ([`ModelServer::requests`]) for assertions.
//!
//! When the script is empty a turn request gets the text [`EXHAUSTED_TEXT`].
//!
//! A script step can also fail the request ([`Reply::Error`]: an HTTP error status with the
//! provider's error JSON), for the API-failure scenarios (an overloaded API the agent
//! retries, a rejected key, a usage limit).
//!
//! A turn can be made slow ([`ModelServer::slow_turn`]): its request is logged at once and
//! answered only after a delay (or when the server stops), so a test can interrupt the
//! agent while its model is "thinking". A turn's answer can report a large context
//! ([`ModelServer::usage_for_turn`]), so the agent compacts its conversation.
//!
//! Requests can be routed by their body before all of that ([`ModelServer::route`]): a
//! model request that a route's predicate accepts (e.g. [`claude_subagent`], a Claude
//! subagent's own requests; [`claude_compaction`], Claude's summary request) takes the
//! next reply of that route's own queue, or an HTTP error status
//! ([`ModelServer::fail_matching`]), and never touches the main script, so concurrent
//! agents (an async subagent beside its parent) get their replies whatever the order of
//! their requests.
#![allow(dead_code)]

use serde_json::{json, Value};
use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The text answered to side requests (and used for strings in JSON side answers).
pub const SIDE_TEXT: &str = "Scripted side answer";

/// The text answered to a turn request when the script is empty.
pub const EXHAUSTED_TEXT: &str = "(the scripted model has nothing more to say)";

/// One scripted model turn.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// The model answers this text and ends its turn (`end_turn` / `STOP`).
    Text(String),
    /// The model calls the tool `name` with the JSON object `input_json` as its input
    /// (Anthropic `tool_use`, OpenAI `function_call` arguments, Gemini `functionCall` args).
    Tool { name: String, input_json: String },
    /// The API fails the request: HTTP `status` with `body` (JSON text, sent as
    /// `application/json`) and extra `headers`, in whatever wire format; helpers build the
    /// providers' error shapes ([`Reply::anthropic_error`], [`Reply::openai_error`],
    /// [`Reply::gemini_error`]). A retried request is a new turn request and takes the next
    /// reply.
    Error {
        status: u16,
        body: String,
        headers: Vec<(String, String)>,
    },
}

impl Reply {
    /// [`Reply::Text`] from anything string-like.
    pub fn text(text: impl Into<String>) -> Reply {
        Reply::Text(text.into())
    }

    /// Claude Code's `Bash` tool: `{"command", "description"}`. Interactive Claude shows its
    /// permission dialog ("Do you want to proceed?") for a command that writes.
    pub fn claude_bash(command: &str, description: &str) -> Reply {
        Reply::Tool {
            name: "Bash".into(),
            input_json: json!({"command": command, "description": description}).to_string(),
        }
    }

    /// Codex's `exec_command` asking for escalation, so the TUI shows its approval dialog
    /// ("Would you like to run the following command?"); `justification` is shown there and
    /// arrives as the PermissionRequest hook's `tool_input.description`.
    pub fn codex_escalated(cmd: &str, justification: &str) -> Reply {
        Reply::Tool {
            name: "exec_command".into(),
            input_json: json!({
                "cmd": cmd,
                "sandbox_permissions": "require_escalated",
                "justification": justification,
            })
            .to_string(),
        }
    }

    /// An Anthropic API error: `{"type": "error", "error": {"type": kind, "message"}}` with
    /// HTTP `status` (529 `overloaded_error`, 401 `authentication_error`, 429
    /// `rate_limit_error`, …) and a `request-id` header, as the API answers.
    pub fn anthropic_error(status: u16, kind: &str, message: &str) -> Reply {
        Reply::Error {
            status,
            body: json!({"type": "error", "error": {"type": kind, "message": message}}).to_string(),
            headers: vec![("request-id".into(), "req_scripted".into())],
        }
    }

    /// An OpenAI API error: `{"error": {"message", "type": kind, "code", "param": null}}`
    /// with HTTP `status` (401 `invalid_request_error`/`invalid_api_key`, 429
    /// `insufficient_quota`/`rate_limit_exceeded`, 503 `server_error`).
    pub fn openai_error(status: u16, kind: &str, code: &str, message: &str) -> Reply {
        Reply::Error {
            status,
            body: json!({"error": {"message": message, "type": kind, "code": code, "param": null}})
                .to_string(),
            headers: Vec::new(),
        }
    }

    /// A Google API error: `{"error": {"code": status, "message", "status": kind}}` with HTTP
    /// `status` (401 `UNAUTHENTICATED`, 429 `RESOURCE_EXHAUSTED`, 503 `UNAVAILABLE`).
    pub fn gemini_error(status: u16, kind: &str, message: &str) -> Reply {
        Reply::Error {
            status,
            body: json!({"error": {"code": status, "message": message, "status": kind}})
                .to_string(),
            headers: Vec::new(),
        }
    }

    /// The same reply with one more response header (e.g. `retry-after`,
    /// `x-should-retry`); no effect on replies other than [`Reply::Error`].
    pub fn with_header(mut self, name: &str, value: &str) -> Reply {
        if let Reply::Error { headers, .. } = &mut self {
            headers.push((name.into(), value.into()));
        }
        self
    }

    /// Gemini CLI's `run_shell_command` (`{"command", "description"}`); in the default
    /// approval mode the TUI asks "Allow execution of …?".
    pub fn gemini_shell(command: &str, description: &str) -> Reply {
        Reply::Tool {
            name: "run_shell_command".into(),
            input_json: json!({"command": command, "description": description}).to_string(),
        }
    }
}

impl Reply {
    /// Qwen Code's `run_shell_command` (`{"command", "description", "is_background"}`); in
    /// the `default` approval mode the TUI asks "Allow execution of: '<program>'?".
    pub fn qwen_shell(command: &str, description: &str) -> Reply {
        Reply::Tool {
            name: "run_shell_command".into(),
            input_json:
                json!({"command": command, "description": description, "is_background": false})
                    .to_string(),
        }
    }
}

impl Reply {
    /// OpenCode's `bash` tool (`{"command", "description"}`); under `"permission":
    /// {"bash": "ask"}` the TUI shows "△ Permission required".
    pub fn opencode_bash(command: &str, description: &str) -> Reply {
        Reply::bash(command, description)
    }

    /// GitHub Copilot CLI's `bash` (`{"command", "description"}`); in its default
    /// (manual) approval mode a command that writes asks "Do you want to run this
    /// command?".
    pub fn copilot_shell(command: &str, description: &str) -> Reply {
        Reply::bash(command, description)
    }

    /// A tool named `bash` taking `{"command", "description"}`.
    fn bash(command: &str, description: &str) -> Reply {
        Reply::Tool {
            name: "bash".into(),
            input_json: json!({"command": command, "description": description}).to_string(),
        }
    }
}

/// Which wire format a request used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Api {
    /// `POST /v1/messages` (Claude Code).
    Anthropic,
    /// `POST /v1/responses` (Codex).
    Responses,
    /// `POST …:generateContent` / `…:streamGenerateContent` (Gemini CLI).
    Gemini,
    /// `POST …/chat/completions` (OpenAI Chat Completions: Qwen Code, GitHub Copilot CLI).
    Chat,
    /// Anything else; answered 404.
    Other,
}

/// How a request was answered.
#[derive(Debug, Clone, PartialEq)]
pub enum Served {
    /// A turn request: it consumed this scripted reply (or got [`EXHAUSTED_TEXT`]).
    Turn(Reply),
    /// A side request (no tools): answered with this text or JSON text.
    Side(String),
    /// Not a model request: empty 404.
    NotFound,
    /// A request a route accepted ([`ModelServer::route`]): it took this reply of the
    /// route's queue (or [`EXHAUSTED_TEXT`]).
    Routed(Reply),
    /// A request answered with this HTTP error status ([`ModelServer::fail_matching`]).
    Failed(u16),
}

/// One logged request.
#[derive(Debug, Clone)]
pub struct Request {
    /// HTTP method, e.g. `POST`.
    pub method: String,
    /// The request target with its query, e.g. `/v1/messages?beta=true`.
    pub path: String,
    /// The body as text (lossy UTF-8).
    pub body: String,
    pub api: Api,
    pub served: Served,
    /// Milliseconds since the server started.
    pub at_ms: u128,
}

impl Request {
    /// The body parsed as JSON (`Value::Null` when it is not JSON).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }

    /// True when this request consumed a scripted reply.
    pub fn is_turn(&self) -> bool {
        matches!(self.served, Served::Turn(_))
    }
}

#[derive(Default)]
struct State {
    script: VecDeque<Reply>,
    log: Vec<Request>,
    next_id: u32,
    /// Turn requests answered so far (1-based numbering for [`ModelServer::slow_turn`]).
    turns_seen: usize,
    /// Delays by turn number.
    slow: std::collections::HashMap<usize, Duration>,
    /// Set on drop: slow answers stop waiting.
    stopping: bool,
    /// `usage.input_tokens` reported by turn number (default 10).
    usage: std::collections::HashMap<usize, u64>,
    /// Routes, first match wins.
    routes: Vec<Route>,
}

/// Which requests a route takes: a predicate over the parsed request body.
pub type Matches = fn(&Value) -> bool;

/// One route: its predicate and what it answers.
struct Route {
    matches: Matches,
    answer: RouteAnswer,
}

enum RouteAnswer {
    /// The next reply of this queue ([`EXHAUSTED_TEXT`] when empty).
    Replies(VecDeque<Reply>),
    /// This HTTP status with an Anthropic-style error body.
    Status(u16),
}

/// True for a request of a Claude Code subagent: its system prompt's billing header says
/// `cc_is_subagent=true` (2.1.197 and 2.1.332).
pub fn claude_subagent(body: &Value) -> bool {
    body["system"].to_string().contains("cc_is_subagent=true")
}

/// The instruction that opens Claude Code's compaction request (the last user message of
/// a request that carries the whole conversation, with tools in 2.1.332).
pub const CLAUDE_COMPACTION_PROMPT: &str = "create a detailed summary of the conversation";

/// True for Claude Code's compaction (summary) request: its last message asks for
/// [`CLAUDE_COMPACTION_PROMPT`].
pub fn claude_compaction(body: &Value) -> bool {
    body["messages"]
        .as_array()
        .and_then(|m| m.last())
        .is_some_and(|m| m["content"].to_string().contains(CLAUDE_COMPACTION_PROMPT))
}

/// A summary in the shape Claude Code's compaction asks for (`<analysis>` then
/// `<summary>`).
pub fn compaction_summary() -> Reply {
    Reply::text(
        "<analysis>The user asked for a greeting.</analysis>\n<summary>1. Primary Request: \
         a greeting.\n2. Pending Tasks: none.</summary>",
    )
}

struct Shared {
    state: Mutex<State>,
    changed: Condvar,
    started: Instant,
}

/// The running server; stops (and joins its workers) on drop.
pub struct ModelServer {
    server: Arc<tiny_http::Server>,
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
    port: u16,
}

impl ModelServer {
    /// Starts the server on `127.0.0.1:0` with `script` as the queue of turn replies.
    /// Panics when it cannot bind (a test environment without loopback).
    pub fn start(script: impl IntoIterator<Item = Reply>) -> ModelServer {
        let server = Arc::new(tiny_http::Server::http("127.0.0.1:0").expect("bind 127.0.0.1:0"));
        let port = server.server_addr().to_ip().expect("an IP listener").port();
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                script: script.into_iter().collect(),
                ..State::default()
            }),
            changed: Condvar::new(),
            started: Instant::now(),
        });
        let workers = (0..4)
            .map(|_| {
                let server = Arc::clone(&server);
                let shared = Arc::clone(&shared);
                std::thread::spawn(move || {
                    while let Ok(request) = server.recv() {
                        handle(&shared, request);
                    }
                })
            })
            .collect();
        ModelServer {
            server,
            shared,
            workers,
            port,
        }
    }

    /// The listening port.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `http://127.0.0.1:<port>` (no trailing slash).
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Appends a reply to the script.
    pub fn push(&self, reply: Reply) {
        self.shared.state.lock().unwrap().script.push_back(reply);
    }

    /// Answers the `turn`-th turn request (1-based, counting every request that consumes
    /// the script) only after `delay`; the request is logged when it arrives.
    pub fn slow_turn(&self, turn: usize, delay: Duration) {
        self.shared.state.lock().unwrap().slow.insert(turn, delay);
    }

    /// Turn requests (with tools) and side requests that `matches` accepts take the next
    /// of `replies` ([`Served::Routed`]; [`EXHAUSTED_TEXT`] once they are used up) instead
    /// of the main script; routes are tried in the order they were added, before
    /// [`ModelServer::fail_matching`] routes added later.
    pub fn route(&self, matches: Matches, replies: impl IntoIterator<Item = Reply>) {
        self.shared.state.lock().unwrap().routes.push(Route {
            matches,
            answer: RouteAnswer::Replies(replies.into_iter().collect()),
        });
    }

    /// Model requests that `matches` accepts are answered with HTTP `status` and an
    /// Anthropic error body (`{"type":"error","error":{"type":"api_error",…}}`), every
    /// time ([`Served::Failed`]).
    pub fn fail_matching(&self, matches: Matches, status: u16) {
        self.shared.state.lock().unwrap().routes.push(Route {
            matches,
            answer: RouteAnswer::Status(status),
        });
    }

    /// The answer to the `turn`-th turn request (1-based, as in [`ModelServer::slow_turn`])
    /// reports `input_tokens` as its usage (Anthropic `usage.input_tokens`; else 10), so the
    /// agent believes its context is that full.
    pub fn usage_for_turn(&self, turn: usize, input_tokens: u64) {
        self.shared
            .state
            .lock()
            .unwrap()
            .usage
            .insert(turn, input_tokens);
    }

    /// The requests a route answered (either kind), oldest first.
    pub fn routed(&self) -> Vec<Request> {
        self.requests()
            .into_iter()
            .filter(|r| matches!(r.served, Served::Routed(_) | Served::Failed(_)))
            .collect()
    }

    /// How many scripted replies are still queued.
    pub fn remaining(&self) -> usize {
        self.shared.state.lock().unwrap().script.len()
    }

    /// A copy of the request log, oldest first.
    pub fn requests(&self) -> Vec<Request> {
        self.shared.state.lock().unwrap().log.clone()
    }

    /// The turn requests only (those that consumed a scripted reply), oldest first.
    pub fn turns(&self) -> Vec<Request> {
        self.requests()
            .into_iter()
            .filter(Request::is_turn)
            .collect()
    }

    /// Waits until `check(log)` holds; `Err` with `what` and a summary of the log after
    /// `timeout`.
    pub fn wait_until(
        &self,
        what: &str,
        timeout: Duration,
        check: impl Fn(&[Request]) -> bool,
    ) -> Result<(), String> {
        let deadline = Instant::now() + timeout;
        let mut state = self.shared.state.lock().unwrap();
        loop {
            if check(&state.log) {
                return Ok(());
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(format!(
                    "model server: timed out waiting for {what}; requests so far:\n{}",
                    summarize(&state.log)
                ));
            }
            state = self
                .shared
                .changed
                .wait_timeout(state, deadline - now)
                .unwrap()
                .0;
        }
    }

    /// One line per logged request (`method path → served`), for failure messages.
    pub fn summary(&self) -> String {
        summarize(&self.shared.state.lock().unwrap().log)
    }
}

impl Drop for ModelServer {
    fn drop(&mut self) {
        self.shared.state.lock().unwrap().stopping = true;
        self.shared.changed.notify_all();
        for _ in &self.workers {
            self.server.unblock();
        }
        for worker in self.workers.drain(..) {
            let _ = worker.join();
        }
    }
}

fn summarize(log: &[Request]) -> String {
    log.iter()
        .map(|r| {
            format!(
                "  {:>6} ms {} {} → {:?}\n",
                r.at_ms, r.method, r.path, r.served
            )
        })
        .collect()
}

/// Which API a request path belongs to (POST only).
fn api_of(method: &str, path: &str) -> Api {
    let route = path.split('?').next().unwrap_or("");
    if method != "POST" {
        Api::Other
    } else if route == "/v1/messages" {
        Api::Anthropic
    } else if route == "/v1/responses" {
        Api::Responses
    } else if route.ends_with(":streamGenerateContent") || route.ends_with(":generateContent") {
        Api::Gemini
    } else if route.ends_with("/chat/completions") {
        Api::Chat
    } else {
        Api::Other
    }
}

/// True when the request offers the model tools (Anthropic/OpenAI `tools: [...]`, Gemini
/// `tools: [{functionDeclarations: [...]}]`).
fn has_tools(body: &Value) -> bool {
    body["tools"]
        .as_array()
        .is_some_and(|tools| !tools.is_empty())
}

/// The JSON schema a side request asks its answer to follow, if any: OpenAI
/// `text.format.schema`, OpenAI Chat `response_format.json_schema.schema`, Gemini `generationConfig.responseJsonSchema`/`responseSchema`,
/// Anthropic `output_config.format.schema` (Claude's title request) or `output_format.schema`.
fn wanted_schema(body: &Value) -> Option<&Value> {
    [
        &body["text"]["format"]["schema"],
        &body["response_format"]["json_schema"]["schema"],
        &body["output_config"]["format"]["schema"],
        &body["generationConfig"]["responseJsonSchema"],
        &body["generationConfig"]["responseSchema"],
        &body["output_format"]["schema"],
    ]
    .into_iter()
    .find(|v| v.is_object())
}

/// An instance of `schema` (JSON Schema, or Gemini's upper-case `Schema`): objects get all
/// their properties, strings [`SIDE_TEXT`] (or their first `enum` value), numbers their
/// `minimum` or 1, booleans false, arrays empty.
pub fn fill_schema(schema: &Value) -> Value {
    let kind = match &schema["type"] {
        Value::String(s) => s.to_ascii_lowercase(),
        Value::Array(types) => types
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("null")
            .to_ascii_lowercase(),
        _ if schema["properties"].is_object() => "object".into(),
        _ => "string".into(),
    };
    match kind.as_str() {
        "object" => {
            let mut out = serde_json::Map::new();
            if let Some(props) = schema["properties"].as_object() {
                for (name, prop) in props {
                    out.insert(name.clone(), fill_schema(prop));
                }
            }
            Value::Object(out)
        }
        "integer" | "number" => schema["minimum"]
            .as_f64()
            .map_or(json!(1), |min| json!(min.max(1.0) as i64)),
        "boolean" => json!(false),
        "array" => json!([]),
        "null" => Value::Null,
        _ => schema["enum"]
            .as_array()
            .and_then(|values| values.first().cloned())
            .unwrap_or_else(|| json!(SIDE_TEXT)),
    }
}

fn handle(shared: &Shared, mut request: tiny_http::Request) {
    let method = request.method().as_str().to_string();
    let path = request.url().to_string();
    let mut raw = Vec::new();
    let _ = request.as_reader().read_to_end(&mut raw);
    let body_text = String::from_utf8_lossy(&raw).into_owned();
    let body: Value = serde_json::from_slice(&raw).unwrap_or(Value::Null);
    let api = api_of(&method, &path);

    let (served, id, delay, input_tokens) = {
        let mut state = shared.state.lock().unwrap();
        state.next_id += 1;
        let id = state.next_id;
        let mut delay = None;
        let mut input_tokens = 10;
        let route = if api == Api::Other {
            None
        } else {
            state.routes.iter_mut().find(|r| (r.matches)(&body))
        };
        let served = if let Some(route) = route {
            match &mut route.answer {
                RouteAnswer::Replies(queue) => Served::Routed(
                    queue
                        .pop_front()
                        .unwrap_or_else(|| Reply::text(EXHAUSTED_TEXT)),
                ),
                RouteAnswer::Status(status) => Served::Failed(*status),
            }
        } else if api == Api::Other {
            Served::NotFound
        } else if has_tools(&body) {
            state.turns_seen += 1;
            delay = state.slow.get(&state.turns_seen).copied();
            input_tokens = state.usage.get(&state.turns_seen).copied().unwrap_or(10);
            Served::Turn(
                state
                    .script
                    .pop_front()
                    .unwrap_or_else(|| Reply::text(EXHAUSTED_TEXT)),
            )
        } else {
            Served::Side(match wanted_schema(&body) {
                Some(schema) => fill_schema(schema).to_string(),
                None => SIDE_TEXT.to_string(),
            })
        };
        (served, id, delay, input_tokens)
    };

    let streaming =
        body["stream"].as_bool().unwrap_or(false) || path.contains(":streamGenerateContent");
    let streaming = (
        streaming,
        body["stream_options"]["include_usage"]
            .as_bool()
            .unwrap_or(false),
    );
    let model = body["model"]
        .as_str()
        .map(str::to_string)
        .or_else(|| gemini_model(&path))
        .unwrap_or_else(|| "scripted".into());
    let answer = match (&served, api) {
        (Served::NotFound, _) | (_, Api::Other) => None,
        (Served::Turn(Reply::Error { .. }) | Served::Routed(Reply::Error { .. }), _) => None,
        (Served::Failed(status), _) => Some((
            *status,
            "application/json",
            json!({"type": "error", "error": {"type": "api_error", "message": "scripted failure"}})
                .to_string(),
        )),
        (Served::Turn(reply) | Served::Routed(reply), api) => Some(with_ok(render(
            api,
            reply,
            id,
            &model,
            streaming,
            input_tokens,
        ))),
        (Served::Side(text), api) => Some(with_ok(render(
            api,
            &Reply::Text(text.clone()),
            id,
            &model,
            streaming,
            input_tokens,
        ))),
    };

    // An error reply: its status and body, at once (it is logged like any turn).
    let error = match &served {
        Served::Turn(Reply::Error {
            status,
            body,
            headers,
        })
        | Served::Routed(Reply::Error {
            status,
            body,
            headers,
        }) => Some(error_response(*status, body, headers)),
        _ => None,
    };

    {
        let mut state = shared.state.lock().unwrap();
        state.log.push(Request {
            method,
            path,
            body: body_text,
            api,
            served,
            at_ms: shared.started.elapsed().as_millis(),
        });
        shared.changed.notify_all();
    }

    if let Some(delay) = delay {
        // A slow turn: wait (interruptible by the server stopping) before answering.
        let deadline = Instant::now() + delay;
        let mut state = shared.state.lock().unwrap();
        while !state.stopping && Instant::now() < deadline {
            let left = deadline.saturating_duration_since(Instant::now());
            state = shared.changed.wait_timeout(state, left).unwrap().0;
        }
    }

    if let Some(response) = error {
        let _ = request.respond(response);
        return;
    }
    let response = match answer {
        None => tiny_http::Response::from_data(Vec::new()).with_status_code(404),
        Some((status, content_type, text)) => tiny_http::Response::from_data(text.into_bytes())
            .with_status_code(status)
            .with_header(tiny_http::Header::from_bytes("Content-Type", content_type).unwrap()),
    };
    let _ = request.respond(response);
}

/// A rendered answer with status 200.
fn with_ok((content_type, text): (&'static str, String)) -> (u16, &'static str, String) {
    (200, content_type, text)
}

/// A [`Reply::Error`]'s response: `status`, `body` as `application/json`, `headers`.
fn error_response(
    status: u16,
    body: &str,
    headers: &[(String, String)],
) -> tiny_http::Response<std::io::Cursor<Vec<u8>>> {
    let mut response = tiny_http::Response::from_data(body.as_bytes().to_vec())
        .with_status_code(status)
        .with_header(tiny_http::Header::from_bytes("Content-Type", "application/json").unwrap());
    for (name, value) in headers {
        response = response
            .with_header(tiny_http::Header::from_bytes(name.as_bytes(), value.as_bytes()).unwrap());
    }
    response
}

/// `gemini-x` from `/v1beta/models/gemini-x:streamGenerateContent`.
fn gemini_model(path: &str) -> Option<String> {
    let route = path.split('?').next()?;
    let name = route.rsplit('/').next()?;
    Some(name.split(':').next()?.to_string())
}

/// The response body (content type, text) for `reply` in `api`'s format.
/// `usage_chunk`: a Chat Completions stream ends with a usage chunk
/// (`stream_options.include_usage`).
fn render(
    api: Api,
    reply: &Reply,
    id: u32,
    model: &str,
    (streaming, usage_chunk): (bool, bool),
    input_tokens: u64,
) -> (&'static str, String) {
    match (api, streaming) {
        (Api::Anthropic, true) => (
            "text/event-stream",
            anthropic_sse(reply, id, model, input_tokens),
        ),
        (Api::Anthropic, false) => (
            "application/json",
            anthropic_message(reply, id, model, input_tokens).to_string(),
        ),
        (Api::Responses, _) => ("text/event-stream", responses_sse(reply, id, model)),
        (Api::Chat, true) => (
            "text/event-stream",
            chat_sse(reply, id, model, input_tokens, usage_chunk),
        ),
        (Api::Chat, false) => (
            "application/json",
            chat_completion(reply, id, model, input_tokens).to_string(),
        ),
        (Api::Gemini, true) => (
            "text/event-stream",
            format!("data: {}\r\n\r\n", gemini_response(reply, model)),
        ),
        (Api::Gemini, false) | (Api::Other, _) => (
            "application/json",
            gemini_response(reply, model).to_string(),
        ),
    }
}

/// `event: NAME\ndata: JSON\n\n` for each event.
fn sse(events: &[(&str, Value)]) -> String {
    events
        .iter()
        .map(|(name, data)| format!("event: {name}\ndata: {data}\n\n"))
        .collect()
}

fn tool_input(input_json: &str) -> Value {
    serde_json::from_str(input_json)
        .unwrap_or_else(|e| panic!("scripted tool input is not JSON ({e}): {input_json}"))
}

fn anthropic_message(reply: &Reply, id: u32, model: &str, input_tokens: u64) -> Value {
    let (content, stop) = match reply {
        Reply::Text(text) => (json!({"type": "text", "text": text}), "end_turn"),
        Reply::Tool { name, input_json } => (
            json!({"type": "tool_use", "id": format!("toolu_{id:02}"), "name": name, "input": tool_input(input_json)}),
            "tool_use",
        ),
        Reply::Error { .. } => unreachable!("an error reply is answered in `handle`"),
    };
    json!({
        "id": format!("msg_{id:02}"), "type": "message", "role": "assistant", "model": model,
        "content": [content], "stop_reason": stop, "stop_sequence": null,
        "usage": {"input_tokens": input_tokens, "output_tokens": 5},
    })
}

fn anthropic_sse(reply: &Reply, id: u32, model: &str, input_tokens: u64) -> String {
    let (start, delta, stop) = match reply {
        Reply::Text(text) => (
            json!({"type": "text", "text": ""}),
            json!({"type": "text_delta", "text": text}),
            "end_turn",
        ),
        Reply::Tool { name, input_json } => (
            json!({"type": "tool_use", "id": format!("toolu_{id:02}"), "name": name, "input": {}}),
            json!({"type": "input_json_delta", "partial_json": input_json}),
            "tool_use",
        ),
        Reply::Error { .. } => unreachable!("an error reply is answered in `handle`"),
    };
    sse(&[
        (
            "message_start",
            json!({"type": "message_start", "message": {
                "id": format!("msg_{id:02}"), "type": "message", "role": "assistant", "model": model,
                "content": [], "stop_reason": null, "stop_sequence": null,
                "usage": {"input_tokens": input_tokens, "output_tokens": 1},
            }}),
        ),
        (
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": start}),
        ),
        (
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": delta}),
        ),
        (
            "content_block_stop",
            json!({"type": "content_block_stop", "index": 0}),
        ),
        (
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null},
                   "usage": {"input_tokens": input_tokens, "output_tokens": 5}}),
        ),
        ("message_stop", json!({"type": "message_stop"})),
    ])
}

fn responses_sse(reply: &Reply, id: u32, model: &str) -> String {
    let response_id = format!("resp_{id:02}");
    let mut events = vec![(
        "response.created",
        json!({"type": "response.created", "response": {
            "id": response_id, "object": "response", "status": "in_progress", "model": model, "output": [],
        }}),
    )];
    let item = match reply {
        Reply::Text(text) => {
            let item_id = format!("msg_{id:02}");
            events.push((
                "response.output_item.added",
                json!({"type": "response.output_item.added", "output_index": 0, "item": {
                    "type": "message", "id": item_id, "role": "assistant", "status": "in_progress", "content": [],
                }}),
            ));
            events.push((
                "response.output_text.delta",
                json!({"type": "response.output_text.delta", "item_id": item_id, "output_index": 0,
                       "content_index": 0, "delta": text}),
            ));
            json!({"type": "message", "id": item_id, "role": "assistant", "status": "completed",
                   "content": [{"type": "output_text", "text": text, "annotations": []}]})
        }
        Reply::Tool { name, input_json } => {
            let item_id = format!("fc_{id:02}");
            let call_id = format!("call_{id:02}");
            events.push((
                "response.output_item.added",
                json!({"type": "response.output_item.added", "output_index": 0, "item": {
                    "type": "function_call", "id": item_id, "call_id": call_id, "name": name,
                    "arguments": "", "status": "in_progress",
                }}),
            ));
            events.push((
                "response.function_call_arguments.delta",
                json!({"type": "response.function_call_arguments.delta", "item_id": item_id,
                       "output_index": 0, "delta": input_json}),
            ));
            events.push((
                "response.function_call_arguments.done",
                json!({"type": "response.function_call_arguments.done", "item_id": item_id,
                       "output_index": 0, "arguments": input_json}),
            ));
            json!({"type": "function_call", "id": item_id, "call_id": call_id, "name": name,
                   "arguments": input_json, "status": "completed"})
        }
        Reply::Error { .. } => unreachable!("an error reply is answered in `handle`"),
    };
    events.push((
        "response.output_item.done",
        json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
    ));
    events.push((
        "response.completed",
        json!({"type": "response.completed", "response": {
            "id": response_id, "object": "response", "status": "completed", "model": model, "output": [item],
            "usage": {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
                      "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 15},
        }}),
    ));
    sse(&events)
}

/// A Chat Completions tool call: `{"id": "call_<id>", "type": "function", "function":
/// {"name", "arguments"}}`.
fn chat_tool_call(id: u32, name: &str, arguments: &str) -> Value {
    json!({"id": format!("call_{id:02}"), "type": "function",
           "function": {"name": name, "arguments": arguments}})
}

fn chat_usage(input_tokens: u64) -> Value {
    json!({"prompt_tokens": input_tokens, "completion_tokens": 5, "total_tokens": input_tokens + 5})
}

/// A non-streamed `chat.completion`.
fn chat_completion(reply: &Reply, id: u32, model: &str, input_tokens: u64) -> Value {
    let (message, finish) = match reply {
        Reply::Text(text) => (json!({"role": "assistant", "content": text}), "stop"),
        Reply::Tool { name, input_json } => (
            json!({"role": "assistant", "content": null,
                   "tool_calls": [chat_tool_call(id, name, input_json)]}),
            "tool_calls",
        ),
        Reply::Error { .. } => unreachable!("an error reply is answered in `handle`"),
    };
    json!({
        "id": format!("chatcmpl-{id:02}"), "object": "chat.completion", "created": 0, "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": chat_usage(input_tokens),
    })
}

/// A streamed Chat Completions answer: `data: <chunk>` lines, then `data: [DONE]`.
fn chat_sse(reply: &Reply, id: u32, model: &str, input_tokens: u64, usage_chunk: bool) -> String {
    let chunk = |choices: Value| {
        json!({"id": format!("chatcmpl-{id:02}"), "object": "chat.completion.chunk",
               "created": 0, "model": model, "choices": choices})
    };
    let delta = |delta: Value, finish: Value| {
        chunk(json!([{"index": 0, "delta": delta, "finish_reason": finish}]))
    };
    let mut chunks = match reply {
        Reply::Text(text) => vec![
            delta(json!({"role": "assistant", "content": ""}), Value::Null),
            delta(json!({"content": text}), Value::Null),
            delta(json!({}), json!("stop")),
        ],
        Reply::Tool { name, input_json } => {
            let mut call = chat_tool_call(id, name, "");
            call["index"] = json!(0);
            vec![
                delta(
                    json!({"role": "assistant", "content": null, "tool_calls": [call]}),
                    Value::Null,
                ),
                delta(
                    json!({"tool_calls": [{"index": 0, "function": {"arguments": input_json}}]}),
                    Value::Null,
                ),
                delta(json!({}), json!("tool_calls")),
            ]
        }
        Reply::Error { .. } => unreachable!("an error reply is answered in `handle`"),
    };
    if usage_chunk {
        let mut last = chunk(json!([]));
        last["usage"] = chat_usage(input_tokens);
        chunks.push(last);
    }
    chunks
        .iter()
        .map(|c| format!("data: {c}\n\n"))
        .chain(std::iter::once("data: [DONE]\n\n".to_string()))
        .collect()
}

fn gemini_response(reply: &Reply, model: &str) -> Value {
    let part = match reply {
        Reply::Text(text) => json!({"text": text}),
        Reply::Tool { name, input_json } => {
            json!({"functionCall": {"name": name, "args": tool_input(input_json)}})
        }
        Reply::Error { .. } => unreachable!("an error reply is answered in `handle`"),
    };
    json!({
        "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
        "modelVersion": model,
    })
}

//! Attend's entries in the agents' JSON hook files (Claude, Gemini, Qwen and Copilot
//! `settings.json`, Codex and Cursor `hooks.json`, Copilot's `.github/hooks/attend.json`),
//! edited through a concrete syntax tree (`jsonc-parser`) so the user's key order,
//! indentation, newlines and (Gemini) comments stay as written.
//!
//! Shapes (`docs/adapters.md#hook-configuration-files`):
//! - grouped (Claude, Codex, Gemini, Qwen): `{"hooks": {"<Event>": [{"matcher": "…",
//!   "hooks": [{"type": "command", "command": "…", "timeout": N}]}]}}`;
//! - flat (Cursor, Copilot): `{"version": 1, "hooks": {"<event>": [{"command": "…"}]}}`,
//!   Copilot's entries `{"type": "command", "bash": "… <event>", "timeoutSec": N}`;
//!   MastraCode's `hooks.json` the same lists at the top level, no `hooks` object:
//!   `{"<Event>": [{"type": "command", "command": "…", "timeout": N}]}`.

use super::command::Matcher;
use super::error::InstallError;
use jsonc_parser::cst::{CstInputValue, CstNode, CstObject, CstRootNode};
use jsonc_parser::ParseOptions;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;

/// How Attend's entry looks in one agent's file.
#[derive(Debug, Clone, Copy)]
pub(super) enum Shape {
    /// Matcher groups. `timeout` is in the agent's unit (seconds for Claude and Codex,
    /// milliseconds for Gemini); `name` is Gemini's optional hook name; events listed in
    /// `match_all` get `"matcher": "*"` (the others omit the matcher, which also means all);
    /// an event listed in `timeouts` gets its own timeout instead (Claude's
    /// `PermissionRequest`, whose run may wait for a choice made in Attend:
    /// docs/decisions/0015-answering-external-gates.md).
    Grouped {
        timeout: u64,
        timeouts: &'static [(&'static str, u64)],
        name: Option<&'static str>,
        match_all: &'static [&'static str],
    },
    /// One entry object per event (Cursor, Copilot), as [`Flat`] says.
    Flat(Flat),
}

/// The fields of a flat entry: Cursor `{"command": "…"}`, Copilot `{"type": "command",
/// "bash": "…", "timeoutSec": N}`.
#[derive(Debug, Clone, Copy)]
pub(super) struct Flat {
    /// The key that holds the command (`command`, Copilot `bash`).
    pub command_key: &'static str,
    /// `"type": "command"` leads the entry.
    pub typed: bool,
    /// The timeout's key and value, in the agent's unit (Copilot `timeoutSec`, seconds).
    pub timeout: Option<(&'static str, u64)>,
    /// A new file also gets `"version": 1` (Cursor's `hooks.json`, a repository's
    /// `.github/hooks/*.json` for Copilot).
    pub version: bool,
    /// The event lists stand at the file's top level, not in a `hooks` object
    /// (MastraCode's `hooks.json`).
    pub top_level: bool,
}

impl Flat {
    /// Cursor's entries: `{"command": "…"}`, `"version": 1` in a new file.
    pub(super) const CURSOR: Flat = Flat {
        command_key: "command",
        typed: false,
        timeout: None,
        version: true,
        top_level: false,
    };
}

/// Attend's hooks for one JSON file.
pub(super) struct JsonHooks<'a> {
    pub shape: Shape,
    /// The events to install, in the order they are appended.
    pub events: &'static [&'static str],
    /// Whether the agent itself accepts `//` and `/* */` comments in this file.
    pub allow_comments: bool,
    /// The command line every entry runs.
    pub command: String,
    /// Each entry's command ends with its event's name (`attend-hook copilot agentStop`):
    /// for agents whose payloads do not name their event (Copilot).
    pub event_argument: bool,
    pub matcher: &'a Matcher,
}

impl JsonHooks<'_> {
    /// The text with Attend's entries installed: unchanged when exactly the wanted entries
    /// are already there; the same text with the commands rewritten in place when only
    /// Attend's command changed (the older `attend hook` form, a moved executable);
    /// otherwise any stale Attend entries are removed and one fresh entry per event is
    /// appended after the user's own.
    ///
    /// Errors: [`InstallError::Parse`] for invalid JSON, [`InstallError::Shape`] when the
    /// root, `hooks` or an event's value has a type Attend cannot add to.
    pub(super) fn install(&self, path: &Path, text: &str) -> Result<String, InstallError> {
        let root = self.parse(path, text)?;
        if self.installed(&root) {
            return Ok(text.to_string());
        }
        if self.rewrite_ours(&root) && self.installed(&root) {
            return Ok(root.to_string());
        }
        let object = match root.value() {
            None => root.object_value_or_set(),
            Some(node) => node
                .as_object()
                .ok_or_else(|| shape(path, "the top-level value is not an object"))?,
        };
        let was_empty = object.properties().is_empty();
        self.remove_ours(&object);
        if was_empty && matches!(self.shape, Shape::Flat(Flat { version: true, .. })) {
            object.append("version", CstInputValue::Number("1".into()));
        }
        let hooks = if self.top_level() {
            object.clone()
        } else {
            object
                .object_value_or_create("hooks")
                .ok_or_else(|| shape(path, "`hooks` is not an object"))?
        };
        for event in self.events {
            let list = hooks
                .array_value_or_create(event)
                .ok_or_else(|| shape(path, &format!("`hooks.{event}` is not a list")))?;
            list.append(self.entry(event));
        }
        Ok(root.to_string())
    }

    /// The text without Attend's entries; groups, event lists and a `hooks` object left
    /// empty by the removal are removed too. Unchanged when nothing of Attend's is there.
    pub(super) fn uninstall(&self, path: &Path, text: &str) -> Result<String, InstallError> {
        let root = self.parse(path, text)?;
        match root.object_value() {
            Some(object) if self.remove_ours(&object) => Ok(root.to_string()),
            _ => Ok(text.to_string()),
        }
    }

    /// The JSON value of `text` (`{}` for a blank text) with empty event lists and an
    /// empty `hooks` object left out (they mean nothing to the agent, and uninstalling
    /// removes the ones it empties), or `None` when it does not parse. Used to recognise
    /// the backup an uninstalled file is equivalent to.
    pub(super) fn value(&self, text: &str) -> Option<Value> {
        let root = CstRootNode::parse(text, &self.options()).ok()?;
        let mut value = match root.value() {
            None => Value::Object(Default::default()),
            Some(node) => node.to_serde_value()?,
        };
        if let Some(top) = value.as_object_mut() {
            if self.top_level() {
                top.retain(|_, list| !matches!(list, Value::Array(l) if l.is_empty()));
            } else if let Some(Value::Object(hooks)) = top.get_mut("hooks") {
                hooks.retain(|_, list| !matches!(list, Value::Array(l) if l.is_empty()));
                if hooks.is_empty() {
                    top.remove("hooks");
                }
            }
        }
        Some(value)
    }

    /// True for the content of a file Attend created and then emptied: `{}`, and where a new
    /// file gets a version (Cursor) also `{"version": 1}`.
    pub(super) fn is_blank(&self, value: &Value) -> bool {
        let Value::Object(map) = value else {
            return false;
        };
        map.is_empty()
            || (matches!(self.shape, Shape::Flat(Flat { version: true, .. }))
                && map.len() == 1
                && map.get("version") == Some(&Value::from(1)))
    }

    fn options(&self) -> ParseOptions {
        ParseOptions {
            allow_comments: self.allow_comments,
            allow_loose_object_property_names: false,
            allow_trailing_commas: false,
            allow_missing_commas: false,
            allow_single_quoted_strings: false,
            allow_hexadecimal_numbers: false,
            allow_unary_plus_numbers: false,
            allow_bare_decimal_point_numbers: false,
            allow_non_finite_numbers: false,
            allow_extended_string_escapes: false,
        }
    }

    /// Parses `text` into a tree. Strict JSON (every agent but Gemini) is checked by
    /// `serde_json` first, since the tree parser lets comments through.
    fn parse(&self, path: &Path, text: &str) -> Result<CstRootNode, InstallError> {
        if !self.allow_comments && !text.trim().is_empty() {
            if let Err(e) = serde_json::from_str::<serde::de::IgnoredAny>(text) {
                let full = e.to_string();
                let message = full.rsplit_once(" at line ").map_or(&*full, |(m, _)| m);
                return Err(InstallError::Parse {
                    path: path.to_path_buf(),
                    line: e.line(),
                    column: e.column(),
                    message: message.to_string(),
                });
            }
        }
        CstRootNode::parse(text, &self.options()).map_err(|e| InstallError::Parse {
            path: path.to_path_buf(),
            line: e.line_display(),
            column: e.column_display(),
            message: e.kind().to_string(),
        })
    }

    /// Whether the event lists stand at the top level ([`Flat::top_level`]).
    fn top_level(&self) -> bool {
        matches!(
            self.shape,
            Shape::Flat(Flat {
                top_level: true,
                ..
            })
        )
    }

    /// The command of the entry for `event`: [`Self::command`], followed by the event's
    /// name with [`Self::event_argument`].
    fn command_for(&self, event: &str) -> String {
        if self.event_argument {
            format!("{} {event}", self.command)
        } else {
            self.command.clone()
        }
    }

    /// The key of a hook object that holds its command.
    fn command_key(&self) -> &'static str {
        match self.shape {
            Shape::Flat(flat) => flat.command_key,
            Shape::Grouped { .. } => "command",
        }
    }

    /// Attend's entry for one event.
    fn entry(&self, event: &str) -> CstInputValue {
        let command = CstInputValue::String(self.command_for(event));
        match self.shape {
            Shape::Flat(flat) => {
                let mut entry = Vec::new();
                if flat.typed {
                    entry.push(("type".into(), CstInputValue::String("command".into())));
                }
                entry.push((flat.command_key.into(), command));
                if let Some((key, timeout)) = flat.timeout {
                    entry.push((key.into(), CstInputValue::Number(timeout.to_string())));
                }
                CstInputValue::Object(entry)
            }
            Shape::Grouped {
                timeout,
                timeouts,
                name,
                match_all,
            } => {
                let timeout = timeouts
                    .iter()
                    .find(|(e, _)| *e == event)
                    .map_or(timeout, |(_, t)| *t);
                let mut hook = vec![("type".into(), CstInputValue::String("command".into()))];
                if let Some(name) = name {
                    hook.push(("name".into(), CstInputValue::String(name.into())));
                }
                hook.push(("command".into(), command));
                hook.push(("timeout".into(), CstInputValue::Number(timeout.to_string())));
                let mut group = Vec::new();
                if match_all.contains(&event) {
                    group.push(("matcher".into(), CstInputValue::String("*".into())));
                }
                group.push((
                    "hooks".into(),
                    CstInputValue::Array(vec![CstInputValue::Object(hook)]),
                ));
                CstInputValue::Object(group)
            }
        }
    }

    /// True when the file holds exactly Attend's wanted entries: one per event, as
    /// [`Self::entry`] builds it, and no other entry of Attend's anywhere.
    fn installed(&self, root: &CstRootNode) -> bool {
        let Some(Value::Object(top)) = root.value().and_then(|v| v.to_serde_value()) else {
            return false;
        };
        let hooks = match top.get("hooks") {
            _ if self.top_level() => &top,
            Some(Value::Object(hooks)) => hooks,
            _ => return false,
        };
        let mut ours: BTreeMap<&str, Vec<&Value>> = BTreeMap::new();
        for (event, list) in hooks {
            for entry in list.as_array().into_iter().flatten() {
                if self.entry_has_ours(entry) {
                    ours.entry(event).or_default().push(entry);
                }
            }
        }
        ours.len() == self.events.len()
            && self.events.iter().all(|event| {
                ours.get(event).is_some_and(|found| {
                    found.len() == 1 && *found[0] == input_to_value(&self.entry(event))
                })
            })
    }

    /// Whether an entry (a group, or a flat entry) holds one of Attend's commands.
    fn entry_has_ours(&self, entry: &Value) -> bool {
        match self.shape {
            Shape::Flat(_) => self.is_ours_hook(entry),
            Shape::Grouped { .. } => entry
                .get("hooks")
                .and_then(Value::as_array)
                .is_some_and(|hooks| hooks.iter().any(|h| self.is_ours_hook(h))),
        }
    }

    fn is_ours_hook(&self, hook: &Value) -> bool {
        hook.get(self.command_key())
            .and_then(Value::as_str)
            .is_some_and(|c| self.matcher.is_ours_command(c))
    }

    /// Sets the command of every hook of Attend's whose command differs from its event's
    /// [`Self::command_for`], where it stands. Returns whether anything was rewritten.
    fn rewrite_ours(&self, root: &CstRootNode) -> bool {
        let Some(hooks) = root.object_value().and_then(|top| {
            if self.top_level() {
                Some(top)
            } else {
                top.object_value("hooks")
            }
        }) else {
            return false;
        };
        let mut rewritten = false;
        for event in hooks.properties() {
            let name = event
                .name()
                .and_then(|n| n.decoded_value().ok())
                .unwrap_or_default();
            let wanted = self.command_for(&name);
            for entry in event
                .array_value()
                .map(|l| l.elements())
                .unwrap_or_default()
            {
                let objects: Vec<CstObject> = match self.shape {
                    Shape::Flat(_) => entry.as_object().into_iter().collect(),
                    Shape::Grouped { .. } => entry
                        .as_object()
                        .and_then(|group| group.array_value("hooks"))
                        .map(|inner| {
                            inner
                                .elements()
                                .iter()
                                .filter_map(|h| h.as_object())
                                .collect()
                        })
                        .unwrap_or_default(),
                };
                for hook in objects {
                    let Some(prop) = hook.get(self.command_key()) else {
                        continue;
                    };
                    let old = prop.value().and_then(|v| v.to_serde_value());
                    let Some(Value::String(old)) = old else {
                        continue;
                    };
                    if old != wanted && self.matcher.is_ours_command(&old) {
                        prop.set_value(CstInputValue::String(wanted.clone()));
                        rewritten = true;
                    }
                }
            }
        }
        rewritten
    }

    /// Removes Attend's hooks from the tree, and the containers the removal emptied.
    /// Returns whether anything was removed.
    fn remove_ours(&self, top: &CstObject) -> bool {
        let hooks = if self.top_level() {
            Some(top.clone())
        } else {
            top.object_value("hooks")
        };
        let Some(hooks) = hooks else {
            return false;
        };
        let mut removed_any = false;
        for event in hooks.properties() {
            let Some(list) = event.array_value() else {
                continue;
            };
            let mut removed_here = false;
            for entry in list.elements() {
                let removed = match self.shape {
                    Shape::Flat(_) => self.remove_if_ours(entry.clone()),
                    Shape::Grouped { .. } => {
                        let inner = entry.as_object().and_then(|g| g.array_value("hooks"));
                        match inner {
                            Some(inner) => {
                                let mut removed = false;
                                for hook in inner.elements() {
                                    removed |= self.remove_if_ours(hook);
                                }
                                if removed && inner.elements().is_empty() {
                                    entry.remove();
                                }
                                removed
                            }
                            None => false,
                        }
                    }
                };
                removed_here |= removed;
            }
            if removed_here && list.elements().is_empty() {
                event.remove();
            }
            removed_any |= removed_here;
        }
        if removed_any && !self.top_level() && hooks.properties().is_empty() {
            if let Some(prop) = top.get("hooks") {
                prop.remove();
            }
        }
        removed_any
    }

    fn remove_if_ours(&self, hook: CstNode) -> bool {
        let ours = hook
            .to_serde_value()
            .is_some_and(|value| self.is_ours_hook(&value));
        if ours {
            hook.remove();
        }
        ours
    }
}

fn shape(path: &Path, message: &str) -> InstallError {
    InstallError::Shape {
        path: path.to_path_buf(),
        message: message.to_string(),
    }
}

/// The JSON value of an input tree (numbers are the decimal integers Attend writes).
fn input_to_value(input: &CstInputValue) -> Value {
    match input {
        CstInputValue::Null => Value::Null,
        CstInputValue::Bool(b) => Value::Bool(*b),
        CstInputValue::Number(n) => serde_json::from_str(n).unwrap_or(Value::Null),
        CstInputValue::String(s) => Value::String(s.clone()),
        CstInputValue::Array(items) => Value::Array(items.iter().map(input_to_value).collect()),
        CstInputValue::Object(props) => Value::Object(
            props
                .iter()
                .map(|(k, v)| (k.clone(), input_to_value(v)))
                .collect(),
        ),
    }
}

//! Column values for model values: wire names, `rung:origin` sources, JSON text, and the
//! two summary columns of the event log. Decoding failures surface as rusqlite
//! conversion errors, which [`super::Db`] reports as `DbError::Corrupt`.

use crate::model::{EventKind, Rung, Source, Timestamp};
use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSql, ToSqlOutput, ValueRef};
use serde::{de::DeserializeOwned, Serialize};

/// A value whose serde form is a JSON string (unit enums such as `Lifecycle`, and
/// `PaneId`), stored as that bare string: `working`, `p3`.
pub(super) struct Text<T>(pub T);

impl<T: DeserializeOwned> FromSql for Text<T> {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        let s = value.as_str()?;
        serde_json::from_value(serde_json::Value::String(s.to_owned()))
            .map(Text)
            .map_err(|e| FromSqlError::Other(Box::new(e)))
    }
}

/// A value stored as JSON text (item lists, argv, answer keys, resolutions, events).
pub(super) struct Json<T>(pub T);

impl<T: DeserializeOwned> FromSql for Json<T> {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        serde_json::from_str(value.as_str()?)
            .map(Json)
            .map_err(|e| FromSqlError::Other(Box::new(e)))
    }
}

impl<T: Serialize> ToSql for Json<T> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        serde_json::to_string(&self.0)
            .map(ToSqlOutput::from)
            .map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))
    }
}

/// A [`Source`] stored as its Display form `rung:origin` (`lifecycle-hooks:claude.Stop`).
pub(super) struct SourceText(pub Source);

impl FromSql for SourceText {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        let s = value.as_str()?;
        let bad = || FromSqlError::Other(format!("not a source: {s:?}").into());
        let (rung, origin) = s.split_once(':').ok_or_else(bad)?;
        let Text(rung) = Text::<Rung>::column_result(ValueRef::Text(rung.as_bytes()))?;
        Ok(SourceText(Source::new(rung, origin)))
    }
}

/// Milliseconds of an optional time, for a nullable INTEGER column.
pub(super) fn millis(t: Option<Timestamp>) -> Option<i64> {
    t.map(|t| t.0)
}

/// The `previous` and `value` columns of an event row: a queryable summary of the kind;
/// the `payload` column stays the authoritative copy.
///
/// | kind | previous | value |
/// | --- | --- | --- |
/// | `agent.*` | previous lifecycle | new lifecycle |
/// | `attention.created` / `.cleared` | – | the pane's attention afterwards |
/// | `decision.opened` | – | decision kind (`permission`, `question`) |
/// | `decision.resolved` | – | resolution (`approved`, `superseded` …) |
/// | `pane.exited` | – | exit code, or `signal N` |
/// | `pane.handover` | previous session id | new session id |
/// | `task.*` | – | task id |
/// | `rung.health` | previous trust | new trust |
/// | `pane.added` / `.removed` / `.changed` | – | – |
pub(super) fn event_columns(kind: &EventKind) -> (Option<String>, Option<String>) {
    match kind {
        EventKind::Agent { previous, value } => {
            (Some(previous.to_string()), Some(value.to_string()))
        }
        EventKind::AttentionCreated { shown, .. } | EventKind::AttentionCleared { shown, .. } => {
            (None, Some(shown.to_string()))
        }
        EventKind::DecisionOpened { decision } => (None, Some(decision.kind.as_str().to_owned())),
        EventKind::DecisionResolved { resolution, .. } => {
            (None, Some(resolution.as_str().to_owned()))
        }
        EventKind::PaneExited { code, signal } => {
            let value = match (code, signal) {
                (Some(code), _) => Some(code.to_string()),
                (None, Some(signal)) => Some(format!("signal {signal}")),
                (None, None) => None,
            };
            (None, value)
        }
        EventKind::PaneHandover {
            previous_session,
            session_id,
        } => (previous_session.clone(), session_id.clone()),
        EventKind::Task { id, .. } => (None, Some(id.to_string())),
        EventKind::RungHealth { from, to, .. } => (Some(from.clone()), Some(to.clone())),
        EventKind::PaneAdded | EventKind::PaneRemoved | EventKind::PaneChanged => (None, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{AgentKind, Attention, DecisionKind, Lifecycle, PaneId, TaskState};

    fn text<T: DeserializeOwned>(s: &str) -> Option<T> {
        Text::<T>::column_result(ValueRef::Text(s.as_bytes()))
            .ok()
            .map(|Text(t)| t)
    }

    #[test]
    fn wire_names_decode_to_their_values() {
        for l in Lifecycle::ALL {
            assert_eq!(text::<Lifecycle>(l.as_str()), Some(l));
        }
        for a in AgentKind::ALL {
            assert_eq!(text::<AgentKind>(a.as_str()), Some(a));
        }
        for a in Attention::ALL {
            assert_eq!(text::<Attention>(a.as_str()), Some(a));
        }
        for k in [DecisionKind::Permission, DecisionKind::Question] {
            assert_eq!(text::<DecisionKind>(k.as_str()), Some(k));
        }
        use TaskState::*;
        for s in [Open, Working, Reported, Failed, InputRequired] {
            assert_eq!(text::<TaskState>(s.as_str()), Some(s));
        }
        assert_eq!(text::<PaneId>("p12"), Some(PaneId(12)));
        assert_eq!(text::<Lifecycle>("exited"), None);
        assert_eq!(text::<PaneId>("p0"), None);
    }

    #[test]
    fn sources_round_trip_through_their_display_form() {
        use Rung::*;
        for rung in [
            SelfReport,
            LifecycleHooks,
            NeedsInputChrome,
            WindowSampling,
            Terminal,
            Process,
            User,
        ] {
            let source = Source::new(rung, "claude.Stop:with:colons");
            let shown = source.to_string();
            let back = SourceText::column_result(ValueRef::Text(shown.as_bytes())).unwrap();
            assert_eq!(back.0, source);
        }
        assert!(SourceText::column_result(ValueRef::Text(b"no-colon")).is_err());
        assert!(SourceText::column_result(ValueRef::Text(b"nonsense:x")).is_err());
    }
}

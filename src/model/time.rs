use serde::{Deserialize, Serialize};

/// A point in time: milliseconds since the Unix epoch (UTC).
///
/// The engine never reads a clock; every entry point takes `now: Timestamp`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default,
)]
#[serde(transparent)]
pub struct Timestamp(pub i64);

impl Timestamp {
    /// Milliseconds elapsed from `earlier` to `self` (negative when `earlier` is later).
    pub fn millis_since(self, earlier: Timestamp) -> i64 {
        self.0 - earlier.0
    }

    /// RFC 3339 rendering with millisecond precision (`2026-11-30T05:00:00.000Z`);
    /// times before the epoch render as the epoch.
    pub fn to_rfc3339(self) -> String {
        let t = std::time::UNIX_EPOCH + std::time::Duration::from_millis(self.0.max(0) as u64);
        humantime::format_rfc3339_millis(t).to_string()
    }
}

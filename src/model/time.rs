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
    /// The last time RFC 3339 can write: 9999-12-31T23:59:59.999Z. Times given to Attend
    /// (a hold's wake) are refused past it; [`Timestamp::to_rfc3339`] writes a later one
    /// as this.
    pub const MAX: Timestamp = Timestamp(253_402_300_799_999);

    /// Milliseconds elapsed from `earlier` to `self` (negative when `earlier` is later).
    pub fn millis_since(self, earlier: Timestamp) -> i64 {
        self.0 - earlier.0
    }

    /// RFC 3339 rendering with millisecond precision (`2026-11-30T05:00:00.000Z`);
    /// times before the epoch render as the epoch.
    pub fn to_rfc3339(self) -> String {
        let ms = self.0.clamp(0, Timestamp::MAX.0);
        let t = std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms as u64);
        humantime::format_rfc3339_millis(t).to_string()
    }

    /// Parses an RFC 3339 time (`2026-11-30T05:00:00.000Z`, what [`Timestamp::to_rfc3339`]
    /// writes); `None` for anything else or a time before the epoch.
    pub fn parse_rfc3339(s: &str) -> Option<Timestamp> {
        let t = humantime::parse_rfc3339_weak(s).ok()?;
        let ms = t.duration_since(std::time::UNIX_EPOCH).ok()?.as_millis();
        i64::try_from(ms).ok().map(Timestamp)
    }
}

#[cfg(test)]
mod tests {
    use super::Timestamp;

    #[test]
    fn rfc3339_round_trips_to_the_millisecond() {
        for ms in [0, 1, 1_795_000_000_123] {
            let t = Timestamp(ms);
            assert_eq!(Timestamp::parse_rfc3339(&t.to_rfc3339()), Some(t));
        }
        assert_eq!(
            Timestamp::MAX.to_rfc3339(),
            "9999-12-31T23:59:59.999Z",
            "the last time RFC 3339 writes"
        );
        assert_eq!(
            Timestamp(i64::MAX).to_rfc3339(),
            Timestamp::MAX.to_rfc3339()
        );
        assert_eq!(Timestamp::parse_rfc3339("yesterday"), None);
        assert_eq!(Timestamp::parse_rfc3339(""), None);
    }
}

//! The service's clock (the engine never reads one: time is passed in).

use crate::model::Timestamp;

/// The milliseconds-since-epoch clock of the service (the engine never reads one).
pub fn now() -> Timestamp {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0);
    Timestamp(ms)
}

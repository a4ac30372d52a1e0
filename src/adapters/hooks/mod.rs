//! Agent hook payloads → signals.

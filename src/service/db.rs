//! SQLite persistence of the world and the event log.

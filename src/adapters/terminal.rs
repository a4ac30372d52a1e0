//! Terminal byte stream scanner: BEL and OSC sequences → terminal events.

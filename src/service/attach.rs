//! Attach sockets: stream a pane to a terminal client.

//! PTY host: spawns programs in PTYs, feeds vt100 and the terminal scanner.

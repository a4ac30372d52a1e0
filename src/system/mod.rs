//! What the daemon and its clients share of the operating system: the one clock
//! ([`clock`]), how a program Attend runs is ended ([`ending`]), files and directories closed to other users ([`private`]), the state
//! directory's lock and who holds it ([`state_lock`]), the private session bus `attend up`
//! starts where there is none ([`private_bus`]), and starting detached programs
//! ([`launch`]: the panel, a terminal, the daemon), and git worktrees for agents
//! ([`worktree`]).

pub mod clock;
pub mod ending;
pub mod launch;
pub mod private;
pub mod private_bus;
pub mod state_lock;
pub mod worktree;

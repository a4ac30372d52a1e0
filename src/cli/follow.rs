//! `attend events --follow`: the event log, then every new event, each seq printed once
//! and in order, across daemon restarts and a lost session bus (docs/dbus-api.md
//! "Following the log"; docs/reliability.md "Followers").
//!
//! The follower remembers one number, the last seq it printed. It subscribes to the
//! daemon's `Event` signal (from the owner of the daemon's name only) and to
//! `NameOwnerChanged` of that name *before* it reads `Events(last)`, so nothing falls
//! between the two (a daemon not running at the start is waited for as below, as
//! `attend status --follow` does); then:
//! - a signal with the next seq is printed; one at or below the last is a duplicate and
//!   dropped; one further ahead means events were committed without a signal the
//!   follower saw (a daemon's start-up, a full queue), and `Events(last)` fills the gap;
//! - when a daemon takes the name it catches up with `Events(last)` (the daemon answers
//!   it after its start-up, replayed spool included); while nobody owns the name it only
//!   waits (it never calls, so it never starts a daemon by D-Bus activation);
//! - a catch-up that fails while the name has an owner is retried after a delay that
//!   doubles from [`RETRY_FIRST`] to [`RETRY_MAX`];
//! - when the bus connection closes it connects again on the same schedule, then
//!   subscribes and catches up.
//!
//! Signals are read by tasks of their own into an unbounded queue, so a long catch-up
//! never leaves zbus's bounded signal queue full (which would stall the reply it waits
//! for). Nothing but events goes to stdout; a daemon leaving and coming back is noted on
//! stderr. A reader of stdout that goes away ends the follower even while it waits
//! ([`super::out::reader_gone`]).

use super::client::{call, classify, CliError, Client, EXIT_UNREACHABLE};
use crate::client::EventTuple;
use crate::config::{BUS_NAME, START_HINT};
use std::time::Duration;
use tokio::sync::mpsc;
use zbus::export::futures_core::Stream;

type Result<T> = std::result::Result<T, CliError>;

/// Page size of a catch-up.
pub const PAGE: u32 = 500;
/// First delay before a failed catch-up or a lost bus is tried again.
pub const RETRY_FIRST: Duration = Duration::from_millis(100);
/// Longest delay between two tries.
pub const RETRY_MAX: Duration = Duration::from_secs(5);

/// What the subscription tasks report, in the order each of them saw it.
#[derive(Debug)]
enum Note {
    /// An `Event` signal.
    Event(EventTuple),
    /// `NameOwnerChanged` of the daemon's name: true when it has a new owner.
    Owner(bool),
    /// The bus connection closed.
    Closed,
}

/// Follows the log from `after`, printing each event with `print`; a daemon that is not
/// running yet is waited for as one that went away. Returns only on an error the daemon
/// answered (exit 4 or 2), or when the reader of stdout went away, also while nothing is
/// printed ([`CliError::closed`], exit 0).
pub async fn follow(
    c: &Client,
    after: u64,
    print: &mut dyn FnMut(&EventTuple) -> Result<()>,
) -> Result<i32> {
    tokio::select! {
        r = follow_log(c, after, print) => r,
        () = super::out::reader_gone() => Err(CliError::closed()),
    }
}

async fn follow_log(
    c: &Client,
    after: u64,
    print: &mut dyn FnMut(&EventTuple) -> Result<()>,
) -> Result<i32> {
    let mut f = Follower {
        client: c.clone(),
        last: after,
        print,
        state: State::Live,
        retry: RETRY_FIRST,
    };
    let mut notes = subscribe(&f.client).await?;
    f.try_again().await?;
    loop {
        let note = match f.state {
            State::Retrying(delay) => match tokio::time::timeout(delay, notes.recv()).await {
                Ok(n) => n,
                Err(_) => {
                    f.try_again().await?;
                    continue;
                }
            },
            State::Live | State::Waiting => notes.recv().await,
        };
        match note {
            Some(Note::Event(e)) if e.0 <= f.last => {}
            Some(Note::Event(e)) if e.0 == f.last + 1 => {
                (f.print)(&e)?;
                f.last = e.0;
            }
            // Events committed without a signal seen here: read them.
            Some(Note::Event(_)) => f.retry_catch_up().await?,
            Some(Note::Owner(true)) => {
                if f.state != State::Live {
                    eprintln!("attend: the daemon is back; following from seq {}", f.last);
                }
                f.retry_catch_up().await?;
            }
            Some(Note::Owner(false)) => f.away(State::Waiting),
            Some(Note::Closed) | None => {
                eprintln!(
                    "attend: lost the session bus; connecting again (following from seq {})",
                    f.last
                );
                notes = f.reconnect().await;
                f.try_again().await?;
            }
        }
    }
}

/// Where the follower stands with the daemon.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// The last catch-up succeeded: signals are printed as they come.
    Live,
    /// Nobody owns the daemon's name: wait for `NameOwnerChanged`, call nothing.
    Waiting,
    /// A catch-up failed while the name has an owner: try again after this delay.
    Retrying(Duration),
}

struct Follower<'a> {
    client: Client,
    /// The last seq printed.
    last: u64,
    print: &'a mut dyn FnMut(&EventTuple) -> Result<()>,
    state: State,
    /// The delay of the next retry.
    retry: Duration,
}

impl Follower<'_> {
    /// Prints every event after `last`, page by page, until the log is exhausted.
    async fn catch_up(&mut self) -> Result<()> {
        loop {
            let page = call!(self.client, events(self.last, PAGE))?;
            for e in &page {
                if e.0 > self.last {
                    (self.print)(e)?;
                    self.last = e.0;
                }
            }
            if (page.len() as u32) < PAGE {
                break;
            }
        }
        self.state = State::Live;
        self.retry = RETRY_FIRST;
        Ok(())
    }

    /// [`Follower::catch_up`], where an unreachable daemon is an outage to wait out
    /// (for a new owner when the name has none, else for the retry delay) and only the
    /// daemon's own errors end the follower.
    async fn retry_catch_up(&mut self) -> Result<()> {
        match self.catch_up().await {
            Err(e) if e.code == EXIT_UNREACHABLE => {
                let next = if self.daemon_has_name().await {
                    let delay = self.retry;
                    self.retry = (self.retry * 2).min(RETRY_MAX);
                    State::Retrying(delay)
                } else {
                    State::Waiting
                };
                self.away(next);
                Ok(())
            }
            other => other,
        }
    }

    /// Catches up when the daemon's name has an owner; otherwise waits for one without
    /// calling (a call would start the daemon by D-Bus activation).
    async fn try_again(&mut self) -> Result<()> {
        if self.daemon_has_name().await {
            self.retry_catch_up().await
        } else {
            self.away(State::Waiting);
            Ok(())
        }
    }

    /// Whether the daemon's name has an owner ([`Client::daemon_running`]); false when
    /// the bus does not answer.
    async fn daemon_has_name(&self) -> bool {
        self.client.daemon_running().await.unwrap_or(false)
    }

    /// The daemon went away or does not answer: say so once per outage.
    fn away(&mut self, state: State) {
        if self.state == State::Live {
            eprintln!(
                "attend: the daemon is not running; waiting for it to come back (following \
                 from seq {}; {START_HINT})",
                self.last
            );
        }
        self.state = state;
    }

    /// Connects to the session bus again and subscribes, waiting between tries (the
    /// delay doubles from [`RETRY_FIRST`] to [`RETRY_MAX`]).
    async fn reconnect(&mut self) -> mpsc::UnboundedReceiver<Note> {
        let mut delay = RETRY_FIRST;
        loop {
            tokio::time::sleep(delay).await;
            delay = (delay * 2).min(RETRY_MAX);
            let Ok(client) = Client::connect().await else {
                continue;
            };
            if let Ok(notes) = subscribe(&client).await {
                self.client = client;
                return notes;
            }
        }
    }
}

/// Subscribes to the daemon's `Event` signal and to `NameOwnerChanged` of its name; each
/// is read by a task of its own into the returned queue, which ends with
/// [`Note::Closed`] when the connection closes.
async fn subscribe(c: &Client) -> Result<mpsc::UnboundedReceiver<Note>> {
    let (tx, rx) = mpsc::unbounded_channel();
    let mut events = c.event_messages(Some(PAGE as usize)).await?;
    let dbus = zbus::fdo::DBusProxy::new(&c.conn).await.map_err(classify)?;
    let mut owners = dbus
        .receive_name_owner_changed_with_args(&[(0, BUS_NAME)])
        .await
        .map_err(classify)?;
    let events_tx = tx.clone();
    tokio::spawn(async move {
        while let Some(msg) = next(&mut events).await {
            let Ok(msg) = msg else { break };
            let Some(args) = crate::client::Event::from_message(msg)
                .and_then(|e| e.args().ok().map(|a| (a.seq, a.kind, a.pane, a.data)))
            else {
                continue;
            };
            if events_tx.send(Note::Event(args)).is_err() {
                return;
            }
        }
        let _ = events_tx.send(Note::Closed);
    });
    tokio::spawn(async move {
        while let Some(change) = next(&mut owners).await {
            let Ok(args) = change.args() else { continue };
            if tx.send(Note::Owner(args.new_owner().is_some())).is_err() {
                return;
            }
        }
        let _ = tx.send(Note::Closed);
    });
    Ok(rx)
}

fn next<S: Stream + Unpin>(s: &mut S) -> impl std::future::Future<Output = Option<S::Item>> + '_ {
    std::future::poll_fn(move |cx| std::pin::Pin::new(&mut *s).poll_next(cx))
}

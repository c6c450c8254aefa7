//! The commands waiting for the running search to end, and the rules of that wait: which
//! commands wait and which act at once, which are dropped or refused when they arrive, and
//! when what waits may run or must stop the search first. The session carries out what this
//! type decides; the rules are tested here without a search thread.

use super::variant::SessionError;
use crate::protocol::Command;
use std::collections::VecDeque;

/// Commands that may wait for a running search to end (with the errors of lines after them)...
pub const MAX_PENDING: usize = 256;
/// ...and the bytes of their lines (one line always fits, however long).
pub const MAX_PENDING_BYTES: usize = 1 << 20;

/// A waiting command, or the error of a line that came after one (answered in its turn, so
/// replies keep the order of the lines).
pub(super) type Item = Result<Command, SessionError>;

/// The running search, as far as the queue is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Search {
    Idle,
    /// A search that ends by itself (a time, depth or node limit).
    Timed,
    /// Infinite or pondering: it ends only when told (`stop`, `ponderhit`).
    WaitsForClient,
}

/// What to do with a command that has just arrived.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Arrival {
    /// Carry it out now.
    Run,
    /// A `stop`, `ponderhit` or `gameover` sent after a `go` that still waits: it is that
    /// search's, so it waits its turn (and acts as soon as that search has started).
    ForTheWaitingSearch,
    /// It needs the engine idle, so it waits; a search that would never end by itself is
    /// stopped first.
    Wait { stop_first: bool },
}

/// What [`Pending::push`] did with an item.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Push {
    Queued,
    /// A `stop`, `ponderhit` or `gameover` right behind another would stop nothing more.
    Redundant,
    /// The queue is full: the line is refused.
    Full,
}

/// The next thing to do about what waits.
#[derive(Debug)]
pub(super) enum Step {
    /// Carry out this item, which has left the queue.
    Run(Item),
    /// Stop the running search (it would never end by itself), then ask again.
    StopSearch,
    /// Nothing waits, or what waits needs the search to end first.
    Done,
}

/// The queue, bounded by [`MAX_PENDING`] items and [`MAX_PENDING_BYTES`] bytes of their lines.
#[derive(Default)]
pub(super) struct Pending {
    items: VecDeque<(Item, usize)>,
    bytes: usize,
}

impl Pending {
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// No more lines are taken (but a `stop` and its like: see [`Pending::push`]).
    pub fn is_full(&self) -> bool {
        self.items.len() >= MAX_PENDING || self.bytes >= MAX_PENDING_BYTES
    }

    /// Whether a command waiting here starts another search.
    fn search_waiting(&self) -> bool {
        self.items
            .iter()
            .any(|(item, _)| item.as_ref().is_ok_and(Command::starts_search))
    }

    pub fn arrival(&self, command: &Command, search: Search) -> Arrival {
        if command.is_about_the_search() && self.search_waiting() {
            return Arrival::ForTheWaitingSearch;
        }
        match search {
            Search::Idle => Arrival::Run,
            _ if command.is_immediate() => Arrival::Run,
            Search::Timed => Arrival::Wait { stop_first: false },
            Search::WaitsForClient => Arrival::Wait { stop_first: true },
        }
    }

    /// Queues an item of `bytes` bytes of line. A `stop` (`ponderhit`, `gameover`) for a
    /// waiting search is never refused (serve.md): it passes the cap. One right behind another
    /// says nothing more and is dropped (a `stop` after a `ponderhit` still says something), so
    /// at most two ever pass. One line always fits, however long.
    pub fn push(&mut self, item: Item, bytes: usize) -> Push {
        if item.as_ref().is_ok_and(Command::is_about_the_search) {
            let redundant = match (self.items.back(), &item) {
                (Some((Ok(Command::PonderHit(_)), _)), next) => {
                    matches!(next, Ok(Command::PonderHit(_)))
                }
                (Some((Ok(last), _)), _) => last.is_about_the_search(),
                _ => false,
            };
            if redundant {
                return Push::Redundant;
            }
        } else if self.is_full() {
            return Push::Full;
        }
        self.bytes += bytes;
        self.items.push_back((item, bytes));
        Push::Queued
    }

    /// What to do next, given the search. Behind a running search, a `stop` (`ponderhit`,
    /// `gameover`) first in line acts at once; anything else waits for the search to end, and
    /// stops it first when it would never end by itself, as it would have on arrival.
    pub fn next(&mut self, search: Search) -> Step {
        let Some((front, _)) = self.items.front() else {
            return Step::Done;
        };
        let for_the_search = front.as_ref().is_ok_and(Command::is_about_the_search);
        match search {
            Search::Timed if !for_the_search => return Step::Done,
            Search::WaitsForClient if !for_the_search => return Step::StopSearch,
            _ => {}
        }
        match self.items.pop_front() {
            Some((item, bytes)) => {
                self.bytes -= bytes;
                Step::Run(item)
            }
            None => Step::Done,
        }
    }

    /// Drops everything (the session is given up).
    pub fn clear(&mut self) {
        self.items.clear();
        self.bytes = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{parse_line, GoParams};

    fn command(line: &str) -> Command {
        parse_line(line).expect("a command").expect("not empty")
    }

    fn queue(lines: &[&str]) -> Pending {
        let mut pending = Pending::default();
        for line in lines {
            assert_eq!(pending.push(Ok(command(line)), line.len()), Push::Queued);
        }
        pending
    }

    /// The command `next` hands out, or what else it says.
    fn next(pending: &mut Pending, search: Search) -> String {
        match pending.next(search) {
            Step::Run(Ok(command)) => format!("run {command:?}"),
            Step::Run(Err(e)) => format!("error {e}"),
            Step::StopSearch => "stop the search".to_string(),
            Step::Done => "done".to_string(),
        }
    }

    fn run(line: &str) -> String {
        format!("run {:?}", command(line))
    }

    // 7b25b98: a stop, ponderhit or gameover sent behind a `go` that still waits waits its turn
    // and acts as soon as that search starts; with no search waiting it acts at once.
    #[test]
    fn a_stop_behind_a_waiting_go_waits_its_turn() {
        let pending = queue(&["go infinite"]);
        for line in ["stop", "ponderhit", "gameover win"] {
            for search in [Search::Timed, Search::WaitsForClient] {
                let arrival = pending.arrival(&command(line), search);
                assert_eq!(arrival, Arrival::ForTheWaitingSearch, "{line}");
            }
        }
        let idle_queue = queue(&["d"]);
        for search in [Search::Timed, Search::WaitsForClient] {
            assert_eq!(idle_queue.arrival(&command("stop"), search), Arrival::Run);
        }
        assert_eq!(
            Pending::default().arrival(&command("isready"), Search::WaitsForClient),
            Arrival::Run
        );
    }

    // 7b25b98: the stop waiting behind a `go` acts on the search that `go` started, at once.
    #[test]
    fn a_stop_first_in_line_acts_on_the_search_that_runs() {
        let mut pending = queue(&["go infinite", "stop", "d"]);
        assert_eq!(next(&mut pending, Search::Idle), run("go infinite"));
        assert_eq!(next(&mut pending, Search::WaitsForClient), run("stop"));
        assert_eq!(next(&mut pending, Search::Timed), "done");
        assert_eq!(next(&mut pending, Search::Idle), run("d"));
        assert_eq!(next(&mut pending, Search::Idle), "done");
    }

    // deaf126: any other command (or a bad line's error) behind a search that never ends by
    // itself stops it first, as it would on arrival; behind a timed one it waits.
    #[test]
    fn what_waits_behind_an_infinite_search_stops_it() {
        let mut pending = queue(&["go infinite", "d", "go infinite"]);
        assert_eq!(next(&mut pending, Search::Idle), run("go infinite"));
        assert_eq!(
            next(&mut pending, Search::WaitsForClient),
            "stop the search"
        );
        assert_eq!(next(&mut pending, Search::Timed), "done");
        assert_eq!(next(&mut pending, Search::Idle), run("d"));
        assert_eq!(next(&mut pending, Search::Idle), run("go infinite"));

        let mut errors = Pending::default();
        let error = parse_line("go bogus").expect_err("a bad line");
        assert_eq!(errors.push(Err(error.into()), 8), Push::Queued);
        assert_eq!(next(&mut errors, Search::WaitsForClient), "stop the search");
        assert!(next(&mut errors, Search::Idle).starts_with("error "));

        let arrivals = [
            (Search::Timed, Arrival::Wait { stop_first: false }),
            (Search::WaitsForClient, Arrival::Wait { stop_first: true }),
            (Search::Idle, Arrival::Run),
        ];
        for (search, arrival) in arrivals {
            assert_eq!(Pending::default().arrival(&command("d"), search), arrival);
        }
    }

    // deaf126: stop, ponderhit and gameover pass a full queue; one right behind another is
    // dropped, so at most two pass; any other line is refused.
    #[test]
    fn a_stop_passes_a_full_queue_and_a_repeat_is_dropped() {
        let mut pending = Pending::default();
        while !pending.is_full() {
            assert_eq!(pending.push(Ok(Command::Display), 1), Push::Queued);
        }
        assert_eq!(pending.len(), MAX_PENDING);
        assert_eq!(pending.push(Ok(Command::Display), 1), Push::Full);
        let hit = || Ok(Command::PonderHit(GoParams::default()));
        assert_eq!(pending.push(hit(), 9), Push::Queued);
        assert_eq!(pending.push(hit(), 9), Push::Redundant);
        assert_eq!(pending.push(Ok(Command::Stop), 4), Push::Queued);
        assert_eq!(pending.push(Ok(Command::Stop), 4), Push::Redundant);
        assert_eq!(pending.push(hit(), 9), Push::Redundant);
        assert_eq!(
            pending.push(Ok(Command::GameOver(None)), 8),
            Push::Redundant
        );
        assert_eq!(pending.len(), MAX_PENDING + 2);

        let mut gameover_first = queue(&["gameover lose"]);
        assert_eq!(gameover_first.push(Ok(Command::Stop), 4), Push::Redundant);
        assert_eq!(gameover_first.push(hit(), 9), Push::Redundant);
    }

    // 8768574: every item let in, the ones past the cap too, is counted with its bytes and
    // leaves with them; the byte bound refuses lines, but one line always fits.
    #[test]
    fn every_item_let_in_is_counted_and_leaves_with_its_bytes() {
        let mut pending = Pending::default();
        assert_eq!(
            pending.push(Ok(Command::Display), MAX_PENDING_BYTES + 10),
            Push::Queued
        );
        assert!(pending.is_full());
        assert_eq!(pending.push(Ok(Command::Moves), 1), Push::Full);
        assert_eq!(pending.push(Ok(Command::Stop), 4), Push::Queued);
        assert_eq!(pending.bytes, MAX_PENDING_BYTES + 14);
        assert_eq!(next(&mut pending, Search::Idle), run("d"));
        assert_eq!(pending.bytes, 4);
        assert!(!pending.is_full());
        assert_eq!(next(&mut pending, Search::Idle), run("stop"));
        assert_eq!((pending.bytes, pending.len()), (0, 0));
    }

    #[test]
    fn a_cleared_queue_holds_nothing() {
        let mut pending = queue(&["go infinite", "stop", "d"]);
        pending.clear();
        assert!(pending.is_empty() && !pending.is_full());
        assert_eq!(pending.bytes, 0);
        assert_eq!(next(&mut pending, Search::Idle), "done");
    }
}

//! The jobs that run on the search thread (`go`, `go mate`, `go perft`): starting them, their
//! reports, `stop` and `ponderhit`, and the one `bestmove` that ends each.

use super::report::{info_line, same_report};
use super::variant::SessionError;
use super::{Running, SearchMsg, Session};
use crate::games::rules::Side;
use crate::protocol::driver::Flow;
use crate::protocol::GoParams;
use crate::search::{Control, Info, Limits, Outcome, Report};
use crossbeam_channel::Sender;
use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;
use std::thread;

impl<W: Write> Session<W> {
    /// `go perft N` on its own thread: `isready` is answered and `stop` ends it meanwhile.
    pub(super) fn start_perft(&mut self, depth: u32) -> Result<(), SessionError> {
        let mut notes = Vec::new();
        let job = self.game.perft(depth, &self.options, &mut |l: &str| {
            notes.push(l.to_string())
        });
        for note in notes {
            self.line(&note);
        }
        let job = job?;
        let limits = Limits {
            depth: Some(depth),
            ..Limits::default()
        };
        let control = Arc::new(Control::new(limits, 0));
        let flag = control.flag();
        let tx = self.search_tx.clone();
        let thread = thread::Builder::new()
            .name("perft".into())
            .stack_size(64 << 20)
            .spawn(move || {
                let divide = catch_unwind(AssertUnwindSafe(|| job(flag))).unwrap_or_else(|_| {
                    let text = "error: perft failed".to_string();
                    let _ = tx.send(SearchMsg::Report(Report::Text(text)));
                    None
                });
                let _ = tx.send(SearchMsg::PerftDone(divide));
            })
            .map_err(|error| SessionError::Thread {
                what: "perft",
                error,
            })?;
        self.search = Some(Running {
            control,
            waits_for_client: false,
            held: None,
            thread: Some(thread),
            last_info: None,
        });
        Ok(())
    }

    pub(super) fn finish_perft(&mut self, divide: Option<Vec<(String, u64)>>) {
        if let Some(mut running) = self.search.take() {
            if let Some(handle) = running.thread.take() {
                let _ = handle.join();
            }
        }
        let Some(divide) = divide else {
            self.line("info string perft stopped");
            return;
        };
        let total = divide.iter().fold(0u64, |t, (_, n)| t.saturating_add(*n));
        for (action, count) in divide {
            self.line(&format!("{action}: {count}"));
        }
        self.line(&format!("Nodes searched: {total}"));
    }

    pub(super) fn limits(&self, params: &GoParams) -> Limits {
        let first = self.game.view(&self.options).side_to_move() == Side::First;
        Limits {
            time: if first { params.btime } else { params.wtime },
            inc: if first { params.binc } else { params.winc },
            byoyomi: params.byoyomi,
            movetime: params.movetime,
            depth: params.depth,
            nodes: params.nodes,
            moves_to_go: self.game.moves_to_go(),
            infinite: params.infinite,
            ponder: params.ponder,
        }
    }

    pub(super) fn start_search(&mut self, params: &GoParams) {
        // The table is ready before the clock starts (allocating it could eat a movetime).
        self.prepare();
        let limits = self.limits(params);
        let job = self.game.search(&limits, &self.options);
        // Should the search fail, its one bestmove is still sent: a legal move, if any.
        let fallback = self
            .game
            .view(&self.options)
            .legal_moves()
            .into_iter()
            .next();
        self.spawn(limits, "bestmove resign", move |control, tx| {
            let mut report = |r: Report| {
                // Dropped when SEARCH_EVENTS wait: the loop is stuck writing to a client that
                // does not read, and a search must never wait for its client.
                let _ = tx.try_send(SearchMsg::Report(r));
            };
            let outcome = catch_unwind(AssertUnwindSafe(|| job(control, &mut report)))
                .unwrap_or_else(|_| {
                    let text = "error: the search failed".to_string();
                    let _ = tx.send(SearchMsg::Report(Report::Text(text)));
                    Outcome {
                        info: Info {
                            time_ms: control.elapsed_ms(),
                            ..Info::default()
                        },
                        best: fallback,
                        ponder: None,
                    }
                });
            let _ = tx.send(SearchMsg::Done(outcome));
        });
    }

    /// `go mate [<ms>|infinite]`: runs like a `go` search (`stop`, `isready` and queued commands
    /// behave the same), but answers with one `checkmate ...` line as soon as it ends.
    pub(super) fn start_mate(&mut self, limit: Option<u64>) {
        let Some(job) = self.game.mate(&self.options) else {
            self.line("checkmate notimplemented");
            return;
        };
        let limits = Limits {
            movetime: limit,
            infinite: limit.is_none(),
            ..Default::default()
        };
        self.spawn(limits, "checkmate timeout", move |control, tx| {
            let answer = catch_unwind(AssertUnwindSafe(|| job(control))).unwrap_or_else(|_| {
                let text = "error: the mate search failed".to_string();
                let _ = tx.send(SearchMsg::Report(Report::Text(text)));
                "checkmate timeout".to_string()
            });
            let _ = tx.send(SearchMsg::Mate(answer));
        });
    }

    /// Starts `body` on the search thread with a fresh control block for `limits`.
    pub(super) fn spawn(
        &mut self,
        limits: Limits,
        on_failure: &str,
        body: impl FnOnce(&Control, &Sender<SearchMsg>) + Send + 'static,
    ) {
        let control = Arc::new(Control::new(limits.clone(), self.options.move_overhead_ms));
        let tx = self.search_tx.clone();
        let thread_control = Arc::clone(&control);
        let thread = thread::Builder::new()
            .name("search".into())
            .stack_size(64 << 20)
            .spawn(move || body(&thread_control, &tx));
        match thread {
            Ok(handle) => {
                self.search = Some(Running {
                    control,
                    waits_for_client: limits.waits_for_client(),
                    held: None,
                    last_info: None,
                    thread: Some(handle),
                })
            }
            Err(e) => {
                self.error(&format!("cannot start the search thread: {e}"));
                self.line(on_failure);
            }
        }
    }

    pub(super) fn ponderhit(&mut self, params: &GoParams) {
        let fresh = [
            params.btime,
            params.wtime,
            params.binc,
            params.winc,
            params.byoyomi,
            params.movetime,
        ]
        .iter()
        .any(Option::is_some)
        .then(|| self.limits(params));
        let Some(running) = &mut self.search else {
            return;
        };
        if !running.control.is_pondering() {
            return;
        }
        running.control.ponderhit(fresh);
        running.waits_for_client = running.control.limits().infinite;
        if !running.waits_for_client {
            if let Some(outcome) = running.held.take() {
                self.finish(outcome);
            }
        }
    }

    /// Asks a running search to stop; a held bestmove is sent at once.
    pub(super) fn stop_search(&mut self) {
        let Some(running) = &mut self.search else {
            return;
        };
        running.control.stop();
        running.waits_for_client = false;
        if let Some(outcome) = running.held.take() {
            self.finish(outcome);
        }
    }

    /// Blocks until the running search has sent its bestmove.
    pub(super) fn wait_for_search(&mut self) {
        while self.search.is_some() {
            match self.search_rx.recv() {
                Ok(msg) => {
                    self.on_search(msg);
                }
                Err(_) => break,
            }
        }
    }

    /// `quit`: the input ends here, and searches do not get their time. The running search is
    /// stopped; the commands waiting behind it run in order, each search they start stopped
    /// at once (every `go` gets its `bestmove`).
    pub(super) fn quit(&mut self) {
        loop {
            self.stop_search();
            if self.search.is_some() {
                // Its end (and the bestmove) comes as an event.
                let Ok(msg) = self.search_rx.recv() else {
                    return;
                };
                self.on_search(msg);
                continue;
            }
            // Idle: what waits runs until one of the commands starts another search.
            if self.drain_pending() == Flow::Quit || self.search.is_none() {
                return;
            }
        }
    }

    pub(super) fn on_search(&mut self, msg: SearchMsg) -> Flow {
        match msg {
            SearchMsg::Report(Report::Info(info)) => {
                let line = info_line(&info);
                self.line(&line);
                if let Some(running) = &mut self.search {
                    running.last_info = Some(info);
                }
            }
            SearchMsg::Report(Report::Text(text)) => self.line(&format!("info string {text}")),
            SearchMsg::PerftDone(divide) => self.finish_perft(divide),
            SearchMsg::Done(outcome) => {
                let Some(running) = &mut self.search else {
                    return Flow::Continue;
                };
                if running.waits_for_client {
                    running.held = Some(outcome);
                } else {
                    self.finish(outcome);
                }
            }
            SearchMsg::Mate(answer) => {
                // A mate answer is never held: `go mate infinite` answers when it knows.
                if let Some(mut running) = self.search.take() {
                    if let Some(handle) = running.thread.take() {
                        let _ = handle.join();
                    }
                }
                self.line(&answer);
            }
        }
        self.drain_pending()
    }

    /// Sends the final info line and the one `bestmove` of this search.
    pub(super) fn finish(&mut self, outcome: Outcome) {
        let mut last_info = None;
        if let Some(mut running) = self.search.take() {
            if let Some(handle) = running.thread.take() {
                let _ = handle.join();
            }
            last_info = running.last_info;
        }
        if !same_report(last_info.as_ref(), &outcome.info) {
            let line = info_line(&outcome.info);
            self.line(&line);
        }
        let bestmove = match (&outcome.best, &outcome.ponder) {
            (None, _) => "bestmove resign".to_string(),
            (Some(best), Some(ponder)) => format!("bestmove {best} ponder {ponder}"),
            (Some(best), None) => format!("bestmove {best}"),
        };
        self.line(&bestmove);
    }
}

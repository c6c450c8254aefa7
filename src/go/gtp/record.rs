//! Game records in GTP: `loadsgf <file> [move number]` and `printsgf [file]`, as GNU Go has
//! them, through the one SGF reader and writer (`go::record`). The win rates of the engine's
//! own moves go into the record as Sabaki writes them (`SBKV`, black's win rate in percent).

use super::{Failure, Gtp};
use crate::files::read_record_file;
use crate::games::record::{Tags, MAX_RECORD_BYTES};
use crate::go::{record, Color, Position};

impl Gtp {
    /// `loadsgf <file> [move number] [game N]`: the file's (game N's) main line with its whole history (so `undo`
    /// steps back through it), up to but not including move `n` (counting the file's `B`/`W`
    /// properties from 1 as GNU Go does, passes given included, a pass read between two moves
    /// of one colour not; `n` past the end or none: the whole game), and the file's komi.
    /// Replies with the colour to move (move `n`'s colour).
    pub(super) fn loadsgf(&mut self, args: &[&str]) -> Result<String, Failure> {
        // ryoshi's own last `game N` picks game N (from 1) of a collection.
        let (args, game) = match args {
            [head @ .., "game", n] if !head.is_empty() => match n.parse::<u128>() {
                Ok(0) | Err(_) => return Err(Failure::GameNumber),
                Ok(n) => (head, usize::try_from(n).unwrap_or(usize::MAX)),
            },
            _ => (args, 1),
        };
        if args.is_empty() || args.len() > 2 {
            return Err(Failure::LoadsgfArguments);
        }
        let path = args[0];
        let cannot = |why: String| Failure::CannotLoad {
            path: path.into(),
            why,
        };
        let text = read_record_file(path, MAX_RECORD_BYTES).map_err(|e| cannot(e.to_string()))?;
        // A number below 1 is before move 1 too; one past `usize` is past the end.
        let limit = match args.get(1) {
            None => None,
            Some(n) => match n.parse::<i128>() {
                Ok(n) => Some(usize::try_from(n.max(1)).unwrap_or(usize::MAX)),
                Err(_) => return Err(Failure::NotInteger("move number")),
            },
        };
        let (game, given) = record::read_given(&text, game).map_err(|e| cannot(e.to_string()))?;
        // Move n's place in the game, the other side's pass read before it included.
        let played = limit
            .and_then(|n| given.get(n.saturating_sub(1)).copied())
            .unwrap_or(game.moves.len());
        // The replay's history is as long as the moves: the text and the move numbers go
        // first, so that the peak stays within 16x the file (issue 70).
        drop((text, given));
        let mut position: Position = game.start.game.clone();
        for &mv in game.moves.iter().take(played) {
            position
                .play(mv)
                .map_err(|e| cannot(format!("replaying the main line: {e}")))?;
        }
        if let Some(komi) = game
            .tags
            .get("KM")
            .and_then(|k| k.trim().parse::<f64>().ok())
            .filter(|k| k.abs() <= super::setup::MAX_KOMI)
        {
            self.komi = komi;
        }
        let stones = game
            .tags
            .get("HA")
            .and_then(|h| h.trim().parse::<usize>().ok())
            .filter(|&n| n >= 2);
        self.new_game(position);
        self.handicap = stones.map(|n| (0, n));
        Ok(match self.game.to_move {
            Color::Black => "black".into(),
            Color::White => "white".into(),
        })
    }

    /// `printsgf [file]`: the game from its start in SGF (the response), or written to `file`
    /// (an empty response), with the komi, the handicap and the engine's win rates.
    pub(super) fn printsgf(&self, args: &[&str]) -> Result<String, Failure> {
        if args.len() > 1 {
            return Err(Failure::Arguments {
                command: "printsgf".into(),
                count: 1,
            });
        }
        let text = self.sgf();
        match args.first() {
            None => Ok(text.trim_end().to_string()),
            Some(path) => crate::files::write_file(path, &text)
                .map(|_| String::new())
                .map_err(|e| Failure::CannotWrite {
                    path: (*path).into(),
                    why: e.to_string(),
                }),
        }
    }

    /// The SGF of the game so far.
    pub fn sgf(&self) -> String {
        let mut tags = Tags::default();
        tags.set("KM", self.komi.to_string());
        if let Some((_, n)) = self.handicap {
            tags.set("HA", n.to_string());
        }
        let mut rec = record::from_position(&self.game, tags);
        // The notes follow the record's moves, where a move out of turn is the other side's
        // pass first (as `from_position` writes it).
        let start = self.game.start();
        let mut to_move = start.to_move;
        let mut notes = Vec::with_capacity(rec.moves.len());
        for (i, (color, _)) in self.game.moves().into_iter().enumerate() {
            if color != to_move {
                notes.push(String::new());
            }
            notes.push(
                self.winrates
                    .get(i)
                    .copied()
                    .flatten()
                    .map_or(String::new(), |w| format!("{:.2}", w * 100.0)),
            );
            to_move = color.other();
        }
        rec.notes = notes;
        record::write(&rec)
    }

    /// Keeps the win rates beside the moves: `winrate` (black's, a fraction) for the move just
    /// played, `None` for a move the engine did not search.
    pub(super) fn note_move(&mut self, winrate: Option<f64>) {
        let n = self.game.moves().len();
        self.winrates.truncate(n.saturating_sub(1));
        self.winrates.resize(n.saturating_sub(1), None);
        self.winrates.push(winrate);
    }
}

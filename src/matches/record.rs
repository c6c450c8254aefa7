//! A finished game in its game's own record format (an SGF, a GGF, a kifu),
//! written beside the text record through the game's [`Recordable`](crate::games::record)
//! impl, which the runner reaches through [`Rules::record_format`]: it names no game.

use super::config::{Config, TimeControl};
use super::game::FinishedGame;
use super::opening::{Opening, OpeningError};
use crate::games::record::{GameRecord, RecordError, Tags, TimeTerms};
use crate::games::rules::Rules;
use crate::registry::{Game, Visit};

/// A record written: its file extension (`sgf`, `ggf`, `kifu`) and its text.
pub struct Written {
    pub extension: String,
    pub text: String,
}

/// The record of `game` in its game's format, from its start through every move (the opening's
/// included), with the players, the date (`date`, `YYYY-MM-DD`), the result and why, and what
/// the match's settings add (the game's own options, a clock's terms). `None` for a game
/// without a record format. A move the rules refuse (a bad opening) ends the record before it.
pub fn write(config: &Config, game: &FinishedGame, date: &str) -> Option<Written> {
    struct Write<'a> {
        config: &'a Config,
        game: &'a FinishedGame,
        date: &'a str,
    }
    impl Visit for Write<'_> {
        type Output = Option<Written>;
        fn visit<R: Rules>(self) -> Option<Written> {
            let format = R::record_format()?;
            let game = self.game;
            let mut position = R::from_text(&game.start_position).ok()?;
            let mut record = GameRecord::new(position.clone());
            let moves = game.job.opening.moves.iter();
            for text in moves.chain(game.moves.iter().map(|m| &m.mv)) {
                let Some(mv) = position.parse_move(text).ok() else {
                    break;
                };
                if position.play(mv).is_err() {
                    break;
                }
                record.moves.push(mv);
            }
            record.tags = Tags {
                date: Some(self.date.to_string()),
                players: [Some(game.first.clone()), Some(game.second.clone())],
                result: Some((format.result_tag)(game.end, game.score)),
                reason: Some(game.end.reason.to_string()),
                extra: Vec::new(),
            };
            (format.match_tags)(&mut record.tags, &self.config.option_values());
            if let TimeControl::Clock {
                main_ms,
                inc_ms,
                byoyomi_ms,
            } = self.config.time_control()
            {
                let terms = TimeTerms {
                    main_ms,
                    inc_ms,
                    period_ms: byoyomi_ms,
                    periods: u32::from(byoyomi_ms > 0),
                };
                (format.time_tags)(&mut record.tags, &terms);
            }
            Some(Written {
                extension: format.extension(),
                text: (format.write)(&record),
            })
        }
    }
    config.play.variant.visit(Write { config, game, date })
}

/// Today's date, `YYYY-MM-DD` (UTC), as the records' date tag.
pub fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let (year, month, day) = crate::logging::civil_date(secs / 86_400);
    format!("{year:04}-{month:02}-{day:02}")
}

/// The opening a game record holds, read by the game's record module: its start (as `sfen`) and
/// its main line's first `cut` moves (all of them when `None`), in protocol notation.
pub fn opening(game: Game, text: &str, cut: Option<usize>) -> Result<Opening, OpeningError> {
    opening_and_players(game, text, cut).map(|(opening, _)| opening)
}

/// [`opening`], with the players the record names (in its format's tags), the first player's
/// first.
pub fn opening_and_players(
    game: Game,
    text: &str,
    cut: Option<usize>,
) -> Result<(Opening, [Option<String>; 2]), OpeningError> {
    read_game(game, text, 1, cut, false)
}

/// The game a `loadrecordtext` argument holds (a record, and a last `game N` that picks game N
/// of a collection), as the pages play it: [`opening_and_players`] with every pass the rules
/// made written as a `pass` move after the placement that caused it (an automatic pass, which
/// `position` accepts right there), so that a move list pairs each side's moves.
pub fn game_with_passes(
    game: Game,
    text: &str,
) -> Result<(Opening, [Option<String>; 2]), OpeningError> {
    let line = format!(" {text}");
    let args = crate::protocol::Args::new("", &line);
    let (text, n) = args
        .rest_and_game("expected a record")
        .map_err(|e| OpeningError::Record(RecordError::property("game", text, e.message)))?;
    read_game(game, text, n.unwrap_or(1), None, true)
}

fn read_game(
    game: Game,
    text: &str,
    n: usize,
    cut: Option<usize>,
    passes: bool,
) -> Result<(Opening, [Option<String>; 2]), OpeningError> {
    struct Read<'a> {
        text: &'a str,
        n: usize,
        cut: Option<usize>,
        passes: bool,
    }
    impl Visit for Read<'_> {
        type Output = Result<(Opening, [Option<String>; 2]), OpeningError>;
        fn visit<R: Rules>(self) -> Self::Output {
            let format = R::record_format().ok_or(OpeningError::NoRecordFormat(R::NAME))?;
            let record = (format.read_game)(self.text, self.n)?;
            let mut position = record.start.clone();
            let sfen = Some(position.to_text());
            let cut = self.cut.unwrap_or(usize::MAX);
            let mut moves = Vec::new();
            for (i, &mv) in record.moves.iter().take(cut).enumerate() {
                let text = position.move_text(mv);
                let mover = position.side_to_move();
                // The reader checked every move; a refusal here is still a bad record.
                position.play(mv).map_err(|e| {
                    OpeningError::Record(crate::games::record::RecordError::Move {
                        ply: i + 1,
                        text: text.clone(),
                        why: e.to_string(),
                    })
                })?;
                moves.push(text);
                // The side to move did not change: the other side had no move and passed.
                if self.passes && position.outcome().is_none() && position.side_to_move() == mover {
                    moves.push("pass".to_string());
                }
            }
            Ok((Opening { sfen, moves }, record.tags.players))
        }
    }
    game.visit(Read {
        text,
        n,
        cut,
        passes,
    })
}

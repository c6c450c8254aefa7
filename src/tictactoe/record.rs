//! Tic-tac-toe's record: the moves separated by spaces, after `from <position>` on a first line
//! when the game did not start from the empty board.

use super::Board;
use crate::games::record::{GameRecord, RecordError, Recordable};
use crate::games::rules::Rules;

impl Recordable for Board {
    const FORMAT: &'static str = "TTT";

    fn write_record(record: &GameRecord<Self>) -> String {
        let mut text = String::new();
        if record.start != Board::start() {
            text = format!("from {}\n", record.start.to_text());
        }
        let mut board = record.start;
        let moves: Vec<String> = record
            .moves
            .iter()
            .map(|&mv| {
                let name = board.move_text(mv);
                let _ = board.play(mv);
                name
            })
            .collect();
        text + &moves.join(" ") + "\n"
    }

    /// A record holds one game: there is no collection of them.
    fn read_game(text: &str, n: usize) -> Result<GameRecord<Self>, RecordError> {
        if n != 1 {
            return Err(RecordError::NoGame {
                format: Self::FORMAT,
                game: n,
                games: 1,
            });
        }
        let (start, moves) = match text.trim_start().strip_prefix("from ") {
            Some(rest) => {
                let (position, moves) = rest.split_once('\n').unwrap_or((rest, ""));
                let start = Board::from_text(position).map_err(|e| RecordError::Property {
                    name: "from".into(),
                    value: position.into(),
                    why: e.to_string(),
                })?;
                (start, moves)
            }
            None => (Board::start(), text),
        };
        let mut record = GameRecord::new(start);
        let mut board = start;
        for (i, word) in moves.split_whitespace().enumerate() {
            let why = |e: super::TicTacToeError| RecordError::Move {
                ply: i + 1,
                text: word.into(),
                why: e.to_string(),
            };
            let mv = board.parse_move(word).map_err(why)?;
            board.play(mv).map_err(why)?;
            record.moves.push(mv);
        }
        Ok(record)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_reads_back_and_names_a_bad_ply() {
        let text = "b2 a1 c3\n";
        let game = Board::read_record(text).unwrap();
        assert_eq!(game.moves, [4, 6, 2]);
        assert_eq!(Board::write_record(&game), text);
        let from = "from X../.../... o\nb2\n";
        assert_eq!(
            Board::write_record(&Board::read_record(from).unwrap()),
            from
        );
        let bad = Board::read_record("b2 b2").unwrap_err().to_string();
        assert!(
            bad.contains("at ply 2") && bad.contains("b2 is taken"),
            "{bad}"
        );
    }
}

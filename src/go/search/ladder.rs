//! Ladders (shicho) for the tree's priors: whether a block chased by ataris, each answered by
//! its extension to two liberties, ends captured. Read as Pachi and Fuego read them: the
//! attacker ataris from one of the block's two liberties, the defender extends at the other;
//! the ladder breaks when an extension reaches three liberties or when the defender can
//! capture a chasing block in atari. Both ataris of each step are read, depth first on a
//! stack of boards (no recursion), within [`max_steps`] steps and [`MAX_TRIALS`] ataris.

use super::fast::FastBoard;
use crate::go::board::{BLACK, WHITE};

/// The attacker's atari and the defender's extension are one step; a ladder runs at most
/// across the board and back.
fn max_steps(board: &FastBoard) -> usize {
    3 * board.size()
}

/// Ataris tried in one read at most: a ladder is one line, each step's other atari is
/// refuted at once, so a real ladder takes about two a step.
const MAX_TRIALS: usize = 200;

/// Scratch boards of a position's size, allocated by the caller that needs them.
pub struct Reader {
    board: FastBoard,
    /// One board a step of the line being read, grown as deep as a read went.
    pool: Vec<FastBoard>,
}

impl Reader {
    pub fn new(board: &FastBoard) -> Reader {
        Reader {
            board: board.clone(),
            pool: Vec::new(),
        }
    }

    /// Whether the side to move's stone at `p` extends a block caught in a ladder: after the
    /// move the block has two liberties and the opponent's ataris capture it.
    pub fn extension_caught(&mut self, position: &FastBoard, p: usize) -> bool {
        self.board.copy_from(position);
        self.board.play(p as u16);
        self.board.liberties(p, 3) == 2 && self.caught(p)
    }

    /// Whether the side to move's stone at `p` ataris an opponent block (the one through
    /// `target`) that cannot escape: its extension is caught in a ladder, or it has none.
    pub fn atari_captures(&mut self, position: &FastBoard, p: usize, target: usize) -> bool {
        self.board.copy_from(position);
        self.board.play(p as u16);
        if !self.board.in_atari(target) || self.board.in_atari(p) {
            return false;
        }
        if chaser_in_atari(&self.board, target) {
            return false;
        }
        let escape = self.board.atari_liberty(target);
        if !self.board.is_legal(escape) {
            return true;
        }
        self.board.play(escape as u16);
        match self.board.liberties(target, 3) {
            0 | 1 => true,
            2 => self.caught(target),
            _ => false,
        }
    }

    /// Whether the block through `target` (two liberties, the attacker to move on `board`) is
    /// caught: some sequence of ataris, each answered by the extension, leaves it one liberty
    /// or none. A depth-first walk over the attacker's two choices a step, on a stack of
    /// boards (no recursion), within [`max_steps`] steps and [`MAX_TRIALS`] ataris tried.
    fn caught(&mut self, target: usize) -> bool {
        let steps = max_steps(&self.board);
        self.ensure(1);
        self.pool[0].copy_from(&self.board);
        // Per step of the line being read: the attacker's next choice (0, 1; 2 = both tried).
        let mut choice: Vec<u8> = vec![0];
        let mut trials = 0;
        while let Some(depth) = choice.len().checked_sub(1) {
            let k = choice[depth];
            if k == 2 || depth >= steps {
                choice.pop();
                continue;
            }
            if trials == MAX_TRIALS {
                return false;
            }
            trials += 1;
            choice[depth] += 1;
            let Some(libs) = self.pool[depth].two_liberties(target) else {
                choice.pop();
                continue;
            };
            let (atari, escape) = if k == 0 {
                (libs[0], libs[1])
            } else {
                (libs[1], libs[0])
            };
            self.ensure(depth + 2);
            let (done, rest) = self.pool.split_at_mut(depth + 1);
            let trial = &mut rest[0];
            trial.copy_from(&done[depth]);
            if !trial.is_legal(atari) {
                continue;
            }
            trial.play(atari as u16);
            // A chasing stone left in atari, or any chaser beside the block in atari, is
            // captured instead of extending: the ladder is broken there.
            if trial.in_atari(atari) || chaser_in_atari(trial, target) {
                continue;
            }
            if !trial.is_legal(escape) {
                return true;
            }
            trial.play(escape as u16);
            match trial.liberties(target, 3) {
                0 | 1 => return true,
                2 => choice.push(0),
                _ => {}
            }
        }
        false
    }

    /// At least `n` boards on the stack.
    fn ensure(&mut self, n: usize) {
        while self.pool.len() < n {
            self.pool.push(self.board.clone());
        }
    }
}

/// Whether an opponent block beside the block through `target` is in atari (the defender, to
/// move, could capture it).
fn chaser_in_atari(board: &FastBoard, target: usize) -> bool {
    let own = board.get(target);
    board.block_stones(target).any(|s| {
        board.neighbors(s).iter().any(|&n| {
            let c = board.get(n);
            c != own && (c == BLACK || c == WHITE) && board.in_atari(n)
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::notation::{parse_position, parse_vertex};
    use crate::go::Position;

    /// A 9×9 position from `stones` ("B C4 B3 ..." / "W C3 ..." lists) and the side to move.
    fn position(black: &str, white: &str, to_move: &str) -> FastBoard {
        let empty = ["........."; 9].join("/");
        let fields: Vec<String> = ["9", &empty, to_move]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let (mut board, to_move) = parse_position(&fields).unwrap();
        for (stones, cell) in [(black, BLACK), (white, WHITE)] {
            for v in stones.split_whitespace() {
                board.set(at(v), cell);
            }
        }
        FastBoard::from_game(&Position::new(board, to_move))
    }

    fn at(vertex: &str) -> usize {
        parse_vertex(vertex, 9).unwrap().unwrap()
    }

    /// White's C3 in atari, running to the upper right: black C4 B3 D2 C2 (C2 the atari).
    const CHASERS: &str = "C4 B3 D2 C2";

    #[test]
    fn an_open_ladder_catches_the_extension() {
        let board = position(CHASERS, "C3", "w");
        let mut reader = Reader::new(&board);
        assert!(reader.extension_caught(&board, at("D3")));
    }

    #[test]
    fn a_ladder_breaker_on_the_way_lets_it_out() {
        // White stones near the diagonal the ladder runs along, one at a time.
        for breaker in ["G7", "F7", "H8", "E6"] {
            let board = position(CHASERS, &format!("C3 {breaker}"), "w");
            let mut reader = Reader::new(&board);
            assert!(!reader.extension_caught(&board, at("D3")), "{breaker}");
        }
        // A black stone there changes nothing.
        let board = position(&format!("{CHASERS} G7"), "C3", "w");
        assert!(Reader::new(&board).extension_caught(&board, at("D3")));
    }

    #[test]
    fn a_chaser_in_atari_breaks_the_ladder() {
        // Black's D2 in atari (white C1 E2 D1 around it): white captures it instead.
        let board = position(CHASERS, "C3 C1 E2 D1", "w");
        assert!(!Reader::new(&board).extension_caught(&board, at("D3")));
    }

    #[test]
    fn a_ladder_at_the_edge_and_into_the_corner() {
        // The same shape in the upper right: the chase ends on the first line.
        let board = position("F7 E6 G5 F5", "F6", "w");
        assert!(Reader::new(&board).extension_caught(&board, at("G6")));
        // Pushed along the first line into black's stone: A5 in atari (black A6 B5), extended
        // to A4 it has two liberties (A3, B4); black's atari at B4 leaves it A3, then A2 and
        // black's A1 take it.
        let board = position("A6 B5 A1", "A5", "w");
        assert!(Reader::new(&board).extension_caught(&board, at("A4")));
        // Without black's A1 (and with a white stone at B2 to reach) it gets out.
        let board = position("A6 B5", "A5 B2", "w");
        assert!(!Reader::new(&board).extension_caught(&board, at("A4")));
    }

    #[test]
    fn an_atari_that_starts_a_working_ladder_captures() {
        let without = position("C4 B3 D2", "C3", "b");
        assert!(Reader::new(&without).atari_captures(&without, at("C2"), at("C3")));
        let broken = position("C4 B3 D2", "C3 G7", "b");
        assert!(!Reader::new(&broken).atari_captures(&broken, at("C2"), at("C3")));
        // An atari whose stone is left in atari captures nothing.
        let counter = position("C4 B3 D2", "C3 B2 D1 E2", "b");
        assert!(!Reader::new(&counter).atari_captures(&counter, at("C2"), at("C3")));
    }
}

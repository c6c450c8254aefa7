//! A plain-array Othello, written the obvious way (walk eight directions square by square),
//! checked against the bitboards on seeded random games: legal moves, flips, passes, game end.

use ryoshi::othello::{flips, Board, Position};

const DIRS: [(i32, i32); 8] = [
    (-1, -1),
    (-1, 0),
    (-1, 1),
    (0, -1),
    (0, 1),
    (1, -1),
    (1, 0),
    (1, 1),
];

/// 1 black, -1 white, 0 empty; index = row * 8 + file (a1 = 0, h1 = 7, a2 = 8).
#[derive(Clone)]
struct Plain {
    cells: [i8; 64],
    to_move: i8,
}

impl Plain {
    fn start() -> Plain {
        let mut cells = [0i8; 64];
        cells[27] = -1; // d4
        cells[36] = -1; // e5
        cells[28] = 1; // e4
        cells[35] = 1; // d5
        Plain { cells, to_move: 1 }
    }

    fn flips(&self, sq: usize, p: i8) -> Vec<usize> {
        if self.cells[sq] != 0 {
            return Vec::new();
        }
        let (r, f) = ((sq / 8) as i32, (sq % 8) as i32);
        let mut out = Vec::new();
        for (dr, df) in DIRS {
            let mut line = Vec::new();
            let (mut y, mut x) = (r + dr, f + df);
            while (0..8).contains(&y)
                && (0..8).contains(&x)
                && self.cells[(y * 8 + x) as usize] == -p
            {
                line.push((y * 8 + x) as usize);
                y += dr;
                x += df;
            }
            if !line.is_empty()
                && (0..8).contains(&y)
                && (0..8).contains(&x)
                && self.cells[(y * 8 + x) as usize] == p
            {
                out.extend(line);
            }
        }
        out.sort();
        out
    }

    fn moves(&self, p: i8) -> Vec<usize> {
        (0..64)
            .filter(|&sq| !self.flips(sq, p).is_empty())
            .collect()
    }

    fn play(&mut self, sq: usize) {
        let p = self.to_move;
        for f in self.flips(sq, p) {
            self.cells[f] = p;
        }
        self.cells[sq] = p;
        self.to_move = -p;
    }

    fn as_position(&self) -> Position {
        let mut black = 0u64;
        let mut white = 0u64;
        for (sq, &c) in self.cells.iter().enumerate() {
            match c {
                1 => black |= 1 << sq,
                -1 => white |= 1 << sq,
                _ => {}
            }
        }
        Position::from_colours(black, white, self.to_move == 1)
    }
}

fn bits(list: &[usize]) -> u64 {
    list.iter().fold(0, |acc, &s| acc | 1 << s)
}

struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

#[test]
fn bitboards_agree_with_the_plain_board_on_random_games() {
    let mut rng = SplitMix(20261129);
    let mut passes = 0;
    let mut games = 0;
    for _ in 0..2000 {
        let mut plain = Plain::start();
        let mut pos = Position::START;
        loop {
            assert_eq!(plain.as_position(), pos);
            let me = plain.to_move;
            let legal = plain.moves(me);
            let board: Board = pos.board;
            assert_eq!(board.moves(), bits(&legal), "{}", pos.to_text());
            // Flips of every empty square, legal or not.
            for sq in 0..64u32 {
                if (board.player | board.opponent) >> sq & 1 == 0 {
                    let expected = bits(&plain.flips(sq as usize, me));
                    assert_eq!(flips(board.player, board.opponent, sq), expected);
                }
            }
            if legal.is_empty() {
                let theirs = plain.moves(-me);
                assert_eq!(board.is_game_over(), theirs.is_empty());
                if theirs.is_empty() {
                    games += 1;
                    break;
                }
                passes += 1;
                assert!(pos.forced_pass().is_some());
                plain.to_move = -me;
                pos = pos.pass();
                continue;
            }
            assert!(pos.forced_pass().is_none());
            let sq = legal[(rng.next() % legal.len() as u64) as usize];
            plain.play(sq);
            pos = pos.play(sq as u32).expect("legal move");
            assert!(pos.board.play(99).is_none());
        }
    }
    assert_eq!(games, 2000);
    assert!(passes > 100, "random games should meet passes: {passes}");
}

/// Perft on the plain board, Edax's convention written out: a forced pass is a ply, a finished
/// game contributes nothing.
fn plain_perft(b: &Plain, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let legal = b.moves(b.to_move);
    if legal.is_empty() {
        if b.moves(-b.to_move).is_empty() {
            return 0;
        }
        let mut passed = b.clone();
        passed.to_move = -b.to_move;
        return plain_perft(&passed, depth - 1);
    }
    legal
        .iter()
        .map(|&sq| {
            let mut next = b.clone();
            next.play(sq);
            plain_perft(&next, depth - 1)
        })
        .sum()
}

#[test]
fn perft_agrees_with_the_plain_board() {
    use ryoshi::othello::perft::leaves;
    let table = [1u64, 4, 12, 56, 244, 1396, 8200];
    for (d, &n) in table.iter().enumerate() {
        assert_eq!(plain_perft(&Plain::start(), d as u32), n);
    }
    // And from positions deep in random games, where passes and game ends happen.
    let mut rng = SplitMix(77);
    let mut checked = 0;
    while checked < 40 {
        let mut plain = Plain::start();
        let plies = 30 + rng.next() % 28;
        for _ in 0..plies {
            let mut legal = plain.moves(plain.to_move);
            if legal.is_empty() {
                plain.to_move = -plain.to_move;
                legal = plain.moves(plain.to_move);
                if legal.is_empty() {
                    break;
                }
            }
            let sq = legal[(rng.next() % legal.len() as u64) as usize];
            plain.play(sq);
        }
        let pos = plain.as_position();
        for d in 1..=4 {
            assert_eq!(
                leaves(&pos.board, d),
                plain_perft(&plain, d),
                "{}",
                pos.to_text()
            );
        }
        checked += 1;
    }
}

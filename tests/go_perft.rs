//! The fast board against a slow, obviously correct one: a plain grid with recursive flood
//! fills, written here from the rules. Perft counts go through the real binary (`go perft`);
//! random games compare legal moves and boards after every move.

mod common;

use ryoshi::go::board::{BLACK, EMPTY, WHITE};
use ryoshi::go::{Board, Color, Position};
use ryoshi::rng::SplitMix64 as Rng;

#[derive(Clone, PartialEq, Eq, Debug)]
struct Naive {
    n: usize,
    g: Vec<Vec<u8>>,
    to_move: u8,
    ko: Option<(usize, usize)>,
}

impl Naive {
    fn new(n: usize) -> Naive {
        Naive {
            n,
            g: vec![vec![EMPTY; n]; n],
            to_move: BLACK,
            ko: None,
        }
    }

    fn nbrs(&self, r: usize, c: usize) -> Vec<(usize, usize)> {
        let mut v = Vec::new();
        if r > 0 {
            v.push((r - 1, c));
        }
        if r + 1 < self.n {
            v.push((r + 1, c));
        }
        if c > 0 {
            v.push((r, c - 1));
        }
        if c + 1 < self.n {
            v.push((r, c + 1));
        }
        v
    }

    fn group(&self, r: usize, c: usize, seen: &mut Vec<(usize, usize)>) {
        if seen.contains(&(r, c)) {
            return;
        }
        seen.push((r, c));
        for (a, b) in self.nbrs(r, c) {
            if self.g[a][b] == self.g[r][c] {
                self.group(a, b, seen);
            }
        }
    }

    fn liberties(&self, r: usize, c: usize) -> usize {
        let mut stones = Vec::new();
        self.group(r, c, &mut stones);
        let mut libs = Vec::new();
        for &(a, b) in &stones {
            for (x, y) in self.nbrs(a, b) {
                if self.g[x][y] == EMPTY && !libs.contains(&(x, y)) {
                    libs.push((x, y));
                }
            }
        }
        libs.len()
    }

    /// The position after the side to move plays (r, c), or None when illegal.
    fn play(&self, r: usize, c: usize) -> Option<Naive> {
        if self.g[r][c] != EMPTY || self.ko == Some((r, c)) {
            return None;
        }
        let me = self.to_move;
        let them = 3 - me;
        let mut next = self.clone();
        next.g[r][c] = me;
        let mut taken = Vec::new();
        for (a, b) in self.nbrs(r, c) {
            if next.g[a][b] == them && next.liberties(a, b) == 0 {
                let mut stones = Vec::new();
                next.group(a, b, &mut stones);
                for &(x, y) in &stones {
                    next.g[x][y] = EMPTY;
                    if !taken.contains(&(x, y)) {
                        taken.push((x, y));
                    }
                }
            }
        }
        if next.liberties(r, c) == 0 {
            return None;
        }
        let mut own = Vec::new();
        next.group(r, c, &mut own);
        next.ko = if taken.len() == 1 && own.len() == 1 && next.liberties(r, c) == 1 {
            Some(taken[0])
        } else {
            None
        };
        next.to_move = them;
        Some(next)
    }

    fn pass(&self) -> Naive {
        let mut next = self.clone();
        next.ko = None;
        next.to_move = 3 - self.to_move;
        next
    }

    fn legal(&self) -> Vec<(usize, usize)> {
        let mut v = Vec::new();
        for r in 0..self.n {
            for c in 0..self.n {
                if self.play(r, c).is_some() {
                    v.push((r, c));
                }
            }
        }
        v
    }

    fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        self.legal()
            .into_iter()
            .map(|(r, c)| self.play(r, c).unwrap().perft(depth - 1))
            .sum()
    }
}

fn same_board(fast: &Board, naive: &Naive) -> bool {
    (0..naive.n).all(|r| (0..naive.n).all(|c| fast.get(fast.point(r, c)) == naive.g[r][c]))
}

fn stones(board: &Board) -> usize {
    board
        .cells()
        .iter()
        .filter(|&&x| x == BLACK || x == WHITE)
        .count()
}

#[test]
fn perft_through_the_binary_matches_the_naive_rules() {
    for (size, depth) in [(2usize, 6u32), (3, 4), (4, 3)] {
        let naive = Naive::new(size).perft(depth);
        let rows = vec![".".repeat(size); size].join("/");
        let input = format!(
            "setoption name USI_Variant value go\nposition sfen {size} {rows} b\ngo perft {depth}\n"
        );
        let out = common::transcript(input.as_bytes());
        let total = out
            .lines()
            .find_map(|l| l.strip_prefix("Nodes searched: "))
            .expect("a perft total");
        assert_eq!(
            total.parse::<u64>().unwrap(),
            naive,
            "{size}x{size} perft {depth}"
        );
    }
}

#[test]
fn random_games_agree_with_the_naive_rules() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut kos = 0;
    let mut captures = 0;
    for game_no in 0..120 {
        let size = 2 + game_no % 6;
        let mut fast = Position::empty(size).unwrap();
        let mut naive = Naive::new(size);
        for _ in 0..(size * size * 3) {
            let legal_fast: Vec<(usize, usize)> = fast
                .legal_points()
                .into_iter()
                .map(|p| fast.board.row_col(p))
                .collect();
            assert_eq!(legal_fast, naive.legal(), "legal moves differ");
            let choice = rng.next() as usize % (legal_fast.len() + 1);
            if choice == legal_fast.len() {
                fast.play(None).unwrap();
                naive = naive.pass();
            } else {
                let (r, c) = legal_fast[choice];
                let stones_before = stones(&fast.board);
                fast.play(Some(fast.board.point(r, c))).unwrap();
                naive = naive.play(r, c).unwrap();
                let stones_after = stones(&fast.board);
                captures += (stones_after <= stones_before) as usize;
                kos += fast.ko.is_some() as usize;
            }
            assert!(same_board(&fast.board, &naive));
            assert_eq!(fast.to_move == Color::Black, naive.to_move == BLACK);
            assert_eq!(fast.ko.map(|p| fast.board.row_col(p)), naive.ko);
        }
    }
    assert!(
        captures > 100 && kos > 10,
        "the games exercised captures ({captures}) and kos ({kos})"
    );
}

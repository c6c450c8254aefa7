//! The end of a game: which stones are dead, alive or in seki, and the area score.
//!
//! The judgement starts from the extended analysis (its `alive` and `dead` are final) and
//! decides the other blocks by seeded random playouts from the position: both sides play
//! random legal moves that do not fill their own eyes until two passes, and a block whose points
//! belong to the opponent at the end of most playouts is dead. An alive block next to a
//! *shared liberty* (an empty point next to alive stones of both colours where either colour's
//! move would be self-atari or illegal) is in seki, and so are two blocks of both colours whose
//! liberties are all such shared points, whatever the playouts say ([`locked_in_seki`]).

use super::analysis::{extended, Analysis, Status};
use super::board::{Board, Color, BORDER, EMPTY};
use super::eye::is_own_eye;
use crate::rng::SplitMix64;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Life {
    /// An empty point.
    None,
    Alive,
    Dead,
    Seki,
}

impl Life {
    pub fn gtp_name(self) -> &'static str {
        match self {
            Life::None => "",
            Life::Alive => "alive",
            Life::Dead => "dead",
            Life::Seki => "seki",
        }
    }
}

/// The status of every point (indexed by point; empty and off-board points are `None`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Judgement {
    pub life: Vec<Life>,
}

/// How many playouts the judgement runs on a board of `size`.
pub fn playouts_for(size: usize) -> usize {
    match size {
        0..=9 => 256,
        10..=13 => 160,
        _ => 96,
    }
}

/// Judges every block of `board` (`to_move` moves first in the playouts; `ko` is its ko ban).
/// `keep_going` is asked before each playout; when it says no, the playouts run so far decide
/// (with none, undecided blocks count as alive).
pub fn judge(
    board: &Board,
    to_move: Color,
    ko: Option<usize>,
    keep_going: &mut dyn FnMut() -> bool,
) -> Judgement {
    let analysis = extended(board, ko);
    let mut own = vec![0u32; board.len()];
    let mut runs = 0u32;
    let seed = board
        .cells()
        .iter()
        .fold(0x005E_ED0F_D3AD_u64, |h, &c| h.rotate_left(5) ^ c as u64);
    let mut rng = SplitMix64::new(seed);
    let mut scratch = Playout::default();
    for _ in 0..playouts_for(board.size()) {
        if !keep_going() {
            break;
        }
        let end = scratch.run(board, to_move, ko, &mut rng);
        runs += 1;
        for p in board.points() {
            let owner = area_owner(&end, p);
            if owner.is_some() && owner == Color::from_cell(board.get(p)) {
                own[p] += 1;
            }
        }
    }
    judge_blocks(board, &analysis, |_, stones| {
        let kept: u64 = stones.iter().map(|&s| own[s] as u64).sum();
        // Dead when the block's points were its colour's in fewer than half the playouts.
        if runs > 0 && 2 * kept < stones.len() as u64 * runs as u64 {
            Life::Dead
        } else {
            Life::Alive
        }
    })
}

/// Every block's life: Benson's unconditional status where it has one, else `undecided`'s
/// verdict for the block (its colour's cell and its stones), unless the block is locked in a
/// seki ([`locked_in_seki`]); then seki is marked.
pub fn judge_blocks(
    board: &Board,
    analysis: &Analysis,
    mut undecided: impl FnMut(u8, &[usize]) -> Life,
) -> Judgement {
    let mut life = vec![Life::None; board.len()];
    let locked = locked_in_seki(board);
    for (cell, stones, _) in board.blocks() {
        let fixed = stones.iter().find_map(|&s| match analysis.status[s] {
            Status::Alive => Some(Life::Alive),
            Status::Dead => Some(Life::Dead),
            _ => None,
        });
        let verdict = fixed.unwrap_or_else(|| {
            if locked[stones[0]] {
                Life::Alive
            } else {
                undecided(cell, &stones)
            }
        });
        for s in stones {
            life[s] = verdict;
        }
    }
    mark_seki(board, &mut life);
    Judgement { life }
}

/// The stones of blocks locked in a seki: a black and a white block that share a liberty, each
/// with two liberties or more, all of them points that neither colour can fill (its block
/// would be left in atari, capturing nothing), no block next to either in atari (whose capture
/// could give one side the liberty to fill), and neither to be sacrificed into an eye space
/// that kills the capturer (filling a liberty so that the capture leaves a square four, say).
/// Neither can then be captured. Random playouts and the search's tree do fill such points (a
/// 9×9 game against Pachi ended so: two eyeless groups sharing two liberties, which the
/// ownership gave to white in 78% of the playouts), so the ownership does not decide them.
pub fn locked_in_seki(board: &Board) -> Vec<bool> {
    let blocks = board.blocks();
    let mut block_of = vec![usize::MAX; board.len()];
    for (i, (_, stones, _)) in blocks.iter().enumerate() {
        for &s in stones {
            block_of[s] = i;
        }
    }
    let mut unfillable = vec![None; board.len()];
    let mut is_unfillable =
        |p: usize| *unfillable[p].get_or_insert_with(|| filling_hurts(board, p));
    // A block whose owner can fill one of its liberties and, once captured, leave the capturer
    // an eye space that a stone inside kills (the capturer has no other liberty) is no seki.
    let sacrifice_kills = |stones: &[usize], libs: &[usize]| {
        libs.iter().any(|&l| {
            let mut space = stones.to_vec();
            space.push(l);
            killable_eye_space(board, &space)
        })
    };
    let candidate: Vec<bool> = blocks
        .iter()
        .map(|(_, stones, libs)| {
            libs.len() >= 2
                && libs.iter().all(|&l| is_unfillable(l))
                && !sacrifice_kills(stones, libs)
        })
        .collect();
    // No block next to block `k` is in atari.
    let safe = |k: usize| {
        blocks[k].1.iter().all(|&s| {
            board.neighbors(s).into_iter().all(|n| {
                block_of[n] == usize::MAX || block_of[n] == k || blocks[block_of[n]].2.len() >= 2
            })
        })
    };
    let settled: Vec<bool> = (0..blocks.len()).map(|k| candidate[k] && safe(k)).collect();
    let mut locked = vec![false; board.len()];
    for (i, (cell, stones, libs)) in blocks.iter().enumerate() {
        if !settled[i] {
            continue;
        }
        // A partner: a settled block of the other colour at one of its liberties.
        let partnered = libs.iter().flat_map(|&l| board.neighbors(l)).any(|n| {
            let k = block_of[n];
            k != usize::MAX && blocks[k].0 != *cell && settled[k]
        });
        if partnered {
            for &s in stones {
                locked[s] = true;
            }
        }
    }
    locked
}

/// Whether an eye space of these points, enclosed by one block with no other liberty, dies to a
/// stone at its vital point: three points or fewer, and the four, five and six point shapes of
/// nakade (the square and the pyramid four, the bulky and the crossed five, the rabbity six),
/// and the bent four in the corner.
fn killable_eye_space(board: &Board, space: &[usize]) -> bool {
    if space.len() > 6 {
        return false;
    }
    let inside = |p: usize| space.contains(&p);
    let degree = |p: usize| {
        board
            .neighbors(p)
            .into_iter()
            .filter(|&n| inside(n))
            .count()
    };
    let square = space
        .iter()
        .any(|&p| inside(p + 1) && inside(p + board.stride()) && inside(p + board.stride() + 1));
    let widest = space.iter().map(|&p| degree(p)).max().unwrap_or(0);
    // A bent four with its bend on the corner point dies by ko, which the killer starts when
    // it likes (GNU Go's aftermath counts it dead).
    let last = board.size() - 1;
    let bent_on_corner = space.iter().any(|&p| {
        let (row, col) = board.row_col(p);
        (row == 0 || row == last) && (col == 0 || col == last) && degree(p) == 2
    });
    match space.len() {
        0..=3 => true,
        4 => square || widest == 3 || bent_on_corner,
        5 => square || widest == 4,
        _ => square && widest == 4,
    }
}

/// Whether neither colour can play at `p` without leaving the stone's block in atari and
/// capturing nothing (or can play there at all).
fn filling_hurts(board: &Board, p: usize) -> bool {
    Color::BOTH.iter().all(|&c| {
        let mut after = board.clone();
        match after.play(p, c, None) {
            Err(_) => true,
            Ok(played) => played.captured == 0 && after.block(p).1.len() <= 1,
        }
    })
}

/// The colour an end-of-playout point counts for: its stone, or the colour of all its
/// neighbours when it is empty.
fn area_owner(board: &Board, p: usize) -> Option<Color> {
    let c = board.get(p);
    if c != EMPTY {
        return Color::from_cell(c);
    }
    let mut owner = None;
    for n in board.neighbors(p) {
        match board.get(n) {
            BORDER => {}
            EMPTY => return None,
            c => {
                let color = Color::from_cell(c);
                if owner.is_some() && owner != color {
                    return None;
                }
                owner = color;
            }
        }
    }
    owner
}

/// Marks as seki the alive blocks next to a shared liberty.
pub fn mark_seki(board: &Board, life: &mut [Life]) {
    let mut seki_points = Vec::new();
    for p in board.points() {
        if board.get(p) != EMPTY {
            continue;
        }
        let mut colours = [false; 2];
        for n in board.neighbors(p) {
            if let Some(c) = Color::from_cell(board.get(n)) {
                if life[n] == Life::Alive {
                    colours[c.index()] = true;
                }
            }
        }
        if !(colours[0] && colours[1]) {
            continue;
        }
        if filling_hurts(board, p) {
            seki_points.push(p);
        }
    }
    for p in seki_points {
        for n in board.neighbors(p) {
            if Color::from_cell(board.get(n)).is_some() && life[n] == Life::Alive {
                for s in board.block(n).0 {
                    life[s] = Life::Seki;
                }
            }
        }
    }
}

/// Reusable buffers for playouts.
#[derive(Default)]
struct Playout {
    candidates: Vec<usize>,
    before: Option<Board>,
}

impl Playout {
    /// Plays random moves from `board` until two passes (or a move cap) and returns the final
    /// board. A side never fills its own eye and never puts a block of two or more stones into
    /// atari without capturing (such blunders would decide semeai at random).
    fn run(
        &mut self,
        board: &Board,
        to_move: Color,
        ko: Option<usize>,
        rng: &mut SplitMix64,
    ) -> Board {
        let mut b = board.clone();
        let mut color = to_move;
        let mut ko = ko;
        let mut passes = 0;
        let cap = 3 * board.size() * board.size();
        for _ in 0..cap {
            self.candidates.clear();
            self.candidates
                .extend(b.points().filter(|&p| b.get(p) == EMPTY));
            let mut played = None;
            while !self.candidates.is_empty() {
                let i = rng.index(self.candidates.len());
                let p = self.candidates.swap_remove(i);
                if is_own_eye(&b, p, color) {
                    continue;
                }
                let joins = b.neighbors(p).iter().any(|&n| b.get(n) == color.cell());
                if joins {
                    match &mut self.before {
                        Some(saved) => saved.clone_from(&b),
                        None => self.before = Some(b.clone()),
                    }
                }
                let Ok(result) = b.play(p, color, ko) else {
                    continue;
                };
                if joins && result.captured == 0 && b.block(p).1.len() == 1 {
                    if let Some(saved) = &self.before {
                        b.clone_from(saved);
                    }
                    continue;
                }
                played = Some(result.ko);
                break;
            }
            match played {
                Some(new_ko) => {
                    ko = new_ko;
                    passes = 0;
                }
                None => {
                    ko = None;
                    passes += 1;
                    if passes == 2 {
                        break;
                    }
                }
            }
            color = color.other();
        }
        b
    }
}

/// `board` with the dead stones of `judgement` taken off.
pub fn without_dead(board: &Board, judgement: &Judgement) -> Board {
    let mut b = board.clone();
    for p in board.points() {
        if judgement.life[p] == Life::Dead {
            b.set(p, EMPTY);
        }
    }
    b
}

/// The empty region of `b` through the empty point `p`, which `seen` does not hold yet (the
/// region's points are marked in it), and whether black and white stones border it.
pub fn empty_region(b: &Board, p: usize, seen: &mut [bool]) -> (Vec<usize>, [bool; 2]) {
    let mut region = vec![p];
    seen[p] = true;
    let mut touches = [false; 2];
    let mut i = 0;
    while i < region.len() {
        let q = region[i];
        i += 1;
        for n in b.neighbors(q) {
            match b.get(n) {
                EMPTY if !seen[n] => {
                    seen[n] = true;
                    region.push(n);
                }
                c => {
                    if let Some(color) = Color::from_cell(c) {
                        touches[color.index()] = true;
                    }
                }
            }
        }
    }
    (region, touches)
}

/// Area score (stones plus empty regions bordered by one colour only), with the dead stones
/// taken off first: black's area minus white's area minus `komi`.
pub fn area_score(board: &Board, judgement: &Judgement, komi: f64) -> f64 {
    let b = without_dead(board, judgement);
    let mut area = [0i64; 2];
    let mut seen = vec![false; b.len()];
    for p in b.points() {
        if let Some(c) = Color::from_cell(b.get(p)) {
            area[c.index()] += 1;
            continue;
        }
        if seen[p] {
            continue;
        }
        let (region, touches) = empty_region(&b, p, &mut seen);
        if touches[0] != touches[1] {
            area[if touches[0] { 0 } else { 1 }] += region.len() as i64;
        }
    }
    (area[0] - area[1]) as f64 - komi
}

/// For `kgs-genmove_cleanup`: a move of `color` that takes a liberty of an opponent block the
/// judgement calls dead (the block with the fewest liberties first, then scanning order),
/// never self-atari unless it captures; `None` when no such move exists.
pub fn capture_dead(
    board: &Board,
    ko: Option<usize>,
    color: Color,
    judgement: &Judgement,
) -> Option<usize> {
    let mut dead: Vec<(Vec<usize>, Vec<usize>)> = board
        .blocks()
        .into_iter()
        .filter(|(c, stones, _)| {
            *c == color.other().cell() && judgement.life[stones[0]] == Life::Dead
        })
        .map(|(_, stones, libs)| (stones, libs))
        .collect();
    dead.sort_by_key(|(stones, libs)| (libs.len(), stones[0]));
    for (_, libs) in dead {
        for p in libs {
            let mut after = board.clone();
            let Ok(played) = after.play(p, color, ko) else {
                continue;
            };
            if played.captured > 0 || after.block(p).1.len() >= 2 {
                return Some(p);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(rows: &str) -> Board {
        let fields: Vec<String> = ["9", rows, "b"].iter().map(|s| s.to_string()).collect();
        crate::go::notation::parse_position(&fields).unwrap().0
    }

    fn at(board: &Board, vertex: &str) -> usize {
        crate::go::notation::parse_vertex(vertex, board.size())
            .unwrap()
            .unwrap()
    }

    /// The end of tests/data/go/seki/pachi-14.sgf: black A8 B8 B7 and white's sixteen stones
    /// from B9 to A4 share their only liberties, A9 and C7.
    const PACHI_14: &str = ".OOXXXX.X/XXOOOOXXX/OX.OXXX../OOOOOXXXX/OXOXXXXOO/OXXXOXXO./\
                            XXXOOXOOO/XX.XOOO../X.XXO.O.O";

    #[test]
    fn two_eyeless_groups_sharing_their_liberties_are_locked_in_seki() {
        let b = board(PACHI_14);
        let locked = locked_in_seki(&b);
        let trio = ["A8", "B8", "B7"];
        let white = [
            "B9", "C9", "C8", "D8", "E8", "F8", "A7", "D7", "A6", "E6", "A4",
        ];
        for v in trio.iter().chain(&white) {
            assert!(locked[at(&b, v)], "{v}");
        }
        // The other blocks have liberties of their own (eyes) and are not.
        for v in ["D9", "A3", "E4", "J9", "B5"] {
            assert!(!locked[at(&b, v)], "{v}");
        }
        // Whatever the playouts say, both groups are in seki; the rest keeps their verdict.
        let analysis = extended(&b, None);
        let j = judge_blocks(&b, &analysis, |_, _| Life::Dead);
        for v in trio.iter().chain(&white) {
            assert_eq!(j.life[at(&b, v)], Life::Seki, "{v}");
        }
        assert_ne!(j.life[at(&b, "D9")], Life::Seki);
    }

    #[test]
    fn a_sacrifice_that_leaves_a_square_four_is_no_seki() {
        // Black H8 J8 J7 and white's twelve stones from G9 to J3 share their only liberties,
        // H7 and J6 (a game of tests/gtp_gnugo_games.rs, seed 12). Black fills H7, white
        // captures at J6 and is left the square H7 H8 J7 J8: black kills it at once, as GNU Go
        // says (the white stones dead, B+23.5).
        let b = board(
            "XX...XOOO/OXXXXXOXX/OOOXOXO.X/.O.OOXOO./.O.OXXOOO/OOOOOXXXO/OXXOOOOXO/\
             XX.XOXX.X/..X.X.XX.",
        );
        let locked = locked_in_seki(&b);
        assert!(["H8", "J7", "G9", "J3"].iter().all(|v| !locked[at(&b, v)]));
        // The square; game 14's sacrifices leave a zigzag four, which lives, even on the
        // corner; a bent four with its bend on the corner point dies (by ko), elsewhere lives.
        for (shape, killable) in [
            (["H7", "H8", "J7", "J8"], true),
            (["A9", "A8", "B8", "B7"], false),
            (["A2", "A1", "B1", "C1"], true),
            (["B2", "B1", "C1", "D1"], false),
        ] {
            let space = shape.map(|v| at(&b, v));
            assert_eq!(killable_eye_space(&b, &space), killable, "{shape:?}");
        }
    }

    #[test]
    fn a_group_that_can_fill_a_shared_liberty_is_not_locked() {
        // Without black's D9 white's group has a third liberty there, so white can fill A9
        // and capture the trio at C7.
        let b = board(&PACHI_14.replacen("XXXX.X", ".XXX.X", 1));
        assert_eq!(b.get(at(&b, "D9")), EMPTY);
        let locked = locked_in_seki(&b);
        assert!(["A8", "B8", "B7", "B9", "A4"]
            .iter()
            .all(|v| !locked[at(&b, v)]));
    }
}

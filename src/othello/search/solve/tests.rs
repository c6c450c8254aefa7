use super::order::eval_search;
use super::search::{odd_quadrants, QUADRANT};
use super::stability::full_lines;
use super::*;
use crate::othello::board::squares;

/// Plain minimax over every move, no pruning: the oracle for small endgames.
fn minimax(p: u64, o: u64, passed: bool) -> i32 {
    let m = moves(p, o);
    if m == 0 {
        if passed || moves(o, p) == 0 {
            return final_score(p, o);
        }
        return -minimax(o, p, true);
    }
    squares(m)
        .map(|sq| {
            let f = flips(p, o, sq);
            -minimax(o ^ f, p | f | 1 << sq, false)
        })
        .max()
        .unwrap_or(-65)
}

#[test]
fn full_lines_are_the_full_lines() {
    // Each line of each direction as a mask, by walking the board.
    let mut lines = vec![Vec::new(); 4];
    for (d, (dr, df)) in [(0i32, 1i32), (1, 0), (1, 1), (1, -1)]
        .into_iter()
        .enumerate()
    {
        for start in 0..64i32 {
            let (r, f) = (start / 8, start % 8);
            // Only lines starting at the board's edge against the direction.
            let (pr, pf) = (r - dr, f - df);
            if (0..8).contains(&pr) && (0..8).contains(&pf) {
                continue;
            }
            let (mut r, mut f, mut line) = (r, f, 0u64);
            while (0..8).contains(&r) && (0..8).contains(&f) {
                line |= 1 << (r * 8 + f);
                r += dr;
                f += df;
            }
            lines[d].push(line);
        }
    }
    let mut rng = crate::rng::SplitMix64::new(31);
    for i in 0..50000 {
        let state = rng.next();
        // Mostly full boards, as in the endgame.
        let occupied = if i % 2 == 0 {
            !(state & state >> 11 & state >> 23)
        } else {
            state
        };
        let got = full_lines(occupied);
        for d in 0..4 {
            let expect = lines[d]
                .iter()
                .filter(|&&l| occupied & l == l)
                .fold(0, |acc, l| acc | l);
            assert_eq!(got[d], expect, "direction {d}, board {occupied:#x}");
        }
    }
}

#[test]
fn odd_quadrants_are_the_odd_counts() {
    const QUADRANTS: [u64; 4] = [
        0x0000_0000_0F0F_0F0F,
        0x0000_0000_F0F0_F0F0,
        0x0F0F_0F0F_0000_0000,
        0xF0F0_F0F0_0000_0000,
    ];
    let mut rng = crate::rng::SplitMix64::new(777);
    for i in 0..20000 {
        let state = rng.next();
        // Sparse boards too, as near the end.
        let empties = if i % 2 == 0 {
            state
        } else {
            state & state >> 7 & state >> 19
        };
        let expect = QUADRANTS
            .iter()
            .filter(|&&q| (empties & q).count_ones() % 2 == 1)
            .fold(0, |acc, q| acc | q);
        assert_eq!(odd_quadrants(empties), expect, "{empties:#x}");
    }
    for (sq, &q) in QUADRANT.iter().enumerate() {
        assert_ne!(QUADRANTS[q as usize] & 1 << sq, 0, "square {sq}");
    }
}

/// FFO #40 (20 empties, black to move).
fn ffo_40() -> Board {
    let line = "O--OOOOX-OOOOOOXOOXXOOOXOOXOOOXXOOOOOOXX---OOOOX----O--X-------- X";
    let (mut x, mut o) = (0u64, 0u64);
    for (i, c) in line.bytes().take(64).enumerate() {
        match c {
            b'X' => x |= 1 << i,
            b'O' => o |= 1 << i,
            _ => {}
        }
    }
    Board {
        player: x,
        opponent: o,
    }
}

#[test]
fn the_abort_check_is_polled_while_solving() {
    // FFO #40: millions of nodes, most below the polling nodes.
    let board = ffo_40();
    let polls = std::cell::Cell::new(0u64);
    let abort = |nodes: u64| {
        polls.set(polls.get() + 1);
        nodes > 100_000
    };
    let mut solver = Solver::new(16).with_abort(&abort);
    solver.solve(&board);
    assert!(solver.aborted());
    assert!(
        polls.get() >= 100_000 / POLL_INTERVAL,
        "{} polls",
        polls.get()
    );
    // Stopped soon after the limit: between two polls only a few nodes pass uncounted.
    assert!(
        solver.nodes < 100_000 + 2 * POLL_INTERVAL,
        "{} nodes",
        solver.nodes
    );
}

#[test]
fn the_first_guess_asks_the_abort_check_too() {
    // FFO #40 (20 empties): the guess searches 8 plies on the learned evaluation before the
    // exact search visits a position. A clock that has run out stops it there, not at the
    // solve's first poll: the check is first asked once the guess has visited POLL_INTERVAL
    // positions, and the solve is given up with only those counted.
    let board = ffo_40();
    let first = std::cell::Cell::new(None);
    let abort = |nodes: u64| {
        first.set(first.get().or(Some(nodes)));
        true
    };
    let mut solver = Solver::new(16).with_abort(&abort);
    solver.solve(&board);
    assert!(solver.aborted());
    assert_eq!(
        first.get(),
        Some(POLL_INTERVAL),
        "first asked with that many nodes counted"
    );
    assert_eq!(solver.nodes, POLL_INTERVAL);
    assert_eq!(solver.eval_nodes, POLL_INTERVAL);
}

/// Counts the positions `eval_search` visits from (p, o) at `depth`.
fn eval_search_positions(board: &Board, depth: u32) -> u64 {
    let mut n = 0;
    let mut count = || {
        n += 1;
        false
    };
    eval_search(
        board.player,
        board.opponent,
        depth,
        -i32::MAX,
        i32::MAX,
        false,
        &mut count,
    );
    n
}

#[test]
fn the_evaluation_searches_count_as_nodes() {
    // FFO #40 (20 empties): the first guess searches 8 plies, and the moves of every node from
    // 18 empties are ordered by evaluation searches: all their positions are nodes, as Edax and
    // Egaroucid count theirs, and the exact search's come on top.
    let board = ffo_40();
    let guess = eval_search_positions(&board, 8);
    let mut solver = Solver::new(16);
    solver.solve(&board);
    assert!(guess > 1000, "{guess}");
    assert!(solver.eval_nodes > guess, "{} {guess}", solver.eval_nodes);
    assert!(
        solver.nodes > 2 * solver.eval_nodes,
        "{} {}",
        solver.nodes,
        solver.eval_nodes
    );
    // With 12 empties neither runs (the guess searches empties - 12 plies, the ordering
    // searches start at 18 empties): every node is the exact search's.
    let mut b = board;
    while b.empties().count_ones() > 12 {
        let m = b.moves();
        b = match m {
            0 => Board {
                player: b.opponent,
                opponent: b.player,
            },
            _ => b.play(m.trailing_zeros()).expect("a legal move"),
        };
    }
    let mut small = Solver::new(16);
    small.solve(&b);
    assert_eq!(small.eval_nodes, 0);
    assert!(small.nodes > 0);
}

#[test]
fn stable_discs_never_turn() {
    let mut rng = crate::rng::SplitMix64::new(4242);
    let mut rand = || rng.next();
    let mut claimed = 0;
    for _ in 0..300 {
        let mut b = Board::START;
        let mut black_to_move = true;
        // Discs claimed stable so far, per colour.
        let (mut black_stable, mut white_stable) = (0u64, 0u64);
        loop {
            let (black, white) = if black_to_move {
                (b.player, b.opponent)
            } else {
                (b.opponent, b.player)
            };
            assert_eq!(black_stable & !black, 0, "a stable black disc turned");
            assert_eq!(white_stable & !white, 0, "a stable white disc turned");
            black_stable |= stable_discs(black, white);
            white_stable |= stable_discs(white, black);
            let m = b.moves();
            if m == 0 {
                if b.pass().moves() == 0 {
                    break;
                }
                b = b.pass();
                black_to_move = !black_to_move;
                continue;
            }
            let list: Vec<u32> = squares(m).collect();
            b = b.play(list[(rand() % list.len() as u64) as usize]).unwrap();
            black_to_move = !black_to_move;
        }
        claimed += (black_stable | white_stable).count_ones();
    }
    assert!(
        claimed > 300 * 10,
        "the test should see stable discs: {claimed}"
    );
}

#[test]
fn agrees_with_minimax_on_random_endgames() {
    let mut rng = crate::rng::SplitMix64::new(12345);
    let mut rand = || rng.next();
    let mut solver = Solver::new(12);
    let mut checked = 0;
    while checked < 400 {
        let mut b = Board::START;
        // Random play down to 1..=10 empties (0 when the game ends first): every special
        // case of the last squares, passes and early ends included, and the table's range.
        let stop = 1 + (rand() % 10) as u32;
        while b.empties().count_ones() > stop {
            let m = b.moves();
            if m == 0 {
                if b.pass().moves() == 0 {
                    break;
                }
                b = b.pass();
                continue;
            }
            let list: Vec<u32> = squares(m).collect();
            let sq = list[(rand() % list.len() as u64) as usize];
            b = b.play(sq).unwrap();
        }
        let expect = minimax(b.player, b.opponent, false);
        let got = solver.solve(&b);
        assert_eq!(got.score, expect, "{b:?}");
        if let Some(sq) = got.best {
            let after = b.play(sq).unwrap();
            assert_eq!(-minimax(after.player, after.opponent, false), expect);
        }
        // Null windows around the score bound it on the right side.
        for t in [expect - 1, expect] {
            let s = solver.solve_window(&b, t, t + 1).score;
            assert_eq!(
                s > t,
                expect > t,
                "window ({t},{}) gave {s}, exact {expect}",
                t + 1
            );
        }
        checked += 1;
    }
}

/// A random endgame: seeded random play from the start down to `empties` empties (fewer when
/// the game ends first).
fn random_endgame(rand: &mut impl FnMut() -> u64, empties: u32) -> Board {
    let mut b = Board::START;
    while b.empties().count_ones() > empties {
        let m = b.moves();
        if m == 0 {
            if b.pass().moves() == 0 {
                break;
            }
            b = b.pass();
            continue;
        }
        let list: Vec<u32> = squares(m).collect();
        b = b.play(list[(rand() % list.len() as u64) as usize]).unwrap();
    }
    b
}

/// Two threads splitting from 7 empties (the solver's thresholds lowered so that small
/// endgames split at every level): the scores of minimax, best moves that reach them.
#[test]
fn two_threads_agree_with_minimax_on_random_endgames() {
    let mut rng = crate::rng::SplitMix64::new(2027);
    let mut rand = || rng.next();
    let mut solver = Solver::new(12).with_threads(2);
    solver.split_min = 7;
    solver.parallel_min = 8;
    for i in 0..200 {
        let b = random_endgame(&mut rand, 8 + i % 3);
        let expect = minimax(b.player, b.opponent, false);
        let got = solver.solve(&b);
        assert_eq!(got.score, expect, "{b:?}");
        if let Some(sq) = got.best {
            let after = b.play(sq).unwrap();
            assert_eq!(-minimax(after.player, after.opponent, false), expect);
        }
        for t in [expect - 1, expect] {
            let s = solver.solve_window(&b, t, t + 1).score;
            assert_eq!(s > t, expect > t, "window ({t},{}) gave {s}", t + 1);
        }
    }
    // Splits happen only when the other thread is waiting, so a busy machine sees fewer.
    assert!(solver.splits > 0, "{} split points", solver.splits);
}

/// Larger endgames, where one thread is the oracle (itself checked against minimax above and
/// on the FFO positions): two and three threads splitting from 9 empties give its scores.
#[test]
fn threads_agree_with_one_thread_on_larger_endgames() {
    let mut rng = crate::rng::SplitMix64::new(2028);
    let mut rand = || rng.next();
    let mut one = Solver::new(16);
    for threads in [2, 3] {
        let mut many = Solver::new(16).with_threads(threads);
        many.split_min = 9;
        many.parallel_min = 10;
        for i in 0..40 {
            let b = random_endgame(&mut rand, 12 + i % 5);
            assert_eq!(many.solve(&b).score, one.solve(&b).score, "{b:?}");
        }
        assert!(many.splits > 0, "{} split points", many.splits);
    }
}

//! Go rules and analyses on named positions. Expected status grids were checked against
//! GNU Go 3.8's `unconditional_status` (A alive, D dead, b/w territory, . undecided).

use ryoshi::go::analysis::{classic, extended, Analysis, Status};
use ryoshi::go::board::{Board, Color, Illegal, BLACK, EMPTY, WHITE};
use ryoshi::go::notation::{format_position, parse_position, parse_vertex};
use ryoshi::go::Position;

fn game(rows: &[&str], to_move: &str) -> Position {
    let fields = vec![rows.len().to_string(), rows.join("/"), to_move.to_string()];
    let (board, color) = parse_position(&fields).expect("test position");
    Position::new(board, color)
}

fn at(g: &Position, v: &str) -> usize {
    parse_vertex(v, g.board.size()).unwrap().unwrap()
}

fn grid(board: &Board, a: &Analysis) -> Vec<String> {
    (0..board.size())
        .map(|r| {
            (0..board.size())
                .map(|c| match a.status[board.point(r, c)] {
                    Status::Undecided => '.',
                    Status::Alive => 'A',
                    Status::Dead => 'D',
                    Status::Territory(Color::Black) => 'b',
                    Status::Territory(Color::White) => 'w',
                })
                .collect()
        })
        .collect()
}

#[test]
fn captures_single_stone_and_block() {
    let mut g = game(&[".....", ".XO..", "XOOX.", ".XO..", "....."], "b");
    // White's three-stone block B3 C3 C4 C2 has liberties D4, D2, C1? Fill them one by one.
    assert_eq!(g.board.block(at(&g, "C3")).0.len(), 4);
    for v in ["D4", "D2", "C5", "C1"] {
        assert_eq!(g.board.get(at(&g, "C3")), WHITE, "before {v}");
        g.play_as(Color::Black, Some(at(&g, v))).unwrap();
    }
    for v in ["B3", "C3", "C4", "C2"] {
        assert_eq!(g.board.get(at(&g, v)), EMPTY, "{v} captured");
    }
    // A single stone on the edge.
    let mut g = game(&["XO...", ".....", ".....", ".....", "....."], "w");
    g.play_as(Color::White, Some(at(&g, "A4"))).unwrap();
    assert_eq!(g.board.get(at(&g, "A5")), EMPTY);
}

#[test]
fn suicide_is_forbidden_but_capturing_is_not() {
    let mut g = game(&[".X...", "X....", ".....", ".....", "....."], "w");
    let before = g.clone();
    assert_eq!(g.play(Some(at(&g, "A5"))), Err(Illegal::Suicide));
    assert_eq!(g, before, "a refused move changes nothing");
    // Multi-stone suicide: filling the last liberty of one's own block.
    let mut g = game(&["OX...", ".X...", "XX...", ".....", "....."], "w");
    assert_eq!(g.play(Some(at(&g, "A4"))), Err(Illegal::Suicide));
    // The same shape, but the move takes the last liberty of a black block: legal.
    let mut g = game(&[".XO..", "XO...", ".....", ".....", "....."], "w");
    g.play(Some(at(&g, "A5"))).unwrap();
    assert_eq!(g.board.get(at(&g, "B5")), EMPTY);
    assert_eq!(g.board.get(at(&g, "A5")), WHITE);
    assert_eq!(g.board.get(at(&g, "A4")), BLACK);
}

#[test]
fn occupied_points_are_refused() {
    let mut g = game(&["X..", "...", "..."], "w");
    assert_eq!(g.play(Some(at(&g, "A3"))), Err(Illegal::Occupied));
}

#[test]
fn simple_ko() {
    // Black takes the ko at C3 by playing... White retakes only after a move elsewhere.
    let mut g = game(&[".....", ".XO..", "X.XO.", ".XO..", "....."], "w");
    g.play(Some(at(&g, "B3"))).unwrap(); // white captures C3
    assert_eq!(g.board.get(at(&g, "C3")), EMPTY);
    assert_eq!(g.ko, Some(at(&g, "C3")));
    let before = g.clone();
    assert_eq!(g.play(Some(at(&g, "C3"))), Err(Illegal::Ko));
    assert_eq!(g, before);
    g.play(Some(at(&g, "E5"))).unwrap(); // ko threat
    g.play(Some(at(&g, "E1"))).unwrap(); // answer
    g.play(Some(at(&g, "C3"))).unwrap(); // black retakes now
    assert_eq!(g.board.get(at(&g, "B3")), EMPTY);
    // And a pass also lifts the ban.
    let mut g = before.clone();
    g.play(None).unwrap();
    g.play(None).unwrap();
    assert!(g.play(Some(at(&g, "C3"))).is_ok());
}

#[test]
fn two_eyed_group_is_alive() {
    let g = game(&[".X.X.", "XXXXX", ".....", ".....", "....."], "b");
    let want = ["bAbAb", "AAAAA", ".....", ".....", "....."];
    assert_eq!(grid(&g.board, &classic(&g.board)), want);
    assert_eq!(grid(&g.board, &extended(&g.board, None)), want);
    // One eye less (C5 opens to the rest of the board): nothing is proven.
    let g = game(&[".X...", "XXX..", ".....", ".....", "....."], "b");
    let none = [".....", ".....", ".....", ".....", "....."];
    assert_eq!(grid(&g.board, &classic(&g.board)), none);
    assert_eq!(grid(&g.board, &extended(&g.board, None)), none);
}

#[test]
fn eye_holding_a_dead_stone() {
    // The region {C5, D5} holds a white stone; its only empty point is a liberty of the block.
    let g = game(&[".X.OX", "XXXXX", ".....", ".....", "....."], "b");
    let want = ["bAbDA", "AAAAA", ".....", ".....", "....."];
    assert_eq!(grid(&g.board, &classic(&g.board)), want);
    assert_eq!(grid(&g.board, &extended(&g.board, None)), want);
}

const SEKI: [&str; 9] = [
    "O.OOOOOOO",
    "OOOOOOOOO",
    "OOOXXOOOO",
    "OXX.XOOOO",
    "OX.OXXOOO",
    "OXXO.XOOO",
    "OOX.XXOOO",
    "OOXXXOOO.",
    "OOOOOOOOO",
];

#[test]
fn seki_is_nobody_s() {
    // GNU Go's seki shape: the inner black group and white's two-stone block live in seki, so
    // neither is alive unconditionally and neither is dead; only the outer white group is alive.
    let g = game(&SEKI, "b");
    let want = [
        "AwAAAAAAA",
        "AAAAAAAAA",
        "AAA..AAAA",
        "A....AAAA",
        "A.....AAA",
        "A.....AAA",
        "AA....AAA",
        "AA...AAAw",
        "AAAAAAAAA",
    ];
    assert_eq!(grid(&g.board, &extended(&g.board, None)), want);
    assert_eq!(grid(&g.board, &classic(&g.board)), want);
}

#[test]
fn dead_stones_beyond_classic_benson() {
    // The same shape with the black group cut in two: now white kills it, which classic
    // Benson cannot see (the eye space's empty points are not all liberties of one block).
    let mut rows = SEKI;
    rows[4] = "OX.OXOOOO";
    let g = game(&rows, "b");
    let want = [
        "AwAAAAAAA",
        "AAAAAAAAA",
        "AAADDAAAA",
        "ADDwDAAAA",
        "ADwADAAAA",
        "ADDAwDAAA",
        "AADwDDAAA",
        "AADDDAAAw",
        "AAAAAAAAA",
    ];
    assert_eq!(grid(&g.board, &extended(&g.board, None)), want);
    let c = grid(&g.board, &classic(&g.board));
    assert_eq!(
        c[3],
        "A...DAAAA".replace('D', "."),
        "classic proves no dead stone here"
    );
}

#[test]
fn big_eye_space_is_not_safe() {
    // The seed's extended vitality ("the region is bounded by the block and holds an empty
    // point") would call this block alive: one real eye at E7 plus the 3x3 corner. It is not:
    // white fills the corner's outer ring and the outside liberties, then takes E7.
    let rows = [
        "...X.X.", "...XXX.", "...X...", "XXXX...", ".......", ".......", ".......",
    ];
    let g = game(&rows, "w");
    let none = vec![".......".to_string(); 7];
    assert_eq!(grid(&g.board, &classic(&g.board)), none);
    assert_eq!(grid(&g.board, &extended(&g.board, None)), none);
    // Demonstrate the capture with white moves only (black passes).
    let mut g = g;
    let mut libs = g.board.block(at(&g, "D7")).1;
    libs.retain(|&p| p != at(&g, "E7"));
    for p in libs {
        g.play_as(Color::White, Some(p))
            .expect("white fills a liberty");
    }
    g.play_as(Color::White, Some(at(&g, "E7")))
        .expect("the last liberty captures");
    assert_eq!(g.board.get(at(&g, "D7")), EMPTY, "the block is gone");
}

#[test]
fn position_round_trip() {
    let rows = ["X.O", ".XO", "..."];
    let fields = vec!["3".to_string(), rows.join("/"), "w".to_string()];
    let (board, color) = parse_position(&fields).unwrap();
    assert_eq!(format_position(&board, color), "3 X.O/.XO/... w");
}

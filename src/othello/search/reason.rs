//! Why a move is good or bad, in words: what `hint` prints after each move's score (in the
//! session and in NBoard), read off what the move does to the position.

use crate::othello::board::{flips, moves, squares};
use crate::othello::{square_name, Board};

/// A short reason for a move, from what it does to the position (`hint` here and in NBoard).
pub fn reason(board: &Board, sq: u32, exact: Option<i32>) -> String {
    const CORNERS: u64 = 0x8100_0000_0000_0081;
    const EDGES: [(u64, &str); 4] = [
        (0x0000_0000_0000_00FF, "row 1"),
        (0xFF00_0000_0000_0000, "row 8"),
        (0x0101_0101_0101_0101, "the a file"),
        (0x8080_8080_8080_8080, "the h file"),
    ];
    let (p, o) = (board.player, board.opponent);
    let turned = flips(p, o, sq);
    let np = p | turned | 1 << sq;
    let no = o ^ turned;
    let theirs = moves(no, np);
    let mut parts: Vec<String> = Vec::new();
    if let Some(score) = exact {
        parts.push(match score {
            s if s > 0 => format!("forced win by +{s}"),
            0 => "forced draw".to_string(),
            s => format!("best defence, loses by {}", -s),
        });
    }
    if 1u64 << sq & CORNERS != 0 {
        parts.push("takes a corner".into());
    }
    for (edge, name) in EDGES {
        if np & edge == edge && p & edge != edge {
            parts.push(format!("wins all the discs of {name}"));
        }
    }
    if theirs == 0 {
        if moves(np, no) == 0 {
            parts.push("ends the game".into());
        } else {
            parts.push("the opponent must pass".into());
        }
    } else {
        let given = theirs & CORNERS & !(moves(o, p) & CORNERS);
        if given != 0 {
            let names: Vec<String> = squares(given).map(square_name).collect();
            parts.push(format!("gives the opponent the corner {}", names.join(" ")));
        }
        let n = theirs.count_ones();
        if n <= 3 {
            parts.push(format!(
                "leaves the opponent only {n} move{}",
                if n == 1 { "" } else { "s" }
            ));
        }
    }
    if parts.is_empty() || (exact.is_some() && parts.len() == 1) {
        let n = turned.count_ones();
        parts.push(format!(
            "turns {n} disc{}, leaves the opponent {} moves",
            if n == 1 { "" } else { "s" },
            theirs.count_ones()
        ));
    }
    parts.join(", ")
}

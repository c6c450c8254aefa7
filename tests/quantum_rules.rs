//! One named test per rule of `protocol/quantum-rules.md`.

use ryoshi::quantum::types::mask_letters;
use ryoshi::quantum::types::parse_square;
use ryoshi::quantum::{qsfen, Color, Ending, Position, Record, Ruleset};

fn pos(text: &str) -> Position {
    qsfen::read(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn play(p: &Position, moves: &str) -> Position {
    let rules = Ruleset::default();
    let mut p = p.clone();
    for m in moves.split_whitespace() {
        let a = p
            .parse_action(m, &rules)
            .unwrap_or_else(|e| panic!("{m}: {e}"));
        assert!(p.apply(a));
    }
    p
}

fn legal(p: &Position, m: &str) -> bool {
    p.parse_action(m, &Ruleset::default()).is_ok()
}

fn at(p: &Position, sq: &str) -> String {
    let i = p
        .piece_at(parse_square(sq).expect("square"))
        .unwrap_or_else(|| panic!("no piece on {sq}"));
    mask_letters(p.piece(i).mask)
}

/// Two sente pieces that could be anything (so the one that moves may still be the king),
/// the others in hand; gote has a certain king and the rest in hand.
const OPEN: &str = "4k4/9/9/9/4Q4/9/9/9/4Q4 b 18Q19q 1";
/// The same with a promoted piece on 5e.
const PROMOTED: &str = "4k4/9/9/9/4+Q4/9/9/9/4Q4 b 18Q19q 1";

#[test]
fn narrowing_unpromoted_rows() {
    let p = pos(OPEN);
    assert_eq!(at(&p, "5e"), "KRBGSNLP");
    for (m, expect) in [
        ("5e5d", "KRGSLP"), // forward 1
        ("5e4d", "KBGS"),   // diagonal forward 1
        ("5e4e", "KRG"),    // sideways 1
        ("5e5f", "KRG"),    // back 1
        ("5e4f", "KBS"),    // diagonal back 1
        ("5e4c", "N"),      // knight jump
        ("5e5c", "RL"),     // forward 2
        ("5e5g", "R"),      // back 2
        ("5e2e", "R"),      // sideways 3
        ("5e3c", "B"),      // diagonal forward 2
        ("5e3g", "B"),      // diagonal back 2
    ] {
        let to = &m[2..4];
        assert_eq!(at(&play(&p, m), to), expect, "{m}");
    }
}

#[test]
fn narrowing_is_seen_from_the_owner() {
    // Gote's forward is toward rank i.
    let p = pos("4q4/9/9/9/4q4/9/9/9/4K4 w 19Q18q 1");
    assert_eq!(at(&play(&p, "5e5f"), "5f"), "KRGSLP");
    assert_eq!(at(&play(&p, "5e5d"), "5d"), "KRG");
    assert_eq!(at(&play(&p, "5e4g"), "4g"), "N");
    assert_eq!(at(&play(&p, "5e5g"), "5g"), "RL");
}

#[test]
fn narrowing_promoted_rows_and_promoted_movement() {
    let p = pos(PROMOTED);
    assert_eq!(at(&p, "5e"), "RBSNLP");
    for (m, expect) in [
        ("5e5d", "RBSNLP"), // forward 1
        ("5e4d", "RBSNLP"), // diagonal forward 1
        ("5e4e", "RBSNLP"), // sideways 1
        ("5e5f", "RBSNLP"), // back 1
        ("5e4f", "RB"),     // diagonal back 1
        ("5e5c", "R"),      // forward 2
        ("5e5g", "R"),      // back 2
        ("5e3e", "R"),      // sideways 2
        ("5e3c", "B"),      // diagonal 2
    ] {
        assert_eq!(at(&play(&p, m), &m[2..4]), expect, "{m}");
    }
    // Promoted pieces never jump like knights.
    assert!(!legal(&p, "5e4c"));
    // A promoted silver-or-pawn moves like a gold: not diagonally back.
    let gold_like = pos("4k4/9/9/9/4+Q[SP]4/9/9/9/4Q4 b 18Q19q 1");
    assert!(legal(&gold_like, "5e5f"));
    assert!(!legal(&gold_like, "5e4f"));
    assert!(!legal(&gold_like, "5e5c"));
}

#[test]
fn promotion_is_optional_in_the_zone_and_removes_gold_and_king() {
    let p = pos(OPEN);
    assert_eq!(at(&play(&p, "5e5c+"), "5c"), "RL");
    assert_eq!(at(&play(&p, "5e4d"), "4d"), "KBGS");
    assert!(!legal(&p, "5e4d+"), "neither square is in the zone");
    let p = pos("4k4/9/4Q4/9/9/9/9/9/4Q4 b 18Q19q 1");
    assert_eq!(
        at(&play(&p, "5c5d+"), "5d"),
        "R",
        "back 1 from the zone, promoting"
    );
    assert_eq!(at(&play(&p, "5c5b+"), "5b"), "RSLP", "forward 1 promoting");
    assert_eq!(at(&play(&p, "5c5d"), "5d"), "KRG");
    // A piece that can only be gold or king cannot promote.
    let p = pos("4k4/9/4Q[KG]4/9/9/9/9/9/4Q[KG]4 b 18Q19q 1");
    assert!(!legal(&p, "5c5b+"));
    assert!(legal(&p, "5c5b"));
}

#[test]
fn far_rank_filters_for_moves() {
    let p = pos("k8/9/4Q4/9/9/9/9/9/4Q4 b 18Q19q 1");
    // Not promoting on the far rank loses P L N; on the second-far rank it loses N.
    assert_eq!(
        at(&play(&p, "5c5a"), "5a"),
        "R",
        "forward 2 without promotion"
    );
    assert_eq!(at(&play(&p, "5c5a+"), "5a"), "RL", "forward 2 promoting");
    assert_eq!(
        at(&play(&p, "5c5b"), "5b"),
        "KRGSLP",
        "forward 1 to the second-far rank"
    );
    assert_eq!(at(&play(&p, "5c4b"), "4b"), "KBGS");
    assert!(
        !legal(&p, "5c4a"),
        "a knight jump to the far rank must promote"
    );
    assert_eq!(at(&play(&p, "5c4a+"), "4a"), "N");
    // A certain pawn must promote on the far rank; a certain knight on the last two ranks.
    let p = pos("4k4/P8/9/N8/9/9/9/9/4K4 b 17Q19q 1");
    assert!(!legal(&p, "9b9a"));
    assert!(legal(&p, "9b9a+"));
    assert!(!legal(&p, "9d8b"));
    assert!(legal(&p, "9d8b+"));
}

#[test]
fn far_rank_filters_for_drops() {
    let p = pos("4k4/9/9/9/9/9/9/9/4K4 b 2P2N2L13Q19q 1");
    assert!(!legal(&p, "P*6a"));
    assert!(!legal(&p, "L*6a"));
    assert!(!legal(&p, "N*6a"));
    assert!(!legal(&p, "N*6b"));
    assert!(legal(&p, "L*6b"));
    assert!(legal(&p, "N*6c"));
    // An uncertain piece keeps what it can still be.
    let q = play(&p, "Q*6a");
    assert_eq!(at(&q, "6a"), "RBGS");
    let q = play(&p, "Q*6b");
    assert_eq!(at(&q, "6b"), "RBGSP");
}

#[test]
fn drop_of_a_piece_of_the_other_origin() {
    // Gote's origin: king, eight certain pawns, one N-or-P held by sente, ten in gote's hand.
    let p = pos("4k4/9/pppp1pppp/9/9/9/9/9/4K4 b Q[NP]~19Q10q 1");
    assert_eq!(at(&p, "5i"), "K");
    assert!(!legal(&p, "Q[NP]~*4a"), "far rank leaves nothing");
    let q = play(&p, "Q[NP]~*5b");
    // It became gote's ninth certain pawn, so gote's other pieces cannot be pawns any more.
    assert_eq!(at(&q, "5b"), "P");
    let i = q.piece_at(parse_square("5b").unwrap()).unwrap();
    assert_eq!(ryoshi::quantum::origin_of(i), Color::White);
    assert_eq!(q.piece(i).owner, Color::Black);
    let hand_masks: Vec<String> = q
        .pieces()
        .iter()
        .filter(|p| p.owner == Color::White && p.square == ryoshi::quantum::HAND)
        .map(|p| mask_letters(p.mask))
        .collect();
    assert_eq!(hand_masks, vec!["RBGSNL"; 10]);
    // Sente's own origin is untouched.
    assert!(qsfen::write(&q).contains("19Q"));
}

#[test]
fn kakutei_nifu_on_and_off() {
    let p = pos("4k4/9/9/9/9/9/4P4/9/4K4 b P17Q19q 1");
    let off = Ruleset {
        kakutei_nifu: false,
    };
    let on = Ruleset { kakutei_nifu: true };
    assert!(p.parse_action("P*5e", &off).is_ok());
    assert!(p.parse_action("P*5e", &on).is_err());
    assert!(p.parse_action("P*4e", &on).is_ok());
    // A promoted certain pawn on the file does not count.
    let p = pos("4k4/9/9/9/9/9/4+P4/9/4K4 b P17Q19q 1");
    assert!(p.parse_action("P*5e", &on).is_ok());
    // A piece that is not a certain pawn may be dropped; later narrowing is allowed.
    let p = pos("4k4/9/9/9/9/9/4P4/9/4K4 b Q[NP]17Q19q 1");
    assert!(p.parse_action("Q[NP]*5b", &on).is_ok());
    // A certain pawn of the other origin owned by the dropper counts.
    let p = pos("4k4/9/9/9/9/9/4P~4/9/4K4 b P18Q18q 1");
    assert!(p.parse_action("P*5e", &on).is_err());
}

#[test]
fn capture_goes_to_hand_unpromoted_without_king() {
    let p = pos("4k4/9/4q4/9/9/9/9/9/3K+R4 b 18Q18q 1");
    let q = play(&p, "5i5c");
    let i = (0..40)
        .find(|&i| {
            q.piece(i).owner == Color::Black
                && q.piece(i).square == ryoshi::quantum::HAND
                && ryoshi::quantum::origin_of(i) == Color::White
        })
        .expect("captured piece in sente's hand");
    assert!(!q.piece(i).promoted);
    assert_eq!(mask_letters(q.piece(i).mask), "RBGSNLP");
    assert_eq!(q.winner(), None);
}

#[test]
fn king_capture_of_an_implicit_king() {
    // Gote's two board pieces are king-or-gold; the rest in hand cannot be king.
    let p = pos("3q[KG]q[KG]4/9/9/9/4R4/9/9/9/4K4 b 18Q18q 1");
    assert_eq!(at(&p, "5a"), "KG");
    let q = play(&p, "5e5a");
    assert_eq!(q.winner(), None, "5a was not certainly the king");
    // Losing K made the captured piece a gold, so the other one is now certainly the king.
    assert_eq!(at(&q, "6a"), "K");
    let q = play(&q, "Q*9e 5a6a");
    assert_eq!(q.winner(), Some(Color::Black));
    assert_eq!(q.legal_actions(&Ruleset::default()), vec![]);
    let record = Record::new(q, Ruleset::default());
    assert_eq!(
        record.ending(),
        Some(Ending::KingCapture {
            winner: Color::Black
        })
    );
}

#[test]
fn inconsistent_move_cannot_capture_a_certain_king() {
    // A certain pawn may not enter the far rank unpromoted, even to take the king.
    let p = pos("4k4/4P4/9/9/9/9/9/9/4K4 b 18Q19q 1");
    assert!(!legal(&p, "5b5a"));
    let q = play(&p, "5b5a+");
    assert_eq!(q.winner(), Some(Color::Black));
}

#[test]
fn fourfold_repetition_is_detected_on_the_fourth_occurrence() {
    // Shuffling two pieces back and forth: once both were narrowed (by move 5), every
    // position recurs every four moves. The first to occur four times is the one after
    // 8b7b, on the 14th move.
    let mut record = Record::new(Position::start(), Ruleset::default());
    let cycle = ["2h3h", "8b7b", "3h2h", "7b8b"];
    for n in 1..=14 {
        assert_eq!(record.ending(), None, "before move {n}");
        record.play_str(cycle[(n - 1) % 4]).expect("legal");
        let expected = if n <= 5 { 1 } else { (n - 2) / 4 + 1 };
        assert_eq!(record.repetitions(), expected, "after move {n}");
    }
    assert_eq!(record.ending(), Some(Ending::FourfoldRepetition));
    assert!(record.play_str("3h2h").is_err());
}

#[test]
fn no_legal_action_loses() {
    // Sente's far rank is full of pieces that cannot move sideways or back; its pawns are
    // stuck behind them; its hand is empty.
    let p = pos("KRBGGSSG~G~/PPPPPPPPP/9/9/4k4/9/9/9/9 b 4q[NL]~17q 1");
    assert_eq!(p.count_legal(&Ruleset::default()), 0);
    let record = Record::new(p, Ruleset::default());
    assert_eq!(
        record.ending(),
        Some(Ending::NoLegalAction {
            loser: Color::Black
        })
    );
}

#[test]
fn after_7g7f_and_a_two_square_advance() {
    let p = Position::start();
    assert_eq!(at(&play(&p, "7g7f"), "7f"), "KRGSLP");
    assert_eq!(at(&play(&p, "7g7e"), "7e"), "RL");
}

#[test]
fn zobrist_key_covers_masks_side_and_is_fixed() {
    // Fixed constants: the same key on every run and build (the search's table and the
    // repetition history depend on it).
    assert_eq!(Position::start().key(), 0xd3ca_eb11_ebc5_0619);
    let a = pos("4k4/9/9/9/4Q4/9/9/9/4Q4 b 18Q19q 1");
    let b = pos("4k4/9/9/9/4Q[KRG]4/9/9/9/4Q4 b 18Q19q 1");
    let c = pos("4k4/9/9/9/4Q4/9/9/9/4Q4 w 18Q19q 1");
    let d = pos("4k4/9/9/9/4+Q4/9/9/9/4Q4 b 18Q19q 1");
    assert_ne!(a.key(), b.key(), "candidate masks");
    assert_ne!(a.key(), c.key(), "side to move");
    assert_ne!(a.key(), d.key(), "promotion");
    // Interchangeable hand pieces: the key does not depend on which one is which.
    let e = pos("4k4/9/9/9/9/9/9/9/4K4 b Q[NP]2P16Q19q 1");
    let f = pos("4k4/9/9/9/9/9/9/9/4K4 b 16QPQ[NP]P19q 1");
    assert_eq!(e.key(), f.key());
    // Dropping either of two identical pieces gives the same key.
    let g = play(&e, "P*5e");
    assert_eq!(g.key(), g.compute_key());
}

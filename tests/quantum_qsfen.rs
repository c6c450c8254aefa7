//! QSFEN parsing, validation and canonical writing.

use ryoshi::quantum::{qsfen, Color, Position, Ruleset};

#[test]
fn start_position_round_trips() {
    let p = qsfen::read(qsfen::START).expect("start");
    assert_eq!(qsfen::write(&p), qsfen::START);
    assert_eq!(qsfen::write(&Position::start()), qsfen::START);
    assert_eq!(p.key(), Position::start().key());
    // The move number is optional on input and always written.
    let q = qsfen::read(&qsfen::START[..qsfen::START.len() - 2]).expect("no number");
    assert_eq!(qsfen::write(&q), qsfen::START);
}

#[test]
fn writing_is_canonical() {
    // Candidate letters in any order; a single candidate written as its letter; a set equal to
    // what a bare Q would give written as Q.
    let input = "4k4/9/9/9/4Q[PLNSGBRK]4/9/9/9/3Q[GK]Q[K]4 b 17Q19q 7";
    let p = qsfen::read(input).expect("valid");
    let text = qsfen::write(&p);
    assert_eq!(text, "4k4/9/9/9/4Q4/9/9/9/3GK4 b 17Q19q 7");
    assert_eq!(qsfen::write(&qsfen::read(&text).expect("valid")), text);
}

#[test]
fn hands_are_grouped_and_ordered() {
    let p =
        qsfen::read("4k4/9/9/9/9/9/9/9/4K4 b Q[NP]PQ[GS]2LP~Q12Q2npq[RB]q~14q 1").expect("valid");
    let text = qsfen::write(&p);
    let q = qsfen::read(&text).expect("valid");
    assert_eq!(qsfen::write(&q), text);
    assert_eq!(q.key(), p.key());
    assert_eq!(
        text,
        "4k4/9/9/9/9/9/9/9/4K4 b 2LPQ[GS]Q[NP]13QP~2npq[RB]14qq~ 1"
    );
}

#[test]
fn a_set_in_hand_loses_the_king_as_a_far_rank_set_loses_its_stuck_types() {
    // A captured piece is never the king: `Q[KR]` in hand reads as `R`, as `Q[NS]` on the far
    // rank reads as `S`. Only a set left empty (`Q[K]`) is an error.
    let p = qsfen::read("4k4/9/9/9/9/9/9/9/4K4 b Q[KR]18Q19q 1").expect("valid");
    let q = qsfen::read("4k4/9/9/9/9/9/9/9/4K4 b R18Q19q 1").expect("valid");
    assert_eq!(qsfen::write(&p), qsfen::write(&q));
    assert_eq!(p.key(), q.key());
    let far = qsfen::read("Q[NS]3k4/9/9/9/9/9/9/9/4K4 b 18Q19q 1").expect("valid");
    assert!(
        qsfen::write(&far).starts_with("S3k4/"),
        "{}",
        qsfen::write(&far)
    );
    let err = qsfen::read("4k4/9/9/9/9/9/9/9/4K4 b Q[K]18Q19q 1").expect_err("a king in hand");
    assert!(err.to_string().contains("king"), "{err}");
}

#[test]
fn a_piece_of_the_other_origin_on_the_board_is_not_the_king() {
    // White's king is still uncertain; the black-held Q~ on 5e was white's and was captured.
    let text = "qqqqqqqq1/1q5q1/qqqqqqqqq/9/4Q~4/9/QQQQQQQQQ/1Q5Q1/QQQQQQQQQ b - 1";
    let p = qsfen::read(text).expect("valid");
    // Pieces 20..40 are of white's origin.
    let foreign: Vec<_> = (20..40)
        .filter(|&i| p.piece(i).owner == Color::Black)
        .collect();
    assert_eq!(foreign.len(), 1);
    assert_eq!(p.piece(foreign[0]).mask & ryoshi::quantum::types::K, 0);
    // Still written as a bare Q: no restriction beyond what its place excludes.
    assert_eq!(qsfen::write(&p), text);
    let err = qsfen::read("qqqqqqqq1/1q5q1/qqqqqqqqq/9/4K~4/9/QQQQQQQQQ/1Q5Q1/QQQQQQQQQ b - 1")
        .expect_err("a captured king");
    assert!(err.to_string().contains("cannot be a king"), "{err}");
}

#[test]
fn bad_positions_are_rejected_with_a_reason() {
    for (text, why) in [
        ("", "malformed"),
        (
            "qqqqqqqqq/1q5q1/qqqqqqqqq/9/9/9/QQQQQQQQQ/1Q5Q1/QQQQQQQQQ",
            "malformed",
        ),
        (
            "qqqqqqqqq/1q5q1/qqqqqqqqq/9/9/9/QQQQQQQQQ/1Q5Q1/QQQQQQQQQ x - 1",
            "malformed",
        ),
        (
            "qqqqqqqqq/1q5q1/qqqqqqqqq/9/9/9/QQQQQQQQQ/1Q5Q1/QQQQQQQQ b - 1",
            "squares",
        ),
        (
            "qqqqqqqqq/1q5q1/qqqqqqqqq/9/9/9/QQQQQQQQQ/1Q5Q1/QQQQQQQQQQ b - 1",
            "squares",
        ),
        (
            "qqqqqqqqq/1q5q1/qqqqqqqqq/9/9/9/QQQQQQQQQ/1Q5Q1 b - 1",
            "9 ranks",
        ),
        (
            "qqqqqqqqq/1q5q1/qqqqqqqqq/9/9/9/QQQQQQQQQ/1Q5Q1/QQQQQQQQQ b Q 1",
            "more than 40",
        ),
        (
            "qqqqqqqqq/1q5q1/qqqqqqqqq/9/9/9/QQQQQQQQQ/1Q5Q1/QQQQQQQQQ b 40Q40Q40Q 1",
            "more than 40",
        ),
        (
            "qqqqqqqqq/1q5q1/qqqqqqqq1/9/9/9/QQQQQQQQQ/1Q5Q1/QQQQQQQQQ b Q 1",
            "21 pieces",
        ),
        (
            "qqqqqqqqq/1q5q1/qqqqqqqqq/9/9/9/QQQQQQQQQ/1Q5Q1/QQQQQQQQ1 b - 1",
            "19 pieces",
        ),
        ("4k4/9/9/9/9/9/9/9/4K4 b 3G16Q19q 1", "consistent"),
        ("4k4/9/9/9/9/9/9/9/3KK4 b 18Q19q 1", "consistent"),
        ("4k4/9/9/9/9/9/9/9/4+K4 b 19Q19q 1", "promoted"),
        ("4k4/9/9/9/9/9/9/9/4K4 b K18Q19q 1", "king"),
        ("4P4/9/9/9/9/9/9/9/4K4 w 18Q19q 1", "never move"),
        ("N8/9/9/9/9/9/9/9/4K4 w 18Q19q 1", "never move"),
        ("4k4/9/9/9/9/9/9/9/4P[P]4 b 18Q19q 1", "malformed"),
        ("4k4/9/9/9/9/9/9/9/4Q[]4 b 18Q19q 1", "malformed"),
        ("4k4/9/9/9/9/9/9/9/4K4 b 0Q19Q19q 1", "count"),
        ("4k4/9/9/9/9/9/9/9/4K4 b 19Q19q 0", "move number"),
        ("4k4/9/9/9/9/9/9/9/4K4 b 19Q19q 1 extra", "malformed"),
    ] {
        match qsfen::read(text) {
            Ok(p) => panic!("accepted {text:?} as {}", qsfen::write(&p)),
            Err(e) => assert!(e.to_string().contains(why), "{text:?}: {e}"),
        }
    }
}

#[test]
fn an_infeasible_set_of_candidates_is_rejected() {
    // Ten certain pawns of one origin.
    let text = "4k4/9/9/9/9/9/PPPPPPPPP/9/4K4 b P9Q19q 1";
    let e = qsfen::read(text).expect_err("infeasible");
    assert!(e.to_string().contains("consistent"), "{e}");
}

#[test]
fn drops_name_pieces_by_token() {
    let p = qsfen::read("4k4/9/9/9/9/9/9/9/4K4 b Q[RSL]~PQ[GS]17Q18q 1").expect("valid");
    let rules = Ruleset::default();
    for name in ["Q[RSL]~*5e", "Q[LSR]~*5e", "P*5e", "Q[GS]*5e", "Q*5e"] {
        let a = p
            .parse_action(name, &rules)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let canonical = p.action_name(a);
        assert_eq!(
            p.parse_action(&canonical, &rules),
            Ok(a),
            "{name} -> {canonical}"
        );
    }
    for bad in [
        "Q[RS]~*5e",
        "P~*5e",
        "Q[GS]~*5e",
        "q*5e",
        "Q*5j",
        "Q*",
        "*5e",
        "Q[GS]*5i",
    ] {
        assert!(p.parse_action(bad, &rules).is_err(), "{bad}");
    }
}

/// Seeded random strings over the QSFEN alphabet (and mutations of valid positions) never
/// panic; whatever parses writes back to a stable canonical form.
#[test]
fn fuzzed_qsfen_and_actions_never_panic() {
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    let alphabet: Vec<char> = "QqKkRrBbGgSsNnLlPp123456789/+[]~- bw0*abcdefghi\u{3042}"
        .chars()
        .collect();
    let seeds = [
        qsfen::START,
        "4k4/9/9/9/9/9/9/9/4K4 b Q[NP]PQ[GS]2LP~Q12Q2npq[RB]q~14q 1",
        "KRBGGSSG~G~/PPPPPPPPP/9/9/4k4/9/9/9/9 b 4q[NL]~17q 1",
    ];
    let mut accepted = 0;
    for n in 0..20_000 {
        let text: String = if n % 2 == 0 {
            (0..next(120))
                .map(|_| alphabet[next(alphabet.len())])
                .collect()
        } else {
            // Mutate a valid position: replace, delete or insert a few characters.
            let mut chars: Vec<char> = seeds[next(seeds.len())].chars().collect();
            for _ in 0..1 + next(3) {
                let i = next(chars.len());
                match next(3) {
                    0 => chars[i] = alphabet[next(alphabet.len())],
                    1 => {
                        chars.remove(i);
                    }
                    _ => chars.insert(i, alphabet[next(alphabet.len())]),
                }
            }
            chars.into_iter().collect()
        };
        if let Ok(p) = qsfen::read(&text) {
            accepted += 1;
            let w = qsfen::write(&p);
            let back = qsfen::read(&w).unwrap_or_else(|e| panic!("{text} -> {w}: {e}"));
            assert_eq!(qsfen::write(&back), w, "{text}");
            assert_eq!(back.key(), p.key(), "{text}");
        }
    }
    assert!(accepted > 100, "{accepted} mutated positions accepted");
    // Random action strings against the start position.
    let p = Position::start();
    let rules = Ruleset::default();
    for _ in 0..20_000 {
        let text: String = (0..next(10))
            .map(|_| alphabet[next(alphabet.len())])
            .collect();
        let _ = p.parse_action(&text, &rules);
    }
}

/// Game 275 of `evidence/issue47-selfplay.jsonl.gz` (the second tuning round's data, played by
/// 2300478): its 54th move drops `Q~`, a piece that today's `bare_q` no longer writes bare (it
/// is `q[NP]~` now). A bare Q that names no bare piece still names the one uncertain piece of
/// its origin in hand, so the old records, and the tuner's data, read as they were written.
#[test]
fn an_older_records_bare_q_drop_still_reads() {
    let moves = "6i7h 4c4f 1g1f 5c5b 8i9h 4a5c 6g5f 8c8g+ 8h8g Q~*5d Q[RL]~*4a 5a4a 9g9c 8b9c \
        2g2c 5d5f 4g5f 2b2c 5g4f 6a5a L~*4c 5b4c 8g8f 2c2h Q[BSNP]~*2e 1c2e 9h4c+ Q[GSNP]~*6i \
        7h6i Q[RL]~*5d 4c5d Q[RL]~*2f Q[BSP]~*1d 2a5d Q[RL]*2a 2e3g L*4d 3c4d 2a2d Q[GS]~*5e \
        4f3g 5e5f 2d4d Q[GS]~*4c 4d5d 4c5d N~*3c 4a3b Q[GS]*4a L*6d 6i7h 6d6h+ 7h8g";
    let rules = Ruleset::default();
    let mut pos = Position::start();
    for mv in moves.split_whitespace() {
        let action = pos
            .parse_action(mv, &rules)
            .unwrap_or_else(|e| panic!("{mv}: {e}"));
        assert!(pos.apply(action), "{mv}");
    }
    let hand = |pos: &Position| {
        qsfen::write(pos)
            .split_whitespace()
            .nth(2)
            .unwrap_or("")
            .to_string()
    };
    let before = qsfen::write(&pos);
    assert!(hand(&pos).contains("q[NP]~"), "{before}");
    let action = pos
        .parse_action("Q~*2e", &rules)
        .expect("the uncertain piece");
    assert!(pos.apply(action));
    assert!(!hand(&pos).contains("q[NP]~"), "{}", qsfen::write(&pos));
    // A set that no piece in hand has is still an error.
    let again = qsfen::read(&before).expect("valid");
    assert!(again.parse_action("Q[RB]~*2e", &rules).is_err());
}

//! The `bench` signature: its node count is pinned (a change to the search must update it and
//! say why), it is the same through the protocol and the command line, and it sees the pruning
//! (null move, late-move reductions, futility and late-move pruning change it).

mod common;
use common::{transcript, BIN};
use std::process::Command;

/// `Nodes searched` of the quantum shogi bench at its default depth (5). 93727 since the moves
/// are staged (captures first, the quiet moves generated only when none cuts off): equal
/// captures now come in the order of their generation, and the quiet moves are ordered by the
/// history as it stands once the captures are searched. 93066 since quiescence
/// goes two plies deep, not three. 123358 since the second tuning round's weights (issue 47: larger
/// mobility, lighter pieces; 113147 with the reverse-futility margin of 125 cp a ply screened at
/// stop 53, not kept); 136420 since a node whose certain king is attacked gets no reverse futility
/// or null move, and a quiet move attacking a certain king two plies or more from the horizon is
/// not pruned; 135006 since the root's late moves are reduced and ordered by their last search's
/// size; 165446 since internal iterative reduction and the null move's growing reduction; 201270
/// since the history table's gravity and malus, and the depth moved from 4 to 5 (200947 before the
/// history change; at depth 4 it was 67779 both before and after, blind to it). At depth 4: 67779
/// since futility and late-move pruning (93959 with the old weights) and the evaluation's weights
/// tuned from self-play (553851 with the old pruning); 589124 before both.
const SIGNATURE: u64 = 93_727;

fn nodes(out: &str) -> u64 {
    out.lines()
        .last()
        .and_then(|l| l.strip_prefix("Nodes searched: "))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no node count in {out}"))
}

fn cli(args: &[&str]) -> String {
    let out = Command::new(BIN).args(args).output().expect("run ryoshi");
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn the_signature_is_pinned_and_the_same_everywhere() {
    assert_eq!(nodes(&transcript(b"bench\n")), SIGNATURE);
    assert_eq!(nodes(&cli(&["bench"])), SIGNATURE);
    assert_eq!(nodes(&cli(&["bench", "search"])), SIGNATURE);
}

#[test]
fn switching_pruning_off_changes_the_signature() {
    // At depth 4, where the search without them is still quick.
    let on = nodes(&cli(&["bench", "search", "4"]));
    let off = nodes(&cli(&["bench", "search", "4", "nopruning"]));
    assert_ne!(off, on);
    // Without the unsound reductions the search visits more nodes.
    assert!(off > on, "{off} against {on}");
}

/// `Nodes searched` of the Othello bench (level 3, depth 8, five openings): the midgame search's
/// signature. 149948 since the fitted tempo (issue 67: the side to move's bonus of 1.0 to 1.8
/// discs by phase; the same five best moves, their scores 1.4 to 1.5 discs higher, other
/// cut-offs where the iterations of odd and even depth meet); 156888 since the second fit of
/// the weights; 167217 since Multi-ProbCut (`othello/search/probcut.rs`); 301631 since the
/// learned pattern evaluation of issue 18 replaced the hand-set one (other scores, other
/// cut-offs); 234154 before, since the bench moved from the session into
/// `othello/search/bench.rs`.
const OTHELLO_SIGNATURE: u64 = 149_948;

/// `Nodes searched` of the Go search signature (`bench go-playouts`): the tree's nodes after
/// 4000 playouts from the empty 9x9 board, seed 1, one thread. Pinned since the Monte Carlo tree
/// search of issue 22: playout policy, priors, RAVE or expansion changes move it. 158640 since
/// RAVE's equivalence went from 3000 to 1500 (issue 46, stop 58: AMAF weighs less, so other
/// moves are tried); 159575 since the priors' playouts counted in RAVE's beta (issue 46, stop
/// 53: more leaves reach their expansion; 62092 since the Bradley–Terry priors of issue 46, 63687 since the weighted RAVE
/// updates, 65401 since the playouts' two-liberty fights, 63191 since the
/// distance-to-the-last-move prior, 64162 before).
const GO_SIGNATURE: u64 = 158_640;

#[test]
fn the_go_search_signature_is_pinned_and_reproducible() {
    // A short timed part (0.05 s per figure), then the fixed search.
    let first = cli(&["bench", "go-playouts", "0.05", "1"]);
    assert_eq!(nodes(&first), GO_SIGNATURE, "{first}");
    let again = cli(&["bench", "go-playouts", "0.05", "1"]);
    assert_eq!(
        first.lines().rev().nth(1),
        again.lines().rev().nth(1),
        "the same best move"
    );
    assert!(first.contains("go playouts 19x19: "), "{first}");
}

#[test]
fn the_othello_and_go_signatures_are_the_same_through_the_protocol() {
    for (variant, signature) in [("othello", OTHELLO_SIGNATURE), ("go", GO_SIGNATURE)] {
        let out =
            transcript(format!("setoption name USI_Variant value {variant}\nbench\n").as_bytes());
        assert_eq!(nodes(&out), signature, "{variant}: {out}");
    }
}

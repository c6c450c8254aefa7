//! A whole side (20 pieces for 20 slots) projected from one complete assignment: the pieces
//! seated greedily, Kuhn's augmenting paths when that gets stuck, and the tight sets read off
//! the 8×8 bit matrix of links between types.

use super::{Tight, H, LOW7};
use crate::quantum::types::{Mask, CAPACITY, PIECES_PER_SIDE};

/// One slot per piece a side holds, the plentiful types lowest: P ×9, L ×2, N ×2, S ×2, G ×2,
/// B, R, K. A greedy seating that takes the lowest free slot leaves the scarce types to the
/// pieces that need them.
const SLOT_TYPE: [u8; PIECES_PER_SIDE] =
    [7, 7, 7, 7, 7, 7, 7, 7, 7, 6, 6, 5, 5, 4, 4, 3, 3, 2, 1, 0];

/// `SLOTS[d]`: the slots of the types in `d`.
const SLOTS: [u32; 256] = slot_table();

const fn slot_table() -> [u32; 256] {
    let mut t = [0u32; 256];
    let mut d = 0;
    while d < 256 {
        let mut s = 0;
        while s < PIECES_PER_SIDE {
            if d & (1 << SLOT_TYPE[s]) != 0 {
                t[d] |= 1 << s;
            }
            s += 1;
        }
        d += 1;
    }
    t
}

const LANES: u64 = 0x0101_0101_0101_0101;

/// `LANE[s]`: one in the byte lane of slot `s`'s type (a set times it lands in that lane);
/// 32 entries so that a slot from a u32's bits needs no bounds check.
const LANE: [u64; 32] = lane_table();

const fn lane_table() -> [u64; 32] {
    let mut t = [0u64; 32];
    let mut s = 0;
    while s < PIECES_PER_SIDE {
        t[s] = 1 << (8 * SLOT_TYPE[s]);
        s += 1;
    }
    t
}

/// The slots of type P: the nine lowest.
const PAWN_SLOTS: u32 = (1 << CAPACITY[7]) - 1;

/// A complete assignment of a whole side, or None when none exists: the slot each piece is
/// seated in, and the links (byte lane `x`: the union of the sets of the pieces seated in a
/// slot of type `x`).
///
/// Pieces are seated greedily, each in the lowest free slot of its set; a piece that finds none
/// is seated by an augmenting path (Kuhn's), and when there is no such path no complete
/// assignment exists (a piece Kuhn's algorithm cannot seat is never seated later). Seating one
/// by one gives P's slots to the first nine pieces that may be P, so those are found at once
/// and only the other eleven are seated one by one: each seat waits for the one before.
#[inline]
fn seat(masks: &[Mask; PIECES_PER_SIDE]) -> Option<([u8; PIECES_PER_SIDE], u64)> {
    let mut may_pawn = 0u32;
    for (k, x) in words(masks).into_iter().enumerate() {
        // Bit 7 of each lane gathered into one byte, lane j to bit j.
        let bits = ((x & H) >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56;
        may_pawn |= (bits as u32) << (8 * k);
    }
    let mut later = may_pawn;
    for _ in 0..CAPACITY[7] - 1 {
        later &= later.wrapping_sub(1);
    }
    if later == 0 {
        // Fewer than nine pieces may be P.
        return None;
    }
    later &= later - 1;
    let pawns = may_pawn ^ later;
    // Every pawn is given P's first slot: only the type of a slot matters to `augment`.
    let mut slot = [0u8; PIECES_PER_SIDE];
    let mut links = 0u64;
    let mut free = ((1u32 << PIECES_PER_SIDE) - 1) & !PAWN_SLOTS;
    let mut rest = ((1u32 << PIECES_PER_SIDE) - 1) & !pawns;
    let mut moved = false;
    while rest != 0 {
        let i = rest.trailing_zeros() as usize;
        rest &= rest - 1;
        let d = masks[i];
        let open = SLOTS[d as usize] & free;
        if open == 0 {
            // Every piece before `i` and every pawn is seated.
            free = augment(masks, &mut slot, free, i, pawns | ((1 << i) - 1))?;
            moved = true;
            continue;
        }
        free ^= open & open.wrapping_neg();
        let s = open.trailing_zeros() as usize & 31;
        slot[i] = s as u8;
        links |= (d as u64).wrapping_mul(LANE[s]);
    }
    if moved {
        // The chains moved pieces between types.
        links = 0;
        for (&d, &s) in masks.iter().zip(&slot) {
            links |= (d as u64).wrapping_mul(LANE[s as usize & 31]);
        }
    } else {
        // The pawns' sets, selected lane by lane (bit j of a byte to 0xFF in lane j).
        let mut pawn_sets = 0u64;
        for (k, x) in words(masks).into_iter().enumerate() {
            let bits = ((pawns >> (8 * k)) & 0xFF) as u64;
            let picked = ((bits.wrapping_mul(LANES) & 0x8040_2010_0804_0201) + LOW7) & H;
            pawn_sets |= x & (picked >> 7).wrapping_mul(0xFF);
        }
        links |= (or_lanes(pawn_sets) as u64) << (8 * 7);
    }
    Some((slot, links))
}

/// Seats piece `i` (every slot of its set taken) by moving `seated` pieces along a shortest
/// chain of types to one with a free slot: breadth first over types, `via[z]` the piece that
/// would move into type `z` (`i` itself for its own types). Returns the free slots after, or
/// None when no chain exists.
#[cold]
fn augment(
    masks: &[Mask; PIECES_PER_SIDE],
    slot: &mut [u8; PIECES_PER_SIDE],
    free: u32,
    i: usize,
    seated: u32,
) -> Option<u32> {
    let mut via = [i; 8];
    let mut seen = masks[i];
    let mut frontier = seen;
    while frontier != 0 {
        let mut next = 0;
        let mut rest = seated;
        while rest != 0 {
            let j = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            if frontier & (1 << SLOT_TYPE[slot[j] as usize]) == 0 {
                continue;
            }
            let mut new = masks[j] & !seen;
            seen |= new;
            next |= new;
            while new != 0 {
                let z = new.trailing_zeros() as usize;
                new &= new - 1;
                via[z] = j;
                let open = SLOTS[1 << z] & free;
                if open != 0 {
                    // Each piece on the chain takes the slot the next one leaves.
                    let mut s = open.trailing_zeros() as u8;
                    let mut z = z;
                    loop {
                        let k = via[z];
                        if k == i {
                            slot[i] = s;
                            return Some(free ^ (open & open.wrapping_neg()));
                        }
                        (slot[k], s) = (s, slot[k]);
                        z = SLOT_TYPE[s as usize] as usize;
                    }
                }
            }
        }
        frontier = next;
    }
    None
}

/// The transitive closure of the links (Warshall): lane `t` becomes everything reachable from
/// `t`.
#[inline]
pub(super) fn closure(links: u64) -> u64 {
    let mut reach = links;
    for k in 0..8 {
        let holds_k = (reach >> k) & LANES;
        let row_k = (reach >> (8 * k)) & 0xFF;
        reach |= holds_k.wrapping_mul(0xFF) & row_k.wrapping_mul(LANES);
    }
    reach
}

/// The links and the paths of two links: lane `t` gains what its types link to. The eight
/// terms are independent, unlike Warshall's steps.
#[inline]
fn square(links: u64) -> u64 {
    let mut out = links;
    for k in 0..8 {
        let holds_k = (links >> k) & LANES;
        let row_k = (links >> (8 * k)) & 0xFF;
        out |= holds_k.wrapping_mul(0xFF) & row_k.wrapping_mul(LANES);
    }
    out
}

/// The OR of the eight byte lanes.
#[inline]
fn or_lanes(mut x: u64) -> Mask {
    x |= x >> 32;
    x |= x >> 16;
    x |= x >> 8;
    x as Mask
}

/// Some piece's set is empty (bit 7 of a byte lane set for each empty set).
#[inline]
fn any_empty(masks: &[Mask; PIECES_PER_SIDE]) -> bool {
    let [a, b, c] = words(masks);
    // The last word's four missing lanes count as full sets.
    let c = c | 0xFFFF_FFFF << 32;
    let zero = |x: u64| !((((x & LOW7) + LOW7) | x) & H) & H;
    (zero(a) | zero(b) | zero(c)) != 0
}

/// A side's sets as byte lanes of three words (the last four lanes zero).
#[inline]
fn words(masks: &[Mask; PIECES_PER_SIDE]) -> [u64; 3] {
    let [a0, a1, a2, a3, a4, a5, a6, a7, b0, b1, b2, b3, b4, b5, b6, b7, c0, c1, c2, c3] = *masks;
    [
        u64::from_le_bytes([a0, a1, a2, a3, a4, a5, a6, a7]),
        u64::from_le_bytes([b0, b1, b2, b3, b4, b5, b6, b7]),
        u32::from_le_bytes([c0, c1, c2, c3]) as u64,
    ]
}

/// Whole-side Hall analysis from one complete assignment, without counting subsets.
///
/// With 20 pieces in 20 slots every slot is filled, so a type set is tight exactly when no
/// piece seated in it may be a type outside it: the tight sets are the sets closed under the
/// links ("a piece seated in `x` may be `y`"), and the least tight set holding `t` is everything
/// reachable from `t`. A piece seated in `a` may be `t` iff `a` is reachable from `t` (then its
/// whole set is: `a`'s links include it), so no set narrows when every link runs back.
#[inline]
pub(super) fn project_seated(masks: &mut [Mask; PIECES_PER_SIDE]) -> bool {
    // An empty set is the most common reason for no assignment after an action: say so at once.
    if any_empty(masks) {
        return false;
    }
    let Some((slot, links)) = seat(masks) else {
        return false;
    };
    // Most often every link is answered by a path back of one or two links: then nothing
    // narrows, and the full closure is not needed.
    let two = square(links);
    if links & !transpose(two) == 0 {
        return true;
    }
    // Lane a: the types t from which a is reachable.
    let back = transpose(closure(two));
    if links & !back != 0 {
        for (d, &s) in masks.iter_mut().zip(&slot) {
            *d &= (back >> (8 * SLOT_TYPE[s as usize])) as Mask;
        }
    }
    true
}

/// [`analyze`](super::analyze) of a whole side (see [`project_seated`]).
pub(super) fn analyze_seated(masks: &[Mask; PIECES_PER_SIDE]) -> Option<Tight> {
    let (_, links) = seat(masks)?;
    let reach = closure(links);
    let mut least = [0; 8];
    for (t, l) in least.iter_mut().enumerate() {
        *l = (reach >> (8 * t)) as Mask;
    }
    Some(Tight { least })
}

/// The transpose of an 8×8 bit matrix held as eight byte rows (bit c of byte r ↔ bit r of
/// byte c).
#[inline]
fn transpose(mut x: u64) -> u64 {
    let t = (x ^ (x >> 7)) & 0x00AA_00AA_00AA_00AA;
    x ^= t ^ (t << 7);
    let t = (x ^ (x >> 14)) & 0x0000_CCCC_0000_CCCC;
    x ^= t ^ (t << 14);
    let t = (x ^ (x >> 28)) & 0x0000_0000_F0F0_F0F0;
    x ^= t ^ (t << 28);
    x
}

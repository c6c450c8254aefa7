//! The learned Othello evaluation, in the manner of Logistello, Edax and Egaroucid: the board is
//! read through 46 pattern instances of 11 shapes (edge + 2X, corner 3×3 and 2×5, the diagonals
//! of 4 to 8 squares, the lines 2 to 4 from the edge), plus both sides' mobility and the parity
//! of the empties; each reading indexes a weight, and the weights come by game phase (disc
//! count). The sum is centi-discs of final margin for the side to move.
//!
//! The weights are fitted by `ryoshi tune othello fit` (src/othello/tune.rs) and built into the
//! binary as `weights.bin` (a header naming the command, then a zero-run-coded table of i16);
//! nothing is read at run time.
//!
//! Reading a pattern needs no pext: each shape is read once in its canonical place (near a1)
//! from the eight symmetric images of the board (byte swap, file mirror, transpose), by shifts
//! and masks, or a multiply for diagonals (their squares sit on distinct files, so the product
//! gathers them into the top byte without carries). A 10-bit set of squares becomes a base-3
//! number through one table (`TERNARY`): index = T[own] + 2·T[theirs].

use crate::othello::board::moves;
use crate::othello::perft::{flip_diagonal, mirror_horizontal};
use once_cell::sync::Lazy;

/// Game phases: disc count 4..=64 in this many equal buckets.
pub const PHASES: usize = 8;

/// The phase of a position with `discs` discs on the board.
#[inline]
pub fn phase(discs: u32) -> usize {
    ((discs.saturating_sub(4) as usize) * PHASES / 61).min(PHASES - 1)
}

/// The shapes, each as its squares in its canonical place (digit i of the index reads the i-th
/// square), the symmetric images it is read from, and its self-symmetry (for tying weights).
pub struct Shape {
    pub name: &'static str,
    pub squares: &'static [u8],
    pub images: &'static [usize],
    pub mirror: Mirror,
}

/// A symmetry that maps a shape onto itself (its two readings share a weight in the fit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mirror {
    None,
    /// Files reversed: (rank, file) -> (rank, 7 - file).
    Files,
    /// Transposed on a1-h8: (rank, file) -> (file, rank).
    Diagonal,
    /// Transposed on h1-a8: (rank, file) -> (7 - file, 7 - rank).
    AntiDiagonal,
}

impl Mirror {
    pub fn map(self, sq: u8) -> u8 {
        let (r, f) = (sq / 8, sq % 8);
        match self {
            Mirror::None => sq,
            Mirror::Files => r * 8 + (7 - f),
            Mirror::Diagonal => f * 8 + r,
            Mirror::AntiDiagonal => (7 - f) * 8 + (7 - r),
        }
    }
}

// Symmetric images of the board: I, H (files mirrored), V (ranks reversed), HV, then the
// transpose T of each.
const I: usize = 0;
const H: usize = 1;
const V: usize = 2;
const HV: usize = 3;
const T: usize = 4;
const TH: usize = 5;
const TV: usize = 6;
const THV: usize = 7;

const SIDES: &[usize] = &[I, V, T, TH];
const CORNERS4: &[usize] = &[I, H, V, HV];
const ALL8: &[usize] = &[I, H, V, HV, T, TH, TV, THV];
const DIAG4: &[usize] = &[I, T, H, TH];

pub const SHAPES: [Shape; 11] = [
    Shape {
        name: "edge+2X",
        squares: &[0, 1, 2, 3, 4, 5, 6, 7, 9, 14],
        images: SIDES,
        mirror: Mirror::Files,
    },
    Shape {
        name: "corner 3x3",
        squares: &[0, 1, 2, 8, 9, 10, 16, 17, 18],
        images: CORNERS4,
        mirror: Mirror::Diagonal,
    },
    Shape {
        name: "corner 2x5",
        squares: &[0, 1, 2, 3, 4, 8, 9, 10, 11, 12],
        images: ALL8,
        mirror: Mirror::None,
    },
    Shape {
        name: "line 2",
        squares: &[8, 9, 10, 11, 12, 13, 14, 15],
        images: SIDES,
        mirror: Mirror::Files,
    },
    Shape {
        name: "line 3",
        squares: &[16, 17, 18, 19, 20, 21, 22, 23],
        images: SIDES,
        mirror: Mirror::Files,
    },
    Shape {
        name: "line 4",
        squares: &[24, 25, 26, 27, 28, 29, 30, 31],
        images: SIDES,
        mirror: Mirror::Files,
    },
    Shape {
        name: "diagonal 8",
        squares: &[0, 9, 18, 27, 36, 45, 54, 63],
        images: &[I, H],
        mirror: Mirror::AntiDiagonal,
    },
    Shape {
        name: "diagonal 7",
        squares: &[1, 10, 19, 28, 37, 46, 55],
        images: DIAG4,
        mirror: Mirror::AntiDiagonal,
    },
    Shape {
        name: "diagonal 6",
        squares: &[2, 11, 20, 29, 38, 47],
        images: DIAG4,
        mirror: Mirror::AntiDiagonal,
    },
    Shape {
        name: "diagonal 5",
        squares: &[3, 12, 21, 30, 39],
        images: DIAG4,
        mirror: Mirror::AntiDiagonal,
    },
    Shape {
        name: "diagonal 4",
        squares: &[4, 13, 22, 31],
        images: DIAG4,
        mirror: Mirror::AntiDiagonal,
    },
];

/// Mobility is counted up to this (more is read as this).
pub const MOBILITY_CAP: usize = 33;

/// Pattern instances: the sum of the shapes' images.
pub const INSTANCES: usize = 46;
/// Features of a position: the instances, then own mobility, their mobility, parity.
pub const FEATURES: usize = INSTANCES + 3;

const fn pow3(n: usize) -> usize {
    let mut r = 1;
    let mut i = 0;
    while i < n {
        r *= 3;
        i += 1;
    }
    r
}

/// Where each shape's weights start within a phase, then the three scalar tables.
pub const OFFSETS: [usize; 14] = {
    let mut o = [0usize; 14];
    let mut i = 0;
    while i < 11 {
        o[i + 1] = o[i] + pow3(SHAPES[i].squares.len());
        i += 1;
    }
    o[12] = o[11] + MOBILITY_CAP + 1;
    o[13] = o[12] + MOBILITY_CAP + 1;
    o
};
/// Weights per phase.
pub const PHASE_SIZE: usize = OFFSETS[13] + 2;
/// Weights in all.
pub const TABLE_SIZE: usize = PHASE_SIZE * PHASES;

/// Bit i of a 10-bit set as the base-3 digit 1 at position i.
static TERNARY: [u16; 1024] = {
    let mut t = [0u16; 1024];
    let mut x = 0;
    while x < 1024 {
        let mut v = 0u32;
        let mut p = 1u32;
        let mut b = 0;
        while b < 10 {
            if x >> b & 1 == 1 {
                v += p;
            }
            p *= 3;
            b += 1;
        }
        t[x] = v as u16;
        x += 1;
    }
    t
};

/// The eight images in the order I, H, V, HV, T, TH, TV, THV. One transpose serves all four
/// transposed images, as mirroring then transposing is transposing then mirroring the other
/// way: T(H x) = V(T x), T(V x) = H(T x), T(HV x) = HV(T x).
#[inline(always)]
fn images(x: u64) -> [u64; 8] {
    let h = mirror_horizontal(x);
    let v = x.swap_bytes();
    let hv = h.swap_bytes();
    let t = flip_diagonal(x);
    let th = mirror_horizontal(t);
    [x, h, v, hv, t, t.swap_bytes(), th, th.swap_bytes()]
}

/// The squares of shape `s` in its canonical place, as a bit set (bit i = its i-th square).
#[inline(always)]
fn gather(s: usize, x: u64) -> usize {
    const DIAG8: u64 = 0x8040_2010_0804_0201;
    const FILES: u64 = 0x0101_0101_0101_0101;
    (match s {
        0 => (x & 0xFF) | ((x >> 1) & 0x100) | ((x >> 5) & 0x200),
        1 => (x & 7) | ((x >> 5) & 0x38) | ((x >> 10) & 0x1C0),
        2 => (x & 0x1F) | ((x >> 3) & 0x3E0),
        3 => (x >> 8) & 0xFF,
        4 => (x >> 16) & 0xFF,
        5 => (x >> 24) & 0xFF,
        6 => (x & DIAG8).wrapping_mul(FILES) >> 56,
        7 => (x & (DIAG8 << 1) & !(0xFF << 56)).wrapping_mul(FILES) >> 57,
        8 => (x & (DIAG8 << 2) & !(0xFFFF << 48)).wrapping_mul(FILES) >> 58,
        9 => (x & (DIAG8 << 3) & !(0xFF_FFFF << 40)).wrapping_mul(FILES) >> 59,
        _ => (x & (DIAG8 << 4) & !(0xFFFF_FFFF << 32)).wrapping_mul(FILES) >> 60,
    }) as usize
}

/// The features of (p, o), p to move, as indices into one phase's weights; `mp` and `mo` are
/// both sides' move counts.
#[inline]
pub fn features(p: u64, o: u64, mp: u32, mo: u32) -> [u32; FEATURES] {
    let ip = images(p);
    let io = images(o);
    let mut out = [0u32; FEATURES];
    let mut k = 0;
    for (s, shape) in SHAPES.iter().enumerate() {
        for &img in shape.images {
            let idx =
                TERNARY[gather(s, ip[img])] as usize + 2 * TERNARY[gather(s, io[img])] as usize;
            out[k] = (OFFSETS[s] + idx) as u32;
            k += 1;
        }
    }
    out[INSTANCES] = (OFFSETS[11] + (mp as usize).min(MOBILITY_CAP)) as u32;
    out[INSTANCES + 1] = (OFFSETS[12] + (mo as usize).min(MOBILITY_CAP)) as u32;
    out[INSTANCES + 2] = (OFFSETS[13] + ((p | o).count_zeros() & 1) as usize) as u32;
    out
}

/// The weights file: a text header (the command that wrote it), a zero byte, then `RYOW1`, the
/// phase count and phase size (u32 LE), and the table as i16 LE where i16::MIN is followed by a
/// u16 count of zeros.
static WEIGHTS_FILE: &[u8] = include_bytes!("weights.bin");

pub const MAGIC: &[u8; 5] = b"RYOW1";

static WEIGHTS: Lazy<Vec<i16>> =
    Lazy::new(|| decode(WEIGHTS_FILE).unwrap_or_else(|| vec![0; TABLE_SIZE]));

/// The table of a weights file, or None if it is not one of this layout.
pub fn decode(bytes: &[u8]) -> Option<Vec<i16>> {
    let start = bytes.iter().position(|&b| b == 0)? + 1;
    let rest = bytes.get(start..)?;
    if rest.get(..5)? != MAGIC {
        return None;
    }
    let u32_at = |i: usize| -> Option<usize> {
        Some(u32::from_le_bytes(rest.get(i..i + 4)?.try_into().ok()?) as usize)
    };
    if u32_at(5)? != PHASES || u32_at(9)? != PHASE_SIZE {
        return None;
    }
    let mut out = Vec::new();
    out.try_reserve_exact(TABLE_SIZE).ok()?;
    let mut words = rest.get(13..)?.chunks_exact(2);
    while let Some(w) = words.next() {
        let v = i16::from_le_bytes([w[0], w[1]]);
        if v == i16::MIN {
            let n = words.next()?;
            let n = u16::from_le_bytes([n[0], n[1]]) as usize;
            if out.len() + n > TABLE_SIZE {
                return None;
            }
            out.resize(out.len() + n, 0);
        } else {
            if out.len() == TABLE_SIZE {
                return None;
            }
            out.push(v);
        }
    }
    (out.len() == TABLE_SIZE).then_some(out)
}

/// The bytes of a weights file for `table` (TABLE_SIZE values, none i16::MIN) under `header`.
pub fn encode(header: &str, table: &[i16]) -> Vec<u8> {
    let mut out = header.as_bytes().to_vec();
    out.push(0);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(PHASES as u32).to_le_bytes());
    out.extend_from_slice(&(PHASE_SIZE as u32).to_le_bytes());
    let mut i = 0;
    while i < table.len() {
        if table[i] == 0 {
            let mut n = 0;
            while i < table.len() && table[i] == 0 && n < u16::MAX as usize {
                n += 1;
                i += 1;
            }
            out.extend_from_slice(&i16::MIN.to_le_bytes());
            out.extend_from_slice(&(n as u16).to_le_bytes());
        } else {
            out.extend_from_slice(&table[i].max(i16::MIN + 1).to_le_bytes());
            i += 1;
        }
    }
    out
}

/// The built-in weights file's header (the command that wrote it).
pub fn header() -> &'static str {
    let end = WEIGHTS_FILE.iter().position(|&b| b == 0).unwrap_or(0);
    std::str::from_utf8(&WEIGHTS_FILE[..end]).unwrap_or("")
}

/// The built-in table (all zeros if `weights.bin` does not decode).
pub fn built_in() -> &'static [i16] {
    &WEIGHTS
}

/// Where phase `phase`'s two parity weights sit in the table (even empties, then odd): a
/// constant added to both is a bonus for the side to move in that phase (a tempo).
pub fn parity_slots(phase: usize) -> [usize; 2] {
    let at = phase * PHASE_SIZE + OFFSETS[13];
    [at, at + 1]
}

/// The side to move's bonus by phase, centi-discs, that `ryoshi tune othello tempo` added to
/// the parity weights of a table with this header: the sum of its `Tempo added by` lines (none:
/// zeros). The bonus is fitted for the midgame search's depth-8 horizon.
pub fn tempo_of(header: &str) -> [i32; PHASES] {
    use nom::bytes::complete::{tag, take_until};
    use nom::character::complete::{char, digit1, one_of, space0};
    use nom::multi::count;
    use nom::sequence::{preceded, terminated, tuple};
    use nom::IResult;
    // "+1.38": a sign, discs, two decimals, read as centi-discs.
    fn centi(s: &str) -> IResult<&str, i32> {
        let (rest, (sign, whole, _, frac)) = tuple((one_of("+-"), digit1, char('.'), digit1))(s)?;
        let value = whole.parse::<i32>().unwrap_or(0) * 100 + frac.parse::<i32>().unwrap_or(0);
        Ok((rest, if sign == '-' { -value } else { value }))
    }
    let bonuses = |line: &str| -> Option<Vec<i32>> {
        let (_, values): (&str, Vec<i32>) = preceded(
            tuple((tag("Tempo added by"), take_until("discs: "), tag("discs: "))),
            count(terminated(centi, space0), PHASES),
        )(line)
        .ok()?;
        Some(values)
    };
    let mut out = [0; PHASES];
    for values in header.lines().filter_map(bonuses) {
        for (o, v) in out.iter_mut().zip(values) {
            *o += v;
        }
    }
    out
}

/// The built-in table's tempo ([`tempo_of`] its header).
static TEMPO: Lazy<[i32; PHASES]> = Lazy::new(|| tempo_of(header()));

/// The built-in table's size in the binary, in bytes.
pub fn file_size() -> usize {
    WEIGHTS_FILE.len()
}

/// The evaluation of (p, o) with `mp`/`mo` moves for each side, from `table`; centi-discs.
///
/// The same sum as over [`features`], but with every shape and image spelled out, so that each
/// gather is inlined with its shape known and no index array is built (the test
/// `the_fast_sum_is_the_feature_sum` holds the two together).
#[inline]
pub fn evaluate_with(table: &[i16], p: u64, o: u64, mp: u32, mo: u32) -> i32 {
    let base = phase((p | o).count_ones()) * PHASE_SIZE;
    let w = &table[base..base + PHASE_SIZE];
    let (ip, io) = (images(p), images(o));
    let mut sum = 0i32;
    // One shape's instances, read from the listed images (as SHAPES lists them).
    macro_rules! shape {
        ($s:literal, [$($img:expr),*]) => {
            $(
                let idx = TERNARY[gather($s, ip[$img])] as usize
                    + 2 * TERNARY[gather($s, io[$img])] as usize;
                sum += w[OFFSETS[$s] + idx] as i32;
            )*
        };
    }
    shape!(0, [I, V, T, TH]);
    shape!(1, [I, H, V, HV]);
    shape!(2, [I, H, V, HV, T, TH, TV, THV]);
    shape!(3, [I, V, T, TH]);
    shape!(4, [I, V, T, TH]);
    shape!(5, [I, V, T, TH]);
    shape!(6, [I, H]);
    shape!(7, [I, T, H, TH]);
    shape!(8, [I, T, H, TH]);
    shape!(9, [I, T, H, TH]);
    shape!(10, [I, T, H, TH]);
    sum += w[OFFSETS[11] + (mp as usize).min(MOBILITY_CAP)] as i32;
    sum += w[OFFSETS[12] + (mo as usize).min(MOBILITY_CAP)] as i32;
    sum += w[OFFSETS[13] + ((p | o).count_zeros() & 1) as usize] as i32;
    sum.clamp(-6300, 6300)
}

/// The learned evaluation of (p, o), p to move, in centi-discs; a finished game scores its
/// discs (times 100).
pub fn evaluate(p: u64, o: u64) -> i32 {
    scored(p, o, false)
}

/// [`evaluate`] without the tempo ([`tempo_of`]): the exact solver's guess and ordering
/// searches, whose horizons are not play's depth 8.
pub fn evaluate_without_tempo(p: u64, o: u64) -> i32 {
    scored(p, o, true)
}

/// Inlined so that each caller's constant `less_tempo` leaves no branch on the hot path.
#[inline(always)]
fn scored(p: u64, o: u64, less_tempo: bool) -> i32 {
    let mp = moves(p, o).count_ones();
    let mo = moves(o, p).count_ones();
    if mp == 0 && mo == 0 {
        return super::solve::final_score(p, o) * 100;
    }
    let score = evaluate_with(&WEIGHTS, p, o, mp, mo);
    if less_tempo {
        score - TEMPO[phase((p | o).count_ones())]
    } else {
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;

    /// The eight images as first written (four transposes): the reference for [`images`].
    fn images_reference(x: u64) -> [u64; 8] {
        let h = mirror_horizontal(x);
        let v = x.swap_bytes();
        let hv = h.swap_bytes();
        [
            x,
            h,
            v,
            hv,
            flip_diagonal(x),
            flip_diagonal(h),
            flip_diagonal(v),
            flip_diagonal(hv),
        ]
    }

    /// The evaluation as first written: the sum of the weights [`features`] names.
    fn evaluate_with_reference(table: &[i16], p: u64, o: u64, mp: u32, mo: u32) -> i32 {
        let f = features(p, o, mp, mo);
        let base = phase((p | o).count_ones()) * PHASE_SIZE;
        let w = &table[base..base + PHASE_SIZE];
        let mut s = 0i32;
        for &i in &f {
            s += w[i as usize] as i32;
        }
        s.clamp(-6300, 6300)
    }

    #[test]
    fn the_fast_images_are_the_reference_images() {
        let mut rng = SplitMix64::new(11);
        for _ in 0..5000 {
            let x = rng.next();
            assert_eq!(images(x), images_reference(x), "{x:#x}");
        }
        for sq in 0..64 {
            assert_eq!(images(1 << sq), images_reference(1 << sq), "square {sq}");
        }
    }

    #[test]
    fn the_fast_sum_is_the_feature_sum() {
        // Random tables (small enough that no sum reaches the clamp, which would hide a
        // misplaced index) and the built-in one, on seeded random positions of every density.
        let mut rng = SplitMix64::new(18);
        let random: Vec<i16> = (0..TABLE_SIZE)
            .map(|_| (rng.next() % 257) as i16 - 128)
            .collect();
        let small: Vec<i16> = (0..TABLE_SIZE)
            .map(|_| (rng.next() % 21) as i16 - 10)
            .collect();
        for table in [&random[..], &small[..], &WEIGHTS[..]] {
            for _ in 0..20000 {
                let (p, o) = random_board(&mut rng);
                let (p, o) = if rng.next() & 1 == 0 {
                    (p, o)
                } else {
                    (p | o, 0)
                };
                let (p, o) = match rng.next() % 3 {
                    0 => (p, o),
                    1 => (p & rng.next(), o & rng.next()),
                    _ => (p | (rng.next() & rng.next() & !o), o),
                };
                let mp = (rng.next() % 40) as u32;
                let mo = (rng.next() % 40) as u32;
                assert_eq!(
                    evaluate_with(table, p, o, mp, mo),
                    evaluate_with_reference(table, p, o, mp, mo),
                    "p {p:#x} o {o:#x} mp {mp} mo {mo}"
                );
            }
        }
    }

    /// Shape `s`'s index read square by square from the image `x` of each side.
    fn slow_index(s: usize, p: u64, o: u64) -> usize {
        let mut idx = 0;
        for (i, &sq) in SHAPES[s].squares.iter().enumerate() {
            let d = if p >> sq & 1 == 1 {
                1
            } else if o >> sq & 1 == 1 {
                2
            } else {
                0
            };
            idx += d * pow3(i);
        }
        idx
    }

    fn random_board(rng: &mut SplitMix64) -> (u64, u64) {
        let a = rng.next() & rng.next();
        let b = rng.next() & !a;
        (a, b)
    }

    #[test]
    fn bit_gathers_read_the_listed_squares() {
        let mut rng = SplitMix64::new(5);
        for _ in 0..2000 {
            let (p, o) = random_board(&mut rng);
            let (ip, io) = (images(p), images(o));
            for s in 0..SHAPES.len() {
                for img in 0..8 {
                    let fast = TERNARY[gather(s, ip[img])] as usize
                        + 2 * TERNARY[gather(s, io[img])] as usize;
                    assert_eq!(
                        fast,
                        slow_index(s, ip[img], io[img]),
                        "shape {s} image {img}"
                    );
                }
            }
        }
    }

    #[test]
    fn instances_cover_the_board_as_the_symmetries_say() {
        assert_eq!(
            SHAPES.iter().map(|s| s.images.len()).sum::<usize>(),
            INSTANCES
        );
        // Every instance of a shape reads a distinct set of squares, and a mirror maps each
        // shape's squares onto themselves.
        for (s, shape) in SHAPES.iter().enumerate() {
            let mut sets = std::collections::BTreeSet::new();
            for &img in shape.images {
                let mut set = 0u64;
                for &sq in shape.squares {
                    // The image's square sq is the original square whose bit lands there.
                    for orig in 0..64 {
                        if images(1u64 << orig)[img] == 1u64 << sq {
                            set |= 1 << orig;
                        }
                    }
                }
                assert_eq!(set.count_ones() as usize, shape.squares.len());
                assert!(sets.insert(set), "shape {s} repeats an instance");
            }
            let mut mirrored: Vec<u8> =
                shape.squares.iter().map(|&q| shape.mirror.map(q)).collect();
            mirrored.sort();
            let mut own = shape.squares.to_vec();
            own.sort();
            assert_eq!(mirrored, own, "{}", shape.name);
        }
    }

    #[test]
    fn weights_round_trip_and_the_built_in_table_decodes() {
        let mut rng = SplitMix64::new(9);
        let table: Vec<i16> = (0..TABLE_SIZE)
            .map(|i| {
                if i % 7 < 3 {
                    (rng.next() % 2001) as i16 - 1000
                } else {
                    0
                }
            })
            .collect();
        let bytes = encode("test header", &table);
        assert_eq!(decode(&bytes).as_deref(), Some(&table[..]));
        assert!(decode(&bytes[..bytes.len() - 2]).is_none());
        assert!(decode(b"no zero byte").is_none());
        let built = decode(WEIGHTS_FILE).expect("weights.bin decodes");
        assert!(
            built.iter().any(|&w| w != 0),
            "the built-in weights are fitted"
        );
        assert!(header().contains("ryoshi tune othello fit"));
    }

    #[test]
    fn the_tempo_is_read_from_the_header_and_taken_off() {
        let line = |t: &str| {
            format!("Tempo added by `ryoshi tune othello tempo x.txt --depth 8`: the side to move's bonus by phase, discs: {t} (600 positions).\n")
        };
        let one = line("+1.38 +1.38 +1.51 +1.80 +1.62 +1.69 +1.02 +0.00");
        let two = line("-0.50 +0.00 +0.01 +1.00 +2.00 +3.00 +4.00 -5.25");
        assert_eq!(tempo_of("fit\nnotes\n"), [0; PHASES]);
        assert_eq!(
            tempo_of(&format!("fit\n{one}")),
            [138, 138, 151, 180, 162, 169, 102, 0]
        );
        assert_eq!(
            tempo_of(&format!("fit\n{one}{two}")),
            [88, 138, 152, 280, 362, 469, 502, -525]
        );
        // A line cut short adds nothing.
        assert_eq!(tempo_of(&line("+1.00 +2.00")), [0; PHASES]);
        // The built-in weights carry a tempo; without it the evaluation is that of the table
        // whose parity weights lack the bonus.
        let tempo = tempo_of(header());
        assert_eq!(header().contains("Tempo added by"), tempo != [0; PHASES]);
        let mut table = built_in().to_vec();
        for (ph, &t) in tempo.iter().enumerate() {
            for i in parity_slots(ph) {
                table[i] = (table[i] as i32 - t) as i16;
            }
        }
        let mut rng = SplitMix64::new(67);
        for _ in 0..2000 {
            let (p, o) = random_board(&mut rng);
            let (mp, mo) = (moves(p, o).count_ones(), moves(o, p).count_ones());
            if mp + mo == 0 {
                continue;
            }
            let without = evaluate_with(&table, p, o, mp, mo);
            if without.abs() < 6000 {
                assert_eq!(evaluate_without_tempo(p, o), without);
            }
        }
    }

    #[test]
    fn the_evaluation_is_symmetric_and_likes_corners() {
        use crate::othello::Board;
        let b = Board::START;
        let e = evaluate(b.player, b.opponent);
        for img in 1..8 {
            let (p, o) = (images(b.player)[img], images(b.opponent)[img]);
            assert_eq!(evaluate(p, o), e);
        }
        // In midgame positions of seeded random games (where the data has corners), the a1
        // corner is worth more to the side that owns it. (Discs far from any game's reach,
        // such as a corner in the opening, read weights the fit never saw: they stay near 0.)
        let mut rng = SplitMix64::new(5);
        let (mut tried, mut better, mut sum) = (0, 0, 0i64);
        while tried < 200 {
            let mut b = Board::START;
            let stop = 24 + rng.below(25) as u32;
            while (b.player | b.opponent).count_ones() < stop && !b.is_game_over() {
                let m = b.moves();
                b = if m == 0 {
                    b.pass()
                } else {
                    let list: Vec<u32> = crate::othello::board::squares(m).collect();
                    b.play(list[rng.index(list.len())]).unwrap()
                };
            }
            if (b.player | b.opponent) & 1 != 0 || b.is_game_over() {
                continue;
            }
            tried += 1;
            let own = evaluate(b.player | 1, b.opponent);
            let theirs = evaluate(b.player, b.opponent | 1);
            better += (own > theirs) as u32;
            sum += (own - theirs) as i64;
        }
        assert!(better >= 160, "{better} of 200");
        assert!(
            sum / 200 >= 200,
            "mean corner worth {} centi-discs",
            sum / 200
        );
    }
}

//! The transposition table: one entry per slot, depth-preferred replacement, shared by every
//! search thread without locks.
//!
//! A slot is three atomic words: the two data words and their XOR with the key (the scheme of
//! Hyatt and Mann's lockless hashing, as Crafty and Stockfish use it). Threads read and write
//! slots with plain relaxed loads and stores; when two writes interleave, the words left in the
//! slot come from different entries and their XOR no longer gives the probed key, so a torn entry
//! is never taken as valid (a probe finds nothing). An entry is written as it was before the
//! table was shared (same fields, same size, same slot count), so one thread searches exactly as
//! it did.

// SAFETY: allowed for madvise for huge pages on the table's own allocation (libc).
// Each unsafe block says why it is sound.
#![allow(unsafe_code)]

use super::game::WIN_BOUND;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering::Relaxed};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    Exact,
    Lower,
    Upper,
}

#[derive(Clone, Copy, Debug)]
pub struct Entry {
    pub key: u64,
    pub code: u32,
    pub score: i32,
    pub depth: i16,
    pub bound: Bound,
    pub age: u8,
}

/// `check` = key ^ `low` ^ `high`; `low` = code | score << 32; `high` = depth (16 bits) |
/// bound code (8 bits; 0 = empty slot) | age (8 bits).
#[derive(Default)]
struct Slot {
    check: AtomicU64,
    low: AtomicU64,
    high: AtomicU64,
}

/// The size of one slot in the sizing rule: the size the single-threaded table's entries had
/// (`Option<Entry>`), so a given `USI_Hash` gives the same number of slots as before.
const SLOT_BYTES: usize = 24;

pub struct Table {
    slots: Vec<Slot>,
    mask: usize,
    age: AtomicU8,
}

impl Entry {
    fn words(&self) -> (u64, u64) {
        let low = self.code as u64 | (self.score as u32 as u64) << 32;
        let bound = match self.bound {
            Bound::Exact => 1u64,
            Bound::Lower => 2,
            Bound::Upper => 3,
        };
        let high = self.depth as u16 as u64 | bound << 16 | (self.age as u64) << 24;
        (low, high)
    }

    /// The entry whose words these are, whatever key they were stored under; `None` for an
    /// empty slot.
    fn from_words(check: u64, low: u64, high: u64) -> Option<Entry> {
        let bound = match (high >> 16) as u8 {
            1 => Bound::Exact,
            2 => Bound::Lower,
            3 => Bound::Upper,
            _ => return None,
        };
        Some(Entry {
            key: check ^ low ^ high,
            code: low as u32,
            score: (low >> 32) as u32 as i32,
            depth: high as u16 as i16,
            bound,
            age: (high >> 24) as u8,
        })
    }
}

impl Slot {
    fn load(&self) -> Option<Entry> {
        let check = self.check.load(Relaxed);
        let low = self.low.load(Relaxed);
        let high = self.high.load(Relaxed);
        Entry::from_words(check, low, high)
    }

    fn save(&self, entry: &Entry) {
        let (low, high) = entry.words();
        self.check.store(entry.key ^ low ^ high, Relaxed);
        self.low.store(low, Relaxed);
        self.high.store(high, Relaxed);
    }
}

impl Table {
    /// A table of at most `mb` MiB (a power of two number of slots).
    pub fn new(mb: u64) -> Table {
        let len = Self::slots_for(mb);
        let mut slots = Vec::with_capacity(len);
        advise_huge_pages(&slots);
        slots.resize_with(len, Slot::default);
        Table {
            slots,
            mask: len - 1,
            age: AtomicU8::new(0),
        }
    }

    /// As [`Table::new`], or `None` when the memory is not there (no abort).
    pub fn try_new(mb: u64) -> Option<Table> {
        let len = Self::slots_for(mb);
        let mut slots = Vec::new();
        slots.try_reserve_exact(len).ok()?;
        advise_huge_pages(&slots);
        slots.resize_with(len, Slot::default);
        Some(Table {
            slots,
            mask: len - 1,
            age: AtomicU8::new(0),
        })
    }

    fn slots_for(mb: u64) -> usize {
        let bytes = usize::try_from(mb.max(1))
            .unwrap_or(usize::MAX)
            .saturating_mul(1 << 20);
        let want = (bytes / SLOT_BYTES).max(1024);
        if want.is_power_of_two() {
            want
        } else {
            want.next_power_of_two() >> 1
        }
    }

    /// Empties the table (no search may be running: a concurrent store could survive it).
    pub fn clear(&self) {
        for slot in &self.slots {
            slot.check.store(0, Relaxed);
            slot.low.store(0, Relaxed);
            slot.high.store(0, Relaxed);
        }
        self.age.store(0, Relaxed);
    }

    /// A new search: older entries become preferred victims. Called once per search, by the
    /// thread that starts it, before any helper runs.
    pub fn new_search(&self) {
        self.age
            .store(self.age.load(Relaxed).wrapping_add(1), Relaxed);
    }

    pub fn probe(&self, key: u64) -> Option<Entry> {
        self.slots[key as usize & self.mask]
            .load()
            .filter(|e| e.key == key)
    }

    /// Stores a result; mate scores are made relative to this node (`ply` from the root).
    pub fn store(&self, key: u64, code: u32, score: i32, depth: i32, bound: Bound, ply: u32) {
        let slot = &self.slots[key as usize & self.mask];
        let age = self.age.load(Relaxed);
        if let Some(old) = slot.load() {
            if old.key != key && old.age == age && old.depth as i32 > depth {
                return;
            }
        }
        slot.save(&Entry {
            key,
            code,
            score: to_tt(score, ply),
            depth: depth as i16,
            bound,
            age,
        });
    }

    /// Per mille of the first thousand slots in use by this search (the USI `hashfull`).
    pub fn hashfull(&self) -> u32 {
        let n = self.slots.len().min(1000);
        let age = self.age.load(Relaxed);
        let used = self.slots[..n]
            .iter()
            .filter(|s| matches!(s.load(), Some(e) if e.age == age))
            .count();
        (used * 1000 / n) as u32
    }
}

/// Asks the kernel to back the reserved, still untouched slots with huge pages (where
/// transparent huge pages are on `madvise`): a probe lands on a random slot, and with 4 KiB
/// pages most probes of a table of some MiB also miss the TLB. Only a hint: where it is refused
/// the table works as before.
fn advise_huge_pages(slots: &Vec<Slot>) {
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let start = slots.as_ptr() as usize;
        let end = start + slots.capacity() * std::mem::size_of::<Slot>();
        // madvise wants a page-aligned start; the partial pages at either end are left out.
        let (first, last) = (start.next_multiple_of(PAGE), end / PAGE * PAGE);
        if last > first {
            // SAFETY: the range lies inside the vector's own allocation, and MADV_HUGEPAGE
            // changes no contents, only how the kernel backs the pages.
            unsafe {
                libc::madvise(
                    first as *mut libc::c_void,
                    last - first,
                    libc::MADV_HUGEPAGE,
                );
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = slots;
}

fn to_tt(score: i32, ply: u32) -> i32 {
    if score > WIN_BOUND {
        score + ply as i32
    } else if score < -WIN_BOUND {
        score - ply as i32
    } else {
        score
    }
}

/// A stored score as seen from a node `ply` plies from the root.
pub fn from_tt(score: i32, ply: u32) -> i32 {
    if score > WIN_BOUND {
        score - ply as i32
    } else if score < -WIN_BOUND {
        score + ply as i32
    } else {
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;

    #[test]
    fn an_entry_reads_back_as_stored() {
        let table = Table::new(1);
        for (i, &score) in [0, 1, -1, 29_500, -29_500, 12_345, -32_000]
            .iter()
            .enumerate()
        {
            let key = 0x9E37_79B9_7F4A_7C15u64.wrapping_mul(i as u64 + 1);
            for bound in [Bound::Exact, Bound::Lower, Bound::Upper] {
                table.store(key, u32::MAX - i as u32, score, 1 + i as i32, bound, 0);
                let e = table.probe(key).expect("stored");
                assert_eq!((e.key, e.code, e.score), (key, u32::MAX - i as u32, score));
                assert_eq!((e.depth, e.bound), (1 + i as i16, bound));
            }
        }
        assert!(table.probe(12345).is_none());
        table.clear();
        assert_eq!(table.hashfull(), 0);
    }

    /// Two threads write entries whose every field is a function of the key into four slots
    /// while a third probes them: an entry mixed from two writes would show as a field
    /// that does not belong to the probed key.
    #[test]
    fn torn_entries_are_never_accepted() {
        fn fields(key: u64) -> (u32, i32, i32) {
            let h = key.wrapping_mul(0xBF58_476D_1CE4_E5B9);
            // One depth for all: every store replaces what the slot held.
            (h as u32, (h >> 40) as i32 % 20_000, 1)
        }
        let table = Table::new(1);
        // 64 keys over 4 slots (the low bits index the table).
        let keys: Vec<u64> = (0..64u64)
            .map(|i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) & !0xF_FFFF) | (i % 4))
            .collect();
        let stop = AtomicBool::new(false);
        let hits = std::thread::scope(|s| {
            for t in 0..2u64 {
                let (table, keys, stop) = (&table, &keys, &stop);
                s.spawn(move || {
                    let mut i = t as usize;
                    while !stop.load(Relaxed) {
                        let key = keys[i % keys.len()];
                        let (code, score, depth) = fields(key);
                        table.store(key, code, score, depth, Bound::Lower, 0);
                        i = i.wrapping_mul(31).wrapping_add(7);
                    }
                });
            }
            let reader = s.spawn(|| {
                let mut hits = 0u64;
                let started = std::time::Instant::now();
                while started.elapsed() < std::time::Duration::from_millis(400) {
                    for &key in &keys {
                        if let Some(e) = table.probe(key) {
                            hits += 1;
                            assert_eq!((e.code, e.score, e.depth as i32), fields(key));
                            assert_eq!(e.bound, Bound::Lower);
                        }
                    }
                }
                hits
            });
            let hits = reader.join();
            stop.store(true, Relaxed); // before any panic, or the writers would never end
            hits.unwrap_or_else(|e| std::panic::resume_unwind(e))
        });
        assert!(hits > 1000, "{hits} hits");
    }
}

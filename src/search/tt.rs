//! The transposition table: one entry per slot, depth-preferred replacement.

use super::game::WIN_BOUND;

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

pub struct Table {
    slots: Vec<Option<Entry>>,
    mask: usize,
    age: u8,
}

impl Table {
    /// A table of at most `mb` MiB (a power of two number of slots).
    pub fn new(mb: u64) -> Table {
        let len = Self::slots_for(mb);
        Table {
            slots: vec![None; len],
            mask: len - 1,
            age: 0,
        }
    }

    /// As [`Table::new`], or `None` when the memory is not there (no abort).
    pub fn try_new(mb: u64) -> Option<Table> {
        let len = Self::slots_for(mb);
        Some(Table {
            slots: crate::memory::try_filled(len, None)?,
            mask: len - 1,
            age: 0,
        })
    }

    fn slots_for(mb: u64) -> usize {
        let bytes = usize::try_from(mb.max(1))
            .unwrap_or(usize::MAX)
            .saturating_mul(1 << 20);
        let want = (bytes / std::mem::size_of::<Option<Entry>>()).max(1024);
        if want.is_power_of_two() {
            want
        } else {
            want.next_power_of_two() >> 1
        }
    }

    pub fn clear(&mut self) {
        self.slots.iter_mut().for_each(|s| *s = None);
        self.age = 0;
    }

    /// A new search: older entries become preferred victims.
    pub fn new_search(&mut self) {
        self.age = self.age.wrapping_add(1);
    }

    pub fn probe(&self, key: u64) -> Option<Entry> {
        self.slots[key as usize & self.mask].filter(|e| e.key == key)
    }

    /// Stores a result; mate scores are made relative to this node (`ply` from the root).
    pub fn store(&mut self, key: u64, code: u32, score: i32, depth: i32, bound: Bound, ply: u32) {
        let slot = &mut self.slots[key as usize & self.mask];
        if let Some(old) = slot {
            if old.key != key && old.age == self.age && old.depth as i32 > depth {
                return;
            }
        }
        *slot = Some(Entry {
            key,
            code,
            score: to_tt(score, ply),
            depth: depth as i16,
            bound,
            age: self.age,
        });
    }

    /// Per mille of the first thousand slots in use by this search (the USI `hashfull`).
    pub fn hashfull(&self) -> u32 {
        let n = self.slots.len().min(1000);
        let used = self.slots[..n]
            .iter()
            .filter(|s| matches!(s, Some(e) if e.age == self.age))
            .count();
        (used * 1000 / n) as u32
    }
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

//! The transposition table: three 20-byte entries to a cache-line bucket, each entry a
//! position with its score bounds, best move and empties.

use super::Solver;

/// One stored position: 20 bytes (packed to 4-byte alignment), so that three fit a cache line.
#[derive(Clone, Copy, Default)]
#[repr(C, packed(4))]
pub(super) struct Entry {
    pub(super) player: u64,
    pub(super) opponent: u64,
    pub(super) lower: i8,
    pub(super) upper: i8,
    pub(super) best: u8,
    pub(super) empties: u8,
}

impl Entry {
    #[inline(always)]
    pub(super) fn holds(&self, p: u64, o: u64) -> bool {
        // Copies, not references: the fields are packed.
        ({ self.player } == p) & ({ self.opponent } == o)
    }
}

/// Three entries in one cache line: a probe costs one memory access (and it is prefetched).
#[derive(Clone, Copy, Default)]
#[repr(C, align(64))]
pub(super) struct Bucket {
    pub(super) entries: [Entry; 3],
}

pub(super) const NO_MOVE: u8 = 64;

/// A zeroed table of `size` buckets (a power of two), or the largest smaller power of two the
/// allocator grants. On Linux the kernel is asked to back it with huge pages: a probe lands
/// anywhere in tens of MiB, and with 4 KiB pages most probes also missed the TLB.
pub(super) fn new_table(size: usize) -> Vec<Bucket> {
    let mut size = size.max(1);
    let mut table: Vec<Bucket> = Vec::new();
    while table.try_reserve_exact(size).is_err() && size > 1 {
        size /= 2;
    }
    if table.capacity() < size {
        // Not even one bucket: let the allocator report it as any other allocation failure.
        table.reserve_exact(size);
    }
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = table.as_ptr() as usize;
        let end = start + size * std::mem::size_of::<Bucket>();
        let (from, to) = ((start + HUGE - 1) & !(HUGE - 1), end & !(HUGE - 1));
        if to > from {
            // SAFETY: the range lies inside this vector's allocation, which nothing has touched
            // yet; the advice changes how pages are backed, never their contents.
            unsafe {
                libc::madvise(from as *mut libc::c_void, to - from, libc::MADV_HUGEPAGE);
            }
        }
    }
    table.resize(size, Bucket::default());
    table
}

#[inline(always)]
fn hash(p: u64, o: u64) -> u64 {
    crate::othello::board::mix(p, o)
}

impl Solver<'_> {
    #[inline(always)]
    fn bucket(&self, p: u64, o: u64) -> usize {
        hash(p, o) as usize & self.mask
    }

    /// Asks the CPU to bring (p, o)'s bucket into the cache while the node does other work.
    #[inline(always)]
    pub(super) fn prefetch(&self, p: u64, o: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let b = &self.table[self.bucket(p, o)] as *const Bucket as *const i8;
            // SAFETY: a prefetch has no effect on memory and `b` points into the table.
            unsafe { std::arch::x86_64::_mm_prefetch(b, std::arch::x86_64::_MM_HINT_T0) };
        }
    }

    /// The table entry of (p, o), if stored.
    #[inline(always)]
    pub(super) fn probe(&self, p: u64, o: u64) -> Option<Entry> {
        let b = &self.table[self.bucket(p, o)];
        b.entries.iter().find(|e| e.holds(p, o)).copied()
    }

    /// Where to store (p, o): its own entry if stored, else the bucket's entry with the fewest
    /// empties (the cheapest to search again).
    #[inline(always)]
    pub(super) fn slot_for(&mut self, p: u64, o: u64) -> &mut Entry {
        let i = self.bucket(p, o);
        let b = &mut self.table[i];
        let mut pick = 0;
        for k in 0..3 {
            if b.entries[k].holds(p, o) {
                pick = k;
                break;
            }
            if b.entries[k].empties < b.entries[pick].empties {
                pick = k;
            }
        }
        &mut b.entries[pick]
    }
}

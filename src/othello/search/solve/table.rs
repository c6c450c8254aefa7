//! The transposition table: three 20-byte entries to a cache-line bucket, each entry a
//! position with its score bounds, best move and empties. One table serves every thread of a
//! solve: its words are atomics (plain loads and stores on x86-64 when unshared), and a shared
//! table takes the bucket's lock (its spare four bytes) around each look-up and store, so an
//! entry is never read half-written.

use std::sync::atomic::{AtomicU32, Ordering::Acquire, Ordering::Relaxed, Ordering::Release};

/// One stored position, as read out of the table.
#[derive(Clone, Copy, Default)]
pub(super) struct Entry {
    pub(super) player: u64,
    pub(super) opponent: u64,
    pub(super) lower: i8,
    pub(super) upper: i8,
    pub(super) best: u8,
    pub(super) empties: u8,
}

/// An entry in the table: five words, 20 bytes, so that three fit a cache line.
#[derive(Default)]
struct Slot {
    /// The player's and the opponent's discs, low word first.
    key: [AtomicU32; 4],
    /// Lower bound, upper bound, best move, empties: a byte each.
    data: AtomicU32,
}

impl Slot {
    #[inline(always)]
    fn holds(&self, p: u64, o: u64) -> bool {
        let word = |i: usize| self.key[i].load(Relaxed);
        (word(0) == p as u32)
            & (word(1) == (p >> 32) as u32)
            & (word(2) == o as u32)
            & (word(3) == (o >> 32) as u32)
    }

    #[inline(always)]
    fn empties(&self) -> u8 {
        (self.data.load(Relaxed) >> 24) as u8
    }

    #[inline(always)]
    fn load(&self, p: u64, o: u64) -> Entry {
        let [lower, upper, best, empties] = self.data.load(Relaxed).to_le_bytes();
        Entry {
            player: p,
            opponent: o,
            lower: lower as i8,
            upper: upper as i8,
            best,
            empties,
        }
    }

    #[inline(always)]
    fn store(&self, e: &Entry) {
        let words = [
            e.player as u32,
            (e.player >> 32) as u32,
            e.opponent as u32,
            (e.opponent >> 32) as u32,
        ];
        for (k, w) in self.key.iter().zip(words) {
            k.store(w, Relaxed);
        }
        let data = [e.lower as u8, e.upper as u8, e.best, e.empties];
        self.data.store(u32::from_le_bytes(data), Relaxed);
    }
}

/// Three entries in one cache line: a probe costs one memory access (and it is prefetched).
#[derive(Default)]
#[repr(C, align(64))]
struct Bucket {
    slots: [Slot; 3],
    /// Held (1) while a thread of a shared table reads or writes the slots.
    lock: AtomicU32,
}

pub(super) const NO_MOVE: u8 = 64;

/// The buckets, and whether threads share them.
pub(super) struct Table {
    buckets: Vec<Bucket>,
    mask: usize,
    shared: bool,
}

impl Table {
    /// A zeroed table of `size` buckets (a power of two), or the largest smaller power of two
    /// the allocator grants. On Linux the kernel is asked to back it with huge pages: a probe
    /// lands anywhere in tens of MiB, and with 4 KiB pages most probes also missed the TLB.
    pub(super) fn new(size: usize) -> Table {
        let mut size = size.max(1);
        let mut buckets: Vec<Bucket> = Vec::new();
        while buckets.try_reserve_exact(size).is_err() && size > 1 {
            size /= 2;
        }
        if buckets.capacity() < size {
            // Not even one bucket: let the allocator report it as any other allocation failure.
            buckets.reserve_exact(size);
        }
        #[cfg(target_os = "linux")]
        {
            const HUGE: usize = 2 << 20;
            let start = buckets.as_ptr() as usize;
            let end = start + size * std::mem::size_of::<Bucket>();
            let (from, to) = ((start + HUGE - 1) & !(HUGE - 1), end & !(HUGE - 1));
            if to > from {
                // SAFETY: the range lies inside this vector's allocation, which nothing has
                // touched yet; the advice changes how pages are backed, never their contents.
                unsafe {
                    libc::madvise(from as *mut libc::c_void, to - from, libc::MADV_HUGEPAGE);
                }
            }
        }
        buckets.resize_with(size, Bucket::default);
        Table {
            mask: buckets.len() - 1,
            buckets,
            shared: false,
        }
    }

    /// From now on threads may share the table: each access takes its bucket's lock.
    pub(super) fn share(&mut self) {
        self.shared = true;
    }

    #[inline(always)]
    fn bucket(&self, p: u64, o: u64) -> &Bucket {
        &self.buckets[crate::othello::board::mix(p, o) as usize & self.mask]
    }

    /// Runs `f` on (p, o)'s bucket, under its lock when the table is shared.
    #[inline(always)]
    fn with_bucket<R>(&self, p: u64, o: u64, f: impl FnOnce(&Bucket) -> R) -> R {
        let b = self.bucket(p, o);
        if !self.shared {
            return f(b);
        }
        while b
            .lock
            .compare_exchange_weak(0, 1, Acquire, Relaxed)
            .is_err()
        {
            std::hint::spin_loop();
        }
        let r = f(b);
        b.lock.store(0, Release);
        r
    }

    /// Asks the CPU to bring (p, o)'s bucket into the cache while the node does other work.
    #[inline(always)]
    pub(super) fn prefetch(&self, p: u64, o: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let b = self.bucket(p, o) as *const Bucket as *const i8;
            // SAFETY: a prefetch has no effect on memory and `b` points into the table.
            unsafe { std::arch::x86_64::_mm_prefetch(b, std::arch::x86_64::_MM_HINT_T0) };
        }
    }

    /// The table entry of (p, o), if stored.
    #[inline(always)]
    pub(super) fn probe(&self, p: u64, o: u64) -> Option<Entry> {
        self.with_bucket(p, o, |b| {
            b.slots.iter().find(|s| s.holds(p, o)).map(|s| s.load(p, o))
        })
    }

    /// Stores the result `score` of a search of (p, o) with `n` empties in the window
    /// (`alpha`, `beta`), and its best move: in its own entry if stored (the bounds narrowed),
    /// else over the bucket's entry with the fewest empties (the cheapest to search again).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn store(
        &self,
        p: u64,
        o: u64,
        n: u32,
        alpha: i32,
        beta: i32,
        score: i32,
        best: u8,
    ) {
        self.with_bucket(p, o, |b| {
            let mut pick = 0;
            let mut same = false;
            for k in 0..3 {
                if b.slots[k].holds(p, o) {
                    pick = k;
                    same = true;
                    break;
                }
                if b.slots[k].empties() < b.slots[pick].empties() {
                    pick = k;
                }
            }
            let slot = &b.slots[pick];
            let (mut lo, mut hi) = if same {
                let e = slot.load(p, o);
                (e.lower as i32, e.upper as i32)
            } else {
                (-64, 64)
            };
            if score <= alpha {
                hi = hi.min(score);
            } else if score >= beta {
                lo = lo.max(score);
            } else {
                lo = score;
                hi = score;
            }
            slot.store(&Entry {
                player: p,
                opponent: o,
                lower: lo as i8,
                upper: hi as i8,
                best,
                empties: n as u8,
            });
        })
    }
}

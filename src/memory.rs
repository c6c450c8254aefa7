//! Memory asked for where a failure can be reported: fallible allocation (no abort), and the
//! largest table size that can be had when the requested one cannot, within the calling
//! thread's budget (a served session's thread has one: see [`limit_thread`]).

// SAFETY: allowed for sysconf for the machine's physical memory (libc).
// Each unsafe block says why it is sound.
#![allow(unsafe_code)]

use std::cell::Cell;

thread_local! {
    /// Bytes one table or one step of a count may take on this thread; None: no budget.
    static BUDGET: Cell<Option<u64>> = const { Cell::new(None) };
}

/// From now on, tables and counts asked for on this thread take at most `bytes` each (a served
/// session's thread: many tabs share one machine). None lifts the budget.
pub fn limit_thread(bytes: Option<u64>) {
    BUDGET.with(|b| b.set(bytes));
}

/// This thread's budget in bytes, if any.
pub fn thread_budget() -> Option<u64> {
    BUDGET.with(Cell::get)
}

/// `len` copies of `value`, or `None` when the allocator refuses (instead of aborting).
pub fn try_filled<T: Clone>(len: usize, value: T) -> Option<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(len).ok()?;
    v.resize(len, value);
    Some(v)
}

/// Physical memory of the machine in bytes, where the system says.
pub fn physical_bytes() -> Option<u64> {
    #[cfg(unix)]
    {
        // SAFETY: sysconf has no preconditions; it returns -1 when the value is unknown.
        let (pages, size) = unsafe {
            (
                libc::sysconf(libc::_SC_PHYS_PAGES),
                libc::sysconf(libc::_SC_PAGESIZE),
            )
        };
        if pages > 0 && size > 0 {
            return Some((pages as u64).saturating_mul(size as u64));
        }
    }
    None
}

/// The most MiB a single table may take: half the physical memory (an overcommitting system
/// would grant more and then kill the process when the pages are touched), and no more than
/// this thread's budget.
pub fn max_table_mb() -> u64 {
    let physical = physical_bytes().map_or(u64::MAX, |b| (b / 2) >> 20);
    physical
        .min(thread_budget().map_or(u64::MAX, |b| b >> 20))
        .max(1)
}

/// `make(mb)` for `mb` = `wanted`, then smaller powers of two down to 1 MiB, capped by
/// [`max_table_mb`]: the first table that could be allocated and its size.
pub fn largest<T>(wanted: u64, mut make: impl FnMut(u64) -> Option<T>) -> Option<(T, u64)> {
    let cap = max_table_mb();
    let mut mb = wanted.max(1);
    if mb > cap {
        mb = 1u64 << (63 - cap.leading_zeros());
    }
    loop {
        if let Some(table) = make(mb) {
            return Some((table, mb));
        }
        if mb <= 1 {
            return None;
        }
        // Down to the power of two below (65536 -> 32768, 100 -> 64).
        mb = 1u64 << (63 - (mb - 1).leading_zeros());
    }
}

/// Whether `bytes` more could be had now: no more than the physical memory, and the allocator
/// (and any address-space limit) grants it, within this thread's budget. Nothing stays
/// allocated.
pub fn can_allocate(bytes: u64) -> bool {
    if bytes > physical_bytes().unwrap_or(u64::MAX) || bytes > thread_budget().unwrap_or(u64::MAX) {
        return false;
    }
    usize::try_from(bytes).is_ok_and(address_space_left)
}

/// Whether the address space has `bytes` left now (any limit such as `ulimit -v` counts; no
/// budget or physical bound applies). Nothing stays allocated.
pub fn address_space_left(bytes: usize) -> bool {
    let mut probe: Vec<u8> = Vec::new();
    probe.try_reserve_exact(bytes).is_ok()
}

/// The one `info string` when a table is smaller than asked.
pub fn shortfall_note(what: &str, wanted: u64, got: u64) -> String {
    format!("{what}: {wanted} MiB cannot be allocated; using {got} MiB")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn largest_halves_until_it_fits() {
        let mut tried = Vec::new();
        let got = largest(100, |mb| {
            tried.push(mb);
            (mb <= 16).then_some(mb)
        });
        assert_eq!(got, Some((16, 16)));
        assert_eq!(tried, vec![100, 64, 32, 16]);
        assert_eq!(largest(8, |_| None::<()>), None);
        assert!(try_filled(usize::MAX / 2, 0u8).is_none());
    }

    #[test]
    fn a_thread_budget_caps_tables_and_counts() {
        std::thread::spawn(|| {
            assert!(can_allocate(64 << 20));
            limit_thread(Some(32 << 20));
            assert!(!can_allocate(64 << 20));
            assert!(can_allocate(16 << 20));
            assert_eq!(largest(1024, Some), Some((32, 32)));
            limit_thread(None);
            assert!(can_allocate(64 << 20));
        })
        .join()
        .unwrap();
    }
}

//! Transposition table keyed by `Position::zobrist()`, shared by the
//! threads of one search (`Threads`).
//!
//! One entry per slot, 16 bytes: two atomic words, `data` and `key ^ data`.
//!
//! ```text
//!  data: mv    u32   Move::to_bits(), 0 = none          (bits 0-31)
//!        score i16   mate scores stored relative to the node (bits 32-47)
//!        depth i8    remaining depth of the search that stored it (48-55)
//!        meta  u8    bits 0-1 bound (1 upper, 2 lower, 3 exact), bits 2-7 age
//! ```
//!
//! Threads read and write slots without locks (relaxed atomics, so plain
//! moves on x86-64). A slot torn by two writers no longer satisfies
//! `check ^ data == key`, so it reads as a miss rather than as a mix of
//! two entries; a move from the table is in any case only played after it
//! is found among the legal moves.
//!
//! Replacement: an entry is overwritten when its key differs and it is from
//! an older search, or when the new search is at least as deep (minus 2),
//! or when the new bound is exact.

use crate::params::MATE_BOUND;
use chessmerge_rules::Move;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering::Relaxed};

/// What a stored score means.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    /// The true score is at most this (fail low).
    Upper = 1,
    /// The true score is at least this (fail high).
    Lower = 2,
    /// The true score.
    Exact = 3,
}

impl Bound {
    /// What a search's best score `best` in the window (`alpha`, `beta`)
    /// says about the true score.
    pub fn of_result(best: i32, alpha: i32, beta: i32) -> Bound {
        if best >= beta {
            Bound::Lower
        } else if best > alpha {
            Bound::Exact
        } else {
            Bound::Upper
        }
    }
}

#[derive(Clone, Copy, Default)]
struct Entry {
    key: u64,
    mv: u32,
    score: i16,
    depth: i8,
    meta: u8,
}

impl Entry {
    fn data(self) -> u64 {
        u64::from(self.mv)
            | u64::from(self.score as u16) << 32
            | u64::from(self.depth as u8) << 48
            | u64::from(self.meta) << 56
    }

    fn from_data(key: u64, data: u64) -> Entry {
        Entry {
            key,
            mv: data as u32,
            score: (data >> 32) as u16 as i16,
            depth: (data >> 48) as u8 as i8,
            meta: (data >> 56) as u8,
        }
    }
}

/// A slot: an entry's data and its key XOR-ed with that data.
#[derive(Default)]
struct Slot {
    check: AtomicU64,
    data: AtomicU64,
}

impl Slot {
    fn load(&self) -> Entry {
        let data = self.data.load(Relaxed);
        Entry::from_data(self.check.load(Relaxed) ^ data, data)
    }

    fn save(&self, e: Entry) {
        let data = e.data();
        self.data.store(data, Relaxed);
        self.check.store(e.key ^ data, Relaxed);
    }
}

/// A probe's result.
#[derive(Clone, Copy, Debug)]
pub struct Hit {
    pub mv: Option<Move>,
    pub score: i32,
    pub depth: i32,
    pub bound: Bound,
}

impl Hit {
    /// Whether the stored score settles a search of the window (`alpha`,
    /// `beta`): an exact score, or a bound on the window's far side.
    pub fn settles(&self, alpha: i32, beta: i32) -> bool {
        match self.bound {
            Bound::Exact => true,
            Bound::Lower => self.score >= beta,
            Bound::Upper => self.score <= alpha,
        }
    }
}

/// Asks Linux to back the (still untouched) allocation of `v` with 2 MiB
/// pages where it can. Probes land on random slots of a table much larger
/// than the cache, so with 4 KiB pages nearly every probe also misses the
/// TLB; huge pages remove most of that cost. Only a hint: when the kernel
/// does not allow it, nothing changes. (A `&Vec`, not a slice: the
/// allocation's extent is its capacity.)
#[allow(clippy::ptr_arg)]
fn advise_huge_pages<T>(v: &Vec<T>) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 * 1024 * 1024;
        let start = v.as_ptr() as usize;
        let end = start + v.capacity() * std::mem::size_of::<T>();
        let aligned = start.next_multiple_of(HUGE);
        let len = (end.saturating_sub(aligned) / HUGE) * HUGE;
        if len > 0 {
            // SAFETY: [aligned, aligned + len) lies inside `v`'s allocation
            // (its capacity), which this process owns; the advice changes
            // how pages are backed, never their contents.
            unsafe {
                libc::madvise(aligned as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
            }
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = v;
}

/// Starts loading the cache line of `slot` (a hint; it never faults).
#[inline]
pub fn prefetch<T>(slot: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: a prefetch is only a hint: it never faults or reads into
        // the program, and the pointer comes from a live reference.
        unsafe { _mm_prefetch::<_MM_HINT_T0>((slot as *const T).cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = slot;
}

/// The table.
pub struct TransTable {
    entries: Vec<Slot>,
    age: AtomicU8,
}

impl TransTable {
    /// A table of about `mb` MiB (at least one entry).
    pub fn new(mb: usize) -> TransTable {
        let n = (mb.max(1) * 1024 * 1024 / std::mem::size_of::<Slot>()).max(1);
        let mut entries = Vec::with_capacity(n);
        advise_huge_pages(&entries);
        entries.resize_with(n, Slot::default);
        TransTable {
            entries,
            age: AtomicU8::new(0),
        }
    }

    /// Empties the table (not while a search uses it).
    pub fn clear(&self) {
        self.entries.iter().for_each(|e| e.save(Entry::default()));
        self.age.store(0, Relaxed);
    }

    /// Marks the start of a new search (older entries become replaceable).
    /// Called once per search, before its threads start.
    pub fn new_search(&self) {
        self.age.store((self.age() + 1) & 63, Relaxed);
    }

    fn age(&self) -> u8 {
        self.age.load(Relaxed)
    }

    #[inline]
    fn index(&self, key: u64) -> usize {
        ((key as u128 * self.entries.len() as u128) >> 64) as usize
    }

    /// Starts loading `key`'s slot into the cache, so that a probe soon
    /// after does not wait for memory (the table is far larger than the
    /// cache, and the probe is otherwise the search's slowest load).
    #[inline]
    pub fn prefetch(&self, key: u64) {
        prefetch(&self.entries[self.index(key)]);
    }

    /// Looks `key` up; `ply` converts stored mate scores back to the root.
    pub fn probe(&self, key: u64, ply: usize) -> Option<Hit> {
        let e = self.entries[self.index(key)].load();
        if e.key != key || e.meta & 3 == 0 {
            return None;
        }
        let bound = match e.meta & 3 {
            1 => Bound::Upper,
            2 => Bound::Lower,
            _ => Bound::Exact,
        };
        Some(Hit {
            mv: if e.mv == 0 {
                None
            } else {
                Move::from_bits(e.mv)
            },
            score: score_from_tt(e.score as i32, ply),
            depth: e.depth as i32,
            bound,
        })
    }

    /// Stores a search result.
    pub fn store(
        &self,
        key: u64,
        mv: Option<Move>,
        score: i32,
        depth: i32,
        bound: Bound,
        ply: usize,
    ) {
        let slot = &self.entries[self.index(key)];
        let e = slot.load();
        let age = self.age();
        let old_age = e.meta >> 2;
        let replace = e.key != key && old_age != age
            || depth + 2 >= e.depth as i32
            || bound == Bound::Exact
            || e.meta & 3 == 0;
        if !replace {
            return;
        }
        // Keep the old move when the new result has none for this key.
        let mv_bits = match mv {
            Some(m) => m.to_bits(),
            None if e.key == key => e.mv,
            None => 0,
        };
        slot.save(Entry {
            key,
            mv: mv_bits,
            score: score_to_tt(score, ply) as i16,
            depth: depth.clamp(-1, 127) as i8,
            meta: bound as u8 | (age << 2),
        });
    }

    /// Permille of a sample of slots filled by the current search.
    pub fn hashfull(&self) -> u32 {
        let n = self.entries.len().min(1000);
        let age = self.age();
        let used = self.entries[..n]
            .iter()
            .map(Slot::load)
            .filter(|e| e.meta & 3 != 0 && e.meta >> 2 == age)
            .count();
        (used * 1000 / n.max(1)) as u32
    }
}

fn score_to_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score + ply as i32
    } else if score <= -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn score_from_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score - ply as i32
    } else if score <= -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chessmerge_rules::Square;

    #[test]
    fn stores_and_probes_with_mate_adjustment() {
        let tt = TransTable::new(1);
        let m = Move::whole(Square::new(12), Square::new(28));
        tt.store(42, Some(m), crate::params::MATE - 10, 5, Bound::Exact, 3);
        let hit = tt.probe(42, 5).unwrap();
        assert_eq!(hit.mv, Some(m));
        assert_eq!(hit.score, crate::params::MATE - 12);
        assert_eq!(hit.depth, 5);
        assert_eq!(hit.bound, Bound::Exact);
        assert!(tt.probe(43, 0).is_none());
        tt.clear();
        assert!(tt.probe(42, 0).is_none());
    }

    #[test]
    fn entries_pack_into_a_word_and_back() {
        for (mv, score, depth, meta) in [
            (0, 0, 0, 0),
            (u32::MAX, -32000, -1, 255),
            (77, 31999, 127, 9),
        ] {
            let e = Entry {
                key: 0xdead_beef_0123_4567,
                mv,
                score,
                depth,
                meta,
            };
            let back = Entry::from_data(e.key, e.data());
            assert_eq!(
                (back.mv, back.score, back.depth, back.meta),
                (mv, score, depth, meta)
            );
        }
    }

    #[test]
    fn a_slot_torn_between_two_writers_reads_as_a_miss() {
        let tt = TransTable::new(1);
        tt.store(42, None, 10, 3, Bound::Exact, 0);
        // Another writer's data lands without its check word.
        let slot = &tt.entries[tt.index(42)];
        slot.data.store(slot.data.load(Relaxed) ^ 1 << 40, Relaxed);
        assert!(tt.probe(42, 0).is_none());
    }
}

//! Generational slots: the handle scheme shared by the baselines of this module.

/// Handle of an object in one of the baseline broad phases ([`IncrementalSap`],
/// [`SortAndSweep`], [`ParryBvh`]): a slot index plus a generation counter, so that the handle
/// of a removed object is never mistaken for a later object that reuses the slot.
///
/// [`IncrementalSap`]: super::IncrementalSap
/// [`SortAndSweep`]: super::SortAndSweep
/// [`ParryBvh`]: super::ParryBvh
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SlotHandle {
    slot: u32,
    generation: u32,
}

impl SlotHandle {
    /// The slot index (dense, reused after removal).
    pub fn slot(self) -> u32 {
        self.slot
    }
}

#[derive(Debug, Clone)]
struct Entry<T> {
    generation: u32,
    value: Option<T>,
}

/// A slot map: `O(1)` insert, remove and lookup; freed slots are reused last-in-first-out.
#[derive(Debug, Clone)]
pub(crate) struct Slots<T> {
    entries: Vec<Entry<T>>,
    free: Vec<u32>,
    len: usize,
}

impl<T> Default for Slots<T> {
    fn default() -> Self {
        Self { entries: Vec::new(), free: Vec::new(), len: 0 }
    }
}

impl<T> Slots<T> {
    /// Stores `value` and returns its handle.
    pub(crate) fn insert(&mut self, value: T) -> SlotHandle {
        self.len += 1;
        if let Some(slot) = self.free.pop() {
            let entry = &mut self.entries[slot as usize];
            entry.value = Some(value);
            return SlotHandle { slot, generation: entry.generation };
        }
        let slot = u32::try_from(self.entries.len()).expect("more than u32::MAX objects");
        self.entries.push(Entry { generation: 0, value: Some(value) });
        SlotHandle { slot, generation: 0 }
    }

    /// Removes the object of `handle`, returning its value, or `None` for a stale handle.
    pub(crate) fn remove(&mut self, handle: SlotHandle) -> Option<T> {
        let entry = self.entries.get_mut(handle.slot as usize)?;
        if entry.generation != handle.generation {
            return None;
        }
        let value = entry.value.take()?;
        entry.generation = entry.generation.wrapping_add(1);
        self.free.push(handle.slot);
        self.len -= 1;
        Some(value)
    }

    /// The value of a live handle.
    pub(crate) fn get(&self, handle: SlotHandle) -> Option<&T> {
        let entry = self.entries.get(handle.slot as usize)?;
        if entry.generation == handle.generation { entry.value.as_ref() } else { None }
    }

    /// The value of a live handle, mutably.
    pub(crate) fn get_mut(&mut self, handle: SlotHandle) -> Option<&mut T> {
        let entry = self.entries.get_mut(handle.slot as usize)?;
        if entry.generation == handle.generation { entry.value.as_mut() } else { None }
    }

    /// The value stored in `slot`, if the slot is live.
    pub(crate) fn at(&self, slot: u32) -> Option<&T> {
        self.entries.get(slot as usize).and_then(|e| e.value.as_ref())
    }

    /// The current handle of a live `slot`.
    pub(crate) fn handle_of(&self, slot: u32) -> SlotHandle {
        SlotHandle { slot, generation: self.entries[slot as usize].generation }
    }

    /// Number of live objects.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Heap bytes held (capacity, not length).
    pub(crate) fn heap_bytes(&self) -> usize {
        self.entries.capacity() * size_of::<Entry<T>>() + self.free.capacity() * size_of::<u32>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stale_handles_are_refused_and_slots_reused() {
        let mut slots = Slots::default();
        let a = slots.insert('a');
        let b = slots.insert('b');
        assert_eq!(slots.remove(a), Some('a'));
        assert_eq!(slots.remove(a), None);
        assert_eq!(slots.get(a), None);
        let c = slots.insert('c');
        assert_eq!(c.slot(), a.slot());
        assert_ne!(c, a);
        assert_eq!((slots.get(b), slots.get(c), slots.at(c.slot())), (Some(&'b'), Some(&'c'), Some(&'c')));
        assert_eq!(slots.handle_of(c.slot()), c);
        *slots.get_mut(b).unwrap() = 'B';
        assert_eq!(slots.get(b), Some(&'B'));
        assert_eq!(slots.len(), 2);
        assert!(slots.heap_bytes() > 0);
    }
}

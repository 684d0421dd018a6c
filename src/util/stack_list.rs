//! A fixed-capacity list on the stack whose unused tail is never initialised: the search
//! makes a move list and a score list at every node, and zeroing their 512 bytes and 1 KiB
//! was time spent on entries never read.

use std::mem::MaybeUninit;

#[derive(Clone)]
pub struct StackList<T: Copy, const N: usize> {
    /// Only the first `len` entries are initialised.
    items: [MaybeUninit<T>; N],
    len: usize,
}

impl<T: Copy, const N: usize> Default for StackList<T, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Copy, const N: usize> StackList<T, N> {
    #[inline(always)]
    pub const fn new() -> Self {
        StackList {
            // SAFETY: an array of `MaybeUninit` needs no initialisation. (Written this way
            // rather than `[MaybeUninit::uninit(); N]`, which compiles to a memset.)
            items: unsafe { MaybeUninit::<[MaybeUninit<T>; N]>::uninit().assume_init() },
            len: 0,
        }
    }

    #[inline(always)]
    pub fn push(&mut self, item: T) {
        debug_assert!(self.len < N);
        // The bound is an invariant of each use (no position has more than 218 legal
        // moves); the indexing stays checked so a broken caller panics instead of
        // corrupting memory.
        self.items[self.len] = MaybeUninit::new(item);
        self.len += 1;
    }

    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline(always)]
    pub fn as_slice(&self) -> &[T] {
        // SAFETY: entries `0..len` were written by `push` (which keeps `len <= N`), and
        // `MaybeUninit<T>` has the layout of `T`.
        unsafe { std::slice::from_raw_parts(self.items.as_ptr().cast::<T>(), self.len) }
    }

    #[inline(always)]
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        // SAFETY: as in `as_slice`.
        unsafe { std::slice::from_raw_parts_mut(self.items.as_mut_ptr().cast::<T>(), self.len) }
    }

    pub fn clear(&mut self) {
        self.len = 0;
    }
}

impl<T: Copy + PartialEq, const N: usize> StackList<T, N> {
    pub fn contains(&self, item: T) -> bool {
        self.as_slice().contains(&item)
    }
}

impl<T: Copy, const N: usize> std::ops::Deref for StackList<T, N> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T: Copy, const N: usize> std::ops::DerefMut for StackList<T, N> {
    fn deref_mut(&mut self) -> &mut [T] {
        self.as_mut_slice()
    }
}

impl<'a, T: Copy, const N: usize> IntoIterator for &'a StackList<T, N> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_pushed_items_are_seen() {
        let mut list = StackList::<i32, 4>::new();
        assert!(list.is_empty());
        list.push(7);
        list.push(-3);
        assert_eq!(list.as_slice(), &[7, -3]);
        list.as_mut_slice().swap(0, 1);
        list[1] += 1;
        assert_eq!(&list[..], &[-3, 8]);
        assert!(list.contains(8) && !list.contains(7));
        list.clear();
        assert_eq!(list.len(), 0);
        list.push(1);
        assert_eq!(list.iter().copied().collect::<Vec<_>>(), vec![1]);
    }

    #[test]
    #[should_panic]
    fn pushing_past_the_capacity_panics() {
        let mut list = StackList::<u8, 2>::new();
        for i in 0..3 {
            list.push(i);
        }
    }
}

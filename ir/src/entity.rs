//! Typed-ID arenas: dense `u32` handles (`define_entity!`), a `PrimaryMap` that owns
//! entities, and a `SecondaryMap` that attaches side data to them.
//!
//! Written in-house (≈150 lines) instead of depending on `cranelift-entity`, which now
//! follows wasmtime's release train and pulls in more than we need.

use std::marker::PhantomData;

/// A dense handle that indexes an arena.
pub trait EntityRef: Copy + Eq + std::hash::Hash + Ord + std::fmt::Debug {
    /// Creates the handle for arena slot `index`.
    fn new(index: usize) -> Self;
    /// The arena slot of this handle.
    fn index(self) -> usize;
}

/// Declares a `Copy` 4-byte handle type implementing [`EntityRef`]. It stores the index
/// plus one in a `NonZeroU32`, so an `Option` of it is 4 bytes too (an `InstData` has
/// two); order and hash are those of the index.
#[macro_export]
macro_rules! define_entity {
    ($(#[$meta:meta])* $vis:vis struct $name:ident; debug_prefix = $prefix:literal;) => {
        $(#[$meta])*
        #[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord)]
        $vis struct $name(core::num::NonZeroU32);
        impl $crate::entity::EntityRef for $name {
            #[inline]
            fn new(index: usize) -> Self {
                debug_assert!(index < u32::MAX as usize);
                $name(core::num::NonZeroU32::MIN.saturating_add(index as u32))
            }
            #[inline]
            fn index(self) -> usize {
                (self.0.get() - 1) as usize
            }
        }
        impl core::hash::Hash for $name {
            #[inline]
            fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
                core::hash::Hash::hash(&(self.0.get() - 1), state)
            }
        }
        impl core::fmt::Debug for $name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0.get() - 1)
            }
        }
    };
}

/// An arena that owns its entities; `push` returns the new handle.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PrimaryMap<K: EntityRef, V> {
    elems: Vec<V>,
    _key: PhantomData<fn() -> K>,
}

impl<K: EntityRef, V> Default for PrimaryMap<K, V> {
    fn default() -> Self {
        Self {
            elems: Vec::new(),
            _key: PhantomData,
        }
    }
}

impl<K: EntityRef, V: std::fmt::Debug> std::fmt::Debug for PrimaryMap<K, V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<K: EntityRef, V> PrimaryMap<K, V> {
    /// An empty arena.
    pub fn new() -> Self {
        Self::default()
    }
    /// An empty arena with room for `n` entities.
    pub fn with_capacity(n: usize) -> Self {
        Self {
            elems: Vec::with_capacity(n),
            _key: PhantomData,
        }
    }
    /// Makes room for `n` more entities.
    pub fn reserve(&mut self, n: usize) {
        self.elems.reserve(n);
    }
    /// Adds an entity and returns its handle.
    #[inline]
    pub fn push(&mut self, v: V) -> K {
        let k = K::new(self.elems.len());
        self.elems.push(v);
        k
    }
    /// The handle the next `push` will return.
    pub fn next_key(&self) -> K {
        K::new(self.elems.len())
    }
    /// Number of entities ever pushed.
    pub fn len(&self) -> usize {
        self.elems.len()
    }
    /// Drops the entities pushed after the first `len` (their handles become invalid).
    pub fn truncate(&mut self, len: usize) {
        self.elems.truncate(len);
    }
    /// Drops spare capacity.
    pub fn shrink_to_fit(&mut self) {
        self.elems.shrink_to_fit();
    }
    /// True when nothing was pushed.
    pub fn is_empty(&self) -> bool {
        self.elems.is_empty()
    }
    /// Whether `k` indexes this arena.
    pub fn is_valid(&self, k: K) -> bool {
        k.index() < self.elems.len()
    }
    /// The entity `k`, if valid.
    pub fn get(&self, k: K) -> Option<&V> {
        self.elems.get(k.index())
    }
    /// The entity `k`, mutably, if valid.
    pub fn get_mut(&mut self, k: K) -> Option<&mut V> {
        self.elems.get_mut(k.index())
    }
    /// All handles in creation order.
    pub fn keys(&self) -> impl DoubleEndedIterator<Item = K> + ExactSizeIterator + use<K, V> {
        (0..self.elems.len()).map(K::new)
    }
    /// All `(handle, entity)` pairs in creation order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (K, &V)> + ExactSizeIterator {
        self.elems.iter().enumerate().map(|(i, v)| (K::new(i), v))
    }
    /// All `(handle, entity)` pairs, mutably.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = (K, &mut V)> {
        self.elems
            .iter_mut()
            .enumerate()
            .map(|(i, v)| (K::new(i), v))
    }
    /// All entities in creation order.
    pub fn values(&self) -> std::slice::Iter<'_, V> {
        self.elems.iter()
    }
}

impl<K: EntityRef, V> std::ops::Index<K> for PrimaryMap<K, V> {
    type Output = V;
    #[inline]
    fn index(&self, k: K) -> &V {
        &self.elems[k.index()]
    }
}

impl<K: EntityRef, V> std::ops::IndexMut<K> for PrimaryMap<K, V> {
    #[inline]
    fn index_mut(&mut self, k: K) -> &mut V {
        &mut self.elems[k.index()]
    }
}

/// Side data for entities owned elsewhere; reads of unset slots give the default.
#[derive(Clone, Debug)]
pub struct SecondaryMap<K: EntityRef, V: Clone> {
    elems: Vec<V>,
    default: V,
    _key: PhantomData<fn() -> K>,
}

impl<K: EntityRef, V: Clone + Default> Default for SecondaryMap<K, V> {
    fn default() -> Self {
        Self::with_default(V::default())
    }
}

impl<K: EntityRef, V: Clone> SecondaryMap<K, V> {
    /// A map whose unset slots read as `default`.
    pub fn with_default(default: V) -> Self {
        Self {
            elems: Vec::new(),
            default,
            _key: PhantomData,
        }
    }
    /// A map with room for `n` slots.
    pub fn with_capacity_and_default(n: usize, default: V) -> Self {
        Self {
            elems: Vec::with_capacity(n),
            default,
            _key: PhantomData,
        }
    }
    /// Makes room for `n` more slots (reads are unchanged).
    pub fn reserve(&mut self, n: usize) {
        self.elems.reserve(n);
    }
    /// The value at `k` (or the default).
    #[inline]
    pub fn get(&self, k: K) -> &V {
        self.elems.get(k.index()).unwrap_or(&self.default)
    }
    /// Sets the value at `k`.
    #[inline]
    pub fn set(&mut self, k: K, v: V) {
        let i = k.index();
        if let Some(slot) = self.elems.get_mut(i) {
            *slot = v;
        } else if i == self.elems.len() {
            // The common case when filling slots in order: one push.
            self.elems.push(v);
        } else {
            self.elems.resize(i, self.default.clone());
            self.elems.push(v);
        }
    }
    /// Mutable access to slot `k`, growing the map if needed.
    #[inline]
    pub fn get_mut(&mut self, k: K) -> &mut V {
        let i = k.index();
        if i >= self.elems.len() {
            self.elems.resize(i + 1, self.default.clone());
        }
        &mut self.elems[i]
    }
    /// Resets every slot to the default.
    pub fn clear(&mut self) {
        self.elems.clear();
    }
    /// Drops the entities pushed after the first `len` (their handles become invalid).
    pub fn truncate(&mut self, len: usize) {
        self.elems.truncate(len);
    }
    /// Drops spare capacity.
    pub fn shrink_to_fit(&mut self) {
        self.elems.shrink_to_fit();
    }
}

impl<K: EntityRef, V: Clone> std::ops::Index<K> for SecondaryMap<K, V> {
    type Output = V;
    #[inline]
    fn index(&self, k: K) -> &V {
        self.get(k)
    }
}

impl<K: EntityRef, V: Clone> std::ops::IndexMut<K> for SecondaryMap<K, V> {
    #[inline]
    fn index_mut(&mut self, k: K) -> &mut V {
        self.get_mut(k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    define_entity! { struct E; debug_prefix = "e"; }

    #[test]
    fn primary_and_secondary() {
        let mut m: PrimaryMap<E, &str> = PrimaryMap::new();
        let a = m.push("a");
        let b = m.push("b");
        assert_eq!(m[a], "a");
        assert_eq!(m[b], "b");
        assert_eq!(format!("{b:?}"), "e1");
        let mut s: SecondaryMap<E, u32> = SecondaryMap::default();
        assert_eq!(s[b], 0);
        s[b] = 7;
        assert_eq!(s[b], 7);
        assert_eq!(s[a], 0);
        assert_eq!(m.keys().collect::<Vec<_>>(), vec![a, b]);
    }

    #[test]
    fn handles_keep_index_order_and_option_is_free() {
        let (a, b) = (E::new(0), E::new(7));
        assert!(a < b);
        assert_eq!((a.index(), b.index()), (0, 7));
        assert_eq!(format!("{a:?}"), "e0");
        assert_eq!(std::mem::size_of::<Option<E>>(), 4);
        let h = |x: &dyn Fn(&mut rustc_hash::FxHasher)| {
            use std::hash::Hasher;
            let mut s = rustc_hash::FxHasher::default();
            x(&mut s);
            s.finish()
        };
        use std::hash::Hash;
        assert_eq!(h(&|s| b.hash(s)), h(&|s| 7u32.hash(s)));
    }
}

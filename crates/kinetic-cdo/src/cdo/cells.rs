//! The regular spatial subdivision (§3.2) and the regular spatial tree (§3.3): one algorithm,
//! two ways of storing the cells.
//!
//! Space is cut into cells of side ≥ the largest diameter (`k_a = ⌊L_a / M⌋` cells per axis);
//! a particle resides in the cell holding its centre, and its candidates are the particles in
//! the `3^D` cells around it, so touching particles are always candidates. The topological
//! event is the centre crossing a cell side; the particle then gains the particles of the
//! `3^(D−1)` cells of the new layer as candidates (the only collision checks it needs).
//!
//! Under periodic boundaries a particle keeps *unwrapped* integer cell coordinates, and the image
//! of a candidate is the one in the neighbouring cell (a whole number of periods away): exact,
//! and correct even with 3 cells per axis, where the nearest image can differ from the
//! neighbouring-cell image.

use std::collections::BTreeMap;

use super::{CandidatePair, Cdo, Certificates};
use crate::kinematics::gap_closing_time;
use crate::queue::EventQueue;
use crate::{SimError, State};

/// Where a [`CellLists`] keeps its cells: which particles reside in each (wrapped) cell.
///
/// ```
/// use kinetic_cdo::{CellStore, DenseCells, TreeCells};
/// // A 3 × 3 grid: particles 0 and 2 in cell [1, 2]; particle 1 passes through cell [0, 0].
/// fn fill<S: CellStore<2>>() -> S {
///     let mut store = S::default();
///     store.reset([3, 3], 3);
///     store.insert([1, 2], 0);
///     store.insert([0, 0], 1);
///     store.insert([1, 2], 2);
///     store.remove([0, 0], 1);
///     store
/// }
/// let (dense, tree): (DenseCells<2>, TreeCells<2>) = (fill(), fill());
/// let mut members = Vec::new();
/// tree.for_each_member([1, 2], |i| members.push(i));
/// members.sort_unstable();
/// assert_eq!(members, [0, 2]);
/// // Every cell exists in the dense store, only the non-empty one in the tree.
/// assert_eq!((dense.stored_cells(), tree.stored_cells()), (9, 1));
/// assert!(DenseCells::<2>::DENSE && !TreeCells::<2>::DENSE);
/// ```
pub trait CellStore<const D: usize>: Default {
    /// The structure's name in reports.
    const NAME: &'static str;
    /// Whether every cell is allocated (then the grid is capped at [`MAX_DENSE_CELLS`]).
    const DENSE: bool;
    /// Empties the store for a grid of `cells` per axis and particles `0..particles`.
    fn reset(&mut self, cells: [usize; D], particles: usize);
    /// Adds particle `i` to `cell`.
    fn insert(&mut self, cell: [usize; D], i: u32);
    /// Removes particle `i` from `cell`, where it resides.
    fn remove(&mut self, cell: [usize; D], i: u32);
    /// Calls `f` for every particle residing in `cell`.
    fn for_each_member(&self, cell: [usize; D], f: impl FnMut(u32));
    /// The number of cells that exist in memory.
    fn stored_cells(&self) -> usize;
    /// Heap memory held, in bytes.
    fn memory_bytes(&self) -> usize;
}

/// "No particle" in the intrusive lists.
const NONE: u32 = u32::MAX;

/// All `Π k_a` cells in one array, accessed in `O(1)` (the paper's regular spatial subdivision).
///
/// Each cell is an intrusive doubly linked list threaded through per-particle `next`/`prev`
/// arrays (the linked cell lists of molecular dynamics): insert and remove are `O(1)` and the
/// whole structure is three flat arrays that stay in cache, where a vector per cell would put
/// every cell in its own allocation.
///
/// ```
/// use kinetic_cdo::{CellStore, DenseCells};
/// let mut cells = DenseCells::<2>::default();
/// cells.reset([4, 3], 2); // all 4 × 3 cells, particles 0 and 1
/// cells.insert([3, 1], 0);
/// cells.insert([3, 1], 1);
/// cells.remove([3, 1], 0);
/// let mut members = Vec::new();
/// cells.for_each_member([3, 1], |i| members.push(i));
/// assert_eq!(members, [1]);
/// assert_eq!(cells.stored_cells(), 12);
/// ```
#[derive(Debug, Clone)]
pub struct DenseCells<const D: usize> {
    strides: [usize; D],
    head: Vec<u32>,
    next: Vec<u32>,
    prev: Vec<u32>,
}

impl<const D: usize> Default for DenseCells<D> {
    fn default() -> Self {
        Self { strides: [0; D], head: Vec::new(), next: Vec::new(), prev: Vec::new() }
    }
}

impl<const D: usize> DenseCells<D> {
    #[inline]
    fn index(&self, cell: [usize; D]) -> usize {
        let mut index = 0;
        for a in 0..D {
            index += cell[a] * self.strides[a];
        }
        index
    }
}

impl<const D: usize> CellStore<D> for DenseCells<D> {
    const NAME: &'static str = "subdivision";
    const DENSE: bool = true;

    fn reset(&mut self, cells: [usize; D], particles: usize) {
        let mut stride = 1;
        for a in 0..D {
            self.strides[a] = stride;
            stride *= cells[a];
        }
        self.head.clear();
        self.head.resize(stride, NONE);
        self.next.clear();
        self.next.resize(particles, NONE);
        self.prev.clear();
        self.prev.resize(particles, NONE);
    }

    #[inline]
    fn insert(&mut self, cell: [usize; D], i: u32) {
        let c = self.index(cell);
        let first = self.head[c];
        self.next[i as usize] = first;
        self.prev[i as usize] = NONE;
        if first != NONE {
            self.prev[first as usize] = i;
        }
        self.head[c] = i;
    }

    #[inline]
    fn remove(&mut self, cell: [usize; D], i: u32) {
        let (next, prev) = (self.next[i as usize], self.prev[i as usize]);
        if prev == NONE {
            let c = self.index(cell);
            self.head[c] = next;
        } else {
            self.next[prev as usize] = next;
        }
        if next != NONE {
            self.prev[next as usize] = prev;
        }
    }

    #[inline]
    fn for_each_member(&self, cell: [usize; D], mut f: impl FnMut(u32)) {
        let mut k = self.head[self.index(cell)];
        while k != NONE {
            f(k);
            k = self.next[k as usize];
        }
    }

    fn stored_cells(&self) -> usize {
        self.head.len()
    }

    fn memory_bytes(&self) -> usize {
        (self.head.capacity() + self.next.capacity() + self.prev.capacity()) * 4
    }
}

/// Only non-empty cells, in an ordered map keyed by their coordinates: `O(n)` space, `O(log n)`
/// access (the paper's regular spatial tree; a B-tree stands in for its AVL tree, the same
/// ordered-map contract with better constants).
///
/// ```
/// use kinetic_cdo::{CellStore, TreeCells};
/// let mut cells = TreeCells::<3>::default();
/// cells.reset([1000, 1000, 1000], 2); // no cell is allocated
/// cells.insert([7, 8, 9], 0);
/// cells.insert([7, 8, 9], 1);
/// assert_eq!(cells.stored_cells(), 1);
/// cells.remove([7, 8, 9], 0);
/// cells.remove([7, 8, 9], 1);
/// assert_eq!(cells.stored_cells(), 0); // an emptied cell is dropped
/// ```
#[derive(Debug, Clone)]
pub struct TreeCells<const D: usize> {
    cells: BTreeMap<[usize; D], Vec<u32>>,
    /// Each particle's index in its cell's member list.
    slot: Vec<u32>,
}

impl<const D: usize> Default for TreeCells<D> {
    fn default() -> Self {
        Self { cells: BTreeMap::new(), slot: Vec::new() }
    }
}

impl<const D: usize> CellStore<D> for TreeCells<D> {
    const NAME: &'static str = "spatial tree";
    const DENSE: bool = false;

    fn reset(&mut self, _: [usize; D], particles: usize) {
        self.cells.clear();
        self.slot.clear();
        self.slot.resize(particles, 0);
    }

    fn insert(&mut self, cell: [usize; D], i: u32) {
        let members = self.cells.entry(cell).or_default();
        self.slot[i as usize] = members.len() as u32;
        members.push(i);
    }

    fn remove(&mut self, cell: [usize; D], i: u32) {
        let members = self.cells.get_mut(&cell).expect("a resident particle's cell exists");
        let index = self.slot[i as usize] as usize;
        members.swap_remove(index);
        if let Some(&moved) = members.get(index) {
            self.slot[moved as usize] = index as u32;
        }
        if members.is_empty() {
            self.cells.remove(&cell);
        }
    }

    fn for_each_member(&self, cell: [usize; D], f: impl FnMut(u32)) {
        if let Some(members) = self.cells.get(&cell) {
            members.iter().copied().for_each(f);
        }
    }

    fn stored_cells(&self) -> usize {
        self.cells.len()
    }

    fn memory_bytes(&self) -> usize {
        // A B-tree node holds up to 11 entries plus bookkeeping; count each entry's key and
        // vector header with a node's worth of overhead shared among them.
        let per_entry = size_of::<[usize; D]>() + size_of::<Vec<u32>>() + 16;
        self.cells.values().map(|c| per_entry + c.capacity() * 4).sum::<usize>() + self.slot.capacity() * 4
    }
}

/// The most cells a dense grid allocates; beyond it cells are enlarged (still correct, only
/// coarser), so a tiny particle in a huge box cannot exhaust memory.
///
/// ```
/// use kinetic_cdo::{MAX_DENSE_CELLS, Particle, RegularSubdivision, SimBox, SimConfig};
/// use kinetic_cdo::Simulation;
/// // Far below the cap: one cell per diameter, ⌊100 / 1⌋ along each axis.
/// let particles = vec![Particle::new([1.0, 1.0], [1.0, 0.0], 0.5, 1.0)];
/// let sim_box = SimBox::walls([100.0, 100.0]).unwrap();
/// let structure = RegularSubdivision::new();
/// let sim = Simulation::new(particles, sim_box, SimConfig::default(), structure).unwrap();
/// assert_eq!(sim.structure().stored_cells(), 100 * 100);
/// assert!(sim.structure().stored_cells() <= MAX_DENSE_CELLS);
/// ```
pub const MAX_DENSE_CELLS: usize = 1 << 26;

/// The most cells along one axis (coarser beyond; keeps cell coordinates far inside `i64`).
pub(crate) const MAX_CELLS_PER_AXIS: f64 = (1u64 << 40) as f64;

/// The regular spatial subdivision: cells in a dense array.
///
/// ```
/// use kinetic_cdo::{BruteForce, Particle, RegularSubdivision, SimBox, SimConfig, Simulation};
/// let particles = vec![
///     Particle::new([1.0, 1.0], [1.0, 0.0], 0.5, 1.0),
///     Particle::new([8.0, 1.0], [-1.0, 0.0], 0.5, 1.0),
/// ];
/// let sim_box = SimBox::periodic([10.0, 10.0]).unwrap();
/// let mut sim = Simulation::new(particles, sim_box, SimConfig::default(), RegularSubdivision::new()).unwrap();
/// // Head-on: 7 − 1 = 6 units of gap at closing speed 2. (Round the periodic box they are
/// // only 2 units apart, but moving apart that way.)
/// let c = sim.next_collision().unwrap();
/// assert!((c.time - 3.0).abs() < 1e-12);
/// assert_eq!(sim.structure().cells_per_axis(), [10, 10]);
/// ```
pub type RegularSubdivision<const D: usize> = CellLists<D, DenseCells<D>>;

/// The regular spatial tree: only non-empty cells, in an ordered map.
///
/// ```
/// use kinetic_cdo::{Particle, SimBox, SimConfig, Simulation, SpatialTree};
/// let particles = vec![
///     Particle::new([1.0, 1.0], [1.0, 0.0], 0.5, 1.0),
///     Particle::new([4.0, 1.0], [-1.0, 0.0], 0.5, 1.0),
/// ];
/// let sim_box = SimBox::walls([100.0, 100.0]).unwrap();
/// let mut sim = Simulation::new(particles, sim_box, SimConfig::default(), SpatialTree::new()).unwrap();
/// // Only the two occupied cells exist, not the 100 × 100 grid.
/// assert_eq!(sim.structure().stored_cells(), 2);
/// assert!((sim.next_collision().unwrap().time - 1.0).abs() < 1e-12);
/// ```
pub type SpatialTree<const D: usize> = CellLists<D, TreeCells<D>>;

/// Cell lists over any [`CellStore`]; see [`RegularSubdivision`] and [`SpatialTree`].
///
/// ```
/// use kinetic_cdo::{CellLists, Particle, SimBox, SimConfig, Simulation, TreeCells};
/// // The spatial tree spelled out: cell lists over the map of non-empty cells.
/// let structure: CellLists<2, TreeCells<2>> = CellLists::new();
/// let particles = vec![
///     Particle::new([1.5, 1.5], [1.0, 0.0], 0.5, 1.0),
///     Particle::new([7.5, 3.5], [0.0, 1.0], 0.5, 1.0),
/// ];
/// let sim_box = SimBox::walls([10.0, 10.0]).unwrap();
/// let sim = Simulation::new(particles, sim_box, SimConfig::default(), structure).unwrap();
/// assert_eq!(sim.structure().cells_per_axis(), [10, 10]);
/// assert_eq!(sim.structure().stored_cells(), 2);
/// ```
#[derive(Debug, Clone)]
pub struct CellLists<const D: usize, S> {
    store: S,
    cells: [usize; D],
    side: [f64; D],
    lengths: [f64; D],
    periodic: [bool; D],
    /// The cell each particle resides in (wrapped into the grid).
    home: Vec<[usize; D]>,
    /// Whole periods (`p · L` per axis) between each particle's unwrapped position and its cell.
    period: Vec<[f64; D]>,
    /// The pending crossing per particle: (axis, direction ±1).
    crossing: Vec<(u8, i8)>,
}

impl<const D: usize, S: CellStore<D>> Default for CellLists<D, S> {
    fn default() -> Self {
        Self::new()
    }
}

/// One axis of a neighbouring cell: its wrapped coordinate and whole-period offset.
#[derive(Debug, Clone, Copy, Default)]
struct AxisStep {
    coordinate: usize,
    period: f64,
}

impl<const D: usize, S: CellStore<D>> CellLists<D, S> {
    /// An empty structure; [`Cdo::build`] sizes it.
    ///
    /// ```
    /// use kinetic_cdo::{Particle, RegularSubdivision, SimBox, SimConfig, Simulation};
    /// let structure = RegularSubdivision::<3>::new();
    /// let particles = vec![Particle::new([1.0, 1.0, 1.0], [1.0, 0.0, 0.0], 0.5, 1.0)];
    /// let sim_box = SimBox::periodic([5.0, 5.0, 5.0]).unwrap();
    /// let sim = Simulation::new(particles, sim_box, SimConfig::default(), structure).unwrap();
    /// assert_eq!(sim.structure().cells_per_axis(), [5, 5, 5]); // sized at build
    /// ```
    pub fn new() -> Self {
        Self {
            store: S::default(),
            cells: [1; D],
            side: [1.0; D],
            lengths: [1.0; D],
            periodic: [false; D],
            home: Vec::new(),
            period: Vec::new(),
            crossing: Vec::new(),
        }
    }

    /// Cells per axis after `build`.
    ///
    /// ```
    /// use kinetic_cdo::{Particle, RegularSubdivision, SimBox, SimConfig, Simulation};
    /// // Cells at least one diameter (1.2) wide: ⌊10 / 1.2⌋ = 8 and ⌊7.5 / 1.2⌋ = 6.
    /// let particles = vec![Particle::new([1.0, 1.0], [1.0, 0.0], 0.6, 1.0)];
    /// let sim_box = SimBox::walls([10.0, 7.5]).unwrap();
    /// let structure = RegularSubdivision::new();
    /// let sim = Simulation::new(particles, sim_box, SimConfig::default(), structure).unwrap();
    /// assert_eq!(sim.structure().cells_per_axis(), [8, 6]);
    /// ```
    pub fn cells_per_axis(&self) -> [usize; D] {
        self.cells
    }

    /// The number of cells held in memory (all of them for the subdivision, the non-empty
    /// ones for the tree).
    ///
    /// ```
    /// use kinetic_cdo::{Particle, RegularSubdivision, SimBox, SimConfig, Simulation};
    /// use kinetic_cdo::SpatialTree;
    /// // Two disks in one cell of side 1 ([1, 2) × [1, 2)), a third elsewhere.
    /// let particles = vec![
    ///     Particle::new([1.05, 1.05], [0.0, 0.0], 0.5, 1.0),
    ///     Particle::new([1.95, 1.95], [0.0, 0.0], 0.5, 1.0),
    ///     Particle::new([5.5, 5.5], [0.0, 0.0], 0.5, 1.0),
    /// ];
    /// let sim_box = SimBox::walls([10.0, 10.0]).unwrap();
    /// let config = SimConfig::default();
    /// let dense = Simulation::new(particles.clone(), sim_box, config, RegularSubdivision::new());
    /// assert_eq!(dense.unwrap().structure().stored_cells(), 10 * 10);
    /// let tree = Simulation::new(particles, sim_box, config, SpatialTree::new()).unwrap();
    /// assert_eq!(tree.structure().stored_cells(), 2);
    /// ```
    pub fn stored_cells(&self) -> usize {
        self.store.stored_cells()
    }

    /// The neighbouring cells of `i` along axis `a` at offsets `{−1, 0, 1}` (or only the one at
    /// `pin`), as (wrapped coordinate, period offset); cells beyond a wall are left out.
    #[inline]
    fn steps(&self, i: usize, a: usize, pin: Option<i64>) -> ([AxisStep; 3], usize) {
        let k = self.cells[a];
        let w = self.home[i][a];
        let p = self.period[i][a];
        let mut out = [AxisStep::default(); 3];
        let mut len = 0;
        let offsets: &[i64] = match pin {
            Some(-1) => &[-1],
            Some(1) => &[1],
            Some(_) => &[0],
            None => &[-1, 0, 1],
        };
        for &o in offsets {
            let step = if o == -1 {
                if w > 0 {
                    AxisStep { coordinate: w - 1, period: p }
                } else if self.periodic[a] {
                    AxisStep { coordinate: k - 1, period: p - self.lengths[a] }
                } else {
                    continue;
                }
            } else if o == 1 {
                if w + 1 < k {
                    AxisStep { coordinate: w + 1, period: p }
                } else if self.periodic[a] {
                    AxisStep { coordinate: 0, period: p + self.lengths[a] }
                } else {
                    continue;
                }
            } else {
                AxisStep { coordinate: w, period: p }
            };
            out[len] = step;
            len += 1;
        }
        (out, len)
    }

    /// Calls `f(k, shift)` for the members of `i`'s neighbouring cells (only the layer at
    /// `pin = (axis, ±1)` if given).
    #[inline]
    fn visit(&self, i: usize, pin: Option<(usize, i64)>, f: &mut impl FnMut(usize, [f64; D])) {
        let axes: [([AxisStep; 3], usize); D] =
            std::array::from_fn(|a| self.steps(i, a, pin.and_then(|(axis, o)| (axis == a).then_some(o))));
        if axes.iter().any(|(_, len)| *len == 0) {
            return;
        }
        let mut choice = [0usize; D];
        loop {
            let cell: [usize; D] = std::array::from_fn(|a| axes[a].0[choice[a]].coordinate);
            let period: [f64; D] = std::array::from_fn(|a| axes[a].0[choice[a]].period);
            self.store.for_each_member(cell, |k| {
                let k = k as usize;
                if k != i {
                    let theirs = &self.period[k];
                    f(k, std::array::from_fn(|a| period[a] - theirs[a]));
                }
            });
            // Odometer over the per-axis choices.
            let mut a = 0;
            loop {
                if a == D {
                    return;
                }
                choice[a] += 1;
                if choice[a] < axes[a].1 {
                    break;
                }
                choice[a] = 0;
                a += 1;
            }
        }
    }

    /// Schedules particle `i`'s next cell crossing.
    fn schedule_crossing<Q: EventQueue>(
        &mut self,
        i: usize,
        state: &State<D>,
        certificates: &mut Certificates<'_, Q>,
    ) {
        let x = state.stored_position(i);
        let v = state.velocity(i);
        let g = state.gravity();
        let mut best = (f64::INFINITY, 0u8, 0i8);
        for a in 0..D {
            let w = self.home[i][a];
            let lower = self.period[i][a] + w as f64 * self.side[a];
            let upper = self.period[i][a] + (w + 1) as f64 * self.side[a];
            let walls = !self.periodic[a];
            if !(walls && w + 1 == self.cells[a]) {
                let t = gap_closing_time(upper - x[a], -v[a], -g[a]);
                if t < best.0 {
                    best = (t, a as u8, 1);
                }
            }
            if !(walls && w == 0) {
                let t = gap_closing_time(x[a] - lower, v[a], g[a]);
                if t < best.0 {
                    best = (t, a as u8, -1);
                }
            }
        }
        self.crossing[i] = (best.1, best.2);
        certificates.schedule(i, certificates.now() + best.0);
    }
}

/// Calls `f` once for each distinct cell among the `3^D` around `home` in a grid of `cells` per
/// axis (fewer than 3 cells on a periodic axis make offsets coincide; walls cut the stencil).
pub(crate) fn for_each_distinct_neighbour_cell<const D: usize>(
    home: [usize; D],
    cells: [usize; D],
    periodic: [bool; D],
    mut f: impl FnMut([usize; D]),
) {
    let mut seen: Vec<[usize; D]> = Vec::with_capacity(3usize.pow(D as u32));
    for_each_offset::<D>(None, |offset| {
        let mut target = [0usize; D];
        for a in 0..D {
            let k = cells[a] as i64;
            let t = home[a] as i64 + offset[a];
            target[a] = if periodic[a] {
                t.rem_euclid(k) as usize
            } else if t < 0 || t >= k {
                return;
            } else {
                t as usize
            };
        }
        if !seen.contains(&target) {
            seen.push(target);
            f(target);
        }
    });
}

/// Every offset in `{−1, 0, 1}^D` (with axis `fixed.0` pinned to `fixed.1` when given).
#[inline]
pub(crate) fn for_each_offset<const D: usize>(fixed: Option<(usize, i64)>, mut f: impl FnMut([i64; D])) {
    let total = 3usize.pow(D as u32);
    for code in 0..total {
        let mut c = code;
        let mut offset = [0i64; D];
        let mut skip = false;
        for (a, o) in offset.iter_mut().enumerate() {
            *o = (c % 3) as i64 - 1;
            c /= 3;
            if let Some((axis, value)) = fixed
                && axis == a
                && *o != value
            {
                skip = true;
            }
        }
        if !skip {
            f(offset);
        }
    }
}

impl<const D: usize, S: CellStore<D>> Cdo<D> for CellLists<D, S> {
    fn name(&self) -> &'static str {
        S::NAME
    }

    fn build<Q: EventQueue>(
        &mut self,
        state: &mut State<D>,
        certificates: &mut Certificates<'_, Q>,
    ) -> Result<(), SimError> {
        let n = state.len();
        let diameter = 2.0 * state.max_radius_cap();
        self.lengths = state.sim_box().lengths();
        self.periodic = state.sim_box().periodic_axes();
        for a in 0..D {
            let k = (self.lengths[a] / diameter).floor().clamp(1.0, MAX_CELLS_PER_AXIS) as usize;
            if self.periodic[a] && k < 3 {
                return Err(SimError::BoxTooSmall {
                    axis: a,
                    length: self.lengths[a],
                    required: 3.0 * diameter,
                });
            }
            self.cells[a] = k;
        }
        if S::DENSE {
            // Coarsen the longest axes until the dense array fits.
            while self.cells.iter().fold(1usize, |a, &b| a.saturating_mul(b)) > MAX_DENSE_CELLS {
                let a = (0..D).max_by_key(|&a| self.cells[a]).unwrap();
                self.cells[a] = (self.cells[a] / 2).max(3);
            }
        }
        for a in 0..D {
            self.side[a] = self.lengths[a] / self.cells[a] as f64;
        }
        self.store.reset(self.cells, n);
        self.home.clear();
        self.period.clear();
        self.crossing = vec![(0, 0); n];
        for i in 0..n {
            let x = state.stored_position(i);
            let mut home = [0usize; D];
            let mut period = [0.0; D];
            for a in 0..D {
                let c = (x[a] / self.side[a]).floor() as i64;
                let k = self.cells[a] as i64;
                if self.periodic[a] {
                    home[a] = c.rem_euclid(k) as usize;
                    period[a] = c.div_euclid(k) as f64 * self.lengths[a];
                } else {
                    home[a] = c.clamp(0, k - 1) as usize;
                }
            }
            self.home.push(home);
            self.period.push(period);
            self.store.insert(home, i as u32);
        }
        for i in 0..n {
            self.schedule_crossing(i, state, certificates);
        }
        Ok(())
    }

    fn certificate_slots(&self, particles: usize) -> usize {
        particles
    }

    #[inline]
    fn for_each_candidate(&self, i: usize, _: &State<D>, mut f: impl FnMut(usize, [f64; D])) {
        self.visit(i, None, &mut f);
    }

    fn trajectory_changed<Q: EventQueue>(
        &mut self,
        i: usize,
        state: &State<D>,
        certificates: &mut Certificates<'_, Q>,
    ) {
        self.schedule_crossing(i, state, certificates);
    }

    fn certificate_failed<Q: EventQueue>(
        &mut self,
        i: usize,
        state: &mut State<D>,
        certificates: &mut Certificates<'_, Q>,
        new_pairs: &mut Vec<CandidatePair<D>>,
    ) -> Option<usize> {
        let (axis, direction) = self.crossing[i];
        let axis = axis as usize;
        self.store.remove(self.home[i], i as u32);
        let k = self.cells[axis];
        let w = &mut self.home[i][axis];
        if direction > 0 {
            if *w + 1 == k {
                *w = 0;
                self.period[i][axis] += self.lengths[axis];
            } else {
                *w += 1;
            }
        } else if *w == 0 {
            *w = k - 1;
            self.period[i][axis] -= self.lengths[axis];
        } else {
            *w -= 1;
        }
        self.store.insert(self.home[i], i as u32);
        // Only the layer of cells ahead is new.
        let before = new_pairs.len();
        self.visit(i, Some((axis, i64::from(direction))), &mut |k, shift| {
            new_pairs.push((i as u32, k as u32, shift));
        });
        self.schedule_crossing(i, state, certificates);
        Some(new_pairs.len() - before)
    }

    fn memory_bytes(&self) -> usize {
        self.store.memory_bytes()
            + self.home.capacity() * size_of::<[usize; D]>()
            + self.period.capacity() * size_of::<[f64; D]>()
            + self.crossing.capacity() * 2
    }
}

//! Every parameter the thesis names, plus the options beyond it.

use crate::HhGridError;

/// How [`update`](contact_core::BroadPhase::update) adapts the structure to moved objects
/// (thesis §2.6).
///
/// ```
/// use contact_core::BroadPhase;
/// use geometry_core::{Aabb, DVec3};
/// use hhgrid::{HhGridConfig, HierarchicalHashGrid, UpdateStrategy};
/// assert_eq!(HhGridConfig::default().update_strategy, UpdateStrategy::Incremental);
/// let (update_strategy, all_pairs_threshold) = (UpdateStrategy::ClearAndReinsert, 0);
/// let config = HhGridConfig { update_strategy, all_pairs_threshold, ..HhGridConfig::default() };
/// let mut grid = HierarchicalHashGrid::new(config).unwrap();
/// let cube = |x: f64| Aabb::new(DVec3::new(x, 0.0, 0.0), DVec3::new(x + 1.0, 1.0, 1.0)).unwrap();
/// let (a, b) = (grid.insert(cube(0.0)).unwrap(), grid.insert(cube(5.0)).unwrap());
/// grid.update(b, cube(0.5)).unwrap();
/// let mut pairs = Vec::new();
/// grid.find_pairs(&mut pairs); // detection applies the pending update itself
/// assert_eq!(pairs, vec![(a, b)]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum UpdateStrategy {
    /// Algorithm 2: recompute each updated object's cell; move it only when its cell (or, after a
    /// size change, its grid) changes. O(1) per update; the thesis's strategy of choice.
    #[default]
    Incremental,
    /// Store the new boxes and, before the next detection or query, clear every grid and
    /// reinsert all objects (the thesis's simple alternative, benchmarked in its Fig. 25).
    ClearAndReinsert,
}

/// How the cell size `c0` of the first grid is chosen; every other grid's cell size is
/// `c0 · f^k`.
///
/// ```
/// use contact_core::BroadPhase;
/// use geometry_core::{Aabb, DVec3};
/// use hhgrid::{BaseCellSize, HhGridConfig, HierarchicalHashGrid};
/// let config = HhGridConfig { base_cell_size: BaseCellSize::DensestLevel, ..HhGridConfig::default() };
/// // One small box first, then twenty boxes of edge 3 and twenty of edge 5. The thesis's rule
/// // sizes the levels from the small box (c0 = 0.2·√2): the edges 3 and 5 fall on either side
/// // of the cell size 0.2·√2·2⁴ = 4.5, in two levels. Here the grids switch on with all 41
/// // in view, and c0 is chosen so that one level, [c/2, c), holds all forty.
/// let levels = |config: HhGridConfig| {
///     let mut grid = HierarchicalHashGrid::new(config).unwrap();
///     grid.insert(Aabb::new(DVec3::ZERO, DVec3::splat(0.2)).unwrap()).unwrap();
///     for i in 0..40 {
///         let p = DVec3::new(f64::from(i) * 6.0, 0.0, 0.0);
///         let edge = if i % 2 == 0 { 3.0 } else { 5.0 };
///         grid.insert(Aabb::new(p, p + DVec3::splat(edge)).unwrap()).unwrap();
///     }
///     grid.grid_summary().into_iter().map(|g| g.3).max().unwrap()
/// };
/// assert_eq!(levels(HhGridConfig::default()), 20);
/// assert_eq!(levels(config), 40);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum BaseCellSize {
    /// The thesis's rule (eq. 3.3.2): the first object placed in a grid sits midway between its
    /// grid's size bounds, `c0 = size · √f`.
    #[default]
    FirstObject,
    /// Beyond the thesis: when the structure switches from all-pairs mode to grids (so with
    /// more than [`all_pairs_threshold`](HhGridConfig::all_pairs_threshold) objects at hand),
    /// `c0` is chosen so that one level's size range `[c/f, c)` holds as many of those objects as
    /// possible. Detection is fastest when most objects share a level; with the first object's
    /// size alone, the split between levels is luck (measured: 1.8× in detection time for the
    /// same 10⁵ boxes). Falls back to `FirstObject` when grids start with a single object.
    DensestLevel,
}

/// The order of the pairs that detection reports.
///
/// ```
/// use contact_core::BroadPhase;
/// use geometry_core::{Aabb, DVec3};
/// use hhgrid::{HhGridConfig, HierarchicalHashGrid, PairOrder};
/// assert_eq!(HhGridConfig::default().pair_order, PairOrder::Traversal);
/// let config = HhGridConfig { pair_order: PairOrder::Sorted, ..HhGridConfig::default() };
/// let mut grid = HierarchicalHashGrid::new(config).unwrap();
/// // Unit cubes 0.8 apart along x, inserted from right to left: only neighbours overlap.
/// for i in (0..50).rev() {
///     let p = DVec3::new(f64::from(i) * 0.8, 0.0, 0.0);
///     grid.insert(Aabb::new(p, p + DVec3::ONE).unwrap()).unwrap();
/// }
/// let mut pairs = Vec::new();
/// grid.find_pairs(&mut pairs);
/// assert_eq!(pairs.len(), 49);
/// assert!(pairs.iter().all(|(a, b)| a < b) && pairs.windows(2).all(|w| w[0] < w[1]));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum PairOrder {
    /// The traversal order of Algorithm 4 (grids from fine to coarse, occupied cells by
    /// increasing storage index). Deterministic for a given history of operations; the fastest.
    /// After an incremental detection (see [`HhGridConfig::incremental_share`]) the pairs that
    /// persist keep their previous relative order: those between unchanged objects, and those
    /// of changed objects whose boxes stayed within their fat boxes (they are re-tested in
    /// place). The pairs new to the output follow, with the surviving pairs of changed objects
    /// that left their fat boxes (those objects are queried anew).
    #[default]
    Traversal,
    /// Sorted by handle (each pair `(a, b)` has `a < b`): the same output for the same set of
    /// objects whatever the order in which they were inserted, updated or removed, and whether
    /// detection ran incrementally or not.
    Sorted,
}

/// Configuration of a [`HierarchicalHashGrid`](crate::HierarchicalHashGrid).
///
/// [`HhGridConfig::thesis`] gives the exact parameters of the thesis's benchmarks (§4);
/// [`Default`] gives this crate's tuned defaults (smaller cell reserve, incremental detection,
/// the narrowed search across grids; same geometry).
///
/// ```
/// use hhgrid::{HhGridConfig, UpdateStrategy};
/// let mut config = HhGridConfig::thesis();
/// assert_eq!((config.hierarchy_factor, config.initial_cells, config.cell_reserve), (2.0, [16, 16, 16], 16));
/// config.update_strategy = UpdateStrategy::ClearAndReinsert;
/// assert!(config.validate().is_ok());
/// config.initial_cells = [16, 6, 16];
/// assert!(config.validate().is_err());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct HhGridConfig {
    /// Ratio of the cell sizes of two successive grid levels (`f_hierarchy`, thesis §3.3).
    /// Must be at least 1.01 (finer ratios give no benefit and would erode the floating-point
    /// margin that the one-cell-per-object scheme relies on). Thesis default: 2.
    pub hierarchy_factor: f64,
    /// Cells per axis of a newly created grid: powers of two, each at least 4 (thesis §3.8) and
    /// at most [`MAX_CELLS_PER_AXIS`]. Thesis default: 16 × 16 × 16. A grid's cell table is
    /// paged (pages of 512 cells, 4 bytes each, allocated where cells are occupied), so the
    /// memory follows the occupied region rather than the cell count: a directory of one `u32`
    /// per page, e.g. 8 MiB for 1024³ cells.
    pub initial_cells: [u32; 3],
    /// Objects per cell above which a grid grows ×8 (each axis doubled), thesis §3.4; a grid
    /// with an axis of [`MAX_CELLS_PER_AXIS`] cells does not grow further (it stays correct,
    /// only denser). Thesis default: 1/8. Finite and at least [`MIN_DENSITY`]: a lower density
    /// would let a handful of objects grow a grid to the largest size (1024³ cells, whose page
    /// directory alone takes 8 MiB, and whose pages take up to 4 bytes per cell where objects
    /// spread).
    pub max_density: f64,
    /// Initial capacity reserved for a cell's object container (thesis §3.9 suggests 16). At
    /// most [`MAX_CELL_RESERVE`].
    pub cell_reserve: usize,
    /// Below this many objects, pairs are found by an all-pairs test without building grids;
    /// the switch to grids happens once, irreversibly, when the count of objects with a box
    /// (not those of [`insert_unbounded`](crate::HierarchicalHashGrid::insert_unbounded), which
    /// are tested against everything anyway) exceeds it (thesis §3.7). Thesis default: 32 (0
    /// builds grids from the first object).
    pub all_pairs_threshold: usize,
    /// How updates are applied (thesis §2.6).
    pub update_strategy: UpdateStrategy,
    /// The order of reported pairs.
    pub pair_order: PairOrder,
    /// Whether [`find_pairs`](contact_core::BroadPhase::find_pairs) runs in parallel (rayon).
    /// The output is identical either way.
    pub parallel: bool,
    /// How the first grid's cell size is chosen (thesis: from the first object).
    pub base_cell_size: BaseCellSize,
    /// Beyond the thesis: incremental detection. When the objects inserted, removed or given a
    /// new box since the previous unfiltered detection are at most this share of all objects,
    /// detection keeps the previous pairs of the unchanged objects and looks for pairs of the
    /// changed ones only (re-testing their listed pairs, or a box query for those that left
    /// their fat boxes, see [`incremental_margin`](Self::incremental_margin)), instead of
    /// running Algorithm 4 over everything: the case of a scene where most bodies rest. The
    /// pairs are the same either way; see [`PairOrder`] for their order. Costs a copy of the
    /// pairs (16 bytes per pair) and the near pairs at each detection that follows few changes,
    /// five bytes per object, and the fat boxes of the objects queried since the last full
    /// detection. After a step with many changes, the next detection is a full one; the one
    /// after it can be incremental. `0` disables it (the thesis's behaviour); must lie in
    /// `[0, 1]`.
    /// Default: 0.25 (on the thesis's workload a changed object's query costs about as much as
    /// one object's share of a full detection, so the incremental path wins up to large shares;
    /// the margin covers scenes where queries cost more).
    ///
    /// ```
    /// use contact_core::BroadPhase;
    /// use geometry_core::{Aabb, DVec3};
    /// use hhgrid::{HhGridConfig, HierarchicalHashGrid};
    /// let cube = |x: f64| Aabb::new(DVec3::new(x, 0.0, 0.0), DVec3::new(x + 1.0, 1.0, 1.0)).unwrap();
    /// let mut incremental = HierarchicalHashGrid::default(); // share 0.25
    /// let mut full = HierarchicalHashGrid::new(HhGridConfig { incremental_share: 0.0, ..HhGridConfig::default() }).unwrap();
    /// let mut handles = Vec::new();
    /// for i in 0..100 {
    ///     handles.push((incremental.insert(cube(f64::from(i) * 0.9)).unwrap(), full.insert(cube(f64::from(i) * 0.9)).unwrap()));
    /// }
    /// let (mut a, mut b) = (Vec::new(), Vec::new());
    /// incremental.find_pairs(&mut a); // after 100 insertions: a full detection
    /// incremental.find_pairs(&mut a); // nothing changed: full (nothing cached yet), keeps the pairs
    /// // Two of the hundred move: the next detection only queries those two.
    /// for &(h, k) in &handles[10..12] {
    ///     incremental.update(h, cube(500.0)).unwrap();
    ///     full.update(k, cube(500.0)).unwrap();
    /// }
    /// incremental.find_pairs(&mut a);
    /// full.find_pairs(&mut b);
    /// a.sort();
    /// b.sort();
    /// assert_eq!(a, b);
    /// assert_eq!(a.len(), 99 - 3 + 1); // (9, 10), (10, 11), (11, 12) broken; the movers overlap
    /// ```
    pub incremental_share: f64,
    /// Beyond the thesis: the margin of incremental detection's fat boxes (the "fat boxes" of
    /// game engines' dynamic trees), as a fraction of the object's longest edge. A changed
    /// object is queried only when its box leaves its fat box: the box grown by the margin on
    /// every side and by up to one more margin in the direction the object moved since its
    /// previous fat box. An object that moves by a fraction `s` of its size per step is then
    /// queried about every `margin / s` to `2 margin / s` steps, at the price of keeping and
    /// re-testing the pairs whose fat boxes overlap without their boxes overlapping, and of
    /// wider queries. `0` queries every changed object. Must lie in `[0, 1]`. Default: 0.1 (on
    /// the benchmark's resting scene, where movers go 2 % of their size per step, 0.1 and 0.15
    /// were fastest; 0.05 and 0.3 were 15 % slower).
    ///
    /// ```
    /// use contact_core::BroadPhase;
    /// use geometry_core::{Aabb, DVec3};
    /// use hhgrid::{HhGridConfig, HierarchicalHashGrid};
    /// let cube = |x: f64| Aabb::new(DVec3::new(x, 0.0, 0.0), DVec3::new(x + 1.0, 1.0, 1.0)).unwrap();
    /// let mut grid = HierarchicalHashGrid::new(HhGridConfig { incremental_margin: 0.2, ..HhGridConfig::default() }).unwrap();
    /// let handles: Vec<_> = (0..100).map(|i| grid.insert(cube(f64::from(i) * 1.5)).unwrap()).collect();
    /// let mut pairs = Vec::new();
    /// grid.find_pairs(&mut pairs);
    /// grid.find_pairs(&mut pairs); // the cache of pairs is filled
    /// // One object creeps towards its neighbour, 0.1 per step: it is queried only when it
    /// // leaves its fat box (twice in these five steps), and found touching it at the end.
    /// for step in 1..=5 {
    ///     grid.update(handles[0], cube(0.1 * f64::from(step))).unwrap();
    ///     grid.find_pairs(&mut pairs);
    /// }
    /// assert_eq!(pairs, vec![(handles[0], handles[1])]);
    /// ```
    pub incremental_margin: f64,
    /// Beyond the thesis: whether detection narrows the 27-cell stencil that each object
    /// searches in every coarser grid (Algorithm 4) to the reference cells that a box
    /// overlapping the object can have: from the cell of its minimum corner less the largest
    /// object size of that grid, to the cell of its maximum corner. A box of a finer grid
    /// spans at most half a coarse cell, so this is usually 2 × 2 × 2 cells of the 27. The
    /// pairs are the same either way; with sizes varying ×12 (five grids), detection took
    /// 1.8× less time (measured on the benchmark's scenario at 10⁴ boxes). Default: `true`;
    /// [`thesis`](Self::thesis): `false`.
    ///
    /// ```
    /// use contact_core::BroadPhase;
    /// use geometry_core::{Aabb, DVec3};
    /// use hhgrid::{HhGridConfig, HierarchicalHashGrid};
    /// let wide = HhGridConfig { narrow_coarse_stencil: false, ..HhGridConfig::default() };
    /// let (mut narrowed, mut full) = (HierarchicalHashGrid::default(), HierarchicalHashGrid::new(wide).unwrap());
    /// // Boxes of edges 0.3 to 4.8 (five grids) along a line.
    /// for i in 0..200 {
    ///     let edge = 0.3 * f64::from(1 << (i % 5));
    ///     let min = DVec3::new(f64::from(i) * 0.7, 0.0, 0.0);
    ///     let aabb = Aabb::new(min, min + DVec3::splat(edge)).unwrap();
    ///     narrowed.insert(aabb).unwrap();
    ///     full.insert(aabb).unwrap();
    /// }
    /// assert_eq!(narrowed.grid_count(), 5);
    /// let (mut a, mut b) = (Vec::new(), Vec::new());
    /// narrowed.find_pairs(&mut a);
    /// full.find_pairs(&mut b);
    /// a.sort();
    /// b.sort();
    /// assert_eq!(a, b);
    /// ```
    pub narrow_coarse_stencil: bool,
}

/// The largest number of cells per axis: keeps cell indices within `u32` and neighbour
/// offsets within `i32` (thesis §3.1: 32-bit offsets address up to 1024³ cells).
///
/// ```
/// use hhgrid::{HhGridConfig, MAX_CELLS_PER_AXIS};
/// // 1024³ = 2³⁰ cells: every cell index fits in a u32.
/// assert_eq!(u64::from(MAX_CELLS_PER_AXIS).pow(3), 1 << 30);
/// let mut config = HhGridConfig::default();
/// config.initial_cells = [MAX_CELLS_PER_AXIS, 16, 16];
/// assert!(config.validate().is_ok());
/// config.initial_cells = [2 * MAX_CELLS_PER_AXIS, 16, 16];
/// assert!(config.validate().is_err());
/// ```
pub const MAX_CELLS_PER_AXIS: u32 = 1024;

/// The smallest [`max_density`](HhGridConfig::max_density) accepted: at most a thousand cells
/// (up to 4 kB of cell pages) per object held.
///
/// ```
/// use hhgrid::{HhGridConfig, MIN_DENSITY};
/// assert!((1.0 / MIN_DENSITY - 1000.0).abs() < 1e-9); // a thousand cells per object
/// let at_min = HhGridConfig { max_density: MIN_DENSITY, ..HhGridConfig::default() };
/// assert!(at_min.validate().is_ok());
/// let below = HhGridConfig { max_density: MIN_DENSITY / 2.0, ..HhGridConfig::default() };
/// assert!(below.validate().is_err());
/// ```
pub const MIN_DENSITY: f64 = 1e-3;

/// The largest [`cell_reserve`](HhGridConfig::cell_reserve) accepted (objects reserved in every
/// occupied cell's container).
///
/// ```
/// use hhgrid::{HhGridConfig, MAX_CELL_RESERVE};
/// let at_max = HhGridConfig { cell_reserve: MAX_CELL_RESERVE, ..HhGridConfig::default() };
/// assert!(at_max.validate().is_ok());
/// let above = HhGridConfig { cell_reserve: MAX_CELL_RESERVE + 1, ..HhGridConfig::default() };
/// assert!(above.validate().is_err());
/// ```
pub const MAX_CELL_RESERVE: usize = 1024;

impl HhGridConfig {
    /// The parameters of the thesis's benchmarks (§4): factor 2, 16³ initial cells, growth at
    /// 1/8 object per cell, 16 reserved slots per cell, all-pairs below 32 objects.
    ///
    /// ```
    /// use hhgrid::HhGridConfig;
    /// let t = HhGridConfig::thesis();
    /// assert_eq!((t.hierarchy_factor, t.initial_cells), (2.0, [16, 16, 16]));
    /// assert_eq!((t.max_density, t.cell_reserve, t.all_pairs_threshold), (0.125, 16, 32));
    /// assert!(t.validate().is_ok());
    /// ```
    pub fn thesis() -> Self {
        Self {
            hierarchy_factor: 2.0,
            initial_cells: [16, 16, 16],
            max_density: 0.125,
            cell_reserve: 16,
            all_pairs_threshold: 32,
            update_strategy: UpdateStrategy::Incremental,
            pair_order: PairOrder::Traversal,
            parallel: false,
            base_cell_size: BaseCellSize::FirstObject,
            incremental_share: 0.0,
            incremental_margin: 0.1,
            narrow_coarse_stencil: false,
        }
    }

    /// Checks every field.
    ///
    /// # Errors
    /// [`HhGridError::InvalidConfig`] naming the first bad field.
    ///
    /// ```
    /// use hhgrid::{HhGridConfig, HhGridError};
    /// assert_eq!(HhGridConfig::default().validate(), Ok(()));
    /// let config = HhGridConfig { incremental_share: 1.5, ..HhGridConfig::default() };
    /// let err = config.validate().unwrap_err();
    /// assert!(matches!(err, HhGridError::InvalidConfig { field: "incremental_share", .. }));
    /// ```
    pub fn validate(&self) -> Result<(), HhGridError> {
        let bad =
            |field: &'static str, reason: &'static str| Err(HhGridError::InvalidConfig { field, reason });
        if !(self.hierarchy_factor.is_finite() && self.hierarchy_factor >= 1.01) {
            return bad("hierarchy_factor", "must be finite and at least 1.01");
        }
        if self.initial_cells.iter().any(|&n| n < 4 || !n.is_power_of_two() || n > MAX_CELLS_PER_AXIS) {
            return bad("initial_cells", "each must be a power of two between 4 and 1024");
        }
        if !(self.max_density.is_finite() && self.max_density >= MIN_DENSITY) {
            return bad("max_density", "must be finite and at least MIN_DENSITY = 1e-3");
        }
        if self.cell_reserve > MAX_CELL_RESERVE {
            return bad("cell_reserve", "must be at most MAX_CELL_RESERVE = 1024");
        }
        if !(0.0..=1.0).contains(&self.incremental_share) {
            return bad("incremental_share", "must lie in [0, 1]");
        }
        if !(0.0..=1.0).contains(&self.incremental_margin) {
            return bad("incremental_margin", "must lie in [0, 1]");
        }
        Ok(())
    }
}

impl Default for HhGridConfig {
    /// The thesis's geometry with a smaller cell reserve (most cells hold one or two objects at
    /// the thesis's densities, and the container keeps up to four inline without allocating)
    /// and incremental detection when at most a quarter of the objects changed.
    fn default() -> Self {
        Self { cell_reserve: 0, incremental_share: 0.25, narrow_coarse_stencil: true, ..Self::thesis() }
    }
}

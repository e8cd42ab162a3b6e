//! The distributed broad phase: one [`HierarchicalHashGrid`] per rank, migration, ghosts, pairs.

use crate::decomp::{Decomposition, Domain, pair_reporter_is_first, shift_of};
use crate::{DistError, StepStats};
use contact_core::BroadPhase;
use geometry_core::{Aabb, DVec3};
use hhgrid::{Handle, HhGridConfig, HierarchicalHashGrid, ObjectOptions};
use mpi::collective::SystemOperation;
use mpi::topology::SimpleCommunicator;
use mpi::traits::{Communicator, CommunicatorCollectives, Destination, Root, Source};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, DefaultHasher};
use std::time::Instant;

/// Largest global id + 1 (ids share a word with a 5-bit periodic shift code in ghost records).
///
/// ```
/// assert_eq!(hhgrid_mpi::MAX_OBJECTS, 1 << 58);
/// ```
pub const MAX_OBJECTS: u64 = 1 << 58;

const TAG_MIGRATE: i32 = 0x4d49;
const TAG_GHOST: i32 = 0x4748;
/// Words of a ghost record: id and shift code, box (6), size.
const GHOST_WORDS: usize = 8;

/// Per-object user data that travels with an object when it migrates (velocities, masses...).
///
/// Implemented for `()` (nothing) and `[f64; N]`.
///
/// ```
/// use hhgrid_mpi::Payload;
/// let mut words = Vec::new();
/// [1.5, -2.0].write(&mut words);
/// assert_eq!(<[f64; 2]>::read(&words), [1.5, -2.0]);
/// assert_eq!(<[f64; 2] as Payload>::WORDS, 2);
/// ```
pub trait Payload: Copy {
    /// The number of 64-bit words [`write`](Payload::write) appends.
    const WORDS: usize;
    /// Appends the encoding.
    fn write(&self, out: &mut Vec<u64>);
    /// Decodes `WORDS` words.
    fn read(words: &[u64]) -> Self;
}

impl Payload for () {
    const WORDS: usize = 0;
    fn write(&self, _: &mut Vec<u64>) {}
    fn read(_: &[u64]) -> Self {}
}

impl<const N: usize> Payload for [f64; N] {
    const WORDS: usize = N;
    fn write(&self, out: &mut Vec<u64>) {
        out.extend(self.iter().map(|x| x.to_bits()));
    }
    fn read(words: &[u64]) -> Self {
        std::array::from_fn(|i| f64::from_bits(words[i]))
    }
}

/// The configuration shared by all ranks (every rank must pass the same).
///
/// ```
/// use geometry_core::DVec3;
/// use hhgrid_mpi::{DistConfig, Domain};
/// let domain = Domain::new(DVec3::ZERO, DVec3::splat(100.0), [true; 3]).unwrap();
/// let config = DistConfig::new(domain, 4.0);
/// assert_eq!(config.dims, [0, 0, 0]);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct DistConfig {
    /// The box.
    pub domain: Domain,
    /// Ranks per axis; zeros are chosen by [`dims_create`](crate::dims_create).
    pub dims: [usize; 3],
    /// The largest object size (longest box edge) that will ever be inserted: the ghost reach.
    pub max_object_size: f64,
    /// The configuration of each rank's local grid.
    pub grid: HhGridConfig,
}

impl DistConfig {
    /// Free dims, the default hhgrid configuration.
    ///
    /// ```
    /// use geometry_core::DVec3;
    /// use hhgrid_mpi::{DistConfig, Domain};
    /// let domain = Domain::new(DVec3::ZERO, DVec3::splat(8.0), [false; 3]).unwrap();
    /// let config = DistConfig { dims: [0, 0, 1], ..DistConfig::new(domain, 1.0) };
    /// assert_eq!(config.grid, hhgrid::HhGridConfig::default());
    /// ```
    pub fn new(domain: Domain, max_object_size: f64) -> Self {
        Self { domain, dims: [0; 3], max_object_size, grid: HhGridConfig::default() }
    }

    /// The configuration as words of a fixed length (broadcast from rank 0 and compared). The
    /// local grid's configuration enters as a 64-bit FNV-1a digest of its `Debug` text, which
    /// spells every field (floats in round-trip form).
    fn to_words(&self) -> Vec<u64> {
        let d = &self.domain;
        let mut w: Vec<u64> = d.min.to_array().iter().chain(&d.max.to_array()).map(|x| x.to_bits()).collect();
        w.extend(d.periodic.iter().map(|&p| u64::from(p)));
        w.extend(self.dims.iter().map(|&x| x as u64));
        w.push(self.max_object_size.to_bits());
        let grid = format!("{:?}", self.grid);
        w.push(
            grid.bytes()
                .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)),
        );
        w
    }
}

/// What a rank knows about an object in its local grid (indexed by the grid's handle index).
#[derive(Debug, Clone, Copy)]
struct Entry {
    id: u64,
    size: f64,
    owned: bool,
    /// The step at which a ghost was last received (stale ghosts are removed).
    seen: u64,
}

/// A hierarchical hash grid broad phase split over the ranks of an MPI communicator.
///
/// Each rank owns the objects whose box centre lies in its subdomain (a [`Decomposition`] of
/// the box) and keeps them, together with ghost copies of its neighbours' objects, in a local
/// [`HierarchicalHashGrid`]. [`step`](Self::step) migrates objects that left the subdomain,
/// exchanges ghosts, updates the local grid and finds the pairs; each overlapping pair of the
/// whole system is reported by exactly one rank (by the owner of the pair's object of smaller
/// `(size, id)`: [`pair_reporter_is_first`]).
///
/// The operations are collective: every rank calls them in the same order. Messages go to the
/// 26 neighbours only, plus one all-reduce per step to agree on errors.
///
/// ```
/// // Runs as one process under `cargo test`, or on any number with `mpirun -n P`.
/// use geometry_core::{Aabb, DVec3};
/// use hhgrid_mpi::{DistConfig, DistributedGrid, Domain};
/// use mpi::traits::{Communicator, CommunicatorCollectives};
/// let universe = mpi::initialize().unwrap();
/// let world = universe.world();
/// let domain = Domain::new(DVec3::ZERO, DVec3::splat(40.0), [true; 3]).unwrap();
/// // Rank 0 brings all objects (any rank may bring any; ids follow rank order): a 10³ lattice
/// // of boxes of edge 1.5 and spacing 4, each overlapping nothing.
/// let objects: Vec<(Aabb, ())> = if world.rank() == 0 {
///     (0..1000)
///         .map(|i| {
///             let c = DVec3::new(f64::from(i % 10), f64::from(i / 10 % 10), f64::from(i / 100)) * 4.0;
///             (Aabb::new(c, c + DVec3::splat(1.5)).unwrap(), ())
///         })
///         .collect()
/// } else {
///     Vec::new()
/// };
/// let mut grid = DistributedGrid::new(&world, DistConfig::new(domain, 4.0), objects).unwrap();
/// let mut pairs = Vec::new();
/// // Grow every box to edge 4 in x: each now touches its x-neighbour, across the periodic
/// // boundary too: 1000 pairs in all, each reported by one rank.
/// for (_, aabb, _) in grid.owned_mut() {
///     aabb.max.x += 2.5;
/// }
/// let stats = grid.step(&mut pairs).unwrap();
/// assert_eq!(stats.pairs, pairs.len());
/// let mut total = 0usize;
/// world.all_reduce_into(&pairs.len(), &mut total, mpi::collective::SystemOperation::sum());
/// assert_eq!(total, 1000);
/// ```
pub struct DistributedGrid<P: Payload = ()> {
    comm: SimpleCommunicator,
    rank: usize,
    decomp: Decomposition,
    neighbours: Vec<usize>,
    grid: HierarchicalHashGrid,
    ids: Vec<u64>,
    objects: Vec<(Aabb, P)>,
    handles: Vec<Handle>,
    entries: Vec<Entry>,
    /// (A fixed hasher: with a random seed, which ghost slots are freed first, and so the
    /// order of the pairs, changed from run to run.)
    ghosts: HashMap<u64, Handle, BuildHasherDefault<DefaultHasher>>,
    steps: u64,
    total: u64,
    scratch_pairs: Vec<(Handle, Handle)>,
}

impl<P: Payload> std::fmt::Debug for DistributedGrid<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DistributedGrid")
            .field("rank", &self.rank)
            .field("dims", &self.decomp.dims())
            .field("neighbours", &self.neighbours)
            .field("owned", &self.ids.len())
            .field("ghosts", &self.ghosts.len())
            .field("steps", &self.steps)
            .finish_non_exhaustive()
    }
}

/// Encodes the local error (if any), finds the lowest failing rank with one all-reduce, and
/// returns its error on every rank.
fn agree(comm: &SimpleCommunicator, local: Option<DistError>) -> Result<(), DistError> {
    let mine = if local.is_some() { comm.rank() as u64 } else { u64::MAX };
    let mut first = u64::MAX;
    comm.all_reduce_into(&mine, &mut first, SystemOperation::min());
    if first == u64::MAX {
        return Ok(());
    }
    let mut words = local.map_or([0; 6], |e| e.to_words());
    comm.process_at_rank(first as i32).broadcast_into(&mut words[..]);
    Err(DistError::from_words(words))
}

/// Sends `out[i]` to `neighbours[i]` and returns what each neighbour sent (same order).
fn exchange(comm: &SimpleCommunicator, neighbours: &[usize], out: &[Vec<u64>], tag: i32) -> Vec<Vec<u64>> {
    mpi::request::scope(|scope| {
        let requests: Vec<_> = neighbours
            .iter()
            .zip(out)
            .map(|(&r, buf)| comm.process_at_rank(r as i32).immediate_send_with_tag(scope, &buf[..], tag))
            .collect();
        let received = neighbours
            .iter()
            .map(|&r| comm.process_at_rank(r as i32).receive_vec_with_tag::<u64>(tag).0)
            .collect();
        for request in requests {
            request.wait();
        }
        received
    })
}

fn words_of(aabb: &Aabb, out: &mut Vec<u64>) {
    out.extend(aabb.min.to_array().iter().chain(&aabb.max.to_array()).map(|x| x.to_bits()));
}

fn aabb_of(w: &[u64]) -> Aabb {
    let v = |i: usize| f64::from_bits(w[i]);
    Aabb { min: DVec3::new(v(0), v(1), v(2)), max: DVec3::new(v(3), v(4), v(5)) }
}

impl<P: Payload> DistributedGrid<P> {
    /// Creates the distributed grid (collective). Each rank passes any objects it has (their
    /// union is the system); global ids are assigned in rank order (rank 0's objects first, in
    /// the order given), and every object is sent to its owner.
    ///
    /// # Errors
    /// The same error on every rank: the configuration's ([`Decomposition::new`]'s errors,
    /// [`DistError::InvalidConfig`] when ranks passed different configurations or the hhgrid
    /// configuration is invalid), or the first bad object's ([`DistError::InvalidObject`],
    /// [`DistError::ObjectTooLarge`], [`DistError::OutsideDomain`], [`DistError::TooManyObjects`]).
    ///
    /// ```
    /// use geometry_core::{Aabb, DVec3};
    /// use hhgrid_mpi::{DistConfig, DistributedGrid, Domain};
    /// let universe = mpi::initialize().unwrap();
    /// let domain = Domain::new(DVec3::ZERO, DVec3::splat(20.0), [true; 3]).unwrap();
    /// let boxes = vec![(Aabb::new(DVec3::splat(0.5), DVec3::splat(1.5)).unwrap(), ()); 2];
    /// let mut grid = DistributedGrid::new(&universe.world(), DistConfig::new(domain, 2.0), boxes).unwrap();
    /// assert!(grid.total_objects() >= 2); // each rank brought two
    /// ```
    pub fn new<C: Communicator>(
        comm: &C,
        config: DistConfig,
        objects: Vec<(Aabb, P)>,
    ) -> Result<Self, DistError> {
        let comm = comm.duplicate();
        let rank = comm.rank() as usize;
        let size = comm.size() as usize;

        // Same configuration everywhere? Compare with rank 0's.
        let mine = config.to_words();
        let mut root = mine.clone();
        comm.process_at_rank(0).broadcast_into(&mut root[..]);
        let checked = if root == mine {
            config
                .grid
                .validate()
                .map_err(|_| DistError::InvalidConfig("the hhgrid configuration is invalid"))
                .and_then(|()| Decomposition::new(config.domain, size, config.dims, config.max_object_size))
        } else {
            Err(DistError::InvalidConfig("every rank must pass the same configuration"))
        };
        let (decomp, local_error) = match checked {
            Ok(d) => (Some(d), None),
            Err(e) => (None, Some(e)),
        };
        agree(&comm, local_error)?;
        let decomp = decomp.expect("agreed: no rank failed");

        // Global ids: an exclusive prefix sum of the local counts.
        let count = objects.len() as u64;
        let mut offset = 0u64;
        comm.exclusive_scan_into(&count, &mut offset, SystemOperation::sum());
        if rank == 0 {
            offset = 0;
        }
        let mut total = 0u64;
        comm.all_reduce_into(&count, &mut total, SystemOperation::sum());
        if total > MAX_OBJECTS {
            return Err(DistError::TooManyObjects { rank: 0 });
        }

        // Route every object to its owner (all-to-all, once).
        let record = 1 + 6 + P::WORDS;
        let mut buckets: Vec<Vec<u64>> = vec![Vec::new(); size];
        let mut error = None;
        for (i, (aabb, payload)) in objects.into_iter().enumerate() {
            let id = offset + i as u64;
            match check(&decomp, id, aabb) {
                Ok((aabb, owner)) => {
                    let b = &mut buckets[owner];
                    b.push(id);
                    words_of(&aabb, b);
                    payload.write(b);
                }
                Err(e) => {
                    error.get_or_insert(e);
                }
            }
        }
        agree(&comm, error)?;
        let counts: Vec<i32> = buckets.iter().map(|b| b.len() as i32).collect();
        let mut incoming = vec![0i32; size];
        comm.all_to_all_into(&counts[..], &mut incoming[..]);
        let displs = |c: &[i32]| {
            c.iter()
                .scan(0i32, |acc, &x| {
                    let d = *acc;
                    *acc += x;
                    Some(d)
                })
                .collect::<Vec<i32>>()
        };
        let send: Vec<u64> = buckets.concat();
        let mut recv = vec![0u64; incoming.iter().map(|&c| c as usize).sum()];
        {
            let send_partition = mpi::datatype::Partition::new(&send[..], &counts[..], displs(&counts));
            let (recv_displs, recv_counts) = (displs(&incoming), incoming.clone());
            let mut recv_partition =
                mpi::datatype::PartitionMut::new(&mut recv[..], recv_counts, recv_displs);
            comm.all_to_all_varcount_into(&send_partition, &mut recv_partition);
        }

        let grid = HierarchicalHashGrid::new(config.grid).expect("validated above");
        let mut this = Self {
            neighbours: decomp.neighbours(rank),
            comm,
            rank,
            decomp,
            grid,
            ids: Vec::new(),
            objects: Vec::new(),
            handles: Vec::new(),
            entries: Vec::new(),
            ghosts: HashMap::default(),
            steps: 0,
            total,
            scratch_pairs: Vec::new(),
        };
        let mut error = None;
        for r in recv.chunks_exact(record) {
            if let Err(e) = this.insert_owned(r[0], aabb_of(&r[1..7]), P::read(&r[7..])) {
                error.get_or_insert(e);
            }
        }
        agree(&this.comm, error)?;
        Ok(this)
    }

    fn insert_owned(&mut self, id: u64, aabb: Aabb, payload: P) -> Result<(), DistError> {
        let handle = self.grid.insert(aabb).map_err(|_| DistError::TooManyObjects { rank: self.rank })?;
        self.set_entry(handle, Entry { id, size: aabb.longest_edge(), owned: true, seen: self.steps });
        self.ids.push(id);
        self.objects.push((aabb, payload));
        self.handles.push(handle);
        Ok(())
    }

    fn set_entry(&mut self, handle: Handle, entry: Entry) {
        let i = handle.index() as usize;
        if i >= self.entries.len() {
            self.entries.resize(i + 1, entry);
        }
        self.entries[i] = entry;
    }

    /// This rank's index in the communicator.
    ///
    /// ```
    /// use geometry_core::{Aabb, DVec3};
    /// use hhgrid_mpi::{DistConfig, DistributedGrid, Domain};
    /// let universe = mpi::initialize().unwrap();
    /// let domain = Domain::new(DVec3::ZERO, DVec3::splat(20.0), [true; 3]).unwrap();
    /// let boxes = vec![(Aabb::new(DVec3::splat(0.5), DVec3::splat(1.5)).unwrap(), ()); 2];
    /// let mut grid = DistributedGrid::new(&universe.world(), DistConfig::new(domain, 2.0), boxes).unwrap();
    /// assert!(grid.rank() < grid.decomposition().ranks());
    /// ```
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// The decomposition.
    ///
    /// ```
    /// use geometry_core::{Aabb, DVec3};
    /// use hhgrid_mpi::{DistConfig, DistributedGrid, Domain};
    /// let universe = mpi::initialize().unwrap();
    /// let domain = Domain::new(DVec3::ZERO, DVec3::splat(20.0), [true; 3]).unwrap();
    /// let boxes = vec![(Aabb::new(DVec3::splat(0.5), DVec3::splat(1.5)).unwrap(), ()); 2];
    /// let mut grid = DistributedGrid::new(&universe.world(), DistConfig::new(domain, 2.0), boxes).unwrap();
    /// assert_eq!(grid.decomposition().max_object_size(), 2.0);
    /// ```
    pub fn decomposition(&self) -> &Decomposition {
        &self.decomp
    }

    /// The ranks this rank exchanges messages with.
    ///
    /// ```
    /// use geometry_core::{Aabb, DVec3};
    /// use hhgrid_mpi::{DistConfig, DistributedGrid, Domain};
    /// let universe = mpi::initialize().unwrap();
    /// let domain = Domain::new(DVec3::ZERO, DVec3::splat(20.0), [true; 3]).unwrap();
    /// let boxes = vec![(Aabb::new(DVec3::splat(0.5), DVec3::splat(1.5)).unwrap(), ()); 2];
    /// let mut grid = DistributedGrid::new(&universe.world(), DistConfig::new(domain, 2.0), boxes).unwrap();
    /// assert!(!grid.neighbours().contains(&grid.rank()));
    /// ```
    pub fn neighbours(&self) -> &[usize] {
        &self.neighbours
    }

    /// The number of objects in the whole system.
    ///
    /// ```
    /// use geometry_core::{Aabb, DVec3};
    /// use hhgrid_mpi::{DistConfig, DistributedGrid, Domain};
    /// let universe = mpi::initialize().unwrap();
    /// let domain = Domain::new(DVec3::ZERO, DVec3::splat(20.0), [true; 3]).unwrap();
    /// let boxes = vec![(Aabb::new(DVec3::splat(0.5), DVec3::splat(1.5)).unwrap(), ()); 2];
    /// let mut grid = DistributedGrid::new(&universe.world(), DistConfig::new(domain, 2.0), boxes).unwrap();
    /// let mut pairs = Vec::new();
    /// grid.step(&mut pairs).unwrap();
    /// assert_eq!(grid.total_objects() % 2, 0);
    /// ```
    pub fn total_objects(&self) -> u64 {
        self.total
    }

    /// The number of objects this rank owns.
    ///
    /// ```
    /// use geometry_core::{Aabb, DVec3};
    /// use hhgrid_mpi::{DistConfig, DistributedGrid, Domain};
    /// let universe = mpi::initialize().unwrap();
    /// let domain = Domain::new(DVec3::ZERO, DVec3::splat(20.0), [true; 3]).unwrap();
    /// let boxes = vec![(Aabb::new(DVec3::splat(0.5), DVec3::splat(1.5)).unwrap(), ()); 2];
    /// let mut grid = DistributedGrid::new(&universe.world(), DistConfig::new(domain, 2.0), boxes).unwrap();
    /// // Both objects are centred at (1, 1, 1): rank 0 owns every copy.
    /// assert_eq!(grid.owned_len(), if grid.rank() == 0 { grid.total_objects() as usize } else { 0 });
    /// ```
    pub fn owned_len(&self) -> usize {
        self.ids.len()
    }

    /// The number of ghost copies held (after the last step).
    ///
    /// ```
    /// use geometry_core::{Aabb, DVec3};
    /// use hhgrid_mpi::{DistConfig, DistributedGrid, Domain};
    /// let universe = mpi::initialize().unwrap();
    /// let domain = Domain::new(DVec3::ZERO, DVec3::splat(20.0), [true; 3]).unwrap();
    /// let boxes = vec![(Aabb::new(DVec3::splat(0.5), DVec3::splat(1.5)).unwrap(), ()); 2];
    /// let mut grid = DistributedGrid::new(&universe.world(), DistConfig::new(domain, 2.0), boxes).unwrap();
    /// let mut pairs = Vec::new();
    /// grid.step(&mut pairs).unwrap();
    /// // Near the corner of a periodic box: images across the 7 other corners (or ghosts on
    /// // other ranks).
    /// assert!(grid.ghost_len() >= if grid.rank() == 0 && grid.decomposition().ranks() == 1 { 14 } else { 0 });
    /// ```
    pub fn ghost_len(&self) -> usize {
        self.ghosts.len()
    }

    /// The local grid (owned objects and ghosts).
    ///
    /// ```
    /// use geometry_core::{Aabb, DVec3};
    /// use hhgrid_mpi::{DistConfig, DistributedGrid, Domain};
    /// let universe = mpi::initialize().unwrap();
    /// let domain = Domain::new(DVec3::ZERO, DVec3::splat(20.0), [true; 3]).unwrap();
    /// let boxes = vec![(Aabb::new(DVec3::splat(0.5), DVec3::splat(1.5)).unwrap(), ()); 2];
    /// let mut grid = DistributedGrid::new(&universe.world(), DistConfig::new(domain, 2.0), boxes).unwrap();
    /// assert_eq!(contact_core::BroadPhase::len(grid.local_grid()), grid.owned_len());
    /// ```
    pub fn local_grid(&self) -> &HierarchicalHashGrid {
        &self.grid
    }

    /// The owned objects: global id, box, payload.
    ///
    /// ```
    /// use geometry_core::{Aabb, DVec3};
    /// use hhgrid_mpi::{DistConfig, DistributedGrid, Domain};
    /// let universe = mpi::initialize().unwrap();
    /// let domain = Domain::new(DVec3::ZERO, DVec3::splat(20.0), [true; 3]).unwrap();
    /// let boxes = vec![(Aabb::new(DVec3::splat(0.5), DVec3::splat(1.5)).unwrap(), ()); 2];
    /// let mut grid = DistributedGrid::new(&universe.world(), DistConfig::new(domain, 2.0), boxes).unwrap();
    /// assert!(grid.owned().all(|(id, b, ())| id < grid.total_objects() && b.longest_edge() == 1.0));
    /// ```
    pub fn owned(&self) -> impl Iterator<Item = (u64, &Aabb, &P)> {
        self.ids.iter().zip(&self.objects).map(|(&id, (aabb, payload))| (id, aabb, payload))
    }

    /// The owned objects, to move them before the next [`step`](Self::step). Boxes may go
    /// anywhere within the owner's neighbourhood; on periodic axes the step wraps them back
    /// into the box.
    ///
    /// ```
    /// use geometry_core::{Aabb, DVec3};
    /// use hhgrid_mpi::{DistConfig, DistributedGrid, Domain};
    /// let universe = mpi::initialize().unwrap();
    /// let domain = Domain::new(DVec3::ZERO, DVec3::splat(20.0), [true; 3]).unwrap();
    /// let boxes = vec![(Aabb::new(DVec3::splat(0.5), DVec3::splat(1.5)).unwrap(), ()); 2];
    /// let mut grid = DistributedGrid::new(&universe.world(), DistConfig::new(domain, 2.0), boxes).unwrap();
    /// for (_, aabb, ()) in grid.owned_mut() {
    ///     *aabb = Aabb::new(aabb.min - 1.2, aabb.max - 1.2).unwrap(); // centre leaves the box
    /// }
    /// let mut pairs = Vec::new();
    /// grid.step(&mut pairs).unwrap();
    /// assert!(grid.owned().all(|(_, b, ())| b.center().cmpge(DVec3::ZERO).all())); // wrapped
    /// ```
    pub fn owned_mut(&mut self) -> impl Iterator<Item = (u64, &mut Aabb, &mut P)> {
        self.ids.iter().zip(&mut self.objects).map(|(&id, (aabb, payload))| (id, aabb, payload))
    }

    /// One step (collective): migrate the objects whose centre left the subdomain, exchange
    /// ghosts, update the local grid, and find the pairs this rank reports, as global ids
    /// `(smaller, larger)`, into `pairs` (cleared first). Over all ranks, every overlapping pair
    /// (closed boxes sharing a point; across periodic boundaries by the nearest image) appears
    /// exactly once.
    ///
    /// # Errors
    /// The same error on every rank for the first bad object: [`DistError::InvalidObject`],
    /// [`DistError::ObjectTooLarge`], [`DistError::OutsideDomain`], [`DistError::MovedTooFar`]
    /// (checked before anything changes, so the structure is as before apart from wrapped
    /// boxes), or [`DistError::TooManyObjects`].
    ///
    /// ```
    /// use geometry_core::{Aabb, DVec3};
    /// use hhgrid_mpi::{DistConfig, DistributedGrid, Domain};
    /// let universe = mpi::initialize().unwrap();
    /// let domain = Domain::new(DVec3::ZERO, DVec3::splat(20.0), [true; 3]).unwrap();
    /// let boxes = vec![(Aabb::new(DVec3::splat(0.5), DVec3::splat(1.5)).unwrap(), ()); 2];
    /// let mut grid = DistributedGrid::new(&universe.world(), DistConfig::new(domain, 2.0), boxes).unwrap();
    /// let mut pairs = Vec::new();
    /// let stats = grid.step(&mut pairs).unwrap();
    /// if grid.decomposition().ranks() == 1 {
    ///     assert_eq!(pairs, vec![(0, 1)]);
    /// }
    /// // An object larger than the configured largest size: the same error on every rank.
    /// for (_, aabb, ()) in grid.owned_mut() {
    ///     aabb.max.x += 5.0;
    /// }
    /// assert!(matches!(grid.step(&mut pairs), Err(hhgrid_mpi::DistError::ObjectTooLarge { .. })));
    /// ```
    pub fn step(&mut self, pairs: &mut Vec<(u64, u64)>) -> Result<StepStats, DistError> {
        pairs.clear();
        self.steps += 1;
        let mut stats = StepStats { owned_before: self.ids.len(), ..StepStats::default() };

        // Migration: wrap, check, agree, send leavers, insert arrivals.
        let started = Instant::now();
        let mut destination = Vec::with_capacity(self.ids.len());
        let mut error = None;
        for (id, (aabb, _)) in self.ids.iter().zip(&mut self.objects) {
            match check(&self.decomp, *id, *aabb) {
                Ok((wrapped, owner)) => {
                    *aabb = wrapped;
                    if owner != self.rank && !self.decomp.is_neighbour_or_self(self.rank, owner) {
                        error.get_or_insert(DistError::MovedTooFar { id: *id, from: self.rank, to: owner });
                    }
                    destination.push(owner);
                }
                Err(e) => {
                    error.get_or_insert(e);
                    destination.push(self.rank);
                }
            }
        }
        agree(&self.comm, error)?;
        let mut out = vec![Vec::new(); self.neighbours.len()];
        for i in (0..self.ids.len()).rev() {
            let owner = destination[i];
            if owner == self.rank {
                continue;
            }
            let slot = self.neighbours.binary_search(&owner).expect("checked: a neighbour");
            let (aabb, payload) = self.objects[i];
            let b = &mut out[slot];
            b.push(self.ids[i]);
            words_of(&aabb, b);
            payload.write(b);
            self.grid.remove(self.handles[i]).expect("owned handles are live");
            self.ids.swap_remove(i);
            self.objects.swap_remove(i);
            self.handles.swap_remove(i);
            stats.migrants_sent += 1;
        }
        stats.migration_bytes_sent = out.iter().map(|b| 8 * b.len()).sum();
        let received = exchange(&self.comm, &self.neighbours, &out, TAG_MIGRATE);
        let mut error = None;
        for r in received.iter().flat_map(|b| b.chunks_exact(7 + P::WORDS)) {
            stats.migrants_received += 1;
            if let Err(e) = self.insert_owned(r[0], aabb_of(&r[1..7]), P::read(&r[7..])) {
                error.get_or_insert(e);
            }
        }
        stats.messages_sent += self.neighbours.len();
        stats.migration = started.elapsed().as_secs_f64();

        // Ghost exchange: copies of every object within reach of a neighbour's subdomain.
        let started = Instant::now();
        let period = self.decomp.domain().extent();
        let mut out = vec![Vec::new(); self.neighbours.len()];
        let mut own_images = Vec::new();
        let mut targets = Vec::new();
        for (id, (aabb, _)) in self.ids.iter().zip(&self.objects) {
            let size = aabb.longest_edge();
            self.decomp.ghost_targets(self.rank, aabb.center(), size, &mut targets);
            for &(target, code) in &targets {
                let b = if target == self.rank {
                    &mut own_images
                } else {
                    &mut out[self.neighbours.binary_search(&target).expect("a neighbour")]
                };
                let shift = shift_of(code, period);
                b.push(id | (u64::from(code) << 58));
                words_of(&Aabb { min: aabb.min + shift, max: aabb.max + shift }, b);
                b.push(size.to_bits());
            }
        }
        stats.ghosts_sent = out.iter().map(|b| b.len() / GHOST_WORDS).sum();
        stats.ghost_bytes_sent = out.iter().map(|b| 8 * b.len()).sum();
        let received = exchange(&self.comm, &self.neighbours, &out, TAG_GHOST);
        stats.messages_sent += self.neighbours.len();
        stats.ghost_exchange = started.elapsed().as_secs_f64();

        // Update: owned boxes, then ghosts (update the known, insert the new, drop the stale).
        let started = Instant::now();
        // One batch for the owned boxes: the grid overlaps the memory accesses of its updates.
        let owned: Vec<(Handle, Aabb)> =
            self.handles.iter().copied().zip(self.objects.iter().map(|(aabb, _)| *aabb)).collect();
        self.grid.update_many(&owned).expect("owned handles are live, boxes checked");
        for ((handle, id), (aabb, _)) in self.handles.iter().zip(&self.ids).zip(&self.objects) {
            self.entries[handle.index() as usize] =
                Entry { id: *id, size: aabb.longest_edge(), owned: true, seen: self.steps };
        }
        let ghost_options = ObjectOptions { is_static: true, ..ObjectOptions::default() };
        for r in received.iter().chain([&own_images]).flat_map(|b| b.chunks_exact(GHOST_WORDS)) {
            let key = r[0];
            let (id, aabb, size) = (key & (MAX_OBJECTS - 1), aabb_of(&r[1..7]), f64::from_bits(r[7]));
            let entry = Entry { id, size, owned: false, seen: self.steps };
            if let Some(&handle) = self.ghosts.get(&key) {
                self.grid.update(handle, aabb).expect("ghost handles are live");
                self.entries[handle.index() as usize] = entry;
            } else {
                match self.grid.insert_with(aabb, ghost_options) {
                    Ok(handle) => {
                        self.ghosts.insert(key, handle);
                        self.set_entry(handle, entry);
                    }
                    Err(_) => {
                        error.get_or_insert(DistError::TooManyObjects { rank: self.rank });
                    }
                }
            }
        }
        let (grid, entries, steps) = (&mut self.grid, &self.entries, self.steps);
        self.ghosts.retain(|_, handle| {
            let keep = entries[handle.index() as usize].seen == steps;
            if !keep {
                grid.remove(*handle).expect("ghost handles are live");
            }
            keep
        });
        stats.ghosts = self.ghosts.len();
        stats.update = started.elapsed().as_secs_f64();

        // Detection: local pairs; report those whose first object is owned here.
        let started = Instant::now();
        if self.grid.config().parallel {
            self.grid.find_pairs_parallel(&mut self.scratch_pairs);
        } else {
            self.grid.find_pairs(&mut self.scratch_pairs);
        }
        stats.local_pairs = self.scratch_pairs.len();
        for &(a, b) in &self.scratch_pairs {
            let (ea, eb) = (self.entries[a.index() as usize], self.entries[b.index() as usize]);
            if ea.id == eb.id {
                continue; // an object and its own periodic image
            }
            let first = if pair_reporter_is_first((ea.size, ea.id), (eb.size, eb.id)) { ea } else { eb };
            if first.owned {
                pairs.push((ea.id.min(eb.id), ea.id.max(eb.id)));
            }
        }
        stats.pairs = pairs.len();
        stats.owned = self.ids.len();
        stats.detection = started.elapsed().as_secs_f64();
        agree(&self.comm, error)?;
        Ok(stats)
    }
}

/// Validates an object and wraps it into the box: the wrapped box and its owner.
fn check(decomp: &Decomposition, id: u64, aabb: Aabb) -> Result<(Aabb, usize), DistError> {
    let aabb = aabb.validate().map_err(|_| DistError::InvalidObject { id })?;
    let size = aabb.longest_edge();
    if size > decomp.accepted_size() {
        return Err(DistError::ObjectTooLarge { id, size, limit: decomp.max_object_size() });
    }
    let shift = decomp.wrap_shift(aabb.center());
    let aabb =
        if shift == DVec3::ZERO { aabb } else { Aabb { min: aabb.min + shift, max: aabb.max + shift } };
    let domain = decomp.domain();
    for axis in 0..3 {
        if !domain.periodic[axis] && (aabb.min[axis] < domain.min[axis] || aabb.max[axis] > domain.max[axis])
        {
            return Err(DistError::OutsideDomain { id, axis, low: aabb.min[axis], high: aabb.max[axis] });
        }
    }
    let owner = decomp.owner(aabb.center()).ok_or(DistError::InvalidObject { id })?;
    Ok((aabb, owner))
}

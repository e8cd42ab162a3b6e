//! Handles and per-object options.

/// Identifies an object in a [`HierarchicalHashGrid`](crate::HierarchicalHashGrid): a slot index
/// and a generation, so that the handle of a removed object never aliases a later one (a slot
/// is retired after its 2³²-th object rather than wrap its generation around).
///
/// Handles order by slot, then generation.
///
/// ```
/// use contact_core::BroadPhase;
/// use geometry_core::{Aabb, DVec3};
/// use hhgrid::{HhGridError, HierarchicalHashGrid};
/// let mut grid = HierarchicalHashGrid::default();
/// let unit = Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap();
/// let (a, b) = (grid.insert(unit).unwrap(), grid.insert(unit).unwrap());
/// assert!(a < b && a.index() < b.index());
/// grid.remove(a).unwrap();
/// let c = grid.insert(unit).unwrap();
/// assert_ne!(a, c); // even if `c` reuses the slot of `a`
/// assert_eq!(grid.aabb(a), None);
/// assert_eq!(grid.remove(a), Err(HhGridError::UnknownHandle));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Handle {
    pub(crate) index: u32,
    pub(crate) generation: u32,
}

impl Handle {
    /// The slot index (dense: suitable for indexing the caller's arrays while the object lives).
    ///
    /// ```
    /// use contact_core::BroadPhase;
    /// use geometry_core::{Aabb, DVec3};
    /// use hhgrid::HierarchicalHashGrid;
    /// let mut grid = HierarchicalHashGrid::default();
    /// let h = grid.insert(Aabb::new(DVec3::ZERO, DVec3::ONE).unwrap()).unwrap();
    /// assert_eq!(h.index(), 0);
    /// ```
    pub fn index(self) -> u32 {
        self.index
    }
}

/// Collision groups: object `a` may pair with `b` only if `a.memberships & b.filter != 0` and
/// `b.memberships & a.filter != 0` (the convention of rapier and Bullet).
///
/// ```
/// use hhgrid::CollisionGroups;
/// let debris = CollisionGroups { memberships: 0b01, filter: 0b10 };
/// let terrain = CollisionGroups { memberships: 0b10, filter: 0b01 };
/// assert!(debris.interacts_with(terrain));
/// assert!(!debris.interacts_with(debris));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CollisionGroups {
    /// The groups this object belongs to.
    pub memberships: u32,
    /// The groups this object may collide with.
    pub filter: u32,
}

impl CollisionGroups {
    /// Member of every group, colliding with every group.
    ///
    /// ```
    /// use hhgrid::CollisionGroups;
    /// assert_eq!(CollisionGroups::default(), CollisionGroups::ALL);
    /// let debris = CollisionGroups { memberships: 0b01, filter: 0b10 };
    /// assert!(CollisionGroups::ALL.interacts_with(debris));
    /// // An object that accepts no group pairs with nothing, not even with ALL.
    /// let ghost = CollisionGroups { memberships: 0b01, filter: 0 };
    /// assert!(!CollisionGroups::ALL.interacts_with(ghost));
    /// ```
    pub const ALL: CollisionGroups = CollisionGroups { memberships: u32::MAX, filter: u32::MAX };

    /// Whether the two may form a pair.
    ///
    /// ```
    /// use hhgrid::CollisionGroups;
    /// let a = CollisionGroups { memberships: 0b001, filter: 0b110 };
    /// let b = CollisionGroups { memberships: 0b010, filter: 0b001 };
    /// let c = CollisionGroups { memberships: 0b100, filter: 0b010 };
    /// assert!(a.interacts_with(b) && b.interacts_with(a));
    /// // `c` is in `a`'s filter, but `a` is not in `c`'s: both directions must agree.
    /// assert!(!a.interacts_with(c) && !c.interacts_with(a));
    /// ```
    #[inline]
    pub fn interacts_with(self, other: CollisionGroups) -> bool {
        self.memberships & other.filter != 0 && other.memberships & self.filter != 0
    }
}

impl Default for CollisionGroups {
    fn default() -> Self {
        Self::ALL
    }
}

/// Options for [`HierarchicalHashGrid::insert_with`](crate::HierarchicalHashGrid::insert_with).
///
/// ```
/// use hhgrid::{CollisionGroups, ObjectOptions};
/// let wall = ObjectOptions { is_static: true, ..ObjectOptions::default() };
/// assert_eq!(wall.groups, CollisionGroups::ALL);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ObjectOptions {
    /// Static objects never pair with each other (walls, terrain); a structure holding only
    /// static objects reports no pairs without traversing anything.
    pub is_static: bool,
    /// Collision groups, checked inside detection before the box test.
    pub groups: CollisionGroups,
}

impl ObjectOptions {
    /// Whether these options can keep an overlapping pair from being reported (static, or not
    /// in every group).
    pub(crate) fn is_restricting(&self) -> bool {
        self.is_static || self.groups != CollisionGroups::ALL
    }
}

//! Handles and per-object options.

/// Identifies an object in a [`HierarchicalHashGrid`](crate::HierarchicalHashGrid): a slot index
/// and a generation, so that the handle of a removed object never aliases a later one (a slot
/// is retired after its 2³²-th object rather than wrap its generation around).
///
/// Handles order by slot, then generation.
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
    pub const ALL: CollisionGroups = CollisionGroups { memberships: u32::MAX, filter: u32::MAX };

    /// Whether the two may form a pair.
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

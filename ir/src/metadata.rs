//! Metadata attached to modules, constants, undefined values, special registers,
//! functions, arguments, blocks and instructions.
//!
//! A metadata list is ordered (upstream keeps a forward list; later-added items are
//! usually pushed to the front, and the printers print list order).

/// One of the four curve bases (bit `k` of [`CurveBasisSet`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum CurveBasis {
    /// `piecewise_linear` (bit 0).
    PiecewiseLinear,
    /// `cubic_bspline` (bit 1).
    CubicBspline,
    /// `catmull_rom` (bit 2).
    CatmullRom,
    /// `bezier` (bit 3).
    Bezier,
}

impl CurveBasis {
    /// All bases in bit order.
    pub const ALL: [CurveBasis; 4] = [
        Self::PiecewiseLinear,
        Self::CubicBspline,
        Self::CatmullRom,
        Self::Bezier,
    ];
    /// Text spelling.
    pub const fn name(self) -> &'static str {
        match self {
            Self::PiecewiseLinear => "piecewise_linear",
            Self::CubicBspline => "cubic_bspline",
            Self::CatmullRom => "catmull_rom",
            Self::Bezier => "bezier",
        }
    }
    /// Looks a basis up by spelling.
    pub fn from_name(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|b| b.name() == s)
    }
}

/// A set of curve bases as upstream's bitmask (bit k = basis k).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct CurveBasisSet(pub u8);

impl CurveBasisSet {
    /// Whether `b` is in the set.
    pub fn contains(self, b: CurveBasis) -> bool {
        self.0 & (1 << b as u8) != 0
    }
    /// Adds `b`.
    pub fn insert(&mut self, b: CurveBasis) {
        self.0 |= 1 << b as u8;
    }
    /// Members in bit order.
    pub fn iter(self) -> impl Iterator<Item = CurveBasis> {
        CurveBasis::ALL
            .into_iter()
            .filter(move |b| self.contains(*b))
    }
}

/// Why reg2mem created a spill alloca.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum SpillKind {
    /// Spill of a phi (`reg2mem_spill = phi`).
    Phi,
    /// Spill of a value used across blocks (`reg2mem_spill = cross_block`).
    CrossBlock,
}

impl SpillKind {
    /// Text spelling.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Phi => "phi",
            Self::CrossBlock => "cross_block",
        }
    }
}

/// Required semantics of an external strided matrix-multiply intrinsic.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct StridedMma {
    /// M, N, K extents.
    pub extents: [u32; 3],
    /// Strides of the A, B and C operands (in elements).
    pub strides: [u64; 3],
    /// Vector width.
    pub vector_width: u32,
    /// Whether reassociation of the accumulation is allowed.
    pub reassociation: bool,
    /// Vectorization mode (upstream enum value).
    pub vectorization_mode: u32,
}

/// One metadata item.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Metadata {
    /// Debug name.
    Name(String),
    /// Source location.
    Location {
        /// File path.
        file: String,
        /// Line (default -1).
        line: i32,
    },
    /// Free text.
    Comment(String),
    /// Curve bases of a ray query.
    CurveBasis(CurveBasisSet),
    /// The callable's signature must not change.
    SignatureConstraint,
    /// Synthetic reg2mem spill marker.
    Reg2MemSpill(SpillKind),
    /// Requires a backend-visible call boundary.
    NoInline,
    /// Required semantics of an external copy function.
    ContiguousCopy {
        /// Elements copied.
        element_count: u64,
        /// Vector width.
        vector_width: u32,
    },
    /// Required semantics of an external MMA intrinsic.
    StridedMma(Box<StridedMma>),
}

impl Metadata {
    /// The kind tag of this item.
    pub fn kind(&self) -> MetadataKind {
        match self {
            Metadata::Name(_) => MetadataKind::Name,
            Metadata::Location { .. } => MetadataKind::Location,
            Metadata::Comment(_) => MetadataKind::Comment,
            Metadata::CurveBasis(_) => MetadataKind::CurveBasis,
            Metadata::SignatureConstraint => MetadataKind::SignatureConstraint,
            Metadata::Reg2MemSpill(_) => MetadataKind::Reg2MemSpill,
            Metadata::NoInline => MetadataKind::NoInline,
            Metadata::ContiguousCopy { .. } => MetadataKind::ContiguousCopy,
            Metadata::StridedMma(_) => MetadataKind::StridedMma,
        }
    }
}

/// Metadata kinds in upstream tag order.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum MetadataKind {
    Name,
    Location,
    Comment,
    CurveBasis,
    SignatureConstraint,
    Reg2MemSpill,
    NoInline,
    ContiguousCopy,
    StridedMma,
}

impl MetadataKind {
    /// Every kind.
    pub const ALL: [MetadataKind; 9] = [
        Self::Name,
        Self::Location,
        Self::Comment,
        Self::CurveBasis,
        Self::SignatureConstraint,
        Self::Reg2MemSpill,
        Self::NoInline,
        Self::ContiguousCopy,
        Self::StridedMma,
    ];
    /// Text keyword.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Name => "name",
            Self::Location => "location",
            Self::Comment => "comment",
            Self::CurveBasis => "curve_basis",
            Self::SignatureConstraint => "signature_constraint",
            Self::Reg2MemSpill => "reg2mem_spill",
            Self::NoInline => "no_inline",
            Self::ContiguousCopy => "contiguous_copy",
            Self::StridedMma => "strided_mma",
        }
    }
}

/// An ordered list of metadata items.
pub type MetadataList = Vec<Metadata>;

/// Returns the first `Name` in a list.
pub fn find_name(list: &[Metadata]) -> Option<&str> {
    list.iter().find_map(|m| match m {
        Metadata::Name(n) => Some(n.as_str()),
        _ => None,
    })
}

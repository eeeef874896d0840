//! Wire records shared by the text and binary codecs, and the structural rules both
//! readers and the writer enforce on them: op words per tag, the frozen binary tag
//! table, operand/auxiliary/payload shapes, auxiliary value ranges and result-type shapes.
//!
//! Strings are byte strings (`Cow<[u8]>`): the text reader borrows them from the input
//! unless they contain escapes, the binary reader borrows them from the string table, and
//! UTF-8 is checked only when a string is turned into module data.

use crate::inst::InstTag;
use crate::metadata::SpillKind;
use crate::op::*;
use crate::types::{ScalarKind, Type, TypeData, TypeStore};
use smallvec::SmallVec;
use std::borrow::Cow;

/// A byte string of a record.
pub(crate) type Bytes<'a> = Cow<'a, [u8]>;

/// One metadata record.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum MdRec<'a> {
    Name(Bytes<'a>),
    Location(Bytes<'a>, i64),
    Comment(Bytes<'a>),
    CurveBasis(u64),
    SignatureConstraint,
    Reg2MemSpill(SpillKind),
}

/// Constant payload: hex text (text format) or raw canonical bytes (binary format).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum ConstPayload<'a> {
    Hex(Bytes<'a>),
    Raw(Bytes<'a>),
}

/// What a global is.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum GlobalKind<'a> {
    Constant {
        ty: Bytes<'a>,
        data: ConstPayload<'a>,
    },
    Undefined {
        ty: Bytes<'a>,
    },
    Special {
        name: Bytes<'a>,
    },
}

/// A global record.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct GlobalRec<'a> {
    pub pos: usize,
    pub id: u64,
    pub kind: GlobalKind<'a>,
    pub md: Vec<MdRec<'a>>,
}

/// An argument record.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ArgRec<'a> {
    pub pos: usize,
    pub id: u64,
    pub kind: Bytes<'a>,
    pub ty: Bytes<'a>,
    pub md: Vec<MdRec<'a>>,
}

/// A block record.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct BlockRec<'a> {
    pub pos: usize,
    pub id: u64,
    pub md: Vec<MdRec<'a>>,
}

/// An instruction record.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct InstRec<'a> {
    pub pos: usize,
    pub end: usize,
    pub id: u64,
    pub block: u64,
    pub tag: InstTag,
    pub ty: Bytes<'a>,
    pub op: WireOp,
    pub operands: SmallVec<[i64; 4]>,
    pub aux: SmallVec<[i64; 2]>,
    pub payloads: SmallVec<[Bytes<'a>; 1]>,
    pub md: Vec<MdRec<'a>>,
}

/// A function record.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FuncRec<'a> {
    pub pos: usize,
    pub id: u64,
    pub kind: Bytes<'a>,
    pub ret: Bytes<'a>,
    pub block_size: [u32; 3],
    pub md: Vec<MdRec<'a>>,
    pub args: Vec<ArgRec<'a>>,
    pub blocks: Vec<BlockRec<'a>>,
    pub body: i64,
    pub body_pos: usize,
    pub insts: Vec<InstRec<'a>>,
}

/// The whole module.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct ModuleRec<'a> {
    pub md_pos: usize,
    pub md: Vec<MdRec<'a>>,
    pub globals: Vec<GlobalRec<'a>>,
    pub functions: Vec<FuncRec<'a>>,
}

/// An instruction's op word, already resolved against its tag.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum WireOp {
    /// `-1` (tags without an op).
    None,
    /// `null_callback` (debug_break).
    NullCallback,
    Alloca(AllocaOp),
    Arithmetic(ArithmeticOp),
    Cast(CastOp),
    Atomic(AtomicOp),
    ThreadGroup(ThreadGroupOp),
    ResourceQuery(ResourceQueryOp),
    ResourceRead(ResourceReadOp),
    ResourceWrite(ResourceWriteOp),
    RayQueryObjectRead(RayQueryObjectReadOp),
    RayQueryObjectWrite(RayQueryObjectWriteOp),
    AutodiffIntrinsic(AutodiffIntrinsicOp),
}

impl WireOp {
    /// The op word written to the wire.
    pub fn name(self) -> &'static str {
        match self {
            WireOp::None => "-1",
            WireOp::NullCallback => "null_callback",
            WireOp::Alloca(o) => o.name(),
            WireOp::Arithmetic(o) => o.name(),
            WireOp::Cast(o) => o.name(),
            WireOp::Atomic(o) => o.name(),
            WireOp::ThreadGroup(o) => o.name(),
            WireOp::ResourceQuery(o) => o.name(),
            WireOp::ResourceRead(o) => o.name(),
            WireOp::ResourceWrite(o) => o.name(),
            WireOp::RayQueryObjectRead(o) => o.name(),
            WireOp::RayQueryObjectWrite(o) => o.name(),
            WireOp::AutodiffIntrinsic(o) => o.name(),
        }
    }
}

/// A whole token as a signed 64-bit decimal (`-` allowed), as upstream's op reader does.
fn integer_token(t: &[u8]) -> Option<i64> {
    let (neg, digits) = match t.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, t),
    };
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut mag: u64 = 0;
    let limit = if neg { 1u64 << 63 } else { (1u64 << 63) - 1 };
    for d in digits {
        mag = mag.checked_mul(10)?.checked_add(u64::from(d - b'0'))?;
        if mag > limit {
            return None;
        }
    }
    Some(if neg {
        (mag as i64).wrapping_neg()
    } else {
        mag as i64
    })
}

/// Resolves an op word for `tag`: symbolic names, the numeric forms accepted for
/// alloca/arithmetic/cast, `-1` for op-less tags and `null_callback` for debug_break.
pub(crate) fn parse_op(tag: InstTag, token: &[u8]) -> Option<WireOp> {
    if let Some(n) = integer_token(token) {
        let idx = usize::try_from(n).ok();
        return match tag {
            InstTag::Alloca => idx.and_then(AllocaOp::from_index).map(WireOp::Alloca),
            InstTag::Arithmetic => idx
                .and_then(ArithmeticOp::from_index)
                .map(WireOp::Arithmetic),
            InstTag::Cast => idx.and_then(CastOp::from_index).map(WireOp::Cast),
            _ if n == -1 && expected_op_family(tag) == OpFamily::None => Some(WireOp::None),
            _ => None,
        };
    }
    let s = std::str::from_utf8(token).ok()?;
    Some(match tag {
        InstTag::Alloca => WireOp::Alloca(AllocaOp::from_name(s)?),
        InstTag::Arithmetic => WireOp::Arithmetic(ArithmeticOp::from_name(s)?),
        InstTag::Cast => WireOp::Cast(CastOp::from_name(s)?),
        InstTag::Atomic => WireOp::Atomic(AtomicOp::from_name(s)?),
        InstTag::ThreadGroup => WireOp::ThreadGroup(ThreadGroupOp::from_name(s)?),
        InstTag::ResourceQuery => WireOp::ResourceQuery(ResourceQueryOp::from_name(s)?),
        InstTag::ResourceRead => WireOp::ResourceRead(ResourceReadOp::from_name(s)?),
        InstTag::ResourceWrite => WireOp::ResourceWrite(ResourceWriteOp::from_name(s)?),
        InstTag::RayQueryObjectRead => {
            WireOp::RayQueryObjectRead(RayQueryObjectReadOp::from_name(s)?)
        }
        InstTag::RayQueryObjectWrite => {
            WireOp::RayQueryObjectWrite(RayQueryObjectWriteOp::from_name(s)?)
        }
        InstTag::AutodiffIntrinsic => WireOp::AutodiffIntrinsic(AutodiffIntrinsicOp::from_name(s)?),
        InstTag::DebugBreak if s == "null_callback" => WireOp::NullCallback,
        _ => return None,
    })
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum OpFamily {
    None,
    Symbolic,
    NullCallback,
}

fn expected_op_family(tag: InstTag) -> OpFamily {
    match tag {
        InstTag::Alloca
        | InstTag::Arithmetic
        | InstTag::Cast
        | InstTag::Atomic
        | InstTag::ThreadGroup
        | InstTag::ResourceQuery
        | InstTag::ResourceRead
        | InstTag::ResourceWrite
        | InstTag::RayQueryObjectRead
        | InstTag::RayQueryObjectWrite
        | InstTag::AutodiffIntrinsic => OpFamily::Symbolic,
        InstTag::DebugBreak => OpFamily::NullCallback,
        _ => OpFamily::None,
    }
}

/// The frozen binary tag table: upstream's own list (not the enum order), with
/// `indexed_branch` appended last.
pub(crate) const BINARY_TAGS: [InstTag; 41] = [
    InstTag::If,
    InstTag::Switch,
    InstTag::Loop,
    InstTag::SimpleLoop,
    InstTag::Branch,
    InstTag::ConditionalBranch,
    InstTag::Unreachable,
    InstTag::RasterDiscard,
    InstTag::CoroSuspend,
    InstTag::CoroResume,
    InstTag::CoroTerminate,
    InstTag::Return,
    InstTag::Phi,
    InstTag::Alloca,
    InstTag::Load,
    InstTag::Store,
    InstTag::Gep,
    InstTag::Atomic,
    InstTag::Arithmetic,
    InstTag::ThreadGroup,
    InstTag::ResourceQuery,
    InstTag::ResourceRead,
    InstTag::ResourceWrite,
    InstTag::RayQueryLoop,
    InstTag::RayQueryDispatch,
    InstTag::RayQueryObjectRead,
    InstTag::RayQueryObjectWrite,
    InstTag::RayQueryPipeline,
    InstTag::AutodiffScope,
    InstTag::AutodiffIntrinsic,
    InstTag::Break,
    InstTag::Continue,
    InstTag::Call,
    InstTag::Cast,
    InstTag::Print,
    InstTag::Clock,
    InstTag::DebugBreak,
    InstTag::Assert,
    InstTag::Assume,
    InstTag::Outline,
    InstTag::IndexedBranch,
];

/// The binary id of a tag.
pub(crate) fn binary_tag_id(tag: InstTag) -> u64 {
    BINARY_TAGS.iter().position(|t| *t == tag).unwrap_or(0) as u64
}

/// Whether (operands, auxiliaries, payloads) counts fit the tag and op.
pub(crate) fn shape_ok(tag: InstTag, op: WireOp, n: usize, aux: usize, pay: usize) -> bool {
    use InstTag as T;
    let base = match tag {
        T::If => n == 3 && aux == 1 && pay == 0,
        T::Switch => n >= 2 && aux + 1 == n && pay == 0,
        T::IndexedBranch => n >= 2 && aux + 2 == n && pay == 0,
        T::Loop | T::AutodiffScope => n == 1 && aux == 3 && pay == 0,
        T::SimpleLoop | T::RayQueryLoop | T::Outline => n == 1 && aux == 1 && pay == 0,
        T::Branch | T::Break | T::Continue | T::Return | T::Load | T::Cast => {
            n == 1 && aux == 0 && pay == 0
        }
        T::ConditionalBranch => n == 3 && aux == 0 && pay == 0,
        T::Unreachable => n == 0 && aux == 0 && pay == 1,
        T::RasterDiscard | T::CoroTerminate | T::Alloca | T::Clock => {
            n == 0 && aux == 0 && pay == 0
        }
        T::CoroSuspend => n == 1 && aux == 1 && pay == 1,
        T::CoroResume => n == 1 && aux == 1 && pay == 0,
        T::Phi => n == aux && pay == 0,
        T::Store => n == 2 && aux == 0 && pay == 0,
        T::Gep => n >= 2 && aux == 0 && pay == 0,
        T::Atomic
        | T::Arithmetic
        | T::ThreadGroup
        | T::RayQueryObjectRead
        | T::RayQueryObjectWrite
        | T::RayQueryPipeline
        | T::AutodiffIntrinsic
        | T::DebugBreak => aux == 0 && pay == 0,
        T::ResourceQuery | T::ResourceRead | T::ResourceWrite => aux <= 1 && pay == 0,
        T::RayQueryDispatch => n == 4 && aux == 0 && pay == 0,
        T::Call => n >= 1 && aux == 0 && pay == 0,
        T::Print => aux == 0 && pay == 1,
        T::Assert | T::Assume => n == 1 && aux == 0 && pay == 1,
    };
    if !base {
        return false;
    }
    match op {
        WireOp::Arithmetic(o) => o.arity().accepts(n),
        WireOp::Atomic(o) => match o.arity() {
            Arity::Exact(k) => n > k as usize,
            _ => false,
        },
        WireOp::ThreadGroup(o) => o.arity().accepts(n),
        WireOp::ResourceQuery(o) => o.arity().accepts(n),
        // Interchange v1 has no operand rule for the cooperative-vector math reads.
        WireOp::ResourceRead(o) => !o.is_cooperative_vector_math() && o.arity().accepts(n),
        WireOp::ResourceWrite(o) => o.arity().accepts(n),
        WireOp::RayQueryObjectRead(_) => n == 1,
        WireOp::RayQueryObjectWrite(o) => o.arity().accepts(n),
        WireOp::AutodiffIntrinsic(o) => o.arity().accepts(n),
        _ if tag == T::RayQueryPipeline => n >= 3,
        _ => true,
    }
}

/// Whether the op kind matches the tag (symbolic op for op tags, `-1` otherwise).
pub(crate) fn op_matches_tag(tag: InstTag, op: WireOp) -> bool {
    use InstTag as T;
    use WireOp as W;
    matches!(
        (tag, op),
        (T::Alloca, W::Alloca(_))
            | (T::Arithmetic, W::Arithmetic(_))
            | (T::Cast, W::Cast(_))
            | (T::Atomic, W::Atomic(_))
            | (T::ThreadGroup, W::ThreadGroup(_))
            | (T::ResourceQuery, W::ResourceQuery(_))
            | (T::ResourceRead, W::ResourceRead(_))
            | (T::ResourceWrite, W::ResourceWrite(_))
            | (T::RayQueryObjectRead, W::RayQueryObjectRead(_))
            | (T::RayQueryObjectWrite, W::RayQueryObjectWrite(_))
            | (T::AutodiffIntrinsic, W::AutodiffIntrinsic(_))
            | (T::DebugBreak, W::NullCallback)
    ) || (expected_op_family(tag) == OpFamily::None && op == W::None)
}

/// Range rules on auxiliary integers (shape already checked).
pub(crate) fn aux_ok(tag: InstTag, aux: &[i64]) -> bool {
    use InstTag as T;
    let nonneg = || aux.iter().all(|v| *v >= 0);
    match tag {
        T::If => aux[0] >= -1,
        T::Loop | T::SimpleLoop | T::Phi | T::RayQueryLoop | T::Outline => nonneg(),
        T::Switch => aux[0] >= 0,
        T::IndexedBranch => nonneg(),
        T::CoroSuspend | T::CoroResume => (0..=i64::from(u32::MAX)).contains(&aux[0]),
        T::AutodiffScope => {
            let (merge, fwd, n) = (aux[0], aux[1], aux[2]);
            merge >= 0
                && (fwd == 0 || fwd == 1)
                && n >= 0
                && n <= i64::from(u32::MAX)
                && if fwd == 0 { n == 0 } else { n > 0 }
        }
        T::ResourceQuery | T::ResourceRead | T::ResourceWrite => {
            aux.is_empty() || (0..=3).contains(&aux[0])
        }
        _ => true,
    }
}

/// Whether the result type (`None` = void) is allowed for the tag.
pub(crate) fn type_shape_ok(tag: InstTag, ty: Option<Type>, ts: &TypeStore) -> bool {
    use InstTag as T;
    match tag {
        T::Phi
        | T::Alloca
        | T::Load
        | T::Gep
        | T::Atomic
        | T::Arithmetic
        | T::ResourceQuery
        | T::ResourceRead
        | T::RayQueryObjectRead
        | T::Cast => ty.is_some(),
        T::Clock => ty.is_some_and(|t| *ts.get(t) == TypeData::Scalar(ScalarKind::U64)),
        T::ThreadGroup | T::AutodiffIntrinsic | T::Call => true,
        _ => ty.is_none(),
    }
}

/// Encodes a case label (stored canonicalised to the selector width) as the signed
/// 64-bit wire value at the selector width.
pub(crate) fn encode_case_label(sel: ScalarKind, v: u64) -> i64 {
    match sel {
        ScalarKind::I8 => i64::from(v as u8 as i8),
        ScalarKind::I16 => i64::from(v as u16 as i16),
        ScalarKind::I32 => i64::from(v as u32 as i32),
        _ => v as i64,
    }
}

/// Decodes a wire case label at the selector width (range-checked).
pub(crate) fn decode_case_label(sel: ScalarKind, v: i64) -> Option<u64> {
    fn signed(v: i64, min: i64, max: i64, mask: u64) -> Option<u64> {
        (min..=max).contains(&v).then_some(v as u64 & mask)
    }
    fn unsigned(v: i64, max: u64) -> Option<u64> {
        (v >= 0 && v as u64 <= max).then_some(v as u64)
    }
    match sel {
        ScalarKind::Bool => (v == 0 || v == 1).then_some(v as u64),
        ScalarKind::I8 => signed(v, i8::MIN.into(), i8::MAX.into(), 0xff),
        ScalarKind::U8 => unsigned(v, u8::MAX.into()),
        ScalarKind::I16 => signed(v, i16::MIN.into(), i16::MAX.into(), 0xffff),
        ScalarKind::U16 => unsigned(v, u16::MAX.into()),
        ScalarKind::I32 => signed(v, i32::MIN.into(), i32::MAX.into(), 0xffff_ffff),
        ScalarKind::U32 => unsigned(v, u32::MAX.into()),
        ScalarKind::I64 | ScalarKind::U64 => Some(v as u64),
        _ => None,
    }
}

/// Metadata names must be empty or `[A-Za-z_][A-Za-z0-9_]*`.
pub(crate) fn valid_md_name(s: &[u8]) -> bool {
    match s.split_first() {
        None => true,
        Some((h, t)) => {
            (h.is_ascii_alphabetic() || *h == b'_')
                && t.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'_')
        }
    }
}

/// Mask of the defined curve-basis bits.
pub(crate) const CURVE_BASIS_MASK: u64 = 0b1111;

#[cfg(test)]
mod tests {
    use super::{decode_case_label, encode_case_label};
    use crate::types::ScalarKind as K;

    #[test]
    fn case_labels_are_signed_at_selector_width() {
        assert_eq!(encode_case_label(K::I8, 0xff), -1);
        assert_eq!(encode_case_label(K::I16, 0x8000), -32768);
        assert_eq!(encode_case_label(K::I32, 0xffff_fffe), -2);
        assert_eq!(encode_case_label(K::U32, 0xffff_fffe), 0xffff_fffe);
        assert_eq!(encode_case_label(K::U64, u64::MAX), -1);
        assert_eq!(decode_case_label(K::I32, -2), Some(0xffff_fffe));
        assert_eq!(decode_case_label(K::I8, 128), None);
        assert_eq!(decode_case_label(K::U8, -1), None);
        assert_eq!(decode_case_label(K::U16, 65536), None);
        assert_eq!(decode_case_label(K::Bool, 2), None);
        assert_eq!(decode_case_label(K::U64, -1), Some(u64::MAX));
        assert_eq!(decode_case_label(K::F32, 0), None);
        for k in [K::I8, K::U8, K::I16, K::U16, K::I32, K::U32, K::I64, K::U64] {
            for v in [0u64, 1, 0x7f, 0x80, 0xff] {
                let v = v & if k.size() == 8 {
                    u64::MAX
                } else {
                    (1 << (8 * k.size())) - 1
                };
                assert_eq!(decode_case_label(k, encode_case_label(k, v)), Some(v));
            }
        }
    }
}

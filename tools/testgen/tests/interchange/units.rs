//! Unit tests: type descriptions, canonical constants, case labels, metadata records,
//! writer refusals, text errors and bitcode errors.

use xir_ir::diag::line_col;
use xir_ir::edit::InstBuilder;
use xir_ir::function::FunctionKind;
use xir_ir::inst::InstKind;
use xir_ir::interchange::canonical::*;
use xir_ir::interchange::typedesc::*;
use xir_ir::interchange::*;
use xir_ir::metadata::{Metadata, StridedMma};
use xir_ir::module::Module;
use xir_ir::types::{ScalarKind as K, TextureDim, TypeData, TypeStore};
use xir_testgen::samples::{self, Fb, T};

fn desc_of(ts: &TypeStore, t: xir_ir::types::Type) -> Result<String, String> {
    use xir_ir::entity::EntityRef;
    describe_all(ts)[t.index()].clone()
}

#[test]
fn type_descriptions_round_trip() {
    let mut m = Module::new();
    let f = m.types.f32();
    let v3 = T::v(&mut m, K::F32, 3);
    let s = T::st(&mut m, 16, &[f, v3]);
    let h = m.types.scalar(K::F16);
    let d4 = T::v(&mut m, K::F64, 4);
    let u8t = m.types.scalar(K::U8);
    let cases = [
        (m.types.bool(), "bool"),
        (m.types.scalar(K::I8), "byte"),
        (m.types.scalar(K::U8), "ubyte"),
        (m.types.scalar(K::I16), "short"),
        (m.types.scalar(K::U16), "ushort"),
        (m.types.i32(), "int"),
        (m.types.u32(), "uint"),
        (m.types.scalar(K::I64), "long"),
        (m.types.u64(), "ulong"),
        (h, "half"),
        (f, "float"),
        (m.types.scalar(K::F64), "double"),
        (m.types.scalar(K::F8E4M3), "float8e4m3"),
        (m.types.scalar(K::F8E5M2), "float8e5m2"),
        (v3, "vector<float,3>"),
        (T::v(&mut m, K::Bool, 2), "vector<bool,2>"),
        (T::mat(&mut m, 4), "matrix<4>"),
        (
            T::arr(&mut m, s, 8),
            "array<struct<16,float,vector<float,3>>,8>",
        ),
        (s, "struct<16,float,vector<float,3>>"),
        (T::st(&mut m, 1, &[]), "struct<1>"),
        (T::st(&mut m, 16, &[d4]), "struct<16,vector<double,4>>"),
        (T::buf(&mut m, None), "buffer<void>"),
        (
            T::buf(&mut m, Some(s)),
            "buffer<struct<16,float,vector<float,3>>>",
        ),
        (T::tex(&mut m, TextureDim::D3, K::I32), "texture<3,int>"),
        (m.types.intern(TypeData::BindlessArray), "bindless_array"),
        (m.types.intern(TypeData::Accel), "accel"),
        (T::custom(&mut m, "LC_RayQueryAny"), "LC_RayQueryAny"),
        (
            m.types.intern(TypeData::CoopVector { elem: h, len: 32 }),
            "coopvec<half,32>",
        ),
        (
            m.types.intern(TypeData::CoopVectorRef { len: 16, elem: f }),
            "coopvec_ref<16,5>",
        ),
        (
            m.types.intern(TypeData::CoopMatrixRef {
                rows: 16,
                cols: 8,
                elem: u8t,
            }),
            "coopmat_ref<16,8,0>",
        ),
    ];
    for (t, want) in cases {
        assert_eq!(desc_of(&m.types, t).as_deref(), Ok(want));
        let mut ts = m.types.clone();
        assert_eq!(parse_type(want.as_bytes(), &mut ts), Ok(Some(t)), "{want}");
    }
    assert_eq!(parse_type(b"void", &mut m.types), Ok(None));
}

#[test]
fn non_round_tripping_types_are_refused() {
    let mut m = Module::new();
    let f = m.types.f32();
    let i4 = m.types.scalar(K::I4);
    let h = m.types.scalar(K::F16);
    let f4 = T::v(&mut m, K::F32, 4);
    let opaque = T::custom(&mut m, "Opaque");
    let cv = m.types.intern(TypeData::CoopVector { elem: f, len: 4 });
    let voidish = T::custom(&mut m, "voidish");
    let i64t = m.types.scalar(K::I64);
    let bad = [
        i4,
        m.types.scalar(K::F4E2M1),
        m.types.vector(i4, 2),
        m.types.intern(TypeData::Matrix { elem: h, n: 2 }),
        T::st(&mut m, 2, &[f]),
        T::st(&mut m, 4, &[f4]),
        T::arr(&mut m, opaque, 2),
        T::custom(&mut m, "int4"),
        T::custom(&mut m, "vector"),
        T::custom(&mut m, "with space"),
        T::buf(&mut m, Some(cv)),
        T::buf(&mut m, Some(voidish)),
        T::arr(&mut m, f, (1 << 20) + 1),
        m.types
            .intern(TypeData::CoopVectorRef { len: 4, elem: i64t }),
    ];
    for t in bad {
        assert!(desc_of(&m.types, t).is_err(), "{:?}", m.types.get(t));
    }
    // 64 array levels around a scalar parse; 65 do not.
    let mut t = f;
    for _ in 0..64 {
        t = T::arr(&mut m, t, 1);
    }
    let ok = desc_of(&m.types, t).unwrap();
    assert!(parse_type(ok.as_bytes(), &mut m.types).is_ok());
    let deeper = T::arr(&mut m, t, 1);
    assert!(desc_of(&m.types, deeper).is_err());
    assert!(parse_type(format!("array<{ok},1>").as_bytes(), &mut m.types).is_err());
    // Descriptions over 16 KiB.
    let m4 = T::mat(&mut m, 4);
    let wide = T::st(&mut m, 16, &vec![m4; 2000]);
    assert!(desc_of(&m.types, wide).is_err());
}

#[test]
fn malformed_descriptions_do_not_parse() {
    let mut ts = TypeStore::new();
    for d in [
        "",
        " int",
        "int ",
        "vector<float,5>",
        "vector<float,1>",
        "vector<matrix<2>,2>",
        "matrix<5>",
        "struct<3>",
        "struct<4",
        "struct<4,>",
        "struct<4float>",
        "struct<4,buffer<void>>",
        "buffer<voidx>",
        "buffer<accel>",
        "array<float,1048577>",
        "array<LC_X,2>",
        "coopvec<float,0>",
        "coopvec_ref<0,1>",
        "coopvec_ref<4,8>",
        "coopmat_ref<1,0,1>",
        "texture<2,half>",
        "texture<4,float>",
        "int4",
        "9lives",
        "vector",
        "array<float,-1>",
        "float8e4m3x<>",
    ] {
        assert!(parse_type(d.as_bytes(), &mut ts).is_err(), "{d:?} parsed");
    }
    let long = "a".repeat(MAX_TYPE_DESCRIPTION_SIZE + 1);
    assert!(parse_type(long.as_bytes(), &mut ts).is_err());
}

#[test]
fn canonical_constant_encoding() {
    let mut m = Module::new();
    let b3 = T::v(&mut m, K::Bool, 3);
    assert_eq!(canonical_size(&m.types, b3), Some(3));
    assert_eq!(
        to_canonical(&m.types, b3, &[1, 0, 1, 0]).unwrap(),
        vec![1, 0, 1]
    );
    assert_eq!(
        to_canonical(&m.types, b3, &[2, 0, 1, 0]),
        Err(CanonicalError::Bool)
    );
    assert_eq!(
        to_canonical(&m.types, b3, &[1, 0, 1]),
        Err(CanonicalError::Length)
    );
    // matrix<3>: three float3 columns of 16 native bytes, 12 canonical bytes each.
    let m3 = T::mat(&mut m, 3);
    let native: Vec<u8> = (0..48).collect();
    let canon = to_canonical(&m.types, m3, &native).unwrap();
    let want: Vec<u8> = (0..3)
        .flat_map(|c| (c * 16..c * 16 + 12).collect::<Vec<u8>>())
        .collect();
    assert_eq!(canon, want);
    let back = from_canonical(&m.types, m3, &canon).unwrap();
    assert_eq!(back.len(), 48);
    assert_eq!(&back[..12], &native[..12]);
    assert_eq!(&back[12..16], &[0, 0, 0, 0]);
    // struct<16,bool,vector<float,3>,ubyte>: 1 + 12 + 1 canonical bytes, no padding.
    let f3 = T::v(&mut m, K::F32, 3);
    let bo = m.types.bool();
    let ub = m.types.scalar(K::U8);
    let s = T::st(&mut m, 16, &[bo, f3, ub]);
    assert_eq!(canonical_size(&m.types, s), Some(14));
    let mut canon = vec![1u8];
    canon.extend(1..=12u8);
    canon.push(0xee);
    let native = from_canonical(&m.types, s, &canon).unwrap();
    assert_eq!(native.len() as u64, m.types.size_of(s));
    assert_eq!(to_canonical(&m.types, s, &native).unwrap(), canon);
    assert_eq!(
        from_canonical(&m.types, s, &canon[..13]),
        Err(CanonicalError::Length)
    );
    let mut badb = canon.clone();
    badb[0] = 2;
    assert_eq!(
        from_canonical(&m.types, s, &badb),
        Err(CanonicalError::Bool)
    );
    // Half, double, fp8 scalars are copied little-endian.
    let d = m.types.scalar(K::F64);
    assert_eq!(
        to_canonical(&m.types, d, &2.0f64.to_le_bytes()).unwrap(),
        2.0f64.to_le_bytes()
    );
    let custom = T::custom(&mut m, "X");
    assert_eq!(canonical_size(&m.types, custom), None);
}

fn with_md(md: Metadata) -> Module {
    let mut m = samples::callable_add();
    m.metadata = vec![md];
    m
}

#[test]
fn writer_refusals() {
    for md in [
        Metadata::NoInline,
        Metadata::ContiguousCopy {
            element_count: 4,
            vector_width: 4,
        },
        Metadata::StridedMma(Box::<StridedMma>::default()),
        Metadata::Name("not a name".into()),
        Metadata::CurveBasis(xir_ir::metadata::CurveBasisSet(0x10)),
    ] {
        let e = write_interchange_text(&with_md(md.clone())).unwrap_err();
        assert!(e.offset.is_none(), "{e}");
        assert!(write_bitcode(&with_md(md)).is_err());
    }
    // Debug-break callback.
    let mut m = Module::new();
    let mut f = Fb::new(&mut m, FunctionKind::Callable, None);
    let b = f.body();
    let d = f.at(b).debug_break(None, &[]);
    f.at(b).ret(None);
    let fid = f.f;
    assert!(write_interchange_text(&m).is_ok());
    m.func_mut(fid).inst_mut(d).kind = InstKind::DebugBreak { callback: Some(7) };
    let e = write_interchange_text(&m).unwrap_err();
    assert!(e.message.contains("callback"), "{e}");
    // Coroutine frame exports.
    let mut m = samples::coroutine();
    let f = m.func_order[0];
    let func = m.func_mut(f);
    let first = func.blocks[func.body.unwrap()].insts[0];
    if let InstKind::CoroSuspend(s) = &mut func.inst_mut(first).kind {
        s.exports.push("x".into());
    }
    let zero = samples::cst(&mut m, K::U32, 0);
    m.func_mut(f).inst_mut(first).operands.push(zero);
    let e = write_interchange_text(&m).unwrap_err();
    assert!(e.message.contains("exports"), "{e}");
    // i4 constant.
    let mut m = samples::callable_add();
    let i4 = m.types.scalar(K::I4);
    m.constant(i4, &[3]);
    assert!(write_interchange_text(&m).is_err());
    // A module the verifier rejects.
    let mut m = samples::callable_add();
    let f = m.func_order[0];
    m.func_mut(f).ret = None;
    let e = write_interchange_text(&m).unwrap_err();
    assert!(!e.diagnostics.is_empty(), "{e}");
}

/// Reads `src` expecting an error; returns (line, col, message).
fn text_err(src: &str) -> (usize, usize, String) {
    let d = read_interchange_text(src).expect_err("expected an error");
    let s = d[0].span.expect("located");
    let (l, c) = line_col(src, s.start as usize);
    (l, c, d[0].message.clone())
}

const EX: &str = super::REFERENCE_EXAMPLE;

#[test]
fn text_errors_are_located() {
    let cases: &[(&str, &str, usize, &str)] = &[
        ("xir.text 1", "xir.text 2", 2, "version"),
        ("md", "", 0, ""),
        ("\"01000000\"", "\"0100000\"", 6, "payload size"),
        ("\"01000000\"", "\"0100000g\"", 6, "hexadecimal"),
        ("binary_add", "binary_plus", 19, "operation"),
        (
            "arithmetic \"int\"",
            "arith \"int\"",
            19,
            "instruction kind",
        ),
        (
            "binary_add 2 2 0",
            "binary_add 2 2 99",
            19,
            "unknown value id 99",
        ),
        ("binary_add 2 2 0", "binary_add 2 2 -2", 19, "nonnegative"),
        ("constant 0", "constant 4", 19, "duplicate value id 4"),
        ("body 3", "body 2", 17, "body block"),
        (
            "\"int\" \"01000000\"",
            "\"vector<int,9>\" \"01000000\"",
            6,
            "invalid global type",
        ),
        ("globals 1", "globals 1048577", 5, "2^20"),
        ("globals 1", "globals 1000", 5, "budget"),
        (
            "metadata 0\n  globals",
            "metadata 1\n  md colour \"red\"\n  globals",
            5,
            "metadata kind",
        ),
        (
            "return \"void\" -1 1 4 0",
            "return \"void\" -1 2 4 4 0",
            21,
            "layout",
        ),
        ("return \"void\"", "return \"int\"", 21, "result type"),
        (
            "callable \"int\" 0 0 0",
            "callable \"int\" 1 0 0",
            9,
            "block size",
        ),
        (
            "argument 2 value \"int\"",
            "argument 2 resource \"int\"",
            12,
            "incompatible",
        ),
        ("instruction 4 3", "instruction 4 9", 19, "basic block"),
        (
            "\"int\" \"01000000\"",
            "\"int\" \"01000000",
            6,
            "control character",
        ),
    ];
    for (from, to, line, msg) in cases {
        if from == &"md" {
            continue;
        }
        assert!(EX.contains(from), "{from}");
        let src = EX.replacen(from, to, 1);
        let (l, _, m) = text_err(&src);
        assert!(m.contains(msg), "{to}: got `{m}`");
        assert_eq!(l, *line, "{to}: {m}");
    }
    // Escapes and control characters in strings.
    for (s, msg) in [
        ("\"a\\q\"", "unknown string escape"),
        ("\"a\\x4\"", "hexadecimal"),
        ("\"a\u{1}\"", "control character"),
        ("\"\\xff\"", "UTF-8"),
    ] {
        let src = EX.replace(
            "metadata 0\n  globals",
            &format!("metadata 1\n  md comment {s}\n  globals"),
        );
        let (l, _, m) = text_err(&src);
        assert!(m.contains(msg), "{s}: {m}");
        assert!(l == 5 || l == 4, "{s}: line {l}");
    }
    for (md, msg) in [
        ("md name \"1x\"", "name"),
        ("md location \"f\" 2147483648", "line"),
        ("md curve_basis 16", "unknown bits"),
        ("md reg2mem_spill loop", "reg2mem"),
    ] {
        let src = EX.replace(
            "metadata 0\n  globals",
            &format!("metadata 1\n  {md}\n  globals"),
        );
        let (l, c, m) = text_err(&src);
        assert!(m.contains(msg), "{md}: {m}");
        assert_eq!(l, 5, "{md}");
        assert!(c > 3, "{md}");
    }
    let (_, _, m) = text_err(&format!("{EX}trailing"));
    assert!(m.contains("after the module"), "{m}");
}

#[test]
fn aliased_and_foreign_values_are_rejected() {
    let dup = EX.replace(
        "  globals 1\n",
        "  globals 2\n  constant 9 \"int\" \"01000000\"\n    metadata 0\n",
    );
    let (l, _, m) = text_err(&dup);
    assert_eq!(l, 8, "{m}");
    assert!(m.contains("aliased"), "{m}");
    let dup_special = EX.replace(
        "  globals 1\n",
        "  globals 3\n  special 10 warp_size\n  special 11 warp_size\n",
    );
    assert!(text_err(&dup_special).2.contains("twice"));
    let unknown_special = EX.replace("  globals 1\n", "  globals 2\n  special 10 lane\n");
    assert!(text_err(&unknown_special).2.contains("special"));
}

#[test]
fn bitcode_errors_carry_offsets() {
    let m = samples::callable_add();
    let good = write_bitcode(&m).unwrap();
    assert_eq!(&good[..8], &BITCODE_MAGIC);
    assert_eq!(read_bitcode(&good[..10]).unwrap_err().offset, Some(10));
    let mut b = good.clone();
    b[3] = b'X';
    assert_eq!(read_bitcode(&b).unwrap_err().offset, Some(3));
    let mut b = good.clone();
    b[8] = 3;
    assert_eq!(read_bitcode(&b).unwrap_err().offset, Some(8));
    let mut b = good.clone();
    b[13] = 1;
    assert_eq!(read_bitcode(&b).unwrap_err().offset, Some(12));
    let mut b = good.clone();
    b[23] = 0x80;
    assert_eq!(read_bitcode(&b).unwrap_err().offset, Some(16));
    assert_eq!(
        read_bitcode(&good[..good.len() - 1]).unwrap_err().offset,
        Some(good.len() - 1)
    );
    let mut b = good.clone();
    b.push(0);
    assert_eq!(read_bitcode(&b).unwrap_err().offset, Some(good.len()));
    let mut b = good.clone();
    let last = b.len() - 1;
    b[last] ^= 1;
    assert_eq!(read_bitcode(&b).unwrap_err().offset, Some(24));
}

/// Re-seals a payload into a version-2 envelope.
pub(crate) fn seal(payload: &[u8]) -> Vec<u8> {
    let mut out = BITCODE_MAGIC.to_vec();
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    out.extend_from_slice(&fnv1a64(payload).to_le_bytes());
    out.extend_from_slice(payload);
    out
}

#[test]
fn binary_record_errors() {
    let good = write_bitcode(&samples::callable_add()).unwrap();
    let payload = &good[BITCODE_HEADER_SIZE..];
    // Non-minimal ULEB for the string count (0x85 0x00 instead of 0x05).
    let n = payload[0];
    let mut p = vec![n | 0x80, 0];
    p.extend_from_slice(&payload[1..]);
    let e = read_bitcode(&seal(&p)).unwrap_err();
    assert_eq!(e.offset, Some(34), "{e}"); // just after the two-byte field
    assert!(e.message.contains("minimally"), "{e}");
    // Unsorted string table: swap the first two strings.
    let e = read_bitcode(&seal(&[2, 1, b'b', 1, b'a'])).unwrap_err();
    assert!(e.message.contains("sorted"), "{e}");
    assert_eq!(e.offset, Some(37)); // just after the second string
    // Out-of-range string index in module metadata (name, index 5 of 1 string).
    let e = read_bitcode(&seal(&[1, 1, b'a', 1, 0, 5])).unwrap_err();
    assert!(e.message.contains("out of range"), "{e}");
    assert_eq!(e.offset, Some(38));
    // Oversized count.
    let e = read_bitcode(&seal(&[0x80, 0x80, 0x80, 0x01])).unwrap_err();
    assert!(e.message.contains("2^20"), "{e}");
    // Count larger than the rest of the payload.
    let e = read_bitcode(&seal(&[0, 0, 100])).unwrap_err();
    assert!(e.message.contains("budget"), "{e}");
    assert_eq!(e.offset, Some(35));
    // Too-long ULEB.
    let e = read_bitcode(&seal(&[0xff; 11])).unwrap_err();
    assert!(e.message.contains("ULEB128"), "{e}");
    // Unknown global kind.
    let e = read_bitcode(&seal(&[0, 0, 1, 7, 0])).unwrap_err();
    assert!(e.message.contains("global record kind"), "{e}");
    assert_eq!(e.offset, Some(37)); // kind and id are read first, as upstream does
    // Trailing bytes after the records.
    let e = read_bitcode(&seal(&[0, 0, 0, 0, 9])).unwrap_err();
    assert!(e.message.contains("trailing"), "{e}");
    assert_eq!(e.offset, Some(36));
    // Version 1 envelope with a bad text payload reports the text offset.
    let mut v1 = seal(b"xir.text 7");
    v1[8] = 1;
    let e = read_bitcode(&v1).unwrap_err();
    assert_eq!(e.offset, Some(32 + 9), "{e}");
}

#[test]
fn format_detection() {
    let m = samples::callable_add();
    assert_eq!(
        detect_format(&write_bitcode(&m).unwrap()),
        InputFormat::Bitcode
    );
    assert_eq!(detect_format(EX.as_bytes()), InputFormat::InterchangeText);
    assert_eq!(
        detect_format(b"; RUN: x\n  xir.text 1"),
        InputFormat::InterchangeText
    );
    assert_eq!(detect_format(b"module;\n"), InputFormat::XirText);
    assert_eq!(detect_format(b"xir.textual"), InputFormat::XirText);
    assert_eq!(detect_format(b""), InputFormat::XirText);
}

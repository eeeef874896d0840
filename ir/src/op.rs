//! The op table: every op enum of XIR with its upstream spelling and operand arity, and
//! for arithmetic ops the typing signature class.
//!
//! This file is the single source of truth read by the lexer/parser (`from_name`), the
//! printers (`name`), the interchange formats (`index`/`from_index`, frozen upstream
//! order), the verifier (`arity`, `is_bindless`, `signature`), the parser's type inference
//! (`signature`) and the test generator (`arity`, `signature`). Adding an op means adding
//! one row here (and, for a new signature class, one arm in each of those readers).

/// How many operands an op takes (for resource ops: including the resource itself).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Arity {
    /// Exactly `n` operands.
    Exact(u8),
    /// At least `n` operands.
    AtLeast(u8),
    /// One of the listed counts.
    OneOf(&'static [u8]),
}

impl Arity {
    /// Whether `n` operands are acceptable.
    pub fn accepts(self, n: usize) -> bool {
        match self {
            Arity::Exact(k) => n == k as usize,
            Arity::AtLeast(k) => n >= k as usize,
            Arity::OneOf(ks) => ks.iter().any(|&k| k as usize == n),
        }
    }
}

impl Arity {
    /// The operand count when it is fixed.
    pub const fn exact(self) -> Option<usize> {
        match self {
            Arity::Exact(k) => Some(k as usize),
            _ => None,
        }
    }
}

impl std::fmt::Display for Arity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Arity::Exact(k) => write!(f, "{k}"),
            Arity::AtLeast(k) => write!(f, "at least {k}"),
            Arity::OneOf(ks) => {
                let v: Vec<String> = ks.iter().map(|k| k.to_string()).collect();
                write!(f, "{}", v.join(" or "))
            }
        }
    }
}

const U: Arity = Arity::Exact(1);
const B: Arity = Arity::Exact(2);
const T: Arity = Arity::Exact(3);
const fn n(k: u8) -> Arity {
    Arity::Exact(k)
}

/// Whether an op spelling names a bindless-array op (`bindless_…`).
const fn bindless_spelling(s: &str) -> bool {
    let (s, p) = (s.as_bytes(), b"bindless_".as_slice());
    if s.len() < p.len() {
        return false;
    }
    let mut i = 0;
    while i < p.len() {
        if s[i] != p[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Declares an op enum from a table of `Variant = "spelling", arity;` rows, or with a
/// signature column (`pub enum Name: SigEnum { Variant = "spelling", arity, SigVariant; }`)
/// also `signature()`.
macro_rules! op_table {
    ($(#[$m:meta])* pub enum $name:ident: $sig:ident {
        $($variant:ident = $text:literal, $arity:expr, $class:ident;)*
    }) => {
        op_table! { $(#[$m])* pub enum $name { $($variant = $text, $arity;)* } }
        impl $name {
            /// The typing signature class (operand and result types).
            #[inline(always)]
            pub const fn signature(self) -> $sig {
                match self { $($name::$variant => $sig::$class),* }
            }
        }
    };
    ($(#[$m:meta])* pub enum $name:ident { $($variant:ident = $text:literal, $arity:expr;)* }) => {
        $(#[$m])*
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[allow(missing_docs)]
        pub enum $name { $($variant),* }
        impl $name {
            /// Every op, in upstream's frozen numeric order.
            pub const ALL: &'static [$name] = &[$($name::$variant),*];
            /// The upstream spelling (text and interchange formats).
            pub const fn name(self) -> &'static str {
                match self { $($name::$variant => $text),* }
            }
            /// Looks an op up by its spelling.
            pub fn from_name(s: &str) -> Option<Self> {
                match s { $($text => Some($name::$variant),)* _ => None }
            }
            /// Operand count accepted by the verifier.
            pub const fn arity(self) -> Arity {
                match self { $($name::$variant => $arity),* }
            }
            /// Whether the op goes through a bindless array (its spelling starts with
            /// `bindless_`; such resource ops may carry `[typed]`/`[uniform]`).
            pub const fn is_bindless(self) -> bool {
                match self { $($name::$variant => bindless_spelling($text)),* }
            }
            /// Upstream numeric value (position in the enum).
            pub fn index(self) -> usize {
                self as usize
            }
            /// The op with upstream numeric value `i`.
            pub fn from_index(i: usize) -> Option<Self> {
                Self::ALL.get(i).copied()
            }
        }
        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

op_table! {
    /// Kind of an `alloca`.
    pub enum AllocaOp { Local = "local", n(0); Shared = "shared", n(0); }
}

op_table! {
    /// Kind of a `cast`.
    pub enum CastOp { StaticCast = "static_cast", U; BitwiseCast = "bitwise_cast", U; }
}

op_table! {
    /// Atomic read-modify-write ops. Arity counts only the value operands (1, or 2 for CAS);
    /// the base and index operands come first.
    pub enum AtomicOp {
        Exchange = "exchange", U;
        CompareExchange = "compare_exchange", B;
        FetchAdd = "fetch_add", U;
        FetchSub = "fetch_sub", U;
        FetchAnd = "fetch_and", U;
        FetchOr = "fetch_or", U;
        FetchXor = "fetch_xor", U;
        FetchMin = "fetch_min", U;
        FetchMax = "fetch_max", U;
    }
}

op_table! {
    /// Autodiff intrinsics (`@op` in the text format).
    pub enum AutodiffIntrinsicOp {
        RequiresGradient = "autodiff_requires_gradient", U;
        Gradient = "autodiff_gradient", U;
        GradientMarker = "autodiff_gradient_marker", B;
        AccumulateGradient = "autodiff_accumulate_gradient", B;
        Backward = "autodiff_backward", n(0);
        Detach = "autodiff_detach", U;
        PropagateGradient = "autodiff_propagate_gradient", Arity::AtLeast(2);
        OutputGradient = "autodiff_output_gradient", B;
    }
}

op_table! {
    /// Reads of a ray-query object.
    pub enum RayQueryObjectReadOp {
        WorldSpaceRay = "ray_query_object_world_space_ray", U;
        CandidateObjectSpaceRay = "ray_query_object_candidate_object_space_ray", U;
        ProceduralCandidateHit = "ray_query_object_procedural_candidate_hit", U;
        TriangleCandidateHit = "ray_query_object_triangle_candidate_hit", U;
        CommittedHit = "ray_query_object_committed_hit", U;
        IsTriangleCandidate = "ray_query_object_is_triangle_candidate", U;
        IsProceduralCandidate = "ray_query_object_is_procedural_candidate", U;
        IsTerminated = "ray_query_object_is_terminated", U;
    }
}

op_table! {
    /// Writes to a ray-query object.
    pub enum RayQueryObjectWriteOp {
        CommitTriangle = "ray_query_object_commit_triangle", U;
        CommitProcedural = "ray_query_object_commit_procedural", B;
        Terminate = "ray_query_object_terminate", U;
        Proceed = "ray_query_object_proceed", U;
    }
}

op_table! {
    /// Arithmetic ops (93, upstream index order), with their [`ArithSignature`].
    pub enum ArithmeticOp: ArithSignature {
        UnaryMinus = "unary_minus", U, NumericUnary;
        UnaryBitNot = "unary_bit_not", U, BitwiseUnary;
        BinaryAdd = "binary_add", B, NumericNary;
        BinarySub = "binary_sub", B, NumericNary;
        BinaryMul = "binary_mul", B, NumericNary;
        BinaryDiv = "binary_div", B, NumericNary;
        BinaryMod = "binary_mod", B, NumericNary;
        BinaryBitAnd = "binary_bit_and", B, BitwiseBinary;
        BinaryBitOr = "binary_bit_or", B, BitwiseBinary;
        BinaryBitXor = "binary_bit_xor", B, BitwiseBinary;
        BinaryShiftLeft = "binary_shift_left", B, Shift;
        BinaryShiftRight = "binary_shift_right", B, Shift;
        BinaryRotateLeft = "binary_rotate_left", B, Shift;
        BinaryRotateRight = "binary_rotate_right", B, Shift;
        BinaryLess = "binary_less", B, Ordering;
        BinaryGreater = "binary_greater", B, Ordering;
        BinaryLessEqual = "binary_less_equal", B, Ordering;
        BinaryGreaterEqual = "binary_greater_equal", B, Ordering;
        BinaryEqual = "binary_equal", B, Equality;
        BinaryNotEqual = "binary_not_equal", B, Equality;
        All = "all", U, BoolReduce;
        Any = "any", U, BoolReduce;
        Select = "select", T, Select;
        Clamp = "clamp", T, NumericNary;
        Saturate = "saturate", U, FloatUnary;
        Lerp = "lerp", T, Lerp;
        Smoothstep = "smoothstep", T, Smoothstep;
        Step = "step", B, Step;
        Abs = "abs", U, NumericUnary;
        Min = "min", B, NumericNary;
        Max = "max", B, NumericNary;
        Clz = "clz", U, BitCount;
        Ctz = "ctz", U, BitCount;
        Popcount = "popcount", U, BitCount;
        Reverse = "reverse", U, BitCount;
        Isinf = "isinf", U, FloatClass;
        Isnan = "isnan", U, FloatClass;
        Acos = "acos", U, FloatUnary;
        Acosh = "acosh", U, FloatUnary;
        Asin = "asin", U, FloatUnary;
        Asinh = "asinh", U, FloatUnary;
        Atan = "atan", U, FloatUnary;
        Atan2 = "atan2", B, FloatNary;
        Atanh = "atanh", U, FloatUnary;
        Cos = "cos", U, FloatUnary;
        Cosh = "cosh", U, FloatUnary;
        Sin = "sin", U, FloatUnary;
        Sinh = "sinh", U, FloatUnary;
        Tan = "tan", U, FloatUnary;
        Tanh = "tanh", U, FloatUnary;
        Exp = "exp", U, FloatUnary;
        Exp2 = "exp2", U, FloatUnary;
        Exp10 = "exp10", U, FloatUnary;
        Log = "log", U, FloatUnary;
        Log2 = "log2", U, FloatUnary;
        Log10 = "log10", U, FloatUnary;
        Pow = "pow", B, FloatNary;
        PowInt = "pow_int", B, PowInt;
        Sqrt = "sqrt", U, FloatUnary;
        Rsqrt = "rsqrt", U, FloatUnary;
        Ceil = "ceil", U, FloatUnary;
        Floor = "floor", U, FloatUnary;
        Fract = "fract", U, FloatUnary;
        Trunc = "trunc", U, FloatUnary;
        Round = "round", U, FloatUnary;
        Rint = "rint", U, FloatUnary;
        Fma = "fma", T, FloatNary;
        Copysign = "copysign", B, FloatNary;
        Cross = "cross", B, Cross;
        Dot = "dot", B, Dot;
        Length = "length", U, Length;
        LengthSquared = "length_squared", U, Length;
        Normalize = "normalize", U, FloatVectorUnary;
        Faceforward = "faceforward", T, FloatVectorNary;
        Reflect = "reflect", B, FloatVectorNary;
        ReduceSum = "reduce_sum", U, Reduce;
        ReduceProduct = "reduce_product", U, Reduce;
        ReduceMin = "reduce_min", U, Reduce;
        ReduceMax = "reduce_max", U, Reduce;
        OuterProduct = "outer_product", B, OuterProduct;
        MatrixCompNeg = "matrix_comp_neg", U, MatrixUnary;
        MatrixCompAdd = "matrix_comp_add", B, MatrixComponentwise;
        MatrixCompSub = "matrix_comp_sub", B, MatrixComponentwise;
        MatrixCompMul = "matrix_comp_mul", B, MatrixComponentwise;
        MatrixCompDiv = "matrix_comp_div", B, MatrixComponentwise;
        MatrixLinalgMul = "matrix_linalg_mul", B, MatrixLinalgMul;
        MatrixDeterminant = "matrix_determinant", U, MatrixDeterminant;
        MatrixTranspose = "matrix_transpose", U, MatrixUnary;
        MatrixInverse = "matrix_inverse", U, MatrixUnary;
        Aggregate = "aggregate", Arity::AtLeast(1), Aggregate;
        Shuffle = "shuffle", Arity::AtLeast(2), Shuffle;
        Insert = "insert", Arity::AtLeast(3), Insert;
        Extract = "extract", Arity::AtLeast(2), Extract;
    }
}

op_table! {
    /// Resource queries (operand counts include the resource/base operand).
    pub enum ResourceQueryOp {
        BufferSize = "buffer_size", U;
        ByteBufferSize = "byte_buffer_size", U;
        Texture2dSize = "texture2d_size", U;
        Texture3dSize = "texture3d_size", U;
        BindlessBufferSize = "bindless_buffer_size", T;
        BindlessByteBufferSize = "bindless_byte_buffer_size", B;
        BindlessTexture2dSize = "bindless_texture2d_size", B;
        BindlessTexture3dSize = "bindless_texture3d_size", B;
        BindlessTexture2dSizeLevel = "bindless_texture2d_size_level", T;
        BindlessTexture3dSizeLevel = "bindless_texture3d_size_level", T;
        Texture2dSample = "texture2d_sample", n(4);
        Texture2dSampleLevel = "texture2d_sample_level", n(5);
        Texture2dSampleGrad = "texture2d_sample_grad", n(6);
        Texture2dSampleGradLevel = "texture2d_sample_grad_level", n(7);
        Texture3dSample = "texture3d_sample", n(4);
        Texture3dSampleLevel = "texture3d_sample_level", n(5);
        Texture3dSampleGrad = "texture3d_sample_grad", n(6);
        Texture3dSampleGradLevel = "texture3d_sample_grad_level", n(7);
        BindlessTexture2dSample = "bindless_texture2d_sample", n(3);
        BindlessTexture2dSampleLevel = "bindless_texture2d_sample_level", n(4);
        BindlessTexture2dSampleGrad = "bindless_texture2d_sample_grad", n(5);
        BindlessTexture2dSampleGradLevel = "bindless_texture2d_sample_grad_level", n(6);
        BindlessTexture3dSample = "bindless_texture3d_sample", n(3);
        BindlessTexture3dSampleLevel = "bindless_texture3d_sample_level", n(4);
        BindlessTexture3dSampleGrad = "bindless_texture3d_sample_grad", n(5);
        BindlessTexture3dSampleGradLevel = "bindless_texture3d_sample_grad_level", n(6);
        BindlessTexture2dSampleSampler = "bindless_texture2d_sample_sampler", n(5);
        BindlessTexture2dSampleLevelSampler = "bindless_texture2d_sample_level_sampler", n(6);
        BindlessTexture2dSampleGradSampler = "bindless_texture2d_sample_grad_sampler", n(7);
        BindlessTexture2dSampleGradLevelSampler = "bindless_texture2d_sample_grad_level_sampler", n(8);
        BindlessTexture3dSampleSampler = "bindless_texture3d_sample_sampler", n(5);
        BindlessTexture3dSampleLevelSampler = "bindless_texture3d_sample_level_sampler", n(6);
        BindlessTexture3dSampleGradSampler = "bindless_texture3d_sample_grad_sampler", n(7);
        BindlessTexture3dSampleGradLevelSampler = "bindless_texture3d_sample_grad_level_sampler", n(8);
        BufferDeviceAddress = "buffer_device_address", U;
        BindlessBufferDeviceAddress = "bindless_buffer_device_address", B;
        RayTracingInstanceTransform = "ray_tracing_instance_transform", B;
        RayTracingInstanceUserId = "ray_tracing_instance_user_id", B;
        RayTracingInstanceVisibilityMask = "ray_tracing_instance_visibility_mask", B;
        RayTracingTraceClosest = "ray_tracing_trace_closest", T;
        RayTracingTraceAny = "ray_tracing_trace_any", T;
        RayTracingQueryAll = "ray_tracing_query_all", T;
        RayTracingQueryAny = "ray_tracing_query_any", T;
        RayTracingInstanceMotionMatrix = "ray_tracing_instance_motion_matrix", T;
        RayTracingInstanceMotionSrt = "ray_tracing_instance_motion_srt", T;
        RayTracingTraceClosestMotionBlur = "ray_tracing_trace_closest_motion_blur", n(4);
        RayTracingTraceAnyMotionBlur = "ray_tracing_trace_any_motion_blur", n(4);
        RayTracingQueryAllMotionBlur = "ray_tracing_query_all_motion_blur", n(4);
        RayTracingQueryAnyMotionBlur = "ray_tracing_query_any_motion_blur", n(4);
    }
}

op_table! {
    /// Resource reads (operand counts include the resource operand).
    pub enum ResourceReadOp {
        BufferRead = "buffer_read", B;
        BufferVolatileRead = "buffer_volatile_read", B;
        ByteBufferRead = "byte_buffer_read", B;
        ByteBufferVolatileRead = "byte_buffer_volatile_read", B;
        Texture2dRead = "texture2d_read", B;
        Texture3dRead = "texture3d_read", B;
        BindlessBufferRead = "bindless_buffer_read", T;
        BindlessByteBufferRead = "bindless_byte_buffer_read", T;
        BindlessTexture2dRead = "bindless_texture2d_read", T;
        BindlessTexture3dRead = "bindless_texture3d_read", T;
        BindlessTexture2dReadLevel = "bindless_texture2d_read_level", n(4);
        BindlessTexture3dReadLevel = "bindless_texture3d_read_level", n(4);
        DeviceAddressRead = "device_address_read", U;
        CooperativeMulAdd = "cooperative_mul_add", n(7);
        BindlessCooperativeMulAdd = "bindless_cooperative_mul_add", n(8);
        CooperativeMul = "cooperative_mul", n(4);
        BindlessCooperativeMul = "bindless_cooperative_mul", n(5);
        CooperativeVectorLoad = "cooperative_vector_load", B;
        BindlessCooperativeVectorLoad = "bindless_cooperative_vector_load", T;
        CooperativeVectorSplat = "cooperative_vector_splat", U;
        CooperativeVectorCast = "cooperative_vector_cast", U;
        CooperativeVectorWorkgroupLoad = "cooperative_vector_workgroup_load", B;
        CooperativeVectorDot = "cooperative_vector_dot", B;
        CooperativeVectorAbs = "cooperative_vector_abs", U;
        CooperativeVectorSign = "cooperative_vector_sign", U;
        CooperativeVectorFloor = "cooperative_vector_floor", U;
        CooperativeVectorCeil = "cooperative_vector_ceil", U;
        CooperativeVectorFract = "cooperative_vector_fract", U;
        CooperativeVectorTrunc = "cooperative_vector_trunc", U;
        CooperativeVectorRound = "cooperative_vector_round", U;
        CooperativeVectorRint = "cooperative_vector_rint", U;
        CooperativeVectorSqrt = "cooperative_vector_sqrt", U;
        CooperativeVectorRsqrt = "cooperative_vector_rsqrt", U;
        CooperativeVectorExp2 = "cooperative_vector_exp2", U;
        CooperativeVectorExp10 = "cooperative_vector_exp10", U;
        CooperativeVectorLog2 = "cooperative_vector_log2", U;
        CooperativeVectorLog10 = "cooperative_vector_log10", U;
        CooperativeVectorSaturate = "cooperative_vector_saturate", U;
        CooperativeVectorIsinf = "cooperative_vector_isinf", U;
        CooperativeVectorIsnan = "cooperative_vector_isnan", U;
        CooperativeVectorSin = "cooperative_vector_sin", U;
        CooperativeVectorCos = "cooperative_vector_cos", U;
        CooperativeVectorTan = "cooperative_vector_tan", U;
        CooperativeVectorAsin = "cooperative_vector_asin", U;
        CooperativeVectorAcos = "cooperative_vector_acos", U;
        CooperativeVectorSinh = "cooperative_vector_sinh", U;
        CooperativeVectorCosh = "cooperative_vector_cosh", U;
        CooperativeVectorAsinh = "cooperative_vector_asinh", U;
        CooperativeVectorAcosh = "cooperative_vector_acosh", U;
        CooperativeVectorAtanh = "cooperative_vector_atanh", U;
        CooperativeVectorMix = "cooperative_vector_mix", T;
        CooperativeVectorLerp = "cooperative_vector_lerp", T;
        CooperativeVectorPow = "cooperative_vector_pow", B;
        CooperativeVectorStep = "cooperative_vector_step", B;
        CooperativeVectorSmoothstep = "cooperative_vector_smoothstep", T;
        CooperativeVectorAdd = "cooperative_vector_add", B;
        CooperativeVectorSub = "cooperative_vector_sub", B;
        CooperativeVectorMul = "cooperative_vector_mul", B;
        CooperativeVectorDiv = "cooperative_vector_div", B;
        CooperativeVectorLess = "cooperative_vector_less", B;
        CooperativeVectorLessEqual = "cooperative_vector_less_equal", B;
        CooperativeVectorGreater = "cooperative_vector_greater", B;
        CooperativeVectorGreaterEqual = "cooperative_vector_greater_equal", B;
        CooperativeVectorEqual = "cooperative_vector_equal", B;
        CooperativeVectorNotEqual = "cooperative_vector_not_equal", B;
    }
}

impl ResourceReadOp {
    /// The element-wise cooperative-vector math reads (`cooperative_vector_dot` …
    /// `cooperative_vector_not_equal`): upstream's verifier and interchange v1 have no
    /// rule for them (xir types them only under `allow-cooperative-vector-math`).
    pub fn is_cooperative_vector_math(self) -> bool {
        self.index() >= Self::CooperativeVectorDot.index()
    }
}

op_table! {
    /// Resource writes (operand counts include the resource operand).
    pub enum ResourceWriteOp {
        BufferWrite = "buffer_write", T;
        BufferVolatileWrite = "buffer_volatile_write", T;
        ByteBufferWrite = "byte_buffer_write", T;
        ByteBufferVolatileWrite = "byte_buffer_volatile_write", T;
        Texture2dWrite = "texture2d_write", T;
        Texture3dWrite = "texture3d_write", T;
        BindlessBufferWrite = "bindless_buffer_write", n(4);
        BindlessByteBufferWrite = "bindless_byte_buffer_write", n(4);
        DeviceAddressWrite = "device_address_write", B;
        RayTracingSetInstanceTransform = "ray_tracing_set_instance_transform", T;
        RayTracingSetInstanceVisibilityMask = "ray_tracing_set_instance_visibility_mask", T;
        RayTracingSetInstanceOpacity = "ray_tracing_set_instance_opacity", T;
        RayTracingSetInstanceUserId = "ray_tracing_set_instance_user_id", T;
        RayTracingSetInstanceMotionMatrix = "ray_tracing_set_instance_motion_matrix", n(4);
        RayTracingSetInstanceMotionSrt = "ray_tracing_set_instance_motion_srt", n(4);
        IndirectDispatchSetKernel = "indirect_dispatch_set_kernel", n(5);
        IndirectDispatchSetCount = "indirect_dispatch_set_count", B;
        CooperativeOuterProductAccumulate = "cooperative_outer_product_accumulate", n(5);
        CooperativeVectorAccumulate = "cooperative_vector_accumulate", T;
        CooperativeVectorStore = "cooperative_vector_store", T;
        BindlessCooperativeVectorStore = "bindless_cooperative_vector_store", n(4);
        CooperativeVectorWorkgroupStore = "cooperative_vector_workgroup_store", T;
    }
}

op_table! {
    /// Thread-group (warp, quad, block) ops.
    pub enum ThreadGroupOp {
        ShaderExecutionReorder = "shader_execution_reorder", Arity::OneOf(&[0, 2]);
        RasterQuadDdx = "raster_quad_ddx", U;
        RasterQuadDdy = "raster_quad_ddy", U;
        WarpIsFirstActiveLane = "warp_is_first_active_lane", n(0);
        WarpFirstActiveLane = "warp_first_active_lane", n(0);
        WarpActiveAllEqual = "warp_active_all_equal", U;
        WarpActiveBitAnd = "warp_active_bit_and", U;
        WarpActiveBitOr = "warp_active_bit_or", U;
        WarpActiveBitXor = "warp_active_bit_xor", U;
        WarpActiveCountBits = "warp_active_count_bits", U;
        WarpActiveMax = "warp_active_max", U;
        WarpActiveMin = "warp_active_min", U;
        WarpActiveProduct = "warp_active_product", U;
        WarpActiveSum = "warp_active_sum", U;
        WarpActiveAll = "warp_active_all", U;
        WarpActiveAny = "warp_active_any", U;
        WarpActiveBitMask = "warp_active_bit_mask", U;
        WarpPrefixCountBits = "warp_prefix_count_bits", U;
        WarpPrefixSum = "warp_prefix_sum", U;
        WarpPrefixProduct = "warp_prefix_product", U;
        WarpReadLane = "warp_read_lane", B;
        WarpReadFirstActiveLane = "warp_read_first_active_lane", U;
        SynchronizeBlock = "synchronize_block", n(0);
        RasterSetZDepth = "raster_set_z_depth", U;
        RasterSetZDepthGreaterEqual = "raster_set_z_depth_greater_equal", U;
        RasterSetZDepthLessEqual = "raster_set_z_depth_less_equal", U;
    }
}

/// The typing class of an arithmetic op: how its operand types relate to its result type
/// (reference §4.2). `R` is the result type; "elem" is the element type of a vector or
/// matrix; the operand count is the op's [`Arity`]. The verifier (`verify/arith.rs`) checks
/// one rule per class, the parser infers undefined operands from
/// [`ArithSignature::operand_has_result_type`] (`text/infer.rs` via [`crate::typing`]) and
/// the test generator (`tools/testgen/src/arith_recipes.rs`) builds one instance per class.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ArithSignature {
    /// `(x: R) -> R`, `R` a numeric scalar or vector.
    NumericUnary,
    /// `(x: R) -> R`, `R` an integer or bool scalar or vector.
    BitwiseUnary,
    /// `(x: R, …) -> R`, `R` a numeric scalar or vector.
    NumericNary,
    /// `(x: R, y: R) -> R`, `R` an integer or bool scalar or vector.
    BitwiseBinary,
    /// `(x: R, s) -> R`, `R` an integer scalar or vector, `s` an integer of its shape.
    Shift,
    /// `(a: T, b: T) -> bool` of `T`'s shape, `T` numeric.
    Ordering,
    /// `(a: T, b: T) -> bool` of `T`'s shape, `T` numeric or bool.
    Equality,
    /// `(v) -> bool`, `v` a bool vector.
    BoolReduce,
    /// `(false: R, true: R, c) -> R`, `c` bool or a bool vector of `R`'s dimension.
    Select,
    /// `(x: R) -> R`, `R` a float scalar or vector.
    FloatUnary,
    /// `(x: R, …) -> R`, `R` a float scalar or vector.
    FloatNary,
    /// `(a: R, b: R, t: R or elem) -> R`, `R` float.
    Lerp,
    /// `(e0: R or elem, e1: R or elem, x: R) -> R`, `R` float.
    Smoothstep,
    /// `(edge: R or elem, x: R) -> R`, `R` float.
    Step,
    /// `(x: R) -> R`, `R` `u32` or a `u32` vector.
    BitCount,
    /// `(x) -> bool` of `x`'s shape, `x` float.
    FloatClass,
    /// `(x: R, e) -> R`, `R` float, `e` an integer of `R`'s shape (or scalar).
    PowInt,
    /// `(a: R, b: R) -> R`, `R` a 3-element float vector.
    Cross,
    /// `(a: V, b: V) -> elem`, `V` a float vector.
    Dot,
    /// `(v) -> elem`, `v` a float vector.
    Length,
    /// `(v: R) -> R`, `R` a float vector.
    FloatVectorUnary,
    /// `(v: R, …) -> R`, `R` a float vector.
    FloatVectorNary,
    /// `(v) -> elem`, `v` a numeric vector.
    Reduce,
    /// `(a, b) -> R`: equal float vectors to `matrix<f32, N>`, or two matrices `R`.
    OuterProduct,
    /// `(m: R) -> R`, `R` a matrix.
    MatrixUnary,
    /// `(a, b) -> R`, `R` a matrix, operands `R` or elem, at least one `R`.
    MatrixComponentwise,
    /// Matrix × matrix, matrix × vector or vector × matrix of matching dimension.
    MatrixLinalgMul,
    /// `(m) -> elem`, `m` a matrix.
    MatrixDeterminant,
    /// One operand per element (column, member) of `R`.
    Aggregate,
    /// `(v, i…) -> R`, `R` a vector of `v`'s element type, one integer index per element.
    Shuffle,
    /// `(agg, i…) -> R`, `R` the indexed element type.
    Extract,
    /// `(agg: R, value, i…) -> R`, `value` of the indexed element type.
    Insert,
}

impl ArithSignature {
    /// Whether operand `k` must have exactly the instruction's result type. This is the
    /// one statement of that typing fact: the verifier checks it (`verify/arith.rs`, with
    /// the class's remaining conditions) and the parser uses it to infer the type of an
    /// undefined operand (`text/infer.rs`).
    #[inline(always)]
    pub const fn operand_has_result_type(self, k: usize) -> bool {
        use ArithSignature as S;
        match self {
            S::NumericNary | S::BitwiseBinary | S::FloatNary | S::Cross | S::FloatVectorNary => {
                true
            }
            S::NumericUnary
            | S::BitwiseUnary
            | S::FloatUnary
            | S::Shift
            | S::BitCount
            | S::PowInt
            | S::FloatVectorUnary
            | S::MatrixUnary
            | S::Insert => k == 0,
            // The two values of `select (false, true, cond)` and `lerp (a, b, t)`.
            S::Select | S::Lerp => k < 2,
            // `x` of `step (edge, x)` and `smoothstep (edge0, edge1, x)`.
            S::Step => k == 1,
            S::Smoothstep => k == 2,
            S::Ordering
            | S::Equality
            | S::BoolReduce
            | S::FloatClass
            | S::Dot
            | S::Length
            | S::Reduce
            | S::OuterProduct
            | S::MatrixComponentwise
            | S::MatrixLinalgMul
            | S::MatrixDeterminant
            | S::Aggregate
            | S::Shuffle
            | S::Extract => false,
        }
    }
}

impl ArithmeticOp {
    /// The operand count when the op works lane by lane: applied to vectors whose lanes
    /// are its scalar operands, it computes a vector of the lanes' scalar results (what
    /// SLP vectorisation may rewrite). `None` for ops that do not (reductions, geometry,
    /// matrices, element access, comparisons producing a scalar over vectors, …).
    pub const fn lanewise_arity(self) -> Option<usize> {
        use ArithmeticOp as A;
        match self {
            A::UnaryMinus
            | A::UnaryBitNot
            | A::Saturate
            | A::Abs
            | A::Clz
            | A::Ctz
            | A::Popcount
            | A::Reverse
            | A::Acos
            | A::Acosh
            | A::Asin
            | A::Asinh
            | A::Atan
            | A::Atanh
            | A::Cos
            | A::Cosh
            | A::Sin
            | A::Sinh
            | A::Tan
            | A::Tanh
            | A::Exp
            | A::Exp2
            | A::Exp10
            | A::Log
            | A::Log2
            | A::Log10
            | A::Sqrt
            | A::Rsqrt
            | A::Ceil
            | A::Floor
            | A::Fract
            | A::Trunc
            | A::Round
            | A::Rint => Some(1),
            A::BinaryAdd
            | A::BinarySub
            | A::BinaryMul
            | A::BinaryDiv
            | A::BinaryMod
            | A::BinaryBitAnd
            | A::BinaryBitOr
            | A::BinaryBitXor
            | A::BinaryShiftLeft
            | A::BinaryShiftRight
            | A::BinaryRotateLeft
            | A::BinaryRotateRight
            | A::Step
            | A::Min
            | A::Max
            | A::Atan2
            | A::Pow
            | A::PowInt
            | A::Copysign => Some(2),
            A::Select | A::Clamp | A::Lerp | A::Smoothstep | A::Fma => Some(3),
            _ => None,
        }
    }

    /// Whether, applied to vectors, lane `k` of the result depends only on lane `k` of
    /// each vector operand: the [lane-wise](Self::lanewise_arity) ops and the lane-wise
    /// predicates (comparisons, `isinf`, `isnan`), whose result is a bool vector of the
    /// operands' dimension. A per-lane choice between two such results is the result on
    /// per-lane chosen operands (what `select-factor` relies on under a bool-vector
    /// condition).
    pub const fn is_componentwise(self) -> bool {
        use ArithmeticOp as A;
        self.lanewise_arity().is_some()
            || matches!(
                self,
                A::BinaryLess
                    | A::BinaryGreater
                    | A::BinaryLessEqual
                    | A::BinaryGreaterEqual
                    | A::BinaryEqual
                    | A::BinaryNotEqual
                    | A::Isinf
                    | A::Isnan
            )
    }

    /// Whether the op is defined for every operand its signature accepts, so that it may
    /// be executed on a path that did not execute it before (hoisted, speculated). Not so:
    /// division and remainder (integer division by zero or `MIN / -1`; floats are kept
    /// out as well, as upstream does), shifts (by the width or
    /// more), and `shuffle` / `insert` / `extract` (dynamic indices out of range) —
    /// upstream's speculation-safe set, which LICM and if-conversion share.
    pub const fn is_speculatable(self) -> bool {
        !matches!(
            self,
            ArithmeticOp::BinaryDiv
                | ArithmeticOp::BinaryMod
                | ArithmeticOp::BinaryShiftLeft
                | ArithmeticOp::BinaryShiftRight
                | ArithmeticOp::Shuffle
                | ArithmeticOp::Insert
                | ArithmeticOp::Extract
        )
    }

    /// Whether swapping the two operands of this binary op never changes the result, bit
    /// for bit, for operands whose scalar element type is a float (`float`) or an integer
    /// or boolean (`!float`). Float `add`, `mul`, `min` and `max` are excluded: swapping
    /// may change which NaN payload propagates, and `min`/`max` of `+0`/`-0`.
    pub const fn is_commutative(self, float: bool) -> bool {
        match self {
            ArithmeticOp::BinaryBitAnd
            | ArithmeticOp::BinaryBitOr
            | ArithmeticOp::BinaryBitXor
            | ArithmeticOp::BinaryEqual
            | ArithmeticOp::BinaryNotEqual => true,
            ArithmeticOp::BinaryAdd
            | ArithmeticOp::BinaryMul
            | ArithmeticOp::Min
            | ArithmeticOp::Max => !float,
            _ => false,
        }
    }

    /// Whether operand `k` must have exactly the instruction's result type (read from the
    /// op's [`ArithSignature`]).
    #[inline(always)]
    pub const fn operand_has_result_type(self, k: usize) -> bool {
        self.signature().operand_has_result_type(k)
    }
}

/// The bindless-access attribute of resource instructions: two independent bits.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct BindlessAccess {
    /// `[typed]` (bit 0).
    pub typed: bool,
    /// `[uniform]` (bit 1).
    pub uniform: bool,
}

impl BindlessAccess {
    /// Upstream encoding: typed = 1, uniform = 2.
    pub fn encoded(self) -> u8 {
        (self.typed as u8) | ((self.uniform as u8) << 1)
    }
    /// Decodes upstream's 2-bit encoding (`None` if other bits are set).
    pub fn decode(v: u64) -> Option<Self> {
        (v <= 3).then_some(Self {
            typed: v & 1 != 0,
            uniform: v & 2 != 0,
        })
    }
    /// True when neither bit is set.
    pub fn is_default(self) -> bool {
        !self.typed && !self.uniform
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_table_matches_upstream_numbering() {
        assert_eq!(ArithmeticOp::ALL.len(), 93);
        assert_eq!(ArithmeticOp::Select.index(), 22);
        assert_eq!(ArithmeticOp::Fma.index(), 66);
        assert_eq!(ArithmeticOp::Extract.index(), 92);
        for op in ArithmeticOp::ALL {
            assert_eq!(ArithmeticOp::from_name(op.name()), Some(*op));
        }
    }

    #[test]
    fn unique_names() {
        let mut names: Vec<&str> = ResourceQueryOp::ALL.iter().map(|o| o.name()).collect();
        names.extend(ResourceReadOp::ALL.iter().map(|o| o.name()));
        names.extend(ResourceWriteOp::ALL.iter().map(|o| o.name()));
        let n = names.len();
        names.sort();
        names.dedup();
        assert_eq!(n, names.len());
    }
}

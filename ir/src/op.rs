//! The op table: every op enum of XIR with its upstream spelling and operand arity.
//!
//! This file is the single source of truth read by the lexer/parser (`from_name`), the
//! printers (`name`), the interchange formats (`index`/`from_index`, frozen upstream
//! order) and the verifier (`arity`, `is_bindless`). Adding an op means adding one row here.

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

/// Declares an op enum from a table of `Variant = "spelling", arity;` rows.
macro_rules! op_table {
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
    /// Arithmetic ops (93, upstream index order).
    pub enum ArithmeticOp {
        UnaryMinus = "unary_minus", U;
        UnaryBitNot = "unary_bit_not", U;
        BinaryAdd = "binary_add", B;
        BinarySub = "binary_sub", B;
        BinaryMul = "binary_mul", B;
        BinaryDiv = "binary_div", B;
        BinaryMod = "binary_mod", B;
        BinaryBitAnd = "binary_bit_and", B;
        BinaryBitOr = "binary_bit_or", B;
        BinaryBitXor = "binary_bit_xor", B;
        BinaryShiftLeft = "binary_shift_left", B;
        BinaryShiftRight = "binary_shift_right", B;
        BinaryRotateLeft = "binary_rotate_left", B;
        BinaryRotateRight = "binary_rotate_right", B;
        BinaryLess = "binary_less", B;
        BinaryGreater = "binary_greater", B;
        BinaryLessEqual = "binary_less_equal", B;
        BinaryGreaterEqual = "binary_greater_equal", B;
        BinaryEqual = "binary_equal", B;
        BinaryNotEqual = "binary_not_equal", B;
        All = "all", U;
        Any = "any", U;
        Select = "select", T;
        Clamp = "clamp", T;
        Saturate = "saturate", U;
        Lerp = "lerp", T;
        Smoothstep = "smoothstep", T;
        Step = "step", B;
        Abs = "abs", U;
        Min = "min", B;
        Max = "max", B;
        Clz = "clz", U;
        Ctz = "ctz", U;
        Popcount = "popcount", U;
        Reverse = "reverse", U;
        Isinf = "isinf", U;
        Isnan = "isnan", U;
        Acos = "acos", U;
        Acosh = "acosh", U;
        Asin = "asin", U;
        Asinh = "asinh", U;
        Atan = "atan", U;
        Atan2 = "atan2", B;
        Atanh = "atanh", U;
        Cos = "cos", U;
        Cosh = "cosh", U;
        Sin = "sin", U;
        Sinh = "sinh", U;
        Tan = "tan", U;
        Tanh = "tanh", U;
        Exp = "exp", U;
        Exp2 = "exp2", U;
        Exp10 = "exp10", U;
        Log = "log", U;
        Log2 = "log2", U;
        Log10 = "log10", U;
        Pow = "pow", B;
        PowInt = "pow_int", B;
        Sqrt = "sqrt", U;
        Rsqrt = "rsqrt", U;
        Ceil = "ceil", U;
        Floor = "floor", U;
        Fract = "fract", U;
        Trunc = "trunc", U;
        Round = "round", U;
        Rint = "rint", U;
        Fma = "fma", T;
        Copysign = "copysign", B;
        Cross = "cross", B;
        Dot = "dot", B;
        Length = "length", U;
        LengthSquared = "length_squared", U;
        Normalize = "normalize", U;
        Faceforward = "faceforward", T;
        Reflect = "reflect", B;
        ReduceSum = "reduce_sum", U;
        ReduceProduct = "reduce_product", U;
        ReduceMin = "reduce_min", U;
        ReduceMax = "reduce_max", U;
        OuterProduct = "outer_product", B;
        MatrixCompNeg = "matrix_comp_neg", U;
        MatrixCompAdd = "matrix_comp_add", B;
        MatrixCompSub = "matrix_comp_sub", B;
        MatrixCompMul = "matrix_comp_mul", B;
        MatrixCompDiv = "matrix_comp_div", B;
        MatrixLinalgMul = "matrix_linalg_mul", B;
        MatrixDeterminant = "matrix_determinant", U;
        MatrixTranspose = "matrix_transpose", U;
        MatrixInverse = "matrix_inverse", U;
        Aggregate = "aggregate", Arity::AtLeast(1);
        Shuffle = "shuffle", Arity::AtLeast(2);
        Insert = "insert", Arity::AtLeast(3);
        Extract = "extract", Arity::AtLeast(2);
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

impl ArithmeticOp {
    /// Whether operand `k` must have exactly the instruction's result type. This is the
    /// one statement of that typing fact: the verifier checks it (`verify/arith.rs`, with
    /// the op's remaining conditions) and the parser uses it to infer the type of an
    /// undefined operand (`text/infer.rs`).
    pub const fn operand_has_result_type(self, k: usize) -> bool {
        use ArithmeticOp as A;
        match self {
            // Every operand.
            A::BinaryAdd
            | A::BinarySub
            | A::BinaryMul
            | A::BinaryDiv
            | A::BinaryMod
            | A::BinaryBitAnd
            | A::BinaryBitOr
            | A::BinaryBitXor
            | A::Min
            | A::Max
            | A::Clamp
            | A::Atan2
            | A::Pow
            | A::Copysign
            | A::Fma
            | A::Cross
            | A::Faceforward
            | A::Reflect => true,
            // The first operand.
            A::UnaryMinus
            | A::UnaryBitNot
            | A::Abs
            | A::Saturate
            | A::BinaryShiftLeft
            | A::BinaryShiftRight
            | A::BinaryRotateLeft
            | A::BinaryRotateRight
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
            | A::Rint
            | A::PowInt
            | A::Normalize
            | A::MatrixCompNeg
            | A::MatrixTranspose
            | A::MatrixInverse
            | A::Insert => k == 0,
            // The two values of `select (false, true, cond)` and `lerp (a, b, t)`.
            A::Select | A::Lerp => k < 2,
            // `x` of `step (edge, x)` and `smoothstep (edge0, edge1, x)`.
            A::Step => k == 1,
            A::Smoothstep => k == 2,
            _ => false,
        }
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

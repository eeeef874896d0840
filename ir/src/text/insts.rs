//! Grammar actions for instruction bodies: every `Body` builder and `finish_inst`,
//! which places the instruction in the current block.

use super::ctx::{
    BArg, Body, Ctx, Head, Stmt, SwitchFix, Ty, UndefUse, as_undef_placeholder, err_value,
};
use super::items::Sp;
use crate::diag::{Diagnostic, Span};
use crate::inst::{
    CoroAttrValue, CoroExtension, CoroExtensionItem, CoroExtensionKind, CoroSuspendData, InstData,
    InstId, InstKind,
};
use crate::metadata::MetadataList;
use crate::op::*;
use crate::value::Value;
use smallvec::SmallVec;

/// Operand list.
pub type Ops = SmallVec<[Value; 3]>;

/// A kernel block size.
pub type Dims = [u32; 3];

/// Exports and extension groups after `coro_suspend … %frame`.
#[derive(Default)]
pub struct CoroTail {
    /// `export "name"=%v`.
    pub exports: Vec<(String, Value)>,
    /// Extension groups and their binding values.
    pub extensions: Vec<(CoroExtension, Vec<Value>)>,
}

/// One item of an extension group, as parsed.
pub enum ExtItem {
    /// `binding "name" access=A lifetime=L value=%v`.
    Binding(CoroExtensionItem, Value),
    /// `attribute "name" type=I value=V`.
    Attribute(CoroExtensionItem),
    /// Malformed (reported).
    Err,
}

/// A switch case as parsed: label token and block.
pub type Case<'s> = (Sp<'s>, BArg);

impl<'s> Ctx<'s> {
    /// The `;` of an instruction (the grammar's action): builds it from the body the
    /// `Body` action left in `ctx.body` and places it in the current block.
    pub fn finish_inst(&mut self, md: Option<MetadataList>, head: Head<'s>, end: usize) {
        let body = self.body.take().unwrap_or_else(Body::err);
        self.finish_inst_body(md, head, body, end);
    }

    /// [`Self::finish_inst`] with the body passed directly (the fast reader's way).
    #[inline]
    pub fn finish_inst_body(
        &mut self,
        md: Option<MetadataList>,
        head: Head<'s>,
        body: Body,
        end: usize,
    ) {
        self.stmt = Stmt::None;
        let span = Span::new(head.id_span.start as usize, end);
        let ty = match head.ty {
            Ty::T(t) => Some(t),
            Ty::Void | Ty::Err => None,
        };
        let labels = self.pending_labels.take();
        let data = InstData {
            kind: match body.kind {
                Some(k) => k,
                None => InstKind::Clock,
            },
            ty,
            operands: body.ops,
            block: None,
            metadata: md.unwrap_or_default(),
        };
        let Some(i) = self.place_inst(&head, data, span) else {
            return;
        };
        if labels.is_none() && self.unresolved_undefs == 0 {
            return;
        }
        self.note_inst_fixups(i, labels, span.start);
    }

    /// Records what the end of the module fixes in instruction `i`: its switch labels
    /// and its operands that are undefined-value placeholders.
    #[inline(never)]
    fn note_inst_fixups(&mut self, i: InstId, labels: Option<Vec<(i128, Span)>>, pos: u32) {
        let Some(fs) = self.func.as_mut() else { return };
        let f = fs.id;
        if let Some(labels) = labels {
            fs.switch_fixes.push(SwitchFix { inst: i, labels });
        }
        if self.unresolved_undefs > 0 {
            let ops = &self.module.functions[f].insts[i].operands;
            for (k, v) in ops.iter().enumerate() {
                if let Some(u) = as_undef_placeholder(*v) {
                    self.undef_uses.push(UndefUse {
                        func: f,
                        inst: i,
                        index: k as u32,
                        undef: u,
                        pos,
                    });
                }
            }
        }
    }

    /// `%N: T =`.
    pub fn inst_head(&mut self, id: (super::lexer::ValRef<'s>, Span), ty: Ty) -> Head<'s> {
        self.stmt = Stmt::Inst;
        Head {
            id: id.0,
            id_span: id.1,
            ty,
        }
    }

    /// A block operand that must not be `null`.
    fn need(&mut self, b: BArg, role: &str) -> Value {
        match b.block {
            Some(b) => Value::Block(b),
            None => {
                if b.ok {
                    self.push(
                        Diagnostic::error(format!("the {role} block cannot be null"), Some(b.span))
                            .with_note("xir has no empty slot for this block"),
                    );
                }
                err_value()
            }
        }
    }

    /// Looks an op up by name, reporting unknown ones with a suggestion.
    pub fn op<T: Copy>(
        &mut self,
        what: &str,
        w: Sp<'s>,
        from: fn(&str) -> Option<T>,
        all: &[T],
        name: fn(T) -> &'static str,
    ) -> Option<T> {
        if let Some(op) = from(w.0) {
            return Some(op);
        }
        let mut d = Diagnostic::error(format!("unknown {what} op '{}'", w.0), Some(w.1));
        if let Some(s) = super::syntax::suggest(w.0, all.iter().map(|o| name(*o))) {
            d = d.with_help(format!("did you mean '{s}'?"));
        }
        self.push(d);
        None
    }

    /// `if %c, then B, else B, merge B`.
    pub fn b_if(&mut self, c: Value, t: BArg, e: BArg, m: BArg) -> Body {
        let t = self.need(t, "'then'");
        let e = self.need(e, "'else'");
        Body::new(InstKind::If { merge: m.block }, [c, t, e])
    }

    /// `switch` / `indexed_branch` (no merge).
    pub fn b_switch(
        &mut self,
        s: Value,
        cases: Vec<Case<'s>>,
        d: BArg,
        merge: Option<BArg>,
    ) -> Body {
        let mut ops: Ops = SmallVec::with_capacity(cases.len() + 2);
        ops.push(s);
        ops.push(self.need(d, "default"));
        let mut labels = Vec::with_capacity(cases.len());
        for ((text, span), b) in cases {
            ops.push(self.need(b, "case"));
            match text.parse::<i128>() {
                Ok(v) => labels.push((v, span)),
                Err(_) => self.error(format!("invalid case label '{text}'"), span),
            }
        }
        self.pending_labels = Some(labels);
        let kind = match merge {
            Some(m) => InstKind::Switch {
                labels: Vec::new(),
                merge: m.block,
            },
            None => InstKind::IndexedBranch { labels: Vec::new() },
        };
        Body {
            kind: Some(kind),
            ops,
        }
    }

    /// `loop prepare B, body B, update B, merge B`.
    pub fn b_loop(&mut self, p: BArg, b: BArg, u: BArg, m: BArg) -> Body {
        let p = self.need(p, "prepare");
        let kind = InstKind::Loop {
            body: b.block,
            update: u.block,
            merge: m.block,
        };
        Body::new(kind, [p])
    }

    /// `simple_loop`, `outline`, `ray_query_loop`: one operand block and a merge.
    pub fn b_region(&mut self, which: u8, b: BArg, m: BArg) -> Body {
        let (kind, role) = match which {
            0 => (InstKind::SimpleLoop { merge: m.block }, "body"),
            1 => (InstKind::Outline { merge: m.block }, "body"),
            _ => (InstKind::RayQueryLoop { merge: m.block }, "dispatch"),
        };
        let b = self.need(b, role);
        Body::new(kind, [b])
    }

    /// `autodiff [forward N] entry B, merge B`.
    pub fn b_autodiff(&mut self, fwd: Option<Sp<'s>>, e: BArg, m: BArg) -> Body {
        let e = self.need(e, "entry");
        let n = match fwd {
            None => 0,
            Some((t, span)) => match t.parse::<u32>() {
                Ok(n) if n > 0 => n,
                _ => {
                    self.error(
                        "forward gradient count must be a positive 32-bit integer",
                        span,
                    );
                    return Body::err();
                }
            },
        };
        let kind = InstKind::AutodiffScope {
            merge: m.block,
            forward: fwd.is_some(),
            n_forward_grads: n,
        };
        Body::new(kind, [e])
    }

    /// `ray_query_dispatch %q, exit B, on_surface_candidate B, on_procedural_candidate B`.
    pub fn b_rq_dispatch(&mut self, q: Value, x: BArg, s: BArg, p: BArg) -> Body {
        let x = self.need(x, "exit");
        let s = self.need(s, "on_surface_candidate");
        let p = self.need(p, "on_procedural_candidate");
        Body::new(InstKind::RayQueryDispatch, [q, x, s, p])
    }

    /// `br`, `break`, `continue`.
    pub fn b_jump(&mut self, kind: InstKind, t: BArg) -> Body {
        let t = self.need(t, "target");
        Body::new(kind, [t])
    }

    /// `cond_br %c, B, B`.
    pub fn b_cond_br(&mut self, c: Value, t: BArg, f: BArg) -> Body {
        let t = self.need(t, "true");
        let f = self.need(f, "false");
        Body::new(InstKind::ConditionalBranch, [c, t, f])
    }

    /// An optional message string (`unreachable`, `assert`, `assume`).
    pub fn message(&mut self, s: Option<Sp<'s>>) -> Option<String> {
        match s {
            None => Some(String::new()),
            Some(s) => self.unescape(s),
        }
    }

    fn u32_word(&mut self, w: Sp<'s>, what: &str) -> Option<u32> {
        let r = w.0.parse::<u32>().ok();
        if r.is_none() {
            self.error(format!("{what} must be an unsigned 32-bit integer"), w.1);
        }
        r
    }

    /// `coro_suspend TOKEN "name" %frame|null …`.
    pub fn b_coro_suspend(
        &mut self,
        token: Sp<'s>,
        name: Sp<'s>,
        frame: Option<Value>,
        tail: CoroTail,
    ) -> Body {
        let (Some(token), Some(name)) =
            (self.u32_word(token, "suspend token"), self.unescape(name))
        else {
            return Body::err();
        };
        let mut ops: Ops = SmallVec::new();
        ops.extend(frame);
        let mut data = CoroSuspendData {
            token,
            name,
            has_frame: frame.is_some(),
            exports: Vec::with_capacity(tail.exports.len()),
            extensions: Vec::with_capacity(tail.extensions.len()),
        };
        for (n, v) in tail.exports {
            data.exports.push(n);
            ops.push(v);
        }
        for (e, vals) in tail.extensions {
            data.extensions.push(e);
            ops.extend(vals);
        }
        Body::with_ops(InstKind::CoroSuspend(Box::new(data)), ops)
    }

    /// `, export "name"=%v`.
    pub fn coro_export(&mut self, mut tail: CoroTail, name: Sp<'s>, v: Value) -> CoroTail {
        if let Some(n) = self.unescape(name) {
            tail.exports.push((n, v));
        }
        tail
    }

    /// `, extension "schema" vN annotation|semantic fallback=F { items }`.
    #[allow(clippy::too_many_arguments)]
    pub fn coro_extension(
        &mut self,
        mut tail: CoroTail,
        schema: Sp<'s>,
        ver: Sp<'s>,
        kind: Sp<'s>,
        fb_kw: Sp<'s>,
        fb: Sp<'s>,
        items: Vec<ExtItem>,
    ) -> CoroTail {
        let schema = self.unescape(schema);
        let version = match ver.0.strip_prefix('v').map(str::parse::<u32>) {
            Some(Ok(v)) => Some(v),
            _ => {
                self.error("expected an extension version like 'v1'", ver.1);
                None
            }
        };
        let kind = match kind.0 {
            "annotation" => Some(CoroExtensionKind::Annotation),
            "semantic" => Some(CoroExtensionKind::Semantic),
            _ => {
                self.error("expected 'annotation' or 'semantic'", kind.1);
                None
            }
        };
        if fb_kw.0 != "fallback" {
            self.error("expected 'fallback'", fb_kw.1);
        }
        let fallback = self.u32_word(fb, "fallback");
        let mut out = Vec::with_capacity(items.len());
        let mut vals = Vec::new();
        let mut ok = true;
        for it in items {
            match it {
                ExtItem::Binding(b, v) => {
                    out.push(b);
                    vals.push(v);
                }
                ExtItem::Attribute(a) => out.push(a),
                ExtItem::Err => ok = false,
            }
        }
        if let (Some(schema), Some(version), Some(kind), Some(fallback), true) =
            (schema, version, kind, fallback, ok)
        {
            let ext = CoroExtension {
                schema,
                version,
                kind,
                fallback,
                items: out,
            };
            tail.extensions.push((ext, vals));
        }
        tail
    }

    fn expect_word(&mut self, w: Sp<'s>, want: &str) -> bool {
        if w.0 != want {
            self.error(format!("expected '{want}', found '{}'", w.0), w.1);
            return false;
        }
        true
    }

    /// `binding "name" access=A lifetime=L value=%v`.
    #[allow(clippy::too_many_arguments)]
    pub fn ext_binding(
        &mut self,
        kw: Sp<'s>,
        name: Sp<'s>,
        a_kw: Sp<'s>,
        a: Sp<'s>,
        l_kw: Sp<'s>,
        l: Sp<'s>,
        v_kw: Sp<'s>,
        v: Value,
    ) -> ExtItem {
        let ok = self.expect_word(kw, "binding")
            & self.expect_word(a_kw, "access")
            & self.expect_word(l_kw, "lifetime")
            & self.expect_word(v_kw, "value");
        let name = self.unescape(name);
        let access = self.u32_word(a, "access");
        let lifetime = self.u32_word(l, "lifetime");
        match (ok, name, access, lifetime) {
            (true, Some(name), Some(access), Some(lifetime)) => ExtItem::Binding(
                CoroExtensionItem::Binding {
                    name,
                    access,
                    lifetime,
                },
                v,
            ),
            _ => ExtItem::Err,
        }
    }

    /// `attribute "name" type=I value=V`.
    pub fn ext_attribute(
        &mut self,
        kw: Sp<'s>,
        name: Sp<'s>,
        ty: Sp<'s>,
        v_kw: Sp<'s>,
        v: Sp<'s>,
    ) -> ExtItem {
        let ok = self.expect_word(kw, "attribute") & self.expect_word(v_kw, "value");
        let name = self.unescape(name);
        let value = match ty.0 {
            "0" if v.0.starts_with('"') => self.unescape(v).map(CoroAttrValue::String),
            "1" if v.0 == "true" || v.0 == "false" => Some(CoroAttrValue::Bool(v.0 == "true")),
            "2" => v.0.parse().ok().map(CoroAttrValue::Int),
            "3" => v.0.parse().ok().map(CoroAttrValue::UInt),
            "4" => v.0.parse().ok().map(CoroAttrValue::Float),
            _ => None,
        };
        if value.is_none() {
            self.error(
                format!("invalid value for an attribute of type={}", ty.0),
                Span::new(ty.1.start as usize, v.1.end as usize),
            );
        }
        match (ok, name, value) {
            (true, Some(name), Some(value)) => {
                ExtItem::Attribute(CoroExtensionItem::Attribute { name, value })
            }
            _ => ExtItem::Err,
        }
    }

    /// `coro_resume TOKEN %frame|null`.
    pub fn b_coro_resume(&mut self, token: Sp<'s>, frame: Option<Value>) -> Body {
        let Some(token) = self.u32_word(token, "resume token") else {
            return Body::err();
        };
        let kind = InstKind::CoroResume {
            token,
            has_frame: frame.is_some(),
        };
        Body::with_ops(kind, frame.into_iter().collect())
    }

    /// One `(%v, %b)` of a phi (appended to `ops` as an edge, see [`crate::phi`]).
    pub fn phi_inc(&mut self, v: Value, b: BArg) {
        match b.block {
            Some(blk) => {
                self.ops.push(v);
                self.ops.push(Value::Block(blk));
            }
            None if b.ok => self.error("phi incoming block cannot be null", b.span),
            None => {}
        }
    }

    /// `phi (…), (…)` from the accumulated incomings.
    pub fn b_phi(&mut self) -> Body {
        Body {
            kind: Some(InstKind::Phi),
            ops: std::mem::take(&mut self.ops),
        }
    }

    /// Starts an operand list.
    #[inline]
    pub fn ops_first(&mut self, v: Value) {
        self.ops.clear();
        self.ops.push(v);
    }

    /// The accumulated operand list (or none).
    #[inline]
    fn take_ops(&mut self, has: bool) -> Ops {
        if has {
            std::mem::take(&mut self.ops)
        } else {
            Ops::new()
        }
    }

    /// An instruction whose operands are exactly the operand list.
    pub fn b_ops(&mut self, kind: InstKind, has: bool) -> Body {
        Body {
            kind: Some(kind),
            ops: self.take_ops(has),
        }
    }

    /// `lead` operands followed by the accumulated tail (`call`, `ray_query_pipeline`).
    pub fn b_lead_ops(&mut self, kind: InstKind, lead: &[Value]) -> Body {
        let mut ops = Ops::with_capacity(lead.len() + self.ops.len());
        ops.extend_from_slice(lead);
        ops.extend_from_slice(&self.ops);
        Body {
            kind: Some(kind),
            ops,
        }
    }

    /// `alloca local|shared`.
    pub fn b_alloca(&mut self, w: Sp<'s>) -> Body {
        match self.op(
            "alloca",
            w,
            AllocaOp::from_name,
            AllocaOp::ALL,
            AllocaOp::name,
        ) {
            Some(op) => Body::new(InstKind::Alloca(op), []),
            None => Body::err(),
        }
    }

    /// `atomic OP ops`.
    pub fn b_atomic(&mut self, w: Sp<'s>) -> Body {
        let ops = self.take_ops(true);
        match self.op(
            "atomic",
            w,
            AtomicOp::from_name,
            AtomicOp::ALL,
            AtomicOp::name,
        ) {
            Some(op) => Body::with_ops(InstKind::Atomic(op), ops),
            None => Body::err(),
        }
    }

    /// `arithmetic OP ops`.
    pub fn b_arith(&mut self, w: Sp<'s>, has: bool) -> Body {
        let ops = self.take_ops(has);
        match self.op(
            "arithmetic",
            w,
            ArithmeticOp::from_name,
            ArithmeticOp::ALL,
            ArithmeticOp::name,
        ) {
            Some(op) => Body {
                kind: Some(InstKind::Arithmetic(op)),
                ops,
            },
            None => Body::err(),
        }
    }

    /// `arithmetic OP a[, b[, c]]` (the common arities without an operand-list reduction).
    pub fn b_arith_n(&mut self, w: Sp<'s>, ops: &[Value]) -> Body {
        match ArithmeticOp::from_name(w.0) {
            Some(op) => Body {
                kind: Some(InstKind::Arithmetic(op)),
                ops: super::ctx::ops_from(ops),
            },
            None => self.b_arith(w, false),
        }
    }

    /// `arithmetic OP a, b, c, d, …`.
    pub fn b_arith_tail(&mut self, w: Sp<'s>, lead: &[Value]) -> Body {
        let mut b = self.b_arith(w, false);
        if b.kind.is_some() {
            b.ops.extend_from_slice(lead);
            b.ops.extend_from_slice(&self.ops);
        }
        b
    }

    /// `thread_group OP ops`.
    pub fn b_thread_group(&mut self, w: Sp<'s>, has: bool) -> Body {
        let ops = self.take_ops(has);
        match self.op(
            "thread group",
            w,
            ThreadGroupOp::from_name,
            ThreadGroupOp::ALL,
            ThreadGroupOp::name,
        ) {
            Some(op) => Body::with_ops(InstKind::ThreadGroup(op), ops),
            None => Body::err(),
        }
    }

    /// The `[typed, uniform]` attribute of a resource instruction.
    fn bindless(
        &mut self,
        attr: Option<Vec<Sp<'s>>>,
        bindless_op: bool,
        op_span: Span,
    ) -> BindlessAccess {
        let mut acc = BindlessAccess::default();
        let Some(words) = attr else { return acc };
        for (w, span) in words {
            let slot = match w {
                "typed" => &mut acc.typed,
                "uniform" => &mut acc.uniform,
                _ => {
                    self.error(
                        format!("unknown resource attribute '{w}' (expected 'typed' or 'uniform')"),
                        span,
                    );
                    continue;
                }
            };
            if *slot {
                self.error(format!("duplicate resource attribute '{w}'"), span);
            }
            *slot = true;
        }
        if !acc.is_default() && !bindless_op {
            self.error(
                "only bindless resource ops take [typed] or [uniform]",
                op_span,
            );
        }
        acc
    }

    /// `resource_query|resource_read|resource_write OP [attr] ops`.
    pub fn b_resource(
        &mut self,
        which: u8,
        w: Sp<'s>,
        attr: Option<Vec<Sp<'s>>>,
        has: bool,
    ) -> Body {
        let ops = self.take_ops(has);
        let kind = match which {
            0 => self
                .op(
                    "resource query",
                    w,
                    ResourceQueryOp::from_name,
                    ResourceQueryOp::ALL,
                    ResourceQueryOp::name,
                )
                .map(|op| InstKind::ResourceQuery(op, self.bindless(attr, op.is_bindless(), w.1))),
            1 => self
                .op(
                    "resource read",
                    w,
                    ResourceReadOp::from_name,
                    ResourceReadOp::ALL,
                    ResourceReadOp::name,
                )
                .map(|op| InstKind::ResourceRead(op, self.bindless(attr, op.is_bindless(), w.1))),
            _ => self
                .op(
                    "resource write",
                    w,
                    ResourceWriteOp::from_name,
                    ResourceWriteOp::ALL,
                    ResourceWriteOp::name,
                )
                .map(|op| InstKind::ResourceWrite(op, self.bindless(attr, op.is_bindless(), w.1))),
        };
        Body { kind, ops }
    }

    /// `ray_query_object_read|write OP ops`.
    pub fn b_rq_object(&mut self, write: bool, w: Sp<'s>) -> Body {
        let ops = self.take_ops(true);
        let kind = if write {
            self.op(
                "ray query write",
                w,
                RayQueryObjectWriteOp::from_name,
                RayQueryObjectWriteOp::ALL,
                RayQueryObjectWriteOp::name,
            )
            .map(InstKind::RayQueryObjectWrite)
        } else {
            self.op(
                "ray query read",
                w,
                RayQueryObjectReadOp::from_name,
                RayQueryObjectReadOp::ALL,
                RayQueryObjectReadOp::name,
            )
            .map(InstKind::RayQueryObjectRead)
        };
        Body { kind, ops }
    }

    /// `@autodiff_op ops`.
    pub fn b_autodiff_intrinsic(&mut self, w: Sp<'s>, has: bool) -> Body {
        let ops = self.take_ops(has);
        let kind = self
            .op(
                "autodiff",
                w,
                AutodiffIntrinsicOp::from_name,
                AutodiffIntrinsicOp::ALL,
                AutodiffIntrinsicOp::name,
            )
            .map(InstKind::AutodiffIntrinsic);
        Body { kind, ops }
    }

    /// `cast static_cast|bitwise_cast %v`.
    pub fn b_cast(&mut self, w: Sp<'s>, v: Value) -> Body {
        match self.op("cast", w, CastOp::from_name, CastOp::ALL, CastOp::name) {
            Some(op) => Body::new(InstKind::Cast(op), [v]),
            None => Body::err(),
        }
    }

    /// `print "fmt" ops`.
    pub fn b_print(&mut self, fmt: Sp<'s>, has: bool) -> Body {
        let ops = self.take_ops(has);
        match self.unescape(fmt) {
            Some(format) => Body::with_ops(InstKind::Print { format }, ops),
            None => Body::err(),
        }
    }

    /// `debug_break [callback(0xHEX)] ops`.
    pub fn b_debug_break(&mut self, cb: Option<Sp<'s>>, has: bool) -> Body {
        let ops = self.take_ops(has);
        let callback = match cb {
            None => None,
            Some((t, span)) => {
                let v = t
                    .strip_prefix("0x")
                    .and_then(|h| u64::from_str_radix(h, 16).ok());
                if v.is_none() {
                    self.error(
                        "callback handle must be a 0x-prefixed 64-bit hex number",
                        span,
                    );
                    return Body::err();
                }
                v
            }
        };
        Body::with_ops(InstKind::DebugBreak { callback }, ops)
    }

    /// `assert|assume ["msg"] %c`.
    pub fn b_assert(&mut self, assume: bool, msg: Option<Sp<'s>>, c: Value) -> Body {
        let Some(message) = self.message(msg) else {
            return Body::err();
        };
        let kind = if assume {
            InstKind::Assume { message }
        } else {
            InstKind::Assert { message }
        };
        Body::new(kind, [c])
    }
}

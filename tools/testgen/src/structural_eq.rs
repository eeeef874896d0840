//! Structural equality of two modules: the test oracle for text round trips and for
//! "this pass changed nothing".
//!
//! Entities are matched by correspondence, not by arena handle: constants by their
//! position in the live list, functions by module order, arguments by signature order,
//! undefined values by type, special registers by tag, and blocks by a canonical order
//! derived from the code itself (depth first from the body through every block reference
//! — operands, then merge/body/update/phi blocks — then the owned blocks not reached, in
//! owned order, each followed by what it reaches). The owned block order itself is not
//! compared. Instructions correspond by (canonical block, position). Every fact is
//! compared: types (struct alignment included), constant bytes, metadata on every entity,
//! function kinds and block sizes, argument kinds, every field of every instruction kind,
//! operands and result types. All walks are iterative.

use rustc_hash::{FxHashMap, FxHashSet};
use xir_ir::entity::EntityRef;
use xir_ir::function::Function;
use xir_ir::inst::{InstId, InstKind};
use xir_ir::metadata::Metadata;
use xir_ir::module::Module;
use xir_ir::types::{Type, TypeData};
use xir_ir::value::{BlockId, Value};

/// `None` if `a` and `b` are structurally equal, otherwise a description of the first
/// difference found.
pub fn structural_diff(a: &Module, b: &Module) -> Option<String> {
    Cmp {
        a,
        b,
        seen_types: FxHashSet::default(),
    }
    .module()
    .err()
}

type R = Result<(), String>;

struct Cmp<'m> {
    a: &'m Module,
    b: &'m Module,
    seen_types: FxHashSet<(Type, Type)>,
}

/// Per-function correspondence tables.
struct Side {
    blocks: Vec<BlockId>,
    block_index: FxHashMap<BlockId, usize>,
    inst_pos: FxHashMap<InstId, (usize, usize)>,
}

fn md_eq(what: &str, a: &[Metadata], b: &[Metadata]) -> R {
    if a == b {
        Ok(())
    } else {
        Err(format!("{what}: metadata differs: {a:?} vs {b:?}"))
    }
}

impl Cmp<'_> {
    fn module(&mut self) -> R {
        let (a, b) = (self.a, self.b);
        md_eq("module", &a.metadata, &b.metadata)?;
        let ca: Vec<_> = a.live_constants().collect();
        let cb: Vec<_> = b.live_constants().collect();
        if ca.len() != cb.len() {
            return Err(format!(
                "constant count differs: {} vs {}",
                ca.len(),
                cb.len()
            ));
        }
        for (k, (x, y)) in ca.iter().zip(&cb).enumerate() {
            let (x, y) = (&a.constants[*x], &b.constants[*y]);
            let what = format!("constant #{k}");
            self.ty_eq(&what, Some(x.ty), Some(y.ty))?;
            if x.bytes != y.bytes {
                return Err(format!(
                    "{what}: bytes differ: {:02x?} vs {:02x?}",
                    x.bytes, y.bytes
                ));
            }
            md_eq(&what, &x.metadata, &y.metadata)?;
        }
        self.undefs()?;
        let mut sa: Vec<_> = a.special_registers.iter().collect();
        let mut sb: Vec<_> = b.special_registers.iter().collect();
        sa.sort_by_key(|(r, _)| *r);
        sb.sort_by_key(|(r, _)| *r);
        if sa != sb {
            return Err(format!("special registers differ: {sa:?} vs {sb:?}"));
        }
        if a.func_order.len() != b.func_order.len() {
            return Err(format!(
                "function count differs: {} vs {}",
                a.func_order.len(),
                b.func_order.len()
            ));
        }
        for k in 0..a.func_order.len() {
            self.function(k)?;
        }
        Ok(())
    }

    fn undefs(&mut self) -> R {
        let (a, b) = (self.a, self.b);
        let ua: Vec<_> = a.live_undefs().collect();
        let ub: Vec<_> = b.live_undefs().collect();
        if ua.len() != ub.len() {
            return Err(format!(
                "undefined value count differs: {} vs {}",
                ua.len(),
                ub.len()
            ));
        }
        for (k, x) in ua.iter().enumerate() {
            let dx = &a.undefs[*x];
            let found = ub
                .iter()
                .find(|y| self.ty_eq("", Some(dx.ty), Some(b.undefs[**y].ty)).is_ok());
            let Some(y) = found else {
                return Err(format!(
                    "undefined value #{k}: no undefined value of its type"
                ));
            };
            md_eq(
                &format!("undefined value #{k}"),
                &dx.metadata,
                &b.undefs[*y].metadata,
            )?;
        }
        Ok(())
    }

    fn function(&mut self, k: usize) -> R {
        let (ma, mb) = (self.a, self.b);
        let what = format!("function #{k}");
        let (fa, fb) = match (
            ma.functions.get(ma.func_order[k]),
            mb.functions.get(mb.func_order[k]),
        ) {
            (Some(fa), Some(fb)) => (fa, fb),
            (None, None) => return Ok(()),
            _ => return Err(format!("{what}: invalid function handle")),
        };
        if fa.kind != fb.kind {
            return Err(format!(
                "{what}: kind differs: {:?} vs {:?}",
                fa.kind, fb.kind
            ));
        }
        self.ty_eq(&format!("{what}: return type"), fa.ret, fb.ret)?;
        md_eq(&what, &fa.metadata, &fb.metadata)?;
        if fa.arg_order.len() != fb.arg_order.len() {
            return Err(format!("{what}: argument count differs"));
        }
        for (j, (x, y)) in fa.arg_order.iter().zip(&fb.arg_order).enumerate() {
            let w = format!("{what} argument #{j}");
            let (x, y) = match (fa.args.get(*x), fb.args.get(*y)) {
                (Some(x), Some(y)) => (x, y),
                (None, None) => continue,
                _ => return Err(format!("{w}: invalid argument handle")),
            };
            if x.kind != y.kind {
                return Err(format!("{w}: kind differs: {:?} vs {:?}", x.kind, y.kind));
            }
            self.ty_eq(&w, Some(x.ty), Some(y.ty))?;
            md_eq(&w, &x.metadata, &y.metadata)?;
        }
        if fa.body.is_some() != fb.body.is_some() {
            return Err(format!("{what}: one has a body, the other not"));
        }
        let (sa, sb) = (side(fa), side(fb));
        if sa.blocks.len() != sb.blocks.len() {
            return Err(format!(
                "{what}: block count differs: {} vs {}",
                sa.blocks.len(),
                sb.blocks.len()
            ));
        }
        for (j, (x, y)) in sa.blocks.iter().zip(&sb.blocks).enumerate() {
            let w = format!("{what} block #{j}");
            let (bx, by) = (&fa.blocks[*x], &fb.blocks[*y]);
            md_eq(&w, &bx.metadata, &by.metadata)?;
            if bx.insts.len() != by.insts.len() {
                return Err(format!(
                    "{w}: instruction count differs: {} vs {}",
                    bx.insts.len(),
                    by.insts.len()
                ));
            }
            for (n, (i, ii)) in bx.insts.iter().zip(&by.insts).enumerate() {
                let w = format!("{w} instruction #{n}");
                self.inst(&w, (fa, &sa, *i), (fb, &sb, *ii))?;
            }
        }
        Ok(())
    }

    fn inst(&mut self, w: &str, a: (&Function, &Side, InstId), b: (&Function, &Side, InstId)) -> R {
        let (fa, sa, i) = a;
        let (fb, sb, ii) = b;
        let (Some(da), Some(db)) = (fa.insts.get(i), fb.insts.get(ii)) else {
            return Err(format!("{w}: invalid instruction handle"));
        };
        // Compare side blocks in canonical-index space (dangling ones as one sentinel).
        let canon = |side: &Side, kind: &InstKind| {
            let mut k = kind.clone();
            k.map_side_blocks(|blk| {
                BlockId::new(
                    side.block_index
                        .get(&blk)
                        .copied()
                        .unwrap_or(u32::MAX as usize - 1),
                )
            });
            k
        };
        if !kind_eq(&canon(sa, &da.kind), &canon(sb, &db.kind)) {
            return Err(format!("{w}: kind differs: {:?} vs {:?}", da.kind, db.kind));
        }
        self.ty_eq(&format!("{w}: result type"), da.ty, db.ty)?;
        md_eq(w, &da.metadata, &db.metadata)?;
        if da.operands.len() != db.operands.len() {
            return Err(format!(
                "{w}: operand count differs: {} vs {}",
                da.operands.len(),
                db.operands.len()
            ));
        }
        for (k, (x, y)) in da.operands.iter().zip(&db.operands).enumerate() {
            if !self.operand_eq((fa, sa, *x), (fb, sb, *y)) {
                return Err(format!("{w}: operand {k} differs: {x:?} vs {y:?}"));
            }
        }
        Ok(())
    }

    fn operand_eq(&mut self, a: (&Function, &Side, Value), b: (&Function, &Side, Value)) -> bool {
        let (fa, sa, x) = a;
        let (fb, sb, y) = b;
        let (ma, mb) = (self.a, self.b);
        match (x, y) {
            (Value::Inst(p), Value::Inst(q)) => sa.inst_pos.get(&p) == sb.inst_pos.get(&q),
            // Dangling handles (not in the tables) compare equal to each other.
            (Value::Block(p), Value::Block(q)) => sa.block_index.get(&p) == sb.block_index.get(&q),
            (Value::Arg(p), Value::Arg(q)) => {
                fa.arg_order.iter().position(|v| *v == p)
                    == fb.arg_order.iter().position(|v| *v == q)
            }
            (Value::Const(p), Value::Const(q)) => {
                ma.live_constants().position(|c| c == p) == mb.live_constants().position(|c| c == q)
            }
            (Value::Func(p), Value::Func(q)) => {
                ma.func_order.iter().position(|f| *f == p)
                    == mb.func_order.iter().position(|f| *f == q)
            }
            (Value::Special(p), Value::Special(q)) => p == q,
            (Value::Undef(p), Value::Undef(q)) => match (ma.undefs.get(p), mb.undefs.get(q)) {
                (Some(p), Some(q)) => self.ty_eq("", Some(p.ty), Some(q.ty)).is_ok(),
                (p, q) => p.is_none() && q.is_none(),
            },
            _ => false,
        }
    }

    /// Structural type equality across two type stores (iterative).
    fn ty_eq(&mut self, what: &str, a: Option<Type>, b: Option<Type>) -> R {
        let (ta, tb) = match (a, b) {
            (None, None) => return Ok(()),
            (Some(x), Some(y)) => (x, y),
            _ => {
                return Err(format!(
                    "{what}: type differs: {a:?} vs {b:?} (void vs non-void)"
                ));
            }
        };
        let (sa, sb) = (&self.a.types, &self.b.types);
        let mut stack = vec![(ta, tb)];
        let show = |s: &xir_ir::types::TypeStore, t: Type| {
            if t.index() < s.len() {
                format!("{:?}", s.get(t))
            } else {
                format!("<invalid {t:?}>")
            }
        };
        let fail = || {
            Err(format!(
                "{what}: type differs: {} vs {}",
                show(sa, ta),
                show(sb, tb)
            ))
        };
        // Pairs assumed equal while their parts are checked; forgotten again if any
        // part differs, so a failed comparison never poisons the memo.
        let mut inserted = Vec::new();
        let mut equal = true;
        while let Some((x, y)) = stack.pop() {
            if !self.seen_types.insert((x, y)) {
                continue;
            }
            inserted.push((x, y));
            let (vx, vy) = (x.index() < sa.len(), y.index() < sb.len());
            if !vx || !vy {
                // Dangling handles: equal only to the same dangling handle.
                if vx || vy || x.index() != y.index() {
                    equal = false;
                    break;
                }
                continue;
            }
            use TypeData as T;
            let ok = match (sa.get(x), sb.get(y)) {
                (T::Scalar(p), T::Scalar(q)) => p == q,
                (T::Vector { elem: e, len: n }, T::Vector { elem: f, len: m })
                | (T::Matrix { elem: e, n }, T::Matrix { elem: f, n: m }) => {
                    stack.push((*e, *f));
                    n == m
                }
                (T::Array { elem: e, len: n }, T::Array { elem: f, len: m }) => {
                    stack.push((*e, *f));
                    n == m
                }
                (
                    T::Struct {
                        align: p,
                        members: ms,
                    },
                    T::Struct {
                        align: q,
                        members: ns,
                    },
                ) => {
                    stack.extend(ms.iter().copied().zip(ns.iter().copied()));
                    p == q && ms.len() == ns.len()
                }
                (T::Buffer { elem: e }, T::Buffer { elem: f }) => match (e, f) {
                    (Some(e), Some(f)) => {
                        stack.push((*e, *f));
                        true
                    }
                    (None, None) => true,
                    _ => false,
                },
                (T::Texture { dim: d, elem: e }, T::Texture { dim: g, elem: f }) => {
                    stack.push((*e, *f));
                    d == g
                }
                (T::BindlessArray, T::BindlessArray) | (T::Accel, T::Accel) => true,
                (T::Custom { name: p }, T::Custom { name: q }) => p == q,
                (T::CoopVector { elem: e, len: n }, T::CoopVector { elem: f, len: m })
                | (T::CoopVectorRef { elem: e, len: n }, T::CoopVectorRef { elem: f, len: m }) => {
                    stack.push((*e, *f));
                    n == m
                }
                (
                    T::CoopMatrixRef {
                        rows: r,
                        cols: c,
                        elem: e,
                    },
                    T::CoopMatrixRef {
                        rows: r2,
                        cols: c2,
                        elem: f,
                    },
                ) => {
                    stack.push((*e, *f));
                    r == r2 && c == c2
                }
                _ => false,
            };
            if !ok {
                equal = false;
                break;
            }
        }
        if !equal {
            for p in &inserted {
                self.seen_types.remove(p);
            }
            return fail();
        }
        Ok(())
    }
}

/// Kind equality; coroutine float attributes compare bitwise (so NaN equals itself).
fn kind_eq(a: &InstKind, b: &InstKind) -> bool {
    use xir_ir::inst::{CoroAttrValue, CoroExtensionItem};
    match (a, b) {
        (InstKind::CoroSuspend(x), InstKind::CoroSuspend(y)) => {
            x.token == y.token
                && x.name == y.name
                && x.has_frame == y.has_frame
                && x.exports == y.exports
                && x.extensions.len() == y.extensions.len()
                && x.extensions.iter().zip(&y.extensions).all(|(p, q)| {
                    p.schema == q.schema
                        && p.version == q.version
                        && p.kind == q.kind
                        && p.fallback == q.fallback
                        && p.items.len() == q.items.len()
                        && p.items.iter().zip(&q.items).all(|pair| match pair {
                            (
                                CoroExtensionItem::Attribute {
                                    name: n,
                                    value: CoroAttrValue::Float(u),
                                },
                                CoroExtensionItem::Attribute {
                                    name: m,
                                    value: CoroAttrValue::Float(v),
                                },
                            ) => n == m && u.to_bits() == v.to_bits(),
                            (p, q) => p == q,
                        })
                })
        }
        _ => a == b,
    }
}

/// The canonical block order of `f` and the position tables derived from it.
fn side(f: &Function) -> Side {
    let mut blocks: Vec<BlockId> = Vec::new();
    let mut block_index: FxHashMap<BlockId, usize> = FxHashMap::default();
    let roots = f.body.into_iter().chain(f.block_order.iter().copied());
    for root in roots {
        if !f.blocks.is_valid(root) || block_index.contains_key(&root) {
            continue;
        }
        // Depth-first pre-order over every block reference, with an explicit stack of
        // (block, instruction index, reference index).
        block_index.insert(root, blocks.len());
        blocks.push(root);
        let mut stack = vec![(root, 0usize, 0usize)];
        while let Some((b, ii, ri)) = stack.last_mut() {
            let Some(&inst) = f.blocks[*b].insts.get(*ii) else {
                stack.pop();
                continue;
            };
            let refs = block_refs(f, inst);
            if let Some(&next) = refs.get(*ri) {
                *ri += 1;
                if f.blocks.is_valid(next) && !block_index.contains_key(&next) {
                    block_index.insert(next, blocks.len());
                    blocks.push(next);
                    stack.push((next, 0, 0));
                }
            } else {
                *ii += 1;
                *ri = 0;
            }
        }
    }
    let mut inst_pos = FxHashMap::default();
    for (k, b) in blocks.iter().enumerate() {
        for (n, i) in f.blocks[*b].insts.iter().enumerate() {
            inst_pos.insert(*i, (k, n));
        }
    }
    Side {
        blocks,
        block_index,
        inst_pos,
    }
}

/// Every block `inst` references: operand blocks in operand order, then side blocks.
fn block_refs(f: &Function, inst: InstId) -> Vec<BlockId> {
    let Some(d) = f.insts.get(inst) else {
        return Vec::new();
    };
    let mut out: Vec<BlockId> = d.operand_blocks().collect();
    out.extend(d.kind.side_blocks());
    out
}

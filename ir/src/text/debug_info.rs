//! Debug-info mode of the printer (reference §1.7): `// users:` comments, block
//! `// preds:` comments and the `// CFG = {…}` line with dominator tree and frontiers.
//!
//! Users are listed in text order (blocks in the order this form prints them,
//! instructions in order, one entry per operand slot): xir has no upstream-style use
//! lists whose order depends on construction history, and text order is the one order a
//! reader of the text reproduces, so printing is a fixed point of parse∘print. The CFG line lists nodes, and the
//! dominance-tree and frontier maps, in the default pre-order traversal (upstream's
//! hash-map order is unspecified); dominator children are in reverse post-order.

use super::numbering::{self, Key};
use super::print::Printer;
use crate::InstId;
use crate::module::Module;
use crate::value::{BlockId, FuncId};
use rustc_hash::FxHashMap;

/// Users of every value of a module, in text order.
#[derive(Default)]
pub(crate) struct UserMap {
    users: FxHashMap<Key, Vec<(FuncId, InstId)>>,
}

impl UserMap {
    /// Collects the users of every operand in `m`, visiting the blocks in `order` (the
    /// printer's text order, every printed block of every function).
    pub(crate) fn build(m: &Module, order: &[(FuncId, BlockId)]) -> Self {
        let mut users: FxHashMap<Key, Vec<(FuncId, InstId)>> = FxHashMap::default();
        for &(fid, b) in order {
            let Some(f) = m.functions.get(fid) else {
                continue;
            };
            let Some(data) = f.blocks.get(b) else {
                continue;
            };
            for &i in &data.insts {
                let Some(d) = f.insts.get(i) else {
                    continue;
                };
                for (_, op) in d.operands_except_phi_blocks() {
                    users.entry(Key::of(fid, op)).or_default().push((fid, i));
                }
            }
        }
        Self { users }
    }

    fn get(&self, k: Key) -> &[(FuncId, InstId)] {
        self.users.get(&k).map(|v| &v[..]).unwrap_or(&[])
    }
}

impl Printer<'_> {
    /// Distinct predecessor blocks of `b` (the blocks of its users, in use order).
    fn preds(&self, b: BlockId) -> Vec<BlockId> {
        let f = &self.m.functions[self.cur];
        let mut out: Vec<BlockId> = Vec::new();
        for &(_, i) in self.users.get(Key::Block(self.cur, b)) {
            if let Some(p) = f.insts.get(i).and_then(|d| d.block)
                && !out.contains(&p)
            {
                out.push(p);
            }
        }
        out
    }

    /// `// users: %a %b` after an item (nothing without users or outside debug mode).
    #[inline]
    pub(crate) fn users_comment(&mut self, prelude: bool, k: Key) {
        if self.opts.debug_info {
            self.users_comment_text(prelude, k);
        }
    }

    fn users_comment_text(&mut self, prelude: bool, k: Key) {
        let users = self.users.get(k);
        if users.is_empty() {
            return;
        }
        let out = if prelude {
            &mut self.prelude
        } else {
            &mut self.main
        };
        out.push_str("// users:");
        for &(f, i) in users {
            out.push(' ');
            self.namer.write(out, Key::Inst(f, i));
        }
    }

    /// The comment after a block label: `// users: …, preds: …` or `// preds: …`.
    pub(crate) fn block_comment(&mut self, b: BlockId) {
        if !self.opts.debug_info {
            return;
        }
        let key = Key::Block(self.cur, b);
        let has_users = !self.users.get(key).is_empty();
        self.users_comment(false, key);
        self.main.push_str(if has_users { ", " } else { "// " });
        self.main.push_str("preds:");
        for p in self.preds(b) {
            self.main.push(' ');
            self.namer.write(&mut self.main, Key::Block(self.cur, p));
        }
    }

    fn quoted(&mut self, k: Key) {
        self.main.push('"');
        self.namer.write(&mut self.main, k);
        self.main.push('"');
    }

    /// Removes the last two characters of main (upstream's `pop_back()` twice).
    fn pop2(&mut self) {
        self.main.pop();
        self.main.pop();
    }

    /// The `// CFG = {…}` line after a function definition.
    pub(crate) fn cfg_comment(&mut self, fid: FuncId) {
        let m = self.m;
        let f = &m.functions[fid];
        let Some(body) = f.body else {
            return;
        };
        let (pre, post) = numbering::dfs_orders(f, body);
        let blk = |b: BlockId| Key::Block(fid, b);
        self.main.push_str("// CFG = {\"function\": ");
        self.quoted(Key::Func(fid));
        self.main.push_str(", \"nodes\": [");
        for &b in &pre {
            self.quoted(blk(b));
            self.main.push_str(", ");
        }
        self.pop2();
        self.main.push_str("], \"edges\": {");
        for &b in &pre {
            self.quoted(blk(b));
            self.main.push_str(": [");
            let succ = numbering::successors(f, b);
            for &s in &succ {
                self.quoted(blk(s));
                self.main.push_str(", ");
            }
            if !succ.is_empty() {
                self.pop2();
            }
            self.main.push_str("], ");
        }
        self.pop2();
        self.main.push_str("}, \"terminators\": {");
        for &b in &pre {
            self.quoted(blk(b));
            self.main.push_str(": ");
            if let Some(t) = numbering::terminator(f, b) {
                self.main.push('"');
                self.main.push_str(f.insts[t].kind.tag().interchange_name());
                self.main.push_str("\", ");
            }
        }
        self.pop2();
        self.main.push_str("}, \"merges\": {");
        let mut any_merge = false;
        for &b in &pre {
            let merge = numbering::terminator(f, b).and_then(|t| f.insts[t].kind.merge());
            if let Some(mb) = merge {
                any_merge = true;
                self.quoted(blk(b));
                self.main.push_str(": ");
                self.quoted(blk(mb));
                self.main.push_str(", ");
            }
        }
        if any_merge {
            self.pop2();
        }
        self.main.push_str("}, \"dominance_tree\": {");
        let dom = DomInfo::compute(self, &pre, &post);
        for (k, &b) in pre.iter().enumerate() {
            self.quoted(blk(b));
            self.main.push_str(": [");
            for (j, &c) in dom.children[k].iter().enumerate() {
                if j > 0 {
                    self.main.push_str(", ");
                }
                self.quoted(blk(pre[c]));
            }
            self.main.push_str("], ");
        }
        self.pop2();
        self.main.push_str("}, \"dominance_frontiers\": {");
        for (k, &b) in pre.iter().enumerate() {
            self.quoted(blk(b));
            self.main.push_str(": [");
            for (j, &c) in dom.frontiers[k].iter().enumerate() {
                if j > 0 {
                    self.main.push_str(", ");
                }
                self.quoted(blk(pre[c]));
            }
            self.main.push_str("], ");
        }
        self.pop2();
        self.main.push_str("}}\n\n");
    }
}

/// Dominator tree children and dominance frontiers, indexed by pre-order position.
struct DomInfo {
    children: Vec<Vec<usize>>,
    frontiers: Vec<Vec<usize>>,
}

impl DomInfo {
    /// Cooper–Harvey–Kennedy over reverse post-order, then frontiers by the runner
    /// algorithm. `pre[0]` is the entry.
    fn compute(p: &Printer<'_>, pre: &[BlockId], post: &[BlockId]) -> Self {
        let n = pre.len();
        let pre_index: FxHashMap<BlockId, usize> =
            pre.iter().enumerate().map(|(k, b)| (*b, k)).collect();
        // RPO position of each pre-order node.
        let rpo: Vec<usize> = post
            .iter()
            .rev()
            .filter_map(|b| pre_index.get(b).copied())
            .collect();
        let mut rpo_pos = vec![usize::MAX; n];
        for (r, &k) in rpo.iter().enumerate() {
            rpo_pos[k] = r;
        }
        let preds: Vec<Vec<usize>> = pre
            .iter()
            .map(|b| {
                p.preds(*b)
                    .into_iter()
                    .filter_map(|q| pre_index.get(&q).copied())
                    .collect()
            })
            .collect();
        // idom in RPO numbering.
        let mut idom = vec![usize::MAX; n];
        if n > 0 {
            idom[0] = 0;
        }
        let mut changed = true;
        while changed {
            changed = false;
            for r in 1..rpo.len() {
                let mut new = usize::MAX;
                for &q in &preds[rpo[r]] {
                    let qr = rpo_pos[q];
                    if qr == usize::MAX || idom[qr] == usize::MAX {
                        continue;
                    }
                    new = if new == usize::MAX {
                        qr
                    } else {
                        let (mut a, mut b) = (qr, new);
                        while a != b {
                            while a > b {
                                a = idom[a];
                            }
                            while b > a {
                                b = idom[b];
                            }
                        }
                        a
                    };
                }
                if new != usize::MAX && idom[r] != new {
                    idom[r] = new;
                    changed = true;
                }
            }
        }
        // Parent (pre-order index) of each node; None for the root.
        let parent = |k: usize| -> Option<usize> {
            let r = rpo_pos[k];
            if r == 0 || r == usize::MAX || idom[r] == usize::MAX {
                None
            } else {
                Some(rpo[idom[r]])
            }
        };
        let mut children = vec![Vec::new(); n];
        for &k in rpo.iter().skip(1) {
            if let Some(par) = parent(k) {
                children[par].push(k);
            }
        }
        let mut frontiers: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (k, pk) in preds.iter().enumerate() {
            if pk.len() < 2 {
                continue;
            }
            let stop = parent(k);
            for &q in pk {
                let mut runner = Some(q);
                while let Some(x) = runner {
                    if Some(x) == stop {
                        break;
                    }
                    if !frontiers[x].contains(&k) {
                        frontiers[x].push(k);
                    }
                    runner = parent(x);
                }
            }
        }
        Self {
            children,
            frontiers,
        }
    }
}

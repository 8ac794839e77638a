//! The control-flow graph of a function: successors, predecessors, reverse post-order,
//! dominators, post-dominators (control dependence) and strongly connected components
//! (natural loops).

use super::visit::successors;
use crate::ir;

/// The control-flow graph of the IR with dominators and strongly connected components.
pub struct Cfg {
    pub succs: Vec<Vec<usize>>,
    pub preds: Vec<Vec<usize>>,
    /// Reverse post-order position (`usize::MAX`: unreachable).
    pub rpo_index: Vec<usize>,
    idom: Vec<usize>,
    scc: Vec<usize>,
}

impl Cfg {
    pub fn new(f: &ir::Function) -> Cfg {
        let n = f.blocks.len();
        let succs: Vec<Vec<usize>> = f.blocks.iter().map(|b| successors(&b.term).into_iter().map(|s| s.0 as usize).filter(|s| *s < n).collect()).collect();
        let mut preds = vec![vec![]; n];
        for (b, ss) in succs.iter().enumerate() {
            for &s in ss {
                preds[s].push(b);
            }
        }
        let post = post_order(n, &succs, &[0]);
        let rpo: Vec<usize> = post.iter().rev().copied().collect();
        let mut rpo_index = vec![usize::MAX; n];
        for (i, &b) in rpo.iter().enumerate() {
            rpo_index[b] = i;
        }
        // Cooper, Harvey, Kennedy: "A Simple, Fast Dominance Algorithm".
        let mut idom = vec![usize::MAX; n];
        idom[0] = 0;
        let mut changed = true;
        while changed {
            changed = false;
            for &b in &rpo[1..] {
                let mut new = usize::MAX;
                for &p in &preds[b] {
                    if idom[p] == usize::MAX {
                        continue;
                    }
                    new = if new == usize::MAX {
                        p
                    } else {
                        let (mut x, mut y) = (p, new);
                        while x != y {
                            while rpo_index[x] > rpo_index[y] {
                                x = idom[x];
                            }
                            while rpo_index[y] > rpo_index[x] {
                                y = idom[y];
                            }
                        }
                        x
                    };
                }
                if new != usize::MAX && idom[b] != new {
                    idom[b] = new;
                    changed = true;
                }
            }
        }
        // Kosaraju: components in the reversed graph, taken in reverse post-order.
        let mut scc = vec![usize::MAX; n];
        let mut id = 0;
        for &root in &rpo {
            if scc[root] != usize::MAX {
                continue;
            }
            let mut stack = vec![root];
            scc[root] = id;
            while let Some(b) = stack.pop() {
                for &p in &preds[b] {
                    if scc[p] == usize::MAX && rpo_index[p] != usize::MAX {
                        scc[p] = id;
                        stack.push(p);
                    }
                }
            }
            id += 1;
        }
        Cfg { succs, preds, rpo_index, idom, scc }
    }

    pub fn reachable(&self, b: usize) -> bool {
        self.rpo_index[b] != usize::MAX
    }

    pub fn dominates(&self, a: usize, mut b: usize) -> bool {
        if !self.reachable(a) || !self.reachable(b) {
            return false;
        }
        loop {
            if a == b {
                return true;
            }
            if b == 0 {
                return false;
            }
            b = self.idom[b];
        }
    }

    /// Whether blocks `a` and `b` lie on one cycle (one strongly connected component that
    /// has a cycle: more than one block, or a block branching to itself).
    pub fn on_one_cycle(&self, a: usize, b: usize) -> bool {
        let c = self.scc[a];
        c != usize::MAX && c == self.scc[b] && (self.succs[a].contains(&a) || self.scc.iter().filter(|&&x| x == c).count() > 1)
    }

    /// The body of the natural loop with header `h`, if it is a whole strongly connected
    /// component (no outer cycle, no other entry).
    pub fn natural_loop(&self, h: usize) -> Option<Vec<bool>> {
        self.natural_loop_in(h, &self.scc)
    }

    /// Strongly connected components of the graph without the edges leaving the blocks
    /// `cut` names (a component id per block; `usize::MAX`: unreachable).
    pub fn components_without(&self, cut: impl Fn(usize) -> bool) -> Vec<usize> {
        let n = self.succs.len();
        // Kosaraju over the cut graph: a post-order of it first (from every reachable block,
        // in reverse post-order of the whole graph), then components in the reversed cut
        // graph taken in reverse post-order.
        let mut roots: Vec<usize> = (0..n).filter(|&b| self.reachable(b)).collect();
        roots.sort_by_key(|&b| self.rpo_index[b]);
        let succs: Vec<Vec<usize>> = (0..n).map(|b| if cut(b) { vec![] } else { self.succs[b].clone() }).collect();
        let post = post_order(n, &succs, &roots);
        let mut scc = vec![usize::MAX; n];
        let mut id = 0;
        for &root in post.iter().rev() {
            if scc[root] != usize::MAX {
                continue;
            }
            let mut stack = vec![root];
            scc[root] = id;
            while let Some(b) = stack.pop() {
                for &p in &self.preds[b] {
                    if !cut(p) && scc[p] == usize::MAX && self.reachable(p) {
                        scc[p] = id;
                        stack.push(p);
                    }
                }
            }
            id += 1;
        }
        scc
    }

    /// The body of the natural loop with header `h`, if it is a whole component of `scc`
    /// (`components_without`).
    pub fn natural_loop_in(&self, h: usize, scc: &[usize]) -> Option<Vec<bool>> {
        if !self.reachable(h) {
            return None;
        }
        let latches: Vec<usize> = self.preds[h].iter().copied().filter(|&p| self.dominates(h, p)).collect();
        if latches.is_empty() {
            return None;
        }
        let mut body = vec![false; self.succs.len()];
        body[h] = true;
        let mut stack = latches;
        while let Some(b) = stack.pop() {
            if !body[b] {
                body[b] = true;
                stack.extend(self.preds[b].iter().copied());
            }
        }
        let whole = (0..body.len()).all(|b| body[b] == (self.reachable(b) && scc[b] == scc[h]));
        whole.then_some(body)
    }

    /// Whether block `b` of `body` lies on a cycle that avoids the header `h`.
    pub fn in_inner_cycle(&self, b: usize, h: usize, body: &[bool]) -> bool {
        let mut seen = vec![false; body.len()];
        let mut stack: Vec<usize> = self.succs[b].clone();
        while let Some(x) = stack.pop() {
            if x == h || !body[x] || seen[x] {
                continue;
            }
            if x == b {
                return true;
            }
            seen[x] = true;
            stack.extend(self.succs[x].iter().copied());
        }
        false
    }
}

/// Post-dominators: the blocks every path from a block to the function's end passes. The
/// end is a virtual block after every `exit`/`ret` (and after blocks that cannot reach one,
/// such as endless loops, so that every block has a post-dominator).
pub struct PostDom {
    /// Immediate post-dominator of each block; `end()` for the virtual end.
    ipdom: Vec<usize>,
}

impl PostDom {
    pub fn new(f: &ir::Function, cfg: &Cfg) -> PostDom {
        let n = f.blocks.len();
        let end = n;
        // The reverse graph: successors of a block there are its predecessors here.
        let mut rsuccs: Vec<Vec<usize>> = vec![vec![]; n + 1];
        let mut to_end = vec![false; n];
        for (b, block) in f.blocks.iter().enumerate() {
            if matches!(block.term, ir::Terminator::Exit | ir::Terminator::Return) {
                to_end[b] = true;
            }
        }
        // Blocks from which no `exit` is reachable also lead to the end.
        let mut reaches = to_end.clone();
        let mut work: Vec<usize> = (0..n).filter(|&b| to_end[b]).collect();
        while let Some(b) = work.pop() {
            for &p in &cfg.preds[b] {
                if !reaches[p] {
                    reaches[p] = true;
                    work.push(p);
                }
            }
        }
        for b in 0..n {
            if !reaches[b] {
                to_end[b] = true;
            }
        }
        for b in 0..n {
            if to_end[b] {
                rsuccs[end].push(b);
            }
            for &p in &cfg.preds[b] {
                rsuccs[b].push(p);
            }
        }
        let mut rpreds: Vec<Vec<usize>> = vec![vec![]; n + 1];
        for (b, ss) in rsuccs.iter().enumerate() {
            for &s in ss {
                rpreds[s].push(b);
            }
        }
        let post = post_order(n + 1, &rsuccs, &[end]);
        let rpo: Vec<usize> = post.iter().rev().copied().collect();
        let mut index = vec![usize::MAX; n + 1];
        for (i, &b) in rpo.iter().enumerate() {
            index[b] = i;
        }
        let mut ipdom = vec![usize::MAX; n + 1];
        ipdom[end] = end;
        let mut changed = true;
        while changed {
            changed = false;
            for &b in &rpo[1..] {
                let mut new = usize::MAX;
                for &p in &rpreds[b] {
                    if ipdom[p] == usize::MAX {
                        continue;
                    }
                    new = if new == usize::MAX {
                        p
                    } else {
                        let (mut x, mut y) = (p, new);
                        while x != y {
                            while index[x] > index[y] {
                                x = ipdom[x];
                            }
                            while index[y] > index[x] {
                                y = ipdom[y];
                            }
                        }
                        x
                    };
                }
                if new != usize::MAX && ipdom[b] != new {
                    ipdom[b] = new;
                    changed = true;
                }
            }
        }
        // Blocks unreachable from the entry keep no post-dominator but the end.
        for d in ipdom.iter_mut() {
            if *d == usize::MAX {
                *d = end;
            }
        }
        PostDom { ipdom }
    }

    /// The virtual block after the function's end.
    pub fn end(&self) -> usize {
        self.ipdom.len() - 1
    }

    /// The immediate post-dominator of `b`.
    pub fn ipdom(&self, b: usize) -> usize {
        self.ipdom[b]
    }

    /// The blocks control dependent on the branch at the end of `x` through its successor
    /// `s`: `s` and its post-dominators up to (not including) `x`'s immediate one.
    pub fn controlled_through(&self, x: usize, s: usize) -> Vec<usize> {
        let stop = self.ipdom(x);
        let mut out = vec![];
        let mut y = s;
        while y != stop && y != self.end() {
            out.push(y);
            let next = self.ipdom(y);
            if next == y {
                break;
            }
            y = next;
        }
        out
    }
}

/// Post-order of the blocks reachable from `roots` (iterative depth-first search).
fn post_order(n: usize, succs: &[Vec<usize>], roots: &[usize]) -> Vec<usize> {
    let mut seen = vec![false; n];
    let mut out = vec![];
    for &r in roots {
        if r >= n || seen[r] {
            continue;
        }
        seen[r] = true;
        let mut stack = vec![(r, 0usize)];
        while let Some((b, i)) = stack.last_mut() {
            if let Some(&s) = succs[*b].get(*i) {
                *i += 1;
                if !seen[s] {
                    seen[s] = true;
                    stack.push((s, 0));
                }
            } else {
                out.push(*b);
                stack.pop();
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dominators_and_natural_loops() {
        // entry -> LOOP (header) -> BODY -> LOOP, LOOP -> END
        let (f, _) = crate::ir::test_kernel(
            ".reg .pred %p; .reg .b32 %r<3>;
             mov.u32 %r1, 0;
             LOOP: setp.ge.s32 %p, %r1, 10;
             @%p bra END;
             add.s32 %r1, %r1, 1;
             bra LOOP;
             END: ret;",
        );
        let cfg = Cfg::new(&f);
        let header = f.blocks.iter().position(|b| b.label.as_deref() == Some("LOOP")).expect("LOOP");
        let end = f.blocks.iter().position(|b| b.label.as_deref() == Some("END")).expect("END");
        assert!(cfg.dominates(0, header) && cfg.dominates(header, end) && !cfg.dominates(end, header));
        let body = cfg.natural_loop(header).expect("a natural loop");
        assert!(body[header] && !body[end] && !body[0]);
        assert!(cfg.natural_loop(end).is_none(), "END heads no loop");
        let latch = cfg.preds[header].iter().copied().find(|&p| p != 0).expect("a latch");
        assert!(body[latch] && !cfg.in_inner_cycle(latch, header, &body));
    }

    /// An inner loop inside an outer loop that passes a barrier: nested in a cycle of the
    /// whole graph, a whole component once the edges out of the barrier's block are cut.
    #[test]
    fn components_without_sync_edges() {
        let (f, _) = crate::ir::test_kernel(
            ".reg .pred %p<3>; .reg .b32 %r<3>;
             mov.u32 %r1, 0;
             OUTER: bar.sync 0;
             mov.u32 %r2, 0;
             INNER: add.s32 %r2, %r2, 1;
             setp.lt.s32 %p1, %r2, 8;
             @%p1 bra INNER;
             add.s32 %r1, %r1, 1;
             setp.lt.s32 %p2, %r1, 4;
             @%p2 bra OUTER;
             ret;",
        );
        let cfg = Cfg::new(&f);
        let inner = f.blocks.iter().position(|b| b.label.as_deref() == Some("INNER")).expect("INNER");
        assert!(cfg.natural_loop(inner).is_none(), "nested in the outer cycle");
        let cut = cfg.components_without(|b| matches!(f.blocks[b].term, ir::Terminator::Sync { .. }));
        let body = cfg.natural_loop_in(inner, &cut).expect("a whole component without the barrier's edges");
        assert!(body[inner] && (0..body.len()).filter(|&b| body[b]).count() == 1);
        // Without cutting anything the components are the whole graph's.
        let all = cfg.components_without(|_| false);
        assert!(cfg.natural_loop_in(inner, &all).is_none());
    }
}

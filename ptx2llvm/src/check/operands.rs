//! Operands: names to registers/variables/special registers, immediates to bits, addresses,
//! and the ISA's relaxed operand type-checking rules.

use super::function::{FnScope, LocalOrGlobal, LocalSymbol};
use super::GlobalSymbol;
use crate::front::ast::{self, Expr, Operand as A, Spanned};
use crate::front::parser::{const_eval, symbol_offset};
use crate::ir::{self, Dim, ScalarType, SpecialReg, TypeKind};

/// May a register of a wider type than the instruction type be used (ld, st, cvt)?
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Width {
    Exact,
    AllowWider,
}

/// The relaxed type-checking rule: may a register of type `reg` be an operand of an
/// instruction of type `inst`?
pub(crate) fn compatible(inst: ScalarType, reg: ScalarType, width: Width) -> bool {
    if inst == ScalarType::Pred || reg == ScalarType::Pred {
        return inst == reg;
    }
    let size_ok = match width {
        Width::Exact => reg.bits() == inst.bits(),
        Width::AllowWider => reg.bits() >= inst.bits(),
    };
    let kind_ok = match inst.kind() {
        TypeKind::Bits => true,
        TypeKind::Unsigned | TypeKind::Signed => {
            matches!(reg.kind(), TypeKind::Bits | TypeKind::Unsigned | TypeKind::Signed)
            // ld/st/cvt move bits: a float register may hold the loaded integer bits of its size.
            || (width == Width::AllowWider && reg.bits() == inst.bits())
        }
        TypeKind::Float => matches!(reg.kind(), TypeKind::Bits | TypeKind::Float) || (width == Width::AllowWider && reg.bits() == inst.bits()),
        TypeKind::Pred => false,
    };
    size_ok && kind_ok
}

/// Bits of a constant expression used as an operand of type `ty`.
pub(crate) fn immediate_bits(e: &Expr, ty: ScalarType) -> Option<u64> {
    let mask = |v: u64, bits: u32| if bits >= 64 { v } else { v & ((1u64 << bits) - 1) };
    match ty {
        ScalarType::F32 => Some(match e {
            Expr::F32(b) => *b as u64,
            Expr::F64(b) => (f64::from_bits(*b) as f32).to_bits() as u64,
            Expr::Unary(ast::UnaryOp::Neg, inner) => immediate_bits(inner, ty)? ^ 0x8000_0000,
            _ => (const_eval(e)? as i64 as f32).to_bits() as u64,
        }),
        ScalarType::F64 => Some(match e {
            Expr::F64(b) => *b,
            Expr::F32(b) => (f32::from_bits(*b) as f64).to_bits(),
            Expr::Unary(ast::UnaryOp::Neg, inner) => immediate_bits(inner, ty)? ^ (1u64 << 63),
            _ => (const_eval(e)? as i64 as f64).to_bits(),
        }),
        ScalarType::Pred => Some((const_eval(e)? != 0) as u64),
        t if t.is_float() => match e {
            // f16/bf16 immediates are written as the bits of the value (0x3C00) or as 0f literals.
            Expr::F32(b) if t.bits() == 16 => Some(f32_to_half_bits(f32::from_bits(*b), t)),
            _ => Some(mask(const_eval(e)?, t.bits())),
        },
        t => match e {
            Expr::F32(_) | Expr::F64(_) => None,
            _ => Some(mask(const_eval(e)?, t.bits().min(64))),
        },
    }
}

fn f32_to_half_bits(x: f32, ty: ScalarType) -> u64 {
    if ty == ScalarType::BF16 {
        let b = x.to_bits();
        let round = ((b >> 16) & 1) + 0x7FFF;
        return ((b.wrapping_add(round)) >> 16) as u64;
    }
    // IEEE binary16, round to nearest even.
    let b = x.to_bits();
    let sign = (b >> 16) & 0x8000;
    let exp = ((b >> 23) & 0xFF) as i32;
    let man = b & 0x7F_FFFF;
    if exp == 0xFF {
        return (sign | 0x7C00 | if man != 0 { 0x200 } else { 0 }) as u64;
    }
    let e = exp - 127 + 15;
    if e >= 0x1F {
        return (sign | 0x7C00) as u64;
    }
    if e <= 0 {
        if e < -10 {
            return sign as u64;
        }
        let m = man | 0x80_0000;
        let shift = (14 - e) as u32;
        let half = 1u32 << (shift - 1);
        let rest = m & ((1 << shift) - 1);
        let mut r = m >> shift;
        if rest > half || (rest == half && r & 1 == 1) {
            r += 1;
        }
        return (sign | r) as u64;
    }
    let rest = man & 0x1FFF;
    let mut r = ((e as u32) << 10) | (man >> 13);
    if rest > 0x1000 || (rest == 0x1000 && r & 1 == 1) {
        r += 1;
    }
    (sign | r) as u64
}

pub(crate) fn special_register(name: &str, component: Option<&str>) -> Option<SpecialReg> {
    let vector = matches!(name, "%tid" | "%ntid" | "%ctaid" | "%nctaid" | "%clusterid" | "%nclusterid" | "%cluster_ctaid" | "%cluster_nctaid");
    if component.is_some() != vector {
        return None;
    }
    let dim = match component {
        Some("x") => Dim::X,
        Some("y") => Dim::Y,
        Some("z") => Dim::Z,
        // The fourth component of the `.v4` vector registers is unused and reads 0.
        Some("w") => return Some(SpecialReg::VectorW),
        _ => Dim::X,
    };
    // `%pm3`, `%pm3_64`, `%envreg17`: numbered families.
    let numbered = |prefix: &str, suffix: &str, count: u8| -> Option<u8> {
        let digits = name.strip_prefix(prefix)?.strip_suffix(suffix)?;
        let n: u8 = digits.parse().ok()?;
        (n < count && digits == n.to_string()).then_some(n)
    };
    if let Some(n) = numbered("%pm", "_64", 8) {
        return Some(SpecialReg::Pm64(n));
    }
    if let Some(n) = numbered("%pm", "", 8) {
        return Some(SpecialReg::Pm(n));
    }
    if let Some(n) = numbered("%envreg", "", 32) {
        return Some(SpecialReg::EnvReg(n));
    }
    Some(match name {
        "%tid" => SpecialReg::Tid(dim),
        "%ntid" => SpecialReg::Ntid(dim),
        "%ctaid" => SpecialReg::Ctaid(dim),
        "%nctaid" => SpecialReg::Nctaid(dim),
        "%clusterid" => SpecialReg::ClusterId(dim),
        "%nclusterid" => SpecialReg::NClusterId(dim),
        "%cluster_ctaid" => SpecialReg::ClusterCtaid(dim),
        "%cluster_nctaid" => SpecialReg::ClusterNctaid(dim),
        "%cluster_ctarank" => SpecialReg::ClusterCtaRank,
        "%cluster_nctarank" => SpecialReg::ClusterNCtaRank,
        "%is_explicit_cluster" => SpecialReg::IsExplicitCluster,
        "%laneid" => SpecialReg::LaneId,
        "%warpid" => SpecialReg::WarpId,
        "%nwarpid" => SpecialReg::NWarpId,
        "%smid" => SpecialReg::SmId,
        "%nsmid" => SpecialReg::NSmId,
        "%gridid" => SpecialReg::GridId,
        "%lanemask_eq" => SpecialReg::LanemaskEq,
        "%lanemask_le" => SpecialReg::LanemaskLe,
        "%lanemask_lt" => SpecialReg::LanemaskLt,
        "%lanemask_ge" => SpecialReg::LanemaskGe,
        "%lanemask_gt" => SpecialReg::LanemaskGt,
        "%clock" => SpecialReg::Clock,
        "%clock_hi" => SpecialReg::ClockHi,
        "%clock64" => SpecialReg::Clock64,
        "%globaltimer" => SpecialReg::GlobalTimer,
        "%globaltimer_lo" => SpecialReg::GlobalTimerLo,
        "%globaltimer_hi" => SpecialReg::GlobalTimerHi,
        "%dynamic_smem_size" => SpecialReg::DynamicSmemSize,
        "%total_smem_size" => SpecialReg::TotalSmemSize,
        "%aggr_smem_size" => SpecialReg::AggrSmemSize,
        "%reserved_smem_offset_begin" | "%reserved_smem_offset_end" | "%reserved_smem_offset_cap" | "%reserved_smem_offset_0" | "%reserved_smem_offset_1" => {
            SpecialReg::ReservedSmem
        }
        "%current_graph_exec" => SpecialReg::CurrentGraphExec,
        _ => return None,
    })
}

impl FnScope<'_> {
    fn reg_operand(&mut self, name: &str, span: &ast::Span, ty: ScalarType, width: Width) -> Option<ir::RegId> {
        match self.lookup(name) {
            Some(LocalOrGlobal::Local(LocalSymbol::Reg(r))) => {
                let rt = self.reg_type(r);
                if !compatible(ty, rt, width) {
                    let msg = if ty == ScalarType::Pred {
                        format!("`{name}` is a `{}` register where a predicate (`.pred`) is needed", rt.name())
                    } else if rt == ScalarType::Pred {
                        format!("predicate `{name}` cannot be used as a `{}` value", ty.name())
                    } else {
                        format!("operand `{name}` has type `{}`, which does not match the instruction type `{}`", rt.name(), ty.name())
                    };
                    self.error(span.clone(), msg);
                    return None;
                }
                Some(r)
            }
            Some(LocalOrGlobal::Local(LocalSymbol::Poisoned)) => None,
            Some(_) => {
                self.error(span.clone(), format!("`{name}` is not a register"));
                None
            }
            None => {
                self.error(span.clone(), format!("use of undeclared identifier `{name}`"));
                None
            }
        }
    }

    /// A destination register.
    pub fn dst(&mut self, op: &Spanned<A>, ty: ScalarType, width: Width) -> Option<ir::RegId> {
        match &op.node {
            // `_`: a result nobody reads, written to a register of its own.
            A::Sink => Some(self.scratch_reg(ty)),
            A::Name { name, component: None } if name == "_" => Some(self.scratch_reg(ty)),
            A::Name { name, component: None } => self.reg_operand(name, &op.span, ty, width),
            // A component of a vector register: `%v.x`.
            A::Name { name, component: Some(c) } if self.lookup(&format!("{name}.{c}")).is_some() => {
                self.reg_operand(&format!("{name}.{c}"), &op.span, ty, width)
            }
            _ => {
                self.error(op.span.clone(), "expected a destination register");
                None
            }
        }
    }

    /// A source operand: register, immediate, special register, or (for `mov`) an address.
    pub fn src(&mut self, op: &Spanned<A>, ty: ScalarType, width: Width) -> Option<ir::Operand> {
        match &op.node {
            A::Name { name, component: Some(c) } if self.lookup(&format!("{name}.{c}")).is_some() => {
                self.reg_operand(&format!("{name}.{c}"), &op.span, ty, width).map(ir::Operand::Reg)
            }
            A::Name { name, component } => {
                if name.starts_with('%') {
                    if let Some(s) = special_register(name, component.as_deref()) {
                        let full = match component {
                            Some(c) => format!("{name}.{c}"),
                            None => name.clone(),
                        };
                        if (ty == ScalarType::Pred) != (s.ty() == ScalarType::Pred) || ty.is_float() {
                            self.error(op.span.clone(), format!("special register `{full}` (`{}`) cannot be used as a `{}` operand", s.ty().name(), ty.name()));
                            return None;
                        }
                        // ptxas: the 64-bit registers are read as 64 bits (`%gridid` was 32-bit
                        // before ISA 3.0); the others as 32 bits, or 16 in the ISA 1.x style
                        // `mov.u16 %rh, %tid.x`.
                        let narrow_ok = s.ty().bits() != 64 || s == SpecialReg::GridId;
                        if ty.bits() > s.ty().bits() || (!narrow_ok && ty.bits() != 64) {
                            self.error(
                                op.span.clone(),
                                format!("special register `{full}` is `{}`, which does not match the instruction type `{}`", s.ty().name(), ty.name()),
                            );
                            return None;
                        }
                        return Some(ir::Operand::Special(s));
                    }
                }
                if name == "WARP_SZ" {
                    return Some(ir::Operand::Imm(32));
                }
                if component.is_none() && special_register(name, Some("x")).is_some() {
                    self.error(op.span.clone(), format!("`{name}` is a vector: use one of its components, `{name}.x`, `{name}.y` or `{name}.z`"));
                    return None;
                }
                if component.is_some() {
                    self.error(op.span.clone(), format!("`{name}` has no component `.{}`", component.as_deref().unwrap_or("")));
                    return None;
                }
                match self.lookup(name) {
                    Some(LocalOrGlobal::Local(LocalSymbol::Reg(_))) => self.reg_operand(name, &op.span, ty, width).map(ir::Operand::Reg),
                    Some(LocalOrGlobal::Local(LocalSymbol::Var(v))) | Some(LocalOrGlobal::Global(GlobalSymbol::Var(v))) => {
                        self.address_value(ty, &op.span).then_some(ir::Operand::VarAddr(v, 0))
                    }
                    Some(LocalOrGlobal::Local(LocalSymbol::Param(i))) => self.address_value(ty, &op.span).then_some(ir::Operand::ParamAddr(i, 0)),
                    Some(LocalOrGlobal::Local(LocalSymbol::Return(_))) => {
                        self.error(op.span.clone(), format!("the address of return parameter `{name}` cannot be taken"));
                        None
                    }
                    Some(LocalOrGlobal::Local(LocalSymbol::Poisoned)) => None,
                    Some(LocalOrGlobal::Local(LocalSymbol::Vector(..))) => {
                        self.error(op.span.clone(), format!("`{name}` is a vector register: use one of its components (`{name}.x`, ...)"));
                        None
                    }
                    Some(LocalOrGlobal::Global(GlobalSymbol::Function(f))) => self.address_value(ty, &op.span).then_some(ir::Operand::FuncAddr(f as u32)),
                    Some(LocalOrGlobal::Global(GlobalSymbol::Handle(h))) => {
                        if ty.bits() != 64 || !ty.is_int() {
                            self.error(op.span.clone(), format!("texture, sampler and surface references are `.u64` or `.b64` values, not `{}`", ty.name()));
                            return None;
                        }
                        Some(ir::Operand::Handle(h))
                    }
                    None if self.labels.contains(name) => {
                        self.error(op.span.clone(), format!("label `{name}` cannot be used as a value"));
                        None
                    }
                    None => {
                        self.error(op.span.clone(), format!("use of undeclared identifier `{name}`"));
                        None
                    }
                }
            }
            A::Expr(e) => {
                // `sym+4` as a source: an address with an offset.
                if let Some((sym, off, false)) = symbol_offset(e) {
                    let named = Spanned::new(A::Name { name: sym, component: None }, op.span.clone());
                    return match self.src(&named, ty, width)? {
                        ir::Operand::VarAddr(v, o) => Some(ir::Operand::VarAddr(v, o.wrapping_add(off))),
                        ir::Operand::ParamAddr(p, o) => Some(ir::Operand::ParamAddr(p, o.wrapping_add(off))),
                        // `%r + 1` (ptxas accepts a register plus an immediate as an integer
                        // source): the sum, computed into a register of its own first.
                        ir::Operand::Reg(r) if self.reg_type(r).is_int() => {
                            let rt = self.reg_type(r);
                            let sum = self.scratch_reg(rt);
                            let add = ir::Op::IntBinary {
                                op: ir::IntBinOp::Add,
                                ty: rt,
                                sat: false,
                                dst: sum,
                                a: ir::Operand::Reg(r),
                                b: ir::Operand::Imm(off as u64),
                            };
                            self.prelude.push(ir::Inst { guard: None, op: add, span: op.span.clone() });
                            Some(ir::Operand::Reg(sum))
                        }
                        _ => {
                            self.error(op.span.clone(), "only addresses may have an offset");
                            None
                        }
                    };
                }
                match immediate_bits(e, ty) {
                    Some(bits) => Some(ir::Operand::Imm(bits)),
                    None => {
                        self.error(op.span.clone(), format!("immediate is not a valid `{}` constant", ty.name()));
                        None
                    }
                }
            }
            _ => {
                self.error(op.span.clone(), "expected a register or an immediate");
                None
            }
        }
    }

    /// Checks that every name in an operand of an instruction without a dedicated form
    /// (one lowering does not translate yet) is declared: a register, variable, parameter,
    /// function, label or special register.
    pub fn resolve_any(&mut self, op: &Spanned<A>) -> bool {
        let name_ok = |scope: &mut Self, name: &str, span: &ast::Span| -> bool {
            if (name.starts_with('%') && special_register(name, None).is_some())
                || special_register(name, Some("x")).is_some()
                || name == "WARP_SZ"
                || scope.labels.contains(name)
            {
                return true;
            }
            match scope.lookup(name) {
                Some(_) => true,
                None => {
                    scope.error(span.clone(), format!("use of undeclared identifier `{name}`"));
                    false
                }
            }
        };
        match &op.node {
            A::Name { name, .. } | A::Not(name) => name_ok(self, name, &op.span),
            A::Pair(a, b) => (a == "_" || name_ok(self, a, &op.span)) & name_ok(self, b, &op.span),
            A::VectorPair(v, p) => self.resolve_any(v) & (p == "_" || name_ok(self, p, &op.span)),
            A::Neg(inner) => self.resolve_any(inner),
            A::Expr(e) => {
                let mut syms = vec![];
                expr_symbols(e, &mut syms);
                syms.iter().fold(true, |ok, s| name_ok(self, s, &op.span) & ok)
            }
            A::Address(base, _) => self.resolve_any(base),
            A::Vector(items) | A::List(items) => items.iter().fold(true, |ok, i| self.resolve_any(i) & ok),
            A::Sink => true,
        }
    }

    fn address_value(&mut self, ty: ScalarType, span: &ast::Span) -> bool {
        if matches!(ty.bits(), 32 | 64) && ty.is_int() {
            true
        } else {
            self.error(span.clone(), format!("an address needs a 32- or 64-bit integer type, not `{}`", ty.name()));
            false
        }
    }

    /// A predicate source, possibly negated (`!%p`).
    pub fn pred(&mut self, op: &Spanned<A>) -> Option<ir::PredRef> {
        let (name, negated) = match &op.node {
            A::Name { name, component: None } => (name, false),
            A::Not(name) => (name, true),
            // An immediate predicate (`selp.u16 d, a, b, 0;`, `vote.sync.all.pred p, 1, m;`,
            // as ptxas accepts): a predicate register set to it first.
            A::Expr(e) if const_eval(e).is_some() => {
                let reg = self.scratch_reg(ScalarType::Pred);
                let value = u64::from(const_eval(e) != Some(0));
                let set = ir::Op::Mov { ty: ScalarType::Pred, dst: reg, src: ir::Operand::Imm(value) };
                self.prelude.push(ir::Inst { guard: None, op: set, span: op.span.clone() });
                return Some(ir::PredRef { reg, negated: false });
            }
            _ => {
                self.error(op.span.clone(), "expected a predicate register");
                return None;
            }
        };
        let reg = self.reg_operand(name, &op.span, ScalarType::Pred, Width::Exact)?;
        Some(ir::PredRef { reg, negated })
    }

    /// An address in state space `space`: as `address`, and with `.address_size 64` a
    /// register holding a generic or `.global` address must be 64 bits wide (`.shared`,
    /// `.local`, `.const` and `.param` windows are small enough for 32-bit offsets).
    pub fn address_in(&mut self, op: &Spanned<A>, space: ir::StateSpace) -> Option<ir::Address> {
        let addr = self.address(op)?;
        if let (ir::AddressBase::Reg(r), A::Address(base, _)) = (&addr.base, &op.node) {
            let bits = self.reg_type(*r).bits();
            let wide_space = matches!(space, ir::StateSpace::Generic | ir::StateSpace::Global);
            if wide_space && self.cx.declared_address_size == Some(64) && bits != 64 {
                let name = match &base.node {
                    A::Name { name, .. } => name.as_str(),
                    _ => "",
                };
                let space_name = if space == ir::StateSpace::Generic { "generic" } else { "`.global`" };
                self.error(base.span.clone(), format!("address register `{name}` is {bits}-bit, but {space_name} addresses are 64-bit (`.address_size 64`)"));
                return None;
            }
        }
        Some(addr)
    }

    /// `[reg+off]`, `[var+off]`, `[param]`, `[imm]`.
    pub fn address(&mut self, op: &Spanned<A>) -> Option<ir::Address> {
        let A::Address(base, offset) = &op.node else {
            self.error(op.span.clone(), "expected an address operand `[...]`");
            return None;
        };
        let base_span = base.span.clone();
        let base = match &base.node {
            A::Name { name, component: None } => match self.lookup(name) {
                Some(LocalOrGlobal::Local(LocalSymbol::Reg(r))) => {
                    let t = self.reg_type(r);
                    if !(t.is_int() && matches!(t.bits(), 32 | 64)) {
                        self.error(base_span, format!("address register `{name}` must be a 32- or 64-bit integer, not `{}`", t.name()));
                        return None;
                    }
                    ir::AddressBase::Reg(r)
                }
                Some(LocalOrGlobal::Local(LocalSymbol::Var(v))) | Some(LocalOrGlobal::Global(GlobalSymbol::Var(v))) => ir::AddressBase::Var(v),
                Some(LocalOrGlobal::Local(LocalSymbol::Param(i))) => ir::AddressBase::Param(i),
                Some(LocalOrGlobal::Local(LocalSymbol::Return(i))) => ir::AddressBase::Return(i),
                Some(LocalOrGlobal::Global(GlobalSymbol::Handle(_))) => {
                    self.error(base_span, format!("`{name}` is a texture, sampler or surface reference, not an address"));
                    return None;
                }
                Some(LocalOrGlobal::Local(LocalSymbol::Poisoned)) => return None,
                Some(LocalOrGlobal::Local(LocalSymbol::Vector(..))) => {
                    self.error(base_span, format!("`{name}` is a vector register, not an address"));
                    return None;
                }
                Some(LocalOrGlobal::Global(GlobalSymbol::Function(_))) => {
                    self.error(base_span, format!("`{name}` is a function, not an address"));
                    return None;
                }
                None => {
                    self.error(base_span, format!("use of undeclared identifier `{name}`"));
                    return None;
                }
            },
            A::Expr(e) => match const_eval(e) {
                Some(v) => return Some(ir::Address { base: ir::AddressBase::Absolute, offset: (v as i64).wrapping_add(*offset) }),
                None => {
                    if let Some((sym, off, false)) = symbol_offset(e) {
                        let named = Spanned::new(
                            A::Address(Box::new(Spanned::new(A::Name { name: sym, component: None }, base_span)), offset.wrapping_add(off)),
                            op.span.clone(),
                        );
                        return self.address(&named);
                    }
                    self.error(base_span, "address must be a register, a variable or a constant");
                    return None;
                }
            },
            _ => {
                self.error(base_span, "address must be a register, a variable or a constant");
                return None;
            }
        };
        Some(ir::Address { base, offset: *offset })
    }
}

fn expr_symbols(e: &Expr, out: &mut Vec<String>) {
    match e {
        Expr::Symbol(s) | Expr::Generic(s) => out.push(s.clone()),
        Expr::Unary(_, a) => expr_symbols(a, out),
        Expr::Binary(_, a, b) => {
            expr_symbols(a, out);
            expr_symbols(b, out);
        }
        Expr::Int(..) | Expr::F32(_) | Expr::F64(_) => {}
    }
}

impl FnScope<'_> {
    /// The element operands of a vector operand of `ld`/`st`/`mov`: `{a, b}`, or a vector
    /// register `%v` (its components).
    pub fn vector_elements(&self, op: &Spanned<A>) -> Vec<Spanned<A>> {
        match &op.node {
            A::Vector(v) => v.clone(),
            A::Name { name, component: None } => match self.lookup(name) {
                Some(LocalOrGlobal::Local(LocalSymbol::Vector(first, len))) => (0..len)
                    .map(|i| {
                        let reg = &self.regs[(first.0 + i) as usize].name;
                        let (base, comp) = reg.rsplit_once('.').unwrap_or((reg.as_str(), "x"));
                        Spanned::new(A::Name { name: base.to_string(), component: Some(comp.to_string()) }, op.span.clone())
                    })
                    .collect(),
                _ => vec![op.clone()],
            },
            _ => vec![op.clone()],
        }
    }
}

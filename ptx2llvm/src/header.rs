//! `--header`: a C/C++ header with a typed launch function per kernel.
//!
//! For `.entry vecadd(.param .u64 a, .param .u64 b, .param .u64 c, .param .u32 n)` it writes
//! `ptxrtError_t vecadd_launch(ptxrtDim3 grid, ptxrtDim3 block, size_t dynamicSharedBytes,
//! void *a, void *b, void *c, uint32_t n)`, which finds the kernel once and launches it.
//!
//! PTX has no pointer types: a 64-bit parameter is declared a pointer (`void *`) when it
//! carries `.ptr`, or when the kernel uses its value as an address (it flows through
//! `mov`/`add`/`cvta` into the address of a load, store or atomic); otherwise it keeps its
//! integer type. Byte-array parameters (structs passed by value) take a pointer to the
//! argument's bytes.

use crate::ir::{self, AddressBase, Op, Operand, ScalarType};
use std::collections::HashSet;
use std::fmt::Write as _;

/// A C identifier from a PTX name (`$` and other characters C does not allow become `_`).
fn c_identifier(name: &str) -> String {
    let mut s: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
    if s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    s
}

fn c_type(ty: ScalarType) -> &'static str {
    match ty {
        ScalarType::S8 => "int8_t",
        ScalarType::S16 => "int16_t",
        ScalarType::S32 => "int32_t",
        ScalarType::S64 => "int64_t",
        ScalarType::U8 | ScalarType::B8 => "uint8_t",
        ScalarType::U16 | ScalarType::B16 | ScalarType::F16 | ScalarType::BF16 => "uint16_t",
        ScalarType::F32 => "float",
        ScalarType::F64 => "double",
        ScalarType::Pred => "bool",
        t if t.bits() == 64 => "uint64_t",
        _ => "uint32_t",
    }
}

/// Parameters of `f` whose value the kernel uses as an address.
fn address_params(f: &ir::Function) -> HashSet<u32> {
    // Registers holding (something computed from) parameter i, to a fixed point.
    let mut holds: Vec<Option<u32>> = vec![None; f.regs.len()];
    let mut changed = true;
    while changed {
        changed = false;
        for inst in f.blocks.iter().flat_map(|b| &b.insts) {
            let (dst, from) = match &inst.op {
                Op::Load { space: ir::StateSpace::Param, dst, addr: ir::Address { base: AddressBase::Param(i), .. }, .. } => (dst.first().copied().flatten(), Some(*i)),
                Op::Mov { dst, src: Operand::Reg(r), .. } | Op::Cvta { dst, src: Operand::Reg(r), .. } => (Some(*dst), holds[r.0 as usize]),
                Op::IntBinary { op: ir::IntBinOp::Add | ir::IntBinOp::Sub, dst, a, b, .. } => {
                    let of = |o: &Operand| if let Operand::Reg(r) = o { holds[r.0 as usize] } else { None };
                    (Some(*dst), of(a).or(of(b)))
                }
                _ => (None, None),
            };
            if let (Some(d), Some(p)) = (dst, from) {
                if holds[d.0 as usize] != Some(p) && holds[d.0 as usize].is_none() {
                    holds[d.0 as usize] = Some(p);
                    changed = true;
                }
            }
        }
    }
    let mut out = HashSet::new();
    for inst in f.blocks.iter().flat_map(|b| &b.insts) {
        let addr = match &inst.op {
            Op::Load { addr, .. } | Op::Store { addr, .. } | Op::Atomic { addr, .. } => addr,
            _ => continue,
        };
        if let AddressBase::Reg(r) = addr.base {
            if let Some(p) = holds[r.0 as usize] {
                out.insert(p);
            }
        }
    }
    out
}

/// The header text for the kernels of `m`; `guard` names the include guard.
pub fn launch_header(m: &ir::Module, source_name: &str, guard: &str) -> String {
    let mut h = String::new();
    let guard = c_identifier(guard).to_uppercase();
    let _ = writeln!(h, "/* Typed launch functions for the kernels of {source_name}, written by ptx2llvm --header.");
    let _ = writeln!(h, " * Link the object translated from the same PTX and ptxrt (libptxrt.a). */");
    let _ = writeln!(h, "#ifndef {guard}\n#define {guard}\n");
    let _ = writeln!(h, "#include <stdbool.h>\n#include <stddef.h>\n#include <stdint.h>\n\n#include \"ptxrt.h\"\n");
    let _ = writeln!(h, "#ifdef __cplusplus\nextern \"C\" {{\n#endif\n");
    for f in m.functions.iter().filter(|f| f.kind == ir::FunctionKind::Entry && f.has_body) {
        let pointers = address_params(f);
        let mut params = vec![];
        let mut setup = vec![];
        for (i, p) in f.params.iter().enumerate() {
            let name = c_identifier(&p.name);
            let array = p.size > p.ty.bytes();
            if array {
                // A struct or array passed by value: the caller gives its bytes.
                params.push(format!("const void *{name} /* {} bytes */", p.size));
                setup.push(format!("(void *){name}"));
            } else if p.ty.bits() == 64 && pointers.contains(&(i as u32)) {
                params.push(format!("void *{name}"));
                setup.push(format!("&{name}"));
            } else {
                params.push(format!("{} {name}", c_type(p.ty)));
                setup.push(format!("&{name}"));
            }
        }
        let fname = format!("{}_launch", c_identifier(&f.name));
        let mut sig = format!("static inline ptxrtError_t {fname}(ptxrtDim3 grid, ptxrtDim3 block, size_t dynamicSharedBytes");
        for p in &params {
            let _ = write!(sig, ", {p}");
        }
        sig.push(')');
        let _ = writeln!(h, "/* Launches `{}` and waits for it (ptxrtLaunchKernel). */", f.name);
        let _ = writeln!(h, "{sig}\n{{");
        let _ = writeln!(h, "    static const ptxrtKernel *kernel;");
        let _ = writeln!(h, "    if (!kernel && !(kernel = ptxrtFindKernel(\"{}\"))) return ptxrtErrorNotFound;", f.name);
        if setup.is_empty() {
            let _ = writeln!(h, "    return ptxrtLaunchKernel(kernel, grid, block, NULL, dynamicSharedBytes, NULL);");
        } else {
            let _ = writeln!(h, "    void *args[] = {{{}}};", setup.join(", "));
            let _ = writeln!(h, "    return ptxrtLaunchKernel(kernel, grid, block, args, dynamicSharedBytes, NULL);");
        }
        let _ = writeln!(h, "}}\n");
    }
    let _ = writeln!(h, "#ifdef __cplusplus\n}}\n#endif\n#endif /* {guard} */");
    h
}

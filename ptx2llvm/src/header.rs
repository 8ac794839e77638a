//! `--header`: a C/C++ header with a typed launch function per kernel.
//!
//! For `.entry vecadd(.param .u64 a, .param .u64 b, .param .u64 c, .param .u32 n)` it writes
//! `ptxrtError_t vecadd_launch(ptxrtDim3 grid, ptxrtDim3 block, size_t dynamicSharedBytes,
//! const void *a, const void *b, void *c, uint32_t n)`, which launches the kernel through
//! its descriptor `__ptxrt_kernel_vecadd` with `ptxrtLaunchKernelEx` (so the runtime checks
//! the argument sizes). Referring to the descriptor makes the linker take the kernel's
//! object out of a static archive without `--whole-archive`.
//!
//! PTX has no pointer types, so [`kernel_signatures`] works out which parameters are
//! addresses: a 64-bit parameter is a pointer when it carries `.ptr`, when the kernel uses
//! its value as an address (it flows through `mov`/`add`/`sub`/`mad`/`cvta` into the address
//! of a memory instruction) or converts it with `cvta`, and, for C++ kernels, when the
//! demangled name says so (a pointer the kernel never dereferences, or reads only through a
//! texture bound to it). A pointer is `const void *` unless the kernel may write through
//! it. Texture and surface object parameters are `ptxrtTextureObject_t` /
//! `ptxrtSurfaceObject_t`, byte-array parameters (structs passed by value) take a pointer to
//! the argument's bytes, others keep their integer or float type.
//!
//! C++ kernels (Itanium-mangled names) also get readable C++ launchers next to the C ones:
//! `_Z6vecaddPKfS0_Pfi` gives `vecadd_launch(grid, block, shared, const float *, const
//! float *, float *, int)` in the kernel's namespace, overloaded by parameter types, with
//! the argument types of the CUDA source (a template parameter where a type is not a
//! built-in one; its size is checked at launch).

use crate::ir::{self, AddressBase, Op, Operand, ScalarType};
use std::collections::HashMap;
use std::fmt::Write as _;

/// A C identifier from a PTX name (`$` and other characters C does not allow become `_`).
pub fn c_identifier(name: &str) -> String {
    let mut s: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' }).collect();
    if s.starts_with(|c: char| c.is_ascii_digit()) || s.is_empty() {
        s.insert(0, '_');
    }
    s
}

/// The C type of a scalar parameter.
pub fn c_type(ty: ScalarType) -> &'static str {
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

/// What a kernel parameter is, as far as the PTX (and a C++ name) tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// A plain value of this type.
    Value(ScalarType),
    /// An address; `written` when the kernel may write through it.
    Pointer { written: bool },
    /// A texture object (`cudaTextureObject_t`).
    Texture,
    /// A surface object (`cudaSurfaceObject_t`).
    Surface,
    /// A struct or array passed by value: its bytes.
    Bytes,
}

/// A parameter's type in the demangled C++ signature.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CppType {
    /// The innermost type when it is a built-in one (`float`, `unsigned int`), else `None`
    /// (a class, a function pointer, ...).
    pub builtin: Option<String>,
    /// Levels of pointers.
    pub stars: usize,
    /// `const` on the innermost pointee.
    pub const_pointee: bool,
    /// The type as the demangler wrote it.
    pub text: String,
}

/// A C++ kernel's demangled name and parameter types.
#[derive(Debug, Clone)]
pub struct CppKernel {
    /// `ns::inner::kernel(float const*, int)`.
    pub display: String,
    pub namespaces: Vec<String>,
    /// The function's name without template arguments.
    pub name: String,
    pub params: Vec<CppType>,
}

#[derive(Debug, Clone)]
pub struct ParamInfo {
    /// The PTX name.
    pub ptx_name: String,
    /// A short identifier for generated code: `param_N` for NVCC's `<kernel>_param_N`,
    /// else the C identifier of the PTX name.
    pub short_name: String,
    pub kind: ParamKind,
    /// Size in bytes.
    pub size: u32,
}

#[derive(Debug, Clone)]
pub struct KernelInfo {
    /// The PTX `.entry` name.
    pub ptx_name: String,
    /// Its C identifier (launchers are `<c_name>_launch`).
    pub c_name: String,
    pub params: Vec<ParamInfo>,
    /// For C++ kernels whose parameters the demangled name describes one to one.
    pub cpp: Option<CppKernel>,
}

/// How a kernel uses each parameter's value.
#[derive(Debug, Clone, Copy, Default)]
struct Uses {
    address: bool,
    written: bool,
    texture: bool,
    surface: bool,
}

/// How the kernel uses its parameters' values (followed through registers that hold
/// them, or addresses computed from them).
fn param_uses(f: &ir::Function) -> Vec<Uses> {
    let mut uses = vec![Uses::default(); f.params.len()];
    // The parameters each register holds (an address computed from), to a fixed point.
    let mut holds: Vec<Vec<u32>> = vec![vec![]; f.regs.len()];
    let of = |holds: &[Vec<u32>], o: &Operand| -> Vec<u32> {
        if let Operand::Reg(r) = o {
            holds.get(r.0 as usize).cloned().unwrap_or_default()
        } else {
            vec![]
        }
    };
    let mut changed = true;
    while changed {
        changed = false;
        for inst in f.blocks.iter().flat_map(|b| &b.insts) {
            let (dst, from) = match &inst.op {
                Op::Load { space: ir::StateSpace::Param, dst, addr: ir::Address { base: AddressBase::Param(i), .. }, .. } => {
                    (dst.first().copied().flatten(), vec![*i])
                }
                Op::Mov { dst, src, .. } | Op::Cvta { dst, src, .. } => (Some(*dst), of(&holds, src)),
                // Address arithmetic (`add`, `sub`, alignment with `and`/`or`), a choice
                // between addresses, a 64-bit `cvt`; not products or shifts (indices).
                Op::IntBinary { op: ir::IntBinOp::Add | ir::IntBinOp::Sub | ir::IntBinOp::And | ir::IntBinOp::Or, dst, a, b, .. }
                | Op::Selp { dst, a, b, .. } => (Some(*dst), [of(&holds, a), of(&holds, b)].concat()),
                Op::Mad { dst, c, .. } => (Some(*dst), of(&holds, c)),
                Op::Cvt { dst_ty, dst, src, .. } if dst_ty.bits() == 64 => (Some(*dst), of(&holds, src)),
                _ => (None, vec![]),
            };
            if let Some(set) = dst.and_then(|d| holds.get_mut(d.0 as usize)) {
                for p in from {
                    if !set.contains(&p) {
                        set.push(p);
                        changed = true;
                    }
                }
            }
        }
    }
    let reg_param = |r: &ir::RegId| holds.get(r.0 as usize).cloned().unwrap_or_default();
    let base_param = |a: &ir::Address| {
        if let AddressBase::Reg(r) = a.base {
            reg_param(&r)
        } else {
            vec![]
        }
    };
    let mut mark = |ps: Vec<u32>, f: &dyn Fn(&mut Uses)| {
        for p in ps {
            if let Some(u) = uses.get_mut(p as usize) {
                f(u);
            }
        }
    };
    for inst in f.blocks.iter().flat_map(|b| &b.insts) {
        match &inst.op {
            Op::Load { space, addr, .. } | Op::Prefetch { space, addr } if *space != ir::StateSpace::Param => mark(base_param(addr), &|u| u.address = true),
            Op::Store { addr, src, .. } => {
                mark(base_param(addr), &|u| {
                    u.address = true;
                    u.written = true;
                });
                // An address stored to memory may be written through elsewhere.
                for s in src {
                    mark(of(&holds, s), &|u| u.written = true);
                }
            }
            Op::Atomic { addr, .. } => mark(base_param(addr), &|u| {
                u.address = true;
                u.written = true;
            }),
            Op::AsyncCopy { dst, src, .. } => {
                mark(base_param(dst), &|u| {
                    u.address = true;
                    u.written = true;
                });
                mark(base_param(src), &|u| u.address = true);
            }
            Op::Cvta { src, .. } => mark(of(&holds, src), &|u| u.address = true),
            // An address handed to a function may be written through there.
            Op::Call { args, .. } => {
                for a in args {
                    mark(of(&holds, a), &|u| u.written = true);
                }
            }
            Op::Texture(t) => match t {
                ir::TextureOp::Fetch { texture, .. } => mark(of(&holds, texture), &|u| u.texture = true),
                ir::TextureOp::SurfaceLoad { surface, .. } | ir::TextureOp::SurfaceStore { surface, .. } | ir::TextureOp::SurfaceReduce { surface, .. } => {
                    mark(of(&holds, surface), &|u| u.surface = true)
                }
                _ => {}
            },
            _ => {}
        }
    }
    uses
}

/// Whether a C++ type name is a built-in arithmetic type (what the header can spell).
fn is_builtin(t: &str) -> bool {
    matches!(
        t,
        "void"
            | "bool"
            | "char"
            | "signed char"
            | "unsigned char"
            | "wchar_t"
            | "char16_t"
            | "char32_t"
            | "short"
            | "unsigned short"
            | "int"
            | "unsigned int"
            | "long"
            | "unsigned long"
            | "long long"
            | "unsigned long long"
            | "float"
            | "double"
    )
}

/// Parses one demangled parameter type (`float const*`, `unsigned long`, `float4*`).
fn parse_cpp_type(text: &str) -> CppType {
    let text = text.trim().to_string();
    let opaque = CppType { builtin: None, stars: 0, const_pointee: false, text: text.clone() };
    if text.contains(['(', '[', '<', '&']) {
        return opaque;
    }
    let mut rest = text.as_str();
    let mut stars = 0;
    // Trailing qualifiers and pointer levels: `T const* const*`.
    loop {
        rest = rest.trim_end();
        if let Some(r) = rest.strip_suffix('*') {
            stars += 1;
            rest = r;
        } else if let Some(r) = rest.strip_suffix(" restrict").or_else(|| rest.strip_suffix(" volatile")) {
            rest = r;
        } else if stars > 0 && rest.ends_with(" const") && rest.trim_end_matches(" const").ends_with('*') {
            // A const pointer (not pointee): nothing for the caller.
            rest = rest.strip_suffix(" const").unwrap_or(rest);
        } else {
            break;
        }
    }
    let mut base = rest.trim().to_string();
    let mut const_pointee = false;
    for q in [" const", " volatile"] {
        if let Some(b) = base.strip_suffix(q) {
            const_pointee |= q == " const";
            base = b.to_string();
        }
    }
    if let Some(b) = base.strip_prefix("const ") {
        const_pointee = true;
        base = b.to_string();
    }
    let builtin = is_builtin(&base).then_some(base);
    CppType { builtin, stars, const_pointee: const_pointee && stars > 0, text }
}

/// Splits `a, b<c, d>, e (*)(f, g)` at its top-level commas.
fn split_top_level(s: &str) -> Vec<String> {
    let (mut depth, mut cur, mut out) = (0i32, String::new(), vec![]);
    for c in s.chars() {
        match c {
            '(' | '<' | '[' => depth += 1,
            ')' | '>' | ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(std::mem::take(&mut cur).trim().to_string());
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// The demangled name and parameter types of an Itanium-mangled kernel name.
pub fn demangle_kernel(name: &str) -> Option<CppKernel> {
    if !name.starts_with("_Z") {
        return None;
    }
    let sym = cpp_demangle::Symbol::new(name.as_bytes()).ok()?;
    let qualified = sym.demangle_with_options(&cpp_demangle::DemangleOptions::new().no_params().no_return_type()).ok()?;
    let display = sym.demangle_with_options(&cpp_demangle::DemangleOptions::new().no_return_type()).ok()?;
    let params = display.strip_prefix(qualified.as_str())?.trim();
    let params = params.strip_prefix('(')?.strip_suffix(')')?;
    let params: Vec<CppType> =
        if params.trim().is_empty() || params.trim() == "void" { vec![] } else { split_top_level(params).iter().map(|p| parse_cpp_type(p)).collect() };
    // `ns::inner::kernel<float>` -> namespaces and the name without template arguments.
    let mut parts = split_scope(&qualified);
    let last = parts.pop()?;
    let name = last.split('<').next().unwrap_or(&last).trim().to_string();
    let plain = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !s.starts_with(|c: char| c.is_ascii_digit());
    if !plain(&name) || !parts.iter().all(|p| plain(p)) {
        // Anonymous namespaces, operators, lambdas: nothing a header could name.
        return None;
    }
    Some(CppKernel { display, namespaces: parts, name, params })
}

/// Splits `a::b<c::d>::e` at its top-level `::`.
fn split_scope(s: &str) -> Vec<String> {
    let (mut depth, mut cur, mut out) = (0i32, String::new(), vec![]);
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '(' | '<' => depth += 1,
            ')' | '>' => depth -= 1,
            ':' if depth == 0 && chars.peek() == Some(&':') => {
                chars.next();
                out.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    out.push(cur);
    out
}

/// The kernels of `m` with what their parameters are.
pub fn kernel_signatures(m: &ir::Module) -> Vec<KernelInfo> {
    let mut out = vec![];
    for f in m.functions.iter().filter(|f| f.kind == ir::FunctionKind::Entry && f.has_body) {
        let uses = param_uses(f);
        let cpp = demangle_kernel(&f.name).filter(|c| c.params.len() == f.params.len());
        let mut params = vec![];
        for (i, p) in f.params.iter().enumerate() {
            let u = uses[i];
            let cpp_pointer = cpp.as_ref().is_some_and(|c| c.params[i].stars > 0);
            let kind = if p.size > p.ty.bytes() {
                ParamKind::Bytes
            } else if p.handle.is_some() || (p.ty.bits() == 64 && u.texture && !u.address) {
                if u.surface || matches!(p.handle, Some(ir::HandleKind::Surface)) {
                    ParamKind::Surface
                } else {
                    ParamKind::Texture
                }
            } else if p.ty.bits() == 64 && u.surface && !u.address {
                ParamKind::Surface
            } else if p.ty.bits() == 64 && (p.ptr || u.address || cpp_pointer) {
                // Never written through where every use is seen (loads, address arithmetic,
                // comparisons); stores, atomics, calls and stores of the address itself may.
                ParamKind::Pointer { written: u.written }
            } else {
                ParamKind::Value(p.ty)
            };
            let prefix = format!("{}_param_", f.name);
            let short_name = match p.name.strip_prefix(&prefix) {
                Some(n) if n.chars().all(|c| c.is_ascii_digit()) && !n.is_empty() => {
                    format!("param_{n}")
                }
                _ => c_identifier(&p.name),
            };
            params.push(ParamInfo { ptx_name: p.name.clone(), short_name, kind, size: p.size });
        }
        out.push(KernelInfo { ptx_name: f.name.clone(), c_name: c_identifier(&f.name), params, cpp });
    }
    out
}

/// The C declaration of the descriptor symbol, named `__ptxrt_kernel_<c_name>` in C and
/// linked to the real symbol by an assembler label (PTX names may hold `$` or `.`).
fn descriptor_ident(k: &KernelInfo) -> String {
    format!("__ptxrt_kernel_{}", k.c_name)
}

/// The C type of a C++ parameter for the readable launcher, or `None` when it needs a
/// template parameter (`T<i>`).
fn cpp_param_decl(t: &CppType, i: usize, name: &str, templates: &mut Vec<String>) -> String {
    let stars = "*".repeat(t.stars);
    match &t.builtin {
        Some(b) if t.stars > 0 => format!("{}{b} {stars}{name}", if t.const_pointee { "const " } else { "" }),
        Some(b) => format!("{b} {name}"),
        None if t.stars > 0 => {
            templates.push(format!("typename T{i}"));
            format!("{}T{i} {stars}{name}", if t.const_pointee { "const " } else { "" })
        }
        None => {
            templates.push(format!("typename T{i}"));
            format!("const T{i} &{name}")
        }
    }
}

/// The header text for the kernels of `m`; `guard` names the include guard.
pub fn launch_header(m: &ir::Module, source_name: &str, guard: &str) -> String {
    let kernels = kernel_signatures(m);
    let mut h = String::new();
    let guard = c_identifier(guard).to_uppercase();
    let _ = writeln!(h, "/* Typed launch functions for the kernels of {source_name}, written by ptx2llvm --header.");
    let _ = writeln!(h, " * Link the object translated from the same PTX and ptxrt (libptxrt.a). Each launcher refers");
    let _ = writeln!(h, " * to its kernel's descriptor, so the object is linked even from a static archive. */");
    let _ = writeln!(h, "#ifndef {guard}\n#define {guard}\n");
    let _ = writeln!(h, "#include <stdbool.h>\n#include <stddef.h>\n#include <stdint.h>\n\n#include \"ptxrt.h\"\n");
    let _ = writeln!(h, "#ifdef __cplusplus\nextern \"C\" {{\n#endif\n");
    for k in &kernels {
        let mut params = vec![];
        let mut args = vec![];
        let mut sizes = vec![];
        for p in &k.params {
            let name = c_identifier(&p.ptx_name);
            match p.kind {
                ParamKind::Bytes => {
                    // A struct or array passed by value: the caller gives its bytes.
                    params.push(format!("const void *{name} /* {} bytes */", p.size));
                    args.push(format!("(void *){name}"));
                    sizes.push(p.size.to_string());
                    continue;
                }
                ParamKind::Pointer { written: true } => params.push(format!("void *{name}")),
                ParamKind::Pointer { written: false } => params.push(format!("const void *{name}")),
                ParamKind::Texture => params.push(format!("ptxrtTextureObject_t {name}")),
                ParamKind::Surface => params.push(format!("ptxrtSurfaceObject_t {name}")),
                ParamKind::Value(ty) => params.push(format!("{} {name}", c_type(ty))),
            }
            args.push(format!("(void *)&{name}"));
            sizes.push(format!("sizeof {name}"));
        }
        let desc = descriptor_ident(k);
        let _ = writeln!(h, "extern const ptxrtKernel {desc} __asm__(\"{}\");", crate::lower::abi::kernel_symbol(&k.ptx_name));
        let fname = format!("{}_launch", k.c_name);
        let mut sig = format!("static inline ptxrtError_t {fname}(ptxrtDim3 grid, ptxrtDim3 block, size_t dynamicSharedBytes");
        for p in &params {
            let _ = write!(sig, ", {p}");
        }
        sig.push(')');
        match &k.cpp {
            Some(cpp) => {
                let _ = writeln!(h, "/* Launches `{}` ({}) and waits for it. */", k.ptx_name, cpp.display);
            }
            None => {
                let _ = writeln!(h, "/* Launches `{}` and waits for it. */", k.ptx_name);
            }
        }
        let _ = writeln!(h, "{sig}\n{{");
        let _ = writeln!(h, "    const ptxrtLaunchConfig config = {{grid, block, dynamicSharedBytes, NULL}};");
        if args.is_empty() {
            let _ = writeln!(h, "    return ptxrtLaunchKernelEx(&{desc}, &config, NULL, NULL, 0);");
        } else {
            let _ = writeln!(h, "    void *args[] = {{{}}};", args.join(", "));
            let _ = writeln!(h, "    const size_t sizes[] = {{{}}};", sizes.join(", "));
            let _ = writeln!(h, "    return ptxrtLaunchKernelEx(&{desc}, &config, args, sizes, {});", args.len());
        }
        let _ = writeln!(h, "}}\n");
    }
    if !kernels.is_empty() {
        let refs: Vec<String> = kernels.iter().map(|k| format!("&{}", descriptor_ident(k))).collect();
        let _ = writeln!(h, "#ifdef PTX2LLVM_REFER_TO_KERNELS");
        let _ = writeln!(h, "/* Refers to every kernel of {source_name}: a translation unit that defines this macro before");
        let _ = writeln!(h, " * including the header makes the linker take the kernels' object out of a static archive,");
        let _ = writeln!(h, " * also for kernels looked up by name (ptx2llvm_add_library compiles one such file). */");
        let _ = writeln!(h, "__attribute__((used)) static const ptxrtKernel *const __ptxrt_kernels_of_{guard}[] = {{{}}};", refs.join(", "));
        let _ = writeln!(h, "#endif\n");
    }
    let _ = writeln!(h, "#ifdef __cplusplus\n}} /* extern \"C\" */");
    write_cpp_launchers(&mut h, &kernels);
    let _ = writeln!(h, "#endif /* __cplusplus */\n\n#endif /* {guard} */");
    h
}

/// Readable C++ launchers for C++ kernels: `ns::name_launch(grid, block, shared, <the
/// source's parameter types>)`, overloaded by parameter types.
fn write_cpp_launchers(h: &mut String, kernels: &[KernelInfo]) {
    // Each launcher's text by (namespaces, rendered signature): two kernels that would give
    // the same overload (template instances differing only in a template argument that is
    // not a parameter type) keep only their mangled C launchers.
    let mut rendered: Vec<(Vec<String>, String, String)> = vec![];
    for k in kernels {
        let Some(cpp) = &k.cpp else { continue };
        let mut templates = vec![];
        let mut params = vec![];
        let mut args = vec![];
        for (i, (t, p)) in cpp.params.iter().zip(&k.params).enumerate() {
            let name = format!("p{i}");
            if p.kind == ParamKind::Bytes && t.builtin.is_some() {
                // A built-in type for a byte array: the demangled name and the PTX disagree.
                templates.clear();
                params.clear();
                break;
            }
            params.push(cpp_param_decl(t, i, &name, &mut templates));
            args.push(format!("(void *)&{name}"));
        }
        if params.len() != cpp.params.len() {
            continue;
        }
        let mut text = String::new();
        let _ = writeln!(text, "/* Launches {} (`{}`) and waits for it. */", cpp.display, k.ptx_name);
        if !templates.is_empty() {
            let _ = writeln!(text, "template <{}>", templates.join(", "));
        }
        let mut sig = format!("inline ptxrtError_t {}_launch(ptxrtDim3 grid, ptxrtDim3 block, size_t dynamicSharedBytes", cpp.name);
        for p in &params {
            let _ = write!(sig, ", {p}");
        }
        sig.push(')');
        let key = format!("{}{sig}", templates.join(","));
        let _ = writeln!(text, "{sig}\n{{");
        let _ = writeln!(text, "    const ptxrtLaunchConfig config = {{grid, block, dynamicSharedBytes, NULL}};");
        if args.is_empty() {
            let _ = writeln!(text, "    return ptxrtLaunchKernelEx(&::{}, &config, NULL, NULL, 0);", descriptor_ident(k));
        } else {
            let sizes: Vec<String> = (0..args.len()).map(|i| format!("sizeof p{i}")).collect();
            let _ = writeln!(text, "    void *args[] = {{{}}};", args.join(", "));
            let _ = writeln!(text, "    const size_t sizes[] = {{{}}};", sizes.join(", "));
            let _ = writeln!(text, "    return ptxrtLaunchKernelEx(&::{}, &config, args, sizes, {});", descriptor_ident(k), args.len());
        }
        let _ = writeln!(text, "}}");
        rendered.push((cpp.namespaces.clone(), key, text));
    }
    let mut count: HashMap<(Vec<String>, String), usize> = HashMap::new();
    for (ns, key, _) in &rendered {
        *count.entry((ns.clone(), key.clone())).or_default() += 1;
    }
    for (ns, key, text) in &rendered {
        if count[&(ns.clone(), key.clone())] > 1 {
            let _ = writeln!(h, "\n/* Not declared (it would be the same overload as another kernel's): {} */", key.replace("*/", "* /"));
            continue;
        }
        let _ = writeln!(h);
        for n in ns {
            let _ = writeln!(h, "namespace {n} {{");
        }
        h.push_str(text);
        for n in ns.iter().rev() {
            let _ = writeln!(h, "}} /* namespace {n} */");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn demangled_kernels() {
        let k = demangle_kernel("_Z20needle_cuda_shared_1PiS_iiii").unwrap();
        assert_eq!(k.name, "needle_cuda_shared_1");
        assert!(k.namespaces.is_empty());
        assert_eq!(k.params.len(), 6);
        assert_eq!((k.params[0].builtin.as_deref(), k.params[0].stars), (Some("int"), 1));
        assert_eq!((k.params[2].builtin.as_deref(), k.params[2].stars), (Some("int"), 0));
        let k = demangle_kernel("_ZN2ns4kernEPKdm").unwrap();
        assert_eq!(k.namespaces, ["ns"]);
        assert!(k.params[0].const_pointee && k.params[0].builtin.as_deref() == Some("double"));
        assert_eq!(k.params[1].builtin.as_deref(), Some("unsigned long"));
        let k = demangle_kernel("_Z1kIfEvPT_").unwrap();
        assert_eq!((k.name.as_str(), k.params[0].stars), ("k", 1));
        let k = demangle_kernel("_Z5step2P6float4S0_").unwrap();
        assert_eq!((k.params[0].builtin.clone(), k.params[0].stars), (None, 1));
        let k = demangle_kernel("_Z4scanPPKfPFviE").unwrap();
        assert_eq!((k.params[0].builtin.as_deref(), k.params[0].stars, k.params[0].const_pointee), (Some("float"), 2, true));
        assert_eq!((k.params[1].builtin.clone(), k.params[1].stars), (None, 0));
        assert!(demangle_kernel("_ZN12_GLOBAL__N_11kEv").is_none());
        assert!(demangle_kernel("vecadd").is_none());
    }
}

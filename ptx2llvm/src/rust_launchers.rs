//! `--rust`: safe typed launchers for Rust, one function per kernel.
//!
//! For `vecadd(const float *a, const float *b, float *c, int n)` (NVCC's `_Z6vecaddPKfS0_Pfi`)
//! it writes
//!
//! ```text
//! pub fn vecadd(config: ptxrt::LaunchConfig, param_0: &[f32], param_1: &[f32],
//!               param_2: &mut [f32], param_3: i32) -> Result<(), ptxrt::Error>
//! ```
//!
//! Pointer parameters (as [`crate::header::kernel_signatures`] finds them) take slices,
//! `&mut` where the kernel may write through them; their element type comes from a C++
//! kernel's demangled name, else it is generic. Values keep their type, texture and surface
//! objects are `u64`, structs passed by value are `&T` for any `T: Copy` of the right size
//! (checked at launch, as are all sizes, by `ptxrt::launch`). Each launcher refers to its
//! kernel's descriptor, so the linker takes the object out of a static archive.

use crate::header::{kernel_signatures, CppType, KernelInfo, ParamKind};
use crate::ir::{self, ScalarType};
use std::collections::HashMap;
use std::fmt::Write as _;

const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern", "false", "fn", "for", "gen", "if", "impl", "in", "let",
    "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use",
    "where", "while", "abstract", "become", "box", "do", "final", "macro", "override", "priv", "try", "typeof", "unsized", "virtual", "yield",
];

/// A Rust identifier for a C identifier (keywords become raw identifiers).
fn rust_ident(name: &str) -> String {
    if KEYWORDS.contains(&name) {
        format!("r#{name}")
    } else {
        name.to_string()
    }
}

fn rust_scalar(ty: ScalarType) -> &'static str {
    match ty {
        ScalarType::S8 => "i8",
        ScalarType::S16 => "i16",
        ScalarType::S32 => "i32",
        ScalarType::S64 => "i64",
        ScalarType::U8 | ScalarType::B8 => "u8",
        ScalarType::U16 | ScalarType::B16 | ScalarType::F16 | ScalarType::BF16 => "u16",
        ScalarType::F32 => "f32",
        ScalarType::F64 => "f64",
        ScalarType::Pred => "bool",
        t if t.bits() == 64 => "u64",
        _ => "u32",
    }
}

/// The Rust type of a C++ built-in type on LP64 Linux.
fn rust_builtin(t: &str) -> Option<&'static str> {
    Some(match t {
        "bool" => "bool",
        "char" => "::core::ffi::c_char",
        "signed char" => "i8",
        "unsigned char" => "u8",
        "short" => "i16",
        "unsigned short" => "u16",
        "int" => "i32",
        "unsigned int" => "u32",
        "long" | "long long" => "i64",
        "unsigned long" | "unsigned long long" => "u64",
        "float" => "f32",
        "double" => "f64",
        _ => return None,
    })
}

/// The element type of a C++ pointer parameter, if it is a built-in one.
fn element_type(t: Option<&CppType>) -> Option<&'static str> {
    let t = t?;
    if t.stars != 1 {
        return None;
    }
    rust_builtin(t.builtin.as_deref()?)
}

/// Function names: the C++ name where it is unique, else the C identifier of the PTX name.
fn function_names(kernels: &[KernelInfo]) -> Vec<String> {
    let mut count: HashMap<&str, usize> = HashMap::new();
    for k in kernels {
        *count.entry(k.cpp.as_ref().map_or(k.c_name.as_str(), |c| c.name.as_str())).or_default() += 1;
    }
    kernels
        .iter()
        .map(|k| match &k.cpp {
            Some(c) if count[c.name.as_str()] == 1 && !kernels.iter().any(|o| o.cpp.is_none() && o.c_name == c.name) => rust_ident(&c.name),
            _ => rust_ident(&k.c_name),
        })
        .collect()
}

/// The Rust source of the launchers for the kernels of `m`.
pub fn rust_launchers(m: &ir::Module, source_name: &str) -> String {
    let kernels = kernel_signatures(m);
    let names = function_names(&kernels);
    let mut r = String::new();
    let _ = writeln!(r, "// Safe typed launchers for the kernels of {source_name}, written by `ptx2llvm --rust`.");
    let _ = writeln!(r, "// Include it in a module of a crate that depends on `ptxrt` and links the object translated");
    let _ = writeln!(r, "// from the same PTX (the `ptx2llvm-build` crate does both):");
    let _ = writeln!(r, "//     mod kernels {{ include!(concat!(env!(\"OUT_DIR\"), \"/kernels.rs\")); }}");
    if kernels.is_empty() {
        return r;
    }
    let _ = writeln!(r, "\n#[allow(dead_code, non_upper_case_globals)]\nunsafe extern \"C\" {{");
    for k in &kernels {
        let _ = writeln!(r, "    #[link_name = \"{}\"]", crate::lower::abi::kernel_symbol(&k.ptx_name));
        let _ = writeln!(r, "    static __ptxrt_kernel_{}: ::ptxrt::Kernel;", k.c_name);
    }
    let _ = writeln!(r, "}}");
    for (k, fname) in kernels.iter().zip(&names) {
        let mut generics = vec![];
        let mut params = vec![];
        let mut setup = vec![];
        let mut args = vec![];
        for (i, p) in k.params.iter().enumerate() {
            let name = rust_ident(&p.short_name);
            let cpp = k.cpp.as_ref().map(|c| &c.params[i]);
            match p.kind {
                ParamKind::Pointer { written } => {
                    let elem = element_type(cpp).map(str::to_string).unwrap_or_else(|| {
                        generics.push(format!("T{i}: Copy"));
                        format!("T{i}")
                    });
                    if written {
                        params.push(format!("{name}: &mut [{elem}]"));
                        setup.push(format!("let {name} = {name}.as_mut_ptr();"));
                    } else {
                        params.push(format!("{name}: &[{elem}]"));
                        setup.push(format!("let {name} = {name}.as_ptr();"));
                    }
                    args.push(format!("::ptxrt::KernelArg::value(&{name})"));
                }
                ParamKind::Bytes => {
                    generics.push(format!("T{i}: Copy"));
                    params.push(format!("{name}: &T{i}"));
                    args.push(format!("::ptxrt::KernelArg::value({name})"));
                }
                ParamKind::Texture | ParamKind::Surface => {
                    params.push(format!("{name}: u64"));
                    args.push(format!("::ptxrt::KernelArg::value(&{name})"));
                }
                ParamKind::Value(ty) => {
                    let cpp_ty = cpp.filter(|t| t.stars == 0).and_then(|t| rust_builtin(t.builtin.as_deref()?));
                    params.push(format!("{name}: {}", cpp_ty.unwrap_or(rust_scalar(ty))));
                    args.push(format!("::ptxrt::KernelArg::value(&{name})"));
                }
            }
        }
        let _ = writeln!(r);
        match &k.cpp {
            Some(c) => {
                let _ = writeln!(r, "/// Launches `{}` (`{}`) and waits for it.", c.display, k.ptx_name);
            }
            None => {
                let _ = writeln!(r, "/// Launches `{}` and waits for it.", k.ptx_name);
            }
        }
        let _ = writeln!(r, "///");
        let _ = writeln!(r, "/// Slices are passed as the addresses of their first elements: the kernel must stay within");
        let _ = writeln!(r, "/// them, as its CUDA launch would have to. The number and sizes of the arguments are checked");
        let _ = writeln!(r, "/// against the kernel's parameters; errors (a bad configuration, a trap) are returned.");
        let _ = writeln!(r, "#[allow(dead_code, non_snake_case, clippy::too_many_arguments)]");
        let generics = if generics.is_empty() { String::new() } else { format!("<{}>", generics.join(", ")) };
        let mut sig = format!("pub fn {fname}{generics}(config: ::ptxrt::LaunchConfig");
        for p in &params {
            let _ = write!(sig, ", {p}");
        }
        let _ = writeln!(r, "{sig}) -> ::core::result::Result<(), ::ptxrt::Error> {{");
        for s in &setup {
            let _ = writeln!(r, "    {s}");
        }
        let _ = writeln!(r, "    // SAFETY: the descriptor is the kernel's, defined by the linked object; every argument");
        let _ = writeln!(r, "    // points at a live value of its size, addresses at the caller's slices.");
        let _ = writeln!(r, "    unsafe {{ ::ptxrt::launch(&__ptxrt_kernel_{}, &config, &[{}]) }}", k.c_name, args.join(", "));
        let _ = writeln!(r, "}}");
    }
    r
}

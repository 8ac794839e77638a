//! The registry of linked modules: kernels and module variables by PTX name, and the
//! per-kernel shared-memory opt-in.
//!
//! Objects register themselves from static constructors, i.e. before `main` and before
//! any other runtime call, possibly from `dlopen` on any thread. So the state is in
//! const-initialised statics behind plain mutexes, and nothing here may panic.

use std::collections::BTreeMap;
use std::ffi::{c_void, CStr};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, RwLock};

use crate::abi::{Kernel, Module, SymbolInfo, ABI_VERSION};
use crate::error::Error;

/// A registered module. Modules are compiler-emitted constants that live as long as the
/// object defining them is loaded (objects unloaded with `dlclose` unregister first).
#[derive(Clone, Copy, PartialEq, Eq)]
struct ModuleRef(*const Module);

// SAFETY: the pointee is immutable constant data (see `abi::Module`'s `Sync`), so the
// pointer may move between threads.
unsafe impl Send for ModuleRef {}

static MODULES: Mutex<Vec<ModuleRef>> = Mutex::new(Vec::new());

/// Per kernel (by descriptor address): the largest dynamic shared size allowed by
/// `ptxrtFuncSetMaxDynamicSharedMemory`. Kernels absent here have the default limit. Every
/// launch reads it: a reader-writer lock (launches never wait for each other), skipped
/// altogether until a limit is set.
static MAX_DYNAMIC_SHARED: RwLock<BTreeMap<usize, u32>> = RwLock::new(BTreeMap::new());
static ANY_MAX_DYNAMIC_SHARED: AtomicBool = AtomicBool::new(false);

/// Locks ignoring poisoning: the protected data is always consistent (single pushes and
/// inserts), and a panic elsewhere must not make the registry unusable.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// `__ptxrt_register_module`. Null and repeated registrations are ignored. Modules of
/// another ABI version are kept (to explain later look-up failures) but never read beyond
/// their version field.
pub(crate) fn register(module: *const Module) {
    if module.is_null() {
        return;
    }
    let mut modules = lock(&MODULES);
    let entry = ModuleRef(module);
    if !modules.contains(&entry) {
        modules.push(entry);
    }
}

/// `__ptxrt_unregister_module`: for objects that are unloaded again.
pub(crate) fn unregister(module: *const Module) {
    if module.is_null() {
        return;
    }
    let removed = {
        let mut modules = lock(&MODULES);
        let before = modules.len();
        modules.retain(|m| m.0 != module);
        before != modules.len()
    };
    if removed {
        let mut limits = MAX_DYNAMIC_SHARED.write().unwrap_or_else(|poisoned| poisoned.into_inner());
        for kernel in module_kernels(module) {
            limits.remove(&(kernel as *const Kernel as usize));
        }
    }
}

/// The usable kernels of a module (empty if the module has another ABI version);
/// descriptors with another ABI version or without a name are skipped.
fn module_kernels(module: *const Module) -> impl Iterator<Item = &'static Kernel> {
    // SAFETY: registered module pointers point at constant descriptors that stay valid
    // while registered (see `ModuleRef`); the version is checked before any other field is
    // read, and arrays are read within their declared lengths.
    let m: &'static Module = unsafe { &*module };
    let kernels: &'static [*const Kernel] = if m.abi_version != ABI_VERSION || m.num_kernels == 0 || m.kernels.is_null() {
        &[]
    } else {
        // SAFETY: see above; `kernels` holds `num_kernels` entries.
        unsafe { std::slice::from_raw_parts(m.kernels, m.num_kernels as usize) }
    };
    kernels.iter().filter_map(|&k| {
        // SAFETY: entries are null or point at constant kernel descriptors of the module.
        let k: &'static Kernel = unsafe { k.as_ref()? };
        (k.abi_version == ABI_VERSION && !k.name.is_null()).then_some(k)
    })
}

/// The symbols of a module, empty for another ABI version.
fn module_symbols(module: *const Module) -> &'static [SymbolInfo] {
    // SAFETY: as in `module_kernels`.
    let m: &'static Module = unsafe { &*module };
    if m.abi_version != ABI_VERSION || m.num_symbols == 0 || m.symbols.is_null() {
        return &[];
    }
    // SAFETY: `symbols` holds `num_symbols` entries of constant data.
    unsafe { std::slice::from_raw_parts(m.symbols, m.num_symbols as usize) }
}

/// A note for "not found" messages about descriptors skipped for their ABI version, so a
/// stale object does not look like a missing one.
fn ignored_note(modules: &[ModuleRef]) -> String {
    let mut ignored_modules = 0usize;
    let mut ignored_kernels = 0usize;
    for m in modules {
        // SAFETY: as in `module_kernels`; only the version fields are read from
        // descriptors of another version.
        let module = unsafe { &*m.0 };
        if module.abi_version != ABI_VERSION {
            ignored_modules += 1;
            continue;
        }
        if module.kernels.is_null() {
            continue;
        }
        // SAFETY: `kernels` holds `num_kernels` entries.
        let ks = unsafe { std::slice::from_raw_parts(module.kernels, module.num_kernels as usize) };
        // SAFETY: entries are null or point at kernel descriptors.
        ignored_kernels += ks.iter().filter(|&&k| unsafe { k.as_ref() }.is_some_and(|k| k.abi_version != ABI_VERSION)).count();
    }
    if ignored_modules == 0 && ignored_kernels == 0 {
        return String::new();
    }
    format!(
        " ({ignored_modules} module(s) and {ignored_kernels} kernel(s) were ignored because \
         they were built for another ptxrt ABI version than {ABI_VERSION}; rebuild them with \
         a matching ptx2llvm)"
    )
}

/// Finds a kernel by PTX `.entry` name; the first registered module defining it wins.
pub fn find_kernel(name: &CStr) -> Result<&'static Kernel, Error> {
    let modules = lock(&MODULES);
    for m in modules.iter() {
        for k in module_kernels(m.0) {
            // SAFETY: `module_kernels` only yields kernels with a non-null name, a
            // NUL-terminated constant string.
            if unsafe { CStr::from_ptr(k.name) } == name {
                return Ok(k);
            }
        }
    }
    let registered: Vec<String> = modules
        .iter()
        .flat_map(|m| module_kernels(m.0))
        // SAFETY: as above.
        .map(|k| unsafe { CStr::from_ptr(k.name) }.to_string_lossy().into_owned())
        .collect();
    Err(Error::not_found(format!(
        "no registered module defines a kernel named '{}'{}{}",
        name.to_string_lossy(),
        ignored_note(&modules),
        not_found_hints(&name.to_string_lossy(), &registered)
    )))
}

/// The base name of an Itanium-mangled C++ function (`_Z4Stepv` -> `Step`,
/// `_ZN2ns4StepEPf` -> `Step`), or `None` for other names.
fn mangled_base_name(name: &str) -> Option<&str> {
    let mut rest = name.strip_prefix("_Z")?;
    rest = rest.strip_prefix('L').unwrap_or(rest);
    let nested = rest.starts_with('N');
    if nested {
        rest = &rest[1..];
        // CV-qualifiers of member functions cannot occur on kernels; skip them anyway.
        rest = rest.trim_start_matches(['r', 'V', 'K']);
    }
    let mut last = None;
    loop {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            break;
        }
        let len: usize = rest[..digits].parse().ok()?;
        let ident = rest.get(digits..digits + len)?;
        last = Some(ident);
        rest = &rest[digits + len..];
        if !nested {
            break;
        }
    }
    last
}

/// Levenshtein distance over bytes, case-insensitive.
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b) = (a.to_ascii_lowercase().into_bytes(), b.to_ascii_lowercase().into_bytes());
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, &ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, &cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != cb)).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// What to say after "no registered module defines a kernel named ...": the registered
/// kernels closest to `wanted` (C++ kernels whose unmangled name it is first), and the
/// usual causes.
fn not_found_hints(wanted: &str, registered: &[String]) -> String {
    const LINKING: &str = "An object that is in a static archive is only linked when \
        something refers to one of its symbols: link the archive with -Wl,--whole-archive \
        (CMake: ptx2llvm_add_library does), or launch the kernel through the launcher that \
        `ptx2llvm --header` (or --rust) writes, which refers to the kernel's descriptor.";
    if registered.is_empty() {
        return format!(
            ". No kernel is registered at all: no object translated by ptx2llvm was linked \
             into the program, or its constructor did not run (objects written before ptx2llvm \
             put it in .init_array had it in .ctors, which LLD never runs: translate them \
             again). {LINKING}"
        );
    }
    let mut candidates: Vec<(usize, &str)> = vec![];
    for k in registered {
        let base = mangled_base_name(k);
        let score = if base == Some(wanted) {
            0
        } else if base.is_some_and(|b| b.eq_ignore_ascii_case(wanted)) || k.eq_ignore_ascii_case(wanted) {
            1
        } else {
            let d = edit_distance(wanted, base.unwrap_or(k)).min(edit_distance(wanted, k));
            if d > (wanted.len() / 3).max(2) {
                continue;
            }
            1 + d
        };
        candidates.push((score, k));
    }
    candidates.sort();
    candidates.dedup();
    let mut out = String::from(". ");
    if candidates.is_empty() {
        let shown: Vec<String> = registered.iter().take(8).map(|k| format!("'{k}'")).collect();
        out.push_str(&format!(
            "Registered kernels: {}{}. ",
            shown.join(", "),
            if registered.len() > 8 { format!(" and {} more", registered.len() - 8) } else { String::new() }
        ));
    } else {
        let shown: Vec<String> = candidates
            .iter()
            .take(3)
            .map(|(_, k)| match mangled_base_name(k) {
                Some(base) => format!("'{k}' (the C++ kernel {base})"),
                None => format!("'{k}'"),
            })
            .collect();
        out.push_str(&format!("Closest registered kernels: {}. ", shown.join(", ")));
    }
    if candidates.iter().any(|(score, k)| *score == 0 && mangled_base_name(k).is_some()) {
        out.push_str(
            "C++ kernels are registered under their mangled names: look that name up, declare \
             the kernel extern \"C\" in the CUDA source, or use the typed launcher of \
             `ptx2llvm --header`. ",
        );
    }
    out.push_str(&format!("If the kernel is in another object: {LINKING}"));
    out
}

/// Finds a module-scope `.global`/`.const` variable: its address and size in bytes.
pub fn get_symbol(name: &CStr) -> Result<(*mut c_void, u64), Error> {
    let modules = lock(&MODULES);
    for m in modules.iter() {
        for s in module_symbols(m.0) {
            // SAFETY: symbol names are null or NUL-terminated constant strings.
            if !s.name.is_null() && unsafe { CStr::from_ptr(s.name) } == name {
                return Ok((s.addr, s.size));
            }
        }
    }
    Err(Error::not_found(format!("no registered module defines a .global or .const variable named '{}'{}", name.to_string_lossy(), ignored_note(&modules))))
}

/// The module variable (`.global`/`.const`) whose bytes contain `addr`: its start and size.
pub(crate) fn symbol_containing(addr: usize) -> Option<(usize, usize)> {
    let modules = lock(&MODULES);
    for m in modules.iter() {
        for s in module_symbols(m.0) {
            let base = s.addr as usize;
            let size = usize::try_from(s.size).unwrap_or(usize::MAX);
            if s.name.is_null() || base == 0 || size == 0 {
                continue;
            }
            // SAFETY: as above.
            let name = unsafe { CStr::from_ptr(s.name) }.to_bytes();
            if name.starts_with(b".texref:") || name.starts_with(b".surfref:") || name.starts_with(b".samplerref:") {
                continue;
            }
            if addr >= base && addr - base < size {
                return Some((base, size));
            }
        }
    }
    None
}

/// Whether `p` is the descriptor of a kernel of a registered module.
pub(crate) fn is_kernel(p: *const Kernel) -> bool {
    let modules = lock(&MODULES);
    modules.iter().any(|m| module_kernels(m.0).any(|k| std::ptr::eq(k, p)))
}

/// Every registered module's symbol of this exact name (texture, surface and sampler
/// references are listed as `.texref:NAME`, `.surfref:NAME`, `.samplerref:NAME`).
pub(crate) fn get_symbols(name: &CStr) -> Vec<(*mut c_void, u64)> {
    let modules = lock(&MODULES);
    let mut found = vec![];
    for m in modules.iter() {
        for s in module_symbols(m.0) {
            // SAFETY: symbol names are null or NUL-terminated constant strings.
            if !s.name.is_null() && unsafe { CStr::from_ptr(s.name) } == name {
                found.push((s.addr, s.size));
            }
        }
    }
    found
}

/// Remembers a kernel's dynamic shared-memory limit.
pub(crate) fn set_max_dynamic_shared(kernel: &Kernel, bytes: u32) {
    MAX_DYNAMIC_SHARED.write().unwrap_or_else(|poisoned| poisoned.into_inner()).insert(kernel as *const Kernel as usize, bytes);
    ANY_MAX_DYNAMIC_SHARED.store(true, Ordering::Release);
}

/// The limit set by `set_max_dynamic_shared`, if any.
pub(crate) fn max_dynamic_shared(kernel: &Kernel) -> Option<u32> {
    if !ANY_MAX_DYNAMIC_SHARED.load(Ordering::Acquire) {
        return None;
    }
    MAX_DYNAMIC_SHARED.read().unwrap_or_else(|poisoned| poisoned.into_inner()).get(&(kernel as *const Kernel as usize)).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mangled_names() {
        assert_eq!(mangled_base_name("_Z4Stepv"), Some("Step"));
        assert_eq!(mangled_base_name("_Z20needle_cuda_shared_1PiS_iiii"), Some("needle_cuda_shared_1"));
        assert_eq!(mangled_base_name("_ZN2ns6kernelEPf"), Some("kernel"));
        assert_eq!(mangled_base_name("_ZL6staticv"), Some("static"));
        assert_eq!(mangled_base_name("vecadd"), None);
        assert_eq!(mangled_base_name("_Z99x"), None);
    }

    #[test]
    fn hints_name_the_likely_kernel_and_the_causes() {
        let none = not_found_hints("Step", &[]);
        assert!(none.contains("No kernel is registered") && none.contains("--whole-archive"), "{none}");
        let registered = ["_Z4Stepv".to_string(), "reduce".to_string(), "scan".to_string()];
        let cpp = not_found_hints("Step", &registered);
        assert!(cpp.contains("'_Z4Stepv' (the C++ kernel Step)") && cpp.contains("extern \"C\""), "{cpp}");
        let typo = not_found_hints("reduc", &registered);
        assert!(typo.contains("Closest registered kernels: 'reduce'"), "{typo}");
        let other = not_found_hints("histogram", &registered);
        assert!(other.contains("Registered kernels: '_Z4Stepv', 'reduce', 'scan'") && other.contains("--whole-archive"), "{other}");
    }
}

//! Which targets and CPUs ptx2llvm accepts, checked before LLVM sees them.
//!
//! LLVM answers a CPU it does not know with warnings on the standard error, a 32-bit-only
//! x86 CPU on an x86-64 triple with a fatal error that aborts the process, and writes
//! Mach-O, COFF or 32-bit objects for triples ptxrt cannot run. So the command line is
//! validated here, with one clear message each: the triple must be an x86-64 or AArch64
//! Linux ELF one, and the CPU one that LLVM knows for it ([`X86_64_CPUS`],
//! [`AARCH64_CPUS`]: the names `llc -mcpu=help` lists for LLVM 19, less the x86 CPUs
//! without 64-bit mode; a unit test checks them against the installed LLVM).

use inkwell::targets::{InitializationConfig, Target, TargetMachine, TargetTriple};

/// The newest PTX ISA version whose forms the checker knows (`check::forms`).
pub const NEWEST_PTX_ISA: (u32, u32) = (9, 2);
/// The oldest PTX ISA version accepted.
pub const OLDEST_PTX_ISA: (u32, u32) = (1, 0);

/// The triples `--print-targets` lists. Any vendor is accepted (`x86_64-pc-linux-gnu`,
/// `aarch64-linux-gnu`), and the `musl` environment too.
pub const SUPPORTED_TARGETS: &[&str] = &["x86_64-unknown-linux-gnu", "aarch64-unknown-linux-gnu"];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arch {
    X86_64,
    Aarch64,
}

impl Arch {
    /// The architecture ptx2llvm itself runs on (that `--cpu native` describes).
    pub fn host() -> Option<Arch> {
        if cfg!(target_arch = "x86_64") {
            Some(Arch::X86_64)
        } else if cfg!(target_arch = "aarch64") {
            Some(Arch::Aarch64)
        } else {
            None
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Arch::X86_64 => "x86-64",
            Arch::Aarch64 => "AArch64",
        }
    }

    /// The CPU names `--cpu` accepts for this architecture (besides `native`).
    pub fn cpus(self) -> &'static [&'static str] {
        match self {
            Arch::X86_64 => X86_64_CPUS,
            Arch::Aarch64 => AARCH64_CPUS,
        }
    }

    /// A few well-known names, for messages.
    fn examples(self) -> &'static str {
        match self {
            Arch::X86_64 => "generic, native, x86-64-v2, x86-64-v3, x86-64-v4, skylake, znver4",
            Arch::Aarch64 => "generic, native, cortex-a72, neoverse-n1, neoverse-v2, apple-m4",
        }
    }
}

/// A validated target: the triple LLVM gets and its architecture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetSpec {
    pub triple: String,
    pub arch: Arch,
}

fn initialize_llvm_targets() {
    Target::initialize_x86(&InitializationConfig::default());
    Target::initialize_aarch64(&InitializationConfig::default());
}

/// Checks `--target` (`None`: this machine's triple).
pub fn resolve_target(requested: Option<&str>) -> Result<TargetSpec, String> {
    let (given, host) = match requested {
        Some(t) => (t.trim().to_string(), false),
        None => (TargetMachine::get_default_triple().as_str().to_string_lossy().into_owned(), true),
    };
    let normalized = TargetMachine::normalize_triple(&TargetTriple::create(&given)).as_str().to_string_lossy().into_owned();
    let parts: Vec<&str> = normalized.split('-').collect();
    let arch = match parts.first().copied() {
        Some("x86_64" | "amd64") => Some(Arch::X86_64),
        Some("aarch64" | "arm64") => Some(Arch::Aarch64),
        _ => None,
    };
    let os = parts.get(2).copied().unwrap_or("");
    let env = parts.get(3).copied().unwrap_or("");
    let linux_elf = os == "linux" && matches!(env, "" | "gnu" | "musl") && parts.len() <= 4;
    match arch {
        Some(arch) if linux_elf => Ok(TargetSpec { triple: normalized, arch }),
        _ => {
            let list = SUPPORTED_TARGETS.join(", ");
            if host {
                return Err(format!("this machine's target `{given}` is not one ptx2llvm writes objects for; pass --target with one of: {list}"));
            }
            initialize_llvm_targets();
            let known = Target::from_triple(&TargetTriple::create(&given)).is_ok();
            let why = if arch.is_none() && !known {
                format!("unknown target `{given}`")
            } else if arch.is_none() {
                format!("unsupported target `{given}`: ptxrt runs on x86-64 and AArch64 only")
            } else {
                format!("unsupported target `{given}`: ptx2llvm writes ELF objects for Linux only (what ptxrt runs on), not for this system or environment")
            };
            Err(format!("{why}; supported targets: {list} (any vendor, e.g. x86_64-pc-linux-gnu; `ptx2llvm --print-targets` lists them)"))
        }
    }
}

/// Checks a single `--cpu` name for the target (lists of x86-64 levels are checked by the
/// driver).
pub fn check_cpu(cpu: &str, target: &TargetSpec) -> Result<(), String> {
    let arch = target.arch;
    if cpu == "native" {
        return match Arch::host() {
            Some(host) if host == arch => Ok(()),
            Some(host) => Err(format!(
                "--cpu native means this machine's CPU, an {} one, but the target `{}` is {}: name an {} CPU (`ptx2llvm --target {} --print-cpus` lists them) or leave --cpu out for `generic`",
                host.name(),
                target.triple,
                arch.name(),
                arch.name(),
                target.triple
            )),
            None => Err(format!("--cpu native: this machine is neither x86-64 nor AArch64; name an {} CPU", arch.name())),
        };
    }
    if arch.cpus().contains(&cpu) {
        return Ok(());
    }
    let mut msg = format!("unknown CPU `{cpu}` for {} (`{}`)", arch.name(), target.triple);
    let other = match arch {
        Arch::X86_64 => Arch::Aarch64,
        Arch::Aarch64 => Arch::X86_64,
    };
    if other.cpus().contains(&cpu) && cpu != "generic" {
        msg.push_str(&format!(": it is an {} CPU (pass a matching --target).", other.name()));
    } else if arch == Arch::X86_64 && X86_32_ONLY_CPUS.contains(&cpu) {
        msg.push_str(": it has no 64-bit mode.");
    } else if let Some(near) = closest(cpu, arch.cpus()) {
        msg.push_str(&format!(": did you mean `{near}`?"));
    } else {
        msg.push('.');
    }
    msg.push_str(&format!(" Valid names include {}; `ptx2llvm --print-cpus` lists all", arch.examples()));
    if target.triple != resolve_target(None).map(|t| t.triple).unwrap_or_default() {
        msg.push_str(&format!(" (with --target {})", target.triple));
    }
    msg.push('.');
    Err(msg)
}

/// The closest name by edit distance, if it is close enough to be a likely typo.
fn closest<'a>(name: &str, names: &[&'a str]) -> Option<&'a str> {
    let lower = name.to_ascii_lowercase();
    names.iter().map(|n| (edit_distance(&lower, n), *n)).filter(|(d, n)| *d <= (n.len() / 3).max(1)).min_by_key(|(d, _)| *d).map(|(_, n)| n)
}

/// Levenshtein distance over bytes.
fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
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

/// LLVM 19's x86 CPUs with 64-bit mode (`llc -mtriple=x86_64 -mcpu=help`, less the 32-bit
/// ones: `i386` ... `pentium4`, `prescott`, `yonah`, `athlon-xp`, `lakemont`, ...).
pub const X86_64_CPUS: &[&str] = &[
    "alderlake",
    "amdfam10",
    "arrowlake",
    "arrowlake-s",
    "arrowlake_s",
    "athlon-fx",
    "athlon64",
    "athlon64-sse3",
    "atom",
    "atom_sse4_2",
    "atom_sse4_2_movbe",
    "barcelona",
    "bdver1",
    "bdver2",
    "bdver3",
    "bdver4",
    "bonnell",
    "broadwell",
    "btver1",
    "btver2",
    "cannonlake",
    "cascadelake",
    "clearwaterforest",
    "cooperlake",
    "core-avx-i",
    "core-avx2",
    "core2",
    "core_2_duo_sse4_1",
    "core_2_duo_ssse3",
    "core_2nd_gen_avx",
    "core_3rd_gen_avx",
    "core_4th_gen_avx",
    "core_4th_gen_avx_tsx",
    "core_5th_gen_avx",
    "core_5th_gen_avx_tsx",
    "core_aes_pclmulqdq",
    "core_i7_sse4_2",
    "corei7",
    "corei7-avx",
    "emeraldrapids",
    "generic",
    "goldmont",
    "goldmont-plus",
    "goldmont_plus",
    "gracemont",
    "grandridge",
    "graniterapids",
    "graniterapids-d",
    "graniterapids_d",
    "haswell",
    "icelake-client",
    "icelake-server",
    "icelake_client",
    "icelake_server",
    "ivybridge",
    "k8",
    "k8-sse3",
    "knl",
    "knm",
    "lunarlake",
    "meteorlake",
    "mic_avx512",
    "nehalem",
    "nocona",
    "opteron",
    "opteron-sse3",
    "pantherlake",
    "penryn",
    "raptorlake",
    "rocketlake",
    "sandybridge",
    "sapphirerapids",
    "sierraforest",
    "silvermont",
    "skx",
    "skylake",
    "skylake-avx512",
    "skylake_avx512",
    "slm",
    "tigerlake",
    "tremont",
    "westmere",
    "x86-64",
    "x86-64-v2",
    "x86-64-v3",
    "x86-64-v4",
    "znver1",
    "znver2",
    "znver3",
    "znver4",
    "znver5",
];

/// LLVM 19's x86 CPUs without 64-bit mode (code generation for x86-64 aborts on them).
pub const X86_32_ONLY_CPUS: &[&str] = &[
    "athlon",
    "athlon-4",
    "athlon-mp",
    "athlon-tbird",
    "athlon-xp",
    "c3",
    "c3-2",
    "geode",
    "i386",
    "i486",
    "i586",
    "i686",
    "k6",
    "k6-2",
    "k6-3",
    "lakemont",
    "pentium",
    "pentium-m",
    "pentium-mmx",
    "pentium2",
    "pentium3",
    "pentium3m",
    "pentium4",
    "pentium4m",
    "pentium_4",
    "pentium_4_sse3",
    "pentium_ii",
    "pentium_iii",
    "pentium_iii_no_xmm_regs",
    "pentium_m",
    "pentium_mmx",
    "pentium_pro",
    "pentiumpro",
    "prescott",
    "winchip-c6",
    "winchip2",
    "yonah",
];

/// LLVM 19's AArch64 CPUs (`llc -mtriple=aarch64 -mcpu=help`).
pub const AARCH64_CPUS: &[&str] = &[
    "a64fx",
    "ampere1",
    "ampere1a",
    "ampere1b",
    "apple-a10",
    "apple-a11",
    "apple-a12",
    "apple-a13",
    "apple-a14",
    "apple-a15",
    "apple-a16",
    "apple-a17",
    "apple-a7",
    "apple-m4",
    "carmel",
    "cortex-a34",
    "cortex-a35",
    "cortex-a510",
    "cortex-a520",
    "cortex-a520ae",
    "cortex-a53",
    "cortex-a55",
    "cortex-a57",
    "cortex-a65",
    "cortex-a65ae",
    "cortex-a710",
    "cortex-a715",
    "cortex-a72",
    "cortex-a720",
    "cortex-a720ae",
    "cortex-a725",
    "cortex-a73",
    "cortex-a75",
    "cortex-a76",
    "cortex-a76ae",
    "cortex-a77",
    "cortex-a78",
    "cortex-a78ae",
    "cortex-a78c",
    "cortex-r82",
    "cortex-r82ae",
    "cortex-x1",
    "cortex-x1c",
    "cortex-x2",
    "cortex-x3",
    "cortex-x4",
    "cortex-x925",
    "exynos-m3",
    "exynos-m4",
    "exynos-m5",
    "falkor",
    "generic",
    "kryo",
    "neoverse-512tvb",
    "neoverse-e1",
    "neoverse-n1",
    "neoverse-n2",
    "neoverse-n3",
    "neoverse-v1",
    "neoverse-v2",
    "neoverse-v3",
    "neoverse-v3ae",
    "oryon-1",
    "saphira",
    "thunderx",
    "thunderx2t99",
    "thunderx3t110",
    "thunderxt81",
    "thunderxt83",
    "thunderxt88",
    "tsv110",
];

/// The LLVM version ptx2llvm is linked with.
pub fn llvm_version() -> (u32, u32, u32) {
    inkwell::support::get_llvm_version()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linux_elf_triples_only() {
        for ok in [
            "x86_64-unknown-linux-gnu",
            "x86_64-linux-gnu",
            "x86_64-pc-linux-gnu",
            "aarch64-unknown-linux-gnu",
            "aarch64-linux-gnu",
            "aarch64-unknown-linux-musl",
        ] {
            assert!(resolve_target(Some(ok)).is_ok(), "{ok}");
        }
        assert_eq!(resolve_target(Some("aarch64-linux-gnu")).unwrap().arch, Arch::Aarch64);
        for bad in [
            "aarch64-apple-darwin",
            "x86_64-pc-windows-msvc",
            "i686-linux-gnu",
            "x86_64-unknown-linux-gnux32",
            "riscv64-linux-gnu",
            "nosucharch-unknown-linux-gnu",
            "x86_64-unknown-freebsd",
        ] {
            let e = resolve_target(Some(bad)).unwrap_err();
            assert!(e.contains(bad) && e.contains("x86_64-unknown-linux-gnu"), "{bad}: {e}");
        }
        assert!(resolve_target(Some("nosucharch-unknown-linux-gnu")).unwrap_err().starts_with("unknown target"));
    }

    #[test]
    fn cpus_are_checked_against_the_target() {
        let x86 = resolve_target(Some("x86_64-unknown-linux-gnu")).unwrap();
        let a64 = resolve_target(Some("aarch64-unknown-linux-gnu")).unwrap();
        assert!(check_cpu("x86-64-v3", &x86).is_ok());
        assert!(check_cpu("cortex-a72", &a64).is_ok());
        assert!(check_cpu("generic", &a64).is_ok());
        let e = check_cpu("foo", &x86).unwrap_err();
        assert!(e.contains("unknown CPU `foo`") && e.contains("--print-cpus"), "{e}");
        assert!(check_cpu("skylak", &x86).unwrap_err().contains("did you mean `skylake`?"));
        assert!(check_cpu("i686", &x86).unwrap_err().contains("no 64-bit mode"));
        assert!(check_cpu("cortex-a72", &x86).unwrap_err().contains("it is an AArch64 CPU"));
        let foreign = if Arch::host() == Some(Arch::X86_64) { &a64 } else { &x86 };
        assert!(check_cpu("native", foreign).unwrap_err().contains("--cpu native"));
    }

    /// The lists are LLVM's: every name is one the installed LLVM 19 lists, and it lists no
    /// other, except the x86 CPUs without 64-bit mode (which abort code generation).
    #[test]
    fn cpu_lists_are_llvms() {
        let prefix = std::env::var("LLVM_SYS_191_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-19".into());
        let llc = std::path::Path::new(&prefix).join("bin/llc");
        let dir = std::env::temp_dir().join(format!("ptx2llvm-cpus-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let ll = dir.join("f.ll");
        std::fs::write(&ll, "define void @f() {\n  ret void\n}\n").unwrap();
        let listed = |triple: &str| -> Vec<String> {
            let out = std::process::Command::new(&llc).arg(format!("-mtriple={triple}")).arg("-mcpu=help").arg(&ll).arg("-o").arg(dir.join("f.s")).output();
            let out = out.unwrap_or_else(|e| panic!("cannot run {}: {e}", llc.display()));
            let text = String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
            let start = text.find("Available CPUs").expect("llc -mcpu=help lists CPUs");
            let end = text.find("Available features").unwrap_or(text.len());
            text[start..end].lines().skip(1).filter_map(|l| l.split_whitespace().next()).map(str::to_string).collect()
        };
        let mut x86: Vec<String> = listed("x86_64-unknown-linux-gnu").into_iter().filter(|c| !X86_32_ONLY_CPUS.contains(&c.as_str())).collect();
        x86.sort();
        let mut ours: Vec<&str> = X86_64_CPUS.to_vec();
        ours.sort();
        assert_eq!(x86, ours);
        let mut a64 = listed("aarch64-unknown-linux-gnu");
        a64.sort();
        let mut ours: Vec<&str> = AARCH64_CPUS.to_vec();
        ours.sort();
        assert_eq!(a64, ours);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

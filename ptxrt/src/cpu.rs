//! The CPU's feature level, for objects with several versions of each kernel (`ptx2llvm
//! --cpu x86-64,x86-64-v3,...`): their block functions call [`__ptxrt_cpu_level`] and run
//! the best version the CPU can run.

use std::sync::atomic::{AtomicU32, Ordering};

/// 0: not computed yet.
static LEVEL: AtomicU32 = AtomicU32::new(0);

/// The x86-64 psABI level of this CPU (1 = x86-64, 2 = x86-64-v2, 3 = x86-64-v3 (AVX2,
/// FMA, BMI), 4 = x86-64-v4 (AVX-512)); 1 on other architectures. `PTXRT_CPU_LEVEL` (1-4)
/// lowers it, to run or debug the versions for older CPUs on a newer one; it never raises
/// it above what the CPU has.
pub fn level() -> u32 {
    match LEVEL.load(Ordering::Relaxed) {
        0 => {
            let detected = detect();
            let level = std::env::var("PTXRT_CPU_LEVEL")
                .ok()
                .and_then(|v| v.trim().parse::<u32>().ok())
                .filter(|l| (1..=4).contains(l))
                .map_or(detected, |l| l.min(detected));
            LEVEL.store(level, Ordering::Relaxed);
            level
        }
        l => l,
    }
}

#[cfg(target_arch = "x86_64")]
fn detect() -> u32 {
    use std::arch::is_x86_feature_detected as has;
    let v2 = has!("cmpxchg16b") && has!("popcnt") && has!("sse3") && has!("sse4.1") && has!("sse4.2") && has!("ssse3");
    let v3 =
        v2 && has!("avx") && has!("avx2") && has!("bmi1") && has!("bmi2") && has!("f16c") && has!("fma") && has!("lzcnt") && has!("movbe") && has!("xsave");
    let v4 = v3 && has!("avx512f") && has!("avx512bw") && has!("avx512cd") && has!("avx512dq") && has!("avx512vl");
    1 + v2 as u32 + v3 as u32 + v4 as u32
}

#[cfg(not(target_arch = "x86_64"))]
fn detect() -> u32 {
    1
}

/// Called by the dispatcher of a multi-version kernel each time a block runs.
#[no_mangle]
pub extern "C" fn __ptxrt_cpu_level() -> u32 {
    level()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_level_is_a_psabi_level() {
        assert!((1..=4).contains(&super::level()));
        assert_eq!(super::__ptxrt_cpu_level(), super::level());
    }
}

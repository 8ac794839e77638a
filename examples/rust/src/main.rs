//! Runs the CUDA kernel `saxpy` (saxpy.cu, translated by build.rs) on the CPU and checks
//! every element.

mod kernels {
    include!(concat!(env!("OUT_DIR"), "/kernels.rs"));
}

fn main() {
    let n: u32 = 1 << 20;
    let x: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 0.5).collect();
    let mut y: Vec<f32> = (0..n).map(|i| (i % 7) as f32).collect();
    let expected: Vec<f32> = x.iter().zip(&y).map(|(x, y)| 2.0 * x + y).collect();

    let block = 256;
    let config = ptxrt::LaunchConfig::new(n.div_ceil(block), block, 0);
    // `_Z5saxpyfPKfPfj` is `saxpy(float, float const*, float*, unsigned int)`: the launcher
    // takes a slice for each pointer, `&mut` where the kernel writes.
    if let Err(e) = kernels::saxpy(config, 2.0, &x, &mut y, n) {
        eprintln!("rust example: launch failed: {e}");
        std::process::exit(1);
    }
    if let Some(i) = (0..n as usize).find(|&i| y[i] != expected[i]) {
        eprintln!(
            "rust example: FAILED at y[{i}]: expected {}, got {}",
            expected[i], y[i]
        );
        std::process::exit(1);
    }
    // A mistake is an error value, not a crash: a block of 2048 threads is too large.
    let too_large = ptxrt::LaunchConfig::new(1, 2048, 0);
    match kernels::saxpy(too_large, 2.0, &x, &mut y, n) {
        Err(e) => println!("rejected as expected: {e}"),
        Ok(()) => {
            eprintln!("rust example: a 2048-thread block was accepted");
            std::process::exit(1);
        }
    }
    println!("rust example: OK");
}

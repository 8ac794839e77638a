//! The CUDA headers (`include/cuda/`) against ptxrt's CUDA runtime: the layouts of the
//! structs both sides write (`cudaDeviceProp`, `cudaFuncAttributes`,
//! `cudaPointerAttributes`) and the error values, as `_Static_assert`s compiled against the
//! headers; and the headers compile as C and as C++ (host code that is not CUDA).

use std::mem::offset_of;
use std::path::{Path, PathBuf};
use std::process::Command;

use ptxrt::cuda::props::{DeviceProp, FuncAttributes};
use ptxrt::cuda::PointerAttributes;
use ptxrt::ErrorCode;

fn include_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("include/cuda")
}

fn check(c: &mut String, name: &str, size: usize, fields: &[(&str, usize)]) {
    *c += &format!("_Static_assert(sizeof({name}) == {size}, \"sizeof({name}) is not {size}\");\n");
    for (f, off) in fields {
        *c += &format!("_Static_assert(offsetof({name}, {f}) == {off}, \"offsetof({name}, {f}) is not {off}\");\n");
    }
}

fn assertions() -> String {
    let mut c = String::from("#include <stddef.h>\n#include \"cuda_runtime_api.h\"\n\n");
    check(
        &mut c,
        "struct cudaDeviceProp",
        std::mem::size_of::<DeviceProp>(),
        &[
            ("name", offset_of!(DeviceProp, name)),
            ("uuid", offset_of!(DeviceProp, uuid)),
            ("luid", offset_of!(DeviceProp, luid)),
            ("luidDeviceNodeMask", offset_of!(DeviceProp, luidDeviceNodeMask)),
            ("totalGlobalMem", offset_of!(DeviceProp, totalGlobalMem)),
            ("sharedMemPerBlock", offset_of!(DeviceProp, sharedMemPerBlock)),
            ("regsPerBlock", offset_of!(DeviceProp, regsPerBlock)),
            ("warpSize", offset_of!(DeviceProp, warpSize)),
            ("memPitch", offset_of!(DeviceProp, memPitch)),
            ("maxThreadsPerBlock", offset_of!(DeviceProp, maxThreadsPerBlock)),
            ("maxThreadsDim", offset_of!(DeviceProp, maxThreadsDim)),
            ("maxGridSize", offset_of!(DeviceProp, maxGridSize)),
            ("clockRate", offset_of!(DeviceProp, clockRate)),
            ("totalConstMem", offset_of!(DeviceProp, totalConstMem)),
            ("major", offset_of!(DeviceProp, major)),
            ("minor", offset_of!(DeviceProp, minor)),
            ("textureAlignment", offset_of!(DeviceProp, textureAlignment)),
            ("texturePitchAlignment", offset_of!(DeviceProp, texturePitchAlignment)),
            ("deviceOverlap", offset_of!(DeviceProp, deviceOverlap)),
            ("multiProcessorCount", offset_of!(DeviceProp, multiProcessorCount)),
            ("kernelExecTimeoutEnabled", offset_of!(DeviceProp, kernelExecTimeoutEnabled)),
            ("integrated", offset_of!(DeviceProp, integrated)),
            ("canMapHostMemory", offset_of!(DeviceProp, canMapHostMemory)),
            ("computeMode", offset_of!(DeviceProp, computeMode)),
            ("maxTexture1D", offset_of!(DeviceProp, maxTexture1D)),
            ("maxTexture1DMipmap", offset_of!(DeviceProp, maxTexture1DMipmap)),
            ("maxTexture1DLinear", offset_of!(DeviceProp, maxTexture1DLinear)),
            ("maxTexture2D", offset_of!(DeviceProp, maxTexture2D)),
            ("maxTexture2DMipmap", offset_of!(DeviceProp, maxTexture2DMipmap)),
            ("maxTexture2DLinear", offset_of!(DeviceProp, maxTexture2DLinear)),
            ("maxTexture2DGather", offset_of!(DeviceProp, maxTexture2DGather)),
            ("maxTexture3D", offset_of!(DeviceProp, maxTexture3D)),
            ("maxTexture3DAlt", offset_of!(DeviceProp, maxTexture3DAlt)),
            ("maxTextureCubemap", offset_of!(DeviceProp, maxTextureCubemap)),
            ("maxTexture1DLayered", offset_of!(DeviceProp, maxTexture1DLayered)),
            ("maxTexture2DLayered", offset_of!(DeviceProp, maxTexture2DLayered)),
            ("maxTextureCubemapLayered", offset_of!(DeviceProp, maxTextureCubemapLayered)),
            ("maxSurface1D", offset_of!(DeviceProp, maxSurface1D)),
            ("maxSurface2D", offset_of!(DeviceProp, maxSurface2D)),
            ("maxSurface3D", offset_of!(DeviceProp, maxSurface3D)),
            ("maxSurface1DLayered", offset_of!(DeviceProp, maxSurface1DLayered)),
            ("maxSurface2DLayered", offset_of!(DeviceProp, maxSurface2DLayered)),
            ("maxSurfaceCubemap", offset_of!(DeviceProp, maxSurfaceCubemap)),
            ("maxSurfaceCubemapLayered", offset_of!(DeviceProp, maxSurfaceCubemapLayered)),
            ("surfaceAlignment", offset_of!(DeviceProp, surfaceAlignment)),
            ("concurrentKernels", offset_of!(DeviceProp, concurrentKernels)),
            ("ECCEnabled", offset_of!(DeviceProp, ECCEnabled)),
            ("pciBusID", offset_of!(DeviceProp, pciBusID)),
            ("pciDeviceID", offset_of!(DeviceProp, pciDeviceID)),
            ("pciDomainID", offset_of!(DeviceProp, pciDomainID)),
            ("tccDriver", offset_of!(DeviceProp, tccDriver)),
            ("asyncEngineCount", offset_of!(DeviceProp, asyncEngineCount)),
            ("unifiedAddressing", offset_of!(DeviceProp, unifiedAddressing)),
            ("memoryClockRate", offset_of!(DeviceProp, memoryClockRate)),
            ("memoryBusWidth", offset_of!(DeviceProp, memoryBusWidth)),
            ("l2CacheSize", offset_of!(DeviceProp, l2CacheSize)),
            ("persistingL2CacheMaxSize", offset_of!(DeviceProp, persistingL2CacheMaxSize)),
            ("maxThreadsPerMultiProcessor", offset_of!(DeviceProp, maxThreadsPerMultiProcessor)),
            ("streamPrioritiesSupported", offset_of!(DeviceProp, streamPrioritiesSupported)),
            ("globalL1CacheSupported", offset_of!(DeviceProp, globalL1CacheSupported)),
            ("localL1CacheSupported", offset_of!(DeviceProp, localL1CacheSupported)),
            ("sharedMemPerMultiprocessor", offset_of!(DeviceProp, sharedMemPerMultiprocessor)),
            ("regsPerMultiprocessor", offset_of!(DeviceProp, regsPerMultiprocessor)),
            ("managedMemory", offset_of!(DeviceProp, managedMemory)),
            ("isMultiGpuBoard", offset_of!(DeviceProp, isMultiGpuBoard)),
            ("multiGpuBoardGroupID", offset_of!(DeviceProp, multiGpuBoardGroupID)),
            ("hostNativeAtomicSupported", offset_of!(DeviceProp, hostNativeAtomicSupported)),
            ("singleToDoublePrecisionPerfRatio", offset_of!(DeviceProp, singleToDoublePrecisionPerfRatio)),
            ("pageableMemoryAccess", offset_of!(DeviceProp, pageableMemoryAccess)),
            ("concurrentManagedAccess", offset_of!(DeviceProp, concurrentManagedAccess)),
            ("computePreemptionSupported", offset_of!(DeviceProp, computePreemptionSupported)),
            ("canUseHostPointerForRegisteredMem", offset_of!(DeviceProp, canUseHostPointerForRegisteredMem)),
            ("cooperativeLaunch", offset_of!(DeviceProp, cooperativeLaunch)),
            ("cooperativeMultiDeviceLaunch", offset_of!(DeviceProp, cooperativeMultiDeviceLaunch)),
            ("sharedMemPerBlockOptin", offset_of!(DeviceProp, sharedMemPerBlockOptin)),
            ("pageableMemoryAccessUsesHostPageTables", offset_of!(DeviceProp, pageableMemoryAccessUsesHostPageTables)),
            ("directManagedMemAccessFromHost", offset_of!(DeviceProp, directManagedMemAccessFromHost)),
            ("maxBlocksPerMultiProcessor", offset_of!(DeviceProp, maxBlocksPerMultiProcessor)),
            ("accessPolicyMaxWindowSize", offset_of!(DeviceProp, accessPolicyMaxWindowSize)),
            ("reservedSharedMemPerBlock", offset_of!(DeviceProp, reservedSharedMemPerBlock)),
            ("hostRegisterSupported", offset_of!(DeviceProp, hostRegisterSupported)),
            ("sparseCudaArraySupported", offset_of!(DeviceProp, sparseCudaArraySupported)),
            ("hostRegisterReadOnlySupported", offset_of!(DeviceProp, hostRegisterReadOnlySupported)),
            ("timelineSemaphoreInteropSupported", offset_of!(DeviceProp, timelineSemaphoreInteropSupported)),
            ("memoryPoolsSupported", offset_of!(DeviceProp, memoryPoolsSupported)),
            ("gpuDirectRDMASupported", offset_of!(DeviceProp, gpuDirectRDMASupported)),
            ("gpuDirectRDMAFlushWritesOptions", offset_of!(DeviceProp, gpuDirectRDMAFlushWritesOptions)),
            ("gpuDirectRDMAWritesOrdering", offset_of!(DeviceProp, gpuDirectRDMAWritesOrdering)),
            ("memoryPoolSupportedHandleTypes", offset_of!(DeviceProp, memoryPoolSupportedHandleTypes)),
            ("deferredMappingCudaArraySupported", offset_of!(DeviceProp, deferredMappingCudaArraySupported)),
            ("ipcEventSupported", offset_of!(DeviceProp, ipcEventSupported)),
            ("clusterLaunch", offset_of!(DeviceProp, clusterLaunch)),
            ("unifiedFunctionPointers", offset_of!(DeviceProp, unifiedFunctionPointers)),
            ("reserved", offset_of!(DeviceProp, reserved)),
        ],
    );
    check(
        &mut c,
        "struct cudaFuncAttributes",
        std::mem::size_of::<FuncAttributes>(),
        &[
            ("sharedSizeBytes", offset_of!(FuncAttributes, sharedSizeBytes)),
            ("constSizeBytes", offset_of!(FuncAttributes, constSizeBytes)),
            ("localSizeBytes", offset_of!(FuncAttributes, localSizeBytes)),
            ("maxThreadsPerBlock", offset_of!(FuncAttributes, maxThreadsPerBlock)),
            ("numRegs", offset_of!(FuncAttributes, numRegs)),
            ("ptxVersion", offset_of!(FuncAttributes, ptxVersion)),
            ("binaryVersion", offset_of!(FuncAttributes, binaryVersion)),
            ("cacheModeCA", offset_of!(FuncAttributes, cacheModeCA)),
            ("maxDynamicSharedSizeBytes", offset_of!(FuncAttributes, maxDynamicSharedSizeBytes)),
            ("preferredShmemCarveout", offset_of!(FuncAttributes, preferredShmemCarveout)),
            ("clusterDimMustBeSet", offset_of!(FuncAttributes, clusterDimMustBeSet)),
            ("requiredClusterWidth", offset_of!(FuncAttributes, requiredClusterWidth)),
            ("requiredClusterHeight", offset_of!(FuncAttributes, requiredClusterHeight)),
            ("requiredClusterDepth", offset_of!(FuncAttributes, requiredClusterDepth)),
            ("clusterSchedulingPolicyPreference", offset_of!(FuncAttributes, clusterSchedulingPolicyPreference)),
            ("nonPortableClusterSizeAllowed", offset_of!(FuncAttributes, nonPortableClusterSizeAllowed)),
            ("reserved", offset_of!(FuncAttributes, reserved)),
        ],
    );
    check(
        &mut c,
        "struct cudaPointerAttributes",
        std::mem::size_of::<PointerAttributes>(),
        &[
            ("type", 0),
            ("device", offset_of!(PointerAttributes, device)),
            ("devicePointer", offset_of!(PointerAttributes, devicePointer)),
            ("hostPointer", offset_of!(PointerAttributes, hostPointer)),
        ],
    );
    for code in ErrorCode::ALL {
        let cuda = code.name().to_str().unwrap().replace("ptxrtError", "cudaError");
        let cuda = if cuda == "cudaErrorNotFound" { "cudaErrorSymbolNotFound".to_string() } else { cuda };
        c += &format!("_Static_assert({cuda} == {}, \"{cuda} is not {}\");\n", code.raw(), code.raw());
    }
    c
}

/// A directory of its own for test `name` (the tests run in parallel and remove theirs).
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ptxrt-cuda-header-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn compile(compiler: &str, args: &[&str], file: &Path) -> std::process::Output {
    Command::new(compiler).args(args).arg("-I").arg(include_dir()).arg(file).output().unwrap_or_else(|e| panic!("cannot run `{compiler}`: {e}"))
}

#[test]
fn the_headers_have_the_runtimes_layouts_and_values() {
    let dir = temp_dir("layout");
    let src = dir.join("layout_check.c");
    std::fs::write(&src, assertions()).unwrap();
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let out = compile(&cc, &["-std=c11", "-fsyntax-only", "-Werror"], &src);
    assert!(out.status.success(), "the CUDA headers disagree with ptxrt:\n{}", String::from_utf8_lossy(&out.stderr));
    // A drifted copy must fail the check.
    let drifted = dir.join("drifted");
    std::fs::create_dir_all(&drifted).unwrap();
    for f in std::fs::read_dir(include_dir()).unwrap() {
        let f = f.unwrap().path();
        if f.is_file() {
            let text = std::fs::read_to_string(&f).unwrap().replace("    int warpSize;", "    int warpSize;\n    int padding;");
            std::fs::write(drifted.join(f.file_name().unwrap()), text).unwrap();
        }
    }
    let out = Command::new(&cc).args(["-std=c11", "-fsyntax-only", "-I"]).arg(&drifted).arg(&src).output().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(!out.status.success(), "a drifted cudaDeviceProp was not caught");
}

#[test]
fn the_headers_compile_as_c_and_cxx() {
    let dir = temp_dir("plain");
    let c = dir.join("use.c");
    std::fs::write(
        &c,
        "#include \"cuda_runtime.h\"\nint main(void) { float *p; dim3 g = {1, 1, 1}; (void)g;\n\
         if (cudaMalloc((void **)&p, 4) != cudaSuccess) { return 1; }\n\
         return cudaFree(p) == cudaSuccess ? 0 : 1; }\n",
    )
    .unwrap();
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let out = compile(&cc, &["-std=c11", "-fsyntax-only", "-Wall", "-Werror"], &c);
    assert!(out.status.success(), "C:\n{}", String::from_utf8_lossy(&out.stderr));
    let cxx = dir.join("use.cpp");
    std::fs::write(
        &cxx,
        "#include \"cuda_runtime.h\"\nstatic int sym[4];\nint main() { float *p = nullptr; dim3 g(2); (void)g;\n\
         cudaMemcpyToSymbol(sym, p, 4); cudaStream_t s; cudaStreamCreate(&s);\n\
         if (cudaMalloc(&p, 4) != cudaSuccess) { return 1; }\n\
         return cudaFree(p) == cudaSuccess ? 0 : 1; }\n",
    )
    .unwrap();
    let cxxc = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
    let out = compile(&cxxc, &["-std=c++17", "-fsyntax-only", "-Wall"], &cxx);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(out.status.success(), "C++:\n{}", String::from_utf8_lossy(&out.stderr));
}

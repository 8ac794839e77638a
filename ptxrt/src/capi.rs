//! The C API of `ptxrt.h` and the registration entry of `ptxrt_abi.h`.
//!
//! Every function catches panics (unwinding into C is undefined behaviour) and turns
//! failures into a returned code plus the calling thread's last error.

#![allow(non_snake_case)]

use std::ffi::{c_char, c_int, c_void, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::abi::{ptxrtError_t, Dim3, Kernel, Module};
use crate::error::{self, Error, SUCCESS};
use crate::{launch, pool, registry};

/// Runs `f`, converting an error or a panic into a code and the thread's last error.
fn status(f: impl FnOnce() -> Result<(), Error>) -> ptxrtError_t {
    let result = catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|_| Err(Error::internal("panic in the C API")));
    match result {
        Ok(()) => SUCCESS,
        Err(e) => {
            error::set_last_error(&e);
            e.code.raw()
        }
    }
}

/// Like [`status`] for functions that return a value (`fallback` on failure).
fn value<T>(fallback: T, f: impl FnOnce() -> Result<T, Error>) -> T {
    let result = catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|_| Err(Error::internal("panic in the C API")));
    match result {
        Ok(v) => v,
        Err(e) => {
            error::set_last_error(&e);
            fallback
        }
    }
}

/// A C string argument, or the error for a null one.
///
/// # Safety
/// `s` is null or NUL-terminated and valid for the call.
unsafe fn c_str<'a>(s: *const c_char, what: &str) -> Result<&'a CStr, Error> {
    if s.is_null() {
        return Err(Error::invalid_value(format!("{what}: name is NULL")));
    }
    // SAFETY: non-null, NUL-terminated per this function's contract.
    Ok(unsafe { CStr::from_ptr(s) })
}

/// Registers a translated module; called from object constructors before `main`.
///
/// # Safety
/// `module` is null or points at a module descriptor that stays valid until it is
/// unregistered (for objects that are never unloaded: forever).
#[no_mangle]
pub unsafe extern "C" fn __ptxrt_register_module(module: *const Module) {
    let _ = catch_unwind(|| registry::register(module));
}

/// Unregisters a module; for objects that can be unloaded again (`dlclose`).
///
/// # Safety
/// `module` is null or a pointer given to `__ptxrt_register_module`, still valid.
#[no_mangle]
pub unsafe extern "C" fn __ptxrt_unregister_module(module: *const Module) {
    let _ = catch_unwind(|| registry::unregister(module));
}

/// Finds a kernel by PTX `.entry` name; NULL (last error `ptxrtErrorNotFound`) if none.
///
/// # Safety
/// `name` is null or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn ptxrtFindKernel(name: *const c_char) -> *const Kernel {
    value(std::ptr::null(), || {
        // SAFETY: forwarded contract.
        let name = unsafe { c_str(name, "ptxrtFindKernel") }?;
        registry::find_kernel(name).map(|k| k as *const Kernel)
    })
}

/// Runs a grid to completion.
///
/// # Safety
/// As `cuLaunchKernel`: `kernel` is null or a kernel descriptor, `args` points at
/// `num_params` pointers to parameter values, and the kernel's memory accesses are valid.
#[no_mangle]
pub unsafe extern "C" fn ptxrtLaunchKernel(
    kernel: *const Kernel,
    grid: Dim3,
    block: Dim3,
    args: *mut *mut c_void,
    dynamicSharedBytes: usize,
    stream: *mut c_void,
) -> ptxrtError_t {
    // SAFETY: forwarded contract.
    status(|| unsafe { launch::launch_kernel(kernel, grid, block, args, dynamicSharedBytes, stream) })
}

/// Runs a grid to completion with all its blocks resident at once.
///
/// # Safety
/// As [`ptxrtLaunchKernel`].
#[no_mangle]
pub unsafe extern "C" fn ptxrtLaunchCooperativeKernel(
    kernel: *const Kernel,
    grid: Dim3,
    block: Dim3,
    args: *mut *mut c_void,
    dynamicSharedBytes: usize,
    stream: *mut c_void,
) -> ptxrtError_t {
    // SAFETY: forwarded contract.
    status(|| unsafe { launch::launch_kernel_mode(kernel, grid, block, args, dynamicSharedBytes, stream, true, "ptxrtLaunchCooperativeKernel") })
}

/// Runs a grid to completion after checking the number (and, when `argSizes` is not
/// NULL, the sizes) of the arguments against the kernel's parameters.
///
/// # Safety
/// `kernel` is null or a kernel descriptor; `config` is null or readable; `args` points at
/// `nargs` pointers to argument values; `argSizes` is null or has `nargs` entries.
#[no_mangle]
pub unsafe extern "C" fn ptxrtLaunchKernelEx(
    kernel: *const Kernel,
    config: *const launch::LaunchConfig,
    args: *mut *mut c_void,
    argSizes: *const usize,
    nargs: usize,
) -> ptxrtError_t {
    status(|| {
        // SAFETY: null or readable, per the contract.
        let Some(config) = (unsafe { config.as_ref() }) else {
            return Err(Error::invalid_value("ptxrtLaunchKernelEx: config is NULL"));
        };
        let sizes = if argSizes.is_null() || nargs == 0 {
            None
        } else {
            // SAFETY: `argSizes` has `nargs` entries, per the contract.
            Some(unsafe { std::slice::from_raw_parts(argSizes, nargs) })
        };
        // SAFETY: forwarded contract.
        unsafe { launch::launch_kernel_ex(kernel, config, args, sizes, nargs) }
    })
}

/// Address and size of a module-scope `.global`/`.const` variable.
///
/// # Safety
/// `name` is null or NUL-terminated; `addr` and `size` are null or writable.
#[no_mangle]
pub unsafe extern "C" fn ptxrtGetSymbol(name: *const c_char, addr: *mut *mut c_void, size: *mut usize) -> ptxrtError_t {
    status(|| {
        // SAFETY: forwarded contract.
        let name = unsafe { c_str(name, "ptxrtGetSymbol") }?;
        if addr.is_null() || size.is_null() {
            return Err(Error::invalid_value(format!("ptxrtGetSymbol('{}'): addr and size must not be NULL", name.to_string_lossy())));
        }
        let (a, s) = registry::get_symbol(name)?;
        // SAFETY: both checked non-null above and writable per the contract.
        unsafe {
            *addr = a;
            *size = usize::try_from(s).unwrap_or(usize::MAX);
        }
        Ok(())
    })
}

/// Sets the largest dynamic shared size launches of `kernel` may use (up to 227 KiB
/// including static shared memory).
///
/// # Safety
/// `kernel` is null or a kernel descriptor.
#[no_mangle]
pub unsafe extern "C" fn ptxrtFuncSetMaxDynamicSharedMemory(kernel: *const Kernel, bytes: usize) -> ptxrtError_t {
    status(|| launch::set_max_dynamic_shared(kernel, bytes))
}

/// Sets the number of worker threads used by later launches.
#[no_mangle]
pub extern "C" fn ptxrtSetNumThreads(n: c_int) -> ptxrtError_t {
    status(|| pool::set_num_threads(i64::from(n)))
}

/// The number of worker threads launches use.
#[no_mangle]
pub extern "C" fn ptxrtGetNumThreads() -> c_int {
    value(1, || Ok(c_int::try_from(pool::num_threads()).unwrap_or(c_int::MAX)))
}

/// The enumerator name of a code ("unrecognized error code" for unknown values).
#[no_mangle]
pub extern "C" fn ptxrtGetErrorName(error: ptxrtError_t) -> *const c_char {
    error::error_name(error).as_ptr()
}

/// A sentence describing a code ("unrecognized error code" for unknown values).
#[no_mangle]
pub extern "C" fn ptxrtGetErrorString(error: ptxrtError_t) -> *const c_char {
    error::error_string(error).as_ptr()
}

/// Returns and clears the calling thread's last error.
#[no_mangle]
pub extern "C" fn ptxrtGetLastError() -> ptxrtError_t {
    catch_unwind(error::take_last_error).unwrap_or(SUCCESS)
}

/// Returns the calling thread's last error without clearing it.
#[no_mangle]
pub extern "C" fn ptxrtPeekAtLastError() -> ptxrtError_t {
    catch_unwind(error::peek_last_error).unwrap_or(SUCCESS)
}

/// The message of the calling thread's most recent failure ("" if none).
#[no_mangle]
pub extern "C" fn ptxrtGetLastErrorMessage() -> *const c_char {
    catch_unwind(error::last_error_message).unwrap_or(c"".as_ptr())
}

// ---------------------------------------------------------------------------------------
// Arrays, textures and surfaces (`texture`): CUDA runtime shapes with ptxrt names.

use crate::texture::{self, Array, ChannelFormatDesc, Extent, MipmappedArray, ResourceDesc, TextureDesc};

/// Checks an output pointer of the C API.
fn out_ptr<T>(p: *mut T, what: &str) -> Result<*mut T, Error> {
    if p.is_null() {
        Err(Error::invalid_value(format!("{what} must not be NULL")))
    } else {
        Ok(p)
    }
}

/// The array behind an API handle.
///
/// # Safety
/// `array` is null or was returned by ptxrtMallocArray/ptxrtMalloc3DArray and not freed.
unsafe fn array_ref<'a>(array: *mut Array, what: &str) -> Result<&'a mut Array, Error> {
    // SAFETY: forwarded contract.
    unsafe { array.as_mut() }.ok_or_else(|| Error::invalid_value(format!("{what}: array is NULL")))
}

/// `cudaCreateChannelDesc`.
#[no_mangle]
pub extern "C" fn ptxrtCreateChannelDesc(x: c_int, y: c_int, z: c_int, w: c_int, f: c_int) -> ChannelFormatDesc {
    ChannelFormatDesc { x, y, z, w, f }
}

/// `cudaMallocArray`: a 1D (`height` 0) or 2D array.
///
/// # Safety
/// `array` is writable; `desc` points at a channel format.
#[no_mangle]
pub unsafe extern "C" fn ptxrtMallocArray(array: *mut *mut Array, desc: *const ChannelFormatDesc, width: usize, height: usize, flags: u32) -> ptxrtError_t {
    // SAFETY: forwarded contract.
    unsafe { ptxrtMalloc3DArray(array, desc, Extent { width, height, depth: 0 }, flags) }
}

/// `cudaMalloc3DArray`: 1D, 2D, 3D or (with `ptxrtArrayLayered`) layered 1D/2D arrays.
///
/// # Safety
/// `array` is writable; `desc` points at a channel format.
#[no_mangle]
pub unsafe extern "C" fn ptxrtMalloc3DArray(array: *mut *mut Array, desc: *const ChannelFormatDesc, extent: Extent, flags: u32) -> ptxrtError_t {
    status(|| {
        let out = out_ptr(array, "ptxrtMalloc3DArray: array")?;
        // SAFETY: forwarded contract (checked for NULL).
        let desc = unsafe { desc.as_ref() }.ok_or_else(|| Error::invalid_value("ptxrtMalloc3DArray: desc must not be NULL"))?;
        let a = Box::new(Array::new(desc, extent, flags)?);
        // SAFETY: checked non-null, writable per the contract.
        unsafe { *out = Box::into_raw(a) };
        Ok(())
    })
}

/// A 2D multisample array (layered with `ptxrtArrayLayered`) of `num_samples` samples per
/// texel, for `tex.2dms`/`tex.a2dms` (CUDA has no runtime-API counterpart).
///
/// # Safety
/// `array` is writable; `desc` points at a channel format.
#[no_mangle]
pub unsafe extern "C" fn ptxrtMallocMultisampleArray(
    array: *mut *mut Array,
    desc: *const ChannelFormatDesc,
    extent: Extent,
    num_samples: u32,
    flags: u32,
) -> ptxrtError_t {
    status(|| {
        let out = out_ptr(array, "ptxrtMallocMultisampleArray: array")?;
        // SAFETY: forwarded contract (checked for NULL).
        let desc = unsafe { desc.as_ref() }.ok_or_else(|| Error::invalid_value("ptxrtMallocMultisampleArray: desc must not be NULL"))?;
        let a = Box::new(Array::multisample(desc, extent, num_samples as usize, flags)?);
        // SAFETY: checked non-null, writable per the contract.
        unsafe { *out = Box::into_raw(a) };
        Ok(())
    })
}

/// `cudaMallocMipmappedArray`.
///
/// # Safety
/// `mipmap` is writable; `desc` points at a channel format.
#[no_mangle]
pub unsafe extern "C" fn ptxrtMallocMipmappedArray(
    mipmap: *mut *mut MipmappedArray,
    desc: *const ChannelFormatDesc,
    extent: Extent,
    num_levels: u32,
    flags: u32,
) -> ptxrtError_t {
    status(|| {
        let out = out_ptr(mipmap, "ptxrtMallocMipmappedArray: mipmappedArray")?;
        // SAFETY: forwarded contract (checked for NULL).
        let desc = unsafe { desc.as_ref() }.ok_or_else(|| Error::invalid_value("ptxrtMallocMipmappedArray: desc must not be NULL"))?;
        let m = Box::new(MipmappedArray::new(desc, extent, num_levels, flags)?);
        // SAFETY: checked non-null, writable per the contract.
        unsafe { *out = Box::into_raw(m) };
        Ok(())
    })
}

/// `cudaGetMipmappedArrayLevel`: the array of one level (owned by the mipmapped array).
///
/// # Safety
/// `level_array` is writable; `mipmap` is null or a live mipmapped array.
#[no_mangle]
pub unsafe extern "C" fn ptxrtGetMipmappedArrayLevel(level_array: *mut *mut Array, mipmap: *mut MipmappedArray, level: u32) -> ptxrtError_t {
    status(|| {
        let out = out_ptr(level_array, "ptxrtGetMipmappedArrayLevel: levelArray")?;
        // SAFETY: forwarded contract.
        let m = unsafe { mipmap.as_mut() }.ok_or_else(|| Error::invalid_value("ptxrtGetMipmappedArrayLevel: mipmappedArray is NULL"))?;
        let count = m.levels.len();
        let a = m
            .levels
            .get_mut(level as usize)
            .ok_or_else(|| Error::invalid_value(format!("ptxrtGetMipmappedArrayLevel: level {level} of a mipmapped array of {count} levels")))?;
        // SAFETY: checked non-null, writable per the contract.
        unsafe { *out = &mut **a as *mut Array };
        Ok(())
    })
}

/// `cudaFreeMipmappedArray` (NULL is allowed): frees the levels too.
///
/// # Safety
/// `mipmap` is null or a mipmapped array not yet freed, used by no texture or surface object.
#[no_mangle]
pub unsafe extern "C" fn ptxrtFreeMipmappedArray(mipmap: *mut MipmappedArray) -> ptxrtError_t {
    status(|| {
        if !mipmap.is_null() {
            // SAFETY: created by Box::into_raw in ptxrtMallocMipmappedArray (forwarded contract).
            drop(unsafe { Box::from_raw(mipmap) });
        }
        Ok(())
    })
}

/// `cudaFreeArray` (NULL is allowed; levels of mipmapped arrays are refused).
///
/// # Safety
/// `array` is null or an array not yet freed, used by no texture or surface object.
#[no_mangle]
pub unsafe extern "C" fn ptxrtFreeArray(array: *mut Array) -> ptxrtError_t {
    status(|| {
        // SAFETY: forwarded contract (null or live).
        if unsafe { array.as_ref() }.is_some_and(|a| a.mip_level) {
            return Err(Error::invalid_value("ptxrtFreeArray: the array is a level of a mipmapped array (free that with ptxrtFreeMipmappedArray)"));
        }
        if !array.is_null() {
            // SAFETY: created by Box::into_raw in ptxrtMalloc3DArray (forwarded contract).
            drop(unsafe { Box::from_raw(array) });
        }
        Ok(())
    })
}

/// Copies a `width` x `height` block of bytes between host memory (rows `pitch` apart)
/// and an array's rows (all rows of all slices/layers, one after another).
#[allow(clippy::too_many_arguments)]
unsafe fn copy_array_block(
    a: &mut Array,
    w_offset: usize,
    h_offset: usize,
    host: *mut u8,
    pitch: usize,
    width: usize,
    height: usize,
    to_array: bool,
    what: &str,
) -> Result<(), Error> {
    let row = a.row_bytes();
    if host.is_null() {
        return Err(Error::invalid_value(format!("{what}: host pointer is NULL")));
    }
    let fits = w_offset.checked_add(width).is_some_and(|e| e <= row) && h_offset.checked_add(height).is_some_and(|e| e <= a.rows());
    if !fits {
        return Err(Error::invalid_value(format!(
            "{what}: {width} bytes x {height} rows at ({w_offset}, {h_offset}) exceed the array ({row} bytes x {} rows)",
            a.rows()
        )));
    }
    if height > 1 && pitch < width {
        return Err(Error::invalid_value(format!("{what}: pitch {pitch} is smaller than the width {width}")));
    }
    let base = a.data();
    for r in 0..height {
        // SAFETY: in range of the array (checked above) and of the host block (caller's contract).
        unsafe {
            let arr = base.add((h_offset + r) * row + w_offset);
            let h = host.add(r * pitch);
            if to_array {
                std::ptr::copy_nonoverlapping(h, arr, width);
            } else {
                std::ptr::copy_nonoverlapping(arr, h, width);
            }
        }
    }
    Ok(())
}

/// `cudaMemcpy2DToArray` (host memory only, so there is no kind argument).
///
/// # Safety
/// `src` holds `height` rows of `width` bytes, `spitch` apart.
#[no_mangle]
pub unsafe extern "C" fn ptxrtMemcpy2DToArray(
    dst: *mut Array,
    w_offset: usize,
    h_offset: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
) -> ptxrtError_t {
    status(|| {
        // SAFETY: forwarded contract.
        let a = unsafe { array_ref(dst, "ptxrtMemcpy2DToArray") }?;
        // SAFETY: forwarded contract.
        unsafe { copy_array_block(a, w_offset, h_offset, src as *mut u8, spitch, width, height, true, "ptxrtMemcpy2DToArray") }
    })
}

/// `cudaMemcpy2DFromArray`.
///
/// # Safety
/// `dst` has room for `height` rows of `width` bytes, `dpitch` apart.
#[no_mangle]
pub unsafe extern "C" fn ptxrtMemcpy2DFromArray(
    dst: *mut c_void,
    dpitch: usize,
    src: *mut Array,
    w_offset: usize,
    h_offset: usize,
    width: usize,
    height: usize,
) -> ptxrtError_t {
    status(|| {
        // SAFETY: forwarded contract.
        let a = unsafe { array_ref(src, "ptxrtMemcpy2DFromArray") }?;
        // SAFETY: forwarded contract.
        unsafe { copy_array_block(a, w_offset, h_offset, dst as *mut u8, dpitch, width, height, false, "ptxrtMemcpy2DFromArray") }
    })
}

/// Checks a linear copy of `count` bytes at byte `w_offset` of row `h_offset`; returns its start.
fn linear_range(a: &Array, w_offset: usize, h_offset: usize, count: usize, what: &str) -> Result<usize, Error> {
    let start = h_offset.checked_mul(a.row_bytes()).and_then(|s| s.checked_add(w_offset));
    match start {
        Some(s) if w_offset < a.row_bytes() && s.checked_add(count).is_some_and(|e| e <= a.byte_len()) => Ok(s),
        _ => Err(Error::invalid_value(format!("{what}: {count} bytes at ({w_offset}, {h_offset}) exceed the array ({} bytes)", a.byte_len()))),
    }
}

/// `cudaMemcpyToArray`: `count` bytes into consecutive rows starting at byte `w_offset` of
/// row `h_offset` (rows of all slices follow each other).
///
/// # Safety
/// `src` holds `count` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn ptxrtMemcpyToArray(dst: *mut Array, w_offset: usize, h_offset: usize, src: *const c_void, count: usize) -> ptxrtError_t {
    status(|| {
        // SAFETY: forwarded contract.
        let a = unsafe { array_ref(dst, "ptxrtMemcpyToArray") }?;
        let start = linear_range(a, w_offset, h_offset, count, "ptxrtMemcpyToArray")?;
        if count > 0 && src.is_null() {
            return Err(Error::invalid_value("ptxrtMemcpyToArray: src is NULL"));
        }
        // SAFETY: in range (checked); src per the contract.
        unsafe { std::ptr::copy_nonoverlapping(src as *const u8, a.data().add(start), count) };
        Ok(())
    })
}

/// `cudaMemcpyFromArray`.
///
/// # Safety
/// `dst` has room for `count` bytes.
#[no_mangle]
pub unsafe extern "C" fn ptxrtMemcpyFromArray(dst: *mut c_void, src: *mut Array, w_offset: usize, h_offset: usize, count: usize) -> ptxrtError_t {
    status(|| {
        // SAFETY: forwarded contract.
        let a = unsafe { array_ref(src, "ptxrtMemcpyFromArray") }?;
        let start = linear_range(a, w_offset, h_offset, count, "ptxrtMemcpyFromArray")?;
        if count > 0 && dst.is_null() {
            return Err(Error::invalid_value("ptxrtMemcpyFromArray: dst is NULL"));
        }
        // SAFETY: in range (checked); dst per the contract.
        unsafe { std::ptr::copy_nonoverlapping(a.data().add(start), dst as *mut u8, count) };
        Ok(())
    })
}

/// `cudaCreateTextureObject`; `res_view_desc` must be NULL (no resource views).
///
/// # Safety
/// Pointers are null or valid; the resource's memory outlives the object.
#[no_mangle]
pub unsafe extern "C" fn ptxrtCreateTextureObject(
    tex: *mut u64,
    res_desc: *const ResourceDesc,
    tex_desc: *const TextureDesc,
    res_view_desc: *const c_void,
) -> ptxrtError_t {
    status(|| {
        let out = out_ptr(tex, "ptxrtCreateTextureObject: pTexObject")?;
        // SAFETY: forwarded contract.
        let (res, desc) = unsafe { (res_desc.as_ref(), tex_desc.as_ref()) };
        let (Some(res), Some(desc)) = (res, desc) else {
            return Err(Error::invalid_value("ptxrtCreateTextureObject: pResDesc and pTexDesc must not be NULL"));
        };
        if !res_view_desc.is_null() {
            return Err(Error::invalid_value("ptxrtCreateTextureObject: resource views are not supported (pResViewDesc must be NULL)"));
        }
        let h = texture::create_texture(res, desc)?;
        // SAFETY: checked non-null.
        unsafe { *out = h };
        Ok(())
    })
}

/// `cudaDestroyTextureObject`.
#[no_mangle]
pub extern "C" fn ptxrtDestroyTextureObject(tex: u64) -> ptxrtError_t {
    status(|| texture::destroy_texture(tex))
}

/// `cudaCreateSurfaceObject` (array resources only).
///
/// # Safety
/// Pointers are null or valid; the array outlives the object.
#[no_mangle]
pub unsafe extern "C" fn ptxrtCreateSurfaceObject(surf: *mut u64, res_desc: *const ResourceDesc) -> ptxrtError_t {
    status(|| {
        let out = out_ptr(surf, "ptxrtCreateSurfaceObject: pSurfObject")?;
        // SAFETY: forwarded contract.
        let res = unsafe { res_desc.as_ref() }.ok_or_else(|| Error::invalid_value("ptxrtCreateSurfaceObject: pResDesc must not be NULL"))?;
        let h = texture::create_surface(res)?;
        // SAFETY: checked non-null.
        unsafe { *out = h };
        Ok(())
    })
}

/// `cudaDestroySurfaceObject`.
#[no_mangle]
pub extern "C" fn ptxrtDestroySurfaceObject(surf: u64) -> ptxrtError_t {
    status(|| texture::destroy_surface(surf))
}

/// Binds a texture object to every module `.texref` (or ISA 1.x `.tex` variable) of this
/// PTX name; 0 unbinds.
///
/// # Safety
/// `name` is a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn ptxrtBindTextureRef(name: *const c_char, tex: u64) -> ptxrtError_t {
    status(|| {
        // SAFETY: forwarded contract.
        let name = unsafe { c_str(name, "ptxrtBindTextureRef") }?;
        if tex != 0 && !texture::is_texture(tex) {
            return Err(Error::invalid_value(format!("ptxrtBindTextureRef: {tex:#x} is not a texture object")));
        }
        texture::bind_reference(".texref", name, tex)
    })
}

/// Binds a surface object to every module `.surfref` of this PTX name; 0 unbinds.
///
/// # Safety
/// `name` is a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn ptxrtBindSurfaceRef(name: *const c_char, surf: u64) -> ptxrtError_t {
    status(|| {
        // SAFETY: forwarded contract.
        let name = unsafe { c_str(name, "ptxrtBindSurfaceRef") }?;
        if surf != 0 && texture::surface_kind(surf).is_none() {
            return Err(Error::invalid_value(format!("ptxrtBindSurfaceRef: {surf:#x} is not a surface object")));
        }
        texture::bind_reference(".surfref", name, surf)
    })
}

/// Sets every module `.samplerref` of this PTX name (independent texturing mode) from the
/// address modes, filter mode, normalizedCoords and compareFunc of a texture descriptor
/// (normalizedCoords 0 sets `force_unnormalized_coords`).
///
/// # Safety
/// `name` is a NUL-terminated string; `desc` is null or valid.
#[no_mangle]
pub unsafe extern "C" fn ptxrtBindSamplerRef(name: *const c_char, desc: *const TextureDesc) -> ptxrtError_t {
    status(|| {
        // SAFETY: forwarded contract.
        let name = unsafe { c_str(name, "ptxrtBindSamplerRef") }?;
        // SAFETY: forwarded contract.
        let desc = unsafe { desc.as_ref() }.ok_or_else(|| Error::invalid_value("ptxrtBindSamplerRef: desc must not be NULL"))?;
        let mut s = texture::sampler_from_desc(desc)?;
        s.force_unnormalized = !s.normalized;
        texture::bind_reference(".samplerref", name, s.encode())
    })
}

//! The functions CUDA device code calls by name: `vprintf`, `malloc`, `free` and
//! `__assertfail` (what `printf`, `new`/`malloc` and `assert` compile to in PTX).
//!
//! A translated module declares them as `.extern .func`; ptx2llvm names every `.func`
//! `__ptx_<name>` and gives it the signature
//! `i32 f(BlockEnv *env, u8 *local, u32 tid_x, u32 tid_y, u32 tid_z, param pointers..., result pointers...)`
//! returning 0, or an error code whose message is in `env` (see ptx2llvm's
//! `lower/function.rs`). Each `.param` argument arrives as a pointer to its bytes.

use crate::abi::BlockEnv;
use crate::error::ErrorCode;
use std::cell::RefCell;
use std::ffi::{c_char, c_int, c_void, CStr, CString};

extern "C" {
    fn snprintf(buf: *mut c_char, size: usize, format: *const c_char, ...) -> c_int;
    fn printf(format: *const c_char, ...) -> c_int;
    fn fflush(stream: *mut c_void) -> c_int;
    fn malloc(size: usize) -> *mut c_void;
    fn free(ptr: *mut c_void);
}

thread_local! {
    /// The message of the last failed assertion on this worker: `BlockEnv::error_message`
    /// must outlive the block function's return, and the worker reads it right after.
    static ASSERT_MESSAGE: RefCell<CString> = RefCell::new(CString::default());
}

/// One argument of a device `printf`, as the format string says to read it.
enum Arg {
    Int(i64),
    Float(f64),
    Ptr(u64),
}

/// Reads `size` bytes at `offset` (aligned up to `size`) of the argument buffer.
///
/// # Safety
/// `buf` must hold the arguments the format string describes (CUDA's vprintf layout).
unsafe fn take(buf: *const u8, offset: &mut usize, size: usize) -> u64 {
    *offset = offset.div_ceil(size) * size;
    let p = buf.add(*offset);
    *offset += size;
    match size {
        8 => (p as *const u64).read_unaligned(),
        _ => (p as *const u32).read_unaligned() as u64,
    }
}

/// Formats CUDA's `vprintf(format, args)`: the argument buffer holds each argument at
/// an offset aligned to its size; integers take 4 bytes (8 with `l`/`ll`/`j`/`z`/`t`),
/// floating-point values 8 (promoted to double), strings and pointers 8. Each conversion is
/// formatted by the C library's own `snprintf`, so the output is exactly C's.
///
/// # Safety
/// `format` must be a NUL-terminated string and `buf` must hold its arguments.
pub unsafe fn format_vprintf(format: *const c_char, buf: *const u8) -> (Vec<u8>, i32) {
    let fmt = CStr::from_ptr(format).to_bytes();
    let mut out = Vec::new();
    let mut offset = 0usize;
    let mut count = 0i32;
    let mut i = 0;
    while i < fmt.len() {
        if fmt[i] != b'%' {
            out.push(fmt[i]);
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        if fmt.get(i) == Some(&b'%') {
            out.push(b'%');
            i += 1;
            continue;
        }
        // Flags, width, precision (`*` reads an int argument), length, conversion.
        let mut spec = vec![b'%'];
        let mut star_args = vec![];
        while i < fmt.len() && b"-+ #0".contains(&fmt[i]) {
            spec.push(fmt[i]);
            i += 1;
        }
        let mut number = |spec: &mut Vec<u8>, i: &mut usize, star_args: &mut Vec<i32>| {
            if fmt.get(*i) == Some(&b'*') {
                star_args.push(take(buf, &mut offset, 4) as u32 as i32);
                spec.push(b'*');
                *i += 1;
            } else {
                while *i < fmt.len() && fmt[*i].is_ascii_digit() {
                    spec.push(fmt[*i]);
                    *i += 1;
                }
            }
        };
        number(&mut spec, &mut i, &mut star_args);
        if fmt.get(i) == Some(&b'.') {
            spec.push(b'.');
            i += 1;
            number(&mut spec, &mut i, &mut star_args);
        }
        let mut long = false;
        while i < fmt.len() && b"hlLqjzt".contains(&fmt[i]) {
            long |= matches!(fmt[i], b'l' | b'L' | b'q' | b'j' | b'z' | b't');
            i += 1;
        }
        let Some(&conv) = fmt.get(i) else {
            out.extend_from_slice(&fmt[start..]);
            break;
        };
        i += 1;
        let arg = match conv {
            b'd' | b'i' => {
                let raw = take(buf, &mut offset, if long { 8 } else { 4 });
                Arg::Int(if long { raw as i64 } else { raw as u32 as i32 as i64 })
            }
            b'u' | b'x' | b'X' | b'o' | b'c' => {
                let raw = take(buf, &mut offset, if long { 8 } else { 4 });
                Arg::Int(if long { raw as i64 } else { raw as u32 as i64 })
            }
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' => Arg::Float(f64::from_bits(take(buf, &mut offset, 8))),
            b's' | b'p' => Arg::Ptr(take(buf, &mut offset, 8)),
            _ => {
                // Unknown conversion: printed as written, consuming nothing.
                out.extend_from_slice(&fmt[start..i]);
                continue;
            }
        };
        count += 1;
        let signed = matches!(conv, b'd' | b'i');
        match (&arg, conv) {
            (Arg::Int(_), b'c') => {}
            (Arg::Int(_), _) => spec.extend_from_slice(b"ll"),
            _ => {}
        }
        spec.push(conv);
        spec.push(0);
        let cfmt = spec.as_ptr() as *const c_char;
        let mut piece = vec![0u8; 64];
        loop {
            let p = piece.as_mut_ptr() as *mut c_char;
            let n = piece.len();
            let (w, pr) = (star_args.first().copied(), star_args.get(1).copied());
            let written = match (arg_ref(&arg), star_args.len()) {
                (ArgRef::Int(v), 0) if signed || conv == b'c' => snprintf(p, n, cfmt, v as std::ffi::c_longlong),
                (ArgRef::Int(v), 0) => snprintf(p, n, cfmt, v as u64 as std::ffi::c_ulonglong),
                (ArgRef::Int(v), 1) => snprintf(p, n, cfmt, w.unwrap_or(0), v),
                (ArgRef::Int(v), _) => snprintf(p, n, cfmt, w.unwrap_or(0), pr.unwrap_or(0), v),
                (ArgRef::Float(v), 0) => snprintf(p, n, cfmt, v),
                (ArgRef::Float(v), 1) => snprintf(p, n, cfmt, w.unwrap_or(0), v),
                (ArgRef::Float(v), _) => snprintf(p, n, cfmt, w.unwrap_or(0), pr.unwrap_or(0), v),
                (ArgRef::Ptr(v), k) => {
                    // `%s` of a null pointer prints "(null)", as glibc and CUDA do.
                    let ptr = if conv == b's' && v == 0 { c"(null)".as_ptr() as u64 } else { v };
                    match k {
                        0 => snprintf(p, n, cfmt, ptr as *const c_void),
                        1 => snprintf(p, n, cfmt, w.unwrap_or(0), ptr as *const c_void),
                        _ => snprintf(p, n, cfmt, w.unwrap_or(0), pr.unwrap_or(0), ptr as *const c_void),
                    }
                }
            };
            if written < 0 {
                break;
            }
            if (written as usize) < n {
                out.extend_from_slice(&piece[..written as usize]);
                break;
            }
            piece.resize(written as usize + 1, 0);
        }
    }
    (out, count)
}

#[derive(Clone, Copy)]
enum ArgRef {
    Int(i64),
    Float(f64),
    Ptr(u64),
}

fn arg_ref(a: &Arg) -> ArgRef {
    match a {
        Arg::Int(v) => ArgRef::Int(*v),
        Arg::Float(v) => ArgRef::Float(*v),
        Arg::Ptr(v) => ArgRef::Ptr(*v),
    }
}

/// `vprintf(.param .b64 format, .param .b64 args) -> .param .b32`: prints on the host's C
/// `stdout` (one call per line of output, so lines of different threads never interleave,
/// and the order with the host program's own `printf` output is kept).
///
/// # Safety
/// Called by generated code with pointers to the `.param` arguments.
#[no_mangle]
pub unsafe extern "C" fn __ptx_vprintf(_env: *mut BlockEnv, _local: *mut u8, _tx: u32, _ty: u32, _tz: u32, format: *const u64, args: *const u64, ret: *mut i32) -> i32 {
    let fmt = format.read_unaligned() as *const c_char;
    let buf = args.read_unaligned() as *const u8;
    if fmt.is_null() {
        ret.write_unaligned(-1);
        return 0;
    }
    let (text, count) = format_vprintf(fmt, buf);
    printf(c"%.*s".as_ptr(), text.len() as c_int, text.as_ptr() as *const c_char);
    ret.write_unaligned(count);
    0
}

/// Device `malloc(.param .b64 size) -> .param .b64`: the host heap (null when it is exhausted).
///
/// # Safety
/// Called by generated code with pointers to the `.param` arguments.
#[no_mangle]
pub unsafe extern "C" fn __ptx_malloc(_env: *mut BlockEnv, _local: *mut u8, _tx: u32, _ty: u32, _tz: u32, size: *const u64, ret: *mut u64) -> i32 {
    ret.write_unaligned(malloc(size.read_unaligned() as usize) as u64);
    0
}

/// Device `free(.param .b64 ptr)`.
///
/// # Safety
/// Called by generated code with pointers to the `.param` arguments; the pointer came
/// from device `malloc` (or is null).
#[no_mangle]
pub unsafe extern "C" fn __ptx_free(_env: *mut BlockEnv, _local: *mut u8, _tx: u32, _ty: u32, _tz: u32, ptr: *const u64) -> i32 {
    free(ptr.read_unaligned() as *mut c_void);
    0
}

/// `__assertfail(message, file, line, function, charSize)`: what a failed `assert` calls.
/// Prints CUDA's message on stderr and ends the launch with `ptxrtErrorLaunchFailure`
/// carrying the same text.
///
/// # Safety
/// Called by generated code with pointers to the `.param` arguments.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn __ptx___assertfail(
    env: *mut BlockEnv,
    _local: *mut u8,
    tx: u32,
    ty: u32,
    tz: u32,
    message: *const u64,
    file: *const u64,
    line: *const u32,
    function: *const u64,
    _char_size: *const u64,
) -> i32 {
    let text = |p: *const u64| {
        let s = p.read_unaligned() as *const c_char;
        if s.is_null() {
            "?".to_string()
        } else {
            CStr::from_ptr(s).to_string_lossy().into_owned()
        }
    };
    let env = &mut *env;
    let b = env.ctaid;
    let msg = format!(
        "{}:{}: {}: block: [{},{},{}], thread: [{tx},{ty},{tz}] Assertion `{}` failed.",
        text(file),
        line.read_unaligned(),
        text(function),
        b.x,
        b.y,
        b.z,
        text(message)
    );
    fflush(std::ptr::null_mut());
    eprintln!("{msg}");
    let c = CString::new(msg).unwrap_or_default();
    env.error_message = ASSERT_MESSAGE.with(|m| {
        *m.borrow_mut() = c;
        m.borrow().as_ptr()
    });
    env.error_code = ErrorCode::LaunchFailure as i32;
    ErrorCode::LaunchFailure as i32
}

#[cfg(test)]
mod tests {
    use super::format_vprintf;

    fn fmt(f: &std::ffi::CStr, buf: &[u8]) -> String {
        let (out, _) = unsafe { format_vprintf(f.as_ptr(), buf.as_ptr()) };
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn formats_like_c() {
        let mut buf = vec![];
        buf.extend_from_slice(&(-42i32).to_le_bytes());
        buf.extend_from_slice(&[0; 4]); // the double is 8-aligned
        buf.extend_from_slice(&2.5f64.to_le_bytes());
        buf.extend_from_slice(&0xdeadbeefu32.to_le_bytes());
        buf.extend_from_slice(&[0; 4]);
        buf.extend_from_slice(&(-7i64).to_le_bytes());
        let s = c"hi".as_ptr() as u64;
        buf.extend_from_slice(&s.to_le_bytes());
        assert_eq!(fmt(c"a=%d f=%.3f x=%08X l=%ld s=%-4s|%%", &buf), "a=-42 f=2.500 x=DEADBEEF l=-7 s=hi  |%");
        let mut buf = vec![];
        buf.extend_from_slice(&1e-5f64.to_le_bytes());
        buf.extend_from_slice(&u64::MAX.to_le_bytes());
        assert_eq!(fmt(c"%g %llu", &buf), "1e-05 18446744073709551615");
    }
}

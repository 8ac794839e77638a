//! The reference model: what each instruction computes, written from the Semantics and
//! Description sections of the PTX ISA text (9.7.1 integer arithmetic, 9.7.2 extended
//! precision, 9.7.8 logic and shift, 9.7.6 comparison and selection, 9.7.9.7 prmt, 9.7.18
//! video), deliberately as directly as the pseudocode reads (loops over bits where the text
//! loops) and without sharing anything with the compiler's lowering.
//!
//! Values are passed as `u64` bit patterns; `w` is the operand width in bits.

pub fn mask(w: u32) -> u64 {
    if w >= 64 {
        u64::MAX
    } else {
        (1u64 << w) - 1
    }
}

/// The low `w` bits of `x` read as a signed number.
pub fn sext(x: u64, w: u32) -> i64 {
    if w >= 64 {
        x as i64
    } else {
        let s = 64 - w;
        ((x << s) as i64) >> s
    }
}

pub fn zext(x: u64, w: u32) -> u64 {
    x & mask(w)
}

/// The value of a `w`-bit operand as an exact integer (signed or unsigned by its type).
pub fn val(x: u64, w: u32, signed: bool) -> i128 {
    if signed {
        sext(x, w) as i128
    } else {
        zext(x, w) as i128
    }
}

/// An exact integer truncated to `w` bits.
pub fn bits(v: i128, w: u32) -> u64 {
    (v as u64) & mask(w)
}

// ------------------------------------------------------------------------------------
// 9.7.1 Integer arithmetic
// ------------------------------------------------------------------------------------

pub fn add(a: u64, b: u64, w: u32, signed: bool, sat: bool) -> u64 {
    let r = val(a, w, signed) + val(b, w, signed);
    if sat {
        // `.sat` (only .s32): limits the result to MININT..MAXINT.
        bits(r.clamp(i32::MIN as i128, i32::MAX as i128), w)
    } else {
        bits(r, w)
    }
}

pub fn sub(a: u64, b: u64, w: u32, signed: bool, sat: bool) -> u64 {
    let r = val(a, w, signed) - val(b, w, signed);
    if sat {
        bits(r.clamp(i32::MIN as i128, i32::MAX as i128), w)
    } else {
        bits(r, w)
    }
}

/// The two 16-bit halves of a 32-bit value (`iA[0] = a[0:15]`, `iA[1] = a[16:31]`).
fn halves(x: u64) -> [u64; 2] {
    [x & 0xffff, (x >> 16) & 0xffff]
}

fn from_halves(h: [u64; 2]) -> u64 {
    (h[0] & 0xffff) | ((h[1] & 0xffff) << 16)
}

/// `add/min/max` on `.u16x2`/`.s16x2`; `relu` clamps negative lanes to 0.
pub fn packed16x2(op: &str, a: u64, b: u64, signed: bool, relu: bool) -> u64 {
    let (ia, ib) = (halves(a), halves(b));
    let mut d = [0u64; 2];
    for i in 0..2 {
        let (x, y) = (val(ia[i], 16, signed), val(ib[i], 16, signed));
        let mut r = match op {
            "add" => x + y,
            "min" => x.min(y),
            _ => x.max(y),
        };
        if relu && r < 0 {
            r = 0;
        }
        d[i] = bits(r, 16);
    }
    from_halves(d)
}

pub fn min_max(max: bool, a: u64, b: u64, w: u32, signed: bool, relu: bool) -> u64 {
    let (x, y) = (val(a, w, signed), val(b, w, signed));
    let mut r = if max { x.max(y) } else { x.min(y) };
    if relu && r < 0 {
        r = 0;
    }
    bits(r, w)
}

/// The double-width product `t = a * b` as its (low, high) `w`-bit halves (u64 × u64 needs
/// all 128 bits unsigned, so the product is formed in `u128` or `i128` by signedness).
pub fn product(a: u64, b: u64, w: u32, signed: bool) -> (u64, u64) {
    if signed {
        let t = sext(a, w) as i128 * sext(b, w) as i128;
        (bits(t, w), bits(t >> w, w))
    } else {
        let t = zext(a, w) as u128 * zext(b, w) as u128;
        ((t as u64) & mask(w), ((t >> w) as u64) & mask(w))
    }
}

/// `mul.lo/.hi/.wide`: `t = a * b` at twice the width.
pub fn mul(mode: &str, a: u64, b: u64, w: u32, signed: bool) -> u64 {
    let (lo, hi) = product(a, b, w, signed);
    match mode {
        "lo" => lo,
        "hi" => hi,
        _ => lo | hi << w,
    }
}

/// `mad.lo/.hi/.wide` (`d = t<...> + c`), `.sat` for `.hi.s32`.
pub fn mad(mode: &str, a: u64, b: u64, c: u64, w: u32, signed: bool, sat: bool) -> u64 {
    let (lo, hi) = product(a, b, w, signed);
    match mode {
        "lo" => bits(val(lo, w, signed) + val(c, w, signed), w),
        "hi" => {
            let r = val(hi, w, signed) + val(c, w, signed);
            if sat {
                bits(r.clamp(i32::MIN as i128, i32::MAX as i128), w)
            } else {
                bits(r, w)
            }
        }
        _ => bits(val(lo | hi << w, 2 * w, signed) + val(c, 2 * w, signed), 2 * w),
    }
}

/// `mul24`/`mad24`: 24-bit operands (low 24 bits, extended by the type), 48-bit product.
pub fn mul24(hi: bool, a: u64, b: u64, c: Option<u64>, signed: bool, sat: bool) -> u64 {
    let t = val(a, 24, signed) * val(b, 24, signed);
    let part = if hi { bits(t >> 16, 32) } else { bits(t, 32) };
    match c {
        None => part,
        Some(c) => {
            let r = val(part, 32, signed) + val(c, 32, signed);
            if sat {
                bits(r.clamp(i32::MIN as i128, i32::MAX as i128), 32)
            } else {
                bits(r, 32)
            }
        }
    }
}

pub fn sad(a: u64, b: u64, c: u64, w: u32, signed: bool) -> u64 {
    let (x, y) = (val(a, w, signed), val(b, w, signed));
    let d = if x < y { y - x } else { x - y };
    bits(val(c, w, signed) + d, w)
}

/// `div`: the ISA leaves division by zero and `MIN / -1` unspecified; the compiler's
/// documented choice (all ones for `x / 0`, `MIN / -1 = MIN`) is what is checked.
pub fn div(a: u64, b: u64, w: u32, signed: bool) -> u64 {
    let (x, y) = (val(a, w, signed), val(b, w, signed));
    if y == 0 {
        return mask(w);
    }
    bits(x / y, w)
}

/// `rem`: `x % 0` is all ones (as on NVIDIA silicon, sm_90); `MIN % -1 = 0`.
pub fn rem(a: u64, b: u64, w: u32, signed: bool) -> u64 {
    let (x, y) = (val(a, w, signed), val(b, w, signed));
    if y == 0 {
        return mask(w);
    }
    bits(x % y, w)
}

pub fn abs(a: u64, w: u32) -> u64 {
    bits(sext(a, w).unsigned_abs() as i128, w)
}

pub fn neg(a: u64, w: u32) -> u64 {
    bits(-(sext(a, w) as i128), w)
}

pub fn popc(a: u64, w: u32) -> u64 {
    (0..w).filter(|i| a >> i & 1 == 1).count() as u64
}

pub fn clz(a: u64, w: u32) -> u64 {
    let mut n = 0;
    for i in (0..w).rev() {
        if a >> i & 1 == 1 {
            break;
        }
        n += 1;
    }
    n
}

/// `bfind{.shiftamt}` as the Semantics loop reads.
pub fn bfind(a: u64, w: u32, signed: bool, shiftamt: bool) -> u64 {
    let msb = w - 1;
    let mut a = zext(a, w);
    if signed && (a >> msb) & 1 == 1 {
        a = !a & mask(w);
    }
    let mut d: u64 = 0xffff_ffff;
    for i in (0..=msb).rev() {
        if a >> i & 1 == 1 {
            d = i as u64;
            break;
        }
    }
    if shiftamt && d != 0xffff_ffff {
        d = msb as u64 - d;
    }
    d
}

/// `fns.b32` as the Semantics loop reads (`base` past 31 finds nothing: the loop does not start
/// and `mask[base]` reads 0).
pub fn fns(mask: u64, base: u64, offset: u64) -> u64 {
    let base = base as u32;
    let offset = offset as u32 as i32;
    let bit = |p: i64| (0..32).contains(&p) && (mask >> p) & 1 == 1;
    let mut d: u64 = 0xffff_ffff;
    if offset == 0 {
        if bit(base as i64) {
            d = base as u64;
        }
    } else {
        let mut pos = base as i64;
        if offset == i32::MIN {
            // NVIDIA silicon (sm_90): 0 whatever the mask and base (even past 31).
            return 0;
        }
        let mut count = (offset as i64).abs() - 1;
        let inc = if offset > 0 { 1 } else { -1 };
        while (0..32).contains(&pos) {
            if bit(pos) {
                if count == 0 {
                    d = pos as u64;
                    break;
                } else {
                    count -= 1;
                }
            }
            pos += inc;
        }
    }
    d
}

pub fn brev(a: u64, w: u32) -> u64 {
    let mut d = 0;
    for i in 0..w {
        d |= ((a >> (w - 1 - i)) & 1) << i;
    }
    d
}

/// Position and length of `bfe`/`bfi`: bits 0-7 (ISA); the whole 32-bit value for the
/// 64-bit forms (NVIDIA silicon, sm_90).
fn field(x: u64, w: u32) -> u64 {
    if w == 64 {
        x & 0xffff_ffff
    } else {
        x & 0xff
    }
}

pub fn bfe(a: u64, b: u64, c: u64, w: u32, signed: bool) -> u64 {
    let msb = w as u64 - 1;
    let pos = field(b, w);
    let len = field(c, w);
    let sbit = if !signed || len == 0 { 0 } else { (a >> (pos + len - 1).min(msb)) & 1 };
    let mut d = 0;
    for i in 0..=msb {
        let bit = if i < len && pos + i <= msb { (a >> (pos + i)) & 1 } else { sbit };
        d |= bit << i;
    }
    d
}

pub fn bfi(a: u64, b: u64, c: u64, d: u64, w: u32) -> u64 {
    let msb = w as u64 - 1;
    let pos = field(c, w);
    let len = field(d, w);
    let mut f = zext(b, w);
    let mut i = 0;
    while i < len && pos + i <= msb {
        f = (f & !(1 << (pos + i))) | (((a >> i) & 1) << (pos + i));
        i += 1;
    }
    f
}

pub fn szext(clamp: bool, signed: bool, a: u64, b: u64) -> u64 {
    let (a, b) = (a as u32, b as u32);
    let b1 = b & 0x1f;
    let too_large = b >= 32 && clamp;
    let mask: u32 = if too_large { 0 } else { !0u32 << b1 };
    let sign_pos = b1.wrapping_sub(1) & 0x1f;
    let sign_bit = if b1 == 0 || too_large || !signed { false } else { (a >> sign_pos) & 1 == 1 };
    ((a & !mask) | if sign_bit { mask } else { 0 }) as u64
}

pub fn bmsk(clamp: bool, a: u64, b: u64) -> u64 {
    let (a, b) = (a as u32, b as u32);
    let a1 = a & 0x1f;
    let mut mask0: u32 = !0u32 << a1;
    let b1 = b & 0x1f;
    let sum = a1 + b1;
    let mut mask1: u32 = if sum >= 32 { 0 } else { !0u32 << sum };
    let sum_overflow = sum >= 32;
    let mut position_overflow = false;
    let mut width_overflow = false;
    if clamp {
        if a >= 32 {
            position_overflow = true;
            mask0 = 0;
        }
        if b >= 32 {
            width_overflow = true;
        }
    }
    if sum_overflow || position_overflow || width_overflow {
        mask1 = 0;
    } else if b1 == 0 {
        mask1 = !0;
    }
    (mask0 & !mask1) as u64
}

fn byte_of(x: u64, i: u32, signed: bool) -> i128 {
    val(x >> (8 * i), 8, signed)
}

pub fn dp4a(a: u64, b: u64, c: u64, a_signed: bool, b_signed: bool) -> u64 {
    let c_signed = a_signed || b_signed;
    let mut d = val(c, 32, c_signed);
    for i in 0..4 {
        d += byte_of(a, i, a_signed) * byte_of(b, i, b_signed);
    }
    bits(d, 32)
}

pub fn dp2a(hi: bool, a: u64, b: u64, c: u64, a_signed: bool, b_signed: bool) -> u64 {
    let c_signed = a_signed || b_signed;
    let mut d = val(c, 32, c_signed);
    let b_select = if hi { 2 } else { 0 };
    for i in 0..2 {
        d += val(a >> (16 * i), 16, a_signed) * byte_of(b, b_select + i, b_signed);
    }
    bits(d, 32)
}

// ------------------------------------------------------------------------------------
// 9.7.8 Logic and shift, 9.7.9.7 prmt, 9.7.6 comparison and selection
// ------------------------------------------------------------------------------------

/// `shl`: amounts greater than the width are clamped to the width.
pub fn shl(a: u64, n: u64, w: u32) -> u64 {
    let n = (n as u32).min(w);
    if n >= 64 {
        0
    } else {
        zext(a << n, w)
    }
}

/// `shr`: signed types fill with the sign bit, others with 0.
pub fn shr(a: u64, n: u64, w: u32, signed: bool) -> u64 {
    let n = (n as u32).min(w) as i128;
    bits(val(a, w, signed) >> n, w)
}

/// `shf.l/.r`: the 64-bit `[b, a]` shifted by the clamped or wrapped amount.
pub fn shf(left: bool, clamp: bool, a: u64, b: u64, c: u64) -> u64 {
    let c = c as u32;
    let n = if clamp { c.min(32) } else { c & 0x1f };
    let v = ((b as u32 as u128) << 32) | a as u32 as u128;
    if left {
        ((v << n) >> 32) as u32 as u64
    } else {
        (v >> n) as u32 as u64
    }
}

/// `prmt.b32{.mode}` per the selection tables.
pub fn prmt(mode: Option<&str>, a: u64, b: u64, c: u64) -> u64 {
    let tmp64 = ((b as u32 as u64) << 32) | a as u32 as u64;
    let byte = |i: u64| (tmp64 >> (8 * i)) & 0xff;
    let mut d = 0u64;
    match mode {
        None => {
            for i in 0..4 {
                let ctl = (c >> (4 * i)) & 0xf;
                let mut v = byte(ctl & 7);
                if ctl & 8 != 0 {
                    v = if v & 0x80 != 0 { 0xff } else { 0 };
                }
                d |= v << (8 * i);
            }
        }
        Some(m) => {
            let k = (c & 3) as usize;
            // Rows of the table: [d.b3, d.b2, d.b1, d.b0] sources for c[1:0] = 0..3.
            let table: [[u64; 4]; 4] = match m {
                "f4e" => [[3, 2, 1, 0], [4, 3, 2, 1], [5, 4, 3, 2], [6, 5, 4, 3]],
                "b4e" => [[5, 6, 7, 0], [6, 7, 0, 1], [7, 0, 1, 2], [0, 1, 2, 3]],
                "rc8" => [[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2], [3, 3, 3, 3]],
                "ecl" => [[3, 2, 1, 0], [3, 2, 1, 1], [3, 2, 2, 2], [3, 3, 3, 3]],
                "ecr" => [[0, 0, 0, 0], [1, 1, 1, 0], [2, 2, 1, 0], [3, 2, 1, 0]],
                _ => [[1, 0, 1, 0], [3, 2, 3, 2], [1, 0, 1, 0], [3, 2, 3, 2]],
            };
            for (j, src) in table[k].iter().enumerate() {
                d |= byte(*src) << (8 * (3 - j));
            }
        }
    }
    d
}

/// `lop3.b32`: bit `i` of the result is bit `(a_i << 2) | (b_i << 1) | c_i` of `lut`
/// (`ta = 0xF0, tb = 0xCC, tc = 0xAA`).
pub fn lop3(a: u64, b: u64, c: u64, lut: u8) -> u64 {
    let mut d = 0u64;
    for i in 0..32 {
        let idx = ((a >> i) & 1) << 2 | ((b >> i) & 1) << 1 | ((c >> i) & 1);
        d |= (((lut >> idx) & 1) as u64) << i;
    }
    d
}

/// Integer comparisons of `setp`/`set` (`lo ls hi hs` are the unsigned ones).
pub fn compare(cmp: &str, a: u64, b: u64, w: u32, signed: bool) -> bool {
    let (x, y) = (val(a, w, signed), val(b, w, signed));
    let (ux, uy) = (zext(a, w), zext(b, w));
    match cmp {
        "eq" => x == y,
        "ne" => x != y,
        "lt" => x < y,
        "le" => x <= y,
        "gt" => x > y,
        "ge" => x >= y,
        "lo" => ux < uy,
        "ls" => ux <= uy,
        "hi" => ux > uy,
        _ => ux >= uy,
    }
}

pub fn bool_op(op: &str, t: bool, c: bool) -> bool {
    match op {
        "and" => t && c,
        "or" => t || c,
        _ => t ^ c,
    }
}

/// `slct.dtype.f32`: `c >= 0` (NaN selects `b`; `-0` is zero; `.ftz` flushes subnormal `c`).
pub fn slct_f32(a: u64, b: u64, c: u64, ftz: bool) -> u64 {
    let mut f = f32::from_bits(c as u32);
    if ftz && f.is_subnormal() {
        f = 0.0f32.copysign(f);
    }
    if f >= 0.0 {
        a
    } else {
        b
    }
}

// ------------------------------------------------------------------------------------
// 9.7.2 Extended precision: carries of the word-wise additions
// ------------------------------------------------------------------------------------

/// `a + b + cf` on `w` bits: (result, carry-out).
pub fn add_carry(a: u64, b: u64, cf: bool, w: u32) -> (u64, bool) {
    let s = zext(a, w) as u128 + zext(b, w) as u128 + cf as u128;
    ((s as u64) & mask(w), s >> w != 0)
}

/// `a - (b + cf)` on `w` bits: (result, borrow-out).
pub fn sub_borrow(a: u64, b: u64, cf: bool, w: u32) -> (u64, bool) {
    let x = zext(a, w) as i128;
    let y = zext(b, w) as i128 + cf as i128;
    (bits(x - y, w), x < y)
}

/// `mad{c}.lo/.hi{.cc}`: `t<...> + c + cf` with its carry-out.
pub fn mad_carry(hi: bool, a: u64, b: u64, c: u64, cf: bool, w: u32, signed: bool) -> (u64, bool) {
    let (lo, high) = product(a, b, w, signed);
    let part = if hi { high } else { lo };
    add_carry(part, c, cf, w)
}

// ------------------------------------------------------------------------------------
// 9.7.18 Video instructions
// ------------------------------------------------------------------------------------

/// `partSelectSignExtend`: the selected byte/half-word/word, extended to 33 bits.
/// `sel` is `""` (word), `"b0"`..`"b3"`, `"h0"`, `"h1"`.
pub fn part_select(x: u64, sel: &str, signed: bool) -> i128 {
    match sel {
        "" => val(x, 32, signed),
        s => {
            let idx = (s.as_bytes()[1] - b'0') as u32;
            if s.starts_with('b') {
                val(x >> (8 * idx), 8, signed)
            } else {
                val(x >> (16 * idx), 16, signed)
            }
        }
    }
}

fn opt_merge(dsel: &str, tmp: i128, c: u64) -> i128 {
    let t = tmp as u64;
    let c = c & 0xffff_ffff;
    (match dsel {
        "h0" => (t & 0xffff) | (0xffff0000 & c),
        // NVIDIA silicon (sm_90): the result's bits 16-31 stay in place.
        "h1" => (t & 0xffff_0000) | (0x0000ffff & c),
        "b0" => (t & 0xff) | (0xffffff00 & c),
        "b1" => ((t & 0xff) << 8) | (0xffff00ff & c),
        "b2" => ((t & 0xff) << 16) | (0xff00ffff & c),
        "b3" => ((t & 0xff) << 24) | (0x00ffffff & c),
        _ => t,
    }) as i128
}

/// A scalar video instruction as NVIDIA silicon (sm_90) computes it: the ISA pseudocode with
/// the rules measured on the GPU (see the compiler's `lower/ops/video.rs`). `op` is `add sub
/// absdiff min max shl shr` or `set.<cmp>`; `types` = (dtype, atype, btype) signedness;
/// `mode_clamp` for the shifts; `secop` is `""`, `add`, `min` or `max`; `dsel` `""` means
/// no merge.
#[allow(clippy::too_many_arguments)]
pub fn video_scalar(
    op: &str,
    types: (bool, bool, bool),
    sat: bool,
    mode_clamp: bool,
    asel: &str,
    bsel: &str,
    dsel: &str,
    secop: &str,
    a: u64,
    b: u64,
    c: u64,
) -> u64 {
    let (d_signed, a_signed, b_signed) = types;
    let shift = op == "shl" || op == "shr";
    let signed = if op.starts_with("set") { a_signed } else { d_signed };
    let ta = part_select(a, asel, a_signed);
    let mut tmp: i128 = if shift {
        let mut tb = part_select(b, bsel, false);
        if mode_clamp && tb > 32 {
            tb = 32;
        }
        if !mode_clamp {
            tb &= 0x1f;
        }
        if op == "shl" {
            let s = ta << tb;
            if sat {
                sext(bits(s, 34), 34) as i128
            } else {
                s
            }
        } else {
            ta >> tb
        }
    } else {
        let tb = part_select(b, bsel, b_signed);
        match op {
            "add" => ta + tb,
            "sub" => ta - tb,
            "absdiff" => (ta - tb).abs(),
            "min" => ta.min(tb),
            "max" => ta.max(tb),
            cmp => {
                let r = match cmp.trim_start_matches("set.") {
                    "eq" => ta == tb,
                    "ne" => ta != tb,
                    "lt" => ta < tb,
                    "le" => ta <= tb,
                    "gt" => ta > tb,
                    _ => ta >= tb,
                };
                r as i128
            }
        }
    };
    let mut huge = false;
    if sat {
        let sub_word = !dsel.is_empty();
        tmp = if sub_word && !shift {
            let hi: i128 = match (dsel.starts_with('b'), signed) {
                (true, true) => 0x7f,
                (true, false) => 0xff,
                (false, true) => 0x7fff,
                (false, false) => 0xffff,
            };
            (tmp & 0xffff_ffff).min(hi)
        } else if signed {
            tmp.clamp(i32::MIN as i128, i32::MAX as i128)
        } else {
            huge = shift && tmp >= 1 << 31;
            tmp.clamp(0, u32::MAX as i128)
        };
    }
    let cv = val(c, 32, signed);
    let tv = if shift {
        if huge {
            tmp | 1 << 40
        } else {
            tmp
        }
    } else if signed && op != "absdiff" {
        sext(bits(tmp, 32), 32) as i128
    } else if signed {
        tmp & 0xffff_ffff
    } else {
        tmp & ((1 << 33) - 1)
    };
    let d = match secop {
        "add" => tv + cv,
        "min" => tv.min(cv),
        "max" => tv.max(cv),
        _ if !dsel.is_empty() => opt_merge(dsel, tmp, c),
        _ => tmp,
    };
    bits(d, 32)
}

/// `vmad` as NVIDIA silicon (sm_90) computes it, which differs from its Semantics
/// (`tmp[127:0]`): a full 32-bit `a`/`b` is sign-extended whatever its type (a selected byte
/// or half-word by its type), `c` is always sign-extended, the exact sum is shifted as a
/// 64-bit value (logically when the result is unsigned) and `.sat` clamps it as a signed
/// 64-bit number (to `0..=u32::MAX` when unsigned).
#[allow(clippy::too_many_arguments)]
pub fn vmad(
    a_signed: bool,
    b_signed: bool,
    asel: &str,
    bsel: &str,
    neg_a: bool,
    neg_b: bool,
    neg_c: bool,
    po: bool,
    scale: u32,
    sat: bool,
    a: u64,
    b: u64,
    c: u64,
) -> u64 {
    let ta = part_select(a, asel, a_signed || asel.is_empty());
    let tb = part_select(b, bsel, b_signed || bsel.is_empty());
    let signed_final = a_signed || b_signed || (neg_a ^ neg_b) || neg_c;
    let mut tmp: i128 = ta * tb;
    let mut c = c & 0xffff_ffff;
    let mut lsb = 0;
    if po {
        lsb = 1;
    } else if neg_a ^ neg_b {
        tmp = !tmp;
        lsb = 1;
    } else if neg_c {
        c = !c & 0xffff_ffff;
        lsb = 1;
    }
    let tmp = (tmp + sext(c, 32) as i128 + lsb) as i64;
    let shifted = if signed_final { tmp >> scale } else { ((tmp as u64) >> scale) as i64 };
    let result = if sat {
        if signed_final {
            shifted.clamp(i32::MIN as i64, i32::MAX as i64)
        } else {
            shifted.clamp(0, u32::MAX as i64)
        }
    } else {
        shifted
    };
    result as u64 & 0xffff_ffff
}

/// A SIMD video instruction (`vadd2`, `vset4`, ...). `lanes` is 2 or 4; `asel`/`bsel` give
/// for each lane i (index 0 = lane 0) the source lane of `{b, a}`; `mask` bit i selects lane i;
/// `op` as for `video_scalar` plus `avrg`.
#[allow(clippy::too_many_arguments)]
pub fn video_simd(
    op: &str,
    lanes: u32,
    types: (bool, bool, bool),
    sat: bool,
    add: bool,
    asel: [u32; 4],
    bsel: [u32; 4],
    mask_bits: u32,
    a: u64,
    b: u64,
    c: u64,
) -> u64 {
    let (d_signed, a_signed, b_signed) = types;
    let lw = 32 / lanes;
    let ab = ((b & 0xffff_ffff) << 32) | (a & 0xffff_ffff);
    let lane = |x: u64, i: u32, signed: bool| val(x >> (lw * i), lw, signed);
    let mut t = [0i128; 4];
    for i in 0..lanes as usize {
        let va = lane(ab, asel[i], a_signed);
        let vb = lane(ab, bsel[i], b_signed);
        t[i] = match op {
            "add" => va + vb,
            "sub" => va - vb,
            "avrg" => {
                if va + vb >= 0 {
                    (va + vb + 1) >> 1
                } else {
                    (va + vb) >> 1
                }
            }
            "absdiff" => (va - vb).abs(),
            "min" => va.min(vb),
            "max" => va.max(vb),
            cmp => {
                let r = match cmp.trim_start_matches("set.") {
                    "eq" => va == vb,
                    "ne" => va != vb,
                    "lt" => va < vb,
                    "le" => va <= vb,
                    "gt" => va > vb,
                    _ => va >= vb,
                };
                r as i128
            }
        };
        if sat {
            let (lo, hi) = if d_signed { (-(1i128 << (lw - 1)), (1i128 << (lw - 1)) - 1) } else { (0, (1i128 << lw) - 1) };
            t[i] = t[i].clamp(lo, hi);
        }
    }
    let selected = |i: usize| mask_bits >> i & 1 == 1;
    if add {
        let mut d = val(c, 32, d_signed);
        for (i, ti) in t.iter().enumerate().take(lanes as usize) {
            if selected(i) {
                d += ti;
            }
        }
        bits(d, 32)
    } else {
        let mut d = 0u64;
        for (i, ti) in t.iter().enumerate().take(lanes as usize) {
            let v = if selected(i) { bits(*ti, lw) } else { (c >> (lw * i as u32)) & mask(lw) };
            d |= v << (lw * i as u32);
        }
        d
    }
}

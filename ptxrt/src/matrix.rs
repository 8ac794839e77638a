//! Warp-level matrix instructions (ISA 9.2 §9.7.14), computed by the scheduler once every
//! live lane of a warp waits at the instruction: `mma.sync`, `wmma.load/.mma/.store`,
//! `ldmatrix`, `stmatrix`, `movmatrix`.
//!
//! The sync point's operand list holds each lane's fragment registers, destinations first,
//! then the sources (A, B, C of a multiply-accumulate), then for `mma.sp` its metadata and
//! sparsity selector, then for a block-scaled `mma` its six scale operands (scale-a-data,
//! byte-id-a, thread-id-a, scale-b-data, byte-id-b, thread-id-b). Its `c` operand is an
//! immediate with the register counts `d | a << 8 | b << 16 | c << 24` and the block scaling from bit [`SCALE_SHIFT`] (the scale vector size 1, 2
//! or 4, or 0 without scaling; bit 8 of that field: `.ue4m3` scale factors, else `.ue8m0`).
//! `a` is the memory operand and `b` the `wmma` stride. `mode` is the shape `m | n << 8 | k <<
//! 16`; `flags` as in [`flag`].
//!
//! # Fragment layouts
//! `mma` fragments follow the ISA's tables exactly (see [`mma_position`]). For `wmma` the ISA
//! leaves the layout to the implementation; ours: a fragment of `E` elements per lane of an
//! `R x C` matrix (A: MxK, B: KxN, C/D: MxN) holds in element `e` of lane `l` the matrix
//! element with row-major index `(l * E + e) mod (R * C)`, whatever the memory layout it
//! was loaded from (`wmma.load`/`wmma.store` apply the `.row`/`.col` layout and stride).
//! Elements are numbered from the first register's least significant bits. Only the `.f16`
//! A and B fragments hold more elements than their matrix (each element twice or four times).
//! In memory, sub-byte elements are packed from each byte's least significant bit on and
//! strides count elements: `.b1` (`m8n8k128`) element `k` of A's row or B's column is bit
//! `k % 8` of byte `k / 8`, i.e. bit `k % 32` of the 32-bit word `k / 32`, as single-bit
//! `mma` packs its operands. Its fragments follow the general rule: lane `l`'s one A
//! register holds `A[l / 4][32 (l % 4) + j]` in bit `j`, its one B register
//! `B[4l + j / 8][j % 8]` (rows `4l..4l+3` of the KxN matrix), and its two C/D registers
//! `C[l / 4][2 (l % 4) + j]` in register `j`.
//!
//! # Arithmetic
//! Products of `.f16`, `.bf16`, `.tf32` and 8-bit float elements are exact in `f32`; they are
//! accumulated in `f32` (rounding to nearest even after each addition) in the order
//! `d = c; for k in 0..K { d += a[row][k] * b[k][col] }`, and a `.f16` result is rounded to
//! nearest even once at the end. `.tf32` inputs are `.f32` bit patterns whose low 13 mantissa
//! bits are ignored; the 6- and 4-bit floats of `.kind::f8f6f4` (OCP MX `.e3m2`, `.e2m3`,
//! `.e2m1`, all finite) are read from their 8-bit containers. `.f64` is the same chain of
//! fused multiply-adds, each rounded in the instruction's mode (`.rn`, `.rz`, `.rm`, `.rp`;
//! the directed ones exactly in software, so the host's floating-point environment is never
//! touched). Integer products are summed exactly and wrap to 32 bits, or with `.satfinite`
//! clamp to the `.s32` range. Single-bit products add `popc(row of A xor/and column of B)`
//! to C, wrapping to 32 bits.
//!
//! # Block scaling (`.kind::mxf8f6f4`, `.kind::mxf4`, `.kind::mxf4nvf4`, §9.7.14.3)
//! `D = C + sum_k (A[m][k] * SF_A[m][k / (K/V)]) * (B[k][n] * SF_B[k / (K/V)][n])` for the
//! scale vector size `V`; each scaled product is exact in `f64`, is rounded to `f32` and
//! accumulated like the unscaled products. `.ue8m0` scale factors are `2^(e - 127)` (`0xff`:
//! NaN), `.ue4m3` ones unsigned E4M3 (`0x7f`: NaN; bit 7 is padding). `.kind::mxf4*` packs
//! `.e2m1` eight to a register (no 8-bit containers); its fragments follow the `.s4` layout.
//!
//! Which lane and byte supply which scale factor is drawn only in the ISA's figures 43-45;
//! our reading of them, which follows the A and B fragment layouts (row `g` and `g + 8` of A
//! and column `g` of B belong to quad `g`, lanes `4g..4g+3`):
//! - thread-id-a `t`: lane `4g + 2t` supplies the scale factors of A's row `g`, lane
//!   `4g + 2t + 1` those of row `g + 8`;
//! - thread-id-b `t`: lane `4g + t` supplies those of B's column `g`;
//! - byte-id selects, in the 32-bit scale-data register, the byte (1X), the byte pair
//!   `byte-id, byte-id + 1` (2X) or all four bytes (4X, byte-id 0), the lower byte holding
//!   the lower scale-vector index.
//!
//! The selectors must be the same in every lane and take the values of the ISA's Table 37;
//! other values are reported as errors.
//!
//! # Sparse A (`mma.sp`, `mma.sp::ordered_metadata`, §9.7.14.6)
//! Each row of the MxK matrix A is cut into chunks: 4 elements of which 2 are stored (2:4;
//! `.f16`, `.bf16`, 8-bit types), 2 of which 1 is stored (1:2, `.tf32`), or 8 of which 4 are
//! stored as two pairs (4:8, `.s4`/`.u4` and packed `.e2m1`). The A fragment holds the stored
//! elements as an Mx(K/2) matrix in the layout of a dense A of K/2 columns (the ISA's text
//! gives each register's row and chunk). Four metadata bits per chunk place the stored
//! elements: two 2-bit indices, the lower for the first stored element (for `.tf32` they
//! name 16-bit halves, so bit 1 picks the element; for 4:8 they name element pairs). The
//! product is `D = C + sum over stored elements` in storage order: elements that are not
//! stored are zeros that are never multiplied (an infinite B element there gives no NaN).
//!
//! Which lane and bits hold a chunk's metadata is drawn only in the ISA's figures; the text
//! fixes the lanes of each quad `g` (rows `g` and `g + 8`) that hold it: one lane (selector
//! 0-3), a lane pair (selector 0: lanes 0, 1; 1: lanes 2, 3) or all four (selector 0). Our
//! reading, which is the layout the reference sparse GEMM library for these instructions
//! (CUTLASS) stores metadata in for its loads:
//! - 16- and 32-bit elements: selected lane `j` holds chunks `4j..4j+3` of row `g` in bits
//!   0-15 and of row `g + 8` in bits 16-31, chunk `4j + i` at bit `4i`;
//! - 8- and 4-bit elements: selected lane `2j + h` holds chunks `8j..8j+7` of row `g + 8h`,
//!   chunk `8j + i` at bit `4i`.
//! A selector the ISA leaves undefined for the shape (2 or 3 for a lane pair) is an error;
//! `mma.sp` and `mma.sp::ordered_metadata` compute the same (unsorted or equal indices are
//! undefined for the latter; equal indices put both elements in one column).

use std::cell::RefCell;

use rustc_apfloat::ieee::Double;
use rustc_apfloat::{Float as _, Round};

use crate::sched::{Block, SyncOperand, SyncPoint};
use ptx2llvm_abi::matrix::Elem as ElemCode;
use ptx2llvm_abi::matrix::{MmaLayout, Role};
use ptx2llvm_abi::WarpOp;

/// Operation codes (`SyncPoint::op` of warp sync points).
pub mod op {
    use ptx2llvm_abi::WarpOp;
    pub const MMA: u32 = WarpOp::Mma as u32;
    pub const WMMA_MMA: u32 = WarpOp::WmmaMma as u32;
    pub const WMMA_LOAD: u32 = WarpOp::WmmaLoad as u32;
    pub const WMMA_STORE: u32 = WarpOp::WmmaStore as u32;
    pub const LDMATRIX: u32 = WarpOp::LdMatrix as u32;
    pub const STMATRIX: u32 = WarpOp::StMatrix as u32;
    pub const MOVMATRIX: u32 = WarpOp::MovMatrix as u32;
}

/// `flags`: element types in 5-bit fields (A, B, C, D from bit 0; loads and stores use the
/// A field), then these bits (the `ptx2llvm-abi` crate documents each).
pub mod flag {
    pub use ptx2llvm_abi::matrix::{A_COL, B_COL, ELEM_BITS, POPC_AND, ROLE_SHIFT, ROUND_SHIFT, SATFINITE, SHARED, SPARSE, TRANS};
}

/// The bit of the `c` operand where an `mma`'s block scaling starts (module documentation).
pub use ptx2llvm_abi::matrix::SCALE_SHIFT;

/// Scale operands of a block-scaled `mma` after its C fragment (and sparsity operands).
const SCALE_OPERANDS: usize = 6;

/// Sparsity operands of `mma.sp` after its C fragment: the metadata and the selector.
const SPARSE_OPERANDS: usize = 2;

pub fn is_matrix_op(code: u32) -> bool {
    WarpOp::from_raw(code).is_some_and(WarpOp::is_matrix)
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Elem {
    F16,
    BF16,
    TF32,
    F32,
    F64,
    S8,
    U8,
    S32,
    S4,
    U4,
    E4M3,
    E5M2,
    B1,
    E3M2,
    E2M3,
    E2M1,
    /// `.e2m1` without a container, eight to a register (`.kind::mxf4*`).
    E2M1Packed,
}

impl Elem {
    fn from_code(code: u32) -> Option<Elem> {
        Some(match ElemCode::from_raw(code)? {
            ElemCode::F16 => Elem::F16,
            ElemCode::BF16 => Elem::BF16,
            ElemCode::TF32 => Elem::TF32,
            ElemCode::F32 => Elem::F32,
            ElemCode::F64 => Elem::F64,
            ElemCode::S8 => Elem::S8,
            ElemCode::U8 => Elem::U8,
            ElemCode::S32 => Elem::S32,
            ElemCode::S4 => Elem::S4,
            ElemCode::U4 => Elem::U4,
            ElemCode::E4M3 => Elem::E4M3,
            ElemCode::E5M2 => Elem::E5M2,
            ElemCode::B1 => Elem::B1,
            ElemCode::E3M2 => Elem::E3M2,
            ElemCode::E2M3 => Elem::E2M3,
            ElemCode::E2M1 => Elem::E2M1,
            ElemCode::E2M1Packed => Elem::E2M1Packed,
        })
    }

    fn bits(self) -> u32 {
        match self {
            Elem::F16 | Elem::BF16 => 16,
            Elem::TF32 | Elem::F32 | Elem::S32 => 32,
            Elem::F64 => 64,
            Elem::S8 | Elem::U8 | Elem::E4M3 | Elem::E5M2 | Elem::E3M2 | Elem::E2M3 | Elem::E2M1 => 8,
            Elem::S4 | Elem::U4 | Elem::E2M1Packed => 4,
            Elem::B1 => 1,
        }
    }

    /// Elements per fragment register.
    fn per_reg(self) -> usize {
        ptx2llvm_abi::matrix::elements_per_register(self.bits())
    }

    fn is_int(self) -> bool {
        matches!(self, Elem::S8 | Elem::U8 | Elem::S32 | Elem::S4 | Elem::U4)
    }

    /// The value of an element's bits (exact in `f64` for every type).
    fn decode(self, v: u64) -> f64 {
        match self {
            Elem::F16 => f16_to_f32(v as u16) as f64,
            Elem::BF16 => f32::from_bits((v as u32) << 16) as f64,
            Elem::TF32 => f32::from_bits(v as u32 & 0xffff_e000) as f64,
            Elem::F32 => f32::from_bits(v as u32) as f64,
            Elem::F64 => f64::from_bits(v),
            Elem::S8 => v as u8 as i8 as f64,
            Elem::U8 => v as u8 as f64,
            Elem::S32 => v as u32 as i32 as f64,
            Elem::S4 => (((v as u8) << 4) as i8 >> 4) as f64,
            Elem::U4 => (v & 15) as f64,
            Elem::E4M3 => e4m3_to_f32(v as u8) as f64,
            Elem::E5M2 => f16_to_f32((v as u16 & 0xff) << 8) as f64,
            Elem::B1 => (v & 1) as f64,
            // Containers: `.e3m2`/`.e2m3` in bits 0..5, `.e2m1` in bits 2..5.
            Elem::E3M2 => small_float(v as u32 & 0x3f, 3, 2, 3),
            Elem::E2M3 => small_float(v as u32 & 0x3f, 2, 3, 1),
            Elem::E2M1 => small_float((v as u32 >> 2) & 0xf, 2, 1, 1),
            Elem::E2M1Packed => small_float(v as u32 & 0xf, 2, 1, 1),
        }
    }
}

/// binary16 bits to `f32` (exact).
fn f16_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = (h >> 10) & 0x1f;
    let man = (h & 0x3ff) as u32;
    match exp {
        0 => sign * man as f32 * f32::from_bits(0x3380_0000), // man * 2^-24
        0x1f => f32::from_bits(((h as u32 & 0x8000) << 16) | 0x7f80_0000 | (man << 13)),
        _ => f32::from_bits(((h as u32 & 0x8000) << 16) | ((exp as u32 + 112) << 23) | (man << 13)),
    }
}

/// `f32` to binary16 bits, rounding to nearest even (NaNs stay NaN, keeping the payload's top bits).
fn f32_to_f16(x: f32) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xff) as i32;
    let man = b & 0x7f_ffff;
    if exp == 0xff {
        return sign | 0x7c00 | if man != 0 { 0x200 | (man >> 13) as u16 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    let round = |value: u32, shift: u32| -> u32 {
        let r = value >> shift;
        let rem = value & ((1 << shift) - 1);
        let half = 1 << (shift - 1);
        if rem > half || (rem == half && r & 1 == 1) {
            r + 1
        } else {
            r
        }
    };
    if e <= 0 {
        // Subnormal (or zero) result: units of 2^-24; a carry into bit 10 gives the
        // smallest normal, which is the right encoding.
        if e < -10 {
            return sign;
        }
        return sign | round(man | 0x80_0000, (14 - e) as u32) as u16;
    }
    // A carry out of the mantissa increments the exponent (up to infinity): still right.
    sign | round(((e as u32) << 23) | man, 13) as u16
}

/// OCP FP8 E4M3 (bias 7, no infinities, S.1111.111 is NaN) to `f32`.
fn e4m3_to_f32(v: u8) -> f32 {
    let sign = if v & 0x80 != 0 { -1.0 } else { 1.0 };
    let exp = ((v >> 3) & 15) as i32;
    let man = (v & 7) as f32;
    if exp == 15 && v & 7 == 7 {
        return f32::NAN;
    }
    if exp == 0 {
        sign * man / 8.0 * (2.0f32).powi(-6)
    } else {
        sign * (1.0 + man / 8.0) * (2.0f32).powi(exp - 7)
    }
}

/// The value of an OCP MX float of `exp` exponent and `man` mantissa bits (sign above
/// them) with exponent bias `bias`; these formats have no infinities or NaNs.
fn small_float(v: u32, exp: u32, man: u32, bias: i32) -> f64 {
    let e = (v >> man) & ((1 << exp) - 1);
    let m = (v & ((1 << man) - 1)) as f64 / (1u32 << man) as f64;
    let magnitude = if e == 0 { m * 2f64.powi(1 - bias) } else { (1.0 + m) * 2f64.powi(e as i32 - bias) };
    if v >> (exp + man) & 1 != 0 {
        -magnitude
    } else {
        magnitude
    }
}

/// `a * b + c` rounded once in `mode` (0 `.rn`, 1 `.rz`, 2 `.rm`, 3 `.rp`).
fn fma_f64(a: f64, b: f64, c: f64, mode: u32) -> f64 {
    let nearest = a.mul_add(b, c);
    // A NaN result does not depend on the rounding: keep the hardware's NaN.
    if mode == 0 || nearest.is_nan() {
        return nearest;
    }
    let round = match mode {
        1 => Round::TowardZero,
        2 => Round::TowardNegative,
        _ => Round::TowardPositive,
    };
    let d = |x: f64| Double::from_bits(x.to_bits() as u128);
    f64::from_bits(d(a).mul_add_r(d(b), d(c), round).value.to_bits() as u64)
}

/// One warp's view of a matrix sync point.
struct Warp<'a> {
    b: &'a Block<'a>,
    p: &'a SyncPoint,
    ops: &'a [SyncOperand],
    w: usize,
    at: u32,
    /// Register counts: destinations, then the three source groups.
    counts: [usize; 4],
    shape: [usize; 3],
    scaling: Option<Scaling>,
    /// `mma.sp`: the sparsity metadata and selector follow the C fragment.
    sparse: bool,
}

/// The block scaling of an `mma` (module documentation).
#[derive(Clone, Copy)]
struct Scaling {
    /// Scale factors per row of A and column of B: 1, 2 or 4.
    vec: usize,
    ue4m3: bool,
}

impl Warp<'_> {
    fn present(&self, lane: usize) -> bool {
        self.at & (1 << lane) != 0
    }

    fn thread(&self, lane: usize) -> usize {
        32 * self.w + lane
    }

    /// Operand `j` after the fragments (sparsity, then scale operands) of lane `lane`; zero
    /// for lanes not taking part.
    fn trailing(&self, j: usize, lane: usize) -> u64 {
        if self.present(lane) {
            self.b.read(&self.ops[self.counts.iter().sum::<usize>() + j], self.thread(lane))
        } else {
            0
        }
    }

    /// The registers of source group `g` (0: A or the stored fragment, 1: B, 2: C) of
    /// every lane, in `buf`; lanes not taking part read as zero.
    fn sources<'b>(&self, g: usize, buf: &'b mut Vec<u64>) -> Frag<'b> {
        let first = self.counts[0] + self.counts[1..1 + g].iter().sum::<usize>();
        let count = self.counts[1 + g];
        let regs = zeroed(buf, 32 * count);
        for j in 0..count {
            // The register's slot array, resolved once for all lanes.
            let reg = self.b.access(&self.ops[first + j]);
            for l in (0..32).filter(|&l| self.present(l)) {
                regs[l * count + j] = reg.get(self.thread(l));
            }
        }
        Frag { regs, count }
    }

    fn write_dst(&self, out: Frag) {
        for j in 0..self.counts[0].min(out.count) {
            let reg = self.b.access(&self.ops[j]);
            for l in (0..32).filter(|&l| self.present(l)) {
                reg.set(self.thread(l), out.lane(l)[j]);
            }
        }
    }

    /// The host address of lane `lane`'s memory operand.
    fn address(&self, lane: usize) -> Result<*mut u8, String> {
        let v = self.b.read(&self.p.a, self.thread(lane));
        if self.p.flags & flag::SHARED != 0 {
            // SAFETY: PTX shared addresses are offsets inside the block's shared window.
            Ok(unsafe { self.b.shared.add(v as usize) })
        } else if v == 0 {
            Err(format!("lane {lane} of warp {} gives a null address", self.w))
        } else {
            Ok(v as usize as *mut u8)
        }
    }
}

/// One group of fragment registers of all 32 lanes: lane `l`'s register `j` at
/// `regs[l * count + j]`.
#[derive(Clone, Copy)]
struct Frag<'a> {
    regs: &'a [u64],
    count: usize,
}

impl<'a> Frag<'a> {
    fn lane(&self, l: usize) -> &'a [u64] {
        &self.regs[l * self.count..(l + 1) * self.count]
    }
}

/// `buf` cleared and filled with `len` default values: its memory is reused, so a worker
/// allocates only when an instruction needs more than any before it.
fn zeroed<T: Copy + Default>(buf: &mut Vec<T>, len: usize) -> &mut [T] {
    buf.clear();
    buf.resize(len, T::default());
    buf
}

/// A worker's reusable buffers for matrix instructions (fragments, the matrices as values,
/// the terms of each row, the result, scale factors).
#[derive(Default)]
struct Scratch {
    frags: [Vec<u64>; 4],
    mats: [Vec<f64>; 3],
    terms: Vec<(usize, f64)>,
    d: Vec<u64>,
    scales: [Vec<f64>; 2],
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

fn get(regs: &[u64], e: Elem, i: usize) -> u64 {
    let per = e.per_reg();
    let v = regs.get(i / per).copied().unwrap_or(0);
    if per == 1 {
        v
    } else {
        (v >> ((i % per) as u32 * e.bits())) & ((1 << e.bits()) - 1)
    }
}

fn put(regs: &mut [u64], e: Elem, i: usize, v: u64) {
    let per = e.per_reg();
    if let Some(r) = regs.get_mut(i / per) {
        if per == 1 {
            *r = v;
        } else {
            let shift = (i % per) as u32 * e.bits();
            let mask = ((1u64 << e.bits()) - 1) << shift;
            *r = (*r & !mask) | ((v << shift) & mask);
        }
    }
}

/// `(computation, row, column)` of element `i` of lane `lane`'s `mma` fragment (the
/// contract's `MmaLayout::position`).
fn mma_position(layout: MmaLayout, role: Role, ty: Elem, lane: usize, i: usize) -> (usize, usize, usize) {
    layout.position(role, ty.bits(), lane, i)
}

/// Our `wmma` layout (module documentation): the row-major index of element `e` of lane `lane`.
fn wmma_index(lane: usize, e: usize, per_lane: usize, elements: usize) -> usize {
    (lane * per_lane + e) % elements
}

/// Runs matrix instruction `p` for the lanes `at` of warp `w`.
pub(crate) fn run(b: &Block, p: &SyncPoint, w: usize, at: u32) -> Result<(), String> {
    let ops: &[SyncOperand] = if p.operands.is_null() {
        &[]
    } else {
        // SAFETY: the compiler emits `num_operands` descriptors at `operands`.
        unsafe { std::slice::from_raw_parts(p.operands, p.num_operands as usize) }
    };
    let c = p.c.value;
    let counts = [(c & 0xff) as usize, ((c >> 8) & 0xff) as usize, ((c >> 16) & 0xff) as usize, ((c >> 24) & 0xff) as usize];
    let scaling = match (c >> SCALE_SHIFT) & 0xff {
        0 => None,
        vec @ (1 | 2 | 4) => Some(Scaling { vec: vec as usize, ue4m3: (c >> (SCALE_SHIFT + 8)) & 1 != 0 }),
        _ => return Err("malformed matrix instruction descriptor".into()),
    };
    let sparse = p.op == op::MMA && p.flags & flag::SPARSE != 0;
    let extra = if scaling.is_some() { SCALE_OPERANDS } else { 0 } + if sparse { SPARSE_OPERANDS } else { 0 };
    if counts.iter().sum::<usize>() + extra != ops.len() {
        return Err("malformed matrix instruction descriptor".into());
    }
    let shape = [(p.mode & 0xff) as usize, ((p.mode >> 8) & 0xff) as usize, (p.mode >> 16) as usize];
    let x = Warp { b, p, ops, w, at, counts, shape, scaling, sparse };
    let ty = |field: u32| {
        Elem::from_code((p.flags >> (flag::ELEM_BITS * field)) & ((1 << flag::ELEM_BITS) - 1)).ok_or_else(|| "unknown matrix element type".to_string())
    };
    let compute = |sc: &mut Scratch| match p.op {
        op::MMA | op::WMMA_MMA => multiply_accumulate(&x, [ty(0)?, ty(1)?, ty(2)?, ty(3)?], p.op == op::WMMA_MMA, sc),
        op::WMMA_LOAD | op::WMMA_STORE => wmma_memory(&x, ty(0)?, sc),
        op::LDMATRIX | op::STMATRIX => ld_st_matrix(&x, sc),
        _ => {
            // movmatrix: the source fragment as an 8x8 matrix, handed back transposed.
            let m = gather_8x8(x.sources(0, &mut sc.frags[0]), 0);
            x.write_dst(Frag { regs: &scatter_8x8(&m, true), count: 1 });
            Ok(())
        }
    };
    // The worker's buffers; a fresh set only if they are somehow in use already.
    SCRATCH
        .try_with(|cell| match cell.try_borrow_mut() {
            Ok(mut sc) => compute(&mut sc),
            Err(_) => compute(&mut Scratch::default()),
        })
        .unwrap_or_else(|_| compute(&mut Scratch::default()))
}

fn multiply_accumulate(x: &Warp, [ta, tb, tc, td]: [Elem; 4], wmma: bool, sc: &mut Scratch) -> Result<(), String> {
    let m8n8k4_f16 = !wmma && x.shape == [8, 8, 4] && ta == Elem::F16;
    let [m, n, k] = x.shape;
    let products = if m8n8k4_f16 { 4 } else { 1 };
    let layout = MmaLayout { shape: x.shape, m8n8k4_f16, a_col: x.p.flags & flag::A_COL != 0, b_col: x.p.flags & flag::B_COL != 0 };
    let Scratch { frags: [fa, fb, fc, fd], mats: [ma, mb, mc], terms, d, scales } = sc;
    let regs = [x.sources(0, fa), x.sources(1, fb), x.sources(2, fc)];
    // A sparse A holds K/2 columns, laid out like a dense A of K/2 columns.
    let a_cols = if x.sparse { k / 2 } else { k };
    let dims = [(m, a_cols), (k, n), (m, n)];
    // Gather A, B and C as `products` row-major matrices of values.
    let mats = [zeroed(ma, products * dims[0].0 * dims[0].1), zeroed(mb, products * dims[1].0 * dims[1].1), zeroed(mc, products * dims[2].0 * dims[2].1)];
    for (g, (t, role)) in [(ta, Role::A), (tb, Role::B), (tc, Role::Acc)].into_iter().enumerate() {
        let (rows, cols) = dims[g];
        let per_lane = x.counts[1 + g] * t.per_reg();
        for lane in 0..32 {
            let lane_regs = regs[g].lane(lane);
            for i in 0..per_lane {
                let (q, r, c) = if wmma {
                    if lane * per_lane + i >= rows * cols {
                        continue; // a second copy of an element (`.f16` A/B)
                    }
                    let idx = wmma_index(lane, i, per_lane, rows * cols);
                    (0, idx / cols, idx % cols)
                } else {
                    mma_position(layout, role, t, lane, i)
                };
                if q < products && r < rows && c < cols {
                    mats[g][(q * rows + r) * cols + c] = t.decode(get(lane_regs, t, i));
                }
            }
        }
    }
    let [a, b, c] = mats;
    let (a, b, c) = (&*a, &*b, &*c);
    // Each row of A as the (column, value) terms it contributes, in accumulation order:
    // row `qr`'s terms are `terms[qr * row_len..][..row_len]`.
    let row_len = if x.sparse {
        sparse_rows(x, ta, a, terms)?
    } else {
        terms.clear();
        terms.extend((0..products * m).flat_map(|qr| (0..k).map(move |kk| (kk, a[qr * k + kk]))));
        k
    };
    let [sf_a_buf, sf_b_buf] = scales;
    let scales = match x.scaling {
        Some(s) => Some(scale_factors(x, s, sf_a_buf, sf_b_buf)?),
        None => None,
    };
    // The product of A[r][kk] and B[kk][col] with their scale factors (exact in f64).
    let product = |r: usize, kk: usize, col: usize, av: f64, bv: f64| match &scales {
        Some((sf_a, sf_b, vec)) => {
            let block = kk * vec / k;
            (av * sf_a[r * vec + block]) * (bv * sf_b[block * n + col])
        }
        None => av * bv,
    };
    let satfinite = x.p.flags & flag::SATFINITE != 0;
    let rounding = (x.p.flags >> flag::ROUND_SHIFT) & 3;
    let popc_and = x.p.flags & flag::POPC_AND != 0;
    let d = zeroed(d, products * m * n);
    for q in 0..products {
        for r in 0..m {
            let terms = &terms[(q * m + r) * row_len..][..row_len];
            for col in 0..n {
                let bv = |kk: usize| b[(q * k + kk) * n + col];
                let c0 = c[(q * m + r) * n + col];
                d[(q * m + r) * n + col] = if ta == Elem::B1 {
                    let ones = terms
                        .iter()
                        .filter(|&&(kk, av)| {
                            let (x, y) = (av != 0.0, bv(kk) != 0.0);
                            if popc_and {
                                x && y
                            } else {
                                x != y
                            }
                        })
                        .count();
                    (c0 as i64 as i32).wrapping_add(ones as i32) as u32 as u64
                } else if ta.is_int() {
                    // Exact: |sum| < 2^53.
                    let s = terms.iter().fold(c0, |s, &(kk, av)| s + av * bv(kk)) as i64;
                    let v = if satfinite { s.clamp(i32::MIN as i64, i32::MAX as i64) } else { s as i32 as i64 };
                    v as u32 as u64
                } else if ta == Elem::F64 {
                    terms.iter().fold(c0, |s, &(kk, av)| fma_f64(av, bv(kk), s, rounding)).to_bits()
                } else {
                    // Unscaled products are exact in f32 (at most 22 significant bits).
                    let s = terms.iter().fold(c0 as f32, |s, &(kk, av)| s + product(r, kk, col, av, bv(kk)) as f32);
                    if td == Elem::F16 {
                        f32_to_f16(s) as u64
                    } else {
                        s.to_bits() as u64
                    }
                };
            }
        }
    }
    // Scatter D into the lanes' destination registers.
    let per_lane = x.counts[0] * td.per_reg();
    let count = x.counts[0];
    let out = zeroed(fd, 32 * count);
    for (lane, regs) in out.chunks_mut(count.max(1)).enumerate().take(32) {
        for i in 0..per_lane {
            let (q, r, c) = if wmma {
                let idx = wmma_index(lane, i, per_lane, m * n);
                (0, idx / n, idx % n)
            } else {
                mma_position(layout, Role::Acc, td, lane, i)
            };
            if q < products && r < m && c < n {
                put(regs, td, i, d[(q * m + r) * n + c]);
            }
        }
    }
    x.write_dst(Frag { regs: out, count });
    Ok(())
}

/// The structured sparsity of `mma.sp`'s A (§9.7.14.6.1): each row is cut into chunks of
/// `width` elements of which `stored` are held in the A fragment, and 4 metadata bits per
/// chunk say where they go (module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Sparsity {
    width: usize,
    stored: usize,
    /// 16- and 32-bit elements: a metadata register holds 4 chunks of two rows (`g`, `g + 8`);
    /// 8- and 4-bit elements: 8 chunks of one row.
    two_rows: bool,
    /// Lanes of each quad that hold metadata: 1, 2 (a pair) or 4.
    lanes: usize,
}

impl Sparsity {
    fn of(ta: Elem, k: usize) -> Sparsity {
        let (width, stored) = match ta.bits() {
            32 => (2, 1),
            4 => (8, 4),
            _ => (4, 2),
        };
        Sparsity { width, stored, two_rows: ta.bits() >= 16, lanes: k / width / 4 }
    }

    /// The lane (counted from the selected lanes of row `row`'s quad) and bit offset of the
    /// metadata of chunk `chunk` of row `row`.
    fn slot(self, row: usize, chunk: usize) -> (usize, u32) {
        if self.two_rows {
            (chunk / 4, (16 * (row / 8) + 4 * (chunk % 4)) as u32)
        } else {
            (2 * (chunk / 8) + row / 8, (4 * (chunk % 8)) as u32)
        }
    }

    /// The column inside its chunk of a chunk's `j`-th stored element, from the chunk's
    /// four metadata bits: two 2-bit indices, the lower one for the first element (`.tf32`:
    /// the indices name 16-bit halves, so bit 1 picks the element; 4-bit elements: they name
    /// pairs of elements).
    fn column(self, bits: u64, j: usize) -> usize {
        match self.stored {
            1 => ((bits >> 1) & 1) as usize,
            2 => ((bits >> (2 * j)) & 3) as usize,
            _ => 2 * ((bits >> (2 * (j / 2))) & 3) as usize + j % 2,
        }
    }
}

/// The rows of a sparse A as (column, value) terms: stored element `c` of row `r` goes to the
/// column its chunk's metadata names. Equal indices (undefined in the ISA) put both elements
/// in one column, so both products are added.
fn sparse_rows(x: &Warp, ta: Elem, a: &[f64], terms: &mut Vec<(usize, f64)>) -> Result<usize, String> {
    let [m, _, k] = x.shape;
    let geometry = Sparsity::of(ta, k);
    let selector = (0..32).find(|&l| x.present(l)).map_or(0, |l| x.trailing(1, l)) as usize;
    // The selector names one lane of each quad, a lane pair, or (0) all four lanes.
    let first_lane = match (geometry.lanes, selector) {
        (1, s) if s < 4 => s,
        (2, s) if s < 2 => 2 * s,
        (4, 0) => 0,
        (lanes, s) => {
            let valid = if lanes == 2 { "0 or 1" } else { "0" };
            return Err(format!("sparsity selector {s} of mma.sp in warp {} is undefined for this shape and type (ISA §9.7.14.6.1: {valid})", x.w));
        }
    };
    let half = k / 2;
    terms.clear();
    for r in 0..m {
        for c in 0..half {
            let chunk = c / geometry.stored;
            let (lane, shift) = geometry.slot(r, chunk);
            let bits = (x.trailing(0, 4 * (r % 8) + first_lane + lane) >> shift) & 0xf;
            terms.push((chunk * geometry.width + geometry.column(bits, c % geometry.stored), a[r * half + c]));
        }
    }
    Ok(half)
}

/// The value of a block-scaling factor's byte.
fn scale_value(byte: u8, ue4m3: bool) -> f64 {
    if ue4m3 {
        // Bit 7 is padding; 0x7f (exponent 15, mantissa 7) is NaN.
        e4m3_to_f32(byte & 0x7f) as f64
    } else if byte == 0xff {
        f64::NAN
    } else {
        2f64.powi(byte as i32 - 127)
    }
}

/// The scale factors of a block-scaled `mma`: SF_A (M x V, row-major), SF_B (V x N,
/// row-major) and V, gathered from the lanes and bytes its selectors name (module
/// documentation).
fn scale_factors<'b>(x: &Warp, s: Scaling, sf_a: &'b mut Vec<f64>, sf_b: &'b mut Vec<f64>) -> Result<(&'b [f64], &'b [f64], usize), String> {
    let [m, n, _] = x.shape;
    let skip = if x.sparse { SPARSE_OPERANDS } else { 0 };
    let operand = |j: usize, lane: usize| x.trailing(skip + j, lane);
    // A selector must be the same in every lane of the warp.
    let selector = |j: usize, name: &str| -> Result<u64, String> {
        let mut lanes = (0..32).filter(|&l| x.present(l)).map(|l| operand(j, l) as u16 as u64);
        let v = lanes.next().unwrap_or(0);
        if lanes.any(|o| o != v) {
            return Err(format!("{name} differs between the lanes of warp {}", x.w));
        }
        Ok(v)
    };
    let bytes: &[u64] = match s.vec {
        1 => &[0, 1, 2, 3],
        2 => &[0, 2],
        _ => &[0],
    };
    let mut ids = [0usize; 4];
    for (slot, (j, name, valid)) in
        [(1, "byte-id-a", bytes), (2, "thread-id-a", &[0, 1][..]), (4, "byte-id-b", bytes), (5, "thread-id-b", &[0, 1, 2, 3][..])].into_iter().enumerate()
    {
        let v = selector(j, name)?;
        if !valid.contains(&v) {
            return Err(format!("{name} {v} is not valid with .scale_vec::{}X (ISA Table 37)", s.vec));
        }
        ids[slot] = v as usize;
    }
    let [byte_a, thread_a, byte_b, thread_b] = ids;
    let factor = |data: u64, byte_id: usize, v: usize| scale_value((data >> (8 * (byte_id + v))) as u8, s.ue4m3);
    let sf_a = zeroed(sf_a, m * s.vec);
    for row in 0..m {
        let data = operand(0, 4 * (row % 8) + 2 * thread_a + row / 8);
        for v in 0..s.vec {
            sf_a[row * s.vec + v] = factor(data, byte_a, v);
        }
    }
    let sf_b = zeroed(sf_b, s.vec * n);
    for col in 0..n {
        let data = operand(3, 4 * col + thread_b);
        for v in 0..s.vec {
            sf_b[v * n + col] = factor(data, byte_b, v);
        }
    }
    Ok((sf_a, sf_b, s.vec))
}

/// `wmma.load` / `wmma.store`: each lane moves its own fragment elements (our layout) from
/// or to memory in the `.row`/`.col` layout with the given stride.
fn wmma_memory(x: &Warp, e: Elem, sc: &mut Scratch) -> Result<(), String> {
    let [m, n, k] = x.shape;
    let load = x.p.op == op::WMMA_LOAD;
    let role = if load { (x.p.flags >> flag::ROLE_SHIFT) & 3 } else { 2 };
    let (rows, cols) = match role {
        0 => (m, k),
        1 => (k, n),
        _ => (m, n),
    };
    let col_major = x.p.flags & flag::A_COL != 0;
    let regs_per_lane = if load { x.counts[0] } else { x.counts[1] };
    let per_lane = regs_per_lane * e.per_reg();
    let [fs, _, _, fd] = &mut sc.frags;
    let stored = if load { Frag { regs: &[], count: 0 } } else { x.sources(0, fs) };
    let out = zeroed(fd, 32 * regs_per_lane);
    let bits = e.bits() as usize;
    for lane in (0..32).filter(|&l| x.present(l)) {
        let base = x.address(lane)?;
        let stride = match x.p.b.kind {
            0 => {
                if col_major {
                    rows
                } else {
                    cols
                }
            }
            _ => x.b.read(&x.p.b, x.thread(lane)) as u32 as usize,
        };
        for i in 0..per_lane {
            let idx = wmma_index(lane, i, per_lane, rows * cols);
            let (r, c) = (idx / cols, idx % cols);
            let elem = if col_major { c * stride + r } else { r * stride + c };
            let bit = elem * bits;
            // SAFETY: the program provides a matrix of this shape and stride at the address
            // (as on the GPU, an out-of-range address is the program's error).
            unsafe {
                let at = base.add(bit / 8);
                if load {
                    let v = match bits {
                        1 => ((at.read() >> (bit % 8)) & 1) as u64,
                        4 => ((at.read() >> (bit % 8)) & 15) as u64,
                        8 => at.read() as u64,
                        16 => (at as *const u16).read_unaligned() as u64,
                        32 => (at as *const u32).read_unaligned() as u64,
                        _ => (at as *const u64).read_unaligned(),
                    };
                    put(&mut out[lane * regs_per_lane..(lane + 1) * regs_per_lane], e, i, v);
                } else {
                    let v = get(stored.lane(lane), e, i);
                    match bits {
                        1 => {
                            let shift = bit % 8;
                            at.write((at.read() & !(1 << shift)) | ((v as u8 & 1) << shift));
                        }
                        4 => {
                            let shift = bit % 8;
                            at.write((at.read() & !(15 << shift)) | ((v as u8 & 15) << shift));
                        }
                        8 => at.write(v as u8),
                        16 => (at as *mut u16).write_unaligned(v as u16),
                        32 => (at as *mut u32).write_unaligned(v as u32),
                        _ => (at as *mut u64).write_unaligned(v),
                    }
                }
            }
        }
    }
    if load {
        x.write_dst(Frag { regs: out, count: regs_per_lane });
    }
    Ok(())
}

/// The 8x8 matrix of 16-bit elements held in register `j` as `ldmatrix` lays it out: lane
/// `l` holds row `l / 4`, columns `2 (l % 4)` (low half) and `2 (l % 4) + 1` (high half).
fn gather_8x8(regs: Frag, j: usize) -> [[u16; 8]; 8] {
    let mut m = [[0u16; 8]; 8];
    for l in 0..32 {
        let v = regs.lane(l).get(j).copied().unwrap_or(0);
        m[l / 4][2 * (l % 4)] = v as u16;
        m[l / 4][2 * (l % 4) + 1] = (v >> 16) as u16;
    }
    m
}

/// The lanes' registers holding `m` (or its transpose) in the `ldmatrix` layout.
fn scatter_8x8(m: &[[u16; 8]; 8], trans: bool) -> [u64; 32] {
    std::array::from_fn(|l| {
        let (r, c) = (l / 4, 2 * (l % 4));
        let (lo, hi) = if trans { (m[c][r], m[c + 1][r]) } else { (m[r][c], m[r][c + 1]) };
        lo as u64 | (hi as u64) << 16
    })
}

/// `ldmatrix`/`stmatrix` `.m8n8.b16`: matrix `q`'s row `r` lives at the address of lane `8q + r`.
fn ld_st_matrix(x: &Warp, sc: &mut Scratch) -> Result<(), String> {
    let load = x.p.op == op::LDMATRIX;
    let trans = x.p.flags & flag::TRANS != 0;
    let num = if load { x.counts[0] } else { x.counts[1] };
    let [fs, _, _, fd] = &mut sc.frags;
    let stored = if load { Frag { regs: &[], count: 0 } } else { x.sources(0, fs) };
    let out = zeroed(fd, 32 * num);
    for q in 0..num {
        let mut m = [[0u16; 8]; 8];
        if !load {
            let g = gather_8x8(stored, q);
            // `.trans`: the registers hold the transpose of the matrix in memory.
            for (r, row) in m.iter_mut().enumerate() {
                for (c, v) in row.iter_mut().enumerate() {
                    *v = if trans { g[c][r] } else { g[r][c] };
                }
            }
        }
        for (r, row) in m.iter_mut().enumerate() {
            let lane = 8 * q + r;
            if !x.present(lane) {
                continue;
            }
            let at = x.address(lane)? as *mut u16;
            for (c, v) in row.iter_mut().enumerate() {
                // SAFETY: each row address points at 16 bytes of the matrix (ISA contract).
                unsafe {
                    if load {
                        *v = at.add(c).read_unaligned();
                    } else {
                        at.add(c).write_unaligned(*v);
                    }
                }
            }
        }
        if load {
            for (lane, reg) in scatter_8x8(&m, trans).into_iter().enumerate() {
                out[lane * num + q] = reg;
            }
        }
    }
    if load {
        x.write_dst(Frag { regs: out, count: num });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_conversions_round_to_nearest_even() {
        assert_eq!(f32_to_f16(1.0), 0x3c00);
        assert_eq!(f32_to_f16(65504.0), 0x7bff);
        assert_eq!(f32_to_f16(65520.0), 0x7c00, "halfway above the largest finite rounds to infinity");
        assert_eq!(f32_to_f16(f32::from_bits(0x3380_0000)), 0x0001, "2^-24: the smallest subnormal");
        assert_eq!(f32_to_f16(f32::from_bits(0x3300_0000)), 0x0000, "2^-25 ties to even zero");
        assert_eq!(f32_to_f16(1.0 + 2f32.powi(-11)), 0x3c00, "tie to even");
        assert_eq!(f32_to_f16(1.0 + 3.0 * 2f32.powi(-11)), 0x3c02);
        assert_eq!(f32_to_f16(-0.0), 0x8000);
        for h in 0..=0xffffu16 {
            let f = f16_to_f32(h);
            if f.is_nan() {
                assert!(f16_to_f32(f32_to_f16(f)).is_nan());
            } else {
                assert_eq!(f32_to_f16(f), h, "round trip of {h:#x}");
            }
        }
        assert_eq!(e4m3_to_f32(0x7e), 448.0);
        assert_eq!(e4m3_to_f32(0x01), 2f32.powi(-9));
    }

    #[test]
    fn mx_floats_decode_from_their_containers() {
        // e2m1 (bits 2..5): 0, 0.5, 1, 1.5, 2, 3, 4, 6 and their negatives.
        let e2m1: Vec<f64> = (0..16u64).map(|v| Elem::E2M1.decode(v << 2 | 0xc3)).collect();
        assert_eq!(e2m1, [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0]);
        // e2m3: subnormals in units of 1/8, largest 7.5; e3m2: subnormals in units of 1/16, largest 28.
        assert_eq!(Elem::E2M3.decode(0x01), 0.125);
        assert_eq!(Elem::E2M3.decode(0xdf), 7.5, "padding bits are ignored");
        assert_eq!(Elem::E2M3.decode(0x3f), -7.5);
        assert_eq!(Elem::E2M3.decode(0x08), 1.0);
        assert_eq!(Elem::E3M2.decode(0x01), 0.0625);
        assert_eq!(Elem::E3M2.decode(0x1f), 28.0);
        assert_eq!(Elem::E3M2.decode(0x2c), -1.0);
        assert_eq!(Elem::E3M2.decode(0x0d), 1.25);
    }

    #[test]
    fn block_scale_factors_decode() {
        assert_eq!(scale_value(127, false), 1.0);
        assert_eq!(scale_value(0, false), 2f64.powi(-127));
        assert_eq!(scale_value(0xfe, false), 2f64.powi(127));
        assert!(scale_value(0xff, false).is_nan());
        // ue4m3: bias 7, subnormals in units of 2^-9, 0x7e the largest (448), 0x7f NaN.
        assert_eq!(scale_value(0x38, true), 1.0);
        assert_eq!(scale_value(0x01, true), 2f64.powi(-9));
        assert_eq!(scale_value(0x7e, true), 448.0);
        assert!(scale_value(0x7f, true).is_nan());
        assert_eq!(scale_value(0xb8, true), 1.0, "bit 7 is padding");
        // `.kind::mxf4*` e2m1 without a container: the low four bits.
        assert_eq!(Elem::E2M1Packed.decode(0x7), 6.0);
        assert_eq!(Elem::E2M1Packed.decode(0xa), -1.0);
        assert_eq!(Elem::E2M1Packed.per_reg(), 8);
    }

    #[test]
    fn f64_fma_rounds_in_each_mode() {
        let third = 1.0 / 3.0;
        // 3 * RN(1/3) = 1 - 2^-54 exactly: below 1 by half an ulp of the binade under 1.
        let exact_below_one = |mode| fma_f64(3.0, third, 0.0, mode);
        assert_eq!(exact_below_one(0), 1.0);
        assert_eq!(exact_below_one(1), 1.0 - f64::EPSILON / 2.0);
        assert_eq!(exact_below_one(2), 1.0 - f64::EPSILON / 2.0);
        assert_eq!(exact_below_one(3), 1.0);
        assert_eq!(fma_f64(-3.0, third, 0.0, 1), -(1.0 - f64::EPSILON / 2.0));
        assert_eq!(fma_f64(-3.0, third, 0.0, 2), -1.0);
        // Overflow: toward zero stays finite, away from it becomes infinite.
        assert_eq!(fma_f64(f64::MAX, 2.0, 0.0, 1), f64::MAX);
        assert_eq!(fma_f64(f64::MAX, 2.0, 0.0, 3), f64::INFINITY);
        assert_eq!(fma_f64(f64::MAX, 2.0, 0.0, 2), f64::MAX);
        // An exact zero sum is -0 only when rounding down.
        assert!(fma_f64(1.0, 1.0, -1.0, 2).is_sign_negative());
        assert!(fma_f64(1.0, 1.0, -1.0, 3).is_sign_positive());
        // Subnormal results: 2^-1074 * 0.5 rounds to 0 toward zero/down, to 2^-1074 up.
        let tiny = f64::from_bits(1);
        assert_eq!(fma_f64(tiny, 0.5, 0.0, 1), 0.0);
        assert_eq!(fma_f64(tiny, 0.5, 0.0, 3), tiny);
        assert!(fma_f64(f64::NAN, 1.0, 0.0, 2).is_nan());
    }

    #[test]
    fn mma_b1_layouts_cover_each_element_once() {
        for (shape, na, nb) in [([8, 8, 128], 1, 1), ([16, 8, 128], 2, 1), ([16, 8, 256], 4, 2)] {
            let layout = MmaLayout { shape, m8n8k4_f16: false, a_col: false, b_col: false };
            let [m, n, k] = shape;
            for (role, rows, cols, regs) in [(Role::A, m, k, na), (Role::B, k, n, nb)] {
                let mut seen = vec![0; rows * cols];
                for lane in 0..32 {
                    for i in 0..32 * regs {
                        let (_, r, c) = mma_position(layout, role, Elem::B1, lane, i);
                        seen[r * cols + c] += 1;
                    }
                }
                assert!(seen.iter().all(|&s| s == 1), "{shape:?}");
            }
        }
        // The ISA's formulas for m16n8k256: a70 of lane 6 is row 1, column 2 * 32 + 6 + 128.
        let layout = MmaLayout { shape: [16, 8, 256], m8n8k4_f16: false, a_col: false, b_col: false };
        assert_eq!(mma_position(layout, Role::A, Elem::B1, 6, 70), (0, 1, 198));
        assert_eq!(mma_position(layout, Role::A, Elem::B1, 6, 40), (0, 9, 72));
        assert_eq!(mma_position(layout, Role::B, Elem::B1, 6, 40), (0, 64 + 8 + 128, 1));
    }

    #[test]
    fn mma_m16n8k16_layout_covers_each_element_once() {
        for (ty, role, rows, cols, count) in
            [(Elem::F16, Role::A, 16, 16, 8), (Elem::F16, Role::B, 16, 8, 4), (Elem::F32, Role::Acc, 16, 8, 4), (Elem::S8, Role::A, 16, 32, 16)]
        {
            let k = if ty == Elem::S8 { 32 } else { 16 };
            let mut seen = vec![0; rows * cols];
            for lane in 0..32 {
                for i in 0..count {
                    let layout = MmaLayout { shape: [16, 8, k], m8n8k4_f16: false, a_col: false, b_col: false };
                    let (_, r, c) = mma_position(layout, role, ty, lane, i);
                    seen[r * cols + c] += 1;
                }
            }
            assert!(seen.iter().all(|&s| s == 1), "{ty:?}");
        }
        // Spot checks against the ISA's formulas: lane 5 (group 1, thread 1), a6 of m16n8k16 f16.
        let layout = MmaLayout { shape: [16, 8, 16], m8n8k4_f16: false, a_col: false, b_col: false };
        assert_eq!(mma_position(layout, Role::A, Elem::F16, 5, 6), (0, 9, 10));
        assert_eq!(mma_position(layout, Role::B, Elem::F16, 5, 3), (0, 11, 1));
    }
}

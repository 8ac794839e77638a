//! Instruction conformance: bit-exact results of the integer, bit-manipulation,
//! extended-precision, funnel-shift, logic/selection and video instructions, through the
//! real pipeline (PTX → `ptx2llvm` → object → ptxrt), compared with an independent
//! reference model (`reference.rs`) written from the ISA text.
//!
//! Each family (`integer.rs`, `carry.rs`, `video.rs`) is one PTX module of generated kernels,
//! compiled once and run by one C runner (`runner.c`). A kernel holds several instruction
//! forms that share its four input operands: thread `i` loads `a b c d` (64-bit raw values
//! `in[4i..4i+4]`; the forms read 16/32/64-bit views of them), runs every form, and stores
//! each form's result as a 64-bit value. Inputs are edge values (all pairs for `a` and `b`
//! first) followed by seeded pseudo-random values. Every mismatch is reported with the
//! instruction, inputs, expected and actual values.

mod carry;
mod compare;
mod convert;
mod convert_reference;
mod examples;
mod float;
mod float_reference;
mod half;
mod half_reference;
mod integer;
mod reference;
mod video;

use std::fmt::Write as _;
use std::process::Command;
use std::time::Duration;

use crate::support::{self, WorkDir};

/// Vectors per kernel launch (threads).
pub const VECTORS: usize = 5120;

/// Where a form leaves its result.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Res {
    /// `%o16`, `%o32`, `%o64` (zero-extended when stored), `%op` (stored as 0/1).
    B16,
    B32,
    B64,
    Pred,
}

pub type Expect = Box<dyn Fn(&[u64; 4]) -> u64 + Send + Sync>;

/// A check of a result that need not be one exact value (approximate instructions, NaN
/// results where the ISA does not fix the encoding): `Err` explains the rejection.
pub type Accept = Box<dyn Fn(&[u64; 4], u64) -> Result<(), String> + Send + Sync>;

/// How a form's result is checked.
pub enum Check {
    Exact(Expect),
    Accept(Accept),
}

/// One instruction form: PTX lines that read the operand views (`%a16 %a32 %a64`, `%b..`,
/// `%c..`, `%d..`) and scratch registers (`%t0-7` .b32, `%u0-7` .b64, `%h0-3` .b16,
/// `%p0-3` .pred) and write their result register.
pub struct Form {
    pub label: String,
    pub ptx: String,
    pub res: Res,
    pub check: Check,
}

impl Form {
    pub fn new(label: impl Into<String>, ptx: impl Into<String>, res: Res, expect: impl Fn(&[u64; 4]) -> u64 + Send + Sync + 'static) -> Form {
        Form { label: label.into(), ptx: ptx.into(), res, check: Check::Exact(Box::new(expect)) }
    }

    /// A form whose result is accepted by `accept` (e.g. within an error bound).
    pub fn accept(
        label: impl Into<String>,
        ptx: impl Into<String>,
        res: Res,
        accept: impl Fn(&[u64; 4], u64) -> Result<(), String> + Send + Sync + 'static,
    ) -> Form {
        Form { label: label.into(), ptx: ptx.into(), res, check: Check::Accept(Box::new(accept)) }
    }

    /// A single instruction whose text is also its label.
    pub fn inst(ptx: impl Into<String>, res: Res, expect: impl Fn(&[u64; 4]) -> u64 + Send + Sync + 'static) -> Form {
        let ptx = ptx.into();
        Form { label: ptx.clone(), ptx, res, check: Check::Exact(Box::new(expect)) }
    }
}

/// How the values of one input operand are chosen.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Dist {
    /// Any bits: width edge values (0, 1, -1, MIN, MAX, MAX-1, powers of two, 2^23, 2^24...)
    /// and random values of several shapes.
    Any,
    /// Bit positions, lengths and shift amounts: 0, 1, 31, 32, 33, 63, 64, 255, 256, ... and
    /// mostly small random values (sometimes large ones).
    Small,
    /// IEEE binary16 values in bits 0-15 and 16-31 (a `.f16` or a `.f16x2` operand; bits
    /// 32-63 hold a third and fourth value): ±0, ±inf, NaNs with payloads, the smallest and
    /// largest subnormals, the smallest normal, the largest finite value, halfway cases and
    /// integers at the edges of the integer ranges; random values of every exponent.
    F16,
    /// The same for bfloat16 (`.bf16`, `.bf16x2`).
    BF16,
    /// The same for binary32 (bits 0-31; bits 32-63 another value).
    F32,
    /// The same for binary64.
    F64,
}

/// Layout of an IEEE binary format: exponent and fraction widths.
#[derive(Clone, Copy)]
struct FloatFormat {
    exp_bits: u32,
    frac_bits: u32,
}

impl FloatFormat {
    fn width(self) -> u32 {
        1 + self.exp_bits + self.frac_bits
    }
    fn bias(self) -> i64 {
        (1 << (self.exp_bits - 1)) - 1
    }
    fn inf(self) -> u64 {
        ((1u64 << self.exp_bits) - 1) << self.frac_bits
    }
    fn sign(self) -> u64 {
        1u64 << (self.width() - 1)
    }
    /// The bits of `m × 2^e` for a small integer `m` (exact when it fits).
    fn from_f64(self, x: f64) -> u64 {
        // Round-to-nearest through f64's bits (only used for exact small values).
        let b = x.to_bits();
        let sign = if b >> 63 == 1 { self.sign() } else { 0 };
        let x = x.abs();
        if x == 0.0 {
            return sign;
        }
        let e = ((x.to_bits() >> 52) as i64) - 1023;
        let frac = (x.to_bits() & ((1 << 52) - 1)) >> (52 - self.frac_bits);
        sign | (((e + self.bias()) as u64) << self.frac_bits) | frac
    }

    /// Edge values of this format (bit patterns).
    fn edges(self) -> Vec<u64> {
        let f = self.frac_bits;
        let one = (self.bias() as u64) << f;
        let mut v = vec![
            0,
            1,            // smallest subnormal
            (1 << f) - 1, // largest subnormal
            1 << f,       // smallest normal
            (1 << f) + 1,
            one,                  // 1.0
            one + 1,              // 1 + ulp
            one - 1,              // the largest value below 1
            one | (1 << (f - 1)), // 1.5
            one - (1 << f),       // 0.5
            self.from_f64(2.5),
            self.from_f64(3.5),
            self.from_f64(0.75),
            self.inf() - 1,                  // largest finite
            self.inf(),                      // infinity
            self.inf() | (1 << (f - 1)),     // canonical quiet NaN
            self.inf() | (1 << (f - 1)) | 1, // quiet NaN with a payload
            self.inf() | 1,                  // signalling NaN
            self.inf() | ((1 << f) - 1),     // NaN, all fraction bits
        ];
        // Integer range edges: 2^k and 2^k ± ulp for k = 7, 8, 15, 16, 31, 32, 63, 64.
        for k in [7i64, 8, 15, 16, 31, 32, 63, 64] {
            let e = k + self.bias();
            if e < (1 << self.exp_bits) - 1 {
                let p = (e as u64) << f;
                v.extend([p, p + 1, p - 1]);
            }
        }
        let mut all: Vec<u64> = v.iter().flat_map(|&x| [x, x | self.sign()]).collect();
        all.sort_unstable();
        all.dedup();
        all
    }

    /// A random value: any bits, a moderate exponent, a subnormal, a value near 1, or a
    /// value at a rounding boundary of a narrower format.
    fn random(self, rng: &mut Rng) -> u64 {
        let f = self.frac_bits;
        let mask = if self.width() == 64 { u64::MAX } else { (1u64 << self.width()) - 1 };
        let sign = if rng.below(2) == 0 { 0 } else { self.sign() };
        let frac = rng.next() & ((1 << f) - 1);
        if rng.below(8) == 0 {
            return sign | self.near_narrow_tie(rng);
        }
        match rng.below(8) {
            0 => rng.next() & mask,
            1 => sign | frac >> rng.below(f as u64),
            2 => sign | ((self.bias() as u64 + rng.below(3)) << f) | frac,
            3 => sign | (rng.below((1 << self.exp_bits) - 1) << f) | frac,
            _ => {
                let span = (self.bias() as u64).min(40);
                let e = self.bias() as u64 - span + rng.below(2 * span);
                sign | (e << f) | frac
            }
        }
    }
}

impl FloatFormat {
    /// A magnitude whose fraction, cut to the precision of a narrower format (bf16, f16,
    /// tf32, e4m3/e5m2 or f32 from f64: 1 to 23 kept bits), leaves exactly half an ulp of
    /// that format or one unit of this format either side of it: ties with odd and even
    /// last kept bits, just below and above them. Exponents span the narrow formats'
    /// subnormal, normal and overflow ranges (2^-30 to 2^18), where they fit.
    fn near_narrow_tie(self, rng: &mut Rng) -> u64 {
        let f = self.frac_bits as u64;
        let kept = [7u64, 10, 3, 2, 23, 1 + rng.below(f.min(23))][rng.below(6) as usize].min(f - 1);
        let dropped = f - kept;
        let half = 1u64 << (dropped - 1);
        let low = match rng.below(3) {
            0 => half,
            1 => half - 1,
            _ => half + 1,
        };
        let frac = ((rng.next() << dropped) | low) & ((1 << f) - 1);
        let bias = self.bias();
        let e = (bias - 30 + rng.below(49) as i64).clamp(1, (1 << self.exp_bits) - 2);
        ((e as u64) << f) | frac
    }
}

fn float_format(dist: Dist) -> Option<FloatFormat> {
    match dist {
        Dist::F16 => Some(FloatFormat { exp_bits: 5, frac_bits: 10 }),
        Dist::BF16 => Some(FloatFormat { exp_bits: 8, frac_bits: 7 }),
        Dist::F32 => Some(FloatFormat { exp_bits: 8, frac_bits: 23 }),
        Dist::F64 => Some(FloatFormat { exp_bits: 11, frac_bits: 52 }),
        Dist::Any | Dist::Small => None,
    }
}

/// Packs values of `fmt` into 64 bits (several copies for formats narrower than 64 bits).
fn pack_floats(fmt: FloatFormat, mut next: impl FnMut() -> u64) -> u64 {
    let w = fmt.width();
    (0..64 / w).fold(0u64, |acc, i| acc | (next() << (i * w)))
}

pub struct Kernel {
    pub name: String,
    pub dists: [Dist; 4],
    pub forms: Vec<Form>,
}

impl Kernel {
    pub fn new(name: impl Into<String>, dists: [Dist; 4], forms: Vec<Form>) -> Kernel {
        Kernel { name: name.into(), dists, forms }
    }
}

/// A small, seeded xorshift64* generator (deterministic inputs).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn edge_values(dist: Dist) -> Vec<u64> {
    if let Some(fmt) = float_format(dist) {
        // Each edge value in every lane, and pairs of different edge values in the lanes.
        let e = fmt.edges();
        let mut out: Vec<u64> = e.iter().map(|&x| pack_floats(fmt, || x)).collect();
        for (i, &x) in e.iter().enumerate() {
            let y = e[(i * 7 + 3) % e.len()];
            let mut k = 0;
            out.push(pack_floats(fmt, || {
                k += 1;
                if k % 2 == 1 {
                    x
                } else {
                    y
                }
            }));
        }
        return out;
    }
    match dist {
        Dist::Small => vec![0, 1, 2, 7, 8, 15, 16, 23, 24, 31, 32, 33, 63, 64, 65, 127, 128, 255, 256, 257, 0xffff_ffff, 0x8000_0000],
        Dist::F16 | Dist::BF16 | Dist::F32 | Dist::F64 => unreachable!("float formats handled above"),
        Dist::Any => {
            let mut v = vec![];
            for w in [8u32, 16, 32, 64] {
                let min = 1u64 << (w - 1);
                let sx = |x: u64| reference::sext(x, w) as u64;
                v.extend([sx(min), sx(min - 1), sx(min - 2), sx(min + 1)]);
            }
            v.extend([0, 1, 2, 3, u64::MAX, u64::MAX - 1, 0xffff_ffff, 0xffff, 0xff, 0x0101_0101, 0x00ff_00ff]);
            v.extend([1 << 23, (1 << 23) - 1, 1 << 24, (1 << 24) - 1, 0xff80_0000, 0xff00_0000, 0x7f_ffff, 0x1_0000_0000]);
            v.extend([0xaaaa_aaaa, 0x5555_5555, 0x8000_0000_0000_0001]);
            v.sort_unstable();
            v.dedup();
            v
        }
    }
}

fn random_value(rng: &mut Rng, dist: Dist) -> u64 {
    if let Some(fmt) = float_format(dist) {
        return pack_floats(fmt, || fmt.random(rng));
    }
    match dist {
        Dist::Small => match rng.below(8) {
            0 => rng.next(),
            1 => rng.below(300),
            _ => rng.below(70),
        },
        Dist::Any => match rng.below(8) {
            0 => 1u64.wrapping_shl(rng.below(64) as u32).wrapping_sub(rng.below(3)),
            1 => reference::sext(rng.below(1 << 10), 10) as u64,
            2 => rng.next() >> rng.below(64),
            3 => rng.next() & rng.next(),
            4 => rng.next() | rng.next(),
            _ => rng.next(),
        },
        Dist::F16 | Dist::BF16 | Dist::F32 | Dist::F64 => unreachable!("float formats handled above"),
    }
}

/// The inputs of one kernel: all pairs of edge values for `a` and `b` first, then random.
fn inputs(kernel: &Kernel, seed: u64) -> Vec<[u64; 4]> {
    inputs_for(kernel.dists, seed)
}

/// `VECTORS` inputs drawn from `dists`: pairs of edge values for `a` and `b`, then random.
pub fn inputs_for(dists: [Dist; 4], seed: u64) -> Vec<[u64; 4]> {
    let mut rng = Rng::new(seed);
    let edges: Vec<Vec<u64>> = dists.iter().map(|d| edge_values(*d)).collect();
    let mut out = Vec::with_capacity(VECTORS);
    'pairs: for &x in &edges[0] {
        for &y in &edges[1] {
            if out.len() >= VECTORS / 2 {
                break 'pairs;
            }
            let mut v = [x, y, 0, 0];
            for k in 2..4 {
                v[k] = if rng.below(2) == 0 { edges[k][rng.below(edges[k].len() as u64) as usize] } else { random_value(&mut rng, dists[k]) };
            }
            out.push(v);
        }
    }
    while out.len() < VECTORS {
        let mut v = [0u64; 4];
        for k in 0..4 {
            v[k] = if rng.below(6) == 0 { edges[k][rng.below(edges[k].len() as u64) as usize] } else { random_value(&mut rng, dists[k]) };
        }
        out.push(v);
    }
    out
}

/// The PTX of one kernel.
fn kernel_ptx(k: &Kernel) -> String {
    let mut s = String::new();
    let n = k.forms.len();
    let _ = writeln!(s, ".visible .entry {}(.param .u64 pin, .param .u64 pout, .param .u32 pn)\n{{", k.name);
    s.push_str(
        "  .reg .b16 %a16, %b16, %c16, %d16, %o16, %h<4>;\n  .reg .b32 %a32, %b32, %c32, %d32, %o32, %t<8>, %i, %n, %bid, %bdim;\n  .reg .b64 %a64, %b64, %c64, %d64, %o64, %u<8>, %in, %out, %off;\n  .reg .pred %op, %p<4>, %oob;\n",
    );
    let _ = writeln!(s, "  .reg .b64 %w<{n}>;");
    s.push_str(
        "  ld.param.u64 %in, [pin];\n  ld.param.u64 %out, [pout];\n  ld.param.u32 %n, [pn];\n  mov.u32 %i, %tid.x;\n  mov.u32 %bid, %ctaid.x;\n  mov.u32 %bdim, %ntid.x;\n  mad.lo.u32 %i, %bid, %bdim, %i;\n  setp.ge.u32 %oob, %i, %n;\n  @%oob exit;\n  mul.wide.u32 %off, %i, 32;\n  add.u64 %in, %in, %off;\n  ld.global.u64 %a64, [%in];\n  ld.global.u64 %b64, [%in+8];\n  ld.global.u64 %c64, [%in+16];\n  ld.global.u64 %d64, [%in+24];\n",
    );
    for r in ["a", "b", "c", "d"] {
        let _ = writeln!(s, "  cvt.u32.u64 %{r}32, %{r}64;\n  cvt.u16.u64 %{r}16, %{r}64;");
    }
    for (i, f) in k.forms.iter().enumerate() {
        let _ = writeln!(s, "  // {}", f.label.replace('\n', " "));
        for line in f.ptx.lines() {
            let _ = writeln!(s, "  {}", line.trim());
        }
        let _ = match f.res {
            Res::B16 => writeln!(s, "  cvt.u64.u16 %w{i}, %o16;"),
            Res::B32 => writeln!(s, "  cvt.u64.u32 %w{i}, %o32;"),
            Res::B64 => writeln!(s, "  mov.b64 %w{i}, %o64;"),
            Res::Pred => writeln!(s, "  selp.u64 %w{i}, 1, 0, %op;"),
        };
    }
    let _ = writeln!(s, "  mul.wide.u32 %off, %i, {};\n  add.u64 %out, %out, %off;", 8 * n);
    for i in 0..n {
        let _ = writeln!(s, "  st.global.u64 [%out+{}], %w{i};", 8 * i);
    }
    s.push_str("}\n\n");
    s
}

fn show(v: &[u64; 4]) -> String {
    format!("a={:#x} b={:#x} c={:#x} d={:#x}", v[0], v[1], v[2], v[3])
}

/// Compiles the kernels of one family into one module, runs them all and compares every
/// result with the reference model. Panics with the mismatches (the first 60 are printed).
/// Returns the number of vectors checked (forms × threads).
/// `header` is the module's `.version`/`.target` lines.
pub fn run_family_at(family: &str, header: &str, kernels: Vec<Kernel>) -> usize {
    let work = WorkDir::new(&format!("conformance-{family}"));
    // `.address_size` exists from PTX ISA 2.3 on: PTX ISA 1.x modules go without it.
    let mut ptx = if header.starts_with(".version 1.") { format!("{header}\n\n") } else { format!("{header}\n.address_size 64\n\n") };
    for k in &kernels {
        ptx.push_str(&kernel_ptx(k));
    }
    let ptx_path = work.join(&format!("{family}.ptx"));
    std::fs::write(&ptx_path, &ptx).expect("write the PTX module");
    let obj = work.join(&format!("{family}.o"));
    support::compile_ptx(&ptx_path, &obj, &[], work.path());
    let exe = work.join("runner");
    support::link_host(&support::root_path("tests/conformance/runner.c"), &[obj], &exe, work.path());

    let mut job = Vec::new();
    job.extend((kernels.len() as u32).to_le_bytes());
    let mut all_inputs = vec![];
    for (i, k) in kernels.iter().enumerate() {
        let seed = family.bytes().fold(i as u64 + 1, |h, b| h.wrapping_mul(31).wrapping_add(b as u64));
        let ins = inputs(k, seed);
        job.extend((k.name.len() as u32).to_le_bytes());
        job.extend(k.name.as_bytes());
        job.extend((ins.len() as u32).to_le_bytes());
        job.extend((k.forms.len() as u32).to_le_bytes());
        for v in &ins {
            for x in v {
                job.extend(x.to_le_bytes());
            }
        }
        all_inputs.push(ins);
    }
    let job_path = work.join("job.bin");
    let out_path = work.join("out.bin");
    std::fs::write(&job_path, &job).expect("write the job file");
    let mut cmd = Command::new(&exe);
    cmd.arg(&job_path).arg(&out_path);
    let run = support::run_with_timeout(&mut cmd, work.path(), "runner", Duration::from_secs(300));
    assert!(run.success(), "the conformance runner failed\n{}", run.describe(&cmd));
    let bytes = std::fs::read(&out_path).expect("read the runner's output");
    let mut words = bytes.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")));

    let mut checked = 0usize;
    let mut mismatches = 0usize;
    let mut report = String::new();
    for (k, ins) in kernels.iter().zip(&all_inputs) {
        for v in ins {
            for f in &k.forms {
                let actual = words.next().expect("the runner wrote fewer results than expected");
                checked += 1;
                let verdict = match &f.check {
                    Check::Exact(expect) => {
                        let expected = expect(v);
                        if actual == expected {
                            Ok(())
                        } else {
                            Err(format!("expected {expected:#x}, got {actual:#x}"))
                        }
                    }
                    Check::Accept(accept) => accept(v, actual).map_err(|why| format!("got {actual:#x}: {why}")),
                };
                if let Err(why) = verdict {
                    mismatches += 1;
                    if mismatches <= 60 {
                        let _ = writeln!(report, "{}: {}: {}: {why}", k.name, f.label, show(v));
                    }
                }
            }
        }
    }
    assert!(words.next().is_none(), "the runner wrote more results than expected");
    assert!(mismatches == 0, "{family}: {mismatches} of {checked} results differ from the reference model:\n{report}");

    // The same module for AArch64, run under qemu-user: its results must be the same bits.
    let Some(cross) = support::aarch64_tools_if_available() else { return checked };
    let obj64 = work.join(&format!("{family}-aarch64.o"));
    support::compile_ptx(&ptx_path, &obj64, &["--target", support::AARCH64_TRIPLE], work.path());
    let exe64 = work.join("runner-aarch64");
    support::link_host_aarch64(&cross, &support::root_path("tests/conformance/runner.c"), &[obj64], &exe64, work.path());
    let out64_path = work.join("out-aarch64.bin");
    let mut cmd = support::qemu_command(&cross, &exe64);
    cmd.arg(&job_path).arg(&out64_path);
    let run = support::run_with_timeout(&mut cmd, work.path(), "runner-aarch64", Duration::from_secs(600));
    assert!(run.success(), "the AArch64 conformance runner failed under qemu\n{}", run.describe(&cmd));
    let bytes64 = std::fs::read(&out64_path).expect("read the AArch64 runner's output");
    if bytes64 != bytes {
        let first = bytes.chunks_exact(8).zip(bytes64.chunks_exact(8)).position(|(a, b)| a != b);
        panic!("{family}: AArch64 results differ from x86-64 (and the reference model) at result {first:?}; lengths {} and {}", bytes.len(), bytes64.len());
    }
    checked
}

/// The instruction a form label starts with (`mad.hi.sat.s32 ...` → `mad`).
fn opcode(label: &str) -> &str {
    label.split(['.', ' ']).next().unwrap_or(label)
}

/// Runs a family and checks that every instruction in it was run on at least `min` vectors.
pub fn check_family(family: &str, kernels: Vec<Kernel>, min: usize) {
    check_family_at(family, ".version 8.2\n.target sm_90", kernels, min)
}

/// `check_family` with the module's `.version`/`.target` lines.
pub fn check_family_at(family: &str, header: &str, kernels: Vec<Kernel>, min: usize) {
    let mut per_instruction: std::collections::BTreeMap<String, usize> = Default::default();
    for k in &kernels {
        for f in &k.forms {
            *per_instruction.entry(opcode(&f.label).to_string()).or_default() += VECTORS;
        }
    }
    let checked = run_family_at(family, header, kernels);
    let counts: Vec<String> = per_instruction.iter().map(|(op, n)| format!("{op} {n}")).collect();
    eprintln!("{family}: {checked} results match the reference model ({})", counts.join(", "));
    let few: Vec<&String> = per_instruction.iter().filter(|(_, n)| **n < min).map(|(op, _)| op).collect();
    assert!(few.is_empty(), "{family}: fewer than {min} vectors for {few:?}");
}

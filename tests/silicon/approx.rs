//! Checking approximate results against the ISA's error bounds.
//!
//! A flagged kernel's note states the bound in words, e.g. `ISA error bound: cos.approx.f32:
//! abs 2^-20.5 on [-2pi, 2pi] (9.7.3.19); cos.approx.f32: abs 2^-14.7 on [-100pi, 100pi]`,
//! `div.full: 2 ulp`, `lg2.approx.f32: rel 2^-22 outside (0.5, 2)`. Each clause is parsed
//! into a [`Bound`]; a result lane is within bounds when it satisfies the bound of every
//! clause whose range holds the input. The exact value comes from the host's `f64` libm
//! (ample for results of 32 bits or fewer) of the input, or of the input flushed to zero
//! for `.ftz` kernels. Whatever the bounds: a NaN must give a NaN, an infinite exact value
//! the same infinity, and where the kernel has no bound (f64 `.approx`) the sign and class
//! (zero, finite, infinite, NaN) of the result must be right.

/// A floating-point format of an output lane.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Fmt {
    F16,
    BF16,
    F32,
    F64,
}

impl Fmt {
    fn bits(self) -> u32 {
        match self {
            Fmt::F16 | Fmt::BF16 => 16,
            Fmt::F32 => 32,
            Fmt::F64 => 64,
        }
    }

    fn frac_bits(self) -> u32 {
        match self {
            Fmt::F16 => 10,
            Fmt::BF16 => 7,
            Fmt::F32 => 23,
            Fmt::F64 => 52,
        }
    }

    fn exp_bits(self) -> u32 {
        self.bits() - 1 - self.frac_bits()
    }

    /// The value of a bit pattern.
    pub fn decode(self, bits: u64) -> f64 {
        match self {
            Fmt::F64 => f64::from_bits(bits),
            Fmt::F32 => f32::from_bits(bits as u32) as f64,
            Fmt::BF16 => f32::from_bits((bits as u32 & 0xffff) << 16) as f64,
            Fmt::F16 => {
                let h = bits as u32 & 0xffff;
                let sign = if h >> 15 == 1 { -1.0 } else { 1.0 };
                let e = (h >> 10 & 0x1f) as i32;
                let f = (h & 0x3ff) as f64;
                sign * match e {
                    0 => f * 2f64.powi(-24),
                    31 if f == 0.0 => f64::INFINITY,
                    31 => f64::NAN,
                    _ => (1.0 + f / 1024.0) * 2f64.powi(e - 15),
                }
            }
        }
    }

    fn is_subnormal(self, bits: u64) -> bool {
        let mask = (1u64 << (self.bits() - 1)) - 1;
        let mag = bits & mask;
        mag != 0 && mag < (1u64 << self.frac_bits())
    }

    /// The value flushed to a signed zero if it is subnormal.
    fn ftz(self, bits: u64) -> u64 {
        if self.is_subnormal(bits) {
            bits & (1u64 << (self.bits() - 1))
        } else {
            bits
        }
    }

    /// Position of a finite or infinite value on the line of representable values (a sign
    /// and magnitude to a two's-complement count: neighbouring values differ by one).
    fn ordinal(self, bits: u64) -> i64 {
        let sign = 1u64 << (self.bits() - 1);
        let mag = (bits & (sign - 1)) as i64;
        if bits & sign != 0 {
            -mag
        } else {
            mag
        }
    }

    /// The correctly rounded (to nearest even) bit pattern of `x` in this format.
    fn round(self, x: f64) -> u64 {
        match self {
            Fmt::F64 => x.to_bits(),
            Fmt::F32 => (x as f32).to_bits() as u64,
            Fmt::F16 | Fmt::BF16 => {
                let sign = if x.is_sign_negative() { 1u64 << 15 } else { 0 };
                let inf = ((1u64 << self.exp_bits()) - 1) << self.frac_bits();
                if x.is_nan() {
                    return inf | 1 << (self.frac_bits() - 1);
                }
                let a = x.abs();
                let bias = (1i32 << (self.exp_bits() - 1)) - 1;
                let emin = 1 - bias;
                // The spacing of representable values at `a`.
                let e = if a == 0.0 { emin } else { (a.log2().floor() as i32).max(emin) };
                let quantum = 2f64.powi(e - self.frac_bits() as i32);
                let q = a / quantum;
                let mut r = q.floor();
                let rem = q - r;
                if rem > 0.5 || (rem == 0.5 && r % 2.0 == 1.0) {
                    r += 1.0;
                }
                let v = r * quantum;
                let max = (2.0 - 2f64.powi(-(self.frac_bits() as i32))) * 2f64.powi(bias);
                if v > max {
                    return sign | inf;
                }
                // Encode v exactly.
                if v < 2f64.powi(emin) {
                    return sign | (v / 2f64.powi(emin - self.frac_bits() as i32)) as u64;
                }
                let ve = v.log2().floor() as i32;
                let frac = ((v / 2f64.powi(ve) - 1.0) * 2f64.powi(self.frac_bits() as i32)) as u64;
                sign | (((ve + bias) as u64) << self.frac_bits()) | frac
            }
        }
    }

    fn is_nan(self, bits: u64) -> bool {
        self.decode(bits).is_nan()
    }

    /// One unit in the last place at `x` (at least the smallest subnormal).
    fn ulp(self, x: f64) -> f64 {
        let bias = (1i32 << (self.exp_bits() - 1)) - 1;
        let e = if x == 0.0 || !x.is_finite() { 1 - bias } else { (x.abs().log2().floor() as i32).max(1 - bias) };
        2f64.powi(e - self.frac_bits() as i32)
    }
}

/// Where a clause applies.
#[derive(Clone, Copy, Debug)]
enum Range {
    All,
    /// `[lo, hi]` (closed) or `(lo, hi)` (open).
    Inside(f64, f64, bool),
    /// Outside of the (open or closed) interval.
    Outside(f64, f64, bool),
}

impl Range {
    fn holds(self, x: f64) -> bool {
        let inside = |lo: f64, hi: f64, closed: bool| {
            if closed {
                lo <= x && x <= hi
            } else {
                lo < x && x < hi
            }
        };
        match self {
            Range::All => true,
            Range::Inside(lo, hi, closed) => inside(lo, hi, closed),
            Range::Outside(lo, hi, closed) => !inside(lo, hi, closed),
        }
    }
}

#[derive(Clone, Copy, Debug)]
enum Kind {
    Abs(f64),
    Rel(f64),
    Ulp(f64),
}

#[derive(Clone, Copy, Debug)]
pub struct Bound {
    kind: Kind,
    range: Range,
}

/// `2^-20.5`, `0.5`, `2pi`, `-100pi`.
fn number(s: &str) -> Option<f64> {
    let s = s.trim();
    if let Some(e) = s.strip_prefix("2^") {
        return e.parse::<f64>().ok().map(|e| 2f64.powf(e));
    }
    if let Some(m) = s.strip_suffix("pi") {
        let m = match m {
            "" => 1.0,
            "-" => -1.0,
            _ => m.parse::<f64>().ok()?,
        };
        return Some(m * std::f64::consts::PI);
    }
    s.parse::<f64>().ok()
}

fn interval(s: &str) -> Option<(f64, f64, bool)> {
    let s = s.trim();
    let closed = s.starts_with('[');
    let inner = s.get(1..s.len().checked_sub(1)?)?;
    let (lo, hi) = inner.split_once(',')?;
    Some((number(lo)?, number(hi)?, closed))
}

/// The bounds stated in a note; `None` when the note states none.
fn bounds(note: &str) -> Option<Vec<Bound>> {
    let text = note.split_once("ISA error bound:")?.1;
    let mut out = Vec::new();
    for clause in text.split(';') {
        // `name: KIND VALUE [on RANGE | outside RANGE] (section)`
        let body = clause.split_once(':').map(|(_, b)| b).unwrap_or(clause);
        let body = body.split(" (9.").next().unwrap_or(body).trim();
        let (main, range) = if let Some((m, r)) = body.split_once(" on ") {
            (m, interval(r).map(|(lo, hi, c)| Range::Inside(lo, hi, c)))
        } else if let Some((m, r)) = body.split_once(" outside ") {
            (m, interval(r).map(|(lo, hi, c)| Range::Outside(lo, hi, c)))
        } else {
            (body, Some(Range::All))
        };
        let range = range?;
        let words: Vec<&str> = main.split_whitespace().collect();
        let kind = match words.as_slice() {
            ["abs", v, ..] => Kind::Abs(number(v)?),
            ["rel", v, ..] => Kind::Rel(number(v)?),
            [v, "ulp", ..] => Kind::Ulp(number(v)?),
            _ => return None,
        };
        out.push(Bound { kind, range });
    }
    (!out.is_empty()).then_some(out)
}

/// The exact function of an approximate instruction.
fn exact(instr: &str, x: f64, y: f64) -> Option<f64> {
    Some(match instr {
        "sin" => x.sin(),
        "cos" => x.cos(),
        "lg2" => x.log2(),
        "ex2" => x.exp2(),
        "rcp" => 1.0 / x,
        "rsqrt" => 1.0 / x.sqrt(),
        "sqrt" => x.sqrt(),
        "tanh" => x.tanh(),
        "div" => x / y,
        _ => return None,
    })
}

/// Lanes of an output type: their format and count.
pub fn lanes(ty: &str) -> Option<(Fmt, u32)> {
    Some(match ty {
        "f16" => (Fmt::F16, 1),
        "bf16" => (Fmt::BF16, 1),
        "f32" => (Fmt::F32, 1),
        "f64" => (Fmt::F64, 1),
        "f16x2" => (Fmt::F16, 2),
        "bf16x2" => (Fmt::BF16, 2),
        "f32x2" => (Fmt::F32, 2),
        "f16x4" | "f16x2x2" => (Fmt::F16, 4),
        "bf16x4" => (Fmt::BF16, 4),
        _ => return None,
    })
}

/// How an approximate kernel is checked.
pub enum Plan {
    /// Every output lane is checked against the exact function of the input lanes.
    Bounded { instr: String, fmt: Fmt, lanes: u32, ftz: bool, bounds: Option<Vec<Bound>> },
    /// No check of values (e.g. `mma` on raw bit patterns: the ISA fixes no order of the
    /// additions); the identical fraction is still reported.
    Unchecked,
}

/// The plan for a flagged kernel of `instr` with a single output slot of type `out_ty`.
pub fn plan(name: &str, instr: &str, note: &str, in_count: usize, out_types: &[String]) -> Plan {
    let base = instr.split('.').next().unwrap_or(instr);
    let (Some(out_ty), true) = (out_types.first(), out_types.len() == 1 && (1..=2).contains(&in_count)) else {
        return Plan::Unchecked;
    };
    let Some((fmt, lanes)) = lanes(out_ty) else {
        return Plan::Unchecked;
    };
    if exact(base, 1.0, 1.0).is_none() {
        return Plan::Unchecked;
    }
    let ftz = name.split('_').any(|w| w == "ftz") || instr.split('.').any(|w| w == "ftz");
    Plan::Bounded { instr: base.to_string(), fmt, lanes, ftz, bounds: bounds(note) }
}

/// Checks one vector's single output slot; `Err` says why it is out of bounds.
pub fn check(plan: &Plan, inputs: &[u64], got: u64) -> Result<(), String> {
    let Plan::Bounded { instr, fmt, lanes, ftz, bounds } = plan else {
        return Ok(());
    };
    let fmt = *fmt;
    let w = fmt.bits();
    let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
    for lane in 0..*lanes {
        let field = |v: u64| (v >> (lane * w)) & mask;
        let g = field(got);
        let xs: Vec<u64> = inputs.iter().map(|&v| field(v)).collect();
        let mut errors = Vec::new();
        // Accept the result for the input as given or (ftz) flushed, and (ftz) a result
        // flushed to zero.
        let variants: Vec<Vec<u64>> = if *ftz { vec![xs.clone(), xs.iter().map(|&x| fmt.ftz(x)).collect()] } else { vec![xs.clone()] };
        let mut ok = false;
        for v in &variants {
            let x = fmt.decode(v[0]);
            let y = v.get(1).map(|&b| fmt.decode(b)).unwrap_or(1.0);
            let t = exact(instr, x, y).unwrap_or(f64::NAN);
            match lane_ok(fmt, instr, bounds.as_deref(), x, y, t, g) {
                Ok(()) => ok = true,
                Err(e) => errors.push(e),
            }
            if *ftz && fmt.is_subnormal(g) && lane_ok(fmt, instr, bounds.as_deref(), x, y, t, fmt.ftz(g)).is_ok() {
                ok = true;
            }
        }
        if !ok {
            return Err(format!("lane {lane}: {}", errors.join("; ")));
        }
    }
    Ok(())
}

/// `div.approx`/`div.full`: the ISA bounds the error for divisors of magnitude in
/// [2^-126, 2^126] only (9.7.3.8).
fn divisor_in_range(instr: &str, y: f64) -> bool {
    instr != "div" || (2f64.powi(-126)..=2f64.powi(126)).contains(&y.abs())
}

fn lane_ok(fmt: Fmt, instr: &str, bounds: Option<&[Bound]>, x: f64, y: f64, t: f64, g: u64) -> Result<(), String> {
    let r = fmt.decode(g);
    if t.is_nan() {
        return if r.is_nan() { Ok(()) } else { Err(format!("exact NaN, got {r:e}")) };
    }
    if fmt.is_nan(g) {
        return Err(format!("exact {t:e}, got NaN"));
    }
    let cr = fmt.round(t);
    let cr_value = fmt.decode(cr);
    if r == cr_value {
        // The correctly rounded result (also an overflow to infinity) is always within.
        return Ok(());
    }
    if t.is_infinite() || (t == 0.0 && cr_value == 0.0) {
        // Exact specials: the same infinity, or a zero (of either sign for a zero result
        // the ISA gives as such only in magnitude).
        return if r == t || (t == 0.0 && r == 0.0) { Ok(()) } else { Err(format!("exact {t:e}, got {r:e}")) };
    }
    let Some(bounds) = bounds else {
        // No bound: the right class and sign.
        let same_class = (r == 0.0) == (cr_value == 0.0) && r.is_infinite() == cr_value.is_infinite();
        return if same_class && r.is_sign_negative() == t.is_sign_negative() {
            Ok(())
        } else {
            Err(format!("exact {t:e}, got {r:e} (another class or sign)"))
        };
    };
    for b in bounds {
        if !b.range.holds(x) || !divisor_in_range(instr, y) {
            continue;
        }
        let err = (r - t).abs();
        let fine = match b.kind {
            // The result is a value of the format: allow its rounding where the bound is
            // finer than the format's spacing.
            Kind::Abs(e) => err <= e.max(fmt.ulp(t) / 2.0),
            Kind::Rel(e) => err <= (e * t.abs()).max(fmt.ulp(t) / 2.0),
            Kind::Ulp(n) => (fmt.ordinal(g) - fmt.ordinal(cr)).unsigned_abs() as f64 <= n,
        };
        if !fine {
            return Err(format!("x={x:e}: exact {t:e}, got {r:e}, outside {b:?}"));
        }
    }
    Ok(())
}

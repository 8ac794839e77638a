//! Video instructions (9.7.18): every dtype/atype/btype triple of every scalar operation with
//! every operand selector, every destination selector (merge) and every secondary operation,
//! each with and without `.sat`; `vshl`/`vshr` in both modes; `vmad` with negations, `.po`,
//! scaling and `.sat`; SIMD forms with every mask, selectors, `.sat` and `.add`.

use super::reference as r;
use super::{check_family, Dist, Form, Kernel, Res, Rng};

const SELECTORS: [&str; 7] = ["", "b0", "b1", "b2", "b3", "h0", "h1"];
const TRIPLES: [(bool, bool, bool); 8] = [
    (false, false, false),
    (false, false, true),
    (false, true, false),
    (false, true, true),
    (true, false, false),
    (true, false, true),
    (true, true, false),
    (true, true, true),
];
const CMPS: [&str; 6] = ["eq", "ne", "lt", "le", "gt", "ge"];

fn t(signed: bool) -> &'static str {
    if signed {
        ".s32"
    } else {
        ".u32"
    }
}

fn sel(s: &str) -> String {
    if s.is_empty() {
        String::new()
    } else {
        format!(".{s}")
    }
}

/// The forms of one scalar kernel: operand selector pairs, destination selectors (merge) and
/// secondary operations, each with and without `.sat` (`vset` has no `.sat`).
/// `rot` rotates the selector pairing so that different kernels meet different pairs.
/// `amounts` lists the registers used as `b` (the shift amount for `vshl`/`vshr`).
fn scalar_forms(opcode: &str, op: &'static str, types: (bool, bool, bool), mode: Option<bool>, rot: usize, amounts: &[char]) -> Vec<Form> {
    let is_set = op.starts_with("set.");
    let type_text =
        if is_set { format!("{}{}.{}", t(types.1), t(types.2), op.trim_start_matches("set.")) } else { format!("{}{}{}", t(types.0), t(types.1), t(types.2)) };
    let mode_text = match mode {
        Some(true) => ".clamp",
        Some(false) => ".wrap",
        None => "",
    };
    let clamp = mode == Some(true);
    let mut forms = vec![];
    let sats: &[bool] = if is_set { &[false] } else { &[false, true] };
    for &sat in sats {
        let sat_text = if sat { ".sat" } else { "" };
        let head = format!("{opcode}{type_text}{sat_text}{mode_text}");
        for &breg in amounts {
            let b_index = if breg == 'b' { 1 } else { 2 };
            for (i, asel) in SELECTORS.iter().enumerate() {
                let bsel = SELECTORS[(i + rot) % SELECTORS.len()];
                let text = format!("{head} %o32, %a32{}, %{breg}32{};", sel(asel), sel(bsel));
                forms.push(Form::inst(text, Res::B32, move |x| r::video_scalar(op, types, sat, clamp, asel, bsel, "", "", x[0], x[b_index], x[2])));
            }
        }
        for (i, dsel) in SELECTORS[1..].iter().enumerate() {
            let asel = SELECTORS[(i + rot + 1) % SELECTORS.len()];
            let bsel = SELECTORS[(i + 2 * rot + 3) % SELECTORS.len()];
            let text = format!("{head} %o32{}, %a32{}, %b32{}, %c32;", sel(dsel), sel(asel), sel(bsel));
            forms.push(Form::inst(text, Res::B32, move |x| r::video_scalar(op, types, sat, clamp, asel, bsel, dsel, "", x[0], x[1], x[2])));
        }
        for (i, secop) in ["add", "min", "max"].into_iter().enumerate() {
            let asel = SELECTORS[(i + rot + 2) % SELECTORS.len()];
            let bsel = SELECTORS[(i + 3 * rot) % SELECTORS.len()];
            let text = format!("{head}.{secop} %o32, %a32{}, %b32{}, %c32;", sel(asel), sel(bsel));
            forms.push(Form::inst(text, Res::B32, move |x| r::video_scalar(op, types, sat, clamp, asel, bsel, "", secop, x[0], x[1], x[2])));
        }
    }
    forms
}

fn scalar_kernels() -> Vec<Kernel> {
    let mut kernels = vec![];
    for (op, opcode) in [("add", "vadd"), ("sub", "vsub"), ("absdiff", "vabsdiff"), ("min", "vmin"), ("max", "vmax")] {
        for (k, types) in TRIPLES.iter().enumerate() {
            let forms = scalar_forms(opcode, op, *types, None, k, &['b']);
            kernels.push(Kernel::new(format!("{opcode}_{k}"), [Dist::Any; 4], forms));
        }
    }
    for (op, opcode) in [("shl", "vshl"), ("shr", "vshr")] {
        for (k, types) in TRIPLES.iter().filter(|t| !t.2).enumerate() {
            for clamp in [true, false] {
                // Amounts from `b` (small values: 0, 1, 31, 32, 33, ...) and from `c` (any bits).
                let forms = scalar_forms(opcode, op, *types, Some(clamp), k + clamp as usize, &['b', 'c']);
                kernels.push(Kernel::new(
                    format!("{opcode}_{k}_{}", if clamp { "clamp" } else { "wrap" }),
                    [Dist::Any, Dist::Small, Dist::Any, Dist::Any],
                    forms,
                ));
            }
        }
    }
    for (k, types) in TRIPLES.iter().filter(|t| !t.0).enumerate() {
        let mut forms = vec![];
        for (i, cmp) in CMPS.iter().enumerate() {
            let op: &'static str = match *cmp {
                "eq" => "set.eq",
                "ne" => "set.ne",
                "lt" => "set.lt",
                "le" => "set.le",
                "gt" => "set.gt",
                _ => "set.ge",
            };
            forms.extend(scalar_forms("vset", op, *types, None, k + i, &['b']));
        }
        kernels.push(Kernel::new(format!("vset_{k}"), [Dist::Any; 4], forms));
    }
    // vmad: negations, .po, scaling and .sat for every type triple.
    for (k, &(d_signed, a_signed, b_signed)) in TRIPLES.iter().enumerate() {
        let mut forms = vec![];
        let mut i = k;
        for sat in [false, true] {
            for (scale, scale_text) in [(0u32, ""), (7, ".shr7"), (15, ".shr15")] {
                for (neg_a, neg_b, neg_c, po) in [
                    (false, false, false, false),
                    (true, false, false, false),
                    (false, true, false, false),
                    (false, false, true, false),
                    (true, true, false, false),
                    (false, false, false, true),
                ] {
                    let asel = SELECTORS[i % 7];
                    let bsel = SELECTORS[(i * 3 + 1) % 7];
                    i += 1;
                    let neg = |n: bool| if n { "-" } else { "" };
                    let text = format!(
                        "vmad{}{}{}{}{}{} %o32, {}%a32{}, {}%b32{}, {}%c32;",
                        t(d_signed),
                        t(a_signed),
                        t(b_signed),
                        if po { ".po" } else { "" },
                        if sat { ".sat" } else { "" },
                        scale_text,
                        neg(neg_a),
                        sel(asel),
                        neg(neg_b),
                        sel(bsel),
                        neg(neg_c)
                    );
                    forms.push(Form::inst(text, Res::B32, move |x| {
                        r::vmad(a_signed, b_signed, asel, bsel, neg_a, neg_b, neg_c, po, scale, sat, x[0], x[1], x[2])
                    }));
                }
            }
        }
        kernels.push(Kernel::new(format!("vmad_{k}"), [Dist::Any; 4], forms));
    }
    kernels
}

/// All destination masks: digits in decreasing order (`h10`, `b320`, ...).
fn masks(lanes: u32) -> Vec<(String, u32)> {
    (1u32..(1 << lanes))
        .map(|m| {
            let digits: String = (0..lanes).rev().filter(|i| m >> i & 1 == 1).map(|i| char::from(b'0' + i as u8)).collect();
            (format!("{}{digits}", if lanes == 2 { 'h' } else { 'b' }), m)
        })
        .collect()
}

/// A random lane selector (`.hxy` / `.bxyzw`) and its per-lane sources (lane 0 first).
fn random_selector(rng: &mut Rng, lanes: u32) -> (String, [u32; 4]) {
    let mut src = [0u32; 4];
    let mut text = String::from(if lanes == 2 { "h" } else { "b" });
    for lane in (0..lanes as usize).rev() {
        src[lane] = rng.below(if lanes == 2 { 4 } else { 8 }) as u32;
        text.push(char::from(b'0' + src[lane] as u8));
    }
    (text, src)
}

fn simd_kernels() -> Vec<Kernel> {
    let mut rng = Rng::new(0x5eed);
    let mut kernels = vec![];
    let ops: [(&'static str, &str); 12] = [
        ("add", "vadd"),
        ("sub", "vsub"),
        ("avrg", "vavrg"),
        ("absdiff", "vabsdiff"),
        ("min", "vmin"),
        ("max", "vmax"),
        ("set.eq", "vset"),
        ("set.ne", "vset"),
        ("set.lt", "vset"),
        ("set.le", "vset"),
        ("set.gt", "vset"),
        ("set.ge", "vset"),
    ];
    for lanes in [2u32, 4] {
        let all_masks = masks(lanes);
        let defaults: ([u32; 4], [u32; 4]) = if lanes == 2 { ([0, 1, 0, 0], [2, 3, 0, 0]) } else { ([0, 1, 2, 3], [4, 5, 6, 7]) };
        for (op, base) in ops {
            let is_set = op.starts_with("set.");
            let triples: Vec<(bool, bool, bool)> = TRIPLES.iter().copied().filter(|t| !is_set || !t.0).collect();
            for (k, &types) in triples.iter().enumerate() {
                let type_text =
                    if is_set { format!("{}{}.{}", t(types.1), t(types.2), &op[4..]) } else { format!("{}{}{}", t(types.0), t(types.1), t(types.2)) };
                let modes: &[&str] = if is_set { &["", ".add"] } else { &["", ".sat", ".add"] };
                let mut forms = vec![];
                for (mi, mode) in modes.iter().enumerate() {
                    // Every mask in every mode over the kernels of an operation; defaults
                    // (no selector, no mask) in the first form of each mode.
                    let chosen: Vec<&(String, u32)> =
                        all_masks.iter().enumerate().filter(|(j, _)| lanes == 2 || (j + k + mi) % 3 == 0).map(|(_, m)| m).collect();
                    for (j, (mask_text, mask)) in chosen.into_iter().enumerate() {
                        let ((atext, asel), (btext, bsel), mtext) = if j == 0 {
                            ((String::new(), defaults.0), (String::new(), defaults.1), String::new())
                        } else {
                            let (at, a) = random_selector(&mut rng, lanes);
                            let (bt, b) = random_selector(&mut rng, lanes);
                            ((format!(".{at}"), a), (format!(".{bt}"), b), format!(".{mask_text}"))
                        };
                        let mask = if j == 0 { (1 << lanes) - 1 } else { *mask };
                        let sat = *mode == ".sat";
                        let add = *mode == ".add";
                        let text = format!("{base}{lanes}{type_text}{mode} %o32{mtext}, %a32{atext}, %b32{btext}, %c32;");
                        forms.push(Form::inst(text, Res::B32, move |x| r::video_simd(op, lanes, types, sat, add, asel, bsel, mask, x[0], x[1], x[2])));
                    }
                }
                let name = format!("{base}{lanes}_{}_{k}", op.replace('.', "_"));
                kernels.push(Kernel::new(name, [Dist::Any; 4], forms));
            }
        }
    }
    kernels
}

#[test]
fn video_scalar() {
    check_family("video_scalar", scalar_kernels(), 10_000);
}

#[test]
fn video_simd() {
    check_family("video_simd", simd_kernels(), 10_000);
}

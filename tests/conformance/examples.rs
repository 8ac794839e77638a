//! The Examples sections of the integer, extended-precision, funnel-shift and video chapters
//! (tests/kernels/integer_examples.ptx) compile and run; the results the text documents are
//! checked, and the others against the reference model.

use std::process::Command;
use std::time::Duration;

use super::reference as r;
use super::{inputs_for, Dist};
use crate::support::{self, WorkDir};

const SLOTS: usize = 32;

fn run_examples() -> (Vec<[u64; 4]>, Vec<Vec<u64>>) {
    let work = WorkDir::new("integer-examples");
    let obj = work.join("examples.o");
    support::compile_ptx(&support::root_path("tests/kernels/integer_examples.ptx"), &obj, &[], work.path());
    let exe = work.join("runner");
    support::link_host(&support::root_path("tests/conformance/runner.c"), &[obj], &exe, work.path());
    let ins = inputs_for([Dist::Any; 4], 0xe8a3);
    let mut job = Vec::new();
    job.extend(2u32.to_le_bytes());
    for name in ["examples", "examples2"] {
        job.extend((name.len() as u32).to_le_bytes());
        job.extend(name.as_bytes());
        job.extend((ins.len() as u32).to_le_bytes());
        job.extend((SLOTS as u32).to_le_bytes());
        for v in &ins {
            for x in v {
                job.extend(x.to_le_bytes());
            }
        }
    }
    std::fs::write(work.join("job.bin"), &job).expect("write the job file");
    let mut cmd = Command::new(&exe);
    cmd.arg(work.join("job.bin")).arg(work.join("out.bin"));
    let run = support::run_with_timeout(&mut cmd, work.path(), "runner", Duration::from_secs(120));
    assert!(run.success(), "the examples failed to run\n{}", run.describe(&cmd));
    let bytes = std::fs::read(work.join("out.bin")).expect("read the results");
    let words: Vec<u64> = bytes.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes"))).collect();
    assert_eq!(words.len(), 2 * ins.len() * SLOTS, "wrong number of results");
    let per_vector = words.chunks(SLOTS).map(<[u64]>::to_vec).collect();
    (ins, per_vector)
}

#[test]
fn spec_examples_run() {
    let (ins, results) = run_examples();
    let n = ins.len();
    let mut failures = vec![];
    for (i, x) in ins.iter().enumerate() {
        let (k1, k2) = (&results[i], &results[n + i]);
        let (a, b, c, d) = (x[0], x[1], x[2], x[3]);
        let cf = d & 1 == 1;
        let u128_of = |lo: u64, hi: u64| lo as u128 | (hi as u128) << 64;
        let (p, q) = (u128_of(a, b), u128_of(c, d));
        let n_shift = (c & 31) as u32;
        let shifted_left = p << n_shift;
        let checks: Vec<(&str, u64, u64)> = vec![
            // Results the text documents.
            ("fns.b32 d, 0xaaaaaaaa, 3, 1", k1[27], 3),
            ("fns.b32 d, 0xaaaaaaaa, 3, -1", k1[28], 3),
            ("fns.b32 d, 0xaaaaaaaa, 2, 1", k1[29], 3),
            ("fns.b32 d, 0xaaaaaaaa, 2, -1", k1[30], 1),
            ("szext.wrap.u32 rd, 0xffffffff, 0", k2[2], 0),
            ("bmsk.wrap.b32 rd, 1, 2", k2[4], 6),
            // The others, against the reference model.
            ("@p add.u32 x,y,z", k1[0], if cf { r::add(a, b, 32, false, false) } else { 0 }),
            ("add.sat.s32 c,c,1", k1[1], r::add(c, 1, 32, true, true)),
            ("add.u16x2 u,v,w", k1[2], r::packed16x2("add", a, b, false, false)),
            ("mul.wide.s32 z,x,y", k1[6], r::mul("wide", a, b, 32, true)),
            ("sad.u32 d,a,b,d", k1[12], r::sad(a, b, c, 32, false)),
            ("div.s32 b,n,i", k1[13], r::div(a, b, 32, true)),
            ("min.s16x2.relu u,v,w", k1[19], r::packed16x2("min", a, b, true, true)),
            ("bfind.shiftamt.s64 cnt, X", k1[25], r::bfind(b, 64, true, true)),
            ("bfi.b32 d,a,b,start,len", k2[0], r::bfi(a, b, c & 63, d & 63, 32)),
            ("bmsk.clamp.b32 rd, ra, rb", k2[3], r::bmsk(true, a, b & 63)),
            ("dp4a.u32.u32", k2[5], r::dp4a(a, b, c, false, false)),
            ("add.cc/addc 128-bit (low)", k2[8], p.wrapping_add(q) as u64),
            ("add.cc/addc 128-bit (high)", k2[9], (p.wrapping_add(q) >> 64) as u64),
            ("sub.cc/subc 128-bit (low)", k2[10], p.wrapping_sub(q) as u64),
            ("sub.cc/subc 128-bit (high)", k2[11], (p.wrapping_sub(q) >> 64) as u64),
            ("madc multiply (low)", k2[12], (a as u128 * c as u128) as u64),
            ("madc multiply (high)", k2[13], ((a as u128 * c as u128) >> 64) as u64),
            ("shf.l.clamp.b32 r3,r1,r0,16", k2[15], r::shf(true, true, a >> 32, a, 16)),
            ("128-bit left shift (low)", k2[16], shifted_left as u64),
            ("128-bit left shift (high)", k2[17], (shifted_left >> 64) as u64),
            ("128-bit arithmetic right shift (low)", k2[18], ((p as i128) >> n_shift) as u64),
            ("128-bit arithmetic right shift (high)", k2[19], (((p as i128) >> n_shift) >> 64) as u64),
            ("vmad.s32.s32.u32.sat r0, r1, r2, -r3", k2[25], r::vmad(true, false, "", "", false, false, true, false, 0, true, a, b, c)),
            ("vmad.u32.u32.u32.shr15 r0, r1.h0, r2.h0, r3", k2[26], r::vmad(false, false, "h0", "h0", false, false, false, false, 15, false, a, b, c)),
            (
                "vset4.s32.u32.lt r1, r2, r3, r0",
                k2[31],
                r::video_simd("set.lt", 4, (false, true, false), false, false, [0, 1, 2, 3], [4, 5, 6, 7], 0xf, a, b, c),
            ),
        ];
        for (what, got, want) in checks {
            if got != want && failures.len() < 40 {
                failures.push(format!("{what}: a={a:#x} b={b:#x} c={c:#x} d={d:#x}: expected {want:#x}, got {got:#x}"));
            }
        }
    }
    assert!(failures.is_empty(), "spec examples:\n{}", failures.join("\n"));
}

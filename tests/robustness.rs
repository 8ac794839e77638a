//! Robustness of the front end on broken input: truncations of every corpus file and
//! seeded random mutations of them never panic and never take more than 10 s each.
//!
//! The library is called in-process (`ptx2llvm::driver::analyze`), optimized even in
//! test builds (`[profile.*.package.ptx2llvm]` in the root Cargo.toml), on both cores.
//! A sample of the inputs that pass the checker also goes through the full compile
//! (lowering and LLVM code generation), which must not panic on odd-but-valid input.
//!
//! A failure names the file, the truncation offset or the mutation number and seed, and
//! writes the input to the temporary directory, so that it can be replayed with the CLI
//! (`ptx2llvm -fsyntax-only FILE`).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use ptx2llvm::front::lexer::{lex, Token};

use crate::support;

const TRUNCATIONS_PER_FILE: usize = 200;
const MUTATIONS: usize = 10_000;
/// The seed of mutation `i` is derived from this and `i`, so one can be replayed alone.
const SEED: u64 = 0x5eed_7478_2024_0003;
const TIME_LIMIT: Duration = Duration::from_secs(10);
/// Every n-th input that passes the checker is also compiled to an object.
const COMPILE_EVERY: usize = 20;
/// Mutations apply to a window of the file of at most this many bytes (starting at a
/// line), so that 10,000 of them cost seconds; truncations always use the whole file.
const MUTATION_WINDOW: usize = 8 * 1024;
/// An input still running after this long is reported and the test binary exits: an
/// endless loop would otherwise hang the test run.
const HANG_LIMIT: Duration = Duration::from_secs(120);

/// SplitMix64: small, fast and good enough to pick mutations reproducibly.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// One input for the front end and where it came from.
struct Case {
    what: String,
    text: String,
}

/// Truncations of `text` at evenly spaced offsets (most of them fall inside a token).
fn truncations(file: &str, text: &str) -> Vec<Case> {
    (1..=TRUNCATIONS_PER_FILE)
        .map(|i| {
            let mut at = text.len() * i / (TRUNCATIONS_PER_FILE + 1);
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            Case { what: format!("{file} truncated at byte {at}"), text: text[..at].to_string() }
        })
        .collect()
}

/// Replacements for a number: values at and beyond the edges of the integer types.
const EXTREME_NUMBERS: &[&str] = &[
    "99999999999999999999",
    "-0x8000000000000000",
    "0xFFFFFFFFFFFFFFFF",
    "18446744073709551615U",
    "4294967296",
    "2147483648",
    "-2147483649",
    "0",
    "-1",
    "1e400",
    "0f7FC00000",
    "0dFFFFFFFFFFFFFFFF",
];

const PUNCTUATION: &[&str] = &[
    ";", ",", "{", "}", "[", "]", "(", ")", "<", ">", ":", "+", "-", "*", "/", "!", "@", "%", ".", "|", "=", "~", "^", "&", "?", "\"", "'", "#", "_", "$",
    "\\", "/*", "//", "<<", ">>", "::",
];

/// Applies 1 to 3 random edits to a window of `text`.
fn mutate(text: &str, rng: &mut Rng) -> String {
    // A window starting at a line.
    let mut start = if text.len() > MUTATION_WINDOW { rng.below(text.len() - MUTATION_WINDOW) } else { 0 };
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    start = text[..start].rfind('\n').map_or(0, |n| n + 1);
    let mut end = (start + MUTATION_WINDOW).min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let mut s = text[start..end].to_string();
    for _ in 0..1 + rng.below(3) {
        s = edit(&s, rng);
    }
    s
}

fn edit(s: &str, rng: &mut Rng) -> String {
    let tokens: Vec<(Token, std::ops::Range<usize>)> = lex(s);
    if tokens.len() < 2 {
        return format!("{s}{}", *rng.pick(PUNCTUATION));
    }
    let tok = |rng: &mut Rng| tokens[rng.below(tokens.len())].1.clone();
    let range_of_tokens = |rng: &mut Rng| {
        let a = rng.below(tokens.len());
        let b = (a + 1 + rng.below(5)).min(tokens.len()) - 1;
        tokens[a].1.start..tokens[b].1.end
    };
    let splice = |at: usize, del: usize, insert: &str| format!("{}{insert}{}", &s[..at], &s[at + del..]);
    let char_at = |rng: &mut Rng| {
        let mut at = rng.below(s.len());
        while !s.is_char_boundary(at) {
            at -= 1;
        }
        at
    };
    match rng.below(9) {
        // Delete a few tokens.
        0 => {
            let r = range_of_tokens(rng);
            splice(r.start, r.len(), "")
        }
        // Duplicate a few tokens.
        1 => {
            let r = range_of_tokens(rng);
            splice(r.end, 0, &format!(" {}", &s[r.clone()]))
        }
        // Swap two tokens.
        2 => {
            let (a, b) = (tok(rng), tok(rng));
            let (a, b) = if a.start <= b.start { (a, b) } else { (b, a) };
            if a.end > b.start {
                return s.to_string();
            }
            format!("{}{}{}{}{}", &s[..a.start], &s[b.clone()], &s[a.end..b.start], &s[a.clone()], &s[b.end..])
        }
        // Insert punctuation.
        3 => {
            let p = *rng.pick(PUNCTUATION);
            splice(tok(rng).start, 0, p)
        }
        // Insert a token taken from elsewhere in the text.
        4 => {
            let from = tok(rng);
            splice(tok(rng).end, 0, &format!(" {}", &s[from]))
        }
        // Change one character.
        5 => {
            let at = char_at(rng);
            let len = s[at..].chars().next().map_or(0, char::len_utf8);
            let c = (b' ' + rng.below(95) as u8) as char;
            splice(at, len, &c.to_string())
        }
        // Replace a number with an extreme one.
        6 => {
            let numbers: Vec<_> = tokens
                .iter()
                .filter(|(t, _)| matches!(t, Token::Int(_) | Token::Float(_) | Token::F32Bits(_) | Token::F64Bits(_)))
                .map(|(_, r)| r.clone())
                .collect();
            if numbers.is_empty() {
                return s.to_string();
            }
            let r = rng.pick(&numbers).clone();
            splice(r.start, r.len(), *rng.pick(EXTREME_NUMBERS))
        }
        // Deep nesting: many `{` (or `(`, `[`, unary `-`) at once.
        7 => {
            let depth = 1 + rng.below(20_000);
            let open = *rng.pick(&["{", "(", "[", "-", "!"]);
            splice(tok(rng).start, 0, &open.repeat(depth))
        }
        // Delete a byte range (not aligned to tokens).
        _ => {
            let a = char_at(rng);
            let mut b = (a + 1 + rng.below(64)).min(s.len());
            while !s.is_char_boundary(b) {
                b -= 1;
            }
            splice(a, b - a, "")
        }
    }
}

/// What went wrong with one input.
struct Failure {
    what: String,
    problem: String,
    saved_as: Option<PathBuf>,
}

fn save_input(index: usize, text: &str) -> Option<PathBuf> {
    let path = std::env::temp_dir().join(format!("ptx2llvm-robustness-{}-{index}.ptx", std::process::id()));
    std::fs::write(&path, text).ok().map(|_| path)
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(no message)".to_string()
    }
}

/// Runs the checker (and for a sample, the full compile) on one input.
fn run_case(index: usize, case: &Case, passed: &AtomicUsize, compiled: &AtomicUsize) -> Option<Failure> {
    let fail = |problem: String| Some(Failure { what: case.what.clone(), problem, saved_as: save_input(index, &case.text) });
    let started = Instant::now();
    let analysed = catch_unwind(AssertUnwindSafe(|| ptx2llvm::driver::analyze(&case.text)));
    let elapsed = started.elapsed();
    let diags = match analysed {
        Ok((_, diags)) => diags,
        Err(payload) => return fail(format!("the checker panicked: {}", panic_message(&*payload))),
    };
    if elapsed > TIME_LIMIT {
        return fail(format!("the checker took {elapsed:.1?} (limit {TIME_LIMIT:?})"));
    }
    if ptx2llvm::driver::has_errors(&diags) {
        return None;
    }
    let n = passed.fetch_add(1, Ordering::Relaxed);
    if n % COMPILE_EVERY != 0 {
        return None;
    }
    compiled.fetch_add(1, Ordering::Relaxed);
    let opts = ptx2llvm::driver::Options { opt_level: 1, ..Default::default() };
    let started = Instant::now();
    let result = catch_unwind(AssertUnwindSafe(|| ptx2llvm::driver::compile(&case.text, "fuzz", &opts)));
    let elapsed = started.elapsed();
    match result {
        Err(payload) => fail(format!("the compile panicked: {}", panic_message(&*payload))),
        // Input errors (e.g. instructions not lowered yet) are fine; an internal error is not.
        Ok(Err(ptx2llvm::driver::CompileError::Target(msg))) => fail(format!("the compile failed internally: {msg}")),
        Ok(_) if elapsed > TIME_LIMIT => fail(format!("the compile took {elapsed:.1?} (limit {TIME_LIMIT:?})")),
        Ok(_) => None,
    }
}

fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned())
}

#[test]
fn truncated_and_mutated_corpus_never_panics() {
    let Some(corpus) = support::corpus_files("robustness::truncated_and_mutated_corpus_never_panics") else {
        return;
    };
    let files: Vec<(String, String)> = corpus
        .iter()
        .map(|p| {
            let text = std::fs::read(p).unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()));
            (file_name(p), String::from_utf8_lossy(&text).into_owned())
        })
        .collect();

    let mut cases: Vec<Case> = files.iter().flat_map(|(name, text)| truncations(name, text)).collect();
    for i in 0..MUTATIONS {
        let seed = SEED ^ (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        let mut rng = Rng::new(seed);
        let (name, text) = rng.pick(&files);
        cases.push(Case { what: format!("mutation {i} (seed {seed:#x}) of {name}"), text: mutate(text, &mut rng) });
    }

    // Silence the default panic output: panics are collected and reported below.
    let previous_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));

    let next = AtomicUsize::new(0);
    let passed = AtomicUsize::new(0);
    let compiled = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::<Failure>::new());
    // What each worker is running and since when, for the hang watchdog.
    let running: Vec<Mutex<Option<(usize, Instant)>>> = (0..2).map(|_| Mutex::new(None)).collect();
    let done = std::sync::atomic::AtomicBool::new(false);
    let started = Instant::now();
    std::thread::scope(|s| {
        let workers: Vec<_> = running
            .iter()
            .map(|slot| {
                let (cases, next, passed, compiled, failures) = (&cases, &next, &passed, &compiled, &failures);
                // As much stack as the CLI's main thread has.
                std::thread::Builder::new()
                    .stack_size(8 << 20)
                    .spawn_scoped(s, move || loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(case) = cases.get(i) else { break };
                        *slot.lock().unwrap_or_else(|e| e.into_inner()) = Some((i, Instant::now()));
                        if let Some(f) = run_case(i, case, passed, compiled) {
                            failures.lock().unwrap_or_else(|e| e.into_inner()).push(f);
                        }
                        *slot.lock().unwrap_or_else(|e| e.into_inner()) = None;
                    })
                    .expect("spawning a worker thread")
            })
            .collect();
        let (cases, running, done) = (&cases, &running, &done);
        s.spawn(move || {
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(200));
                for slot in running {
                    if let Some((i, since)) = *slot.lock().unwrap_or_else(|e| e.into_inner()) {
                        if since.elapsed() > HANG_LIMIT {
                            let saved = save_input(i, &cases[i].text);
                            eprintln!("robustness: {} has been running for {HANG_LIMIT:?}: giving up (input saved as {saved:?})", cases[i].what);
                            std::process::exit(101);
                        }
                    }
                }
            }
        });
        for w in workers {
            // A worker only panics outside `catch_unwind` through a bug of this test.
            w.join().expect("a robustness worker panicked");
        }
        done.store(true, Ordering::Relaxed);
    });
    std::panic::set_hook(previous_hook);

    let failures = failures.into_inner().unwrap_or_else(|e| e.into_inner());
    println!(
        "robustness: {} inputs ({} truncations of {} files, {MUTATIONS} mutations) in {:.1?}; {} passed the checker, {} compiled",
        cases.len(),
        cases.len() - MUTATIONS,
        files.len(),
        started.elapsed(),
        passed.load(Ordering::Relaxed),
        compiled.load(Ordering::Relaxed)
    );
    let report: Vec<String> = failures
        .iter()
        .take(20)
        .map(|f| {
            let saved = f.saved_as.as_ref().map_or(String::new(), |p| format!(" [input: {}]", p.display()));
            format!("{}: {}{saved}", f.what, f.problem)
        })
        .collect();
    assert!(failures.is_empty(), "{} of {} inputs failed:\n{}", failures.len(), cases.len(), report.join("\n"));
}

/// Inputs that once crashed or stalled the front end (found by the test above): each is
/// reported as an error, quickly, without a panic.
#[test]
fn former_crashers_are_reported() {
    let header = ".version 7.0\n.target sm_80\n.address_size 64\n";
    let kernel = |body: &str| format!("{header}.visible .entry k()\n{{\n\t.reg .b32 %r<4>;\n{body}\n\tret;\n}}\n");
    let cases: Vec<(&str, String, &str)> = vec![
        // `next_power_of_two` overflowed on an alignment above 2^31.
        ("huge alignment", format!("{header}.global .align 0xFFFFFFFF .b8 buf[4];\n"), "alignment 4294967295 is not a power of two"),
        // Thousands of `(` made parse time grow steeply (minutes).
        ("deep nesting", kernel(&format!("\tsetp.ge{}.u32 %p1, %r1, %r2;", "(".repeat(6000))), "nested more than"),
        // Nested braces were parsed twice per level (`{...}` and `{...}|p` as separate
        // alternatives): exponential time.
        ("nested braces", kernel(&format!("\tmov.b32 %r1, {}%r2;", "{".repeat(40))), "unexpected"),
        // Unary operator chains likewise.
        ("unary chain", kernel(&format!("\tadd.s32 %r1, %r2, {}1;", "-".repeat(6000))), "nested more than"),
        // `%r<4294967295>` tried to allocate ~100 GB of register names.
        ("huge register range", kernel("\t.reg .b32 %big<4294967295>;"), "declares more than"),
        // An initialized array of 2^60 bytes would be materialized byte by byte.
        ("huge initialized array", format!("{header}.global .u8 big[0x1000000000000000] = {{1}};\n"), "initialized variable `big`"),
    ];
    for (what, source, expected) in cases {
        let started = Instant::now();
        let (_, diags) = ptx2llvm::driver::analyze(&source);
        assert!(started.elapsed() < TIME_LIMIT, "{what}: took {:?}", started.elapsed());
        assert!(
            diags.iter().any(|d| d.message.contains(expected)),
            "{what}: expected an error containing `{expected}`, got {:?}",
            diags.iter().map(|d| &d.message).collect::<Vec<_>>()
        );
    }
}

//! Front-end bench: parse + check the large files of the real-world PTX corpus.
//!
//! For each corpus file with at least `--min-lines` lines (default 5,000) and for the
//! whole corpus, runs `ptx2llvm::front::parse` and `ptx2llvm::check::check` `--reps` times
//! (default 15) and prints the median times and lines per second as a table. The budget
//! of issue #3: the largest file (48,000 lines) is parsed and checked in under 1 s; the
//! exit status is 1 when a file misses `--budget-ms` (default 1000).
//!
//! Run it through `bench/run` (release build), or `cargo bench --bench frontend -- [OPTIONS]`.
//! The corpus is `PTX2LLVM_CORPUS`, else `../shared/corpus` beside the workspace.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

struct Options {
    reps: usize,
    min_lines: usize,
    budget: Duration,
}

fn parse_args() -> Result<Options, String> {
    let mut opts = Options { reps: 15, min_lines: 5000, budget: Duration::from_millis(1000) };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| -> Result<u64, String> { args.next().and_then(|v| v.parse().ok()).ok_or_else(|| format!("{name} needs a number")) };
        match arg.as_str() {
            "--reps" => opts.reps = value("--reps")?.max(1) as usize,
            "--min-lines" => opts.min_lines = value("--min-lines")? as usize,
            "--budget-ms" => opts.budget = Duration::from_millis(value("--budget-ms")?),
            // `cargo bench` passes `--bench` to harness-less benches.
            "--bench" => {}
            other => return Err(format!("unknown argument `{other}` (options: --reps N, --min-lines N, --budget-ms N)")),
        }
    }
    Ok(opts)
}

fn corpus_dir() -> PathBuf {
    match std::env::var_os("PTX2LLVM_CORPUS") {
        Some(d) if !d.is_empty() => PathBuf::from(d),
        _ => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"),
    }
}

struct Timing {
    parse: Duration,
    check: Duration,
    total: Duration,
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Median parse, check and total times of `reps` runs over `sources`.
fn measure(sources: &[&str], reps: usize) -> Result<Timing, String> {
    let (mut parse, mut check, mut total) = (vec![], vec![], vec![]);
    for _ in 0..reps {
        let (mut p, mut c) = (Duration::ZERO, Duration::ZERO);
        for src in sources {
            let t0 = Instant::now();
            let (ast, syntax_errors) = ptx2llvm::front::parse(src);
            let t1 = Instant::now();
            let (ir, check_errors) = ptx2llvm::check::check(&ast);
            let t2 = Instant::now();
            if ptx2llvm::driver::has_errors(&syntax_errors) || ptx2llvm::driver::has_errors(&check_errors) {
                return Err("the input has errors: the bench measures valid files only".into());
            }
            std::hint::black_box(ir);
            p += t1 - t0;
            c += t2 - t1;
        }
        parse.push(p);
        check.push(c);
        total.push(p + c);
    }
    Ok(Timing { parse: median(parse), check: median(check), total: median(total) })
}

fn ms(d: Duration) -> String {
    format!("{:.1}", d.as_secs_f64() * 1e3)
}

fn main() -> ExitCode {
    let opts = match parse_args() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("frontend bench: {e}");
            return ExitCode::from(2);
        }
    };
    let dir = corpus_dir();
    let mut files: Vec<(String, String)> = match std::fs::read_dir(&dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
            .filter_map(|p| {
                let name = p.file_name()?.to_string_lossy().into_owned();
                std::fs::read_to_string(&p).ok().map(|text| (name, text))
            })
            .collect(),
        Err(e) => {
            eprintln!("frontend bench: the PTX corpus is missing: cannot read {}: {e} (set PTX2LLVM_CORPUS)", dir.display());
            return ExitCode::from(2);
        }
    };
    if files.is_empty() {
        eprintln!("frontend bench: no .ptx files in {}", dir.display());
        return ExitCode::from(2);
    }
    files.sort_by_key(|(_, text)| std::cmp::Reverse(text.lines().count()));

    println!("front end (parse + check), median of {} runs, release build", opts.reps);
    println!("{:<72} {:>8} {:>9} {:>9} {:>9} {:>12}  budget", "input", "lines", "parse ms", "check ms", "total ms", "lines/s");
    let mut over_budget = false;
    let mut row = |name: &str, sources: &[&str], budgeted: bool| {
        let lines: usize = sources.iter().map(|s| s.lines().count()).sum();
        match measure(sources, opts.reps) {
            Ok(t) => {
                let rate = lines as f64 / t.total.as_secs_f64().max(1e-9);
                let verdict = if !budgeted {
                    "-"
                } else if t.total < opts.budget {
                    "ok"
                } else {
                    over_budget = true;
                    "OVER"
                };
                let shown: String = if name.chars().count() > 72 { name.chars().take(69).collect::<String>() + "..." } else { name.to_string() };
                println!("{shown:<72} {lines:>8} {:>9} {:>9} {:>9} {rate:>12.0}  {verdict}", ms(t.parse), ms(t.check), ms(t.total));
            }
            Err(e) => {
                over_budget = true;
                println!("{name:<72} {lines:>8}  error: {e}");
            }
        }
    };
    for (name, text) in files.iter().filter(|(_, t)| t.lines().count() >= opts.min_lines) {
        row(name, &[text.as_str()], true);
    }
    let all: Vec<&str> = files.iter().map(|(_, t)| t.as_str()).collect();
    row(&format!("whole corpus ({} files)", files.len()), &all, false);
    if over_budget {
        eprintln!("frontend bench: a file missed the budget of {} ms", opts.budget.as_millis());
        return ExitCode::from(1);
    }
    ExitCode::SUCCESS
}

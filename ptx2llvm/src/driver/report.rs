//! What the user hears about a compile: `-v` names each phase as it starts (a long compile
//! is never silent), `--time-passes` prints where the time went.

use std::fmt::Write;
use std::time::Instant;

/// `-v`: one line per phase on the standard error, with the time since the start.
pub struct Progress {
    verbose: bool,
    start: Instant,
}

impl Progress {
    pub fn new(verbose: bool) -> Self {
        Progress { verbose, start: Instant::now() }
    }

    pub fn phase(&self, name: &str) {
        self.note(name);
    }

    pub fn unit_phase(&self, unit: &str, name: &str) {
        self.note(&format!("{unit}: {name}"));
    }

    pub fn note(&self, what: &str) {
        if self.verbose {
            eprintln!("ptx2llvm: [{:7.2} s] {what}", self.start.elapsed().as_secs_f64());
        }
    }
}

/// One codegen unit's times (seconds) and the kernels it lowered.
#[derive(Debug, Clone, Default)]
pub struct UnitTime {
    pub label: String,
    pub lower: f64,
    pub optimize: f64,
    pub codegen: f64,
    /// Each kernel and the time its lowering took.
    pub kernels: Vec<(String, f64)>,
    /// Functions optimized with the scalar pipeline (`--large-function`).
    pub large_functions: usize,
}

impl UnitTime {
    pub fn total(&self) -> f64 {
        self.lower + self.optimize + self.codegen
    }
}

#[derive(Debug, Clone, Default)]
pub struct TimeReport {
    /// Phases outside the units (parse, check, the shared part of lowering, merge).
    pub phases: Vec<(&'static str, f64)>,
    pub units: Vec<UnitTime>,
    /// Threads the units ran on (0 or 1: the calling thread).
    pub threads: usize,
    pub wall: f64,
    /// `.func`s with a body that the object leaves out: nothing it needs reaches them
    /// (`ir::reach`).
    pub unreached_functions: usize,
}

/// Kernels listed by name in the report.
const SLOWEST: usize = 5;

impl TimeReport {
    pub fn add_phase(&mut self, name: &'static str, secs: f64) {
        match self.phases.iter_mut().find(|(n, _)| *n == name) {
            Some((_, t)) => *t += secs,
            None => self.phases.push((name, secs)),
        }
    }

    pub fn add_unit(&mut self, unit: UnitTime) {
        self.units.push(unit);
    }

    fn phase(&self, name: &str) -> f64 {
        self.phases.iter().filter(|(n, _)| *n == name).fold(0.0, |a, (_, t)| a + t)
    }

    /// The report `--time-passes` prints.
    pub fn render(&self, file: &str) -> String {
        let mut s = String::new();
        let threads = self.threads.max(1);
        let _ = writeln!(s, "ptx2llvm time report: {file}");
        let _ = writeln!(
            s,
            "  {} codegen unit{} on {threads} thread{}; lower, optimize and codegen are summed over the units",
            self.units.len(),
            if self.units.len() == 1 { "" } else { "s" },
            if threads == 1 { "" } else { "s" }
        );
        let _ = writeln!(s, "  {:<10} {:>10}", "phase", "seconds");
        let sum = |f: fn(&UnitTime) -> f64| self.units.iter().fold(0.0, |a, u| a + f(u));
        let rows = [
            ("parse", self.phase("parse")),
            ("check", self.phase("check")),
            ("lower", self.phase("lower") + sum(|u| u.lower)),
            ("optimize", sum(|u| u.optimize)),
            ("codegen", sum(|u| u.codegen)),
            ("merge", self.phase("merge")),
        ];
        for (name, t) in rows {
            let _ = writeln!(s, "  {name:<10} {t:>10.3}");
        }
        let _ = writeln!(s, "  {:<10} {:>10.3}", "total", self.wall);
        if self.unreached_functions > 0 {
            let n = self.unreached_functions;
            let _ = writeln!(
                s,
                "  {n} function{} left out: nothing the object needs calls {} (`.weak` or internal)",
                if n == 1 { "" } else { "s" },
                if n == 1 { "it" } else { "them" }
            );
        }
        let large: usize = self.units.iter().map(|u| u.large_functions).sum();
        if large > 0 {
            let _ = writeln!(s, "  {large} large function{} optimized with the scalar pipeline (--large-function)", if large == 1 { "" } else { "s" });
        }
        if self.units.len() > 1 {
            let mut units: Vec<&UnitTime> = self.units.iter().collect();
            units.sort_by(|a, b| b.total().total_cmp(&a.total()));
            let _ = writeln!(s, "  slowest units (lower + optimize + codegen):");
            for u in units.iter().take(SLOWEST) {
                let mut names: Vec<String> = u.kernels.iter().take(3).map(|(n, _)| short(n)).collect();
                if u.kernels.len() > 3 {
                    names.push(format!("and {} more kernels", u.kernels.len() - 3));
                }
                let what = if names.is_empty() { String::new() } else { format!(": {}", names.join(", ")) };
                let _ = writeln!(s, "  {:>10.3}  {}{what}", u.total(), u.label);
            }
        }
        let mut kernels: Vec<&(String, f64)> = self.units.iter().flat_map(|u| u.kernels.iter()).collect();
        kernels.sort_by(|a, b| b.1.total_cmp(&a.1));
        if !kernels.is_empty() {
            let _ = writeln!(s, "  slowest kernels to lower:");
            for (name, t) in kernels.iter().take(SLOWEST) {
                let _ = writeln!(s, "  {t:>10.3}  {}", short(name));
            }
        }
        s
    }
}

/// A kernel name cut to a readable length (C++ names run to hundreds of characters).
fn short(name: &str) -> String {
    const MAX: usize = 72;
    if name.chars().count() <= MAX {
        name.to_string()
    } else {
        format!("{}…", name.chars().take(MAX).collect::<String>())
    }
}

//! Diagnostics: one type for every stage, rendered in one place.

use std::ops::Range;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
}

#[derive(Debug, Clone)]
pub struct Diagnostic {
    pub severity: Severity,
    pub span: Range<usize>,
    pub message: String,
    /// Text for the label under the offending source (defaults to the message).
    pub label: Option<String>,
    pub notes: Vec<String>,
}

impl Diagnostic {
    pub fn error(span: Range<usize>, message: impl Into<String>) -> Self {
        Diagnostic { severity: Severity::Error, span, message: message.into(), label: None, notes: vec![] }
    }

    pub fn warning(span: Range<usize>, message: impl Into<String>) -> Self {
        Diagnostic { severity: Severity::Warning, span, message: message.into(), label: None, notes: vec![] }
    }

    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ErrorFormat {
    #[default]
    Human,
    Short,
}

/// 1-based line and column (in characters) of a byte offset.
pub fn line_col(source: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(source.len());
    let before = &source[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
    let col = source[line_start..offset].chars().count() + 1;
    (line, col)
}

/// Writes diagnostics to `out` in the requested format.
pub fn render(diags: &[Diagnostic], file_name: &str, source: &str, format: ErrorFormat, color: bool, out: &mut dyn std::io::Write) {
    for d in diags {
        let kind = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let (line, col) = line_col(source, d.span.start);
        match format {
            ErrorFormat::Short => {
                let _ = writeln!(out, "{file_name}:{line}:{col}: {kind}: {}", d.message);
            }
            ErrorFormat::Human => {
                use ariadne::{Color, Config, Label, Report, ReportKind, Source};
                let span = clamp_span(source, d.span.clone());
                let rk = match d.severity {
                    Severity::Error => ReportKind::Error,
                    Severity::Warning => ReportKind::Warning,
                };
                let label_color = match d.severity {
                    Severity::Error => Color::Red,
                    Severity::Warning => Color::Yellow,
                };
                let mut report = Report::build(rk, (file_name, span.clone()))
                    .with_config(Config::default().with_color(color).with_index_type(ariadne::IndexType::Byte))
                    .with_message(format!("{} (at {file_name}:{line}:{col})", d.message))
                    .with_label(Label::new((file_name, span)).with_message(d.label.clone().unwrap_or_else(|| d.message.clone())).with_color(label_color));
                for n in &d.notes {
                    report = report.with_note(n);
                }
                let _ = report.finish().write((file_name, Source::from(source)), &mut *out);
            }
        }
    }
}

fn clamp_span(source: &str, span: Range<usize>) -> Range<usize> {
    let start = span.start.min(source.len());
    let end = span.end.clamp(start, source.len());
    start..end
}

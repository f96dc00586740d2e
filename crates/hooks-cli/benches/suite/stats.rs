//! Samples, their order statistics, and the Markdown table of results.

use std::fmt::Write as _;

/// What a row's numbers are.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Unit {
    /// Seconds (printed in µs, ms or s).
    Seconds,
    /// Mebibytes.
    Mib,
}

/// How a row is judged.
#[derive(Debug, Clone)]
pub(crate) enum Target {
    /// A floor: no ratio, no target.
    Floor,
    /// Informative: a ratio against `floor`, no target.
    Ratio {
        /// The floor row's label.
        floor: String,
    },
    /// Time at most `max` times the floor's.
    Slower {
        /// The floor row's label.
        floor: String,
        /// The largest ratio that passes.
        max: f64,
    },
    /// Throughput at least `min` times the floor's (ratio = floor time / our time).
    Throughput {
        /// The floor row's label.
        floor: String,
        /// The smallest ratio that passes.
        min: f64,
    },
    /// Time at most `max` times a fixed reference duration (seconds).
    Nominal {
        /// What the reference is, for the table.
        label: String,
        /// The reference, in seconds.
        reference: f64,
        /// The largest ratio that passes.
        max: f64,
    },
    /// The median is below `max` (in the row's unit).
    Below {
        /// The limit.
        max: f64,
    },
}

/// One line of the table.
#[derive(Debug, Clone)]
pub(crate) struct Row {
    /// Section number (1-7) and what was measured.
    pub label: String,
    /// The measurements.
    pub samples: Vec<f64>,
    /// Their unit.
    pub unit: Unit,
    /// How it is judged.
    pub target: Target,
    /// Set when the measurement failed.
    pub error: Option<String>,
    /// The floor's samples when they were taken round by round with this row's (the
    /// ratio then uses their median rather than the floor row's).
    pub paired: Option<Vec<f64>>,
}

impl Row {
    /// A measured row.
    pub(crate) fn new(
        label: impl Into<String>,
        unit: Unit,
        samples: Vec<f64>,
        target: Target,
    ) -> Row {
        Row { label: label.into(), samples, unit, target, error: None, paired: None }
    }

    /// A row whose measurement failed.
    pub(crate) fn failed(label: impl Into<String>, error: impl Into<String>) -> Row {
        Row {
            label: label.into(),
            samples: Vec::new(),
            unit: Unit::Seconds,
            target: Target::Floor,
            error: Some(error.into()),
            paired: None,
        }
    }

    /// The same row with the floor samples taken alongside.
    pub(crate) fn paired_with(mut self, floor: Vec<f64>) -> Row {
        self.paired = Some(floor);
        self
    }

    /// The median sample.
    pub(crate) fn median(&self) -> Option<f64> {
        percentile(&self.samples, 50.0)
    }
}

/// The `p`th percentile (nearest rank) of `samples`.
pub(crate) fn percentile(samples: &[f64], p: f64) -> Option<f64> {
    if samples.is_empty() {
        return None;
    }
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}

/// Formats a value of `unit`.
pub(crate) fn format_value(value: f64, unit: Unit) -> String {
    match unit {
        Unit::Mib => format!("{value:.1} MiB"),
        Unit::Seconds if value < 10e-6 => format!("{:.2} µs", value * 1e6),
        Unit::Seconds if value < 1e-3 => format!("{:.1} µs", value * 1e6),
        Unit::Seconds if value < 1.0 => format!("{:.2} ms", value * 1e3),
        Unit::Seconds => format!("{value:.2} s"),
    }
}

/// The verdict of one row: (ratio text, target text, result text).
fn judge(row: &Row, rows: &[Row]) -> (String, String, String) {
    let floor_median = |floor: &str| match &row.paired {
        Some(paired) => percentile(paired, 50.0),
        None => rows.iter().find(|r| r.label == floor).and_then(Row::median),
    };
    let Some(median) = row.median() else {
        return ("—".into(), "—".into(), "error".into());
    };
    let pass = |ok: bool| if ok { "pass".to_owned() } else { "**MISS**".to_owned() };
    match &row.target {
        Target::Floor => ("—".into(), "floor".into(), "—".into()),
        Target::Ratio { floor } => match floor_median(floor) {
            Some(f) => (format!("{:.2}x", median / f), "—".into(), "—".into()),
            None => ("—".into(), "—".into(), "no floor".into()),
        },
        Target::Slower { floor, max } => match floor_median(floor) {
            Some(f) => {
                let ratio = median / f;
                let of = if row.paired.is_some() {
                    format!(" of {}", format_value(f, row.unit))
                } else {
                    String::new()
                };
                (format!("{ratio:.2}x{of}"), format!("≤ {max:.2}x"), pass(ratio <= *max))
            }
            None => ("—".into(), format!("≤ {max:.2}x"), "no floor".into()),
        },
        Target::Throughput { floor, min } => match floor_median(floor) {
            Some(f) => {
                let ratio = f / median;
                (
                    format!("{ratio:.2}x throughput"),
                    format!("≥ {min:.2}x throughput"),
                    pass(ratio >= *min),
                )
            }
            None => ("—".into(), format!("≥ {min:.2}x"), "no floor".into()),
        },
        Target::Nominal { label, reference, max } => {
            let ratio = median / reference;
            (format!("{ratio:.2}x {label}"), format!("≤ {max:.2}x"), pass(ratio <= *max))
        }
        Target::Below { max } => {
            ("—".into(), format!("< {}", format_value(*max, row.unit)), pass(median < *max))
        }
    }
}

/// The Markdown table of `rows`, and whether every judged row passed. Without `judged`
/// (quick mode) the target is shown but the result column says `not judged`.
pub(crate) fn table(rows: &[Row], judged: bool) -> (String, bool) {
    let mut out = String::new();
    let mut all_pass = true;
    out.push_str("| row | median | p10–p90 | n | ratio | target | result |\n");
    out.push_str("| --- | ---: | ---: | ---: | ---: | --- | --- |\n");
    for row in rows {
        if let Some(err) = &row.error {
            let _ = writeln!(out, "| {} | — | — | 0 | — | — | error: {} |", row.label, err);
            all_pass = false;
            continue;
        }
        let (ratio, target, mut result) = judge(row, rows);
        if !judged && result != "—" {
            result = "not judged".to_owned();
        }
        if result.contains("MISS") {
            all_pass = false;
        }
        let (median, p10, p90) = (
            percentile(&row.samples, 50.0).unwrap_or(f64::NAN),
            percentile(&row.samples, 10.0).unwrap_or(f64::NAN),
            percentile(&row.samples, 90.0).unwrap_or(f64::NAN),
        );
        let _ = writeln!(
            out,
            "| {} | {} | {} – {} | {} | {} | {} | {} |",
            row.label,
            format_value(median, row.unit),
            format_value(p10, row.unit),
            format_value(p90, row.unit),
            row.samples.len(),
            ratio,
            target,
            result
        );
    }
    (out, all_pass)
}

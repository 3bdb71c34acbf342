//! What a run tells the monitors beside it (issue 34, docs/monitoring.md): the metrics file,
//! the ping, `status --check` and the calendar (`status --html`); and, ignored without them,
//! the real node_exporter, promtool and a headless Chromium reading what dayrun made.

pub mod calendar;
pub mod check;
pub mod metrics;
pub mod ping;
pub mod real_monitors;

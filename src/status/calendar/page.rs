//! The calendar's page: one self-contained HTML file (no script, nothing loaded from the
//! network), the problems first, then the weeks as rows, Monday first, each day with its keys
//! and one mark per target. A mark's state is its colour and also its letter and symbol, so the
//! page reads printed, on a phone and without colour. Every text from outside is escaped.

use super::Mark;
use crate::life::Key;
use crate::tally::Count;
use html_escape::{encode_double_quoted_attribute as attr, encode_text as text};
use jiff::civil::{Date, Weekday};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// What the page shows.
pub(super) struct Page<'a> {
    pub(super) project: &'a str,
    pub(super) today: Date,
    /// When it was made, as the run's stamps are written.
    pub(super) stamp: &'a str,
    pub(super) targets: &'a [String],
    pub(super) marks: &'a [Mark],
    /// Problems said beside the keys (a standing problem, an unreadable line, a broken setup).
    pub(super) said: &'a [String],
}

/// Each state's class, letter, symbol and name, for the marks and the legend.
const STATES: [(Count, &str, &str, &str); 8] = [
    (Count::Done, "done", "D", "✓"),
    (Count::Pending, "pending", "P", "…"),
    (Count::Failed, "failed", "F", "✗"),
    (Count::Retracted, "retracted", "R", "⊘"),
    (Count::Due, "due", "U", "○"),
    (Count::Scheduled, "scheduled", "S", "◷"),
    (Count::Stale, "stale", "T", "–"),
    (Count::Draft, "draft", "W", "✎"),
];

/// The page's style: colour, and a shape for each state besides it.
const STYLE: &str = include_str!("page.css");

impl Page<'_> {
    /// The whole page; `title`: a key's post's title, when it has a post.
    pub(super) fn html(&self, title: &dyn Fn(Key) -> Option<String>) -> String {
        let mut html = String::new();
        let name = text(self.project);
        let _ = write!(
            html,
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
             <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n\
             <title>dayrun: {name}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n\
             <h1>{name}</h1>\n<p class=\"made\">As of {}; targets: {}.</p>\n",
            text(self.stamp),
            text(&self.targets.join(", "))
        );
        self.problems(&mut html);
        self.legend(&mut html);
        self.weeks(&mut html, title);
        html.push_str("</body>\n</html>\n");
        html
    }

    /// The problems first: what was said, then each key that needs a person with the command
    /// that fixes it, then the keys the next run goes on with, a line per target and state.
    fn problems(&self, html: &mut String) {
        let urgent: Vec<&Mark> = (self.marks.iter())
            .filter(|m| m.problem.as_ref().is_some_and(|p| p.urgent))
            .collect();
        let mut later: BTreeMap<(usize, &str), Vec<Key>> = BTreeMap::new();
        for mark in self.marks {
            if let Some(problem) = mark.problem.as_ref().filter(|p| !p.urgent) {
                let keys = later
                    .entry((mark.target, problem.what.as_str()))
                    .or_default();
                keys.push(mark.key);
            }
        }
        html.push_str("<section id=\"problems\"><h2>Problems</h2>\n<ul>\n");
        if urgent.is_empty() && self.said.is_empty() {
            html.push_str("<li class=\"problem none\">Nothing needs a person.</li>\n");
        }
        for said in self.said {
            let _ = writeln!(html, "<li class=\"problem urgent\">{}</li>", text(said));
        }
        for mark in urgent {
            self.urgent(html, mark);
        }
        for ((target, what), keys) in later {
            let (first, last) = (keys[0], keys[keys.len() - 1]);
            let range = match keys.len() {
                1 => first.to_string(),
                n => format!("{n} keys, {first} to {last}"),
            };
            let _ = writeln!(
                html,
                "<li class=\"problem later\"><b>{}</b> on <b>{}</b>: {}. Nothing to do: the next run goes on with it.</li>",
                text(&range),
                text(&self.targets[target]),
                text(what),
            );
        }
        html.push_str("</ul></section>\n");
    }

    /// A key that needs a person: what, why, and the fix.
    fn urgent(&self, html: &mut String, mark: &Mark) {
        let problem = mark.problem.as_ref().expect("a problem");
        let reason = match &problem.reason {
            Some(reason) => format!(": {}", crate::outside::escape(reason, 600)),
            None => String::new(),
        };
        let command = match &problem.command {
            Some(command) => format!(" <code>{}</code>", text(command)),
            None => String::new(),
        };
        let _ = writeln!(
            html,
            "<li class=\"problem urgent\"><b>{}</b> on <b>{}</b>: {}{}<br>Fix: {}{command}</li>",
            text(&mark.key.to_string()),
            text(&self.targets[mark.target]),
            text(&problem.what),
            text(&reason),
            text(&problem.step),
        );
    }

    /// What each mark's letter, symbol and colour mean.
    fn legend(&self, html: &mut String) {
        html.push_str("<p class=\"legend\">");
        for (_, class, letter, symbol) in STATES {
            let _ = write!(
                html,
                "<span class=\"m {class}\">{symbol}{letter}</span> {class} "
            );
        }
        html.push_str("</p>\n");
    }

    /// The weeks from the first key's to the last's, a row each.
    fn weeks(&self, html: &mut String, title: &dyn Fn(Key) -> Option<String>) {
        let mut days: BTreeMap<Date, BTreeMap<Key, Vec<&Mark>>> = BTreeMap::new();
        for mark in self.marks {
            let day = days.entry(mark.key.day()).or_default();
            day.entry(mark.key).or_default().push(mark);
        }
        let (Some(first), Some(last)) = (days.keys().next(), days.keys().next_back()) else {
            html.push_str("<p>No keys yet.</p>\n");
            return;
        };
        html.push_str("<section id=\"calendar\"><h2>Calendar</h2>\n<div class=\"head\">");
        for name in ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"] {
            let _ = write!(html, "<span>{name}</span>");
        }
        html.push_str("</div>\n");
        let mut monday = monday_of(*first);
        while monday <= *last {
            html.push_str("<div class=\"week\">\n");
            for offset in 0..7 {
                let day = monday.saturating_add(jiff::Span::new().days(offset));
                self.day(html, day, days.get(&day), title);
            }
            html.push_str("</div>\n");
            monday = monday.saturating_add(jiff::Span::new().days(7));
        }
        html.push_str("</section>\n");
    }

    /// One day's cell: its date, then each of its keys with its title and marks.
    fn day(
        &self,
        html: &mut String,
        day: Date,
        keys: Option<&BTreeMap<Key, Vec<&Mark>>>,
        title: &dyn Fn(Key) -> Option<String>,
    ) {
        let today = if day == self.today { " today" } else { "" };
        let empty = if keys.is_none() { " empty" } else { "" };
        let _ = write!(
            html,
            "<div class=\"day{today}{empty}\"><div class=\"date\">{}</div>",
            day.strftime("%a %b %-d")
        );
        for (key, marks) in keys.into_iter().flatten() {
            let name = title(*key).unwrap_or_else(|| "(no post)".into());
            let name = crate::outside::escape(&name, 200);
            let _ = write!(
                html,
                "<div class=\"key\"><span class=\"k\">{}</span> <span class=\"t\">{}</span><br>",
                text(&key.to_string()),
                text(&name)
            );
            for mark in marks {
                self.mark(html, mark);
            }
            html.push_str("</div>");
        }
        html.push_str("</div>\n");
    }

    /// One mark: its state's symbol and letter, the target's name in small, a link to its copy.
    fn mark(&self, html: &mut String, mark: &Mark) {
        let (_, class, letter, symbol) = STATES
            .iter()
            .find(|(state, ..)| *state == mark.state)
            .copied()
            .unwrap_or((mark.state, "other", "?", "?"));
        let target = &self.targets[mark.target];
        let problem = if mark.problem.is_some() {
            " problem"
        } else {
            ""
        };
        let label = format!("{target}: {}", mark.state.word());
        let inner = format!("{symbol}{letter}<small>{}</small>", text(target));
        match &mark.url {
            Some(url) => {
                let _ = write!(
                    html,
                    "<a class=\"m {class}{problem}\" href=\"{}\" title=\"{}\">{inner}</a>",
                    attr(url),
                    attr(&label)
                );
            }
            None => {
                let _ = write!(
                    html,
                    "<span class=\"m {class}{problem}\" title=\"{}\">{inner}</span>",
                    attr(&label)
                );
            }
        }
    }
}

/// The Monday of `day`'s week.
fn monday_of(day: Date) -> Date {
    let back = day.weekday().since(Weekday::Monday);
    day.saturating_sub(jiff::Span::new().days(i64::from(back)))
}

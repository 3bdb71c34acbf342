//! The order a run visits targets in: a target whose template links to another target's copy
//! comes after that target (computed once, when the config is read), else the config's order
//! (by name). A cycle is a config error naming it.

use super::TargetConfig;
use crate::error::Error;
use std::path::Path;

/// Put `targets` in dependency order, keeping their order where nothing links them.
pub(super) fn sort(targets: &mut Vec<TargetConfig>, config: &Path) -> Result<(), Error> {
    let deps: Vec<Vec<usize>> = targets
        .iter()
        .map(|t| {
            t.template
                .iter()
                .flat_map(|tpl| tpl.uses().copies.keys())
                .filter_map(|name| targets.iter().position(|o| &o.name == name))
                .collect()
        })
        .collect();
    let mut placed = vec![false; targets.len()];
    let mut order = Vec::with_capacity(targets.len());
    while order.len() < targets.len() {
        let next = (0..targets.len()).find(|&i| !placed[i] && deps[i].iter().all(|&d| placed[d]));
        let Some(next) = next else {
            return Err(cycle(targets, &deps, &placed, config));
        };
        placed[next] = true;
        order.push(next);
    }
    let mut slots: Vec<Option<TargetConfig>> = targets.drain(..).map(Some).collect();
    targets.extend(
        order
            .into_iter()
            .map(|i| slots[i].take().expect("placed once")),
    );
    Ok(())
}

/// The error for a cycle among the targets not yet placed: follow links from one of them
/// until a target repeats, and name that loop.
fn cycle(targets: &[TargetConfig], deps: &[Vec<usize>], placed: &[bool], config: &Path) -> Error {
    let start = (0..targets.len())
        .find(|&i| !placed[i])
        .expect("a target is left");
    let mut path = vec![start];
    let mut at = start;
    loop {
        let next = *deps[at]
            .iter()
            .find(|&&d| !placed[d])
            .expect("an unplaced target waits for another unplaced one");
        if let Some(pos) = path.iter().position(|&p| p == next) {
            path.drain(..pos);
            break;
        }
        path.push(next);
        at = next;
    }
    let mut names: Vec<&str> = path.iter().map(|&i| targets[i].name.as_str()).collect();
    names.push(names[0]);
    let first = &targets[path[0]];
    Error::config(format!(
        "the templates make a cycle: {} (each links to the next one's copy, so none could go first)",
        names.join(" → ")
    ))
    .at(config)
    .at_line(
        ["template", "template_file"]
            .iter()
            .find_map(|key| first.key_lines.get(*key).copied())
            .or(first.line),
    )
    .hint("one of these templates must stop using the other target's copy")
}

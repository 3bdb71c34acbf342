//! Compiling a target's template when the config is read (`config` takes the text out of the
//! target's table and calls `compile`): checked for what it uses.

use super::{FUEL, Inner, NAME, Place, Template, at, located, position, uses};
use crate::error::Error;
use minijinja::syntax::SyntaxConfig;
use minijinja::{AutoEscape, Environment, UndefinedBehavior};
use std::sync::Arc;

/// Nesting a render may reach (a template has no macros or includes; this bounds the rest).
const RECURSION: usize = 64;

/// Compile `source`: strict undefined values, no escaping (the text is not HTML), bounded
/// fuel and nesting, and block tags on lines of their own leave no blank line. `place`: where
/// it was written; `own`: its target's name; `names`: every target the config names; `link`:
/// the target sets `link`.
pub fn compile(
    source: String,
    place: Place,
    own: &str,
    names: &[String],
    link: bool,
) -> Result<Template, Error> {
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.set_auto_escape_callback(|_| AutoEscape::None);
    env.set_fuel(Some(FUEL));
    env.set_recursion_limit(RECURSION);
    let syntax = SyntaxConfig::builder()
        .trim_blocks(true)
        .lstrip_blocks(true)
        .build()
        .expect("the default delimiters");
    env.set_syntax(syntax);
    let mark = crate::text::mark(&source);
    if let Err(err) = env.add_template_owned(NAME, source.clone()) {
        return Err(located(&place, &source, &err, false));
    }
    let template = env.get_template(NAME).expect("just added");
    let uses = uses::analyse(&template, &source, own, names, link).map_err(|(offset, msg)| {
        let (line, column) = offset.map_or((1, 1), |o| position(&source, o));
        at(&place, line, column, &msg, false)
    })?;
    drop(template);
    Ok(Template(Arc::new(Inner {
        env,
        place,
        mark,
        uses,
    })))
}

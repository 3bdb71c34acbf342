//! placeholder
use crate::clock::Clock;
use crate::config::Config;
use crate::error::Error;
pub(crate) fn run(_: &Config, _: &Clock, _: &[String], _: &std::path::Path) -> Result<i32, Error> {
    Ok(0)
}

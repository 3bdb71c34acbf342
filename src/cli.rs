//! Command-line arguments (argh). Turned into a `Config` and a plan before anything runs.

use argh::FromArgs;
use std::path::PathBuf;

/// Publish dated markdown posts (content/YYYY-MM-DD.md) to their targets, exactly once.
#[derive(FromArgs, Debug)]
#[argh(help_triggers("-h", "--help", "help"))]
pub struct Args {
    /// print the version and exit
    #[argh(switch, short = 'V')]
    pub version: bool,
    /// work as if started in DIR
    #[argh(option, short = 'C')]
    pub dir: Option<PathBuf>,
    /// config file (default: dayrun.toml in the project folder)
    #[argh(option)]
    pub config: Option<PathBuf>,
    #[argh(subcommand)]
    pub command: Command,
}

#[derive(FromArgs, Debug)]
#[argh(subcommand)]
pub enum Command {
    Run(RunArgs),
    Status(StatusArgs),
    Check(CheckArgs),
    Retry(RetryArgs),
    Mark(MarkArgs),
    Mv(MvArgs),
    Adopt(AdoptArgs),
    Retract(RetractArgs),
    MergeState(MergeStateArgs),
    Drill(DrillArgs),
}

/// Publish every due post that is not done yet.
#[derive(FromArgs, Debug)]
#[argh(subcommand, name = "run", help_triggers("-h", "--help", "help"))]
pub struct RunArgs {
    /// print every decision; write nothing, send nothing
    #[argh(switch)]
    pub dry_run: bool,
    /// also publish due posts older than catchup_days
    #[argh(switch)]
    pub backfill: bool,
    /// take this date (YYYY-MM-DD) as today
    #[argh(option)]
    pub today: Option<String>,
    /// only this target (repeatable)
    #[argh(option)]
    pub target: Vec<String>,
    /// only this key (repeatable); a named key is never skipped as stale
    #[argh(option)]
    pub key: Vec<String>,
    /// append the run's lines to FILE; print them only when a person is needed (exit 1, 2 or
    /// 3), so cron mails exactly then
    #[argh(option)]
    pub log: Option<PathBuf>,
    /// write the metrics for node_exporter's textfile collector to FILE at the end of the run
    /// (over `metrics_file`)
    #[argh(option)]
    pub metrics: Option<PathBuf>,
}

/// Show every key's status per target.
#[derive(FromArgs, Debug)]
#[argh(subcommand, name = "status", help_triggers("-h", "--help", "help"))]
pub struct StatusArgs {
    /// machine-readable output (schema in docs/commands.md)
    #[argh(switch)]
    pub json: bool,
    /// one line for a monitoring plugin, with performance data; exit 0 OK, 1 WARNING, 2
    /// CRITICAL, 3 UNKNOWN
    #[argh(switch)]
    pub check: bool,
    /// write the calendar, one self-contained page, to FILE
    #[argh(option)]
    pub html: Option<PathBuf>,
    /// only this target
    #[argh(option)]
    pub target: Vec<String>,
    /// take this date (YYYY-MM-DD) as today
    #[argh(option)]
    pub today: Option<String>,
}

impl StatusArgs {
    /// The form the flags ask for (they go alone).
    pub fn form(&self) -> Result<crate::status::Form, crate::error::Error> {
        crate::status::Form::of(self.json, self.check, self.html.clone())
    }
}

/// Validate the config and every content file; no network, no writes.
#[derive(FromArgs, Debug)]
#[argh(subcommand, name = "check", help_triggers("-h", "--help", "help"))]
pub struct CheckArgs {
    /// also log in to each target and look today's post up (reads only, never writes)
    #[argh(switch)]
    pub online: bool,
    /// take this date (YYYY-MM-DD) as today
    #[argh(option)]
    pub today: Option<String>,
}

/// Publish failed or unconfirmed keys again, now (a pending key is confirmed first).
#[derive(FromArgs, Debug)]
#[argh(subcommand, name = "retry", help_triggers("-h", "--help", "help"))]
pub struct RetryArgs {
    /// keys to retry (YYYY-MM-DD)
    #[argh(positional)]
    pub keys: Vec<String>,
    /// only this target
    #[argh(option)]
    pub target: Vec<String>,
    /// publish again even if the key is done
    #[argh(switch)]
    pub force: bool,
    /// you checked the target and the post is not there: send without looking first
    #[argh(switch)]
    pub absent: bool,
    /// with --force: publish a second copy instead of updating the first in place; on a failed
    /// key that never reached the target: send it as a new copy (a new record key)
    #[argh(switch)]
    pub new: bool,
    /// the copy with this id at the key's place is not this post: publish beside it, and
    /// remember that it is not ours (needs --target when several targets are configured)
    #[argh(option)]
    pub not_ours: Option<String>,
}

/// Take published posts back from their targets: delete, trash or unpublish, then verify.
#[derive(FromArgs, Debug)]
#[argh(subcommand, name = "retract", help_triggers("-h", "--help", "help"))]
pub struct RetractArgs {
    /// keys to retract (YYYY-MM-DD)
    #[argh(positional)]
    pub keys: Vec<String>,
    /// only this target (repeatable)
    #[argh(option)]
    pub target: Vec<String>,
    /// do not ask (required when stdin is not a terminal)
    #[argh(switch)]
    pub yes: bool,
    /// print what would be removed where; change nothing
    #[argh(switch)]
    pub dry_run: bool,
}

/// Record keys' outcome by hand: `mark KEY done [--id ID]`, `mark KEY... failed` or
/// `mark KEY... retracted`.
#[derive(FromArgs, Debug)]
#[argh(subcommand, name = "mark", help_triggers("-h", "--help", "help"))]
pub struct MarkArgs {
    /// the key(s) (YYYY-MM-DD), then done, failed or retracted
    #[argh(positional)]
    pub words: Vec<String>,
    /// the receipt id on the target (with done)
    #[argh(option)]
    pub id: Option<String>,
    /// only this target
    #[argh(option)]
    pub target: Vec<String>,
}

/// Carry a renamed post's lines over to its new key: `mv OLD NEW`. Its copies stay where
/// they are; nothing is sent.
#[derive(FromArgs, Debug)]
#[argh(subcommand, name = "mv", help_triggers("-h", "--help", "help"))]
pub struct MvArgs {
    /// the key the post had (its file's old name)
    #[argh(positional)]
    pub old: String,
    /// the key it has now
    #[argh(positional)]
    pub new: String,
    /// only this target (repeatable)
    #[argh(option)]
    pub target: Vec<String>,
}

/// Record every due key as done without publishing: the baseline for an existing folder.
#[derive(FromArgs, Debug)]
#[argh(subcommand, name = "adopt", help_triggers("-h", "--help", "help"))]
pub struct AdoptArgs {
    /// adopt keys up to and including this date (default: today)
    #[argh(option)]
    pub until: Option<String>,
    /// only this target
    #[argh(option)]
    pub target: Vec<String>,
}

/// Prove exactly-once on one target: publish throwaway drill posts through its real code with
/// faults injected (late, dropped, lost answers), count the copies, remove them all.
#[derive(FromArgs, Debug)]
#[argh(subcommand, name = "drill", help_triggers("-h", "--help", "help"))]
pub struct DrillArgs {
    /// the target to drill (use a test account: drill posts notify followers)
    #[argh(option)]
    pub target: String,
    /// how many drill posts, one per round (default 10)
    #[argh(option, default = "10")]
    pub rounds: u32,
    /// seconds after it was made that a late request is sent (default: the target's timeout
    /// plus 2, so it lands after the client gave up)
    #[argh(option)]
    pub delay: Option<String>,
    /// the share of requests that meet a fault, e.g. 20% (default 20%)
    #[argh(option, default = "String::from(\"20%\")")]
    pub loss: String,
    /// the faults' seed, to replay a drill (default: from the clock)
    #[argh(option)]
    pub seed: Option<u64>,
    /// do not ask (required when stdin is not a terminal)
    #[argh(switch)]
    pub yes: bool,
    /// machine-readable output (schema in docs/drill.md)
    #[argh(switch)]
    pub json: bool,
}

/// The flags that belong before the command, with what their value stands for.
const GLOBAL: [(&str, &str); 2] = [("-C", "DIR"), ("--config", "FILE")];

/// Parse the process arguments. `Err((text, code))`: print `text` and exit with `code`
/// (0 for `--help` and `--version`, 2 for a usage error; argh alone would exit 1).
pub fn parse(argv: &[String]) -> Result<Args, (String, i32)> {
    let cmd = argv
        .first()
        .map(|s| {
            std::path::Path::new(s)
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or("dayrun")
                .to_string()
        })
        .unwrap_or_else(|| "dayrun".into());
    // argh takes `--today 2026-11-29` only; accept the common `--today=2026-11-29` too.
    let mut rest: Vec<&str> = Vec::new();
    for arg in argv.iter().skip(1) {
        match arg.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") && !rest.contains(&"--") => {
                rest.push(flag);
                rest.push(value);
            }
            _ => rest.push(arg),
        }
    }
    // argh wants a command even with `--version`: answer it before argh sees it.
    if matches!(rest.get(command_at(&rest)), Some(&("-V" | "--version"))) {
        return Err((format!("dayrun {}", env!("CARGO_PKG_VERSION")), 0));
    }
    Args::from_args(&[&cmd], &rest).map_err(|exit| match exit.status {
        Ok(()) => (exit.output, 0),
        Err(()) => (usage_error(&exit.output, &rest), 2),
    })
}

/// Where the command is: the first argument after the global flags and their values.
fn command_at(args: &[&str]) -> usize {
    let mut at = 0;
    while at < args.len() && GLOBAL.iter().any(|(flag, _)| *flag == args[at]) {
        at += 2;
    }
    at
}

/// argh's message with the `dayrun: ` prefix, a hint when a global flag came after the
/// command, and where to read the usage.
fn usage_error(output: &str, args: &[&str]) -> String {
    let message = output.trim();
    let mut chars = message.chars();
    let message: String = chars
        .next()
        .map(|c| c.to_ascii_lowercase())
        .into_iter()
        .chain(chars)
        .collect();
    let mut text = format!("dayrun: {message}");
    let at = command_at(args);
    let command = args.get(at).filter(|c| {
        <Command as argh::SubCommands>::COMMANDS
            .iter()
            .any(|i| i.name == **c)
    });
    if let Some(command) = command
        && let Some(hint) = misplaced_global(message.as_str(), command, &args[at + 1..])
    {
        text.push_str(&format!("\n  {hint}"));
    }
    let help = match command {
        Some(command) => format!("dayrun {command} --help"),
        None => "dayrun --help".into(),
    };
    text.push_str(&format!("\n  see `{help}` for usage"));
    text
}

/// When argh refused a global flag given after `command`: where it belongs.
fn misplaced_global(message: &str, command: &str, after: &[&str]) -> Option<String> {
    let refused = message.strip_prefix("unrecognized argument: ")?;
    let (flag, stands_for) = GLOBAL.iter().find(|(flag, _)| *flag == refused)?;
    let at = after.iter().position(|a| a == flag)?;
    let value = after
        .get(at + 1)
        .filter(|v| !v.starts_with('-'))
        .unwrap_or(stands_for);
    Some(format!(
        "global flags go before the command: `dayrun {flag} {value} {command}`"
    ))
}

/// git's merge driver for state files and traces: merges per key (see docs/scheduling.md);
/// writes the result into OURS; exit 1 when a key holds two different copies.
#[derive(FromArgs, Debug)]
#[argh(
    subcommand,
    name = "merge-state",
    help_triggers("-h", "--help", "help")
)]
pub struct MergeStateArgs {
    /// the common ancestor's version (git's %O)
    #[argh(positional)]
    pub base: PathBuf,
    /// our version, overwritten with the result (git's %A)
    #[argh(positional)]
    pub ours: PathBuf,
    /// their version (git's %B)
    #[argh(positional)]
    pub theirs: PathBuf,
    /// the file's path in the repository (git's %P), for messages and to tell a trace
    #[argh(positional)]
    pub path: Option<PathBuf>,
}

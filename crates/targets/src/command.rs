//! `kind = "command"`: the user's own publish script, by argv (never a shell string), with an
//! exit-code contract that classes its failures.

use super::{
    Attempts, Context, Find, ImageLinks, Keep, Lookup, Media, Outgoing, Retract, Secrets, Target,
    Update, Upload, copy_name, outgoing, payload, payload_key,
};
use crate::error::{Class, Error};
use crate::images::Image;
use crate::post::Post;
use crate::redact::Redactor;
use config::seconds;
use life::Key;
use life::Receipt;
use outcome::{how, receipt};
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::time::Duration;

mod edit;
mod outcome;
mod process;

/// Exit codes of the script contract (sysexits.h values).
pub const EXIT_RETRY_SAFE: i32 = 75;
pub const EXIT_AUTH: i32 = 77;
pub const EXIT_REJECTED: i32 = 65;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// The publish command, as an argv array.
    run: Vec<String>,
    /// Optional lookup command: exit 0 + id = published, 1 = not published, other = cannot tell.
    confirm: Option<Vec<String>>,
    /// Optional command that takes a post back (`dayrun retract`), with `DAYRUN_ID` set.
    retract: Option<Vec<String>>,
    /// Optional command that sends an edit to the published copy, with `DAYRUN_ID` set.
    update: Option<Vec<String>>,
    /// Kill the command's process group after this long (default 60 s): outcome unknown.
    timeout_secs: Option<toml::Value>,
    /// Where the post's images are public: each image's `url` in the payload is this plus
    /// its path in the content folder.
    image_base_url: Option<String>,
    /// Pass the command only these environment variables (plus PATH, HOME, LANG, LC_*, TZ and
    /// DAYRUN_*). Unset: it inherits dayrun's environment.
    env: Option<Vec<String>>,
}

/// A lookup needs a `confirm` command; edits go to the copy when `update` is set.
impl Settings {
    /// What a target with these settings can do (before `on_edit`): its kind's `capabilities`.
    fn capabilities(&self) -> config::Capabilities {
        config::Capabilities {
            can_find: self.confirm.is_some(),
            updates: self.update.is_some(),
        }
    }
}

pub struct CommandTarget {
    name: String,
    /// `image_base_url`, and the folder of the images' cleaned copies the script reads.
    images: ImageLinks,
    root: PathBuf,
    run: Vec<String>,
    confirm: Option<Vec<String>>,
    retract: Option<Vec<String>>,
    update: Option<Vec<String>>,
    timeout: Duration,
    env: Option<Vec<String>>,
    /// The values of dayrun's environment variables whose names say they are secrets.
    redactor: Redactor,
    /// The payload's `text` (`template`).
    template: Option<crate::template::Template>,
}

/// Whether an environment variable's name says it holds a secret (never dayrun's own).
fn secret_name(name: &str) -> bool {
    let name = name.to_ascii_uppercase();
    !name.starts_with("DAYRUN_")
        && (["TOKEN", "SECRET", "PASSWORD", "PASSWD", "APIKEY", "_KEY_"]
            .iter()
            .any(|part| name.contains(part))
            || name.ends_with("_KEY"))
}

impl CommandTarget {
    /// A setting a capability needs (`update`, `retract`): there, or what to set.
    fn argv_of(&self, set: bool, setting: &str, so: &str) -> Result<(), Error> {
        match set {
            true => Ok(()),
            false => Err(Error::config(format!(
                "[targets.{}]: set `{setting} = [\"./scripts/{setting}.sh\"]` so that {so}",
                self.name
            ))),
        }
    }

    pub fn new(ctx: &Context, settings: Settings) -> Result<CommandTarget, Error> {
        let bad = |msg: String| {
            Error::config(format!("[targets.{}]: {msg}", ctx.target.name))
                .at(ctx.config.show(&ctx.target.source))
        };
        for (what, argv) in [
            ("run", Some(&settings.run)),
            ("confirm", settings.confirm.as_ref()),
            ("retract", settings.retract.as_ref()),
            ("update", settings.update.as_ref()),
        ] {
            let Some(argv) = argv else { continue };
            let Some(program) = argv.first() else {
                return Err(bad(format!(
                    "`{what}` must name a program: [\"./scripts/publish.sh\"]"
                )));
            };
            if let Err(why) = runnable(&ctx.config.from_file(Path::new(program)), program) {
                return Err(bad(format!("`{what}`: {program} {why}")));
            }
        }
        let timeout = match &settings.timeout_secs {
            None => Duration::from_secs(60),
            Some(v) => seconds(v)
                .filter(|d| !d.is_zero())
                .ok_or_else(|| bad("`timeout_secs` must be a number of seconds".into()))?,
        };
        let mut redactor = Redactor::default();
        for (name, value) in std::env::vars_os() {
            if let (Some(name), Some(value)) = (name.to_str(), value.to_str())
                && secret_name(name)
            {
                redactor.add(value);
            }
        }
        redactor.register();
        let images = ImageLinks {
            files: Some(ctx.config.state.join(format!("{}.images", ctx.target.name))),
            ..ImageLinks::new(ctx, settings.image_base_url.clone())?
        };
        Ok(CommandTarget {
            template: ctx.target.template.clone(),
            images,
            env: settings.env,
            retract: settings.retract,
            update: settings.update,
            redactor,
            name: ctx.target.name.clone(),
            root: ctx.config.base.clone(),
            run: settings.run,
            confirm: settings.confirm,
            timeout,
        })
    }
}

/// Whether `program` (at `path` when it names a file) can be started: it exists and may be
/// executed. A bare name is looked up in PATH when it is run.
fn runnable(path: &Path, program: &str) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    if !program.contains('/') {
        // A bare name is looked up on PATH, as it will be when the script runs: a program
        // found only in an interactive shell's PATH is not found under cron's.
        let path = std::env::var_os("PATH").unwrap_or_default();
        let found = std::env::split_paths(&path).any(|dir| {
            std::fs::metadata(dir.join(program))
                .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        });
        return match found {
            true => Ok(()),
            false => Err(format!(
                "is not on PATH ({}): name it by its full path (cron runs with PATH=/usr/bin:/bin)",
                path.to_string_lossy()
            )),
        };
    }
    match std::fs::metadata(path) {
        Err(_) => Err("does not exist".into()),
        Ok(meta) if !meta.is_file() => Err("is not a file".into()),
        Ok(meta) if meta.permissions().mode() & 0o111 == 0 => {
            Err(format!("is not executable: run `chmod +x {program}`"))
        }
        Ok(_) => Ok(()),
    }
}

/// A script that cannot be started is the target's setup, not the post: nothing was sent, the
/// target stops for this run and the run exits 2.
fn cannot_start(program: &str, err: &std::io::Error) -> Error {
    let hint = match err.kind() {
        std::io::ErrorKind::PermissionDenied => format!("make it executable: `chmod +x {program}`"),
        std::io::ErrorKind::NotFound => format!("check the path {program}, or install it"),
        _ => format!("check that {program} can be run"),
    };
    Error::config(format!("cannot start {program}: {err}")).hint(hint)
}

/// `kind = "command"` in the registry (`targets::kinds`).
pub const KIND: super::kinds::Kind = super::kinds::Kind {
    name: "command",
    publishes_to: "your own script, with the post on stdin",
    needs: "the script",
    build: |ctx| Ok(Box::new(CommandTarget::new(ctx, super::settings(ctx)?)?)),
    capabilities: |ctx| Ok(super::settings::<Settings>(ctx)?.capabilities()),
    template: Some("the payload's `text`"),
    takes: &[],
    undrillable: None,
};

impl Target for CommandTarget {
    fn prepare(&mut self, post: &Post) -> Result<Outgoing, Error> {
        super::payload::with_text(outgoing(post, &self.images), post, self.template.as_ref())
    }

    fn publish(&mut self, post: &Post, out: &Outgoing) -> Result<Receipt, Error> {
        let finished = self
            .exec(
                &self.run,
                post.place(),
                &out.body,
                None,
                None,
                Some(out.idempotency_key(&self.name, post.place())),
            )
            .map_err(|e| cannot_start(&self.run[0], &e))?;
        let why = how(&finished, self.timeout);
        match (finished.timed_out, finished.code) {
            (false, Some(0)) => receipt(&finished.stdout, &post.place().to_string()),
            (false, Some(EXIT_RETRY_SAFE)) => Err(Error::failure(Class::RetrySafe, why)),
            (false, Some(EXIT_AUTH)) => Err(Error::failure(Class::Auth, why)
                .hint(format!("{} says its credentials were refused (exit 77): renew them where the script reads them", self.run[0]))),
            (false, Some(EXIT_REJECTED)) => Err(Error::failure(Class::Rejected, why)),
            _ => Err(Error::failure(Class::Unknown, why)),
        }
    }

    fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Once the script's process group is gone, nothing of it can still land.
    fn settle(&self) -> Duration {
        Duration::ZERO
    }

    fn image_plan(&self, _: &Post, image: &Image, _: &Media) -> String {
        let url = self
            .images
            .url(image)
            .map(|u| format!(", url {u}"))
            .unwrap_or_default();
        format!("listed in the payload (a cleaned copy for the script{url})")
    }

    fn where_to_look(&self, key: Key) -> String {
        format!("the post for {key} wherever {} publishes it", self.run[0])
    }

    /// The script's environment secrets, and every secret of the run.
    fn secrets(&self) -> Secrets<'_> {
        Secrets {
            redactor: &self.redactor,
            credential: None,
        }
    }

    /// Used when a `confirm` command is set (`Settings::capabilities`).
    fn as_find(&mut self) -> Option<&mut dyn Find> {
        Some(self)
    }

    fn as_update(&mut self) -> Result<&mut dyn Update, Error> {
        self.argv_of(self.update.is_some(), "update", "edits can be sent")?;
        Ok(self)
    }

    fn as_retract(&mut self) -> Result<&mut dyn Retract, Error> {
        self.argv_of(self.retract.is_some(), "retract", "posts can be retracted")?;
        Ok(self)
    }

    fn as_upload(&mut self) -> Option<&mut dyn Upload> {
        Some(self)
    }
}

/// No `survey`: what your `confirm` script looks at is its own business.
impl Find for CommandTarget {
    /// The `confirm` command gets what the attempt it confirms sent, and when it started.
    fn find(&mut self, attempts: &Attempts) -> Result<Lookup, Error> {
        let Some(confirm) = self.confirm.clone() else {
            return Ok(Lookup::CannotTell("no confirm command".into()));
        };
        let finished = self
            .exec(
                &confirm,
                attempts.key,
                attempts.sent,
                attempts.last,
                None,
                Some(attempts.idempotency_key(&self.name)),
            )
            .map_err(|e| cannot_start(&confirm[0], &e))?;
        Ok(match (finished.timed_out, finished.code) {
            (false, Some(0)) => {
                Lookup::Found(vec![receipt(&finished.stdout, &attempts.key.to_string())?])
            }
            (false, Some(1)) => Lookup::Absent,
            _ => Lookup::CannotTell(format!("confirm {}", how(&finished, self.timeout))),
        })
    }

    fn keeps_payload(&self) -> bool {
        true
    }

    /// Your script prints one id: another key's says nothing of this attempt's copy.
    fn lists_every_match(&self) -> bool {
        false
    }
}

impl Upload for CommandTarget {
    /// The script gets each image as a cleaned copy (no location or camera metadata) in
    /// `state/<target>.images/`, written before it runs; a copy already there is the same bytes.
    fn upload(&mut self, post: &Post, _: &mut Media, _: &mut Keep) -> Result<(), Error> {
        let Some(dir) = &self.images.files else {
            return Ok(());
        };
        let local = |e: std::io::Error| {
            Error::failure(
                Class::Local,
                format!("cannot write the images' copies in {}: {e}", dir.display()),
            )
        };
        std::fs::create_dir_all(dir).map_err(local)?;
        for image in &post.images {
            let file = dir.join(copy_name(image));
            if !file.is_file() {
                crate::fsutil::write_atomic_all(&[(&file, &image.bytes)]).map_err(local)?;
            }
        }
        Ok(())
    }
}

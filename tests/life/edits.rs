//! Edits after publishing (issue 11): a done key whose post changed within `edit_days` is sent
//! to its copy in place, on every kind of target: the same id, never a second copy, a lost
//! answer read back, a refused edit not resent until the post changes again.

use crate::fakes::fake_devto::{self, FakeDevto};
use crate::fakes::fake_mastodon::{self, FakeMastodon};
use crate::fakes::fake_posts::{Fault, PostsApi};
use crate::fakes::fake_wordpress::{self, FakeWordPress};
use crate::support::util::{Output, Project};

const KEY: &str = "2026-11-29";
const TODAY: &str = "--today=2026-11-29";
/// Past the default `edit_days` (7) from the first publish.
const LATER: &str = "--today=2099-01-01";
const FIRST: &str = "# First title\n\nFirst words.\n";
const SECOND: &str = "# Second title\n\nSecond words.\n";
const THIRD: &str = "# Third title\n\nThird words.\n";

/// Common to every target table: no settling (the fakes' tables confirm quickly already).
const QUICK: &str = "settle_secs = 0\n";

/// The command target's site: one JSON file per copy in `site/`, `writes.txt` logs each call.
const PUBLISH: &str = r#"#!/bin/sh
input=$(cat)
mkdir -p site
id="c-$(( $(ls site | wc -l) + 1 ))"
printf '%s' "$input" > "site/$id.json"
echo "create $id" >> writes.txt
echo "{\"id\":\"$id\"}"
"#;

const UPDATE: &str = r#"#!/bin/sh
input=$(cat)
echo "update $DAYRUN_ID" >> writes.txt
mode=$(head -n 1 modes.txt 2>/dev/null)
[ -s modes.txt ] && sed -i '1d' modes.txt
[ -f "site/$DAYRUN_ID.json" ] || { echo "no such post" >&2; exit 65; }
case "${mode:-ok}" in
  reject) echo "the site refuses the edit" >&2; exit 65 ;;
  lost) printf '%s' "$input" > "site/$DAYRUN_ID.json"; echo "connection dropped" >&2; exit 3 ;;
  early) echo "died before sending" >&2; exit 3 ;;
esac
printf '%s' "$input" > "site/$DAYRUN_ID.json"
"#;

/// With DAYRUN_ID (a read back): exit 0 when the copy holds exactly the payload on stdin.
const CONFIRM: &str = r#"#!/bin/sh
input=$(cat)
echo "confirm ${DAYRUN_ID:-}" >> writes.txt
if [ -n "$DAYRUN_ID" ]; then
  printf '%s' "$input" | cmp -s - "site/$DAYRUN_ID.json" && exit 0
  exit 1
fi
for f in site/*.json; do
  grep -q "\"key\":\"$DAYRUN_KEY\"" "$f" 2>/dev/null && { basename "$f" .json; exit 0; }
done
exit 1
"#;

enum Fake {
    Folder,
    Command,
    Http(PostsApi),
    Wp(FakeWordPress),
    Devto(FakeDevto),
    Masto(FakeMastodon),
}

/// A project publishing KEY to one target, and what that target holds.
struct Site {
    p: Project,
    name: &'static str,
    fake: Fake,
}

impl Site {
    fn new(name: &'static str, fake: Fake, table: String) -> Site {
        let p = Project::new();
        p.file("dayrun.toml", table);
        p.file(&format!("content/{KEY}.md"), FIRST);
        Site { p, name, fake }
    }

    fn folder() -> Site {
        let table = format!(
            "[targets.out]\nkind = \"folder\"\ndir = \"outbox\"\nconfirm_delay_secs = 0.01\n{QUICK}"
        );
        Site::new("out", Fake::Folder, table)
    }

    fn command() -> Site {
        let table = format!(
            "[targets.site]\nkind = \"command\"\nrun = [\"./scripts/publish.sh\"]\nupdate = [\"./scripts/update.sh\"]\nconfirm = [\"./scripts/confirm.sh\"]\ntimeout_secs = 2\nbackoff_secs = 0.01\nconfirm_polls = 1\nconfirm_delay_secs = 0.01\n{QUICK}"
        );
        let site = Site::new("site", Fake::Command, table);
        site.p
            .script("scripts/publish.sh", PUBLISH)
            .script("scripts/update.sh", UPDATE)
            .script("scripts/confirm.sh", CONFIRM);
        site
    }

    fn http() -> Site {
        Site::http_with("")
    }

    fn http_with(extra: &str) -> Site {
        let api = PostsApi::start();
        let table = api.config(
            "posts",
            &format!(
                "update_url = \"{}\"\n{QUICK}{extra}",
                api.server.url("/posts/{id}")
            ),
        );
        // An exact lookup: `?key=` answers this key's posts only.
        let table = table.replacen(
            &format!("list_url = \"{}\"", api.server.url("/posts")),
            &format!("list_url = \"{}\"", api.server.url("/posts?key={key}")),
            1,
        );
        Site::new("posts", Fake::Http(api), table)
    }

    fn wordpress() -> Site {
        let wp = FakeWordPress::start();
        let table = wp.config(QUICK);
        let site = Site::new("wp", Fake::Wp(wp), table);
        let password = format!("{}\n", fake_wordpress::PASSWORD);
        site.p.secret("secrets/wp.password", password);
        site
    }

    fn devto() -> Site {
        let api = FakeDevto::start();
        let table = api.config(QUICK);
        let site = Site::new("devto", Fake::Devto(api), table);
        site.p.secret("secrets/devto.key", fake_devto::KEY);
        site
    }

    fn mastodon(extra: &str) -> Site {
        let api = FakeMastodon::start(500);
        let table = api.config(&format!("{QUICK}{extra}"));
        let site = Site::new("masto", Fake::Masto(api), table);
        site.p.secret("secrets/masto.token", fake_mastodon::TOKEN);
        site
    }

    fn run(&self, args: &[&str]) -> Output {
        self.p.run(args)
    }

    fn edit(&self, text: &str) {
        self.p.file(&format!("content/{KEY}.md"), text);
    }

    /// The state line of KEY.
    fn line(&self) -> String {
        let lines = self.p.state_lines(self.name);
        let line = lines.iter().find(|l| l.starts_with(KEY));
        line.cloned().unwrap_or_default()
    }

    fn field(&self, name: &str) -> Option<String> {
        let prefix = format!("{name}=");
        let line = self.line();
        let value = line
            .split_whitespace()
            .find_map(|w| w.strip_prefix(&prefix));
        value.map(str::to_string)
    }

    fn id(&self) -> String {
        self.field("id")
            .unwrap_or_else(|| panic!("no id in {:?}", self.line()))
    }

    /// Everything the target saw: changes whenever anything is sent (or, for a folder, written).
    fn traffic(&self) -> String {
        match &self.fake {
            Fake::Folder => {
                use std::os::unix::fs::MetadataExt;
                let inode = |ext: &str| {
                    let path = self.p.path(&format!("outbox/{KEY}.{ext}"));
                    std::fs::metadata(path).map(|m| m.ino()).unwrap_or(0)
                };
                format!("{} {}", inode("html"), inode("json"))
            }
            Fake::Command => std::fs::read_to_string(self.p.path("writes.txt")).unwrap_or_default(),
            Fake::Http(api) => api.server.request_count().to_string(),
            Fake::Wp(wp) => wp.server.request_count().to_string(),
            Fake::Devto(api) => api.server.request_count().to_string(),
            Fake::Masto(api) => api.server.request_count().to_string(),
        }
    }

    /// Update requests that reached the target (a folder: None, it cannot count them).
    fn updates(&self) -> Option<usize> {
        Some(match &self.fake {
            Fake::Folder => return None,
            Fake::Command => self.p.read("writes.txt").matches("update ").count(),
            Fake::Http(api) => api.state.lock().unwrap().put_requests,
            Fake::Wp(wp) => wp.state.lock().unwrap().update_requests,
            Fake::Devto(api) => api.state.lock().unwrap().put_requests,
            Fake::Masto(api) => api.state.lock().unwrap().edit_requests,
        })
    }

    /// How many copies of posts the target holds.
    fn copies(&self) -> usize {
        let count = |dir: &str| std::fs::read_dir(self.p.path(dir)).map_or(0, |d| d.count());
        match &self.fake {
            Fake::Folder => count("outbox") / 2,
            Fake::Command => count("site"),
            Fake::Http(api) => api.committed().len(),
            Fake::Wp(wp) => wp.posts().len(),
            Fake::Devto(api) => api.articles().len(),
            Fake::Masto(api) => api.statuses().len(),
        }
    }

    /// What the copy with this id shows (its text, as JSON or HTML).
    fn shown(&self, id: &str) -> String {
        match &self.fake {
            Fake::Folder => self.p.read(&format!("outbox/{KEY}.html")),
            Fake::Command => self.p.read(&format!("site/{id}.json")),
            Fake::Http(api) => {
                let posts = api.committed();
                posts.iter().find(|p| p.id == id).unwrap().body.to_string()
            }
            Fake::Wp(wp) => {
                let posts = wp.posts();
                posts
                    .iter()
                    .find(|p| p["id"] == id.parse::<u64>().unwrap_or(0))
                    .unwrap()
                    .to_string()
            }
            Fake::Devto(api) => {
                let articles = api.articles();
                articles
                    .iter()
                    .find(|a| a["id"] == id.parse::<u64>().unwrap_or(0))
                    .unwrap()
                    .to_string()
            }
            Fake::Masto(api) => api.state.lock().unwrap().texts[id].clone(),
        }
    }

    /// The next update commits, then its answer is lost (the client times out).
    fn lose_next_update(&self, fault: Fault) {
        match &self.fake {
            Fake::Folder => panic!("a folder has no answer to lose"),
            Fake::Command => {
                let mode = match fault {
                    Fault::CommitHang => "lost\n",
                    Fault::Hang => "early\n",
                    _ => panic!("the update script knows no {fault:?}"),
                };
                self.p.file("modes.txt", mode);
            }
            Fake::Http(api) => api.state.lock().unwrap().put_faults.push_back(fault),
            Fake::Wp(wp) => wp.state.lock().unwrap().update_faults.push_back(fault),
            Fake::Devto(api) => api.state.lock().unwrap().put_faults.push_back(fault),
            Fake::Masto(api) => api.state.lock().unwrap().edit_faults.push_back(fault),
        }
    }

    /// The next update is refused (422 / exit 65), nothing changed.
    fn reject_next_update(&self) {
        match &self.fake {
            Fake::Command => {
                self.p.file("modes.txt", "reject\n");
            }
            _ => self.lose_next_update(Fault::Reject(422)),
        }
    }

    /// Let a second copy through the fake's duplicate rules (dev.to's five-minute title rule,
    /// Mastodon's hour-long Idempotency-Key).
    fn allow_second_copy(&self) {
        match &self.fake {
            Fake::Devto(api) => api.age(),
            Fake::Masto(api) => api.forget_idempotency_keys(),
            _ => {}
        }
    }

    /// Publish the first version; returns the copy's id.
    fn publish(&self) -> String {
        self.run(&["run", TODAY])
            .code(0)
            .stdout_has(&format!("{KEY} {} published", self.name));
        assert_eq!(self.copies(), 1);
        assert_eq!(self.field("updated"), None, "{}", self.line());
        self.id()
    }

    /// The state line is done, updated `n` times, and the copy `id` shows `text`.
    #[track_caller]
    fn holds(&self, id: &str, n: usize, text: &str) {
        let line = self.line();
        assert!(line.starts_with(&format!("{KEY} done ")), "{line}");
        assert_eq!(self.id(), id, "{line}");
        assert_eq!(self.field("updated"), Some(n.to_string()), "{line}");
        assert!(
            self.shown(id).contains(text),
            "{text:?} not in {}",
            self.shown(id)
        );
    }
}

mod late;
mod refused;
mod scenarios;

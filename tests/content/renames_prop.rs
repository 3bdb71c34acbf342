//! Issue 32: renames drawn at random, through the real binary on the folder target. A few posts
//! of two days, each a lineage of files: published, renamed (same text, with an edit, across
//! days, the slug kept or not), edited, deleted, beside new posts; when a run asks a person, the person answers as
//! the message says (`mv OLD NEW` for a rename, `retry NEW` for a new post). After every run:
//!
//! 1. never a second copy in silence: the folder holds at most one copy per lineage;
//! 2. every post whose file is there and that no run asked a person about is done, under its
//!    own key, and its copy (wherever its line says it is: `place=`) holds its latest text;
//! 3. the run exits 1 exactly when it asks a person, and its dry run and `status` said the same
//!    exit code just before it;
//! 4. a post renamed with its text as it was is carried over, never asked about.
//!
//! `DAYRUN_RENAME_CASES` (default 48) sizes it.

use crate::support::util::{Project, env_number};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

const DAYS: [&str; 2] = ["2026-12-01", "2026-12-02"];
const NOW: &str = "2026-12-02T12:00:00Z";

#[derive(Debug, Clone)]
enum Step {
    Run,
    /// Rename a post's file: to this day, with an edit or not, its slug kept or not.
    Rename {
        post: usize,
        day: usize,
        edit: bool,
        keep_slug: bool,
    },
    Edit(usize),
    Delete(usize),
    /// A new post on this day.
    New(usize),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        3 => Just(Step::Run),
        3 => (0..4usize, 0..2usize, any::<bool>(), any::<bool>())
            .prop_map(|(post, day, edit, keep_slug)| Step::Rename { post, day, edit, keep_slug }),
        1 => (0..4usize).prop_map(Step::Edit),
        1 => (0..4usize).prop_map(Step::Delete),
        1 => (0..2usize).prop_map(Step::New),
    ]
}

/// One post's files over time.
struct Lineage {
    /// Its file's key now (`None`: deleted).
    key: Option<String>,
    version: u32,
    /// The key whose line holds its copy, once it has one, and the version it holds.
    line: Option<(String, u32)>,
}

struct Blog {
    p: Project,
    posts: Vec<Lineage>,
    names: u32,
}

impl Blog {
    fn new() -> Blog {
        let p = Project::new();
        p.file(
            "dayrun.toml",
            "timezone = \"UTC\"\nkeys = [\"date\", \"slug\"]\n[targets.out]\nkind = \"folder\"\ndir = \"out\"\n",
        );
        let mut blog = Blog {
            p,
            posts: Vec::new(),
            names: 0,
        };
        blog.add(0);
        blog.add(1);
        blog
    }

    fn name(&mut self, n: usize, day: usize) -> String {
        self.names += 1;
        format!("{}-post{n}-name{}", DAYS[day], self.names)
    }

    fn text(n: usize, version: u32) -> String {
        format!("# Post {n}\n\nVersion {version} of post {n}.\n")
    }

    fn write(&self, n: usize) {
        let post = &self.posts[n];
        if let Some(key) = &post.key {
            self.p
                .file(&format!("content/{key}.md"), Self::text(n, post.version));
        }
    }

    fn add(&mut self, day: usize) {
        let n = self.posts.len();
        let key = self.name(n, day);
        self.posts.push(Lineage {
            key: Some(key),
            version: 0,
            line: None,
        });
        self.write(n);
    }

    fn remove_file(&self, n: usize) {
        if let Some(key) = &self.posts[n].key {
            std::fs::remove_file(self.p.path(&format!("content/{key}.md"))).unwrap();
        }
    }

    fn play(&mut self, step: &Step) -> Result<(), TestCaseError> {
        match *step {
            Step::Run => return self.run(),
            Step::Rename {
                post,
                day,
                edit,
                keep_slug,
            } if post < self.posts.len() && self.posts[post].key.is_some() => {
                self.remove_file(post);
                let old = self.posts[post].key.clone().expect("a file");
                let key = match keep_slug {
                    true => format!("{}{}", DAYS[day], &old[10..]),
                    false => self.name(post, day),
                };
                self.posts[post].key = Some(key);
                self.posts[post].version += u32::from(edit);
                self.write(post);
            }
            Step::Edit(post) if post < self.posts.len() => {
                self.posts[post].version += 1;
                self.write(post);
            }
            Step::Delete(post) if post < self.posts.len() => {
                self.remove_file(post);
                self.posts[post].key = None;
            }
            Step::New(day) if self.posts.len() < 6 => self.add(day),
            _ => {}
        }
        Ok(())
    }

    /// A run, its dry run and status before it, the person's answers, and the invariants.
    fn run(&mut self) -> Result<(), TestCaseError> {
        let dry = self.p.run_at(NOW, &["run", "--dry-run"]).code;
        let status = self.p.run_at(NOW, &["status"]).code;
        let out = self.p.run_at(NOW, &["run"]);
        let asked: Vec<usize> = (0..self.posts.len())
            .filter(|&n| {
                let key = self.posts[n].key.as_deref().unwrap_or("-");
                out.stdout
                    .contains(&format!("{key} out failed (rejected): not sent:"))
            })
            .collect();
        let want = if asked.is_empty() { 0 } else { 1 };
        prop_assert_eq!(out.code, want, "run\n{}{}", out.stdout, out.stderr);
        prop_assert_eq!(
            (dry, status),
            (want, want),
            "dry run and status said otherwise\n{}",
            out.stdout
        );
        for &n in &asked {
            let post = &self.posts[n];
            let same_text = post.line.as_ref().is_some_and(|(_, v)| *v == post.version);
            prop_assert!(
                !same_text,
                "post {n} was renamed with its text as it is: carried, not asked\n{}",
                out.stdout
            );
        }
        self.check(&asked)?;
        for n in asked {
            self.answer(n)?;
        }
        Ok(())
    }

    /// Invariants 1 and 2 (`asked`: the posts the run asked a person about).
    fn check(&mut self, asked: &[usize]) -> Result<(), TestCaseError> {
        let copies: Vec<String> = std::fs::read_dir(self.p.path("out")).map_or(Vec::new(), |d| {
            (d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned()))
                .filter(|name| name.ends_with(".html"))
                .collect()
        });
        let allowed = self.posts.len();
        prop_assert!(copies.len() <= allowed, "{copies:?}: more than {allowed}");
        let state = std::fs::read_to_string(self.p.path("state/out.state")).unwrap_or_default();
        for (n, post) in self.posts.iter_mut().enumerate() {
            let Some(key) = post.key.clone().filter(|_| !asked.contains(&n)) else {
                continue;
            };
            let line = state.lines().find(|l| l.starts_with(&format!("{key} ")));
            let line =
                line.ok_or_else(|| TestCaseError::fail(format!("{key}: no line\n{state}")))?;
            prop_assert!(line.starts_with(&format!("{key} done ")), "{line}");
            let place = line
                .split_whitespace()
                .find_map(|f| f.strip_prefix("place="))
                .unwrap_or(&key);
            let copy = self.p.read(&format!("out/{place}.html"));
            let latest = format!("Version {} of post {n}.", post.version);
            prop_assert!(copy.contains(&latest), "{key} at {place}: {copy}");
            post.line = Some((key, post.version));
        }
        Ok(())
    }

    /// The person's answer to a run that asked about post `n`: `mv` from the key whose line
    /// holds its copy when it has one, else `retry` (a new post).
    fn answer(&mut self, n: usize) -> Result<(), TestCaseError> {
        let key = self.posts[n]
            .key
            .clone()
            .expect("asked about a post that is there");
        let out = match self.posts[n].line.clone() {
            Some((old, version)) => {
                self.posts[n].line = Some((key.clone(), version));
                self.p.run_at(NOW, &["mv", &old, &key])
            }
            None => {
                self.posts[n].line = Some((key.clone(), self.posts[n].version));
                self.p.run_at(NOW, &["retry", &key])
            }
        };
        prop_assert_eq!(
            out.code,
            0,
            "answer for {}\n{}{}",
            key,
            out.stdout,
            out.stderr
        );
        Ok(())
    }
}

#[test]
fn renames_drawn_at_random_are_never_a_second_copy() {
    let cases = env_number("DAYRUN_RENAME_CASES", 48) as u32;
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    let story = proptest::collection::vec(step(), 1..14);
    let result = runner.run(&story, |steps| {
        let mut blog = Blog::new();
        for step in steps.iter().chain([&Step::Run]) {
            blog.play(step)?;
        }
        Ok(())
    });
    if let Err(err) = result {
        panic!("{err}");
    }
}

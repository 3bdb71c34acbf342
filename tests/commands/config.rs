//! What dayrun says about its config: target tables named by file and line with the keys they
//! take, a `--config` file elsewhere read relative to its own folder, and defaults announced.

use crate::support::util::Project;

const EVERY: &str = "every target takes retries, backoff_secs, retry_after_cap_secs, confirm_polls, confirm_delay_secs, min_interval_secs, dedup, settle_secs, on_edit, edit_days, escalate_after";

#[test]
fn target_table_errors_name_file_line_and_the_keys_it_takes() {
    let p = Project::new();
    // (dayrun.toml, what `check` must print on stderr)
    let cases: [(&str, &[&str]); 11] = [
        (
            "# blog\n[targets.outbox]\nkind = \"folder\"\ndir = \"out\"\nretires = 3\n",
            &[
                "dayrun: dayrun.toml:5: [targets.outbox]: unknown field `retires` (did you mean `retries`?)\n",
                &format!("\n  a folder target takes dir, url; {EVERY}\n"),
            ],
        ),
        (
            "[targets.site]\nkind = \"command\"\nrun = [\"./p.sh\"]\nspeed = 3\n",
            &[
                "dayrun.toml:4: [targets.site]: unknown field `speed`\n",
                &format!(
                    "\n  a command target takes run, confirm, retract, update, timeout_secs, image_base_url, env, template, template_file; {EVERY}\n"
                ),
            ],
        ),
        (
            // The keys the shared code reads (timeouts, how a long post is cut) are listed
            // with the kind's own, and only for the kinds that take them.
            "[targets.m]\nkind = \"mastodon\"\ninstance = \"https://m.example\"\ntoken_file = \"t\"\nvisibilty = \"public\"\n",
            &[
                "dayrun.toml:5: [targets.m]: unknown field `visibilty` (did you mean `visibility`?)\n",
                &format!(
                    "\n  a mastodon target takes instance, token_file, visibility, link, template, template_file, timeout_secs, connect_timeout_secs, long, numbering, max_parts; {EVERY}\n"
                ),
            ],
        ),
        (
            "[targets.outbox]\nkind = \"folder\"\ndir = \"out\"\nnumbering = false\n",
            &["dayrun.toml:4: [targets.outbox]: unknown field `numbering`\n"],
        ),
        (
            "[targets.m]\nkind = \"mastodon\"\ninstance = \"https://m.example\"\ntoken_file = \"t\"\nlong = \"thread\"\nnumbering = \"yes\"\n",
            &["dayrun.toml:6: [targets.m]: `numbering` must be true or false\n"],
        ),
        (
            "[targets]\nsite.kind = \"folder\"\nsite.dirr = \"out\"\n",
            &["dayrun.toml:3: [targets.site]: unknown field `dirr` (did you mean `dir`?)"],
        ),
        (
            "[targets.outbox]\nknd = \"folder\"\ndir = \"out\"\n",
            &[
                "dayrun: dayrun.toml:2: [targets.outbox]: missing `kind` (found `knd`: a typo?)\n",
                "\n  `kind` is one of: folder, http, command, wordpress, devto, mastodon, bluesky, ghost, nostr, matrix, linkedin, threads\n",
            ],
        ),
        (
            "\n[targets.outbox]\ntype = \"folder\"\n",
            &["dayrun.toml:3: [targets.outbox]: missing `kind` (found `type`: a typo?)"],
        ),
        (
            "\n[targets.outbox]\ndir = \"out\"\n",
            &["dayrun.toml:2: [targets.outbox]: missing `kind`\n"],
        ),
        (
            "[targets.site]\nkind = \"folder\"\ndir = \"site\"\n\nretries = 30\n",
            &["dayrun.toml:5: [targets.site]: `retries` must be a whole number from 0 to 10"],
        ),
        (
            "[targets.site]\nkind = \"folder\"\n",
            &["dayrun.toml:1: [targets.site]: missing field `dir`"],
        ),
    ];
    for (toml, want) in cases {
        p.file("dayrun.toml", toml);
        let out = p.run(&["check"]);
        out.code(2);
        for text in want {
            out.stderr_has(text);
        }
    }
}

#[test]
fn a_config_elsewhere_reads_paths_from_its_own_folder() {
    let p = Project::new();
    p.file("posts/2026-11-29.md", "# Today\n");
    p.file(
        "conf/blog.toml",
        "content = \"../posts\"\nstate = \"run-state\"\n",
    );
    p.run(&["--config", "conf/blog.toml", "run", "--today=2026-11-29"])
        .code(0)
        .stdout_has("2026-11-29 outbox published");
    let state = p.read("conf/run-state/outbox.state");
    assert!(
        state.contains("\n2026-11-29 done ") || state.starts_with("2026-11-29 done "),
        "{state}"
    );
    assert!(!p.exists("state"), "state went to the project folder");
    // Errors name the file that was read.
    p.file("conf/blog.toml", "content = \"../posts\"\ncolour = 1\n");
    p.run(&["--config", "conf/blog.toml", "check"])
        .code(2)
        .stderr_has("dayrun: conf/blog.toml:2: unknown field `colour`");
    p.file(
        "conf/blog.toml",
        "[targets.site]\nkind = \"folder\"\ndir = \"site\"\nretires = 1\n",
    );
    p.run(&["--config", "conf/blog.toml", "check"])
        .code(2)
        .stderr_has("dayrun: conf/blog.toml:4: [targets.site]: unknown field `retires`");
}

#[test]
fn a_folder_without_config_says_defaults_apply_where_a_person_looks() {
    let p = Project::new();
    p.post("2026-11-29", "Today");
    let note = format!(
        "dayrun: note: no dayrun.toml in {}: using the defaults (content/, state/, one folder target `outbox`)\n",
        p.root.display()
    );
    // (command, whether the note is printed)
    let cases: [(&[&str], bool); 5] = [
        (&["check"], true),
        (&["status", "--today=2026-11-29"], true),
        (&["run", "--dry-run", "--today=2026-11-29"], true),
        (&["run", "--today=2026-11-29"], false),
        (&["mark", "2026-11-29", "done", "--id", "x"], false),
    ];
    for (args, shown) in cases {
        let out = p.run(args);
        out.code(0);
        assert_eq!(
            out.stderr.matches(&note).count(),
            usize::from(shown),
            "{args:?}: {}",
            out.stderr
        );
        assert!(!out.stdout.contains("no dayrun.toml"), "{args:?}");
    }
    p.file("dayrun.toml", "catchup_days = 3\n");
    let out = p.run(&["check"]);
    out.code(0);
    assert!(!out.stderr.contains("no dayrun.toml"), "{}", out.stderr);
}

#[test]
fn an_unknown_kind_is_told_every_known_kind_and_a_guess() {
    let p = Project::new();
    p.file("dayrun.toml", "[targets.social]\nkind = \"blusky\"\n");
    p.run(&["check"])
        .code(2)
        .stderr_has("dayrun.toml:2: [targets.social]: unknown kind `blusky` (did you mean `bluesky`?); known: folder, http, command, wordpress, devto, mastodon, bluesky");
}

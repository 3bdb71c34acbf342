//! Templates as the config compiles them for each kind of target: what renders, what is
//! refused, and where.

use crate::error::{Class, Error};
use crate::post::{CopyRef, sample};
use config::TargetConfig;
use content::template::*;
use std::path::Path;

/// Targets of these kinds and templates (`None`: no template), from one config at line 1+.
fn targets(list: &[(&str, &str, Option<&str>)]) -> Result<Vec<TargetConfig>, Error> {
    let mut out = Vec::new();
    for (i, (name, kind, template)) in list.iter().enumerate() {
        let mut settings = toml::Table::new();
        if let Some(text) = template {
            settings.insert("template".into(), toml::Value::String(text.to_string()));
        }
        if *kind == "bluesky" {
            settings.insert("link".into(), "https://x.test/{key}".into());
        }
        out.push(TargetConfig {
            name: name.to_string(),
            kind: kind.to_string(),
            policy: Default::default(),
            settings,
            source: "dayrun.toml".into(),
            line: Some(10 * i + 1),
            key_lines: [("template".to_string(), 10 * i + 3)].into(),
            template: None,
        });
    }
    let names: Vec<String> = out.iter().map(|t| t.name.clone()).collect();
    let config = Path::new("dayrun.toml");
    let kinds = crate::kinds::known();
    match config::templates::attach(
        &mut out,
        Path::new("/p"),
        Path::new("/p"),
        config,
        &names,
        &kinds,
    )
    .into_iter()
    .next()
    {
        Some(err) => Err(err),
        None => Ok(out),
    }
}

fn one(kind: &str, template: &str) -> Result<Template, Error> {
    let mut list = targets(&[("site", "folder", None), ("t", kind, Some(template))])?;
    let t = list.iter().position(|c| c.name == "t").unwrap();
    Ok(list.remove(t).template.unwrap())
}

fn post() -> crate::post::Post {
    let mut post = sample("Grüße", "A short summary of it.", &["rust", "web-dev"]);
    post.markdown = "Body **text**.".into();
    post
}

#[test]
fn every_variable_renders_and_nothing_is_escaped() {
    let t = one(
        "http",
        "{{ title }}|{{ summary }}|{{ body }}|{{ tags|join(',') }}|{{ hashtags|join(' ') }}|{{ key }}|{{ date }}",
    )
    .unwrap();
    let text = t.render(&Vars::new(&post(), None)).unwrap();
    assert_eq!(
        text,
        "Grüße|A short summary of it.|Body **text**.|rust,web-dev|#rust #webdev|2026-11-29|2026-11-29"
    );
    let mut hostile = post();
    hostile.title = "<b>{{ body }}</b> & {% raw %}".into();
    let text = t.render(&Vars::new(&hostile, None)).unwrap();
    assert!(text.starts_with("<b>{{ body }}</b> & {% raw %}|"), "{text}");
}

#[test]
fn copies_and_link_render_when_there() {
    let t = one(
        "bluesky",
        "{{ title }} {{ copies.site.url }} ({{ copies.site.id }}) {{ link }}",
    )
    .unwrap();
    let mut p = post();
    p.copies.insert(
        "site".into(),
        CopyRef {
            id: "outbox/2026-11-29.html".into(),
            url: Some("https://blog.test/2026-11-29.html".into()),
        },
    );
    let text = t.render(&Vars::new(&p, Some("https://x.test/k"))).unwrap();
    assert_eq!(
        text,
        "Grüße https://blog.test/2026-11-29.html (outbox/2026-11-29.html) https://x.test/k"
    );
    let need = Need {
        url: true,
        id: true,
    };
    assert_eq!(t.uses().copies.get("site"), Some(&need));
    // Never rendered with the copy missing.
    let err = t.render(&Vars::new(&post(), Some("x"))).unwrap_err();
    assert_eq!(err.class(), Some(Class::Local));
    assert!(
        err.message
            .contains("links to site's copy of 2026-11-29, which is not there"),
        "{}",
        err.message
    );
}

#[test]
fn an_unknown_variable_is_a_config_error_naming_template_line_and_column() {
    let err = one("http", "{{ title }}\n  {{ titel }}").unwrap_err();
    assert_eq!(err.kind, crate::error::Kind::Config);
    assert_eq!(
        err.located(),
        "dayrun.toml:13: [targets.t] template, line 2, column 6: unknown variable `titel` (did you mean `title`?); a template knows title, summary, body, body_text, tags, hashtags, key, date, link (with a `link` setting), copies.NAME.url and copies.NAME.id"
    );
    // Inside a branch never taken, too: the check is on the text, not on one render.
    let err = one("http", "{% if false %}{{ nope }}{% endif %}").unwrap_err();
    assert!(
        err.message
            .contains("line 1, column 18: unknown variable `nope`"),
        "{}",
        err.message
    );
    // `link` only where the target has a `link` setting.
    let err = one("http", "{{ link }}").unwrap_err();
    assert!(
        err.message.contains("`link` is not set here"),
        "{}",
        err.message
    );
    // Copies: a configured target, not itself, `.url` or `.id`.
    for (text, want) in [
        ("{{ copies.nope.url }}", "no target is named `nope`"),
        ("{{ copies.t.url }}", "cannot use its own target's copy"),
        ("{{ copies.site.link }}", "a copy has a `url` and an `id`"),
        ("{{ copies.site }}", "name one copy and its field"),
        (
            "{% for c in copies %}{% endfor %}",
            "name one copy and its field",
        ),
    ] {
        let err = one("http", text).unwrap_err();
        assert!(err.message.contains(want), "{text}: {}", err.message);
    }
}

#[test]
fn a_syntax_error_names_line_and_column() {
    let err = one("http", "ok\n{{ title }\n").unwrap_err();
    assert_eq!(err.kind, crate::error::Kind::Config);
    assert!(
        err.message
            .starts_with("[targets.t] template, line 2, column 10: syntax error"),
        "{}",
        err.message
    );
}

#[test]
fn a_render_error_is_local_to_the_post_and_bounded() {
    let t = one("http", "{{ title }}\n{{ tags[5] }}").unwrap();
    let err = t.render(&Vars::new(&post(), None)).unwrap_err();
    assert_eq!(err.class(), Some(Class::Local));
    assert!(
        err.message.starts_with("[targets.t] template, line 2"),
        "{}",
        err.message
    );
    // A loop over a hostile body runs out of fuel; a long text stops at `MAX_OUTPUT`.
    let t = one(
        "http",
        "{% for c in body %}{% for d in body %}{% endfor %}{% endfor %}",
    )
    .unwrap();
    let mut big = post();
    big.markdown = "x".repeat(10_000);
    let err = t.render(&Vars::new(&big, None)).unwrap_err();
    assert!(err.message.contains("fuel"), "{}", err.message);
    let t = one("http", "{% for i in range(10) %}{{ body }}{% endfor %}").unwrap();
    big.markdown = "x".repeat(MAX_OUTPUT / 8);
    let err = t.render(&Vars::new(&big, None)).unwrap_err();
    assert!(err.message.contains("longer than 8 MiB"), "{}", err.message);
}

#[test]
fn a_folder_takes_no_template() {
    let err = targets(&[("site", "folder", Some("{{ title }}"))]).unwrap_err();
    assert!(
        err.message.contains("a folder target takes no template"),
        "{}",
        err.message
    );
}

#[test]
fn targets_are_ordered_after_the_copies_they_use_and_a_cycle_is_named() {
    let list = targets(&[
        (
            "a-sky",
            "bluesky",
            Some("{{ copies.m.url }} {{ copies.z_site.url }}"),
        ),
        ("m", "mastodon", Some("{{ copies.z_site.url }}")),
        ("plain", "http", None),
        ("z-site", "http", None),
    ])
    .unwrap();
    let names: Vec<&str> = list.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["plain", "z-site", "m", "a-sky"]);
    let err = targets(&[
        ("a", "http", Some("{{ copies.b.id }}")),
        ("b", "http", Some("{{ copies.c.id }}")),
        ("c", "http", Some("{{ copies.b.id }}")),
    ])
    .unwrap_err();
    assert_eq!(
        err.located(),
        "dayrun.toml:13: the templates make a cycle: b → c → b (each links to the next one's copy, so none could go first)"
    );
}

#[test]
fn fitting_shrinks_body_then_summary_then_tags_never_the_rest() {
    let t = one(
        "http",
        "{{ title }}\n\n{{ summary }}\n\n{{ body }}\n\n{{ hashtags|join(' ') }}\n{{ copies.site.url }}",
    )
    .unwrap();
    let mut p = post();
    p.copies.insert(
        "site".into(),
        CopyRef {
            id: "1".into(),
            url: Some("https://blog.test/1".into()),
        },
    );
    p.markdown = "word ".repeat(100);
    let short = |n: usize| move |text: &str| text.chars().count() <= n;
    let fits = |n: usize| match t.fit(Vars::new(&p, None), &short(n)).unwrap() {
        Fitted::Fits(text) => text,
        Fitted::Over(text) => panic!("over {n}: {text}"),
    };
    // The body is cut at a word first.
    let text = fits(150);
    assert!(
        text.contains("A short summary of it.\n\nword word"),
        "{text}"
    );
    assert!(
        text.contains("…\n\n#rust #webdev\nhttps://blog.test/1"),
        "{text}"
    );
    // Then the body goes (its blank lines are the template's) and the summary is cut.
    let text = fits(60);
    assert_eq!(
        text,
        "Grüße\n\nA short summary…\n\n\n\n#rust #webdev\nhttps://blog.test/1"
    );
    // Then the tags, from the end.
    let text = fits(36);
    assert_eq!(text, "Grüße\n\n\n\n\n\n#rust\nhttps://blog.test/1");
    // The title and the copy's URL never shrink.
    match t.fit(Vars::new(&p, None), &short(20)).unwrap() {
        Fitted::Over(text) => assert_eq!(text, "Grüße\n\n\n\n\n\n\nhttps://blog.test/1"),
        fitted => panic!("{fitted:?}"),
    }
}

#[test]
fn body_text_is_the_body_without_markup_and_shrinks_like_the_body() {
    let t = one("bluesky", "{{ title }}: {{ body_text }}").unwrap();
    let mut p = post();
    p.markdown = "Some **bold** [words](https://x.test/w).\n\n![a cat](cat.jpg)\n\n".into();
    let text = t.render(&Vars::new(&p, None)).unwrap();
    assert_eq!(text, "Grüße: Some bold words (https://x.test/w).");
    p.markdown = "*word* ".repeat(100);
    let short = |text: &str| text.chars().count() <= 40;
    match t.fit(Vars::new(&p, None), &short).unwrap() {
        Fitted::Fits(text) => assert_eq!(text, "Grüße: word word word word word word…"),
        fitted => panic!("{fitted:?}"),
    }
}

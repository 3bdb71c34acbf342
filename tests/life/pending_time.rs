//! A run killed during a create that came after a post's uploads: the next run waits for the
//! create's deadline, counted from the last upload, before it may prove the post absent.
//! (Found by a review of issue 23: the survey and every live lookup rely on that deadline.)

use crate::fakes::fake_wordpress::{FakeWordPress, PASSWORD};
use crate::support::util::Project;
use std::time::{Duration, Instant};

/// A run dies (SIGKILL: power loss, OOM, a unit's stop timeout) while its create is in flight,
/// after the post's image uploads. An attempt's deadline counts from its pending line's time,
/// and each upload moves that time on (`Event::Uploaded`): the create starts after the last
/// upload, so the next run cannot find the deadline passed while the dead run's create may
/// still commit. (Before, the line kept the attempt's start, seconds of uploads earlier: the
/// next run proved the post absent, sent it again, and the dead run's create landed too.)
///
/// The times, so that no step depends on how loaded the machine is: the timeout is 5 s and the
/// settle time 1 s, so a create may land up to 6 s after it left (7 s after the line's time,
/// with whole-second stamps). Each of the ten uploads takes 0.8 s (a slow uplink in the fake,
/// far inside the timeout), so the uploads take 8 s, more than those 7; the create commits 2 s
/// after it arrived, well inside its 6. With the old line time (the attempt's start), the next
/// run's deadline had passed before the create was even sent: it proved the post absent and sent
/// it again. (An earlier version had a 1 s timeout, a 0.5 s uplink and a 1.8 s commit: on a
/// loaded machine an upload could miss the timeout, or the create could leave late enough
/// after its line to land after the deadline. The code keeps its promise; those margins were
/// the test's.)
#[test]
fn a_pending_lines_time_is_before_its_uploads_so_its_deadline_comes_too_early() {
    use crate::fakes::fake_posts::Fault;
    use crate::targets::images_targets::{KEY, TODAY};
    let wp = FakeWordPress::start();
    let p = Project::new();
    let config = wp
        .config("settle_secs = 1\n")
        .replace("timeout_secs = 0.3", "timeout_secs = 5")
        .replace("confirm_polls = 2", "confirm_polls = 1");
    p.file("dayrun.toml", config);
    p.secret("secrets/wp.password", format!("{PASSWORD}\n"));
    let mut text = String::from("# Ten pictures\n\nA day in pictures.\n\n");
    for i in 0..10u8 {
        p.file(
            &format!("content/images/p{i}.jpg"),
            crate::support::image_gen::plain_jpeg(40, 30, [20 * i, 30, 220 - 20 * i]),
        );
        text.push_str(&format!("![Picture {i}](images/p{i}.jpg)\n\n"));
    }
    p.file(&format!("content/{KEY}.md"), text);
    {
        let mut s = wp.state.lock().unwrap();
        s.media_delay = Duration::from_millis(800);
        s.faults
            .push_back(Fault::LateCommit(Duration::from_millis(2000)));
    }
    let mut child = p.command(&["run", TODAY]).spawn().unwrap();
    let start = Instant::now();
    while wp.state.lock().unwrap().post_requests == 0 {
        assert!(start.elapsed() < Duration::from_secs(120), "no create");
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap(); // the run dies with its create in flight
    child.wait().unwrap();
    let uploads_took = start.elapsed();
    assert!(
        uploads_took > Duration::from_secs(7),
        "the uploads took {uploads_took:?}"
    );
    // The next run, at once: the create may still land, so it must not be sent again.
    p.run(&["run", TODAY]);
    std::thread::sleep(Duration::from_millis(2500)); // the dead run's create has landed
    let posts: Vec<String> = wp
        .posts()
        .iter()
        .filter(|p| p["slug"].as_str().unwrap().starts_with(KEY))
        .map(|p| format!("{} {}", p["id"], p["slug"]))
        .collect();
    assert_eq!(posts.len(), 1, "two copies of {KEY}: {posts:#?}");
}

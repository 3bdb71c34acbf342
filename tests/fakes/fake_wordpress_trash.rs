//! The fake WordPress's `DELETE /wp/v2/posts/{id}` as `WP_REST_Posts_Controller::delete_item`
//! without `force`: the post goes to the trash (slug renamed `<slug>__trashed`, facts-wordpress.md)
//! and the answer is 200 with it; 410 `rest_already_trashed` the second time, 404 for an unknown
//! id. With `force=true` the post is deleted for good: 200 `{"deleted": true, "previous": …}`,
//! and 404 `rest_post_invalid_id` afterwards (a trashed post too). (Reading one post back, `GET /wp/v2/posts/{id}?context=edit`, is in fake_wordpress.rs.)

use crate::fakes::fake_posts::Fault;
use crate::fakes::fake_server::Reply;
use crate::fakes::fake_wordpress::Wp;
use serde_json::json;
use std::collections::VecDeque;
use std::time::Duration;

#[derive(Default)]
pub struct Trash {
    /// DELETE requests that reached the handler.
    pub requests: usize,
    /// What the next DELETEs meet: `CommitHang` (trashed, then no answer), `Reject(status)`.
    pub faults: VecDeque<Fault>,
}

fn wp_error(status: u16, code: &str, message: &str) -> Reply {
    Reply::json(
        status,
        json!({"code": code, "message": message, "data": {"status": status}}),
    )
}

pub fn delete(wp: &mut Wp, id: &str, logged_in: bool, force: bool) -> Reply {
    wp.trash.requests += 1;
    let cannot = "Sorry, you are not allowed to delete this post.";
    if !logged_in {
        return wp_error(401, "rest_cannot_delete", cannot);
    }
    let fault = wp.trash.faults.pop_front().unwrap_or(Fault::Normal);
    if let Fault::Reject(status) = fault {
        return wp_error(status, "rest_cannot_delete", cannot);
    }
    let id: u64 = id.parse().unwrap_or(0);
    let Some(post) = wp.posts.iter_mut().find(|p| p["id"] == id) else {
        return wp_error(404, "rest_post_invalid_id", "Invalid post ID.");
    };
    if force {
        let at = wp
            .posts
            .iter()
            .position(|p| p["id"] == id)
            .expect("found above");
        let previous = wp.posts.remove(at);
        return match fault {
            Fault::CommitHang => Reply::Hang(Duration::from_millis(600)),
            _ => Reply::json(200, json!({"deleted": true, "previous": previous})),
        };
    }
    if post["status"] == "trash" {
        let msg = "The post has already been deleted.";
        return wp_error(410, "rest_already_trashed", msg);
    }
    post["slug"] = json!(format!("{}__trashed", post["slug"].as_str().unwrap()));
    post["status"] = json!("trash");
    match fault {
        Fault::CommitHang => Reply::Hang(Duration::from_millis(600)),
        _ => Reply::json(200, post.clone()),
    }
}

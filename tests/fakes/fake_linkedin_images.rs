//! The fake LinkedIn's Images API and what a post may name of it: `POST
//! /rest/images?action=initializeUpload` registers an image for its `owner` and answers its URN
//! and an upload URL; a `PUT` of the bytes to that URL makes it `AVAILABLE`; `GET
//! /rest/images/{urn}` answers its status. A post names only `AVAILABLE` images, all owned by
//! its author, and a `multiImage` holds 2 to 20 of them (MultiImage API: "minimum of 2 images
//! and maximum of 20 images. Please ensure that all images being used are owned by the author
//! or organization").

use crate::fakes::fake_linkedin::Li;
use crate::fakes::fake_linkedin_rules::{decoded, error};
use crate::fakes::fake_posts::Fault;
use crate::fakes::fake_server::{Reply, Request};
use serde_json::{Value, json};
use std::time::Duration;

/// An image as the fake holds it.
#[derive(Clone, Debug)]
pub struct Image {
    /// `WAITING_UPLOAD`, then `AVAILABLE` once its bytes arrive.
    pub status: String,
    /// The `initializeUploadRequest.owner` it was registered for.
    pub owner: String,
    pub bytes: Vec<u8>,
}

/// Why a post's `content` cannot name its images; `None`: it can.
pub fn refused(s: &Li, author: &str, content: &Value) -> Option<Reply> {
    if let Some(many) = content["multiImage"]["images"].as_array()
        && !(2..=20).contains(&many.len())
    {
        return Some(error(
            422,
            &format!(
                "content.multiImage.images: {} image(s); a MultiImage post holds 2 to 20",
                many.len()
            ),
        ));
    }
    for urn in media_ids(content) {
        match s.images.get(&urn) {
            Some(image) if image.status != "AVAILABLE" => {
                return Some(error(
                    400,
                    &format!("content: image {urn} is not AVAILABLE"),
                ));
            }
            Some(image) if image.owner != author => {
                return Some(error(
                    400,
                    &format!("Content(s) you provided must be owned by post author: {urn}"),
                ));
            }
            Some(_) => {}
            None => return Some(error(400, &format!("content: image {urn} not found"))),
        }
    }
    None
}

/// The image URNs a post's content names.
fn media_ids(content: &Value) -> Vec<String> {
    let one = content["media"]["id"].as_str().map(str::to_string);
    let many = content["multiImage"]["images"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    one.into_iter()
        .chain(
            many.iter()
                .filter_map(|i| i["id"].as_str().map(str::to_string)),
        )
        .collect()
}

pub fn initialize(s: &mut Li, req: &Request) -> Reply {
    s.initializes += 1;
    let Some(owner) = req.json()["initializeUploadRequest"]["owner"]
        .as_str()
        .map(str::to_string)
    else {
        return error(422, "initializeUploadRequest.owner: required");
    };
    s.next += 1;
    let urn = format!("urn:li:image:D4E{:012}", s.next);
    let image = Image {
        status: "WAITING_UPLOAD".into(),
        owner,
        bytes: Vec::new(),
    };
    s.images.insert(urn.clone(), image);
    let host = req.header("Host").unwrap_or("127.0.0.1").to_string();
    let url = format!("http://{host}/upload/{}", urn.replace(':', "%3A"));
    Reply::json(
        200,
        json!({"value": {"uploadUrlExpiresAt": s.last_ms + 3_600_000, "uploadUrl": url, "image": urn}}),
    )
}

pub fn upload(s: &mut Li, req: &Request, n: &str) -> Reply {
    s.uploads += 1;
    if req.header("Authorization") != Some(&format!("Bearer {}", s.token)) {
        return error(401, "Invalid access token");
    }
    let urn = decoded(n);
    let fault = s.upload_faults.pop_front().unwrap_or(Fault::Normal);
    let Some(image) = s.images.get_mut(&urn) else {
        return error(404, "No such upload");
    };
    if let Fault::Hang = fault {
        return Reply::Hang(Duration::from_secs(2));
    }
    image.status = "AVAILABLE".into();
    image.bytes.clone_from(&req.body);
    match fault {
        Fault::CommitClose => Reply::Close,
        _ => Reply::Raw(201, Vec::new(), Vec::new()),
    }
}

pub fn image(s: &Li, urn: &str) -> Reply {
    match s.images.get(urn) {
        Some(image) => Reply::json(
            200,
            json!({"id": urn, "status": image.status, "owner": image.owner}),
        ),
        None => error(404, &format!("Image {urn} not found")),
    }
}

//! An XRPC client logged in with an app password: one `createSession` per run, one
//! `refreshSession` when the access token expires, and errors classed as the reference PDS
//! answers them.

use crate::error::{Class, Error};
use crate::net::{Http, Reply, encode, status_class};
use crate::secret::Secret;
use serde_json::{Value, json};
use std::time::Instant;

/// The tokens of a logged-in session, and whose repository it is.
struct Session {
    access: String,
    refresh: String,
    did: String,
    handle: String,
}

pub struct Client {
    service: String,
    identifier: String,
    password: Secret,
    http: Http,
    session: Option<Session>,
    /// A login that failed is not tried again in this run (logins are rate limited), except
    /// after the wait a 429 asked for.
    login_failed: Option<(Error, Option<Instant>)>,
}

/// The `error` name of an XRPC error body (`{"error": "ExpiredToken", "message": …}`).
pub fn error_name(reply: &Reply) -> Option<String> {
    let doc: Value = serde_json::from_str(&reply.body).ok()?;
    doc["error"].as_str().map(str::to_string)
}

/// An access token the server would not take: refreshing may help, once.
fn token_refused(reply: &Reply) -> bool {
    reply.status == 400
        && matches!(
            error_name(reply).as_deref(),
            Some("ExpiredToken" | "InvalidToken")
        )
}

impl Client {
    pub fn new(service: &str, identifier: &str, password: Secret, http: Http) -> Client {
        Client {
            service: service.trim_end_matches('/').to_string(),
            identifier: identifier.to_string(),
            password,
            http,
            session: None,
            login_failed: None,
        }
    }

    pub fn http(&self) -> &Http {
        &self.http
    }

    pub fn password(&self) -> &Secret {
        &self.password
    }

    fn url(&self, nsid: &str) -> String {
        format!("{}/xrpc/{nsid}", self.service)
    }

    /// The logged-in account's DID (logs in first, once per run).
    pub fn did(&mut self) -> Result<String, Error> {
        self.login()?;
        Ok(self
            .session
            .as_ref()
            .map(|s| s.did.clone())
            .unwrap_or_default())
    }

    /// The account's handle as the server knows it (the configured identifier before login).
    pub fn handle(&self) -> &str {
        self.session
            .as_ref()
            .map_or(self.identifier.as_str(), |s| s.handle.as_str())
    }

    /// Take a session from a `createSession` or `refreshSession` answer; its tokens are
    /// secrets from now on.
    fn take(&mut self, reply: &Reply, what: &str) -> Result<(), Error> {
        let doc: Value = serde_json::from_str(&reply.body).unwrap_or(Value::Null);
        let field = |name: &str| doc[name].as_str().map(str::to_string);
        let (Some(access), Some(refresh), Some(did)) =
            (field("accessJwt"), field("refreshJwt"), field("did"))
        else {
            return Err(Error::failure(
                Class::RetrySafe,
                format!(
                    "{what}: HTTP {} without accessJwt, refreshJwt and did",
                    reply.status
                ),
            ));
        };
        for token in [&access, &refresh] {
            self.http.add_secret(token);
            // A server may echo the signature alone.
            if let Some(signature) = token.rsplit('.').next() {
                self.http.add_secret(signature);
            }
        }
        let handle = field("handle").unwrap_or_else(|| self.identifier.clone());
        self.session = Some(Session {
            access,
            refresh,
            did,
            handle,
        });
        Ok(())
    }

    /// `createSession` with the app password, at most once per run. Nothing of a post has
    /// been sent when it fails: such a failure is auth or retry-safe, never unknown.
    fn login(&mut self) -> Result<(), Error> {
        if self.session.is_some() {
            return Ok(());
        }
        if let Some((err, until)) = &self.login_failed
            && until.is_none_or(|until| Instant::now() < until)
        {
            return Err(err.clone());
        }
        let body = json!({
            "identifier": self.identifier,
            "password": self.password.expose(),
        });
        let url = self.url("com.atproto.server.createSession");
        let result = match self.http.post(&url, &[], &body) {
            Err(err) => Err(err.reclass(Class::RetrySafe)),
            Ok(reply) if status_class(reply.status).is_none() => self.take(&reply, "log in"),
            Ok(reply) => Err(self.failure("log in", &reply, true)),
        };
        if let Err(err) = &result {
            // Once per run: again only after the wait a 429 named.
            let until = err.retry_after.map(|wait| Instant::now() + wait);
            self.login_failed = Some((err.clone(), until));
        }
        result
    }

    /// `refreshSession` with the refresh token, after the server refused the access token.
    fn refresh(&mut self) -> Result<(), Error> {
        let Some(session) = &self.session else {
            return self.login();
        };
        let auth = vec![(
            "Authorization".to_string(),
            format!("Bearer {}", session.refresh),
        )];
        let url = self.url("com.atproto.server.refreshSession");
        match self.http.post_empty(&url, &auth) {
            Err(err) => Err(err.reclass(Class::RetrySafe)),
            Ok(reply) if status_class(reply.status).is_none() => self.take(&reply, "refresh"),
            Ok(reply) => {
                let err = self.failure("refresh the session", &reply, true);
                self.session = None;
                self.login_failed = Some((err.clone(), None));
                Err(err)
            }
        }
    }

    fn auth(&self) -> Vec<(String, String)> {
        let token = self.session.as_ref().map_or("", |s| s.access.as_str());
        vec![("Authorization".into(), format!("Bearer {token}"))]
    }

    /// A query (`com.atproto.repo.getRecord`) as the logged-in user.
    pub fn get(&mut self, nsid: &str, query: &[(&str, &str)]) -> Result<Reply, Error> {
        let query: Vec<String> = query
            .iter()
            .map(|(k, v)| format!("{k}={}", encode(v)))
            .collect();
        let url = format!("{}?{}", self.url(nsid), query.join("&"));
        self.call(|http, auth| http.get(&url, auth))
    }

    /// A procedure (`com.atproto.repo.createRecord`) as the logged-in user.
    pub fn post(&mut self, nsid: &str, body: &Value) -> Result<Reply, Error> {
        let url = self.url(nsid);
        self.call(|http, auth| http.post(&url, auth, body))
    }

    /// A procedure whose input is raw bytes (`com.atproto.repo.uploadBlob`).
    pub fn post_bytes(
        &mut self,
        nsid: &str,
        content_type: &str,
        bytes: &[u8],
    ) -> Result<Reply, Error> {
        let url = self.url(nsid);
        self.call(|http, auth| http.post_bytes(&url, auth, content_type, bytes))
    }

    /// Log in if needed, send, and if the access token is refused, refresh once and send again
    /// (safe: the token is checked before anything is written).
    fn call(
        &mut self,
        send: impl Fn(&Http, &[(String, String)]) -> Result<Reply, Error>,
    ) -> Result<Reply, Error> {
        self.login()?;
        let reply = send(&self.http, &self.auth())?;
        if !token_refused(&reply) {
            return Ok(reply);
        }
        self.refresh()?;
        send(&self.http, &self.auth())
    }

    /// The class and message of an XRPC error, as the reference PDS answers: 401 and refused
    /// tokens are auth (`login`: also a 400 from createSession), other 400s rejected, 429
    /// retry-safe (with its wait), 5xx unknown.
    pub fn failure(&self, what: &str, reply: &Reply, login: bool) -> Error {
        let err = self.http.failure(what, reply, Some(&self.password.file));
        let name = error_name(reply);
        let auth = reply.status == 401
            || reply.status == 403
            || token_refused(reply)
            || (login && reply.status == 400);
        let err = match status_class(reply.status) {
            _ if auth => err.reclass(Class::Auth),
            // A failed login or refresh sent nothing of the post.
            Some(Class::Unknown) if login => err.reclass(Class::RetrySafe),
            _ => err,
        };
        if err.class() != Some(Class::Auth) {
            return err;
        }
        let why = match name.as_deref() {
            Some("ExpiredToken" | "InvalidToken") => "the session was refused even after a refresh",
            _ => "the app password was refused",
        };
        err.hint(format!(
            "{why}: create an App Password (Bluesky: Settings → Privacy and security → App passwords), put it in {}, and check that handle = \"{}\" is the account's",
            self.password.file.display(),
            self.identifier
        ))
    }
}

//! The request a shard runs (one JSON object, docs/DISTRIBUTED.md): which
//! command, its arguments, the roots with their displays, and what the
//! client expects of the shard's trawl (its version, its extractors).

use serde::Deserialize;

use crate::bytes::Bytes;
use crate::key::RootKey;
use crate::PROTOCOL;

/// What a shard runs.
#[derive(Clone, Copy, Debug, Deserialize, Eq, PartialEq)]
#[serde(rename_all = "lowercase")]
pub enum Command {
    /// A search (`trawl [OPTIONS] PATTERN`).
    Grep,
    /// `trawl find`.
    Find,
    /// `trawl index`.
    Index,
}

/// One root a shard walks.
#[derive(Clone, Debug, Deserialize)]
pub struct Root {
    /// The place of the operand it belongs to on the client's command line.
    pub operand: u64,
    /// Its path on the shard's host.
    pub path: Bytes,
    /// How its names are printed (`WORKER:PATH`).
    pub display: Bytes,
    /// One entry of its operand's directory (a shared directory split
    /// among workers), searched as one trawl over the operand searches
    /// that entry: grep only.
    #[serde(default)]
    pub part: bool,
}

impl Root {
    /// Where its output goes in the merged output.
    pub fn key(&self) -> RootKey {
        RootKey::new(self.operand, &self.display.0)
    }
}

/// A shard's request.
#[derive(Clone, Debug, Deserialize)]
pub struct Request {
    /// The protocol's version ([`PROTOCOL`]).
    pub protocol: u32,
    /// The client's `trawl --version` number.
    pub trawl_version: String,
    /// The client's `trawl shard --identity`, or none not to check.
    #[serde(default)]
    pub extractors: Option<String>,
    /// The shard's name in messages.
    #[serde(default)]
    pub shard: String,
    /// What to run.
    pub command: Command,
    /// trawl's arguments without paths.
    #[serde(default)]
    pub args: Vec<Bytes>,
    /// What this shard walks, in the order given.
    #[serde(default)]
    pub roots: Vec<Root>,
    /// `LC_ALL` for the run.
    #[serde(default)]
    pub locale: Option<String>,
    /// How many operands the client's command line has: with more than
    /// one, file names are printed as one trawl prints them.
    #[serde(default = "one")]
    pub operands: u64,
}

fn one() -> u64 {
    1
}

impl Request {
    /// Reads a request.
    pub fn parse(json: &[u8]) -> Result<Request, String> {
        serde_json::from_slice(json).map_err(|e| format!("the request cannot be read: {e}"))
    }

    /// Why this shard, of trawl `version` whose extractors' identity
    /// `identity` gives, must not run the request (before any work).
    pub fn refusal(&self, version: &str, identity: impl FnOnce() -> String) -> Option<String> {
        if self.protocol != PROTOCOL {
            return Some(format!("protocol {} asked, this trawl speaks {PROTOCOL}", self.protocol));
        }
        if self.trawl_version != version {
            return Some(format!("trawl {} asked, this is trawl {version}", self.trawl_version));
        }
        if let Some(want) = &self.extractors {
            let have = identity();
            if *want != have {
                return Some(format!("extractors {want} asked, this shard's are {have}"));
            }
        }
        if self.command != Command::Grep && self.roots.iter().any(|r| r.part) {
            return Some("only a search takes part of an operand".to_string());
        }
        None
    }

    /// The roots in the order the merge writes them (each shard walks them
    /// in that order, so that every stream comes in that order).
    pub fn roots_in_order(&self) -> Vec<&Root> {
        let mut roots: Vec<&Root> = self.roots.iter().collect();
        roots.sort_by_cached_key(|r| r.key());
        roots
    }
}

/// The identity of a shard's extractors from their description (each
/// one's rule, program, arguments and executable's bytes): what
/// `trawl shard --identity` prints.
pub fn identity_of(description: &[u8]) -> String {
    blake3::hash(description).to_hex()[..32].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(extra: &str) -> Request {
        let json = format!(
            r#"{{"protocol": 1, "trawl_version": "0.1.0", "shard": "fs1:/a", "command": "grep",
                "args": ["-n", {{"bytes": "/w=="}}],
                "roots": [{{"operand": 1, "path": "/b", "display": "fs1:/b"}},
                          {{"operand": 0, "path": "/a/z", "display": "fs1:/a/z", "part": true}},
                          {{"operand": 0, "path": "/a/y", "display": "fs1:/a/y", "part": true}}]
                {extra}}}"#
        );
        Request::parse(json.as_bytes()).unwrap()
    }

    #[test]
    fn a_request_reads_with_its_defaults() {
        let r = request("");
        assert_eq!(r.command, Command::Grep);
        assert_eq!(r.args[1].0, b"\xff");
        assert_eq!(r.operands, 1);
        assert_eq!(r.extractors, None);
        let order: Vec<&[u8]> = r.roots_in_order().iter().map(|r| &r.path.0[..]).collect();
        assert_eq!(order, [&b"/a/y"[..], b"/a/z", b"/b"]);
    }

    #[test]
    fn another_version_or_other_extractors_are_refused() {
        let r = request(r#", "extractors": "abc""#);
        assert_eq!(r.refusal("0.1.0", || "abc".into()), None);
        let said = r.refusal("0.2.0", || "abc".into()).unwrap();
        assert_eq!(said, "trawl 0.1.0 asked, this is trawl 0.2.0");
        assert!(r.refusal("0.1.0", || "def".into()).unwrap().contains("extractors abc"));
        let mut find = request("");
        find.command = Command::Find;
        assert!(find.refusal("0.1.0", String::new).is_some());
        assert!(Request::parse(br#"{"protocol": 1}"#).is_err());
    }
}

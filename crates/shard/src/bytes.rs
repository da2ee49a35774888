//! Byte strings as the protocol carries them: ripgrep's `{"text": ...}`
//! when they are UTF-8, `{"bytes": BASE64}` otherwise, so that names and
//! lines that are not UTF-8 are kept exactly. A plain JSON string is read
//! as text too (a request written by hand).

use base64::Engine as _;
use serde::de::{Deserialize, Deserializer, Error as _};
use serde::ser::{Serialize, SerializeMap, Serializer};

/// Owned bytes, read from a record or a request.
#[derive(Clone, Debug, Default, Eq, PartialEq)]
pub struct Bytes(pub Vec<u8>);

/// Borrowed bytes, written into a record.
#[derive(Clone, Copy, Debug)]
pub struct BytesRef<'a>(pub &'a [u8]);

impl Serialize for BytesRef<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(1))?;
        match std::str::from_utf8(self.0) {
            Ok(text) => map.serialize_entry("text", text)?,
            Err(_) => {
                let b64 = base64::engine::general_purpose::STANDARD.encode(self.0);
                map.serialize_entry("bytes", &b64)?
            }
        }
        map.end()
    }
}

impl Serialize for Bytes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        BytesRef(&self.0).serialize(s)
    }
}

/// What a byte string may look like in JSON.
#[derive(serde::Deserialize)]
#[serde(untagged)]
enum Form {
    Plain(String),
    Text { text: String },
    Bytes { bytes: String },
}

impl<'de> Deserialize<'de> for Bytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Bytes, D::Error> {
        match Form::deserialize(d)? {
            Form::Plain(text) | Form::Text { text } => Ok(Bytes(text.into_bytes())),
            Form::Bytes { bytes } => base64::engine::general_purpose::STANDARD
                .decode(bytes)
                .map(Bytes)
                .map_err(|e| D::Error::custom(format!("bad base64: {e}"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_that_are_not_utf8_go_as_base64_and_come_back_exactly() {
        for b in [&b"plain \"quoted\"\n"[..], b"caf\xe9\x00\xff", b""] {
            let json = serde_json::to_string(&BytesRef(b)).unwrap();
            let back: Bytes = serde_json::from_str(&json).unwrap();
            assert_eq!(back.0, b, "{json}");
        }
        assert_eq!(serde_json::to_string(&BytesRef(b"a")).unwrap(), r#"{"text":"a"}"#);
        assert_eq!(serde_json::to_string(&BytesRef(b"\xff")).unwrap(), r#"{"bytes":"/w=="}"#);
    }

    #[test]
    fn a_plain_string_reads_as_text() {
        let b: Bytes = serde_json::from_str(r#""fs1:/srv/a""#).unwrap();
        assert_eq!(b.0, b"fs1:/srv/a");
        assert!(serde_json::from_str::<Bytes>(r#"{"bytes":"!!"}"#).is_err());
    }
}

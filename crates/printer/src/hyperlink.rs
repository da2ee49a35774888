//! `--hyperlink-format`: file names as OSC 8 hyperlinks (terminals open
//! them on a click), in ripgrep's formats and with its variables `{path}`
//! (absolute, percent-encoded), `{host}`, `{line}`, `{column}` and
//! `{wslprefix}`. Written only when coloring, as ripgrep does.

/// One piece of a format.
#[derive(Clone, Debug, Eq, PartialEq)]
enum Piece {
    Text(String),
    Path,
    Host,
    Line,
    Column,
    WslPrefix,
}

/// A parsed hyperlink format, with what its variables need.
#[derive(Clone, Debug)]
pub struct Hyperlinks {
    pieces: Vec<Piece>,
    /// The directory relative paths are below, with a final `/`.
    cwd: Vec<u8>,
    host: String,
}

/// ripgrep's named formats.
const ALIASES: [(&str, &str); 12] = [
    ("default", "file://{host}{path}"),
    ("file", "file://{host}{path}"),
    ("grep+", "grep+://{path}:{line}"),
    ("kitty", "file://{host}{path}#{line}"),
    ("macvim", "mvim://open?url=file://{path}&line={line}&column={column}"),
    ("none", ""),
    ("textmate", "txmt://open?url=file://{path}&line={line}&column={column}"),
    ("vscode", "vscode://file{path}:{line}:{column}"),
    ("vscode-insiders", "vscode-insiders://file{path}:{line}:{column}"),
    ("vscodium", "vscodium://file{path}:{line}:{column}"),
    ("cursor", "cursor://file{path}:{line}:{column}"),
    ("windsurf", "windsurf://file{path}:{line}:{column}"),
];

/// The names `--hyperlink-format` accepts besides a format of its own.
pub fn aliases() -> impl Iterator<Item = &'static str> {
    ALIASES.iter().map(|(name, _)| *name)
}

impl Hyperlinks {
    /// Reads a format or an alias; None for `none` (or an empty format).
    pub fn new(format: &str) -> Result<Option<Hyperlinks>, String> {
        let format = ALIASES.iter().find(|(n, _)| *n == format).map_or(format, |(_, f)| *f);
        if format.is_empty() {
            return Ok(None);
        }
        let mut pieces = Vec::new();
        let mut rest = format;
        while let Some(open) = rest.find('{') {
            if open > 0 {
                pieces.push(Piece::Text(rest[..open].to_string()));
            }
            let close = rest[open..]
                .find('}')
                .ok_or_else(|| format!("invalid hyperlink format '{format}': '{{' without '}}'"))?
                + open;
            pieces.push(match &rest[open + 1..close] {
                "path" => Piece::Path,
                "host" => Piece::Host,
                "line" => Piece::Line,
                "column" => Piece::Column,
                "wslprefix" => Piece::WslPrefix,
                other => {
                    return Err(format!(
                        "invalid hyperlink format '{format}': unknown variable {{{other}}} (path, host, line, column, wslprefix)"
                    ))
                }
            });
            rest = &rest[close + 1..];
        }
        if !rest.is_empty() {
            pieces.push(Piece::Text(rest.to_string()));
        }
        if !pieces.contains(&Piece::Path) {
            return Err(format!("invalid hyperlink format '{format}': {{path}} is required"));
        }
        let mut cwd = std::env::current_dir().map_err(|e| e.to_string())?;
        cwd.push("");
        let cwd = std::os::unix::ffi::OsStrExt::as_bytes(cwd.as_os_str()).to_vec();
        Ok(Some(Hyperlinks { pieces, cwd, host: host_name() }))
    }

    /// Whether the link names a line (then it covers the line number too).
    pub fn has_line(&self) -> bool {
        self.pieces.iter().any(|p| matches!(p, Piece::Line | Piece::Column))
    }

    /// Writes the start of the link to `path` (at `line`, `column`).
    pub(crate) fn open(&self, out: &mut Vec<u8>, path: &[u8], line: u64, column: u64) {
        out.extend_from_slice(b"\x1b]8;;");
        for piece in &self.pieces {
            match piece {
                Piece::Text(t) => out.extend_from_slice(t.as_bytes()),
                Piece::Path => {
                    let path = path.strip_prefix(b"./").unwrap_or(path);
                    if path.first() != Some(&b'/') {
                        encode(out, &self.cwd);
                    }
                    encode(out, path);
                }
                Piece::Host => out.extend_from_slice(self.host.as_bytes()),
                Piece::Line => out.extend_from_slice(line.to_string().as_bytes()),
                Piece::Column => out.extend_from_slice(column.to_string().as_bytes()),
                Piece::WslPrefix => {}
            }
        }
        out.extend_from_slice(b"\x1b\\");
    }

    /// Writes the end of a link.
    pub(crate) fn close(out: &mut Vec<u8>) {
        out.extend_from_slice(b"\x1b]8;;\x1b\\");
    }
}

/// Percent-encodes a path's bytes for a URL (`/` and unreserved ones kept).
fn encode(out: &mut Vec<u8>, path: &[u8]) {
    for &b in path {
        if b.is_ascii_alphanumeric() || b"/-._~:".contains(&b) {
            out.push(b);
        } else {
            out.extend_from_slice(format!("%{b:02X}").as_bytes());
        }
    }
}

fn host_name() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most buf.len() bytes into buf.
    let r = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) };
    if r != 0 {
        return String::new();
    }
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    String::from_utf8_lossy(&buf[..end]).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_need_a_path_and_know_their_variables() {
        assert!(Hyperlinks::new("none").unwrap().is_none());
        assert!(Hyperlinks::new("x{line}").is_err());
        assert!(Hyperlinks::new("x{path}{nope}").is_err());
        let h = Hyperlinks::new("vscode").unwrap().unwrap();
        assert!(h.has_line());
        let mut out = Vec::new();
        h.open(&mut out, b"/a b/c#d.txt", 3, 7);
        assert_eq!(out, b"\x1b]8;;vscode://file/a%20b/c%23d.txt:3:7\x1b\\");
    }
}

//! The programs that turn documents into text: the built-in ones (PDF,
//! PostScript, DVI, legacy Word and Excel files) and those the user configures
//! (see [`crate::configured`]).

use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::OnceLock;
use std::time::Duration;

use crate::Layout;

/// How a tool is given the document.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum Input {
    /// The document is the tool's standard input (an open file, so the tool
    /// may seek in it, also as `/dev/stdin`); no file name reaches it.
    Stdin,
    /// Its path replaces `{}` in the arguments; an archive member is first
    /// copied to a private temporary file (keeping its extension).
    Path,
}

/// Where a tool comes from, for the message when it is missing.
#[derive(Clone, Debug)]
pub enum Provenance {
    /// Built in, and needed: a missing one is reported once (its documents
    /// are then searched as bytes).
    Required {
        /// The package that ships it.
        package: &'static str,
    },
    /// Built in, used when present: without it, its documents are searched
    /// as bytes, quietly.
    Optional {
        /// The package that ships it.
        package: &'static str,
    },
    /// From the user's configuration file (reported when missing).
    Configured {
        /// The file it was configured in.
        file: PathBuf,
    },
}

/// What is done with a document whose tool fails.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub enum OnFailure {
    /// The failure is reported (the text made before it is searched).
    Report,
    /// The document's bytes are text (PostScript, a configured
    /// `text = true` format): they are searched as they are, as grep
    /// would, and the failure is counted, not reported. The tool's text is
    /// held until it ends, so nothing of it is printed if it fails.
    SearchBytes,
}

/// What running a tool on a document means.
#[derive(Clone, Copy, Debug, Eq, PartialEq)]
pub(crate) enum Work {
    /// Its program, once, on the document.
    Program,
    /// OCR of a PDF's pages that have no text (see [`crate::ocr`]): its
    /// text layer, and pages rendered and recognised one at a time.
    OcrPdf,
    /// OCR of an image (see [`crate::ocr`]).
    OcrImage,
}

/// A program that writes a document's text on its standard output.
#[derive(Debug)]
pub struct Tool {
    /// What it is called in messages and in `trawl extractors`.
    pub name: String,
    /// The program, found through PATH unless it holds a slash.
    pub program: OsString,
    /// Its arguments; with [`Input::Path`], `{}` in them is the document.
    pub args: Vec<OsString>,
    /// How it is given the document.
    pub input: Input,
    /// Whether its output tells pages apart.
    pub layout: Layout,
    /// Its own time limit (else the run's).
    pub timeout: Option<Duration>,
    /// What a failure of it means for the document.
    pub on_failure: OnFailure,
    /// Where it comes from.
    pub origin: Provenance,
    /// What running it means.
    pub(crate) work: Work,
    /// Variables set in its environment (besides trawl's own).
    pub(crate) env: &'static [(&'static str, &'static str)],
    /// What identifies its output for the cache, found once.
    pub(crate) identity: OnceLock<Option<Vec<u8>>>,
    /// It was found missing (and reported, if it is reported).
    pub(crate) missing: AtomicBool,
}

impl Tool {
    /// A tool run as `program args…`; [`Input::Path`] when an argument
    /// holds `{}`, else [`Input::Stdin`].
    pub fn new(name: &str, program: &OsStr, args: Vec<OsString>, origin: Provenance) -> Tool {
        let input = if args.iter().any(|a| contains(a.as_bytes(), b"{}")) {
            Input::Path
        } else {
            Input::Stdin
        };
        Tool {
            name: name.to_string(),
            program: program.to_os_string(),
            args,
            input,
            layout: Layout::Lines,
            timeout: None,
            on_failure: OnFailure::Report,
            origin,
            work: Work::Program,
            env: &[],
            identity: OnceLock::new(),
            missing: AtomicBool::new(false),
        }
    }

    pub(crate) fn builtin(name: &str, argv: &[&str], layout: Layout, origin: Provenance) -> Tool {
        let args = argv[1..].iter().map(OsString::from).collect();
        Tool { layout, ..Tool::new(name, OsStr::new(argv[0]), args, origin) }
    }

    /// This tool, with its documents' bytes searched when it fails (see
    /// [`OnFailure::SearchBytes`]).
    pub(crate) fn searching_bytes_on_failure(self) -> Tool {
        Tool { on_failure: OnFailure::SearchBytes, ..self }
    }

    /// This tool, whose identity for the cache is `identity` (made of
    /// other tools': see [`crate::ocr`]) rather than its own executable's.
    pub(crate) fn identified_by(self, identity: Option<Vec<u8>>) -> Tool {
        let tool = Tool { identity: OnceLock::new(), ..self };
        let _ = tool.identity.set(identity);
        tool
    }

    /// The arguments for a document at `path` (`{}` replaced; a relative
    /// path starting with `-` is given as `./-…`, never as an option).
    pub(crate) fn args_for(&self, path: Option<&[u8]>) -> Vec<OsString> {
        let Some(path) = path else { return self.args.clone() };
        let mut safe = Vec::new();
        if path.starts_with(b"-") {
            safe.extend_from_slice(b"./");
        }
        safe.extend_from_slice(path);
        self.args
            .iter()
            .map(|a| OsString::from(OsStr::from_bytes(&replace(a.as_bytes(), &safe))))
            .collect()
    }

    /// The executable PATH finds for it (or its own path), if any.
    pub fn executable(&self) -> Option<PathBuf> {
        use std::os::unix::fs::PermissionsExt;
        let runnable = |p: &PathBuf| {
            std::fs::metadata(p)
                .is_ok_and(|md| md.is_file() && md.permissions().mode() & 0o111 != 0)
        };
        if self.program.as_bytes().contains(&b'/') {
            let p = PathBuf::from(&self.program);
            return runnable(&p).then_some(p);
        }
        let path = std::env::var_os("PATH")?;
        std::env::split_paths(&path).map(|dir| dir.join(&self.program)).find(runnable)
    }

    /// What its output depends on: its program and arguments, and the
    /// inode, size and mtime of its executable (a new version is a new
    /// file). None when it cannot be found.
    pub(crate) fn identity(&self) -> Option<&[u8]> {
        self.identity
            .get_or_init(|| {
                use std::os::unix::fs::MetadataExt;
                let md = std::fs::metadata(self.executable()?).ok()?;
                let mut id = Vec::new();
                for part in std::iter::once(&self.program).chain(&self.args) {
                    id.extend_from_slice(part.as_bytes());
                    id.push(0);
                }
                for v in [md.dev(), md.ino(), md.size(), md.mtime() as u64, md.mtime_nsec() as u64]
                {
                    id.extend_from_slice(&v.to_le_bytes());
                }
                Some(id)
            })
            .as_deref()
    }

    /// Where it comes from, in words.
    pub fn provenance(&self) -> String {
        match &self.origin {
            Provenance::Required { package } => format!("built in, package {package}"),
            Provenance::Optional { package } => format!("built in, optional, package {package}"),
            Provenance::Configured { file } => format!("configured in {}", file.display()),
        }
    }
}

/// The built-in tools, by the document kind they read.
#[derive(Debug)]
pub(crate) struct Builtins {
    pub(crate) pdf: Tool,
    pub(crate) postscript: Tool,
    pub(crate) dvi: Tool,
    pub(crate) word: Tool,
    pub(crate) excel: Tool,
}

impl Default for Builtins {
    fn default() -> Self {
        let required = |package| Provenance::Required { package };
        let optional = |package| Provenance::Optional { package };
        Builtins {
            // poppler's pdftotext: reading order (not `-layout`: the same
            // speed, and what `pdftotext FILE -` users grep), UTF-8, no
            // messages; pages end with a form feed.
            pdf: Tool::builtin(
                "pdf",
                &["pdftotext", "-q", "-enc", "UTF-8", "-", "-"],
                Layout::Pages,
                required("poppler-utils"),
            ),
            // Ghostscript's text device (what its ps2ascii script runs,
            // without the shell), in its sandbox.
            postscript: Tool::builtin(
                "postscript",
                &[
                    "gs",
                    "-q",
                    "-dSAFER",
                    "-dBATCH",
                    "-dNOPAUSE",
                    "-sDEVICE=txtwrite",
                    "-o",
                    "-",
                    "-",
                ],
                Layout::Lines,
                optional("ghostscript"),
            )
            .searching_bytes_on_failure(),
            // catdvi ends each page with a form feed.
            dvi: Tool::builtin("dvi", &["catdvi"], Layout::Pages, optional("catdvi")),
            // catdoc's readers of OLE2 compound files (xls2csv reads a
            // path, which /dev/stdin, the document, is; its sheets end
            // with form feeds, which are not pages). catdoc's catppt is
            // left out: it gives nothing for PowerPoint files LibreOffice
            // writes.
            word: Tool::builtin("doc", &["catdoc", "-w"], Layout::Lines, optional("catdoc")),
            excel: Tool::builtin(
                "xls",
                &["xls2csv", "/dev/stdin"],
                Layout::Lines,
                optional("catdoc"),
            ),
        }
    }
}

impl Builtins {
    /// Every built-in tool, in the order `trawl extractors` lists them.
    pub(crate) fn all(&self) -> [&Tool; 5] {
        [&self.pdf, &self.postscript, &self.dvi, &self.word, &self.excel]
    }
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// `arg` with every `{}` replaced by `path`.
fn replace(arg: &[u8], path: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(arg.len() + path.len());
    let mut i = 0;
    while i < arg.len() {
        if arg[i..].starts_with(b"{}") {
            out.extend_from_slice(path);
            i += 2;
        } else {
            out.push(arg[i]);
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_replaces_every_placeholder_and_never_reads_as_an_option() {
        let tool = Tool::new(
            "t",
            OsStr::new("x"),
            vec!["--in={}".into(), "{}".into(), "-".into()],
            Provenance::Required { package: "p" },
        );
        assert_eq!(tool.input, Input::Path);
        assert_eq!(tool.args_for(Some(b"a b")), ["--in=a b", "a b", "-"]);
        assert_eq!(tool.args_for(Some(b"-rf")), ["--in=./-rf", "./-rf", "-"]);
        let stdin = Tool::new(
            "t",
            OsStr::new("x"),
            vec!["-".into()],
            Provenance::Required { package: "p" },
        );
        assert_eq!(stdin.input, Input::Stdin);
    }
}

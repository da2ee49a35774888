//! OCR: the text of scanned documents, recognised by Tesseract, as one
//! more extractor of the pool (its children are run, bounded, cached and
//! reaped as every other tool's; see [`crate::external`]).
//!
//! - Images (PNG, JPEG, TIFF of any number of pages, GIF, BMP, WebP: told
//!   by their bytes, also inside archives) are given to `tesseract` on its
//!   standard input, once their size was read from their headers
//!   ([`image`]): one over [`OcrOptions::max_pixels`], or wider or taller
//!   than Tesseract's 32767 pixels, is refused with one line, never decoded.
//! - A PDF's text layer is read by `pdftotext` as without OCR; only its
//!   pages whose layer is empty or nearly so ([`pdf`]) are rendered by
//!   `pdftoppm`, one page at a time at [`OcrOptions::dpi`], and recognised;
//!   a mixed PDF gets both, page by page, so matches say their page.
//!
//! What OCR made is cached like every extraction: the identity of its
//! text is made of each program's (their executables' inode, size and
//! mtime: a new Tesseract is a new identity), the language data files',
//! the languages and the resolution.

pub(crate) mod image;
mod pdf;

use std::ffi::OsString;
use std::fmt;
use std::io::{self, Read};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};

use crate::external::{Outcome, Subject};
use crate::tools::{Provenance, Tool, Work};
use crate::{Extractor, Flow, Layout};

/// The resolution PDF pages are rendered at by default (Tesseract reads
/// best at 300 dots per inch).
pub const DEFAULT_DPI: u32 = 300;

/// The most pixels an image or rendered page may have by default (100
/// megapixels: an A1 sheet at 300 dpi; Tesseract needs about 6 bytes a
/// pixel).
pub const DEFAULT_MAX_PIXELS: u64 = 100_000_000;

/// Tesseract's own limit on an image's width and height.
const MAX_SIDE: u64 = 32767;

/// Images smaller than this on a side hold no legible text: they are given
/// as empty text, with no process (icons).
const MIN_SIDE: u64 = 16;

/// What a command line asked of OCR (`--ocr-lang`, `--ocr-dpi`); what it
/// did not set gets its default in [`OcrOptions::resolve`].
#[derive(Clone, Debug, Default, Eq, PartialEq)]
pub struct OcrAsked {
    /// Languages as Tesseract names them, `+` between them (`eng+deu`).
    pub languages: Option<String>,
    /// The resolution PDF pages are rendered at.
    pub dpi: Option<u32>,
}

/// How OCR runs, every choice made.
#[derive(Clone, Debug, Eq, PartialEq)]
pub struct OcrOptions {
    /// Tesseract's languages, in order (at least one).
    pub languages: Vec<String>,
    /// The resolution PDF pages are rendered at (dots per inch).
    pub dpi: u32,
    /// Images and rendered pages with more pixels are refused.
    pub max_pixels: u64,
}

/// Why OCR cannot run as asked.
#[derive(Debug, Eq, PartialEq)]
#[non_exhaustive]
pub enum OcrError {
    /// `tesseract` is not on PATH.
    NoTesseract,
    /// A language's data file is not installed.
    MissingLanguage {
        /// The language, as asked.
        language: String,
        /// Where Tesseract's data is.
        dir: PathBuf,
        /// The languages whose data is there.
        installed: Vec<String>,
    },
    /// A language name that is none (empty, or not letters, digits, `_`
    /// and `/`).
    BadLanguage(String),
    /// A resolution out of 10..=2400.
    BadDpi(u32),
}

impl fmt::Display for OcrError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OcrError::NoTesseract => {
                write!(f, "--ocr: tesseract not found (install the Debian package tesseract-ocr)")
            }
            OcrError::MissingLanguage { language, dir, installed } => write!(
                f,
                "--ocr-lang: no Tesseract data for '{language}' in {} (install the Debian package \
                 {}); installed: {}",
                dir.display(),
                debian_package(language),
                match installed.is_empty() {
                    true => "none".to_string(),
                    false => installed.join(", "),
                }
            ),
            OcrError::BadLanguage(l) => write!(
                f,
                "--ocr-lang: '{l}' is not a Tesseract language name (such as eng, deu, \
                 chi_sim; several: eng+deu)"
            ),
            OcrError::BadDpi(d) => write!(f, "--ocr-dpi: {d} is out of range (10 to 2400)"),
        }
    }
}

impl std::error::Error for OcrError {}

/// The Debian package holding a language's data (`chi_sim`:
/// `tesseract-ocr-chi-sim`).
pub fn debian_package(language: &str) -> String {
    let name: String = language
        .chars()
        .map(|c| match c {
            '_' | '/' => '-',
            c => c.to_ascii_lowercase(),
        })
        .collect();
    format!("tesseract-ocr-{name}")
}

impl OcrOptions {
    /// The options `asked` means: the languages given, else the locale's
    /// (`LC_ALL`, `LC_MESSAGES`, `LANG`) when its data is installed, else
    /// English; each language's data checked (no process is started).
    pub fn resolve(asked: &OcrAsked) -> Result<OcrOptions, OcrError> {
        let dpi = asked.dpi.unwrap_or(DEFAULT_DPI);
        if !(10..=2400).contains(&dpi) {
            return Err(OcrError::BadDpi(dpi));
        }
        let tesseract = tesseract_tool(&[], Layout::Lines);
        let executable = tesseract.executable().ok_or(OcrError::NoTesseract)?;
        let dir = tessdata_dir(&executable);
        let languages = match &asked.languages {
            Some(list) => {
                let languages: Vec<String> = list.split('+').map(str::to_string).collect();
                for l in &languages {
                    let ok = !l.is_empty()
                        && !l.starts_with('/')
                        && !l.contains("..")
                        && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'/');
                    if !ok {
                        return Err(OcrError::BadLanguage(l.clone()));
                    }
                    // Without a data directory found, Tesseract says.
                    if let Some(dir) = &dir {
                        if !language_file(dir, l).is_file() {
                            let installed = installed_languages(dir);
                            return Err(OcrError::MissingLanguage {
                                language: l.clone(),
                                dir: dir.clone(),
                                installed,
                            });
                        }
                    }
                }
                languages
            }
            None => {
                let local = locale_language()
                    .filter(|l| dir.as_ref().is_some_and(|d| language_file(d, l).is_file()));
                vec![local.unwrap_or("eng").to_string()]
            }
        };
        Ok(OcrOptions { languages, dpi, max_pixels: DEFAULT_MAX_PIXELS })
    }

    /// The line of an extraction's signature that says how OCR ran (see
    /// [`OcrOptions::from_signature`]).
    pub(crate) fn signature_line(&self) -> String {
        format!(
            "ocr languages={} dpi={} max_pixels={}\n",
            self.languages.join("+"),
            self.dpi,
            self.max_pixels
        )
    }

    /// The options of the OCR an extraction whose signature is `sig` ran,
    /// if it ran any.
    pub fn from_signature(sig: &[u8]) -> Option<OcrOptions> {
        let line = sig.split(|&b| b == b'\n').find(|l| l.starts_with(b"ocr languages="))?;
        let line = std::str::from_utf8(line).ok()?;
        let mut options = OcrOptions { languages: Vec::new(), dpi: 0, max_pixels: 0 };
        for field in line.strip_prefix("ocr ")?.split(' ') {
            match field.split_once('=')? {
                ("languages", l) => options.languages = l.split('+').map(str::to_string).collect(),
                ("dpi", d) => options.dpi = d.parse().ok()?,
                ("max_pixels", m) => options.max_pixels = m.parse().ok()?,
                _ => {}
            }
        }
        Some(options)
    }
}

/// The language of the user's locale, as Tesseract names it, for the
/// languages whose data Debian ships most.
fn locale_language() -> Option<&'static str> {
    let locale = ["LC_ALL", "LC_MESSAGES", "LANG"]
        .iter()
        .filter_map(std::env::var_os)
        .find(|v| !v.is_empty())?;
    let locale = locale.to_string_lossy();
    let code = locale.split(['_', '.', '@']).next()?;
    let territory = locale.split(['.', '@']).next()?.split('_').nth(1);
    Some(match code {
        "en" => "eng",
        "de" => "deu",
        "fr" => "fra",
        "es" => "spa",
        "it" => "ita",
        "pt" => "por",
        "nl" => "nld",
        "sv" => "swe",
        "da" => "dan",
        "nb" | "no" | "nn" => "nor",
        "fi" => "fin",
        "pl" => "pol",
        "cs" => "ces",
        "sk" => "slk",
        "hu" => "hun",
        "ro" => "ron",
        "ru" => "rus",
        "uk" => "ukr",
        "el" => "ell",
        "tr" => "tur",
        "ar" => "ara",
        "he" => "heb",
        "hi" => "hin",
        "ja" => "jpn",
        "ko" => "kor",
        "zh" if matches!(territory, Some("TW" | "HK" | "MO")) => "chi_tra",
        "zh" => "chi_sim",
        _ => return None,
    })
}

/// Where Tesseract's language data is: `$TESSDATA_PREFIX` (the directory
/// itself, or the one holding `tessdata`), else where Debian and a build
/// from source put it.
pub fn tessdata_dir(executable: &Path) -> Option<PathBuf> {
    let mut candidates = Vec::new();
    if let Some(p) = std::env::var_os("TESSDATA_PREFIX").filter(|p| !p.is_empty()) {
        let p = PathBuf::from(p);
        candidates.push(p.join("tessdata"));
        candidates.push(p);
    }
    for v in ["5", "4.00"] {
        candidates.push(PathBuf::from(format!("/usr/share/tesseract-ocr/{v}/tessdata")));
    }
    if let Some(prefix) = executable.parent().and_then(Path::parent) {
        candidates.push(prefix.join("share/tessdata"));
        candidates.push(prefix.join("share/tesseract-ocr/5/tessdata"));
    }
    candidates.push(PathBuf::from("/usr/share/tessdata"));
    candidates.into_iter().find(|d| has_languages(d))
}

fn has_languages(dir: &Path) -> bool {
    !installed_languages(dir).is_empty()
}

/// The file of a language's data.
fn language_file(dir: &Path, language: &str) -> PathBuf {
    dir.join(format!("{language}.traineddata"))
}

/// The languages whose data is in `dir`, sorted.
pub fn installed_languages(dir: &Path) -> Vec<String> {
    let mut found: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .filter_map(|e| {
                    let name = e.file_name();
                    let name = name.to_str()?;
                    name.strip_suffix(".traineddata").map(str::to_string)
                })
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    found
}

/// `tesseract stdin stdout -l LANGS ARGS…`: one thread (OpenMP would start
/// one per CPU in each of the pool's children).
fn tesseract_tool(args: &[&str], layout: Layout) -> Tool {
    let mut argv = vec!["tesseract", "stdin", "stdout"];
    argv.extend_from_slice(args);
    let mut tool =
        Tool::builtin("ocr", &argv, layout, Provenance::Required { package: "tesseract-ocr" });
    tool.env = &[("OMP_THREAD_LIMIT", "1")];
    tool
}

/// The tools OCR runs, and those the extractor's documents are read by
/// (whose identities are made of the others').
#[derive(Debug)]
pub(crate) struct Ocr {
    pub(crate) options: OcrOptions,
    /// Recognises a one-page image.
    image: Tool,
    /// Recognises a TIFF: a form feed before each page after the first.
    tiff: Tool,
    /// Recognises a rendered page, at the resolution it was rendered at.
    page: Tool,
    /// Renders a page: `pdftoppm` (its page given at each run).
    render: Tool,
    /// Says the pages' sizes: `pdfinfo`.
    sizes: Tool,
    /// What reads a PDF, for [`crate::Extractor::document`].
    pub(crate) pdf_reader: Tool,
    /// What reads a one-page image.
    pub(crate) image_reader: Tool,
    /// What reads a TIFF.
    pub(crate) tiff_reader: Tool,
}

impl Ocr {
    /// OCR with `options`; `pdftotext` reads PDFs' text layers.
    pub(crate) fn new(options: OcrOptions, pdftotext: &Tool) -> Ocr {
        let languages = options.languages.join("+");
        let dpi = options.dpi.to_string();
        let image = tesseract_tool(&["-l", &languages], Layout::Lines);
        let tiff = tesseract_tool(&["-l", &languages], Layout::Pages);
        let page = tesseract_tool(&["-l", &languages, "--dpi", &dpi], Layout::Lines);
        let poppler = || Provenance::Required { package: "poppler-utils" };
        // Page numbers come at each run (see Ocr::render_args); these
        // arguments are what `trawl extractors` shows, and part of the
        // identity.
        let render_argv = ["pdftoppm", "-f", "N", "-l", "N", "-r", &dpi, "-gray", "/dev/stdin"];
        let render = Tool::builtin("ocr", &render_argv, Layout::Lines, poppler());
        let sizes_argv = ["pdfinfo", "-f", "1", "-l", "N", "/dev/stdin"];
        let sizes = Tool::builtin("ocr", &sizes_argv, Layout::Lines, poppler());
        let data = data_identity(&options, image.executable().as_deref());
        let limits = format!("max_pixels={} min_side={MIN_SIDE}\0", options.max_pixels);
        let made_of = |what: &str, tools: &[&Tool]| -> Option<Vec<u8>> {
            let mut id = format!("{what}\0{limits}{}\0", pdf::NEAR_EMPTY).into_bytes();
            for tool in tools {
                id.extend_from_slice(tool.identity()?);
                id.push(0);
            }
            id.extend_from_slice(data.as_deref()?);
            Some(id)
        };
        let reader = |layout, work| Tool { work, ..tesseract_tool(&["-l", &languages], layout) };
        let pdf_id = made_of("ocr-pdf", &[pdftotext, &sizes, &render, &page]);
        let image_id = made_of("ocr-image", &[&image]);
        let tiff_id = made_of("ocr-tiff", &[&tiff]);
        Ocr {
            pdf_reader: reader(Layout::Pages, Work::OcrPdf).identified_by(pdf_id),
            image_reader: reader(Layout::Lines, Work::OcrImage).identified_by(image_id),
            tiff_reader: reader(Layout::Pages, Work::OcrImage).identified_by(tiff_id),
            options,
            image,
            tiff,
            page,
            render,
            sizes,
        }
    }

    /// `pdftoppm`'s arguments for page `n` of the document on its standard
    /// input: grey, at the chosen resolution, to its standard output.
    fn render_args(&self, n: usize) -> Vec<OsString> {
        let (n, dpi) = (n.to_string(), self.options.dpi.to_string());
        ["-f", &n, "-l", &n, "-r", &dpi, "-gray", "/dev/stdin"].iter().map(OsString::from).collect()
    }

    /// Whether a picture of `w` x `h` pixels may be recognised; else why not.
    fn refuses(&self, (w, h): (u64, u64)) -> Option<String> {
        let max = self.options.max_pixels;
        (w.saturating_mul(h) > max || w > MAX_SIDE || h > MAX_SIDE).then(|| {
            format!(
                "{w} x {h} pixels, over OCR's limit ({} megapixels, {MAX_SIDE} pixels a side); \
                 not recognised",
                max / 1_000_000
            )
        })
    }

    /// The executables OCR runs, for `trawl extractors`: (name, what for).
    pub(crate) fn programs(&self) -> [(&Tool, &'static str); 3] {
        [
            (&self.image, "recognises images and rendered pages"),
            (&self.render, "renders PDF pages without text, one at a time"),
            (&self.sizes, "says the size of PDF pages before they are rendered"),
        ]
    }
}

/// What the text depends on besides the programs: the language data
/// files (path, inode, size, mtime), in the order asked. None when one is
/// missing (nothing is cached then).
fn data_identity(options: &OcrOptions, tesseract: Option<&Path>) -> Option<Vec<u8>> {
    let dir = tessdata_dir(tesseract?)?;
    let mut id = Vec::new();
    for l in &options.languages {
        let file = language_file(&dir, l);
        let md = std::fs::metadata(&file).ok()?;
        id.extend_from_slice(file.as_os_str().as_bytes());
        for v in [md.dev(), md.ino(), md.size(), md.mtime() as u64, md.mtime_nsec() as u64] {
            id.extend_from_slice(&v.to_le_bytes());
        }
    }
    Some(id)
}

impl Extractor {
    /// Runs what `tool` is on `subject`, handing its text to `text`: its
    /// program, or OCR's procedures.
    pub(crate) fn extract_by(
        &self,
        tool: &Tool,
        subject: Subject<'_>,
        text: &mut dyn FnMut(&mut dyn Read) -> Flow,
    ) -> io::Result<Outcome> {
        match (tool.work, &self.ocr) {
            (Work::OcrPdf, Some(ocr)) => self.ocr_pdf(ocr, subject, text),
            (Work::OcrImage, Some(ocr)) => self.ocr_image(ocr, tool.layout, subject, text),
            _ => self.runner.run(tool, subject, text),
        }
    }

    /// Recognises an image, once its size is known to be within bounds.
    fn ocr_image(
        &self,
        ocr: &Ocr,
        layout: Layout,
        subject: Subject<'_>,
        text: &mut dyn FnMut(&mut dyn Read) -> Flow,
    ) -> io::Result<Outcome> {
        let mut head = [0u8; crate::HEAD];
        let n = subject.file.read_at(&mut head, 0)?;
        let format = crate::kind::image(&head[..n]).ok_or_else(image_damaged)?;
        let pages = image::dimensions(&subject.file, format)?;
        for (i, &size) in pages.iter().enumerate() {
            if let Some(why) = ocr.refuses(size) {
                let page = match pages.len() {
                    1 => String::new(),
                    _ => format!("page {}: ", i + 1),
                };
                return Err(io::Error::new(io::ErrorKind::InvalidData, format!("{page}{why}")));
            }
        }
        if pages.iter().all(|&(w, h)| w.min(h) < MIN_SIDE) {
            return Ok(Outcome::Ran(text(&mut io::empty())));
        }
        let tesseract = match layout {
            Layout::Pages => &ocr.tiff,
            Layout::Lines => &ocr.image,
        };
        self.runner.run(tesseract, subject, text)
    }
}

fn image_damaged() -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, "damaged image: its size could not be read")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_language_names_its_debian_package() {
        assert_eq!(debian_package("deu"), "tesseract-ocr-deu");
        assert_eq!(debian_package("chi_sim"), "tesseract-ocr-chi-sim");
        assert_eq!(debian_package("script/Latin"), "tesseract-ocr-script-latin");
        let e = OcrError::MissingLanguage {
            language: "deu".into(),
            dir: "/usr/share/tesseract-ocr/5/tessdata".into(),
            installed: vec!["eng".into(), "osd".into()],
        };
        assert_eq!(
            e.to_string(),
            "--ocr-lang: no Tesseract data for 'deu' in /usr/share/tesseract-ocr/5/tessdata \
             (install the Debian package tesseract-ocr-deu); installed: eng, osd"
        );
    }

    #[test]
    fn the_options_are_read_back_from_a_signature() {
        let o = OcrOptions {
            languages: vec!["eng".into(), "deu".into()],
            dpi: 200,
            max_pixels: 5_000_000,
        };
        let sig = format!("documents=true depth=8\n{}pdf…\n", o.signature_line());
        assert_eq!(OcrOptions::from_signature(sig.as_bytes()), Some(o));
        assert_eq!(OcrOptions::from_signature(b"documents=true depth=8\n"), None);
    }
}

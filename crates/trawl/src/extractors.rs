//! The user's extractor configuration (`$TRAWL_EXTRACTORS`, else
//! `$XDG_CONFIG_HOME/trawl/extractors.toml`), and `trawl extractors`: what
//! reads which documents, and whether each program is there.
//!
//! A file that cannot be read never stops a search (see crate::unusable):
//! the default one gets a warning, one named by `$TRAWL_EXTRACTORS` (also
//! when missing) an error; the built-in extractors are used. A mistake in a
//! file that was read stops the search.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::report::{Ended, FailedWith};

use trawl_extract::configured::{parse, Configured};

use crate::unusable::Severity;

/// Where the configuration is looked for, and how much it matters when it
/// cannot be read (see crate::unusable).
pub fn config_path() -> Option<(PathBuf, Severity)> {
    if let Some(p) = std::env::var_os("TRAWL_EXTRACTORS").filter(|p| !p.is_empty()) {
        return Some((PathBuf::from(p), Severity::Error));
    }
    let config = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
    Some((config.join("trawl").join("extractors.toml"), Severity::Warning))
}

/// The configured extractors (none when there is no file, or it cannot be
/// read: then reported once); a mistake in it is the error, naming the
/// file, line and column.
pub fn load() -> Result<Vec<Configured>, String> {
    let Some((path, severity)) = config_path() else { return Ok(Vec::new()) };
    match std::fs::read(&path) {
        Ok(bytes) => {
            let text = String::from_utf8(bytes).map_err(|e| {
                format!("{}: not UTF-8 (byte {})", path.display(), e.utf8_error().valid_up_to())
            })?;
            parse(&text, &path).map_err(|e| e.to_string())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && severity == Severity::Warning => {
            Ok(Vec::new())
        }
        Err(e) => {
            let named = match severity {
                Severity::Error => " (named by TRAWL_EXTRACTORS)",
                Severity::Warning => "",
            };
            let message = format!(
                "{}{}: {}{named}; only the built-in extractors are used",
                severity.prefix(),
                path.display(),
                trawl_diag::io_message(&e)
            );
            crate::unusable::report(&message, severity);
            Ok(Vec::new())
        }
    }
}

/// The extractor for `limits`, with the cache of extracted text under
/// `$XDG_CACHE_HOME/trawl` unless `cache` is false, and, when documents
/// are read, the user's extractors (an error in their file is the error)
/// and OCR when asked (a missing language or program is the error).
pub fn extractor(
    limits: trawl_extract::Limits,
    ocr: Option<&trawl_extract::ocr::OcrAsked>,
    cancel: &trawl_search::Cancel,
    cache: bool,
) -> Result<trawl_extract::Extractor, String> {
    let mut extractor = trawl_extract::Extractor::new(limits, cancel.flag());
    if limits.documents {
        extractor = extractor.with_configured(load()?);
    }
    if let Some(asked) = ocr {
        let options = trawl_extract::ocr::OcrOptions::resolve(asked).map_err(|e| e.to_string())?;
        extractor = extractor.with_ocr(options);
    }
    Ok(match trawl_extract::cache::default_dir() {
        Some(dir) if cache => extractor.with_cache(dir, trawl_extract::cache::DEFAULT_LIMIT),
        _ => extractor,
    })
}

/// `trawl extractors`: one line per extractor, the configured ones first
/// (the order in which they are asked).
pub fn main(args: Vec<std::ffi::OsString>) -> ExitCode {
    if let Some(a) = args.first() {
        crate::report::error(format_args!(
            "extractors: unexpected argument '{}'",
            a.to_string_lossy()
        ));
        return Ended::Failed(FailedWith::Error).into();
    }
    let configured = match load() {
        Ok(c) => c,
        Err(msg) => {
            crate::report::error(msg);
            return Ended::Failed(FailedWith::Error).into();
        }
    };
    match config_path() {
        Some((p, _)) => {
            println!("configuration: {}{}", p.display(), if p.exists() { "" } else { " (none)" })
        }
        None => println!("configuration: none (neither XDG_CONFIG_HOME nor HOME is set)"),
    }
    let ex = trawl_extract::Extractor::default().with_configured(configured);
    let (configured, builtins) = ex.tools();
    let kinds = ["PDF", "PostScript", "DVI", "Word 97-2003", "Excel 97-2003"];
    let rows = configured
        .iter()
        .map(|c| (c.rule.clone(), &c.tool))
        .chain(kinds.iter().zip(builtins).map(|(k, t)| (k.to_string(), t)));
    for (what, tool) in rows {
        row(tool, &what, &tool.provenance());
    }
    ocr_rows();
    match crate::unusable::errored() {
        true => Ended::Failed(FailedWith::Error).into(),
        false => Ended::Ok.into(),
    }
}

/// One line of `trawl extractors`: its name, what it reads, its command,
/// where PATH finds it, where it comes from.
fn row(tool: &trawl_extract::tools::Tool, what: &str, provenance: &str) {
    let mut argv = vec![tool.program.to_string_lossy().into_owned()];
    argv.extend(tool.args.iter().map(|a| a.to_string_lossy().into_owned()));
    let found = match tool.executable() {
        Some(p) => p.display().to_string(),
        None => "MISSING".to_string(),
    };
    println!("{}\t{what}\t{}\t{found}\t{provenance}", tool.name, argv.join(" "));
}

/// OCR's lines (`--ocr`): its programs, then Tesseract's version, the
/// languages installed and what --ocr reads by default.
fn ocr_rows() {
    use trawl_extract::ocr::{installed_languages, tessdata_dir, OcrAsked, OcrOptions};
    let limits = trawl_extract::Limits { documents: true, ..Default::default() };
    let ex = trawl_extract::Extractor::new(limits, Default::default());
    let resolved = OcrOptions::resolve(&OcrAsked::default());
    let ex = match &resolved {
        Ok(options) => ex.with_ocr(options.clone()),
        Err(_) => ex.with_ocr(OcrOptions {
            languages: vec!["eng".into()],
            dpi: trawl_extract::ocr::DEFAULT_DPI,
            max_pixels: trawl_extract::ocr::DEFAULT_MAX_PIXELS,
        }),
    };
    let Some((_, programs)) = ex.ocr() else { return };
    for (tool, what) in programs {
        let package = match &tool.origin {
            trawl_extract::tools::Provenance::Required { package } => package,
            _ => "",
        };
        row(tool, &format!("--ocr: {what}"), &format!("built in, with --ocr, package {package}"));
    }
    let Some(tesseract) = programs[0].0.executable() else {
        println!("ocr\tTesseract MISSING\tinstall the Debian package tesseract-ocr");
        return;
    };
    let version = tesseract_version(&tesseract);
    let (languages, dir) = match tessdata_dir(&tesseract) {
        Some(dir) => (installed_languages(&dir).join(", "), dir.display().to_string()),
        None => ("none found".to_string(), "no tessdata directory".to_string()),
    };
    let default = match resolved {
        Ok(o) => format!("--ocr reads {} at {} dpi", o.languages.join("+"), o.dpi),
        Err(e) => e.to_string(),
    };
    println!("ocr\t{version}\tlanguages: {languages}\t{dir}\t{default}");
}

/// The first line of `tesseract --version` ("tesseract 5.3.0").
fn tesseract_version(tesseract: &std::path::Path) -> String {
    let out = std::process::Command::new(tesseract)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output();
    match out {
        Ok(out) => String::from_utf8_lossy(&out.stdout).lines().next().unwrap_or("").to_string(),
        Err(_) => "tesseract (version unknown)".to_string(),
    }
}

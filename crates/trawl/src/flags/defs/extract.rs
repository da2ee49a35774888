//! `--help`'s "Compressed files, archives and documents".

use super::{Flag, Given, Kind, Value};
use crate::flags::low::LowArgs;

/// `--extract-timeout SECS`.
fn extract_timeout(l: &mut LowArgs, v: Given<'_>) {
    l.extract_timeout = Some(v.count())
}

/// `--max-archive-depth N`.
fn max_archive_depth(l: &mut LowArgs, v: Given<'_>) {
    l.max_archive_depth = Some(v.number())
}

pub const FLAGS: &[Flag] = &[
    Flag::switch("search_zip", None, "search-zip", |l, _| l.search_zip = true)
        .aliases(&["zip"])
        .help(
            79,
            "Search inside compressed files (gzip, bzip2, xz, zstd, lz4) and archives (tar, zip), \
             told by their bytes; members are named ARCHIVE{MEMBER}",
        ),
    Flag::switch("docs", None, "docs", |l, _| l.docs = true).help(
        80,
        "Search the text of documents too: office files and e-books read in-process (DOCX, PPTX, \
         XLSX, ODT, ODS, ODP, EPUB), a paragraph or table row per line; PDFs through pdftotext \
         (poppler-utils); PostScript, DVI, legacy Word and Excel files through gs, catdvi, catdoc \
         and xls2csv when installed; your own extractors from \
         $XDG_CONFIG_HOME/trawl/extractors.toml (see 'trawl extractors'); implies --search-zip",
    ),
    Flag::switch("ocr", None, "ocr", |l, _| l.ocr = true).help(
        80,
        "Read scanned documents too: images (PNG, JPEG, TIFF, GIF, BMP, WebP, told by their bytes) \
         and the PDF pages that have no text are recognised by Tesseract (tesseract-ocr), pages \
         rendered one at a time by pdftoppm; cached as every extraction; implies --docs",
    ),
    Flag::valued("ocr_lang", None, "ocr-lang", Value::One("LANGS", Kind::Str), |l, v| {
        l.ocr_lang = Some(v.word().to_string())
    })
    .help(
        80,
        "With --ocr: the documents' languages as Tesseract names them, + between them (eng+deu; \
         default: the locale's when its data is installed, else eng)",
    ),
    Flag::valued("ocr_dpi", None, "ocr-dpi", Value::One("N", Kind::Number), |l, v| {
        l.ocr_dpi = Some(v.number())
    })
    .help(80, "With --ocr: render PDF pages at N dots per inch (default 300)"),
    Flag::valued("extract_jobs", None, "extract-jobs", Value::One("N", Kind::Number), |l, v| {
        l.extract_jobs = Some(v.number())
    })
    .help(
        81,
        "With --docs: at most N extractor processes (pdftotext, gs...) at once (default: one per \
         CPU)",
    ),
    Flag::valued("extract_timeout", None, "extract-timeout", Value::One("SECS", Kind::Count), extract_timeout)
    .help(82, "With --docs: kill an extractor process after SECS seconds (default 30)"),
    Flag::valued("max_archive_depth", None, "max-archive-depth", Value::One("N", Kind::Number), max_archive_depth)
    .help(
        85,
        "With --search-zip: open at most N compressed streams and archives one inside another \
         (default 8)",
    ),
    Flag::switch("no_cache", None, "no-cache", |l, _| l.no_cache = true).help(
        84,
        "With --docs: neither read nor fill the cache of extracted text (in $XDG_CACHE_HOME/trawl; \
         see 'trawl cache')",
    ),
];

//! Each format's text from a small document written here, member by member.

use std::io::{Cursor, Write};

use zip::ZipArchive;

use super::{detect, text, Document};

fn zip(members: &[(&str, &str)]) -> ZipArchive<Cursor<Vec<u8>>> {
    let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
    for (name, data) in members {
        w.start_file(*name, zip::write::SimpleFileOptions::default()).unwrap();
        w.write_all(data.as_bytes()).unwrap();
    }
    ZipArchive::new(Cursor::new(w.finish().unwrap().into_inner())).unwrap()
}

fn read(members: &[(&str, &str)]) -> (Document, String) {
    let mut z = zip(members);
    let doc = detect(&mut z).expect("a document");
    (doc, String::from_utf8(text(&mut z, doc).unwrap()).unwrap())
}

#[test]
fn docx_paragraphs_are_lines() {
    let body = r#"<?xml version="1.0"?><w:document xmlns:w="w"><w:body>
<w:p><w:r><w:t>Hello </w:t></w:r><w:r><w:t xml:space="preserve">wor</w:t><w:t>ld &amp; more</w:t></w:r></w:p>
<w:p><w:r><w:t>a</w:t><w:tab/><w:t>b</w:t><w:br/><w:t>c</w:t></w:r></w:p><w:p/>
<w:p><w:r><w:instrText>IGNORED</w:instrText><w:t>last</w:t></w:r></w:p></w:body></w:document>"#;
    let notes = r#"<w:footnotes xmlns:w="w"><w:footnote><w:p><w:r><w:t>a note</w:t></w:r></w:p></w:footnote></w:footnotes>"#;
    let (doc, text) = read(&[
        ("[Content_Types].xml", "<Types/>"),
        ("word/document.xml", body),
        ("word/footnotes.xml", notes),
    ]);
    assert_eq!(doc, Document::Docx);
    assert_eq!(text, "Hello world & more\na\tb\nc\n\nlast\na note\n");
}

#[test]
fn pptx_slides_come_in_number_order() {
    let slide = |s: &str| {
        format!(r#"<p:sld xmlns:a="a" xmlns:p="p"><a:p><a:r><a:t>{s}</a:t></a:r></a:p></p:sld>"#)
    };
    let (s2, s10, s1) = (slide("two"), slide("ten"), slide("one"));
    let (doc, text) = read(&[
        ("ppt/presentation.xml", "<p/>"),
        ("ppt/slides/slide2.xml", &s2),
        ("ppt/slides/slide10.xml", &s10),
        ("ppt/slides/slide1.xml", &s1),
    ]);
    assert_eq!(doc, Document::Pptx);
    assert_eq!(text, "one\ntwo\nten\n");
}

#[test]
fn xlsx_rows_are_tab_separated_lines() {
    let shared = r#"<sst><si><t>name</t></si><si><t>needle</t></si><si><r><t>rich </t></r><r><t>text</t></r></si></sst>"#;
    let sheet = r#"<worksheet><sheetData>
<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1"><v>42</v></c></row>
<row r="2"><c r="A2" t="s"><v>1</v></c><c r="B2" t="inlineStr"><is><t>inline</t></is></c><c t="s"><v>2</v></c></row>
</sheetData></worksheet>"#;
    let (doc, text) = read(&[
        ("xl/workbook.xml", "<w/>"),
        ("xl/sharedStrings.xml", shared),
        ("xl/worksheets/sheet1.xml", sheet),
    ]);
    assert_eq!(doc, Document::Xlsx);
    assert_eq!(text, "name\t42\nneedle\tinline\trich text\n");
}

#[test]
fn opendocument_paragraphs_and_table_rows_are_lines() {
    let content = r#"<office:document-content xmlns:office="o" xmlns:text="t" xmlns:table="b">
  <office:body><office:text>
    <text:h>Title</text:h>
    <text:p>a<text:s text:c="3"/>b<text:tab/>c<text:line-break/>d</text:p>
    <table:table><table:table-row><table:table-cell><text:p>x</text:p></table:table-cell><table:table-cell><text:p>y</text:p><text:p>z</text:p></table:table-cell></table:table-row></table:table>
    <text:p/>
  </office:text></office:body></office:document-content>"#;
    let (doc, text) =
        read(&[("mimetype", "application/vnd.oasis.opendocument.text"), ("content.xml", content)]);
    assert_eq!(doc, Document::OpenDocument);
    assert_eq!(text, "Title\na   b\tc\nd\nx \ty z \n\n");
}

#[test]
fn epub_chapters_come_in_spine_order() {
    let container = r#"<container><rootfiles><rootfile full-path="OEBPS/content.opf"/></rootfiles></container>"#;
    let opf = r#"<package><manifest>
<item id="c1" href="ch%201.xhtml" media-type="application/xhtml+xml"/>
<item id="c2" href="text/ch2.xhtml" media-type="application/xhtml+xml"/>
</manifest><spine><itemref idref="c2"/><itemref idref="c1"/></spine></package>"#;
    let ch1 = r#"<html><head><title>T</title><style>p {}</style></head><body><p>First
   chapter&nbsp;text</p><script>var x;</script></body></html>"#;
    let ch2 = r#"<html><body><h1>Two</h1><p>second <em>one</em></p><ul><li>a</li><li>b</li></ul></body></html>"#;
    let (doc, text) = read(&[
        ("mimetype", "application/epub+zip"),
        ("META-INF/container.xml", container),
        ("OEBPS/content.opf", opf),
        ("OEBPS/ch 1.xhtml", ch1),
        ("OEBPS/text/ch2.xhtml", ch2),
    ]);
    assert_eq!(doc, Document::Epub);
    assert_eq!(text, "Two\nsecond one\na\nb\nFirst chapter\u{a0}text\n");
}

#[test]
fn a_plain_zip_is_no_document() {
    let mut z = zip(&[("a.txt", "x"), ("word/other.xml", "<x/>")]);
    assert_eq!(detect(&mut z), None);
}

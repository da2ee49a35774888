//! The extractor on archives built in memory.

use std::io::{self, Read, Write};

use crate::{BombLimits, Extractor, Flow, Limits, Origin, Visit};

/// What a visit saw: each text with its name, and each error.
#[derive(Default)]
struct Seen {
    texts: Vec<(String, Vec<u8>)>,
    errors: Vec<(String, String)>,
}

impl Visit for Seen {
    fn text(&mut self, name: &[u8], data: &mut dyn Read, _: Origin<'_>) -> Flow {
        let name = String::from_utf8_lossy(name).into_owned();
        let mut bytes = Vec::new();
        match data.read_to_end(&mut bytes) {
            Ok(_) => self.texts.push((name, bytes)),
            Err(e) => self.errors.push((name, e.to_string())),
        }
        Flow::Continue
    }

    fn error(&mut self, name: &[u8], err: &io::Error) {
        self.errors.push((String::from_utf8_lossy(name).into_owned(), err.to_string()));
    }
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(data).unwrap();
    gz.finish().unwrap()
}

fn tar(members: &[(&str, &[u8])]) -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    for (name, data) in members {
        let mut h = tar::Header::new_gnu();
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_cksum();
        b.append_data(&mut h, name, *data).unwrap();
    }
    b.into_inner().unwrap()
}

fn zip(members: &[(&str, &[u8])]) -> Vec<u8> {
    let mut w = zip::ZipWriter::new(io::Cursor::new(Vec::new()));
    for (name, data) in members {
        w.start_file(*name, zip::write::SimpleFileOptions::default()).unwrap();
        w.write_all(data).unwrap();
    }
    w.finish().unwrap().into_inner()
}

fn visit(ex: &Extractor, name: &str, data: &[u8]) -> Seen {
    let mut seen = Seen::default();
    ex.stream(name.as_bytes(), &mut &data[..], 0, &mut seen);
    seen
}

#[test]
fn a_stream_growing_past_the_ratio_limit_ends_with_an_error() {
    let zeros = vec![0u8; 8 << 20];
    let limits =
        Limits { bombs: BombLimits { floor: 1 << 20, max_ratio: 100 }, ..Limits::default() };
    let seen = visit(&Extractor::new(limits, Default::default()), "bomb.gz", &gzip(&zeros));
    assert!(seen.texts.is_empty());
    assert_eq!(seen.errors.len(), 1);
    assert!(seen.errors[0].1.contains("more than 100:1"), "{:?}", seen.errors);
    // Under the ratio, the same stream is read whole.
    let limits =
        Limits { bombs: BombLimits { floor: 1 << 20, max_ratio: 10_000 }, ..Limits::default() };
    let seen = visit(&Extractor::new(limits, Default::default()), "ok.gz", &gzip(&zeros));
    assert_eq!(seen.texts, [("ok.gz".to_string(), zeros)]);
}

#[test]
fn a_zip_inside_a_tar_is_spooled_to_a_file_when_large() {
    let inner = zip(&[("a.txt", b"one\n"), ("b/c.txt", b"two\n")]);
    let outer = gzip(&tar(&[("x/inner.zip", &inner), ("y.txt", b"three\n")]));
    for in_memory in [0, 1 << 20] {
        let ex = Extractor::new(
            Limits { spool_in_memory: in_memory, ..Limits::default() },
            Default::default(),
        );
        let seen = visit(&ex, "o.tgz", &outer);
        assert!(seen.errors.is_empty(), "{:?}", seen.errors);
        let names: Vec<&str> = seen.texts.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            ["o.tgz{x/inner.zip}{a.txt}", "o.tgz{x/inner.zip}{b/c.txt}", "o.tgz{y.txt}"]
        );
        assert_eq!(seen.texts[1].1, b"two\n");
    }
}

#[test]
fn past_the_depth_limit_a_container_is_searched_as_its_bytes() {
    let gz = gzip(&gzip(b"needle\n"));
    let ex = Extractor::new(Limits { max_depth: 1, ..Limits::default() }, Default::default());
    let seen = visit(&ex, "a.gz.gz", &gz);
    assert_eq!(seen.texts, [("a.gz.gz".to_string(), gzip(b"needle\n"))]);
    let seen = visit(&Extractor::default(), "a.gz.gz", &gz);
    assert_eq!(seen.texts, [("a.gz.gz".to_string(), b"needle\n".to_vec())]);
}

#[test]
fn a_corrupt_stream_is_reported_under_its_name() {
    let mut gz = gzip(&vec![b'a'; 100_000]);
    gz.truncate(gz.len() / 2);
    let seen = visit(&Extractor::default(), "t.gz", &gz);
    assert!(seen.texts.is_empty());
    assert_eq!(seen.errors.len(), 1);
    assert_eq!(seen.errors[0].0, "t.gz");
}

//! Dates and times as `-newerXt` reads them: GNU's date syntax (that of
//! `date -d` and parse_datetime), in its common forms.
//!
//! - `@SECONDS[.FRACTION]`: seconds since the epoch.
//! - Calendar dates: `2024-01-31` (ISO 8601), `1/31/2024` and `1/31`
//!   (US), `31 Jan 2024`, `Jan 31 2024`, `January 31, 2024`, `31-Jan-2024`;
//!   two-digit years are 1969-2068.
//! - Times of day: `12:00`, `12:00:30`, `12:00:30.25`, with `am`/`pm`,
//!   and a zone: `Z`, `UTC`, `GMT`, `UT`, `+01:00`, `-0500`, `+1`; ISO's
//!   `2024-01-31T12:00:30Z`.
//! - Relative items: `now`, `today`, `yesterday`, `tomorrow`, `N UNIT`,
//!   `+N UNIT`, `-N UNIT`, `UNIT` (one), `last`/`this`/`next UNIT`,
//!   ordinal words (`third week`), each followed by `ago` to go back;
//!   units: year, month, fortnight, week, day, hour, minute (min), second
//!   (sec), each also plural.
//! - Days of the week (`monday`, `mon`, `last friday`, `next tue`): the
//!   next such day (today if it is one), a week earlier or later.
//! - A bare number is a time of day (`12` is noon, `1230` half past),
//!   a year after a date without one (`jan 1 2024`), or a date
//!   (`20240131`).
//!
//! As GNU: a date without a time is at midnight; a time without a date is
//! today; relative items alone move from now; an empty text is today at
//! midnight. Years, months and days move
//! the calendar date (the local time then normalized, so January 31 plus
//! a month is March 2 or 3); hours, minutes and seconds move the instant.
//! Without a zone, the local time zone (`TZ`) applies.

/// A parsed time: seconds and nanoseconds since the epoch; None when the
/// text is not a date or time this reads.
pub fn parse(text: &[u8], now: (i64, i64)) -> Option<(i64, i64)> {
    let text = std::str::from_utf8(text).ok()?.trim().to_ascii_lowercase();
    if let Some(epoch) = text.strip_prefix('@') {
        return epoch_seconds(epoch.trim());
    }
    let mut p = Parsed::default();
    p.read(&tokens(&text)?)?;
    p.resolve(now)
}

/// `SECONDS[.FRACTION]`, signed.
fn epoch_seconds(s: &str) -> Option<(i64, i64)> {
    let (neg, digits) = match s.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let (whole, frac) = digits.split_once(['.', ',']).unwrap_or((digits, ""));
    if whole.is_empty() || !whole.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let secs: i64 = whole.parse().ok()?;
    let ns = nanos(frac);
    Some(match (neg, ns) {
        (false, ns) => (secs, ns),
        (true, 0) => (-secs, 0),
        (true, ns) => (-secs - 1, 1_000_000_000 - ns),
    })
}

/// The nanoseconds of a fraction's digits (`25` → 250,000,000).
fn nanos(frac: &str) -> i64 {
    let digits: String = frac.chars().take(9).collect();
    format!("{digits:0<9}").parse().unwrap_or(0)
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    /// Digits, with how many there were (`0130` is four).
    Num(i64, usize),
    Word(String),
    Sym(char),
    /// A space between items (it ends a time's digits, e.g.).
    Space,
}

fn tokens(s: &str) -> Option<Vec<Tok>> {
    let mut out = Vec::new();
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            if out.last() != Some(&Tok::Space) {
                out.push(Tok::Space);
            }
            i += 1;
        } else if c.is_ascii_digit() {
            let start = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            let n = s[start..i].parse().ok()?;
            out.push(Tok::Num(n, i - start));
        } else if c.is_ascii_alphabetic() {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphabetic() || b[i] == b'.') {
                i += 1;
            }
            out.push(Tok::Word(s[start..i].trim_end_matches('.').to_string()));
        } else if b":/-+,.".contains(&c) {
            out.push(Tok::Sym(c as char));
            i += 1;
        } else {
            return None;
        }
    }
    Some(out)
}

/// What the items said.
#[derive(Debug, Default)]
struct Parsed {
    date: Option<(Option<i64>, i64, i64)>,
    time: Option<(i64, i64, i64, i64)>,
    /// Seconds east of UTC.
    zone: Option<i64>,
    /// Relative years, months, days, and seconds.
    rel: [i64; 4],
    /// Relative items were seen (`now` among them).
    rel_seen: bool,
    /// The last relative item (which `ago` turns around): where, how much.
    last_rel: Option<(usize, i64)>,
    /// A day of the week: its number (Sunday 0) and ordinal (0: the next
    /// such day, today included; -1 a week before; ...).
    weekday: Option<(i64, i64)>,
}

const MONTHS: [&str; 12] =
    ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

fn month(w: &str) -> Option<i64> {
    let full = [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ];
    let sept = (w == "sept").then_some(9);
    sept.or_else(|| MONTHS.iter().position(|m| *m == w).map(|i| i as i64 + 1))
        .or_else(|| full.iter().position(|m| *m == w).map(|i| i as i64 + 1))
}

/// A unit's index into `rel` and its multiple.
fn unit(w: &str) -> Option<(usize, i64)> {
    let w = w.strip_suffix('s').filter(|s| !s.is_empty() && *s != "sec").unwrap_or(w);
    Some(match w {
        "year" => (0, 1),
        "month" => (1, 1),
        "fortnight" => (2, 14),
        "week" => (2, 7),
        "day" => (2, 1),
        "hour" => (3, 3600),
        "minute" | "min" => (3, 60),
        "second" | "sec" => (3, 1),
        _ => return None,
    })
}

fn weekday(w: &str) -> Option<i64> {
    let names: [&[&str]; 7] = [
        &["sunday", "sun"],
        &["monday", "mon"],
        &["tuesday", "tue", "tues"],
        &["wednesday", "wed", "wednes"],
        &["thursday", "thu", "thur", "thurs"],
        &["friday", "fri"],
        &["saturday", "sat"],
    ];
    names.iter().position(|n| n.contains(&w)).map(|i| i as i64)
}

fn ordinal(w: &str) -> Option<i64> {
    let words = [
        "last", "this", "next", "first", "third", "fourth", "fifth", "sixth", "seventh", "eighth",
        "ninth", "tenth", "eleventh", "twelfth",
    ];
    let values = [-1, 0, 1, 1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
    words.iter().position(|x| *x == w).map(|i| values[i])
}

/// A two-digit year as GNU reads it.
fn full_year(y: i64, digits: usize) -> i64 {
    match digits {
        1 | 2 if y < 69 => y + 2000,
        1 | 2 => y + 1900,
        _ => y,
    }
}

impl Parsed {
    fn set_date(&mut self, d: (Option<i64>, i64, i64)) -> Option<()> {
        let (_, m, day) = d;
        if self.date.is_some() || !(1..=12).contains(&m) || !(1..=31).contains(&day) {
            return None;
        }
        self.date = Some(d);
        Some(())
    }

    /// Adds a relative item: `n` of `rel[k]`.
    fn relative(&mut self, k: usize, n: i64) {
        self.rel[k] += n;
        self.rel_seen = true;
        self.last_rel = Some((k, n));
    }

    fn set_weekday(&mut self, day: i64, ordinal: i64) -> Option<()> {
        if self.weekday.is_some() {
            return None;
        }
        self.weekday = Some((day, ordinal));
        Some(())
    }

    /// A number alone: a year after a date without one, a date of more
    /// than four digits (YYYYMMDD), else a time of day (HH or HHMM).
    fn bare_number(&mut self, n: i64, digits: usize) -> Option<()> {
        match self.date {
            Some((None, m, d)) if self.time.is_some() || digits > 2 => {
                self.date = Some((Some(full_year(n, digits)), m, d));
                return Some(());
            }
            _ => {}
        }
        if digits > 4 {
            return self.set_date((Some(n / 10000), n / 100 % 100, n % 100));
        }
        let (h, m) = if digits <= 2 { (n, 0) } else { (n / 100, n % 100) };
        if self.time.is_some() || h > 23 || m > 59 {
            return None;
        }
        self.time = Some((h, m, 0, 0));
        Some(())
    }

    fn read(&mut self, t: &[Tok]) -> Option<()> {
        use Tok::{Num, Space, Sym, Word};
        if t.iter().all(|x| *x == Space) {
            // Nothing: today, at midnight.
            self.date = Some((None, 0, 0));
            return Some(());
        }
        let mut i = 0;
        let at = |i: usize| t.get(i);
        while i < t.len() {
            match (&t[i], at(i + 1), at(i + 2), at(i + 3), at(i + 4)) {
                (Space, ..) | (Sym(','), ..) => i += 1,
                // 2024-01-31 (and its T12:00 below)
                (Num(y, 4), Some(Sym('-')), Some(Num(m, _)), Some(Sym('-')), Some(Num(d, _))) => {
                    self.set_date((Some(*y), *m, *d))?;
                    i += 5;
                    if let Some(Word(w)) = at(i) {
                        if w == "t" {
                            i += 1;
                        }
                    }
                }
                // 1/31[/2024]
                (Num(m, _), Some(Sym('/')), Some(Num(d, _)), ..) => {
                    let year = match (at(i + 3), at(i + 4)) {
                        (Some(Sym('/')), Some(Num(y, n))) => Some(full_year(*y, *n)),
                        _ => None,
                    };
                    self.set_date((year, *m, *d))?;
                    i += if year.is_some() { 5 } else { 3 };
                }
                // 31-Jan-2024
                (Num(d, _), Some(Sym('-')), Some(Word(w)), Some(Sym('-')), Some(Num(y, n)))
                    if month(w).is_some() =>
                {
                    self.set_date((Some(full_year(*y, *n)), month(w)?, *d))?;
                    i += 5;
                }
                // 12:00[:30[.25]]
                (Num(h, _), Some(Sym(':')), Some(Num(m, _)), ..) => {
                    i = self.read_time(t, i, *h, *m)?;
                }
                // 31 Jan [2024]
                (Num(d, _), Some(Space), Some(Word(w)), ..) if month(w).is_some() => {
                    let m = month(w)?;
                    i += 3;
                    let year = match (at(i), at(i + 1)) {
                        (Some(Space), Some(Num(y, n))) if !matches!(at(i + 2), Some(Sym(':'))) => {
                            i += 2;
                            Some(full_year(*y, *n))
                        }
                        _ => None,
                    };
                    self.set_date((year, m, *d))?;
                }
                // Jan 31[,] [2024]
                (Word(w), Some(Space), Some(Num(d, _)), ..) if month(w).is_some() => {
                    let m = month(w)?;
                    i += 3;
                    let mut j = i;
                    if let Some(Sym(',')) = at(j) {
                        j += 1;
                    }
                    let year = match (at(j), at(j + 1)) {
                        (Some(Space), Some(Num(y, n))) if !matches!(at(j + 2), Some(Sym(':'))) => {
                            i = j + 2;
                            Some(full_year(*y, *n))
                        }
                        _ => None,
                    };
                    self.set_date((year, m, *d))?;
                }
                // [+-]N UNIT
                (Sym(s @ ('+' | '-')), Some(Num(n, _)), ..) => {
                    let sign = if *s == '-' { -1 } else { 1 };
                    let mut j = i + 2;
                    if at(j) == Some(&Space) {
                        j += 1;
                    }
                    let Some(Word(w)) = at(j) else { return None };
                    let (k, mult) = unit(w)?;
                    self.relative(k, sign * n * mult);
                    i = j + 1;
                }
                // N UNIT, N DAY (the Nth such day), or N alone.
                (Num(n, digits), ..) => {
                    let mut j = i + 1;
                    if at(j) == Some(&Space) {
                        j += 1;
                    }
                    match at(j) {
                        Some(Word(w)) if unit(w).is_some() => {
                            let (k, mult) = unit(w)?;
                            self.relative(k, n * mult);
                            i = j + 1;
                        }
                        Some(Word(w)) if weekday(w).is_some() => {
                            self.set_weekday(weekday(w)?, *n)?;
                            i = j + 1;
                        }
                        _ => {
                            self.bare_number(*n, *digits)?;
                            i += 1;
                        }
                    }
                }
                (Word(w), ..) => {
                    i += 1;
                    match w.as_str() {
                        "now" | "today" => self.relative(3, 0),
                        "yesterday" => self.relative(2, -1),
                        "tomorrow" => self.relative(2, 1),
                        // The relative item just before goes back instead.
                        "ago" => {
                            let (k, n) = self.last_rel.take()?;
                            self.rel[k] -= 2 * n;
                        }
                        w if weekday(w).is_some() => {
                            self.set_weekday(weekday(w)?, 0)?;
                            if at(i) == Some(&Sym(',')) {
                                i += 1;
                            }
                        }
                        "z" | "utc" | "gmt" | "ut" if self.time.is_some() => {
                            self.set_zone(0)?;
                        }
                        w if ordinal(w).is_some() => {
                            if at(i) == Some(&Space) {
                                i += 1;
                            }
                            let Some(Word(u)) = at(i) else { return None };
                            match (unit(u), weekday(u)) {
                                (Some((k, mult)), _) => self.relative(k, ordinal(w)? * mult),
                                (None, Some(day)) => self.set_weekday(day, ordinal(w)?)?,
                                (None, None) => return None,
                            }
                            i += 1;
                        }
                        w => {
                            let (k, mult) = unit(w)?;
                            self.relative(k, mult);
                        }
                    }
                }
                _ => return None,
            }
        }
        Some(())
    }

    fn set_zone(&mut self, east: i64) -> Option<()> {
        if self.zone.is_some() {
            return None;
        }
        self.zone = Some(east);
        Some(())
    }

    /// Reads a time of day from `t[i]` (hours `h`, minutes `m` read);
    /// returns where the next item starts.
    fn read_time(&mut self, t: &[Tok], i: usize, h: i64, m: i64) -> Option<usize> {
        use Tok::{Num, Space, Sym, Word};
        let at = |i: usize| t.get(i);
        let mut j = i + 3;
        let (mut s, mut ns) = (0, 0);
        if let (Some(Sym(':')), Some(Num(sec, _))) = (at(j), at(j + 1)) {
            s = *sec;
            j += 2;
            if let (Some(Sym('.' | ',')), Some(Num(_, _))) = (at(j), at(j + 1)) {
                // The fraction's digits, as written (leading zeros count).
                let digits = fraction_digits(t, j + 1)?;
                ns = nanos(&digits);
                j += 2;
            }
        }
        let mut hour = h;
        let mut k = j;
        if at(k) == Some(&Space) {
            k += 1;
        }
        if let Some(Word(w)) = at(k) {
            if w == "am" || w == "pm" || w == "a.m" || w == "p.m" {
                if !(1..=12).contains(&hour) {
                    return None;
                }
                hour = hour % 12 + if w.starts_with('p') { 12 } else { 0 };
                j = k + 1;
            }
        }
        if self.time.is_some() || hour > 23 || m > 59 || s > 60 {
            return None;
        }
        self.time = Some((hour, m, s, ns));
        // A zone right after the time: +01:00, -0500, +1.
        let mut k = j;
        if at(k) == Some(&Space) {
            k += 1;
        }
        if let (Some(Sym(sign @ ('+' | '-'))), Some(Num(n, digits))) = (at(k), at(k + 1)) {
            let unit_follows = matches!(
                (at(k + 2), at(k + 3)),
                (Some(Word(w)), _) | (Some(Space), Some(Word(w))) if unit(w).is_some()
            );
            if !unit_follows {
                let sign = if *sign == '-' { -1 } else { 1 };
                let (hh, mm, next) = match (at(k + 2), at(k + 3)) {
                    (Some(Sym(':')), Some(Num(mm, _))) => (*n, *mm, k + 4),
                    _ if *digits > 2 => (n / 100, n % 100, k + 2),
                    _ => (*n, 0, k + 2),
                };
                if hh > 24 || mm > 59 {
                    return None;
                }
                self.set_zone(sign * (hh * 3600 + mm * 60))?;
                return Some(next);
            }
        }
        Some(j)
    }

    /// The instant, in the zone given or the local one.
    fn resolve(&self, now: (i64, i64)) -> Option<(i64, i64)> {
        let local = broken_down(now.0)?;
        let today = (i64::from(local.tm_mon) + 1, i64::from(local.tm_mday));
        let (year, mon, day) = match self.date {
            // An empty text: today.
            Some((None, 0, 0)) => (i64::from(local.tm_year) + 1900, today.0, today.1),
            Some((y, m, d)) => (y.unwrap_or(i64::from(local.tm_year) + 1900), m, d),
            None => (i64::from(local.tm_year) + 1900, today.0, today.1),
        };
        let (h, mi, s, ns) = match (self.time, self.date.is_some() || self.weekday.is_some()) {
            (Some(t), _) => t,
            (None, true) => (0, 0, 0, 0),
            // Relative items alone: from now.
            (None, false) => {
                let t =
                    (i64::from(local.tm_hour), i64::from(local.tm_min), i64::from(local.tm_sec));
                (t.0, t.1, t.2, now.1)
            }
        };
        // The date must exist (GNU refuses February 30).
        if let Some((_, m, d)) = self.date.filter(|d| d.1 != 0) {
            if d > days_in_month(year, m) {
                return None;
            }
        }
        // A day of the week: from the date's own day of the week.
        let mut day = day;
        if let Some((number, ord)) = self.weekday {
            let wday = i64::from(broken_down(local_seconds(year, mon, day, 12, 0, 0)?)?.tm_wday);
            let later = ord > 0 && wday != number;
            day += (number - wday + 7) % 7 + 7 * (ord - i64::from(later));
        }
        let (y, m, d) = (year + self.rel[0], mon + self.rel[1], day + self.rel[2]);
        let secs = match self.zone {
            Some(east) => utc_seconds(y, m, d, h, mi, s)? - east,
            None => local_seconds(y, m, d, h, mi, s)?,
        };
        Some((secs.checked_add(self.rel[3])?, ns))
    }
}

/// The digits of the fraction token at `t[i]`, with its leading zeros
/// (the tokenizer kept their count, not their text).
fn fraction_digits(t: &[Tok], i: usize) -> Option<String> {
    match t.get(i) {
        Some(Tok::Num(n, digits)) => Some(format!("{n:0>width$}", width = *digits)),
        _ => None,
    }
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

fn broken_down(t: i64) -> Option<libc::tm> {
    // SAFETY: an all-zero tm is valid; localtime_r fills it in.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    let time = t as libc::time_t;
    // SAFETY: both pointers are valid for the call.
    (!unsafe { libc::localtime_r(&time, &mut tm) }.is_null()).then_some(tm)
}

fn tm_of(y: i64, m: i64, d: i64, h: i64, mi: i64, s: i64) -> Option<libc::tm> {
    // SAFETY: an all-zero tm is valid.
    let mut tm: libc::tm = unsafe { std::mem::zeroed() };
    tm.tm_year = i32::try_from(y - 1900).ok()?;
    tm.tm_mon = i32::try_from(m - 1).ok()?;
    tm.tm_mday = i32::try_from(d).ok()?;
    tm.tm_hour = i32::try_from(h).ok()?;
    tm.tm_min = i32::try_from(mi).ok()?;
    tm.tm_sec = i32::try_from(s).ok()?;
    tm.tm_isdst = -1;
    Some(tm)
}

/// A local date and time (fields may overflow: normalized as mktime does).
fn local_seconds(y: i64, m: i64, d: i64, h: i64, mi: i64, s: i64) -> Option<i64> {
    let mut tm = tm_of(y, m, d, h, mi, s)?;
    // SAFETY: a valid tm, which mktime normalizes in place.
    let t = unsafe { libc::mktime(&mut tm) };
    (t != -1 || (tm.tm_year == 69 && tm.tm_mon == 11 && tm.tm_mday == 31)).then_some(t)
}

/// A date and time in UTC (fields may overflow).
fn utc_seconds(y: i64, m: i64, d: i64, h: i64, mi: i64, s: i64) -> Option<i64> {
    let mut tm = tm_of(y, m, d, h, mi, s)?;
    // SAFETY: a valid tm, which timegm normalizes in place.
    Some(unsafe { libc::timegm(&mut tm) })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utc(text: &str) -> Option<(i64, i64)> {
        // 2024-03-10 15:30:45.5 UTC: a Sunday.
        parse(text.as_bytes(), (1_710_084_645, 500_000_000))
    }

    #[test]
    fn absolute_forms_in_utc() {
        // SAFETY: tests of this module run in one process whose TZ they set
        // first; nothing else here reads the environment meanwhile.
        unsafe { std::env::set_var("TZ", "UTC") };
        let jan1_noon = Some((1_704_110_400, 0));
        for text in [
            "2024-01-01 12:00",
            "2024-01-01T12:00:00",
            "2024-01-01T12:00Z",
            "2024-01-01 13:00 +01:00",
            "2024-01-01 07:00:00 -0500",
            "1/1/2024 12:00",
            "1/1/24 12:00pm",
            "Jan 1 2024 12:00",
            "January 1, 2024 12:00:00",
            "1 Jan 2024 12:00",
            "1-jan-2024 12:00 UTC",
            "@1704110400",
            "  2024-01-01 12:00  ",
        ] {
            assert_eq!(utc(text), jan1_noon, "{text}");
        }
        assert_eq!(utc("2024-01-01"), Some((1_704_067_200, 0)));
        assert_eq!(utc("@1.25"), Some((1, 250_000_000)));
        assert_eq!(utc("@-1.25"), Some((-2, 750_000_000)));
        assert_eq!(utc("2024-01-01 12:00:00.05"), Some((1_704_110_400, 50_000_000)));
        assert_eq!(utc("12:00 am 2024-01-01"), Some((1_704_067_200, 0)));
    }

    #[test]
    fn relative_forms_move_from_now_or_from_the_date() {
        // SAFETY: as above.
        unsafe { std::env::set_var("TZ", "UTC") };
        let now = 1_710_084_645;
        assert_eq!(utc("now"), Some((now, 500_000_000)));
        assert_eq!(utc("today"), Some((now, 500_000_000)));
        assert_eq!(utc("yesterday"), Some((now - 86400, 500_000_000)));
        assert_eq!(utc("2 days ago"), Some((now - 2 * 86400, 500_000_000)));
        assert_eq!(utc("-2 days"), Some((now - 2 * 86400, 500_000_000)));
        // `ago` turns the item just before it around.
        assert_eq!(utc("1 hour 30 minutes ago"), Some((now + 1800, 500_000_000)));
        assert_eq!(utc("2 days ago 10:00"), utc("2024-03-08 10:00"));
        assert_eq!(utc("last week"), Some((now - 7 * 86400, 500_000_000)));
        assert_eq!(utc("next fortnight"), Some((now + 14 * 86400, 500_000_000)));
        assert_eq!(utc("week"), Some((now + 7 * 86400, 500_000_000)));
        // A month from January 31 is normalized as mktime does.
        assert_eq!(utc("2024-01-31 +1 month"), utc("2024-03-02"));
        assert_eq!(utc("2024-01-01 1 day"), utc("2024-01-02"));
        // A time alone is today; nothing at all, today at midnight.
        assert_eq!(utc("10:00"), Some((now - 5 * 3600 - 30 * 60 - 45, 0)));
        assert_eq!(utc(""), utc("2024-03-10"));
        assert_eq!(utc("2024-01-01 12"), utc("2024-01-01 12:00"));
        assert_eq!(utc("2024-01-01 1230"), utc("2024-01-01 12:30"));
        assert_eq!(utc("20240101"), utc("2024-01-01"));
        assert_eq!(utc("jan 1 2024"), utc("2024-01-01"));
        // Days of the week: 2024-03-10 is a Sunday.
        assert_eq!(utc("monday"), utc("2024-03-11"));
        assert_eq!(utc("sunday"), utc("2024-03-10"));
        assert_eq!(utc("last sunday"), utc("2024-03-03"));
        assert_eq!(utc("next sunday"), utc("2024-03-17"));
        assert_eq!(utc("next monday"), utc("2024-03-11"));
        assert_eq!(utc("fri 12:00"), utc("2024-03-15 12:00"));
    }

    #[test]
    fn what_is_not_a_date_is_refused() {
        // SAFETY: as above.
        unsafe { std::env::set_var("TZ", "UTC") };
        for text in [
            "garbage",
            "2024-02-30",
            "2024-13-01",
            "25:00",
            "24:00",
            "12:60",
            "1 2 3",
            "ago",
            "2024-01-01 2024-01-02",
            "@x",
            "3 parsecs",
            "12:00 13:00",
            "2024-01-01 +1",
        ] {
            assert_eq!(utc(text), None, "{text}");
        }
    }
}

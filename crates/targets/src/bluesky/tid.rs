//! Record keys: a valid TID derived from the target, the key and the generation, so that every
//! attempt of one copy names the same record, even after the state file is lost. A real key's
//! record keys fall in the first hour (UTC) of its day; a drill's (`dayrun drill`) in the hour
//! from 12:00 UTC, so no lookup of one lists the other's.

use life::Key;
use sha2::{Digest, Sha256};

/// atproto's base32-sortable alphabet.
const ALPHABET: &[u8; 32] = b"234567abcdefghijklmnopqrstuvwxyz";
/// The derived time falls in the first hour (UTC) of the key's day.
const SPREAD_MICROS: u64 = 3_600_000_000;
/// A drill key's hour starts this long after its day's (12:00 UTC).
const DRILL_MICROS: u64 = 12 * SPREAD_MICROS;

/// The TID of copy `generation` of `key` on target `target`: 53 bits of microseconds (the
/// key's day at 00:00 UTC plus up to an hour, from a hash) and 10 bits of clock id (from the
/// same hash), top bit zero, as 13 characters. Keys sort by date like the server's own TIDs.
pub fn record_key(target: &str, key: Key, generation: u32) -> String {
    derive(
        &format!("dayrun bluesky rkey\n{target}\n{key}\n{generation}"),
        key,
    )
}

/// The TID of a seed: the key's day plus up to an hour, and a clock id, from its hash.
fn derive(seed: &str, key: Key) -> String {
    let hash = Sha256::digest(seed);
    let spread = u64::from_be_bytes(hash[..8].try_into().expect("8 bytes")) % SPREAD_MICROS;
    let clock = u64::from(u16::from_be_bytes([hash[8], hash[9]]) & 0x3ff);
    encode((((day_micros(key) + spread) & MICROS) << 10) | clock)
}

/// The record keys of every copy of `key` on any target: from the first TID of the key's hour
/// up to (not including) the first TID after it. `None` where TID time runs out (year 2255).
pub fn hour(key: Key) -> Option<(String, String)> {
    let (low, high) = (day_micros(key), day_micros(key) + SPREAD_MICROS);
    (high <= MICROS).then(|| (encode(low << 10), encode(high << 10)))
}

/// The 53 bits of microseconds a TID holds.
const MICROS: u64 = (1 << 53) - 1;

/// The start of the key's hour in microseconds: its day at 00:00 UTC (a drill key's at 12:00);
/// before 1970 there is no TID time, and such keys take the first hour of 1970.
fn day_micros(key: Key) -> u64 {
    let day = key
        .day()
        .to_zoned_datetime(jiff::tz::TimeZone::UTC)
        .map_or(0, |z| z.timestamp().as_microsecond());
    let drill = if key.is_drill() { DRILL_MICROS } else { 0 };
    u64::try_from(day).unwrap_or(0) + drill
}

/// The TID of part `n` of a thread: part 0 is the copy's own record key (`record_key`); each
/// later part's hash adds its number, so every part of every copy has a key of its own.
pub fn part_key(target: &str, key: Key, generation: u32, n: usize) -> String {
    match n {
        0 => record_key(target, key, generation),
        n => derive(
            &format!("dayrun bluesky rkey\n{target}\n{key}\n{generation}\npart {n}"),
            key,
        ),
    }
}

fn encode(mut value: u64) -> String {
    let mut out = [0u8; 13];
    for slot in out.iter_mut().rev() {
        *slot = ALPHABET[(value & 31) as usize];
        value >>= 5;
    }
    String::from_utf8(out.to_vec()).expect("ASCII")
}

/// Whether `text` is a TID as atproto's syntax checks it.
pub fn is_tid(text: &str) -> bool {
    text.len() == 13
        && text.bytes().all(|b| ALPHABET.contains(&b))
        && b"234567abcdefghij".contains(&text.as_bytes()[0])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(text: &str) -> Key {
        text.parse().unwrap()
    }

    #[test]
    fn the_same_copy_gets_the_same_key_and_every_other_copy_another() {
        let a = record_key("sky", day("2026-11-29"), 0);
        assert_eq!(a, record_key("sky", day("2026-11-29"), 0));
        assert_ne!(a, record_key("sky", day("2026-11-29"), 1));
        assert_ne!(a, record_key("sky", day("2026-11-30"), 0));
        assert_ne!(a, record_key("other", day("2026-11-29"), 0));
        assert!(is_tid(&a), "{a}");
    }

    #[test]
    fn keys_are_valid_tids_that_sort_by_date() {
        let mut last = String::new();
        assert!(is_tid(&record_key("sky", day("1969-12-31"), 0)));
        for key in ["1970-01-01", "2001-01-01", "2026-11-29", "2099-12-31"] {
            let rkey = record_key("sky", day(key), 0);
            assert!(is_tid(&rkey), "{key}: {rkey}");
            assert!(rkey >= last, "{key}: {rkey} < {last}");
            last = rkey;
        }
        // Known value, computed independently (Python: hashlib + the same arithmetic). A change
        // here changes every user's record keys: a lost state file would no longer find them.
        assert_eq!(record_key("sky", day("2026-11-29"), 0), "3n3fzbhbhz7o2");
    }

    #[test]
    fn part_0_keeps_the_copys_key_and_every_part_has_its_own() {
        let day = day("2026-11-29");
        assert_eq!(part_key("sky", day, 0, 0), "3n3fzbhbhz7o2");
        let keys: Vec<String> = (0..10).map(|n| part_key("sky", day, 0, n)).collect();
        for (i, k) in keys.iter().enumerate() {
            assert!(is_tid(k), "{k}");
            assert!(!keys[..i].contains(k), "{k} twice");
            assert_ne!(*k, part_key("sky", day, 1, i));
        }
    }

    #[test]
    fn every_copy_of_a_key_lies_in_its_hour_and_hours_do_not_overlap() {
        for key in ["1969-12-31", "2001-01-01", "2026-11-29", "2026-11-30"] {
            let (low, high) = hour(day(key)).unwrap();
            assert!(is_tid(&low) && is_tid(&high), "{low} {high}");
            for generation in 0..50 {
                for target in ["sky", "other"] {
                    let rkey = record_key(target, day(key), generation);
                    assert!(low <= rkey && rkey < high, "{key} #{generation}: {rkey}");
                    // A thread's parts too: the survey's walk over the hour finds them.
                    for n in 1..20 {
                        let part = part_key(target, day(key), generation, n);
                        assert!(
                            low <= part && part < high,
                            "{key} #{generation}/{n}: {part}"
                        );
                    }
                }
            }
        }
        let (_, end) = hour(day("2026-11-29")).unwrap();
        let (next, _) = hour(day("2026-11-30")).unwrap();
        assert!(end < next);
        assert_eq!(hour(day("2300-01-01")), None, "past TID time");
    }

    #[test]
    fn a_drill_keys_records_lie_in_its_own_hour_never_a_real_keys() {
        let (real, drill) = (day("2026-11-29"), day("2026-11-29--drill-7f3a-01"));
        let (low, high) = hour(drill).unwrap();
        let (real_low, real_high) = hour(real).unwrap();
        assert!(real_high < low, "the drill's hour is after the real key's");
        let (next_low, _) = hour(day("2026-11-30")).unwrap();
        assert!(high < next_low, "and before the next day's");
        for generation in 0..50 {
            for n in 0..5 {
                let rkey = part_key("sky", drill, generation, n);
                assert!(is_tid(&rkey) && low <= rkey && rkey < high, "{rkey}");
                let theirs = part_key("sky", real, generation, n);
                assert!(theirs < low && real_low <= theirs && theirs < real_high);
            }
        }
    }

    #[test]
    fn the_syntax_check_matches_atproto() {
        assert!(is_tid("3jzfcijpj2z2a"));
        assert!(!is_tid("3jzfcijpj2z2"));
        assert!(!is_tid("kjzfcijpj2z2a"), "top bit set");
        assert!(!is_tid("3jzfcijpj2z2A"));
        assert!(!is_tid("hello-world"));
    }
}

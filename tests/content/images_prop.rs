//! Issue 21: properties of the image cleaner (`dayrun::images::clean::clean`), against the
//! library. Bytes that start like one of the four formats and go on at random, and the test
//! images with random bytes overwritten, fields set to large values or cut short, never make it
//! panic and never make it allocate more than the memory budget (the limits are checked from
//! the headers before decoding); whatever it accepts, it accepts again unchanged (cleaning is
//! idempotent). Allocations are counted per thread by a counting allocator.

use crate::support::image_gen;
use crate::support::image_hostile as hostile_gen;
use dayrun::images::clean::clean;
use proptest::prelude::*;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// What one call to `clean` may allocate at its peak, over what was live before it.
const BUDGET: usize = 200 * 1024 * 1024;

thread_local! {
    static LIVE: Cell<usize> = const { Cell::new(0) };
    static PEAK: Cell<usize> = const { Cell::new(0) };
}

/// The system allocator, counting the bytes live on each thread and their peak.
struct Counting;

fn grew(by: usize) {
    let _ = LIVE.try_with(|live| {
        let now = live.get().saturating_add(by);
        live.set(now);
        let _ = PEAK.try_with(|peak| peak.set(peak.get().max(now)));
    });
}

fn shrank(by: usize) {
    let _ = LIVE.try_with(|live| live.set(live.get().saturating_sub(by)));
}

// SAFETY: every call goes to `System` with the same arguments; only counters are added.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        shrank(layout.size());
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        grew(new_size);
        shrank(layout.size());
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// `clean(bytes)`, and the most it allocated at once on this thread beyond what was live.
fn clean_measured(bytes: Vec<u8>) -> (Result<Vec<u8>, String>, usize) {
    let base = LIVE.with(Cell::get);
    PEAK.with(|p| p.set(base));
    let out = clean(bytes).map(|c| c.bytes).map_err(|e| e.to_string());
    (out, PEAK.with(Cell::get).saturating_sub(base))
}

/// Small valid images of every format, with metadata, animation and traps.
fn seeds() -> Vec<Vec<u8>> {
    vec![
        image_gen::rotated_jpeg(),
        image_gen::jpeg_with_exif(24, 16, image_gen::ORIENTATION_NORMAL),
        image_gen::png_with_text(),
        image_gen::gif(),
        image_gen::webp_with_exif(),
        hostile_gen::webp_exif_in_frame(),
        hostile_gen::apng_black(16, 8, 3, None),
        hostile_gen::png_iend_in_idat(),
        hostile_gen::jpeg_jfxx_jpeg_thumbnail(),
        hostile_gen::gif_with_xmp_and_text(),
    ]
}

/// One change to a file: a byte, a big-endian or little-endian size field, or a cut.
#[derive(Debug, Clone)]
enum Change {
    Byte(usize, u8),
    Be32(usize, u32),
    Le16(usize, u16),
    Cut(usize),
}

fn change() -> impl Strategy<Value = Change> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(at, b)| Change::Byte(at, b)),
        (
            any::<usize>(),
            prop_oneof![Just(4000u32), Just(20_000), Just(65_535), any::<u32>()]
        )
            .prop_map(|(at, v)| Change::Be32(at, v)),
        (
            any::<usize>(),
            prop_oneof![Just(4000u16), Just(16_383), any::<u16>()]
        )
            .prop_map(|(at, v)| Change::Le16(at, v)),
        any::<usize>().prop_map(Change::Cut),
    ]
}

fn apply(mut bytes: Vec<u8>, changes: &[Change]) -> Vec<u8> {
    for c in changes {
        let len = bytes.len().max(1);
        match *c {
            Change::Byte(at, b) => {
                if let Some(x) = bytes.get_mut(at % len) {
                    *x = b;
                }
            }
            Change::Be32(at, v) => {
                for (i, b) in v.to_be_bytes().into_iter().enumerate() {
                    if let Some(x) = bytes.get_mut(at % len + i) {
                        *x = b;
                    }
                }
            }
            Change::Le16(at, v) => {
                for (i, b) in v.to_le_bytes().into_iter().enumerate() {
                    if let Some(x) = bytes.get_mut(at % len + i) {
                        *x = b;
                    }
                }
            }
            Change::Cut(at) => bytes.truncate(at % len),
        }
    }
    bytes
}

/// Accepted bytes are accepted again, unchanged.
fn idempotent(out: &[u8]) -> Result<(), TestCaseError> {
    let (again, _) = clean_measured(out.to_vec());
    let again = again.map_err(|e| TestCaseError::fail(format!("its own output refused: {e}")))?;
    prop_assert!(
        again == out,
        "cleaning it again changed {} bytes",
        out.len()
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 96,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn changed_test_images_never_panic_nor_pass_the_budget(
        seed in 0..10usize,
        changes in prop::collection::vec(change(), 1..6),
    ) {
        let bytes = apply(seeds().swap_remove(seed), &changes);
        let (out, peak) = clean_measured(bytes);
        prop_assert!(peak <= BUDGET, "allocated {} MB at once", peak >> 20);
        if let Ok(out) = out {
            idempotent(&out)?;
        }
    }

    #[test]
    fn bytes_that_start_like_an_image_never_panic_nor_pass_the_budget(
        format in 0..4usize,
        rest in prop::collection::vec(any::<u8>(), 0..600),
    ) {
        let head: &[u8] = match format {
            0 => b"\xFF\xD8\xFF",
            1 => b"\x89PNG\r\n\x1a\n",
            2 => b"GIF89a",
            _ => b"RIFF\0\0\0\0WEBPVP8",
        };
        let mut bytes = head.to_vec();
        bytes.extend(rest);
        let (out, peak) = clean_measured(bytes);
        prop_assert!(peak <= BUDGET, "allocated {} MB at once", peak >> 20);
        if let Ok(out) = out {
            idempotent(&out)?;
        }
    }
}

#[test]
fn every_seed_is_cleaned_and_cleaning_is_idempotent() {
    for (i, seed) in seeds().into_iter().enumerate() {
        let (out, peak) = clean_measured(seed);
        let out = out.unwrap_or_else(|e| panic!("seed {i} refused: {e}"));
        assert!(peak <= BUDGET, "seed {i}: {} MB", peak >> 20);
        image_gen::assert_clean(&format!("seed {i}"), &out);
        let (again, _) = clean_measured(out.clone());
        assert_eq!(again.unwrap(), out, "seed {i}: not idempotent");
    }
}

#[test]
fn the_allocator_counts() {
    let (_, peak) = {
        let base = LIVE.with(Cell::get);
        PEAK.with(|p| p.set(base));
        let v = vec![1u8; 3 << 20];
        drop(v);
        ((), PEAK.with(Cell::get) - base)
    };
    assert!(peak >= 3 << 20, "{peak}");
}

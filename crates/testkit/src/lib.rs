//! A region of a file in the repository that a test keeps equal to what the code makes.

/// The text between `begin` and `end` in a file of the repository; with `DAYRUN_BLESS=1`, the
/// file is rewritten with `want` there first.
pub fn region(path: &str, begin: &str, end: &str, want: &str) -> String {
    let full = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    let text = std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{path}: {e}"));
    let start = text
        .find(begin)
        .unwrap_or_else(|| panic!("{path} lacks {begin:?}"))
        + begin.len();
    let stop = start
        + text[start..]
            .find(end)
            .unwrap_or_else(|| panic!("{path} lacks {end:?}"));
    if std::env::var_os("DAYRUN_BLESS").is_some() {
        let blessed = format!("{}{want}{}", &text[..start], &text[stop..]);
        std::fs::write(&full, blessed).unwrap();
        return want.to_string();
    }
    text[start..stop].to_string()
}

//! What a lookup compares of a copy it found, normalised the way servers keep what they were
//! sent: a marker (a slug, a record key, a key field) says where a copy would be, the content
//! says whether the copy there is this post.

/// The words of an HTML fragment: tags dropped, entities decoded, whitespace collapsed. A server
/// that filters what it stores (WordPress's KSES for a user without `unfiltered_html`: tags it
/// does not allow removed, `&` written `&amp;`, `<br>` as `<br />`) keeps these words.
pub fn html_text(html: &str) -> String {
    let mut text = String::with_capacity(html.len());
    let mut in_tag = false;
    for c in html.chars() {
        match (in_tag, c) {
            (false, '<') => {
                in_tag = true;
                text.push(' ');
            }
            (true, '>') => in_tag = false,
            (true, _) => {}
            (false, c) => text.push(c),
        }
    }
    let decoded = html_escape::decode_html_entities(&text);
    decoded.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_filtered_copy_has_the_words_that_were_sent() {
        let sent = "<p>Fish &amp; chips<br>at <em>noon</em></p>\n<script>x()</script>";
        let kept = "<p>Fish &amp; chips<br />at <em>noon</em></p>\nx()";
        assert_eq!(html_text(sent), html_text(kept));
        assert_eq!(html_text(sent), "Fish & chips at noon x()");
        assert_eq!(html_text("A & B"), html_text("A &amp; B"));
        assert_ne!(
            html_text("<p>Weekly notes</p>"),
            html_text("<p>Weekly note</p>")
        );
    }
}

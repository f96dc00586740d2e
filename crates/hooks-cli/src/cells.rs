//! Table cells. A computed column width never goes into a `{:width$}` format argument
//! (the formatter panics above 65,535, `Formatting argument out of range`): cells are cut
//! to [`MAX_CELL`] characters with [`cut`] and padded with [`pad`], whatever they hold.

/// The widest a cell of a table without its own width gets (`hooks plugin config`,
/// `hooks plugin list`, `hooks marketplace list`): more than a valid plugin id
/// (`name@marketplace`, 257 characters at most), so only a freak value is cut, with `…`;
/// `--json` has it whole.
pub(crate) const MAX_CELL: usize = 300;

/// `text` cut to `width` characters, its last one `…` when it is cut.
pub(crate) fn cut(text: &str, width: usize) -> String {
    if text.chars().nth(width).is_none() {
        return text.to_owned();
    }
    let mut out: String = text.chars().take(width.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// `text` followed by spaces up to `width` characters; a wider text as it is.
pub(crate) fn pad(text: &str, width: usize) -> String {
    let n = text.chars().count();
    let mut out = String::with_capacity(text.len() + width.saturating_sub(n));
    out.push_str(text);
    out.extend(std::iter::repeat_n(' ', width.saturating_sub(n)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_and_pad() {
        assert_eq!(cut("short", 10), "short");
        assert_eq!(cut("exactly10!", 10), "exactly10!");
        assert_eq!(cut("a bit too long", 10), "a bit too…");
        assert_eq!(cut("abc", 0), "…");
        assert_eq!(pad("ab", 4), "ab  ");
        assert_eq!(pad("é", 2), "é ");
        assert_eq!(pad("abc", 2), "abc");
        // Far past what a format width takes.
        assert_eq!(pad("", 70_000).len(), 70_000);
        assert_eq!(cut(&"x".repeat(70_000), MAX_CELL).chars().count(), MAX_CELL);
    }
}

//! What a tree was built with ([`BuildKey`]), kept in its catalog row as two integer columns
//! (`builder`, `max_leaf_tokens`; see [`super::store`]). A catalog of format 8 written before
//! those columns kept it as one text column (`build_key`, `builder 13, max leaf 4000 tokens`);
//! [`BuildKey::from_format_8_text`] reads that form, for such a catalog's readers and for the
//! write that moves it to the columns.

use std::fmt;

use super::TREE_BUILDER_VERSION;
use crate::tree::BuildOptions;

/// The [`TREE_BUILDER_VERSION`] and the options that change trees (`max_leaf_tokens`) of one
/// build. A source whose bytes are unchanged is still rebuilt when its row's key differs from
/// the run's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuildKey {
    /// The [`TREE_BUILDER_VERSION`] of the docnav that built the tree.
    pub builder: u32,
    /// [`BuildOptions::max_leaf_tokens`] of the build (tokens).
    pub max_leaf_tokens: u32,
}

impl BuildKey {
    /// The key of a build by this docnav with `options`.
    pub fn of(options: &BuildOptions) -> BuildKey {
        BuildKey {
            builder: TREE_BUILDER_VERSION,
            max_leaf_tokens: options.max_leaf_tokens,
        }
    }

    /// True when this docnav's builder ([`TREE_BUILDER_VERSION`]) made the tree.
    pub fn is_current_builder(&self) -> bool {
        self.builder == TREE_BUILDER_VERSION
    }

    /// The key a format-8 catalog's `build_key` text holds (`builder 13, max leaf 4000
    /// tokens`); `None` for the empty text of rows from before build keys, or any other text
    /// (such a row is rebuilt).
    pub fn from_format_8_text(text: &str) -> Option<BuildKey> {
        let (builder, rest) = text.strip_prefix("builder ")?.split_once(", max leaf ")?;
        Some(BuildKey {
            builder: builder.parse().ok()?,
            max_leaf_tokens: rest.strip_suffix(" tokens")?.parse().ok()?,
        })
    }
}

/// `builder 13, max leaf 4000 tokens`: what [`super::tree_file_name`] hashes (the text format-8
/// catalogs stored, so tree files keep their names) and what messages show.
impl fmt::Display for BuildKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "builder {}, max leaf {} tokens",
            self.builder, self.max_leaf_tokens
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_8_text_reads_back_as_the_key_that_displays_it() {
        let key = BuildKey {
            builder: 13,
            max_leaf_tokens: 4000,
        };
        assert_eq!(key.to_string(), "builder 13, max leaf 4000 tokens");
        assert_eq!(
            BuildKey::from_format_8_text("builder 13, max leaf 4000 tokens"),
            Some(key)
        );
    }

    #[test]
    fn empty_or_foreign_format_8_text_is_no_key() {
        for text in [
            "",
            "builder test",
            "builder 9",
            "builder x, max leaf 4000 tokens",
            "builder 9, max leaf 4000",
        ] {
            assert_eq!(BuildKey::from_format_8_text(text), None, "{text:?}");
        }
    }

    #[test]
    fn the_key_of_default_options_is_this_builders() {
        let key = BuildKey::of(&BuildOptions::default());
        assert!(key.is_current_builder());
        assert_eq!(key.max_leaf_tokens, BuildOptions::default().max_leaf_tokens);
    }
}

//! The input of `hooks!`: the runtime's crate path (inserted by the facade's
//! wrapper macro), an optional type name and the config source.
//!
//! ```text
//! hooks_impl! { CRATE_PATH ; INPUT }
//! INPUT  := [ "name" "=" IDENT "," ] SOURCE [ "," ]
//! SOURCE := STRING                      // a file, relative to the calling file
//!         | "inline" "=" STRING         // the YAML itself
//!         | "stack" "=" STRING          // a stack file, relative to the calling file
//! ```

use proc_macro2::{Span, TokenStream, TokenTree};
use syn::parse::{Parse, ParseStream};
use syn::{Ident, LitStr, Token};

/// Name of the generated type when the input names none.
pub(crate) const DEFAULT_NAME: &str = "Hooks";

/// Where the config comes from.
pub(crate) enum Source {
    /// A file path literal, relative to the directory of the calling file.
    File(LitStr),
    /// The YAML text itself.
    Inline(LitStr),
    /// A stack file path literal (docs/fleet.md, *Layers*), relative to
    /// the directory of the calling file.
    Stack(LitStr),
}

impl Source {
    /// The literal errors are spanned on.
    pub(crate) fn literal(&self) -> &LitStr {
        match self {
            Source::File(l) | Source::Inline(l) | Source::Stack(l) => l,
        }
    }
}

/// A parsed `hooks!` invocation.
pub(crate) struct Input {
    /// Path of the facade's runtime re-export (`$crate` of the facade, or a
    /// test's own path), before `::__private`.
    pub(crate) krate: TokenStream,
    /// The generated type's name.
    pub(crate) name: Ident,
    /// The config.
    pub(crate) source: Source,
}

impl Parse for Input {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let mut krate = TokenStream::new();
        while !input.peek(Token![;]) {
            if input.is_empty() {
                return Err(input.error("expected `;` after the crate path"));
            }
            let tt: TokenTree = input.parse()?;
            krate.extend([tt]);
        }
        input.parse::<Token![;]>()?;
        let mut name = None;
        let source = loop {
            if input.peek(LitStr) {
                break Source::File(input.parse()?);
            }
            let key: Ident = input.parse().map_err(|e| {
                syn::Error::new(
                    e.span(),
                    "expected a config path literal, `name = Type`, `inline = \"...\"` or `stack = \"...\"`",
                )
            })?;
            if !input.peek(Token![=]) {
                let hint = if input.peek(Token![!]) {
                    format!(
                        "; `{key}!(...)` cannot be expanded inside `hooks!`: write the path as a string literal, relative to this source file"
                    )
                } else {
                    String::new()
                };
                return Err(syn::Error::new(
                    key.span(),
                    format!(
                        "expected a config path literal, `name = Type` or `inline = \"...\"`{hint}"
                    ),
                ));
            }
            input.parse::<Token![=]>()?;
            match key.to_string().as_str() {
                "name" if name.is_none() => {
                    name = Some(input.parse::<Ident>()?);
                    input.parse::<Token![,]>()?;
                }
                "name" => return Err(syn::Error::new(key.span(), "duplicate `name`")),
                "inline" => break Source::Inline(input.parse()?),
                "stack" => break Source::Stack(input.parse()?),
                other => {
                    return Err(syn::Error::new(
                        key.span(),
                        format!(
                            "unknown key `{other}`, expected one of: `name`, `inline`, `stack`"
                        ),
                    ));
                }
            }
        };
        if input.peek(Token![,]) {
            input.parse::<Token![,]>()?;
        }
        if !input.is_empty() {
            return Err(input.error("unexpected tokens after the config source"));
        }
        Ok(Input {
            krate,
            name: name.unwrap_or_else(|| Ident::new(DEFAULT_NAME, Span::call_site())),
            source,
        })
    }
}

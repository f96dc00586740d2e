//! `hooks schema [NAME]`: the JSON Schemas of the config file, each event's input and
//! output, and the `hooks serve` protocol.

use anyhow::bail;

use crate::cli::SchemaArgs;
use crate::context::Ctx;

/// Every schema name: hooks-core's (`config`, `input.EVENT`, `output.EVENT`), then `serve`.
pub fn names() -> Vec<String> {
    let mut names = hooks_core::schema_names();
    names.push("serve".to_owned());
    names
}

/// The JSON Schema called `name` (see [`names`]), or `None` for an unknown name.
pub fn schema(name: &str) -> Option<serde_json::Value> {
    if name == "serve" { Some(crate::cmd::serve::schema()) } else { hooks_core::schema(name) }
}

/// Prints the schema (pretty JSON), or the names when none is given.
pub(crate) fn run(cx: &mut Ctx<'_>, args: &SchemaArgs) -> anyhow::Result<i32> {
    let Some(name) = &args.name else {
        for name in names() {
            writeln!(cx.out, "{name}")?;
        }
        return Ok(0);
    };
    let Some(value) = schema(name) else {
        bail!("unknown schema '{name}'; run `hooks schema` to list the names");
    };
    writeln!(cx.out, "{}", serde_json::to_string_pretty(&value)?)?;
    Ok(0)
}

//! `hooks schema [NAME]`: the JSON Schemas of the config file, each event's input and
//! output, the `hooks serve` protocol, the `hooks test` file, the plugin manifest (`hooks-manifest.json`) and the
//! signed marketplace index (`index.json`).

use anyhow::bail;

use crate::cli::SchemaArgs;
use crate::context::Ctx;

/// Every schema name: hooks-core's (`config`, `input.EVENT`, `output.EVENT`), `serve`,
/// `test`, then hooks-plugins' (`plugin-manifest`, `marketplace-index`).
pub fn names() -> Vec<String> {
    let mut names = hooks_core::schema::schema_names();
    names.push("serve".to_owned());
    names.push("test".to_owned());
    names.extend(hooks_plugins::SCHEMA_NAMES.iter().map(|n| (*n).to_owned()));
    names
}

/// The JSON Schema called `name` (see [`names`]), or `None` for an unknown name.
pub fn schema(name: &str) -> Option<serde_json::Value> {
    if name == "serve" {
        Some(crate::cmd::serve::schema())
    } else if name == "test" {
        Some(crate::cmd::test::schema())
    } else {
        hooks_core::schema::schema(name).or_else(|| hooks_plugins::schema(name))
    }
}

/// Prints the schema (pretty JSON, with or without `--json`), or the names when none is
/// given (with `--json`, as `{"names": [...]}`).
pub(crate) fn run(cx: &mut Ctx<'_>, args: &SchemaArgs) -> anyhow::Result<i32> {
    let Some(name) = &args.name else {
        if cx.global.json {
            let names = serde_json::json!({ "names": names() });
            writeln!(cx.out, "{}", crate::cmd::json::pretty(&names)?)?;
            return Ok(0);
        }
        for name in names() {
            writeln!(cx.out, "{name}")?;
        }
        return Ok(0);
    };
    // `config` is the hook file of the profile in use (cursor's flat file under
    // `--profile cursor`, docs/cursor.md "Files").
    let name = match name.as_str() {
        "config" => crate::layers::profile(cx.global, cx.env)?.rules().config_schema,
        other => other,
    };
    let Some(value) = schema(name) else {
        bail!("unknown schema '{name}'; run `hooks schema` to list the names");
    };
    writeln!(cx.out, "{}", crate::cmd::json::pretty(&value)?)?;
    Ok(0)
}

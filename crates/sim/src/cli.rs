//! A tiny command-line parser for `labsim` (no clap): `--name value`, `--name=value`,
//! boolean switches, repeatable options, and typed getters that turn bad input into a
//! message instead of a panic.

use std::fmt;
use std::str::FromStr;

/// A usage error: the message is printed with the usage text, exit code 2.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CliError(pub String);

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for CliError {}

/// `text`, or with `--json` the JSON `json` makes (one line).
pub fn emit(args: &Args, text: String, json: impl FnOnce() -> serde_json::Value) -> String {
    if args.flag("json") {
        format!("{}\n", json())
    } else {
        text
    }
}

/// Parsed options of one subcommand.
#[derive(Clone, Debug, Default)]
pub struct Args {
    values: Vec<(String, String)>,
    switches: Vec<String>,
}

impl Args {
    /// Parses `args` allowing the options in `valued` (which take a value) and the
    /// switches in `switches` (names without the leading `--`).
    ///
    /// # Errors
    /// Unknown options, positional arguments, a missing value, or a value given to a switch.
    pub fn parse(args: &[String], valued: &[&str], switches: &[&str]) -> Result<Self, CliError> {
        let mut out = Args::default();
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            let Some(body) = arg.strip_prefix("--") else {
                return Err(CliError(format!("unexpected argument '{arg}'")));
            };
            let (name, inline) = match body.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (body, None),
            };
            if valued.contains(&name) {
                let value = match inline {
                    Some(v) => v,
                    None => it
                        .next()
                        .cloned()
                        .ok_or_else(|| CliError(format!("--{name} needs a value")))?,
                };
                out.values.push((name.to_string(), value));
            } else if switches.contains(&name) {
                if inline.is_some() {
                    return Err(CliError(format!("--{name} takes no value")));
                }
                out.switches.push(name.to_string());
            } else {
                return Err(CliError(format!("unknown option '--{name}'")));
            }
        }
        Ok(out)
    }

    /// Whether a switch was given.
    pub fn flag(&self, name: &str) -> bool {
        self.switches.iter().any(|s| s == name)
    }

    /// The last value given for `name`.
    pub fn value(&self, name: &str) -> Option<&str> {
        self.values
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Every value given for a repeatable option, in order.
    pub fn all(&self, name: &str) -> Vec<&str> {
        self.values
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
            .collect()
    }

    /// A typed value within `[min, max]`, or `default` when absent.
    ///
    /// # Errors
    /// When the value does not parse or is out of range.
    pub fn num<T>(&self, name: &str, default: T, min: T, max: T) -> Result<T, CliError>
    where
        T: FromStr + PartialOrd + fmt::Display + Copy,
    {
        match self.value(name) {
            None => Ok(default),
            Some(v) => parse_num(name, v, min, max),
        }
    }

    /// A comma-separated list of typed values, or `default` when absent.
    ///
    /// # Errors
    /// When an item does not parse or is out of range, or the list is empty.
    pub fn num_list<T>(&self, name: &str, default: &[T], min: T, max: T) -> Result<Vec<T>, CliError>
    where
        T: FromStr + PartialOrd + fmt::Display + Copy,
    {
        match self.value(name) {
            None => Ok(default.to_vec()),
            Some(v) => {
                let items: Vec<&str> = v
                    .split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .collect();
                if items.is_empty() {
                    return Err(CliError(format!("--{name} needs at least one value")));
                }
                items
                    .into_iter()
                    .map(|s| parse_num(name, s, min, max))
                    .collect()
            }
        }
    }

    /// A comma-separated list of words, or `default` when absent.
    ///
    /// # Errors
    /// When the list is empty.
    pub fn words(&self, name: &str, default: &[&str]) -> Result<Vec<String>, CliError> {
        match self.value(name) {
            None => Ok(default.iter().map(|s| s.to_string()).collect()),
            Some(v) => {
                let items: Vec<String> = v
                    .split(',')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(String::from)
                    .collect();
                if items.is_empty() {
                    Err(CliError(format!("--{name} needs at least one value")))
                } else {
                    Ok(items)
                }
            }
        }
    }
}

/// Parses one number named `name` and checks `min ≤ x ≤ max` (NaN fails the check).
///
/// # Errors
/// When it does not parse or is out of range.
pub fn parse_num<T>(name: &str, v: &str, min: T, max: T) -> Result<T, CliError>
where
    T: FromStr + PartialOrd + fmt::Display + Copy,
{
    let x: T = v
        .trim()
        .parse()
        .map_err(|_| CliError(format!("--{name}: '{v}' is not a valid number")))?;
    if x >= min && x <= max {
        Ok(x)
    } else {
        Err(CliError(format!(
            "--{name}: {v} is out of range ({min} to {max})"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn parses_values_switches_and_lists() {
        let a = Args::parse(
            &s(&[
                "--keys",
                "5",
                "--json",
                "--case=0.1:2",
                "--case",
                "0:1",
                "--sizes",
                "1,2",
            ]),
            &["keys", "case", "sizes"],
            &["json"],
        )
        .unwrap();
        assert!(a.flag("json"));
        assert_eq!(a.num("keys", 1u32, 1, 10).unwrap(), 5);
        assert_eq!(a.all("case"), ["0.1:2", "0:1"]);
        assert_eq!(a.num_list("sizes", &[9u32], 1, 10).unwrap(), [1, 2]);
        assert_eq!(a.num("missing", 7u32, 1, 10).unwrap(), 7);
    }

    #[test]
    fn rejects_bad_input() {
        let v = ["keys"];
        assert!(Args::parse(&s(&["--nope"]), &v, &[]).is_err());
        assert!(Args::parse(&s(&["pos"]), &v, &[]).is_err());
        assert!(Args::parse(&s(&["--keys"]), &v, &[]).is_err());
        assert!(Args::parse(&s(&["--json=1"]), &v, &["json"]).is_err());
        let a = Args::parse(&s(&["--keys", "x"]), &v, &[]).unwrap();
        assert!(a.num("keys", 1u32, 1, 10).is_err());
        let a = Args::parse(&s(&["--keys", "11"]), &v, &[]).unwrap();
        assert!(a.num("keys", 1u32, 1, 10).is_err());
        let a = Args::parse(&s(&["--keys", "NaN"]), &v, &[]).unwrap();
        assert!(a.num("keys", 1.0f64, 0.0, 10.0).is_err());
    }
}

//! The child's environment: a small base allowlist plus the request's
//! `pass`/`set`, never `BASH_ENV` or `ENV`.

use std::ffi::OsString;

use super::command::EnvSpec;
use super::preflight::PreflightError;

/// Names every child gets from the parent's environment when set there:
/// enough for programs to find tools (`PATH`), a home and temp directory,
/// a user name, a locale, a terminal type and a time zone; nothing that
/// carries credentials.
pub const BASE_ENV: &[&str] = &[
    "PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TERM", "TMPDIR", "TZ",
];

/// Names never given to a child, even when listed in `pass` or `set`:
/// `BASH_ENV` (sourced by non-interactive bash) and `ENV` (sourced by an
/// interactive POSIX sh) would run a file before the hook's command.
pub const NEVER_INHERITED: &[&str] = &["BASH_ENV", "ENV"];

/// Builds the child's environment from the parent's (`parent` looks a name
/// up) and `spec`. Later entries override earlier ones.
pub(crate) fn build_env(
    spec: &EnvSpec,
    mut parent: impl FnMut(&str) -> Option<OsString>,
) -> Result<Vec<(OsString, OsString)>, PreflightError> {
    let mut out: Vec<(OsString, OsString)> = Vec::new();
    let mut put = |name: &str, value: OsString| {
        if let Some(slot) = out.iter_mut().find(|(k, _)| k == name) {
            slot.1 = value;
        } else {
            out.push((OsString::from(name), value));
        }
    };
    for name in BASE_ENV {
        if let Some(value) = parent(name) {
            put(name, value);
        }
    }
    for name in &spec.pass {
        check_name(name)?;
        if NEVER_INHERITED.contains(&name.as_str()) {
            continue;
        }
        if let Some(value) = parent(name) {
            put(name, value);
        }
    }
    for (name, value) in &spec.set {
        check_name(name)?;
        if value.contains('\0') {
            return Err(PreflightError::InvalidEnvValue { name: name.clone() });
        }
        if NEVER_INHERITED.contains(&name.as_str()) {
            continue;
        }
        put(name, OsString::from(value));
    }
    Ok(out)
}

fn check_name(name: &str) -> Result<(), PreflightError> {
    if hooks_plan::valid_env_name(name) {
        Ok(())
    } else {
        Err(PreflightError::InvalidEnvName {
            name: name.to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parent(name: &str) -> Option<OsString> {
        match name {
            "PATH" => Some("/bin".into()),
            "HOME" => Some("/home/u".into()),
            "BASH_ENV" => Some("/tmp/evil.sh".into()),
            "SECRET" => Some("s3cr3t".into()),
            "MY_VAR" => Some("mine".into()),
            _ => None,
        }
    }

    #[test]
    fn base_only_by_default() {
        let env = build_env(&EnvSpec::default(), parent).unwrap();
        assert_eq!(
            env,
            vec![
                ("PATH".into(), "/bin".into()),
                ("HOME".into(), "/home/u".into())
            ]
        );
    }

    #[test]
    fn pass_and_set_apply_in_order_and_bash_env_is_dropped() {
        let spec = EnvSpec {
            pass: vec!["MY_VAR".into(), "BASH_ENV".into(), "UNSET".into()],
            set: vec![
                ("PATH".into(), "/opt/bin".into()),
                ("ENV".into(), "/tmp/x".into()),
                ("NEW".into(), "1".into()),
            ],
        };
        let env = build_env(&spec, parent).unwrap();
        assert_eq!(
            env,
            vec![
                ("PATH".into(), "/opt/bin".into()),
                ("HOME".into(), "/home/u".into()),
                ("MY_VAR".into(), "mine".into()),
                ("NEW".into(), "1".into()),
            ]
        );
    }

    #[test]
    fn invalid_names_and_values_are_refused() {
        for bad in ["", "A=B", "1X", "A B", "A\0"] {
            let spec = EnvSpec {
                pass: vec![bad.into()],
                set: vec![],
            };
            assert_eq!(
                build_env(&spec, parent),
                Err(PreflightError::InvalidEnvName { name: bad.into() })
            );
        }
        let spec = EnvSpec {
            pass: vec![],
            set: vec![("X".into(), "a\0b".into())],
        };
        assert_eq!(
            build_env(&spec, parent),
            Err(PreflightError::InvalidEnvValue { name: "X".into() })
        );
    }
}

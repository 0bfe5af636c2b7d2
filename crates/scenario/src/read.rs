//! Reading a scenario or data file once, whole, with a bound: a file larger than
//! [`MAX_INPUT_BYTES`] (or an endless one such as `/dev/zero`) is refused after reading at most
//! that many bytes plus one, instead of filling memory; `-` is standard input (issue 30, item 4).
//! Relative data files of a scenario read from standard input resolve against the current
//! directory ([`base_dir`]).
//!
//! Validation: tests below; python/tests/test_input_bounds.py (`aqmlab run /dev/zero`, `-`).

use std::io::Read;
use std::path::{Path, PathBuf};

/// Largest scenario or data file read, bytes: 64 MiB (the largest shipped file is under 1 MiB;
/// a bigger one is a mistake, such as a device or a log, not a scenario).
pub const MAX_INPUT_BYTES: u64 = 64 << 20;

/// The path that names standard input.
pub const STDIN: &str = "-";

/// Whether `path` names standard input (`-`, or `/dev/stdin` and its aliases, which also read
/// the pipe or terminal rather than a file beside the data files).
pub fn is_stdin(path: &Path) -> bool {
    let p = path.as_os_str();
    p == STDIN || p == "/dev/stdin" || p == "/dev/fd/0" || p == "/proc/self/fd/0"
}

/// The directory relative data files of the scenario at `path` resolve against: its own, or
/// the current directory for standard input.
pub fn base_dir(path: &Path) -> PathBuf {
    match path.parent() {
        _ if is_stdin(path) => PathBuf::from("."),
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The text of `path` (`-`: standard input), read once and at most [`MAX_INPUT_BYTES`]; the
/// error is the reason alone (callers say which file and key).
pub fn read_text(path: &Path) -> Result<String, String> {
    let limit = MAX_INPUT_BYTES;
    let mut bytes = Vec::new();
    let read = if path.as_os_str() == STDIN {
        std::io::stdin()
            .lock()
            .take(limit + 1)
            .read_to_end(&mut bytes)
    } else {
        std::fs::File::open(path).and_then(|f| f.take(limit + 1).read_to_end(&mut bytes))
    };
    read.map_err(|e| e.to_string())?;
    if bytes.len() as u64 > limit {
        return Err(format!(
            "larger than {} MiB, the limit for a scenario or data file",
            limit >> 20
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "not UTF-8 text (byte {} is not part of a UTF-8 character)",
            e.utf8_error().valid_up_to()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_at_the_limit_is_read_and_one_byte_more_is_refused() {
        let dir = std::env::temp_dir().join(format!("scenario-read-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let at = dir.join("at.toml");
        std::fs::write(&at, vec![b'#'; MAX_INPUT_BYTES as usize]).unwrap();
        assert_eq!(read_text(&at).unwrap().len(), 64 * 1024 * 1024);
        let over = dir.join("over.toml");
        std::fs::write(&over, vec![b'#'; MAX_INPUT_BYTES as usize + 1]).unwrap();
        assert_eq!(
            read_text(&over).unwrap_err(),
            "larger than 64 MiB, the limit for a scenario or data file"
        );
        let latin1 = dir.join("latin1.toml");
        std::fs::write(&latin1, b"# caf\xe9\n").unwrap();
        assert_eq!(
            read_text(&latin1).unwrap_err(),
            "not UTF-8 text (byte 5 is not part of a UTF-8 character)"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_endless_device_is_refused_after_the_limit() {
        let started = std::time::Instant::now();
        assert_eq!(
            read_text(Path::new("/dev/zero")).unwrap_err(),
            "larger than 64 MiB, the limit for a scenario or data file"
        );
        assert!(started.elapsed().as_secs_f64() < 10.0);
    }

    #[test]
    fn standard_input_resolves_data_files_in_the_current_directory() {
        assert_eq!(base_dir(Path::new("-")), PathBuf::from("."));
        assert_eq!(base_dir(Path::new("/dev/stdin")), PathBuf::from("."));
        assert_eq!(base_dir(Path::new("s.toml")), PathBuf::from("."));
        assert_eq!(base_dir(Path::new("a/b/s.toml")), PathBuf::from("a/b"));
    }
}

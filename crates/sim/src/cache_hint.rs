//! Software prefetch: ask the CPU to start loading a value's cache lines now, so that a read
//! of it later does not stall. Only a hint: it never faults, changes no value, and on other
//! architectures it does nothing.

/// Bytes per cache line on the machines the engine runs on (x86-64).
const LINE: usize = 64;

/// Start bringing every cache line of `*value` into the L1 data cache.
#[inline]
pub fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let start = value as *const T as *const i8;
        let mut off = 0;
        while off < std::mem::size_of::<T>() {
            // SAFETY: `start + off` lies inside `*value`, a live reference; a prefetch reads
            // nothing and cannot fault.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(start.add(off)) };
            off += LINE;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// L2 size assumed when the machine does not say (the project machine's, AMD EPYC).
pub const DEFAULT_L2_BYTES: usize = 1 << 20;

/// Bytes of the L2 cache of the first CPU (the same for every core but on hybrid CPUs; Linux sysfs,
/// `/sys/devices/system/cpu/cpu0/cache/index*/`), or [`DEFAULT_L2_BYTES`]; read once.
pub fn l2_bytes() -> usize {
    static L2: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *L2.get_or_init(|| {
        l2_in(std::path::Path::new("/sys/devices/system/cpu/cpu0/cache"))
            .unwrap_or(DEFAULT_L2_BYTES)
    })
}

/// The size of the level-2 data or unified cache described under the sysfs directory `dir`.
fn l2_in(dir: &std::path::Path) -> Option<usize> {
    let read = |p: std::path::PathBuf| std::fs::read_to_string(p).ok();
    std::fs::read_dir(dir).ok()?.flatten().find_map(|e| {
        let p = e.path();
        let level = read(p.join("level"))?;
        let kind = read(p.join("type"))?;
        if level.trim() == "2" && matches!(kind.trim(), "Unified" | "Data") {
            parse_size(&read(p.join("size"))?)
        } else {
            None
        }
    })
}

/// A sysfs cache size: "1024K", "2M" or a plain byte count.
fn parse_size(text: &str) -> Option<usize> {
    let t = text.trim();
    let (digits, unit) = match t.as_bytes().last()? {
        b'K' => (&t[..t.len() - 1], 1 << 10),
        b'M' => (&t[..t.len() - 1], 1 << 20),
        _ => (t, 1),
    };
    digits
        .parse::<usize>()
        .ok()?
        .checked_mul(unit)
        .filter(|&n| n > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_as_sysfs_writes_them() {
        assert_eq!(parse_size("1024K\n"), Some(1 << 20));
        assert_eq!(parse_size("2M"), Some(2 << 20));
        assert_eq!(parse_size("512"), Some(512));
        assert_eq!(parse_size("0K"), None);
        assert_eq!(parse_size("K"), None);
        assert_eq!(parse_size("big"), None);
    }

    #[test]
    fn the_level_2_data_or_unified_cache_is_found() {
        let root = std::env::temp_dir().join(format!("aqmlab-l2-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let write = |index: &str, level: &str, kind: &str, size: &str| {
            let d = root.join(index);
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join("level"), format!("{level}\n")).unwrap();
            std::fs::write(d.join("type"), format!("{kind}\n")).unwrap();
            std::fs::write(d.join("size"), format!("{size}\n")).unwrap();
        };
        write("index0", "1", "Data", "48K");
        write("index1", "1", "Instruction", "32K");
        write("index3", "3", "Unified", "30720K");
        assert_eq!(l2_in(&root), None, "no level 2 yet");
        write("index2", "2", "Unified", "2048K");
        assert_eq!(l2_in(&root), Some(2 << 20));
        assert_eq!(l2_in(&root.join("missing")), None);
        std::fs::remove_dir_all(&root).unwrap();
    }
}

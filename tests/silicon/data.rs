//! Reading the GPU-recorded vector files (`<module>.vectors.xz`, format in the data's
//! README): decompressed with the `xz` tool, parsed, and both FNV-1a hashes of every kernel
//! checked.

use std::path::Path;
use std::process::Command;

/// `flags` bit 0: the ISA allows an approximate result.
pub const INEXACT: u32 = 1;
/// `flags` bit 1: the ISA leaves (some) results unspecified.
pub const UNSPECIFIED: u32 = 2;

/// One kernel of a module and the GPU's answers.
pub struct Kernel {
    pub name: String,
    pub flags: u32,
    pub n: usize,
    pub k: usize,
    pub m: usize,
    pub in_types: Vec<String>,
    pub out_types: Vec<String>,
    pub instr: String,
    pub note: String,
    /// `n * k` input slots, vector `v` slot `j` at `v * k + j`.
    pub inputs: Vec<u64>,
    /// `n * m` output slots.
    pub outputs: Vec<u64>,
}

/// One module: the PTX file it names and its kernels.
pub struct Module {
    pub ptx: String,
    pub kernels: Vec<Kernel>,
}

/// FNV-1a 64 of the little-endian bytes of `words`.
fn fnv1a(words: &[u64]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for w in words {
        for b in w.to_le_bytes() {
            h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, len: usize) -> Result<&'a [u8], String> {
        let end = self.pos.checked_add(len).filter(|&e| e <= self.data.len());
        let end = end.ok_or_else(|| format!("truncated at byte {} (wanted {len} more)", self.pos))?;
        let s = &self.data[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    fn u32(&mut self) -> Result<u32, String> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u64(&mut self) -> Result<u64, String> {
        let b = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }

    fn str(&mut self) -> Result<String, String> {
        let len = self.u32()? as usize;
        let b = self.take(len)?;
        String::from_utf8(b.to_vec()).map_err(|e| format!("a string is not UTF-8: {e}"))
    }

    fn words(&mut self, count: usize) -> Result<Vec<u64>, String> {
        let bytes = count.checked_mul(8).ok_or("a slot count overflows")?;
        let b = self.take(bytes)?;
        Ok(b.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes"))).collect())
    }
}

/// Parses a decompressed vector file.
pub fn parse(data: &[u8]) -> Result<Module, String> {
    let mut r = Reader { data, pos: 0 };
    if r.take(8)? != b"PTXSIL01" {
        return Err("not a PTXSIL01 file".into());
    }
    let _device = r.str()?;
    let ptx = r.str()?;
    let count = r.u32()?;
    let mut kernels = Vec::new();
    for _ in 0..count {
        let name = r.str()?;
        let flags = r.u32()?;
        let n = r.u32()? as usize;
        let k = r.u32()? as usize;
        let m = r.u32()? as usize;
        let in_types = (0..k).map(|_| r.str()).collect::<Result<Vec<_>, _>>()?;
        let out_types = (0..m).map(|_| r.str()).collect::<Result<Vec<_>, _>>()?;
        let instr = r.str()?;
        let note = r.str()?;
        let in_hash = r.u64()?;
        let out_hash = r.u64()?;
        let inputs = r.words(n * k)?;
        let outputs = r.words(n * m)?;
        if fnv1a(&inputs) != in_hash || fnv1a(&outputs) != out_hash {
            return Err(format!("{name}: the input or output hash does not match the data"));
        }
        kernels.push(Kernel { name, flags, n, k, m, in_types, out_types, instr, note, inputs, outputs });
    }
    if r.pos != data.len() {
        return Err(format!("{} bytes after the last kernel", data.len() - r.pos));
    }
    Ok(Module { ptx, kernels })
}

/// Decompresses (with `xz -dc`) and parses one `.vectors.xz` file.
pub fn read(path: &Path) -> Result<Module, String> {
    let out = Command::new("xz").arg("-dc").arg(path).output().map_err(|e| format!("cannot run `xz -dc {}` (install xz-utils): {e}", path.display()))?;
    if !out.status.success() {
        return Err(format!("`xz -dc {}` failed: {}", path.display(), String::from_utf8_lossy(&out.stderr)));
    }
    parse(&out.stdout).map_err(|e| format!("{}: {e}", path.display()))
}

//! One relocatable ELF object from the objects of a module's codegen units (`lower::split`),
//! in-process (no linker at compile time): what `ld -r` would do for our objects, plus
//! making the units' shared internal names (`Plan::promoted`) local again.
//!
//! - Sections with the same name, type, flags and entry size are concatenated in unit order,
//!   each piece at its own alignment (`.eh_frame` pieces at 4 bytes: its records are 4-byte
//!   aligned and zero padding would read as a terminator); symbols defined in a piece move
//!   with it.
//! - Relocations move with their section; those against a section symbol get the piece's
//!   offset in their addend (only for relocation kinds that compute `S + A`: a GOT-relative
//!   one cannot be rebased this way, and makes the merge fail).
//! - Global symbols are unified by name (one definition, references to it from other units);
//!   the promoted names become local symbols.
//!
//! Objects outside the subset LLVM writes for our modules (section groups, `SHF_LINK_ORDER`,
//! REL relocations, extended section numbering, ...) are refused with a message; the driver
//! then compiles the module as one unit instead.

use std::collections::{BTreeSet, HashMap};

const SHT_PROGBITS: u32 = 1;
const SHT_SYMTAB: u32 = 2;
const SHT_STRTAB: u32 = 3;
const SHT_RELA: u32 = 4;
const SHT_NOTE: u32 = 7;
const SHT_NOBITS: u32 = 8;
const SHT_INIT_ARRAY: u32 = 14;
const SHT_FINI_ARRAY: u32 = 15;
const SHT_PREINIT_ARRAY: u32 = 16;
const SHT_X86_64_UNWIND: u32 = 0x7000_0001;
const SHT_LLVM_ADDRSIG: u32 = 0x6fff_4c03;
const SHF_INFO_LINK: u64 = 0x40;
const SHF_LINK_ORDER: u64 = 0x80;
const SHF_GROUP: u64 = 0x200;
const STB_LOCAL: u8 = 0;
const STB_GLOBAL: u8 = 1;
const STB_WEAK: u8 = 2;
const STT_SECTION: u8 = 3;
const STT_FILE: u8 = 4;
const SHN_UNDEF: u16 = 0;
const SHN_LORESERVE: u16 = 0xff00;
const SHN_ABS: u16 = 0xfff1;
const SHN_COMMON: u16 = 0xfff2;
const EM_X86_64: u16 = 62;
const EM_AARCH64: u16 = 183;

type R<T> = Result<T, String>;

fn rd<const N: usize>(d: &[u8], at: usize) -> R<[u8; N]> {
    d.get(at..at + N).and_then(|s| s.try_into().ok()).ok_or_else(|| "truncated object".to_string())
}
fn u16_at(d: &[u8], at: usize) -> R<u16> {
    Ok(u16::from_le_bytes(rd(d, at)?))
}
fn u32_at(d: &[u8], at: usize) -> R<u32> {
    Ok(u32::from_le_bytes(rd(d, at)?))
}
fn u64_at(d: &[u8], at: usize) -> R<u64> {
    Ok(u64::from_le_bytes(rd(d, at)?))
}

#[derive(Clone)]
struct Shdr {
    name: String,
    ty: u32,
    flags: u64,
    offset: u64,
    size: u64,
    link: u32,
    info: u32,
    align: u64,
    entsize: u64,
}

#[derive(Clone)]
struct Sym {
    name: String,
    info: u8,
    other: u8,
    shndx: u16,
    value: u64,
    size: u64,
}

struct Input<'a> {
    data: &'a [u8],
    machine: u16,
    flags: u32,
    sections: Vec<Shdr>,
    symbols: Vec<Sym>,
}

fn cstr(d: &[u8], at: usize) -> R<String> {
    let tail = d.get(at..).ok_or("bad string offset")?;
    let end = tail.iter().position(|&b| b == 0).ok_or("unterminated string")?;
    Ok(String::from_utf8_lossy(&tail[..end]).into_owned())
}

fn parse(data: &[u8]) -> R<Input<'_>> {
    // ELF64, little-endian, relocatable.
    if data.get(0..4) != Some(b"\x7fELF") || data.get(4) != Some(&2) || data.get(5) != Some(&1) || u16_at(data, 16)? != 1 {
        return Err("not a 64-bit little-endian relocatable ELF object".into());
    }
    let machine = u16_at(data, 18)?;
    let flags = u32_at(data, 48)?;
    let shoff = u64_at(data, 40)? as usize;
    let shnum = u16_at(data, 60)? as usize;
    let shstrndx = u16_at(data, 62)? as usize;
    if shnum == 0 || shstrndx >= shnum || u16_at(data, 58)? != 64 {
        return Err("extended section numbering".into());
    }
    let mut raw = vec![];
    for i in 0..shnum {
        let h = shoff + i * 64;
        raw.push((
            u32_at(data, h)?,
            Shdr {
                name: String::new(),
                ty: u32_at(data, h + 4)?,
                flags: u64_at(data, h + 8)?,
                offset: u64_at(data, h + 24)?,
                size: u64_at(data, h + 32)?,
                link: u32_at(data, h + 40)?,
                info: u32_at(data, h + 44)?,
                align: u64_at(data, h + 48)?,
                entsize: u64_at(data, h + 56)?,
            },
        ));
    }
    let strtab_off = raw[shstrndx].1.offset as usize;
    let mut sections = vec![];
    for (name, mut s) in raw {
        s.name = cstr(data, strtab_off + name as usize)?;
        sections.push(s);
    }
    let mut symbols = vec![];
    let symtabs: Vec<&Shdr> = sections.iter().filter(|s| s.ty == SHT_SYMTAB).collect();
    if symtabs.len() > 1 {
        return Err("several symbol tables".into());
    }
    if let Some(st) = symtabs.first() {
        let strings = sections.get(st.link as usize).ok_or("bad symbol string table")?.offset as usize;
        for i in 0..(st.size / 24) as usize {
            let at = st.offset as usize + i * 24;
            symbols.push(Sym {
                name: cstr(data, strings + u32_at(data, at)? as usize)?,
                info: data[at + 4],
                other: data[at + 5],
                shndx: u16_at(data, at + 6)?,
                value: u64_at(data, at + 8)?,
                size: u64_at(data, at + 16)?,
            });
        }
    }
    Ok(Input { data, machine, flags, sections, symbols })
}

/// Relocation kinds whose value is `S + A` (plus a place-relative part), so that a
/// relocation against a section symbol can be rebased by changing `A`.
fn addend_rebasable(machine: u16, ty: u32) -> bool {
    match machine {
        // R_X86_64_64, PC32, PLT32, 32, 32S, PC64
        EM_X86_64 => matches!(ty, 1 | 2 | 4 | 10 | 11 | 24),
        // ABS64/32/16, PREL64/32/16, MOVW_UABS_G*, LD_PREL_LO19, ADR_PREL_LO21,
        // ADR_PREL_PG_HI21(_NC), ADD_ABS_LO12_NC, LDST*_ABS_LO12_NC, TSTBR14, CONDBR19,
        // JUMP26, CALL26
        EM_AARCH64 => matches!(ty, 257..=270 | 273..=280 | 282..=286 | 299),
        _ => false,
    }
}

struct OutSection {
    name: String,
    ty: u32,
    flags: u64,
    entsize: u64,
    align: u64,
    size: u64,
    data: Vec<u8>,
    /// (offset, output symbol, type, addend)
    relocs: Vec<(u64, u32, u32, i64)>,
}

struct OutSym {
    name: String,
    info: u8,
    other: u8,
    /// Output section index (1-based, as in the section header table), or a special index.
    shndx: u16,
    value: u64,
    size: u64,
}

/// Where an input symbol went.
#[derive(Clone, Copy)]
enum SymRef {
    None,
    /// A section symbol: the output section's symbol, and what to add to addends.
    Section(usize, u64),
    Local(usize),
    Localized(usize),
    Global(usize),
}

/// Merges the objects, in order, into one. `localize`: global names to make local.
pub fn merge(objects: &[Vec<u8>], localize: &BTreeSet<String>) -> R<Vec<u8>> {
    let inputs: Vec<Input> = objects.iter().map(|o| parse(o)).collect::<R<_>>()?;
    let first = inputs.first().ok_or("nothing to merge")?;
    if inputs.iter().any(|i| i.machine != first.machine || i.flags != first.flags) {
        return Err("objects for different machines".into());
    }
    let mut out: Vec<OutSection> = vec![];
    let mut by_key: HashMap<(String, u32, u64, u64), usize> = HashMap::new();
    // Per input, per section index: (output section, offset of the piece).
    let mut place: Vec<Vec<Option<(usize, u64)>>> = vec![];
    for input in &inputs {
        let mut here = vec![None; input.sections.len()];
        for (i, s) in input.sections.iter().enumerate() {
            match s.ty {
                0 | SHT_SYMTAB | SHT_STRTAB | SHT_RELA | SHT_LLVM_ADDRSIG => continue,
                SHT_PROGBITS | SHT_NOBITS | SHT_NOTE | SHT_INIT_ARRAY | SHT_FINI_ARRAY | SHT_PREINIT_ARRAY | SHT_X86_64_UNWIND => {}
                t => return Err(format!("section `{}` of type {t:#x}", s.name)),
            }
            if s.flags & (SHF_GROUP | SHF_LINK_ORDER) != 0 || s.link != 0 {
                return Err(format!("section `{}` is in a group or linked to another", s.name));
            }
            let key = (s.name.clone(), s.ty, s.flags, s.entsize);
            let o = *by_key.entry(key).or_insert_with(|| {
                out.push(OutSection { name: s.name.clone(), ty: s.ty, flags: s.flags, entsize: s.entsize, align: 1, size: 0, data: vec![], relocs: vec![] });
                out.len() - 1
            });
            let sec = &mut out[o];
            let eh = s.name == ".eh_frame";
            if eh && s.size % 4 != 0 {
                return Err(".eh_frame of a size that is not a multiple of 4".into());
            }
            let align = if eh { 4 } else { s.align.max(1) };
            sec.align = sec.align.max(s.align.max(1));
            let at = sec.size.div_ceil(align) * align;
            if s.ty != SHT_NOBITS {
                let bytes = input.data.get(s.offset as usize..(s.offset + s.size) as usize).ok_or("section data out of bounds")?;
                sec.data.resize(at as usize, 0);
                sec.data.extend_from_slice(bytes);
            }
            sec.size = at + s.size;
            here[i] = Some((o, at));
        }
        place.push(here);
    }
    // Symbols: the file symbol, one symbol per output section, the units' local symbols,
    // the localized names, then the globals.
    let mut locals: Vec<OutSym> = vec![];
    let mut localized: Vec<OutSym> = vec![];
    let mut globals: Vec<OutSym> = vec![];
    let mut localized_at: HashMap<String, usize> = HashMap::new();
    let mut global_at: HashMap<String, usize> = HashMap::new();
    let mut refs: Vec<Vec<SymRef>> = vec![];
    if let Some(file) = first.symbols.iter().find(|s| s.info & 0xf == STT_FILE) {
        locals.push(OutSym { name: file.name.clone(), info: STT_FILE, other: 0, shndx: SHN_ABS, value: 0, size: 0 });
    }
    let section_sym_base = locals.len();
    for (o, _) in out.iter().enumerate() {
        locals.push(OutSym { name: String::new(), info: STT_SECTION, other: 0, shndx: o as u16 + 1, value: 0, size: 0 });
    }
    for (p, input) in inputs.iter().enumerate() {
        let mut here = vec![SymRef::None; input.symbols.len()];
        for (i, s) in input.symbols.iter().enumerate().skip(1) {
            let (bind, ty) = (s.info >> 4, s.info & 0xf);
            // The symbol's section and value in the output.
            let moved = |s: &Sym| -> R<(u16, u64)> {
                match s.shndx {
                    SHN_UNDEF | SHN_ABS | SHN_COMMON => Ok((s.shndx, s.value)),
                    x if x >= SHN_LORESERVE => Err(format!("symbol `{}` in special section {x:#x}", s.name)),
                    x => match place[p].get(x as usize).copied().flatten() {
                        Some((o, at)) => Ok((o as u16 + 1, s.value + at)),
                        None => Err(format!("symbol `{}` in a section that is not merged", s.name)),
                    },
                }
            };
            here[i] = match (bind, ty) {
                (_, STT_FILE) => SymRef::None,
                (STB_LOCAL, STT_SECTION) => match place[p].get(s.shndx as usize).copied().flatten() {
                    Some((o, at)) => SymRef::Section(section_sym_base + o, at),
                    None => SymRef::None,
                },
                (STB_LOCAL, _) => {
                    let (shndx, value) = moved(s)?;
                    locals.push(OutSym { name: s.name.clone(), info: s.info, other: s.other, shndx, value, size: s.size });
                    SymRef::Local(locals.len() - 1)
                }
                (STB_GLOBAL | STB_WEAK, _) if localize.contains(&s.name) => {
                    let at = *localized_at.entry(s.name.clone()).or_insert_with(|| {
                        localized.push(OutSym { name: s.name.clone(), info: ty, other: 0, shndx: SHN_UNDEF, value: 0, size: 0 });
                        localized.len() - 1
                    });
                    if s.shndx != SHN_UNDEF {
                        if localized[at].shndx != SHN_UNDEF {
                            return Err(format!("`{}` is defined twice", s.name));
                        }
                        let (shndx, value) = moved(s)?;
                        localized[at] = OutSym { name: s.name.clone(), info: ty, other: 0, shndx, value, size: s.size };
                    }
                    SymRef::Localized(at)
                }
                (STB_GLOBAL | STB_WEAK, _) => {
                    let at = *global_at.entry(s.name.clone()).or_insert_with(|| {
                        globals.push(OutSym { name: s.name.clone(), info: s.info, other: s.other, shndx: SHN_UNDEF, value: 0, size: 0 });
                        globals.len() - 1
                    });
                    let g = &mut globals[at];
                    if s.shndx != SHN_UNDEF {
                        if g.shndx != SHN_UNDEF {
                            return Err(format!("`{}` is defined twice", s.name));
                        }
                        let (shndx, value) = moved(s)?;
                        *g = OutSym { name: s.name.clone(), info: s.info, other: s.other, shndx, value, size: s.size };
                    } else if g.shndx == SHN_UNDEF && bind == STB_GLOBAL {
                        // A strong reference makes an undefined symbol strong.
                        g.info = (STB_GLOBAL << 4) | (g.info & 0xf);
                    }
                    SymRef::Global(at)
                }
                _ => return Err(format!("symbol `{}` with binding {bind}", s.name)),
            };
        }
        refs.push(here);
    }
    if let Some(s) = localized.iter().find(|s| s.shndx == SHN_UNDEF) {
        return Err(format!("`{}` is used but defined in no unit", s.name));
    }
    let first_localized = locals.len();
    let first_global = first_localized + localized.len();
    let index = |r: SymRef| -> Option<(u32, u64)> {
        match r {
            SymRef::None => None,
            SymRef::Section(i, delta) => Some((i as u32 + 1, delta)),
            SymRef::Localized(i) => Some(((first_localized + i) as u32 + 1, 0)),
            SymRef::Local(i) => Some((i as u32 + 1, 0)),
            SymRef::Global(i) => Some(((first_global + i) as u32 + 1, 0)),
        }
    };
    // Relocations.
    for (p, input) in inputs.iter().enumerate() {
        for s in input.sections.iter().filter(|s| s.ty == SHT_RELA) {
            let Some((o, at)) = place[p].get(s.info as usize).copied().flatten() else {
                return Err(format!("relocations `{}` for a section that is not merged", s.name));
            };
            for k in 0..(s.size / 24) as usize {
                let e = s.offset as usize + k * 24;
                let (offset, info, addend) = (u64_at(input.data, e)?, u64_at(input.data, e + 8)?, u64_at(input.data, e + 16)? as i64);
                let (sym, ty) = ((info >> 32) as usize, info as u32);
                let (new_sym, delta) = if sym == 0 {
                    (0, 0)
                } else {
                    let r = *refs[p].get(sym).ok_or("relocation against a missing symbol")?;
                    let (i, delta) = index(r).ok_or("relocation against a file symbol")?;
                    if delta != 0 && !addend_rebasable(input.machine, ty) {
                        return Err(format!("relocation type {ty} against a section symbol"));
                    }
                    (i, delta)
                };
                out[o].relocs.push((offset + at, new_sym, ty, addend.wrapping_add(delta as i64)));
            }
        }
    }
    // Write: header, section contents, symbol and string tables, relocations, section names,
    // section headers.
    let mut symbols: Vec<OutSym> = vec![OutSym { name: String::new(), info: 0, other: 0, shndx: 0, value: 0, size: 0 }];
    symbols.extend(locals);
    symbols.extend(localized.into_iter().map(|mut s| {
        s.info = (STB_LOCAL << 4) | s.info;
        s
    }));
    symbols.extend(globals);
    let mut strtab = vec![0u8];
    let mut names: HashMap<String, u32> = HashMap::new();
    let mut intern = |strtab: &mut Vec<u8>, s: &str| -> u32 {
        if s.is_empty() {
            return 0;
        }
        *names.entry(s.to_string()).or_insert_with(|| {
            let at = strtab.len() as u32;
            strtab.extend_from_slice(s.as_bytes());
            strtab.push(0);
            at
        })
    };
    let mut symtab = vec![];
    for s in &symbols {
        let name = intern(&mut strtab, &s.name);
        symtab.extend_from_slice(&name.to_le_bytes());
        symtab.push(s.info);
        symtab.push(s.other);
        symtab.extend_from_slice(&s.shndx.to_le_bytes());
        symtab.extend_from_slice(&s.value.to_le_bytes());
        symtab.extend_from_slice(&s.size.to_le_bytes());
    }
    // Section headers: null, the merged sections, .symtab, .strtab, .rela.*, .shstrtab.
    struct Header {
        name: String,
        ty: u32,
        flags: u64,
        data: Vec<u8>,
        size: u64,
        link: u32,
        info: u32,
        align: u64,
        entsize: u64,
    }
    let n = out.len();
    let symtab_index = n as u32 + 1;
    let mut headers: Vec<Header> = vec![];
    let mut relas: Vec<Header> = vec![];
    for (o, s) in out.into_iter().enumerate() {
        if !s.relocs.is_empty() {
            let mut data = Vec::with_capacity(s.relocs.len() * 24);
            for (offset, sym, ty, addend) in &s.relocs {
                data.extend_from_slice(&offset.to_le_bytes());
                data.extend_from_slice(&(((*sym as u64) << 32) | *ty as u64).to_le_bytes());
                data.extend_from_slice(&addend.to_le_bytes());
            }
            let size = data.len() as u64;
            relas.push(Header {
                name: format!(".rela{}", s.name),
                ty: SHT_RELA,
                flags: SHF_INFO_LINK,
                data,
                size,
                link: symtab_index,
                info: o as u32 + 1,
                align: 8,
                entsize: 24,
            });
        }
        headers.push(Header { name: s.name, ty: s.ty, flags: s.flags, data: s.data, size: s.size, link: 0, info: 0, align: s.align, entsize: s.entsize });
    }
    let first_non_local = (first_global + 1) as u32;
    let symtab_size = symtab.len() as u64;
    headers.push(Header {
        name: ".symtab".into(),
        ty: SHT_SYMTAB,
        flags: 0,
        data: symtab,
        size: symtab_size,
        link: symtab_index + 1,
        info: first_non_local,
        align: 8,
        entsize: 24,
    });
    let strtab_size = strtab.len() as u64;
    headers.push(Header { name: ".strtab".into(), ty: SHT_STRTAB, flags: 0, data: strtab, size: strtab_size, link: 0, info: 0, align: 1, entsize: 0 });
    headers.extend(relas);
    let mut shstrtab = vec![0u8];
    let mut name_offsets = vec![];
    for h in headers.iter().map(|h| h.name.as_str()).chain([".shstrtab"]) {
        name_offsets.push(shstrtab.len() as u32);
        shstrtab.extend_from_slice(h.as_bytes());
        shstrtab.push(0);
    }
    let shstrtab_size = shstrtab.len() as u64;
    headers.push(Header { name: ".shstrtab".into(), ty: SHT_STRTAB, flags: 0, data: shstrtab, size: shstrtab_size, link: 0, info: 0, align: 1, entsize: 0 });
    let mut file = vec![0u8; 64];
    let mut offsets = vec![];
    for h in &headers {
        let align = h.align.max(1) as usize;
        if h.ty != SHT_NOBITS {
            file.resize(file.len().div_ceil(align) * align, 0);
        }
        offsets.push(file.len() as u64);
        if h.ty != SHT_NOBITS {
            file.extend_from_slice(&h.data);
        }
    }
    file.resize(file.len().div_ceil(8) * 8, 0);
    let shoff = file.len() as u64;
    file.extend_from_slice(&[0u8; 64]);
    for (k, h) in headers.iter().enumerate() {
        file.extend_from_slice(&name_offsets[k].to_le_bytes());
        file.extend_from_slice(&h.ty.to_le_bytes());
        file.extend_from_slice(&h.flags.to_le_bytes());
        file.extend_from_slice(&0u64.to_le_bytes());
        file.extend_from_slice(&offsets[k].to_le_bytes());
        file.extend_from_slice(&h.size.to_le_bytes());
        file.extend_from_slice(&h.link.to_le_bytes());
        file.extend_from_slice(&h.info.to_le_bytes());
        file.extend_from_slice(&h.align.to_le_bytes());
        file.extend_from_slice(&h.entsize.to_le_bytes());
    }
    let shnum = headers.len() + 1;
    if shnum >= SHN_LORESERVE as usize {
        return Err("too many sections".into());
    }
    // The ELF header: identification and machine as the units have them.
    file[..16].copy_from_slice(&first.data[..16]);
    file[16..18].copy_from_slice(&1u16.to_le_bytes());
    file[18..20].copy_from_slice(&first.machine.to_le_bytes());
    file[20..24].copy_from_slice(&1u32.to_le_bytes());
    file[40..48].copy_from_slice(&shoff.to_le_bytes());
    file[48..52].copy_from_slice(&first.flags.to_le_bytes());
    file[52..54].copy_from_slice(&64u16.to_le_bytes());
    file[58..60].copy_from_slice(&64u16.to_le_bytes());
    file[60..62].copy_from_slice(&(shnum as u16).to_le_bytes());
    file[62..64].copy_from_slice(&(shnum as u16 - 1).to_le_bytes());
    Ok(file)
}

//! Texture, surface and opaque-type instructions (`Op::Texture`): calls into the runtime's
//! sampling code (`ptxrt/src/texture.rs`, ABI in `ptxrt_abi.h`), and the module globals
//! that hold texture, sampler and surface references.
//!
//! Point fetches (`tex` on `.1d .2d .a1d .a2d` without sampler, offset, level of detail or
//! depth compare) are done inline where the texture allows it (`inline_fetch`): the
//! runtime keeps a descriptor per object slot (`ptxrtTexInline`, ptxrt's `InlineTexture`)
//! whose `kind` says whether and how; its fields are invariant loads, so LLVM reads them
//! once per thread loop when the handle is uniform. A runtime call per fetch cost 40-50 ns.
//!
//! A reference (`.texref`, ISA 1.x `.tex`, `.samplerref`, `.surfref`) is an 8-byte global
//! holding a handle, registered with the module as `.texref:NAME` (etc.) so that the host
//! binds it by name. Using a reference as a value (`mov.u64 %rd, tex`) reads the handle,
//! so direct and indirect (register) accesses are the same call.

use crate::ir::{self, HandleKind, Operand, ScalarType, StateSpace, SurfaceClamp, SurfaceRedOp, TexGeom, TexLod, TextureOp};
use crate::lower::ops::half_bits::Half;
use crate::lower::thread::FnCx;
use crate::lower::{abi, LowerError, ModuleLowerer, R};
use inkwell::basic_block::BasicBlock;
use inkwell::module::Linkage;
use inkwell::types::StructType;
use inkwell::values::{BasicValue, BasicValueEnum, FunctionValue, GlobalValue, IntValue, PointerValue};
use inkwell::{AddressSpace, FloatPredicate, IntPredicate};
use ptx2llvm_abi::field::tex_inline as field;
use ptx2llvm_abi::texture::{INLINE_TABLE_SYMBOL, TEXTURE_HANDLE_KIND};

/// Runtime status codes (`PTXRT_TEX_*`).
const STATUS_OUT_OF_BOUNDS: u64 = 2;

/// `__ptxrt_tex` op bit: the coordinate buffer carries the offset operand (`PTXRT_TEX_HAS_OFFSET`).
const TEX_HAS_OFFSET: u64 = 1 << 11;
/// `__ptxrt_tex` level-of-detail mode (`PTXRT_TEX_LOD_SHIFT`): 1 `.level`, 2 `.grad`; the
/// coordinate buffer then has 16 words (coordinates, offset, lod or dPdx, dPdy).
const TEX_LOD_SHIFT: u64 = 12;
/// `__ptxrt_tex` op bit: a depth-compare fetch (`PTXRT_TEX_DEPTH_COMPARE`); the coordinate
/// buffer then has 17 words, the `.f32` compare value in word 16.
const TEX_DEPTH_COMPARE: u64 = 1 << 14;
/// The word of the coordinate buffer holding the depth-compare value.
const DEPTH_COMPARE_WORD: usize = 16;

/// Sampler words (`PTXRT_SAMPLER_*`).
const SAMPLER_TAG: u64 = 0x5A4D << 48;
const SAMPLER_LINEAR: u64 = 1 << 9;
const SAMPLER_FORCE_UNNORMALIZED: u64 = 1 << 10;
/// `clamp_to_edge` in every dimension, nearest filtering.
const SAMPLER_DEFAULT: u64 = SAMPLER_TAG | 3 | 3 << 3 | 3 << 6;

/// `kind` bits of the inline descriptors of texture objects (`ptxrtTexInline`; the rules
/// are in `ptx2llvm_abi::texture::TexInline`), as the `u64`s LLVM constants are built from.
const INLINE_OK: u64 = ptx2llvm_abi::texture::INLINE_OK as u64;
const INLINE_CHANNEL_SHIFT: u64 = ptx2llvm_abi::texture::INLINE_CHANNEL_SHIFT as u64;
const INLINE_CHANNELS_SHIFT: u64 = ptx2llvm_abi::texture::INLINE_CHANNELS_SHIFT as u64;
const INLINE_READ_NORMALIZED: u64 = ptx2llvm_abi::texture::INLINE_READ_NORMALIZED as u64;
const INLINE_FORMAT_MASK: u64 = ptx2llvm_abi::texture::INLINE_FORMAT_MASK as u64;
const INLINE_FLOAT_RESULT: u64 = ptx2llvm_abi::texture::INLINE_FLOAT_RESULT as u64;
const INLINE_BORDER_X: u64 = ptx2llvm_abi::texture::INLINE_BORDER_X as u64;
const INLINE_BORDER_Y: u64 = ptx2llvm_abi::texture::INLINE_BORDER_Y as u64;
const INLINE_ZERO_OUTSIDE: u64 = ptx2llvm_abi::texture::INLINE_ZERO_OUTSIDE as u64;
const INLINE_NORMALIZED: u64 = ptx2llvm_abi::texture::INLINE_NORMALIZED as u64;
const INLINE_LINEAR: u64 = ptx2llvm_abi::texture::INLINE_LINEAR as u64;
const INLINE_RAW32: u64 = ptx2llvm_abi::texture::INLINE_RAW32 as u64;
/// Descriptors (object slots) in the table; a handle's slot is its low 32 bits.
const INLINE_SLOTS: u64 = ptx2llvm_abi::texture::INLINE_SLOTS as u64;

/// A texel channel type, in the order of the descriptor's channel field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Channel {
    U8,
    S8,
    U16,
    S16,
    U32,
    S32,
    F16,
    F32,
}

impl Channel {
    const ALL: [Channel; 8] = [Channel::U8, Channel::S8, Channel::U16, Channel::S16, Channel::U32, Channel::S32, Channel::F16, Channel::F32];

    fn bytes(self) -> u32 {
        match self {
            Channel::U8 | Channel::S8 => 1,
            Channel::U16 | Channel::S16 | Channel::F16 => 2,
            _ => 4,
        }
    }

    /// 8- and 16-bit integers: what `ptxrtReadModeNormalizedFloat` reads as floats.
    fn normalizable(self) -> bool {
        matches!(self, Channel::U8 | Channel::S8 | Channel::U16 | Channel::S16)
    }
}

/// An element format of the inline path: channel type, channel count, normalized reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct InlineFormat {
    channel: Channel,
    channels: u32,
    normalized: bool,
}

impl InlineFormat {
    /// Every format a texture can have.
    fn all() -> impl Iterator<Item = InlineFormat> {
        Channel::ALL.into_iter().flat_map(|channel| {
            [1, 2, 4].into_iter().flat_map(move |channels| {
                [false, true].into_iter().filter(move |n| !n || channel.normalizable()).map(move |normalized| InlineFormat { channel, channels, normalized })
            })
        })
    }

    /// The format bits of the descriptor's `kind`.
    fn code(self) -> u64 {
        let channel = Channel::ALL.iter().position(|c| *c == self.channel).unwrap_or(0) as u64;
        let normalized = if self.normalized { INLINE_READ_NORMALIZED } else { 0 };
        channel << INLINE_CHANNEL_SHIFT | (self.channels.trailing_zeros() as u64) << INLINE_CHANNELS_SHIFT | normalized
    }

    /// Formats whose texels are read by the same code (`.u32` and `.s32` channels are bits).
    fn same_code(self, other: InlineFormat) -> bool {
        let raw = |c: Channel| if c == Channel::S32 { Channel::U32 } else { c };
        raw(self.channel) == raw(other.channel) && self.channels == other.channels && self.normalized == other.normalized
    }

    fn float_result(self) -> bool {
        self.normalized || matches!(self.channel, Channel::F16 | Channel::F32)
    }
}

/// The registry name of a reference.
/// Whether fetch `t` is a point fetch of a form `inline_fetch` reads inline where the
/// texture's descriptor allows it (`.1d .2d .a1d .a2d`, no gather, sampler, offset, level
/// of detail or depth compare).
fn is_inline_fetch(t: &TextureOp) -> bool {
    matches!(
        t,
        TextureOp::Fetch { gather: None, sampler: None, offset: None, lod: TexLod::Base, depth_compare: None, geom, .. }
            if matches!(geom, TexGeom::D1 | TexGeom::D2 | TexGeom::A1d | TexGeom::A2d)
    )
}

/// The texture operand of `t` if it is an inline fetch by `.s32` index of a 1D texture
/// (CUDA's `tex1Dfetch`), which `inline_fetch` reads from linear memory without a test
/// where `FnCx::linear_textures` says every such texture is linear memory
/// (`exec::texture_versions`).
pub(crate) fn linear_fetch_texture(t: &TextureOp) -> Option<Operand> {
    match t {
        TextureOp::Fetch { geom: TexGeom::D1, float_coords: false, texture, .. } if is_inline_fetch(t) => Some(*texture),
        _ => None,
    }
}

pub fn handle_symbol_name(h: &ir::Handle) -> String {
    let kind = match h.kind {
        HandleKind::Texture => ".texref",
        HandleKind::Sampler => ".samplerref",
        HandleKind::Surface => ".surfref",
    };
    format!("{kind}:{}", h.name)
}

/// The sampler word of a `.samplerref` initializer (`filter_mode = linear`, ...; the
/// checker has checked the fields).
fn sampler_word(h: &ir::Handle) -> u64 {
    let mut word = SAMPLER_DEFAULT;
    for (d, mode) in h.sampler.addr_mode.iter().enumerate() {
        let Some(mode) = mode else { continue };
        let code = match mode {
            ir::AddrMode::Wrap => 0,
            ir::AddrMode::Mirror => 1,
            ir::AddrMode::ClampOgl => 2,
            ir::AddrMode::ClampToEdge => 3,
            ir::AddrMode::ClampToBorder => 4,
        };
        word = (word & !(7 << (3 * d))) | code << (3 * d);
    }
    match h.sampler.linear_filter {
        Some(true) => word |= SAMPLER_LINEAR,
        Some(false) => word &= !SAMPLER_LINEAR,
        None => {}
    }
    match h.sampler.force_unnormalized {
        Some(true) => word |= SAMPLER_FORCE_UNNORMALIZED,
        Some(false) => word &= !SAMPLER_FORCE_UNNORMALIZED,
        None => {}
    }
    word
}

/// Defines the handle global of each reference.
pub fn define_handles<'ctx>(ml: &ModuleLowerer<'ctx, '_>) -> Vec<GlobalValue<'ctx>> {
    let i64t = ml.cx.i64_type();
    ml.ir
        .handles
        .iter()
        .map(|h| {
            let g = ml.module.add_global(i64t, Some(AddressSpace::default()), &abi::ptx_symbol(&h.name));
            g.set_alignment(8);
            let init = match h.kind {
                HandleKind::Sampler => sampler_word(h),
                _ => 0,
            };
            match h.linkage {
                ir::Linkage::External => g.set_linkage(Linkage::External),
                ir::Linkage::Public => {
                    g.set_linkage(Linkage::External);
                    g.set_initializer(&i64t.const_int(init, false));
                }
                ir::Linkage::Weak => {
                    g.set_linkage(Linkage::WeakAny);
                    g.set_initializer(&i64t.const_int(init, false));
                }
                ir::Linkage::Internal => {
                    g.set_linkage(Linkage::Internal);
                    g.set_initializer(&i64t.const_int(init, false));
                }
            }
            g
        })
        .collect()
}

fn geom_code(g: TexGeom) -> u64 {
    match g {
        TexGeom::D1 => 1,
        TexGeom::D2 => 2,
        TexGeom::D3 => 3,
        TexGeom::A1d => 4,
        TexGeom::A2d => 5,
        TexGeom::Cube => 6,
        TexGeom::ACube => 7,
        TexGeom::D2ms => 8,
        TexGeom::A2dms => 9,
    }
}

fn clamp_code(c: SurfaceClamp) -> u64 {
    match c {
        SurfaceClamp::Trap => 0,
        SurfaceClamp::Clamp => 1,
        SurfaceClamp::Zero => 2,
    }
}

impl<'ctx> FnCx<'ctx, '_> {
    /// The handle held by a reference.
    pub fn handle_value(&self, h: ir::HandleId) -> R<IntValue<'ctx>> {
        let g = self.ml.handle_global(h)?;
        let v = self.b.build_load(self.cx.i64_type(), g.as_pointer_value(), "handle")?.into_int_value();
        // PTX code never writes a reference; the host binds them between launches.
        self.mark_invariant(v)?;
        Ok(v)
    }

    /// Marks a load as reading memory that does not change during the launch
    /// (`!invariant.load`), so that LLVM may hoist it out of thread loops.
    fn mark_invariant(&self, load: IntValue<'ctx>) -> R<()> {
        if let Some(inst) = load.as_instruction() {
            inst.set_metadata(self.cx.metadata_node(&[]), self.cx.get_kind_id("invariant.load")).map_err(|e| LowerError::Internal(e.to_string()))?;
        }
        Ok(())
    }

    /// A runtime entry point returning an `i32`.
    fn runtime_fn(&self, name: &str, params: &[inkwell::types::BasicMetadataTypeEnum<'ctx>]) -> FunctionValue<'ctx> {
        self.module.get_function(name).unwrap_or_else(|| self.module.add_function(name, self.cx.i32_type().fn_type(params, false), Some(Linkage::External)))
    }

    /// Stores the coordinate elements as 32-bit words into a 16-byte buffer.
    fn coord_buffer(&self, coords: &[Operand]) -> R<PointerValue<'ctx>> {
        let buf = self.entry_alloca(16)?;
        for i in 0..4 {
            let v = match coords.get(i) {
                Some(c) => self.read(*c, ScalarType::B32)?,
                None => self.i32(0),
            };
            let p = self.byte_ptr(buf, 4 * i as u64)?;
            self.b.build_store(p, v)?;
        }
        Ok(buf)
    }

    /// `coord_buffer` followed by the offset elements (`PTXRT_TEX_HAS_OFFSET`): 32 bytes;
    /// with `lod` words (`.level`: the lod; `.grad`: dPdx then dPdy, 4 words each) 64 bytes;
    /// with a depth-compare value 68 bytes (the value in word `DEPTH_COMPARE_WORD`).
    fn coord_offset_buffer(&self, coords: &[Operand], offset: &[Operand], lod: &[&[Operand]], depth_compare: Option<&Operand>) -> R<PointerValue<'ctx>> {
        let lod_words = lod.iter().flat_map(|v| (0..4).map(|i| v.get(i)));
        let mut words: Vec<Option<&Operand>> = (0..4).map(|i| coords.get(i)).chain((0..4).map(|i| offset.get(i))).chain(lod_words).collect();
        // The level-of-detail words fill words 8..16 (the runtime reads all 8 in either lod
        // mode); the depth-compare value comes after them.
        if !lod.is_empty() || depth_compare.is_some() {
            words.resize(DEPTH_COMPARE_WORD, None);
        }
        if let Some(f) = depth_compare {
            words.push(Some(f));
        }
        let buf = self.entry_alloca(4 * words.len() as u32)?;
        for (i, w) in words.into_iter().enumerate() {
            let v = match w {
                Some(c) => self.read(*c, ScalarType::B32)?,
                None => self.i32(0),
            };
            let p = self.byte_ptr(buf, 4 * i as u64)?;
            self.b.build_store(p, v)?;
        }
        Ok(buf)
    }

    fn byte_ptr(&self, base: PointerValue<'ctx>, off: u64) -> R<PointerValue<'ctx>> {
        // SAFETY (of the generated code): offsets stay inside the entry-block buffers.
        Ok(unsafe { self.b.build_in_bounds_gep(self.cx.i8_type(), base, &[self.i64(off)], "")? })
    }

    /// Ends the launch with an error when a runtime call returned a non-zero status.
    fn check_status(&self, status: IntValue<'ctx>, what: &str) -> R<()> {
        let ok = self.b.build_int_compare(inkwell::IntPredicate::EQ, status, self.i32(0), "")?;
        let cont = self.new_block("tex.ok");
        let failed = self.new_block("tex.failed");
        let oob = self.new_block("tex.oob");
        let bad = self.new_block("tex.badhandle");
        self.b.build_conditional_branch(ok, cont, failed)?;
        self.b.position_at_end(failed);
        let is_oob = self.b.build_int_compare(inkwell::IntPredicate::EQ, status, self.i32(STATUS_OUT_OF_BOUNDS), "")?;
        self.b.build_conditional_branch(is_oob, oob, bad)?;
        let place = match self.f.kind {
            ir::FunctionKind::Entry => format!("kernel `{}`", self.f.name),
            ir::FunctionKind::Func => format!("function `{}`", self.f.name),
        };
        self.b.position_at_end(oob);
        self.report_error(&format!("`{what}` accessed a surface out of bounds (`.trap`) in {place}"))?;
        self.b.position_at_end(bad);
        self.report_error(&format!("`{what}` in {place} used a handle that is not a live texture/surface object (unbound reference?)"))?;
        self.b.position_at_end(cont);
        Ok(())
    }

    /// A handle operand's value (see `ir::TextureOp`).
    pub(crate) fn texture_handle(&self, op: Operand) -> R<IntValue<'ctx>> {
        match op {
            Operand::ParamAddr(i, _) => {
                let p = *self.uni.params.get(i as usize).ok_or_else(|| LowerError::Internal(format!("parameter {i} does not exist")))?;
                let v = self.b.build_load(self.cx.i64_type(), p, "handle")?.into_int_value();
                if self.f.kind == ir::FunctionKind::Entry {
                    // Kernel parameters do not change during a launch.
                    self.mark_invariant(v)?;
                }
                Ok(v)
            }
            _ => self.read(op, ScalarType::U64),
        }
    }

    pub fn texture(&mut self, t: &TextureOp) -> R<()> {
        let i64t = self.cx.i64_type();
        let i32t = self.cx.i32_type();
        let ptr = self.ptr_ty();
        match t {
            TextureOp::Fetch { gather, geom, dtype, float_coords, dst, resident, texture, sampler, coords, offset, lod, depth_compare } => {
                let dcode = match dtype {
                    ScalarType::U32 => 0,
                    ScalarType::S32 => 1,
                    ScalarType::F32 => 2,
                    // `.f16` and `.f16x2`: half-precision channels.
                    _ => 3,
                };
                let mut op = geom_code(*geom) | (*float_coords as u64) << 4 | dcode << 5;
                if sampler.is_some() {
                    op |= 1 << 7;
                }
                if let Some(c) = gather {
                    op |= (*c as u64 + 1) << 8;
                }
                let tex = self.texture_handle(*texture)?;
                let smp = match sampler {
                    Some(s) => self.texture_handle(*s)?,
                    None => self.i64(0),
                };
                if offset.is_some() {
                    op |= TEX_HAS_OFFSET;
                }
                let lod_words: Vec<&[Operand]> = match lod {
                    TexLod::Base => vec![],
                    TexLod::Level(l) => {
                        op |= 1 << TEX_LOD_SHIFT;
                        vec![std::slice::from_ref(l)]
                    }
                    TexLod::Grad(dx, dy) => {
                        op |= 2 << TEX_LOD_SHIFT;
                        vec![dx, dy]
                    }
                };
                if depth_compare.is_some() {
                    op |= TEX_DEPTH_COMPARE;
                }
                let what = if gather.is_some() { "tld4" } else { "tex" };
                let runtime = |fc: &Self| -> R<[IntValue<'ctx>; 4]> {
                    let cbuf = match (offset, lod_words.is_empty(), depth_compare) {
                        (None, true, None) => fc.coord_buffer(coords)?,
                        (offset, _, depth_compare) => fc.coord_offset_buffer(coords, offset.as_deref().unwrap_or(&[]), &lod_words, depth_compare.as_ref())?,
                    };
                    let out = fc.entry_alloca(16)?;
                    let f = fc.runtime_fn("__ptxrt_tex", &[i64t.into(), i64t.into(), i32t.into(), ptr.into(), ptr.into()]);
                    let status = fc.b.build_call(f, &[tex.into(), smp.into(), fc.i32(op).into(), cbuf.into(), out.into()], "tex")?;
                    let status =
                        status.try_as_basic_value().basic().ok_or_else(|| LowerError::Internal("__ptxrt_tex returns a value".into()))?.into_int_value();
                    fc.check_status(status, what)?;
                    let mut words = [fc.i32(0); 4];
                    for (i, w) in words.iter_mut().enumerate() {
                        let p = fc.byte_ptr(out, 4 * i as u64)?;
                        *w = fc.b.build_load(i32t, p, "")?.into_int_value();
                    }
                    Ok(words)
                };
                // Point fetches of the common forms read the texels inline where the
                // texture's descriptor allows it (`inline_fetch`); the rest call the runtime.
                let words = if is_inline_fetch(t) { self.inline_fetch(tex, *geom, *dtype, *float_coords, coords, &runtime)? } else { runtime(self)? };
                for (i, d) in dst.iter().enumerate() {
                    let Some(d) = d else { continue };
                    let v = if *dtype == ScalarType::F16x2 {
                        // Each channel is an `.f16` in the low half of its word; destination
                        // `i` packs channels 2i (low) and 2i+1 (high).
                        let lo = self.b.build_and(words[2 * i], self.i32(0xFFFF), "")?;
                        let hi = self.b.build_left_shift(words[2 * i + 1], self.i32(16), "")?;
                        self.b.build_or(lo, hi, "")?
                    } else {
                        words[i]
                    };
                    self.write(*d, v, ScalarType::U32)?;
                }
                if let Some(p) = resident {
                    // Every texel is resident in memory (no sparse textures here).
                    self.write(*p, self.cx.bool_type().const_int(1, false), ScalarType::Pred)?;
                }
                Ok(())
            }
            TextureOp::Query { query, dst, handle, level } => {
                let h = self.texture_handle(*handle)?;
                let out = self.entry_alloca(4)?;
                let status = match level {
                    Some(l) => {
                        let l = self.read(*l, ScalarType::S32)?;
                        let f = self.runtime_fn("__ptxrt_query_level", &[i64t.into(), i32t.into(), i32t.into(), ptr.into()]);
                        self.b.build_call(f, &[h.into(), self.i32(*query as u64).into(), l.into(), out.into()], "txq")?
                    }
                    None => {
                        let f = self.runtime_fn("__ptxrt_query", &[i64t.into(), i32t.into(), ptr.into()]);
                        self.b.build_call(f, &[h.into(), self.i32(*query as u64).into(), out.into()], "txq")?
                    }
                };
                let status = status.try_as_basic_value().basic().ok_or_else(|| LowerError::Internal("__ptxrt_query returns a value".into()))?.into_int_value();
                self.check_status(status, "txq/suq")?;
                let v = self.b.build_load(i32t, out, "")?.into_int_value();
                self.write(*dst, v, ScalarType::U32)
            }
            TextureOp::IsType { kind, dst, a } => {
                let h = self.texture_handle(*a)?;
                let k = match kind {
                    HandleKind::Texture => 0,
                    HandleKind::Sampler => 1,
                    HandleKind::Surface => 2,
                };
                let f = self.runtime_fn("__ptxrt_istypep", &[i64t.into(), i32t.into()]);
                let r = self.b.build_call(f, &[h.into(), self.i32(k).into()], "istypep")?;
                let r = r.try_as_basic_value().basic().ok_or_else(|| LowerError::Internal("__ptxrt_istypep returns a value".into()))?.into_int_value();
                let p = self.b.build_int_compare(inkwell::IntPredicate::NE, r, self.i32(0), "")?;
                self.write(*dst, p, ScalarType::Pred)
            }
            TextureOp::SurfaceLoad { geom, clamp, ty, dst, surface, coords } => {
                let bytes = ty.bytes() as u64 * dst.len() as u64;
                let op = geom_code(*geom) | (bytes.trailing_zeros() as u64) << 4 | clamp_code(*clamp) << 8;
                let s = self.texture_handle(*surface)?;
                let cbuf = self.coord_buffer(coords)?;
                let data = self.entry_alloca(32)?;
                let f = self.runtime_fn("__ptxrt_suld", &[i64t.into(), i32t.into(), ptr.into(), ptr.into()]);
                let status = self.b.build_call(f, &[s.into(), self.i32(op).into(), cbuf.into(), data.into()], "suld")?;
                let status = status.try_as_basic_value().basic().ok_or_else(|| LowerError::Internal("__ptxrt_suld returns a value".into()))?.into_int_value();
                self.check_status(status, "suld")?;
                for (i, d) in dst.iter().enumerate() {
                    if let Some(d) = d {
                        let p = self.byte_ptr(data, ty.bytes() as u64 * i as u64)?;
                        let v = self.b.build_load(self.int_ty(ty.bits()), p, "")?.into_int_value();
                        self.write(*d, v, *ty)?;
                    }
                }
                Ok(())
            }
            TextureOp::SurfaceStore { geom, clamp, formatted, ty, src, surface, coords } => {
                let bytes = ty.bytes() as u64 * src.len() as u64;
                let mut op = geom_code(*geom) | (bytes.trailing_zeros() as u64) << 4 | clamp_code(*clamp) << 8;
                if *formatted {
                    op |= 1 << 10;
                }
                let s = self.texture_handle(*surface)?;
                let cbuf = self.coord_buffer(coords)?;
                let data = self.entry_alloca(32)?;
                for (i, v) in src.iter().enumerate() {
                    let v = self.read(*v, *ty)?;
                    let p = self.byte_ptr(data, ty.bytes() as u64 * i as u64)?;
                    self.b.build_store(p, v)?;
                }
                let f = self.runtime_fn("__ptxrt_sust", &[i64t.into(), i32t.into(), ptr.into(), ptr.into()]);
                let status = self.b.build_call(f, &[s.into(), self.i32(op).into(), cbuf.into(), data.into()], "sust")?;
                let status = status.try_as_basic_value().basic().ok_or_else(|| LowerError::Internal("__ptxrt_sust returns a value".into()))?.into_int_value();
                self.check_status(status, "sust")
            }
            TextureOp::SurfaceReduce { op: red, formatted, geom, clamp, ty, surface, coords, src } => {
                let red_code = match red {
                    SurfaceRedOp::Add => 1,
                    SurfaceRedOp::Min => 2,
                    SurfaceRedOp::Max => 3,
                    SurfaceRedOp::And => 4,
                    SurfaceRedOp::Or => 5,
                };
                let mut op = geom_code(*geom) | (ty.bytes().trailing_zeros() as u64) << 4 | clamp_code(*clamp) << 8 | red_code << 12;
                if *formatted {
                    op |= 1 << 10;
                }
                if ty.is_signed() {
                    op |= 1 << 16;
                }
                let s = self.texture_handle(*surface)?;
                let cbuf = self.coord_buffer(coords)?;
                let v = self.read(*src, *ty)?;
                let v = self.resize(v, 64, false)?;
                let f = self.runtime_fn("__ptxrt_sured", &[i64t.into(), i32t.into(), ptr.into(), i64t.into()]);
                let status = self.b.build_call(f, &[s.into(), self.i32(op).into(), cbuf.into(), v.into()], "sured")?;
                let status = status.try_as_basic_value().basic().ok_or_else(|| LowerError::Internal("__ptxrt_sured returns a value".into()))?.into_int_value();
                self.check_status(status, "sured")
            }
        }
    }
}

/// Inline fetches: texels read by the generated code itself.
impl<'ctx> FnCx<'ctx, '_> {
    /// The inline descriptor table (declared on first use) and its element type.
    fn inline_table(&self) -> (GlobalValue<'ctx>, StructType<'ctx>) {
        let st = self.ml.abi.tex_inline;
        let g = self.module.get_global(INLINE_TABLE_SYMBOL).unwrap_or_else(|| {
            let g = self.module.add_global(st.array_type(INLINE_SLOTS as u32), Some(AddressSpace::default()), INLINE_TABLE_SYMBOL);
            g.set_linkage(Linkage::External);
            g.set_alignment(64);
            g
        });
        (g, st)
    }

    /// Loads field `field` (element `elem` of the border) of the descriptor at `d`: the
    /// runtime fills a descriptor before it hands out the handle, so its fields do not
    /// change during a launch (`!invariant.load`).
    fn inline_field(&self, st: StructType<'ctx>, d: PointerValue<'ctx>, field: u32, elem: Option<u64>) -> R<BasicValueEnum<'ctx>> {
        let mut p = self.b.build_struct_gep(st, d, field, "")?;
        let mut ty = st.get_field_type_at_index(field).ok_or_else(|| LowerError::Internal("descriptor field".into()))?;
        if let Some(e) = elem {
            let arr = ty.into_array_type();
            // SAFETY (of the generated code): the border has 4 elements, `e` < 4.
            p = unsafe { self.b.build_in_bounds_gep(arr, p, &[self.i64(0), self.i64(e)], "")? };
            ty = arr.get_element_type();
        }
        let v = self.b.build_load(ty, p, "tex.desc")?;
        if let Some(inst) = v.as_instruction_value() {
            inst.set_metadata(self.cx.metadata_node(&[]), self.cx.get_kind_id("invariant.load")).map_err(|e| LowerError::Internal(e.to_string()))?;
        }
        Ok(v)
    }

    /// The inline descriptor of texture handle `tex` (its slot in ptxrt's table), the
    /// table's element type and the descriptor's kind word.
    fn inline_descriptor(&self, tex: IntValue<'ctx>) -> R<(PointerValue<'ctx>, StructType<'ctx>, IntValue<'ctx>)> {
        let b = &self.b;
        let (table, st) = self.inline_table();
        // Slot `handle & 0xFFFF` of a texture handle `1 << 32 | slot`; slot 0 (never used,
        // kind 0) for other values, which the runtime then rejects.
        let is_texture = self.icmp(IntPredicate::EQ, b.build_right_shift(tex, self.i64(16), false, "")?, self.i64(TEXTURE_HANDLE_KIND << 16))?;
        let slot = self.select(is_texture, b.build_and(tex, self.i64(INLINE_SLOTS - 1), "")?, self.i64(0))?;
        // SAFETY (of the generated code): `slot` < INLINE_SLOTS.
        let d = unsafe { b.build_in_bounds_gep(st.array_type(INLINE_SLOTS as u32), table.as_pointer_value(), &[self.i64(0), slot], "tex.desc")? };
        let kind = self.inline_field(st, d, field::KIND, None)?.into_int_value();
        Ok((d, st, kind))
    }

    /// Whether an integer-indexed 1D fetch of a texture of descriptor kind `kind` is the
    /// inline read of linear memory of 32-bit channels (`inline_fetch`).
    fn linear_fetch(&self, kind: IntValue<'ctx>) -> R<IntValue<'ctx>> {
        let bits = INLINE_OK | INLINE_RAW32 | INLINE_ZERO_OUTSIDE;
        self.icmp(IntPredicate::EQ, self.b.build_and(kind, self.i32(bits), "")?, self.i32(bits))
    }

    /// `linear_fetch` for handle `tex` (`exec::texture_versions`).
    pub fn texture_is_linear(&self, tex: IntValue<'ctx>) -> R<IntValue<'ctx>> {
        let (_, _, kind) = self.inline_descriptor(tex)?;
        self.linear_fetch(kind)
    }

    /// A `tex` point fetch (`.1d .2d .a1d .a2d`, no sampler, offset, level of detail or
    /// depth compare) that reads the texel itself where the descriptor of `tex`'s slot
    /// allows it, and calls the runtime (`runtime`) otherwise: for handles that are not
    /// texture objects, dead objects, and `.f32` coordinates on textures with normalized
    /// coordinates or linear filtering. The result is the 4 words `__ptxrt_tex` would
    /// return (see ptxrt's `InlineTexture` for the rules, the same as `sample_texel`'s).
    fn inline_fetch(
        &self,
        tex: IntValue<'ctx>,
        geom: TexGeom,
        dtype: ScalarType,
        float_coords: bool,
        coords: &[Operand],
        runtime: &dyn Fn(&Self) -> R<[IntValue<'ctx>; 4]>,
    ) -> R<[IntValue<'ctx>; 4]> {
        let b = &self.b;
        let i32t = self.cx.i32_type();
        let i64t = self.cx.i64_type();
        let (d, st, kind) = self.inline_descriptor(tex)?;
        let has = |bit: u64| -> R<IntValue<'ctx>> { self.icmp(IntPredicate::NE, b.build_and(kind, self.i32(bit), "")?, self.i32(0)) };
        let runtime_bb = self.new_block("tex.runtime");
        let done = self.new_block("tex.done");
        let half = matches!(dtype, ScalarType::F16 | ScalarType::F16x2);
        // `.f16` results: floats rounded to f16, integers' low halves.
        let to_dtype = |words: [IntValue<'ctx>; 4]| -> R<[IntValue<'ctx>; 4]> {
            if !half {
                return Ok(words);
            }
            let float_result = has(INLINE_FLOAT_RESULT)?;
            let mut out = words;
            for w in out.iter_mut() {
                *w = self.select(float_result, self.f32_bits_to_f16(*w)?, b.build_and(*w, self.i32(0xFFFF), "")?)?;
            }
            Ok(out)
        };
        let alpha = |_: ()| self.select(has(INLINE_FLOAT_RESULT)?, self.i32(1f32.to_bits() as u64), self.i32(1));
        let width = self.inline_field(st, d, field::WIDTH, None)?.into_int_value();
        let data = self.inline_field(st, d, field::DATA, None)?.into_pointer_value();
        let mut done_incoming = vec![];

        // `tex1Dfetch` (`.1d`, `.s32`) on linear memory of 32-bit channels: the texel at
        // the index, 0 outside (whatever the address modes), in a block of its own.
        if geom == TexGeom::D1 && !float_coords {
            let linear_bb = self.new_block("tex.linear");
            let general_bb = self.new_block("tex.general");
            if self.linear_textures {
                // A thread loop that runs only when every such texture is linear memory
                // (`exec::texture_versions`): the general code after is unreachable.
                b.build_unconditional_branch(linear_bb)?;
            } else {
                b.build_conditional_branch(self.linear_fetch(kind)?, linear_bb, general_bb)?;
            }
            b.position_at_end(linear_bb);
            let i = match coords.first() {
                Some(op) => self.read(*op, ScalarType::S32)?,
                None => self.i32(0),
            };
            // In 32 bits (the index's own width: a vector of them is half as wide as of
            // 64-bit ones): `0 <= i < width` is `i <u min(width, 2^31)`.
            let width_31 = self.call_intrinsic("llvm.umin", &[i64t.into()], &[width.into(), self.i64(1 << 31).into()])?.into_int_value();
            let inside = self.icmp(IntPredicate::ULT, i, b.build_int_truncate(width_31, i32t, "")?)?;
            // Outside, any texel in the buffer (texel 0) is read and not used.
            let at = b.build_int_z_extend(self.select(inside, i, self.i32(0))?, i64t, "")?;
            let words = self.inline_raw32_texel(data, at, kind, alpha(())?)?;
            let mut out = [self.i32(0); 4];
            for (o, w) in out.iter_mut().zip(words) {
                *o = self.select(inside, w, self.i32(0))?;
            }
            let out = to_dtype(out)?;
            done_incoming.push((out, b.get_insert_block().ok_or_else(|| LowerError::Internal("no insert block".into()))?));
            b.build_unconditional_branch(done)?;
            b.position_at_end(general_bb);
        }

        // Everything up to the texel load is computed unconditionally from the descriptor
        // (any slot's fields may be read): in thread loops whose body runs for every
        // thread, LLVM hoists the descriptor loads out of the loop.
        let arrayed = matches!(geom, TexGeom::A1d | TexGeom::A2d);
        let dims = if matches!(geom, TexGeom::D2 | TexGeom::A2d) { 2 } else { 1 };
        let c = if arrayed { coords.get(1..).unwrap_or(&[]) } else { coords };
        // The texel index of coordinate `op` in a dimension of `n` texels (`.s32` as is,
        // `.f32` floor(u); NaN: 0; indices beyond ±2^40, which the runtime saturates to,
        // are outside every image anyway), clamped to the image (always in range for the
        // load), and whether it was outside. `.s32` indices are clamped in 32 bits (to at
        // most 2^31 - 1: the image may be larger).
        let clamp = |op: Option<&Operand>, n: IntValue<'ctx>| -> R<(IntValue<'ctx>, IntValue<'ctx>)> {
            let last = b.build_int_sub(n, self.i64(1), "")?;
            let (i, last, zero) = if float_coords {
                let f32t = self.cx.f32_type();
                let i = match op {
                    Some(op) => {
                        let u = self.read_float(*op, ScalarType::F32)?;
                        let f = self.call_intrinsic("llvm.floor", &[f32t.into()], &[u.into()])?;
                        self.float_to_int_saturating(f.into_float_value(), i64t, true)?
                    }
                    None => self.i64(0),
                };
                (i, last, self.i64(0))
            } else {
                let i = match op {
                    Some(op) => self.read(*op, ScalarType::S32)?,
                    None => self.i32(0),
                };
                let big = self.icmp(IntPredicate::UGT, last, self.i64(i32::MAX as u64))?;
                let last = self.select(big, self.i32(i32::MAX as u64), b.build_int_truncate(last, i32t, "")?)?;
                (i, last, self.i32(0))
            };
            let low = self.select(self.icmp(IntPredicate::SLT, i, zero)?, zero, i)?;
            let clamped = self.select(self.icmp(IntPredicate::SGT, low, last)?, last, low)?;
            let outside = self.icmp(IntPredicate::NE, clamped, i)?;
            Ok((b.build_int_z_extend_or_bit_cast(clamped, i64t, "")?, outside))
        };
        let (x, out_x) = clamp(c.first(), width)?;
        // Outside in x reads the border (`INLINE_BORDER_X`) or, with `.s32` coordinates on
        // linear memory, 0 (`INLINE_ZERO_OUTSIDE`, first); outside in y the border.
        let x_special = if float_coords { INLINE_BORDER_X } else { INLINE_BORDER_X | INLINE_ZERO_OUTSIDE };
        let oob_x = b.build_and(out_x, has(x_special)?, "")?;
        let zero_x = if float_coords { None } else { Some(has(INLINE_ZERO_OUTSIDE)?) };
        let mut oob_y = None;
        let mut row = data;
        if dims == 2 {
            let height = self.inline_field(st, d, field::HEIGHT, None)?.into_int_value();
            let (y, out_y) = clamp(c.get(1), height)?;
            oob_y = Some(b.build_and(out_y, has(INLINE_BORDER_Y)?, "")?);
            let pitch = self.inline_field(st, d, field::PITCH, None)?.into_int_value();
            // SAFETY (of the generated code): a row of the image.
            row = unsafe { b.build_in_bounds_gep(self.cx.i8_type(), row, &[b.build_int_nuw_mul(y, pitch, "")?], "")? };
        }
        if arrayed {
            let layer = match coords.first() {
                Some(l) => b.build_int_z_extend(self.read(*l, ScalarType::U32)?, i64t, "")?,
                None => self.i64(0),
            };
            let last = b.build_int_z_extend(self.inline_field(st, d, field::LAYER_MAX, None)?.into_int_value(), i64t, "")?;
            let layer = self.select(self.icmp(IntPredicate::UGT, layer, last)?, last, layer)?;
            let stride = self.inline_field(st, d, field::LAYER_STRIDE, None)?.into_int_value();
            // SAFETY (of the generated code): a layer of the image.
            row = unsafe { b.build_in_bounds_gep(self.cx.i8_type(), row, &[b.build_int_nuw_mul(layer, stride, "")?], "")? };
        }
        // One block per format reads the texel at (x, row).
        let entry = b.get_insert_block().ok_or_else(|| LowerError::Internal("no insert block".into()))?;
        let merge = self.new_block("tex.texel");
        b.position_at_end(merge);
        let mut phis = vec![];
        for _ in 0..4 {
            phis.push(b.build_phi(i32t, "texel")?);
        }
        let mut cases: Vec<(u64, BasicBlock<'ctx>)> = vec![];
        let mut blocks: Vec<(InlineFormat, BasicBlock<'ctx>)> = vec![];
        for fmt in InlineFormat::all().filter(|f| f.channel.bytes() < 4) {
            let block = match blocks.iter().find(|(f, _)| f.same_code(fmt)) {
                Some((_, bb)) => *bb,
                None => {
                    let bb = self.new_block("tex.format");
                    b.position_at_end(bb);
                    let words = self.inline_texel(row, x, fmt)?;
                    for (phi, w) in phis.iter().zip(words) {
                        phi.add_incoming(&[(&w, bb)]);
                    }
                    b.build_unconditional_branch(merge)?;
                    blocks.push((fmt, bb));
                    bb
                }
            };
            cases.push((fmt.code(), block));
        }
        // 32-bit channels share one block: their results are the channels' bits.
        let raw_bb = self.new_block("tex.raw32");
        b.position_at_end(raw_bb);
        let words = self.inline_raw32_texel(row, x, kind, alpha(())?)?;
        for (phi, w) in phis.iter().zip(words) {
            phi.add_incoming(&[(&w, raw_bb)]);
        }
        b.build_unconditional_branch(merge)?;

        // The kind decides: inline fetches need `INLINE_OK` and, with `.f32` coordinates,
        // neither normalized coordinates nor linear filtering; then 32-bit formats take
        // one block and the others switch on their format. Everything else calls the
        // runtime, which LLVM is told is rare.
        b.position_at_end(entry);
        let reject = INLINE_OK | if float_coords { INLINE_NORMALIZED | INLINE_LINEAR } else { 0 };
        let raw = b.build_and(kind, self.i32(reject | INLINE_RAW32), "")?;
        let raw = self.icmp(IntPredicate::EQ, raw, self.i32(INLINE_OK | INLINE_RAW32))?;
        let convert_bb = self.new_block("tex.convert");
        b.build_conditional_branch(raw, raw_bb, convert_bb)?;
        b.position_at_end(convert_bb);
        let selector = b.build_and(kind, self.i32(reject | INLINE_FORMAT_MASK), "")?;
        let cases: Vec<_> = cases.into_iter().map(|(v, bb)| (i32t.const_int(v | INLINE_OK, false), bb)).collect();
        let switch = b.build_switch(selector, runtime_bb, &cases)?;
        let weights: Vec<_> = std::iter::once(1).chain(cases.iter().map(|_| 1 << 16)).map(|w| i32t.const_int(w, false).into()).collect();
        let prof = self.cx.metadata_node(&[self.cx.metadata_string("branch_weights").into()].into_iter().chain(weights).collect::<Vec<_>>());
        switch.set_metadata(prof, self.cx.get_kind_id("prof")).map_err(|e| LowerError::Internal(e.to_string()))?;

        b.position_at_end(merge);
        let mut inline_words = [self.i32(0); 4];
        for (i, (w, phi)) in inline_words.iter_mut().zip(&phis).enumerate() {
            let texel = phi.as_basic_value().into_int_value();
            let border_word = self.inline_field(st, d, field::BORDER, Some(i as u64))?.into_int_value();
            let v = match oob_y {
                Some(o) => self.select(o, border_word, texel)?,
                None => texel,
            };
            let x_word = match zero_x {
                Some(z) => self.select(z, self.i32(0), border_word)?,
                None => border_word,
            };
            *w = self.select(oob_x, x_word, v)?;
        }
        let inline_words = to_dtype(inline_words)?;
        done_incoming.push((inline_words, b.get_insert_block().ok_or_else(|| LowerError::Internal("no insert block".into()))?));
        b.build_unconditional_branch(done)?;

        b.position_at_end(runtime_bb);
        let runtime_words = runtime(self)?;
        done_incoming.push((runtime_words, b.get_insert_block().ok_or_else(|| LowerError::Internal("no insert block".into()))?));
        b.build_unconditional_branch(done)?;

        b.position_at_end(done);
        let mut words = [self.i32(0); 4];
        for (i, w) in words.iter_mut().enumerate() {
            let phi = b.build_phi(i32t, "tex.word")?;
            for (incoming, bb) in &done_incoming {
                phi.add_incoming(&[(&incoming[i], *bb)]);
            }
            *w = phi.as_basic_value().into_int_value();
        }
        Ok(words)
    }

    /// The 4 result words of texel `x` of `row` in format `fmt` (ptxrt's `TextureObject::read`):
    /// channels as integers (sign- or zero-extended) or floats (f16 widened, normalized
    /// integers divided by `2^n - 1` or `2^(n-1) - 1` and kept >= -1), the channels the
    /// format lacks 0, alpha 1 (1.0 for float results).
    fn inline_texel(&self, row: PointerValue<'ctx>, x: IntValue<'ctx>, fmt: InlineFormat) -> R<[IntValue<'ctx>; 4]> {
        let b = &self.b;
        let i32t = self.cx.i32_type();
        let f32t = self.cx.f32_type();
        let bytes = fmt.channel.bytes();
        let one = if fmt.float_result() { 1f32.to_bits() as u64 } else { 1 };
        let mut words = [self.i32(0), self.i32(0), self.i32(0), self.i32(one)];
        // SAFETY (of the generated code): `x` is a texel of the row.
        let texel = unsafe { b.build_in_bounds_gep(self.cx.i8_type(), row, &[b.build_int_nuw_mul(x, self.i64((bytes * fmt.channels) as u64), "")?], "")? };
        for (c, w) in words.iter_mut().take(fmt.channels as usize).enumerate() {
            // SAFETY (of the generated code): channel `c` of the texel.
            let p = unsafe { b.build_in_bounds_gep(self.cx.i8_type(), texel, &[self.i64(c as u64 * bytes as u64)], "")? };
            let v = self.texel_load(p, 8 * bytes)?;
            let signed = matches!(fmt.channel, Channel::S8 | Channel::S16);
            *w = match fmt.channel {
                Channel::F16 => b.build_bit_cast(self.half_to_f32(Half::F16, v)?, i32t, "")?.into_int_value(),
                Channel::U32 | Channel::S32 | Channel::F32 => v,
                _ if fmt.normalized => {
                    let max = ((1u64 << (8 * bytes - signed as u32)) - 1) as f64;
                    let f = if signed { b.build_signed_int_to_float(v, f32t, "")? } else { b.build_unsigned_int_to_float(v, f32t, "")? };
                    let mut f = b.build_float_div(f, f32t.const_float(max), "")?;
                    if signed {
                        let below = b.build_float_compare(FloatPredicate::OLT, f, f32t.const_float(-1.0), "")?;
                        f = b.build_select(below, f32t.const_float(-1.0), f, "")?.into_float_value();
                    }
                    b.build_bit_cast(f, i32t, "")?.into_int_value()
                }
                _ if signed => b.build_int_s_extend(v, i32t, "")?,
                _ => b.build_int_z_extend(v, i32t, "")?,
            };
        }
        Ok(words)
    }

    /// The 4 result words of texel `x` of `row` in a format of 32-bit channels (u32, s32,
    /// f32; 1, 2 or 4 of them, `kind`'s channel field): the channels' bits, 0 for the
    /// channels the format lacks and `alpha` for alpha. Channels past the format's are read
    /// at its last channel (always in the image) and not used, so this needs no branch.
    fn inline_raw32_texel(&self, row: PointerValue<'ctx>, x: IntValue<'ctx>, kind: IntValue<'ctx>, alpha: IntValue<'ctx>) -> R<[IntValue<'ctx>; 4]> {
        let b = &self.b;
        let i64t = self.cx.i64_type();
        let log2n = b.build_and(b.build_right_shift(kind, self.i32(INLINE_CHANNELS_SHIFT), false, "")?, self.i32(3), "")?;
        let log2n = b.build_int_z_extend(log2n, i64t, "")?;
        // The element is 4 << log2n bytes; its last channel starts 4 bytes before its end.
        let last = b.build_int_sub(b.build_left_shift(self.i64(4), log2n, "")?, self.i64(4), "")?;
        let offset = b.build_left_shift(x, b.build_int_add(log2n, self.i64(2), "")?, "")?;
        // SAFETY (of the generated code): `x` is a texel of the row.
        let texel = unsafe { b.build_in_bounds_gep(self.cx.i8_type(), row, &[offset], "")? };
        let mut words = [self.i32(0), self.i32(0), self.i32(0), alpha];
        for (c, w) in words.iter_mut().enumerate() {
            let at = self.i64(4 * c as u64);
            let present = self.icmp(IntPredicate::ULE, at, last)?;
            let at = if c == 0 { at } else { self.select(present, at, last)? };
            // SAFETY (of the generated code): a channel of the texel.
            let p = unsafe { b.build_in_bounds_gep(self.cx.i8_type(), texel, &[at], "")? };
            let v = self.texel_load(p, 32)?;
            *w = if c == 0 { v } else { self.select(present, v, *w)? };
        }
        Ok(words)
    }

    /// A load of `bits` of texel memory: any alignment (linear and pitched memory may hold
    /// unaligned texels), global memory for alias analysis.
    fn texel_load(&self, p: PointerValue<'ctx>, bits: u32) -> R<IntValue<'ctx>> {
        let v = self.b.build_load(self.int_ty(bits), p, "texel")?.into_int_value();
        if let Some(inst) = v.as_instruction() {
            inst.set_alignment(1).map_err(|e| LowerError::Internal(e.to_string()))?;
            crate::lower::exec::alias::tag_ptx_access(self.cx, inst, StateSpace::Global);
            self.tag_thread_access(inst);
        }
        Ok(v)
    }

    /// f32 bits rounded to f16 bits (in the low half) as ptxrt's `f32_to_f16` does: to
    /// nearest even, NaN keeping its sign and high payload bits, quieted.
    fn f32_bits_to_f16(&self, w: IntValue<'ctx>) -> R<IntValue<'ctx>> {
        let b = &self.b;
        let i32t = self.cx.i32_type();
        let x = b.build_bit_cast(w, self.cx.f32_type(), "")?.into_float_value();
        let wide = b.build_float_ext(x, self.cx.f64_type(), "")?;
        let rounded = b.build_int_z_extend(self.f64_to_half_rn(Half::F16, wide)?, i32t, "")?;
        let magnitude = b.build_and(w, self.i32(0x7FFF_FFFF), "")?;
        let nan = self.icmp(IntPredicate::UGT, magnitude, self.i32(0x7F80_0000))?;
        let sign = b.build_and(b.build_right_shift(w, self.i32(16), false, "")?, self.i32(0x8000), "")?;
        let payload = b.build_right_shift(b.build_and(w, self.i32(0x7F_FFFF), "")?, self.i32(13), false, "")?;
        let nan_bits = b.build_or(b.build_or(sign, self.i32(0x7E00), "")?, payload, "")?;
        self.select(nan, nan_bits, rounded)
    }
}

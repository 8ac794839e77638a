//! Texture, surface and opaque-type instructions (`Op::Texture`): calls into the runtime's
//! sampling code (`ptxrt/src/texture.rs`, ABI in `ptxrt_abi.h`), and the module globals
//! that hold texture, sampler and surface references.
//!
//! A reference (`.texref`, ISA 1.x `.tex`, `.samplerref`, `.surfref`) is an 8-byte global
//! holding a handle, registered with the module as `.texref:NAME` (etc.) so that the host
//! binds it by name. Using a reference as a value (`mov.u64 %rd, tex`) reads the handle,
//! so direct and indirect (register) accesses are the same call.

use crate::lower::thread::FnCx;
use crate::lower::{abi, LowerError, ModuleLowerer, R};
use crate::ir::{self, HandleKind, Operand, ScalarType, SurfaceClamp, SurfaceRedOp, TexGeom, TexLod, TextureOp};
use inkwell::module::Linkage;
use inkwell::values::{FunctionValue, GlobalValue, IntValue, PointerValue};
use inkwell::AddressSpace;

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

/// The registry name of a reference.
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
        Ok(self.b.build_load(self.cx.i64_type(), g.as_pointer_value(), "handle")?.into_int_value())
    }

    /// A runtime entry point returning an `i32`.
    fn runtime_fn(&self, name: &str, params: &[inkwell::types::BasicMetadataTypeEnum<'ctx>]) -> FunctionValue<'ctx> {
        self.module
            .get_function(name)
            .unwrap_or_else(|| self.module.add_function(name, self.cx.i32_type().fn_type(params, false), Some(Linkage::External)))
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
    fn handle(&self, op: Operand) -> R<IntValue<'ctx>> {
        match op {
            Operand::ParamAddr(i, _) => {
                let p = *self.uni.params.get(i as usize).ok_or_else(|| LowerError::Internal(format!("parameter {i} does not exist")))?;
                Ok(self.b.build_load(self.cx.i64_type(), p, "handle")?.into_int_value())
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
                let tex = self.handle(*texture)?;
                let smp = match sampler {
                    Some(s) => self.handle(*s)?,
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
                let cbuf = match (offset, lod_words.is_empty(), depth_compare) {
                    (None, true, None) => self.coord_buffer(coords)?,
                    (offset, _, depth_compare) => self.coord_offset_buffer(coords, offset.as_deref().unwrap_or(&[]), &lod_words, depth_compare.as_ref())?,
                };
                let out = self.entry_alloca(16)?;
                let f = self.runtime_fn("__ptxrt_tex", &[i64t.into(), i64t.into(), i32t.into(), ptr.into(), ptr.into()]);
                let status = self.b.build_call(f, &[tex.into(), smp.into(), self.i32(op).into(), cbuf.into(), out.into()], "tex")?;
                let status = status.try_as_basic_value().basic().ok_or_else(|| LowerError::Internal("__ptxrt_tex returns a value".into()))?.into_int_value();
                self.check_status(status, if gather.is_some() { "tld4" } else { "tex" })?;
                let channel = |i: u64| -> R<IntValue<'ctx>> {
                    let p = self.byte_ptr(out, 4 * i)?;
                    Ok(self.b.build_load(i32t, p, "")?.into_int_value())
                };
                for (i, d) in dst.iter().enumerate() {
                    let Some(d) = d else { continue };
                    let v = if *dtype == ScalarType::F16x2 {
                        // The runtime returns each channel as an `.f16` in the low half of
                        // its word; destination `i` packs channels 2i (low) and 2i+1 (high).
                        let lo = self.b.build_and(channel(2 * i as u64)?, self.i32(0xFFFF), "")?;
                        let hi = self.b.build_left_shift(channel(2 * i as u64 + 1)?, self.i32(16), "")?;
                        self.b.build_or(lo, hi, "")?
                    } else {
                        channel(i as u64)?
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
                let h = self.handle(*handle)?;
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
                let h = self.handle(*a)?;
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
                let s = self.handle(*surface)?;
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
                let s = self.handle(*surface)?;
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
                let s = self.handle(*surface)?;
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

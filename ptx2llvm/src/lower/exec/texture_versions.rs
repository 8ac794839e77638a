//! Thread loops versioned on the kernel's textures.
//!
//! A point fetch of a 1D texture by integer index (`tex.1d` with `.s32` coordinates,
//! CUDA's `tex1Dfetch`) reads the texel inline when the texture is linear memory of 32-bit
//! channels (`ops::texture`, `inline_fetch`); every other kind of texture takes general
//! code that ends in a runtime call. That choice depends on the texture's descriptor, one
//! per handle, so inside a thread loop it is the same for every thread, but LLVM cannot
//! take it out of the loop (the descriptor's fields are read under the thread's own
//! conditions, and the loop is too large to unswitch), and the runtime call keeps the loop
//! from vectorizing.
//!
//! So a barrier-free kernel whose every such fetch reads a handle known before the thread
//! loop (a kernel parameter, a texture reference, or a register loaded once from a
//! parameter) gets its thread loop twice: one where every such fetch is the inline read
//! of linear memory (`FnCx::linear_textures`: no descriptor test, no call: it vectorizes),
//! and the general one. The block function tests the handles' descriptors once, before
//! the loop, and runs the first when all of them are linear memory.

use crate::ir::{self, AddressBase, Op, Operand};
use crate::lower::exec::recompute::Defs;
use crate::lower::ops::texture::linear_fetch_texture;
use crate::lower::thread::FnCx;
use crate::lower::R;
use inkwell::values::IntValue;

/// Where a fetched texture's handle comes from, as the entry block can read it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum HandleSource {
    /// The operand itself (a parameter or a texture reference).
    Operand(Operand),
    /// A register with one definition: an unguarded `ld.param` of a kernel parameter,
    /// which the entry replays (`(block, instruction)`).
    Replay(usize, usize),
}

/// The handles of kernel `f`'s integer-indexed 1D point fetches, if there is at least one
/// and every one is known before the thread loop; `None` otherwise (no second version).
pub fn linear_fetch_handles(f: &ir::Function) -> Option<Vec<HandleSource>> {
    let defs = Defs::new(f);
    let mut out: Vec<HandleSource> = vec![];
    for block in &f.blocks {
        for inst in &block.insts {
            let Op::Texture(t) = &inst.op else { continue };
            let Some(texture) = linear_fetch_texture(t) else { continue };
            let source = match texture {
                Operand::ParamAddr(..) | Operand::Handle(_) => HandleSource::Operand(texture),
                Operand::Reg(r) => {
                    let (b, i) = defs.single(r)?;
                    let def = &f.blocks[b].insts[i];
                    let from_param = matches!(
                        &def.op,
                        Op::Load { space: ir::StateSpace::Param, volatile: false, order: None, ty, addr: ir::Address { base: AddressBase::Param(_), .. }, .. }
                            if ty.bits() == 64
                    );
                    if def.guard.is_some() || !from_param {
                        return None;
                    }
                    HandleSource::Replay(b, i)
                }
                _ => return None,
            };
            if !out.contains(&source) {
                out.push(source);
            }
        }
    }
    (!out.is_empty()).then_some(out)
}

/// Emits, at the current position (before the thread loops), whether every handle of
/// `handles` is a texture over linear memory that the inline read serves.
pub fn emit_all_linear<'ctx>(fc: &mut FnCx<'ctx, '_>, handles: &[HandleSource]) -> R<IntValue<'ctx>> {
    let mut all = fc.cx.bool_type().const_int(1, false);
    for h in handles {
        let operand = match *h {
            HandleSource::Operand(op) => op,
            HandleSource::Replay(b, i) => {
                let inst = &fc.f.blocks[b].insts[i];
                fc.inst(inst).map_err(|e| e.at(&inst.span))?;
                let mut dst = vec![];
                crate::ir::visit::defs(&inst.op, &mut dst);
                Operand::Reg(dst[0])
            }
        };
        let linear = fc.texture_is_linear(fc.texture_handle(operand)?)?;
        all = fc.b.build_and(all, linear, "tex.linear")?;
    }
    Ok(all)
}

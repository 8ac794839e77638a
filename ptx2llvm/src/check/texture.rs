//! Texture, surface and opaque-type instructions: `tex`, `tld4`, `txq` (ISA 9.2 §9.7.10),
//! `suld`, `sust`, `sured`, `suq` (§9.7.11) and `istypep` → `Op::Texture`.
//!
//! The depth-compare operand `f` of `tex`/`tld4` is kept as `TextureOp::Fetch::depth_compare`;
//! which comparison passes is state of the texture or sampler (`compareFunc`, ptxrt.h).

use super::function::FnScope;
use super::instruction::{done, expect_operands, unsupported, Converted, Mods};
use super::operands::Width;
use crate::front::ast::{self, Operand as A, Spanned};
use crate::ir::{self, HandleKind, Op, ScalarType, SurfaceClamp, SurfaceRedOp, TexGeom, TexLod, TexQuery, TextureOp};

pub(super) fn convert(scope: &mut FnScope, inst: &ast::Instruction, mods: Mods, guard: Option<ir::PredRef>) -> Option<Converted> {
    match inst.opcode.node.as_str() {
        "tex" | "tld4" => fetch(scope, inst, mods, guard),
        "txq" | "suq" => query(scope, inst, mods, guard),
        "suld" | "sust" | "sured" => surface(scope, inst, mods, guard),
        _ => istypep(scope, inst, mods, guard),
    }
}

fn kind_name(k: HandleKind) -> &'static str {
    match k {
        HandleKind::Texture => "texture (`.texref`)",
        HandleKind::Sampler => "sampler (`.samplerref`)",
        HandleKind::Surface => "surface (`.surfref`)",
    }
}

/// A texture/sampler/surface operand: a reference of one of the `want` kinds, or a `.u64`
/// register holding a handle.
fn handle(scope: &mut FnScope, op: &Spanned<A>, want: &[HandleKind]) -> Option<ir::Operand> {
    let op = match &op.node {
        A::Address(inner, 0) => inner.as_ref(),
        _ => op,
    };
    if !matches!(op.node, A::Name { .. }) {
        scope.error(op.span.clone(), format!("expected a {} reference or a `.u64` register", kind_name(want[0])));
        return None;
    }
    match scope.src(op, ScalarType::U64, Width::Exact)? {
        ir::Operand::Handle(h) => {
            let kind = scope.cx.out.handles[h.0 as usize].kind;
            if !want.contains(&kind) {
                let name = &scope.cx.out.handles[h.0 as usize].name;
                let msg = format!("`{name}` is a {}, but a {} is needed here", kind_name(kind), kind_name(want[0]));
                scope.error(op.span.clone(), msg);
                return None;
            }
            Some(ir::Operand::Handle(h))
        }
        r @ ir::Operand::Reg(_) => Some(r),
        // An opaque kernel parameter (`.param .texref t`): the handle is its value.
        ir::Operand::ParamAddr(i, 0) => match scope.cx.out.functions.get(scope.index).and_then(|f| f.params.get(i as usize)).and_then(|p| p.handle) {
            Some(kind) if want.contains(&kind) => Some(ir::Operand::ParamAddr(i, 0)),
            _ => {
                scope.error(op.span.clone(), format!("expected a {} reference or a `.u64` register", kind_name(want[0])));
                None
            }
        },
        _ => {
            scope.error(op.span.clone(), format!("expected a {} reference or a `.u64` register", kind_name(want[0])));
            None
        }
    }
}

fn geometry(mods: &mut Mods) -> Option<TexGeom> {
    Some(match mods.one_of(&[".1d", ".2d", ".3d", ".a1d", ".a2d", ".cube", ".acube", ".2dms", ".a2dms"])? {
        ".1d" => TexGeom::D1,
        ".2d" => TexGeom::D2,
        ".3d" => TexGeom::D3,
        ".a1d" => TexGeom::A1d,
        ".a2d" => TexGeom::A2d,
        ".cube" => TexGeom::Cube,
        ".acube" => TexGeom::ACube,
        ".2dms" => TexGeom::D2ms,
        _ => TexGeom::A2dms,
    })
}

/// The coordinate elements: a vector `{x, y}` or a scalar (1d). Elements past what the
/// geometry uses are resolved and ignored (the ISA allows `.v4` vectors for any geometry).
/// The leading index elements (layer, cube, sample) are `.u32`; the others have type `ty`.
fn coordinates(scope: &mut FnScope, op: &Spanned<A>, geom: TexGeom, ty: ScalarType, opcode: &str) -> Option<Vec<ir::Operand>> {
    let elems = scope.vector_elements(op);
    let need = geom.coords();
    if elems.len() < need {
        scope.error(op.span.clone(), format!("`{opcode}` with this geometry needs {need} coordinates, found {}", elems.len()));
        return None;
    }
    let mut out = vec![];
    for (i, e) in elems.iter().enumerate() {
        if i >= need {
            if !scope.resolve_any(e) {
                return None;
            }
            continue;
        }
        let t = if i < geom.indices() { ScalarType::U32 } else { ty };
        out.push(scope.src(e, t, Width::Exact)?);
    }
    Some(out)
}

/// The `.s32` elements of a texel offset operand `e`: one per dimension of the geometry
/// (3d takes a fourth, ignored one; elements past the dimensions are resolved and ignored).
fn offset_elements(scope: &mut FnScope, op: &Spanned<A>, geom: TexGeom, opcode: &str) -> Option<Vec<ir::Operand>> {
    leading_elements(scope, op, geom.coords() - geom.indices(), ScalarType::S32, &format!("`{opcode}` with this geometry needs an offset"))
}

/// The first `dims` elements of vector operand `op` as `ty` sources; further elements are
/// resolved and ignored. Fewer than `dims` is an error: "{what} of N elements".
fn leading_elements(scope: &mut FnScope, op: &Spanned<A>, dims: usize, ty: ScalarType, what: &str) -> Option<Vec<ir::Operand>> {
    let elems = scope.vector_elements(op);
    if elems.len() < dims {
        scope.error(op.span.clone(), format!("{what} of {dims} elements, found {}", elems.len()));
        return None;
    }
    let mut out = vec![];
    for (i, e) in elems.iter().enumerate() {
        if i >= dims {
            if !scope.resolve_any(e) {
                return None;
            }
            continue;
        }
        out.push(scope.src(e, ty, Width::Exact)?);
    }
    Some(out)
}

/// `[a, c]`, `[a, b, c]`, or the bracket-less ISA 1.x `a, c`: (texture, sampler, coordinates, extra operands).
#[allow(clippy::type_complexity)]
fn split_access(ops: &[Spanned<A>]) -> Option<(&Spanned<A>, Option<&Spanned<A>>, &Spanned<A>, &[Spanned<A>])> {
    match &ops.get(1)?.node {
        A::Vector(items) => match items.as_slice() {
            [a, c] => Some((a, None, c, &ops[2..])),
            [a, b, c] => Some((a, Some(b), c, &ops[2..])),
            _ => None,
        },
        A::Name { .. } => Some((&ops[1], None, ops.get(2)?, &ops[3..])),
        _ => None,
    }
}

fn fetch(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Option<ir::PredRef>) -> Option<Converted> {
    let opcode = inst.opcode.node.as_str();
    let ops = &inst.operands;
    let gather = if opcode == "tld4" {
        match mods.one_of(&[".r", ".g", ".b", ".a"]) {
            Some(".r") => Some(0),
            Some(".g") => Some(1),
            Some(".b") => Some(2),
            Some(_) => Some(3),
            None => {
                scope.error(inst.opcode.span.clone(), "`tld4` needs a component (`.r`, `.g`, `.b` or `.a`)");
                return None;
            }
        }
    } else {
        None
    };
    let geom = match geometry(&mut mods) {
        Some(g) => g,
        None => {
            scope.error(inst.opcode.span.clone(), format!("`{opcode}` needs a geometry (`.1d`, `.2d`, ...)"));
            return None;
        }
    };
    if gather.is_some() && !matches!(geom, TexGeom::D2 | TexGeom::A2d | TexGeom::Cube | TexGeom::ACube) {
        scope.error(inst.opcode.span.clone(), "`tld4` takes `.2d`, `.a2d`, `.cube` or `.acube`");
        return None;
    }
    let multisample = matches!(geom, TexGeom::D2ms | TexGeom::A2dms);
    let lod_mode = mods.one_of(&[".base", ".level", ".grad"]).filter(|m| *m != ".base");
    if let Some(m) = lod_mode {
        if gather.is_some() {
            scope.error(inst.opcode.span.clone(), format!("`tld4` takes no mipmap mode (`{m}`)"));
            return None;
        }
        if multisample {
            scope.error(inst.opcode.span.clone(), format!("`tex{m}` does not apply to multi-sample textures (`.2dms`, `.a2dms`)"));
            return None;
        }
    }
    let two_element = mods.has(".v2");
    if !two_element {
        mods.has(".v4");
    }
    let types = mods.types();
    let [dtype, ctype] = types[..] else {
        scope.error(inst.opcode.span.clone(), format!("`{opcode}` needs a destination and a coordinate type (`{opcode}.2d.v4.f32.f32`)"));
        return None;
    };
    if !mods.finish() {
        return None;
    }
    // `.v2` goes with `.f16x2` (tex only) and `.f16x2` with `.v2`.
    if two_element != (dtype == ScalarType::F16x2) || (gather.is_some() && dtype == ScalarType::F16x2) {
        scope.error(inst.opcode.span.clone(), format!("`{opcode}` returns `.v2.f16x2` or a `.v4` of `.u32 .s32 .f32 .f16`"));
        return None;
    }
    if !matches!(dtype, ScalarType::U32 | ScalarType::S32 | ScalarType::F32 | ScalarType::F16 | ScalarType::F16x2)
        || (gather.is_some() && dtype == ScalarType::F16)
    {
        scope.error(inst.opcode.span.clone(), format!("`{opcode}` cannot return `{}`", dtype.name()));
        return None;
    }
    let cube = matches!(geom, TexGeom::Cube | TexGeom::ACube);
    if !matches!(ctype, ScalarType::S32 | ScalarType::F32) || ((gather.is_some() || cube) && ctype != ScalarType::F32) {
        scope.error(inst.opcode.span.clone(), format!("`{opcode}` cannot take `{}` coordinates", ctype.name()));
        return None;
    }
    if multisample && ctype != ScalarType::S32 {
        scope.error(inst.opcode.span.clone(), "multi-sample textures (`.2dms`, `.a2dms`) take `.s32` coordinates");
        return None;
    }
    let Some((a, b, c, extra)) = split_access(ops) else {
        scope.error(inst.span.clone(), format!("`{opcode}` expects `d, [texture, {{sampler,}} coordinates]`"));
        return None;
    };
    // `.level` takes `lod`, `.grad` `dPdx, dPdy` before the optional operands.
    let lod_operands = match lod_mode {
        Some(".level") => 1,
        Some(_) => 2,
        None => 0,
    };
    if extra.len() < lod_operands {
        let what = if lod_operands == 1 { "a level-of-detail operand" } else { "the gradients `dPdx, dPdy`" };
        scope.error(inst.span.clone(), format!("`tex{}` needs {what} after the access", lod_mode.unwrap_or_default()));
        return None;
    }
    let (lod_ops, extra) = extra.split_at(lod_operands);
    // `{, e} {, f}`: the offset is a vector (`{%r5}`, `{%r5, %r6}`), the depth-compare
    // value a scalar.
    let (offset_op, depth_op) = match extra {
        [] => (None, None),
        [e] if matches!(e.node, A::Vector(_)) => (Some(e), None),
        [f] => (None, Some(f)),
        [e, f] => (Some(e), Some(f)),
        _ => {
            scope.error(inst.span.clone(), format!("`{opcode}` takes at most an offset and a depth-compare operand after the access"));
            return None;
        }
    };
    if cube && offset_op.is_some() {
        scope.error(inst.span.clone(), format!("`{opcode}` takes no offset operand with cubemap geometries"));
        return None;
    }
    if depth_op.is_some() && (multisample || geom == TexGeom::D3) {
        scope.error(inst.span.clone(), format!("`{opcode}` takes no depth-compare operand with `.3d`, `.2dms` or `.a2dms`"));
        return None;
    }
    if depth_op.is_some() && ctype != ScalarType::F32 {
        scope.error(inst.opcode.span.clone(), format!("`{opcode}` with a depth-compare operand takes `.f32` coordinates"));
        return None;
    }
    // The ISA's notes: offset and depth compare from PTX 4.3 and sm_30, the residency
    // predicate from PTX 7.1 and sm_60.
    let optional_operands = [
        (offset_op.is_some(), "the offset operand", (4, 3), 30),
        (depth_op.is_some(), "the depth-compare operand", (4, 3), 30),
        (matches!(ops[0].node, A::VectorPair(..)), "the residency predicate `d|p`", (7, 1), 60),
    ];
    for (used, what, version, sm) in optional_operands {
        if used && !operand_allowed(scope, inst, what, version, sm) {
            return None;
        }
    }
    // `d|p`: the residency predicate (see `TextureOp::Fetch`).
    let (data, resident) = match &ops[0].node {
        A::VectorPair(d, p) => {
            (d.as_ref(), Some(Spanned::new(if p == "_" { A::Sink } else { A::Name { name: p.clone(), component: None } }, ops[0].span.clone())))
        }
        _ => (&ops[0], None),
    };
    let texture = handle(scope, a, &[HandleKind::Texture])?;
    let sampler = match b {
        Some(b) => Some(handle(scope, b, &[HandleKind::Sampler])?),
        None => None,
    };
    let coords = coordinates(scope, c, geom, ctype, opcode)?;
    let offset = match offset_op {
        Some(e) => Some(offset_elements(scope, e, geom, opcode)?),
        None => None,
    };
    let lod = match lod_ops {
        [level] => TexLod::Level(scope.src(level, ctype, Width::Exact)?),
        [dpdx, dpdy] => TexLod::Grad(gradient(scope, dpdx, geom)?, gradient(scope, dpdy, geom)?),
        _ => TexLod::Base,
    };
    let depth_compare = match depth_op {
        Some(f) => Some(scope.src(f, ScalarType::F32, Width::Exact)?),
        None => None,
    };
    let elems = scope.vector_elements(data);
    let count = if two_element { 2 } else { 4 };
    if elems.len() != count {
        scope.error(data.span.clone(), format!("`{opcode}` writes a vector of {count} registers, found {}", elems.len()));
        return None;
    }
    let mut dst = vec![];
    for e in &elems {
        dst.push(match e.node {
            A::Sink => None,
            _ => Some(scope.dst(e, dtype, Width::Exact)?),
        });
    }
    let resident = match &resident {
        Some(p) if matches!(p.node, A::Sink) => None,
        Some(p) => Some(scope.dst(p, ScalarType::Pred, Width::Exact)?),
        None => None,
    };
    let op =
        TextureOp::Fetch { gather, geom, dtype, float_coords: ctype == ScalarType::F32, dst, resident, texture, sampler, coords, offset, lod, depth_compare };
    done(guard, Op::Texture(op), inst)
}

/// Whether the file's `.version` and `.target` allow an optional operand introduced in PTX
/// `version` that requires `sm_{sm}` (an error otherwise).
fn operand_allowed(scope: &mut FnScope, inst: &ast::Instruction, what: &str, version: (u32, u32), sm: u32) -> bool {
    let opcode = inst.opcode.node.as_str();
    let declared = scope.cx.out.version;
    if declared < version {
        let msg = format!(
            "{what} of `{opcode}` requires PTX ISA version {}.{} or later (the file declares `.version {}.{}`)",
            version.0, version.1, declared.0, declared.1
        );
        scope.error(inst.span.clone(), msg);
        return false;
    }
    match scope.cx.target_sm {
        Some(target) if target < sm => {
            scope.error(inst.span.clone(), format!("{what} of `{opcode}` requires `.target sm_{sm}` or higher (the file targets `sm_{target}`)"));
            false
        }
        _ => true,
    }
}

/// The `.f32` elements of a `tex.grad` partial: one per dimension (three for cubemaps; a
/// fourth element of 3d and cubemap vectors is resolved and ignored).
fn gradient(scope: &mut FnScope, op: &Spanned<A>, geom: TexGeom) -> Option<Vec<ir::Operand>> {
    let dims = match geom {
        TexGeom::D1 | TexGeom::A1d => 1,
        TexGeom::D2 | TexGeom::A2d | TexGeom::D2ms | TexGeom::A2dms => 2,
        TexGeom::D3 | TexGeom::Cube | TexGeom::ACube => 3,
    };
    leading_elements(scope, op, dims, ScalarType::F32, "`tex.grad` with this geometry needs gradients")
}

fn query(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Option<ir::PredRef>) -> Option<Converted> {
    let opcode = inst.opcode.node.as_str();
    let ops = &inst.operands;
    let level = mods.has(".level");
    let texture_queries: &[(&str, TexQuery)] = &[
        (".width", TexQuery::Width),
        (".height", TexQuery::Height),
        (".depth", TexQuery::Depth),
        (".channel_data_type", TexQuery::ChannelDataType),
        (".channel_order", TexQuery::ChannelOrder),
        (".array_size", TexQuery::ArraySize),
        (".normalized_coords", TexQuery::NormalizedCoords),
        (".num_mipmap_levels", TexQuery::NumMipmapLevels),
        (".num_samples", TexQuery::NumSamples),
        (".memory_layout", TexQuery::MemoryLayout),
    ];
    let sampler_queries: &[(&str, TexQuery)] = &[
        (".force_unnormalized_coords", TexQuery::ForceUnnormalizedCoords),
        (".filter_mode", TexQuery::FilterMode),
        (".addr_mode_0", TexQuery::AddrMode0),
        (".addr_mode_1", TexQuery::AddrMode1),
        (".addr_mode_2", TexQuery::AddrMode2),
    ];
    let names: Vec<&'static str> = texture_queries.iter().chain(sampler_queries).map(|(n, _)| *n).collect();
    let Some(name) = mods.one_of(&names) else {
        scope.error(inst.opcode.span.clone(), format!("`{opcode}` needs the attribute to query (`.width`, ...)"));
        return None;
    };
    mods.has(".b32");
    if !mods.finish() || !expect_operands(scope, inst, &[if level { 3 } else { 2 }]) {
        return None;
    }
    if level && (opcode != "txq" || !matches!(name, ".width" | ".height" | ".depth")) {
        scope.error(inst.opcode.span.clone(), "`.level` queries are `txq.level.width`, `.height` and `.depth`");
        return None;
    }
    let is_sampler_query = sampler_queries.iter().any(|(n, _)| *n == name);
    let query = texture_queries.iter().chain(sampler_queries).find(|(n, _)| *n == name).map(|(_, q)| *q)?;
    let kinds: &[HandleKind] = match (opcode, is_sampler_query) {
        ("suq", _) => &[HandleKind::Surface],
        // In unified mode a texture reference also answers sampler queries.
        (_, true) => &[HandleKind::Sampler, HandleKind::Texture],
        _ => &[HandleKind::Texture],
    };
    let dst = scope.dst(&ops[0], ScalarType::B32, Width::Exact)?;
    let h = handle(scope, &ops[1], kinds)?;
    let level = match level {
        true => Some(scope.src(&ops[2], ScalarType::S32, Width::Exact)?),
        false => None,
    };
    done(guard, Op::Texture(TextureOp::Query { query, dst, handle: h, level }), inst)
}

fn surface(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Option<ir::PredRef>) -> Option<Converted> {
    let opcode = inst.opcode.node.as_str();
    let ops = &inst.operands;
    let formatted = match mods.one_of(&[".b", ".p"]) {
        Some(".p") => true,
        Some(_) => false,
        None => {
            scope.error(inst.opcode.span.clone(), format!("`{opcode}` needs `.b` or `.p`"));
            return None;
        }
    };
    let red = if opcode == "sured" {
        Some(match mods.one_of(&[".add", ".min", ".max", ".and", ".or"]) {
            Some(".add") => SurfaceRedOp::Add,
            Some(".min") => SurfaceRedOp::Min,
            Some(".max") => SurfaceRedOp::Max,
            Some(".and") => SurfaceRedOp::And,
            Some(".or") => SurfaceRedOp::Or,
            _ => {
                scope.error(inst.opcode.span.clone(), "`sured` needs an operation (`.add`, `.min`, `.max`, `.and`, `.or`)");
                return None;
            }
        })
    } else {
        None
    };
    let geom = match geometry(&mut mods) {
        Some(g) if !matches!(g, TexGeom::Cube | TexGeom::ACube | TexGeom::D2ms | TexGeom::A2dms) => g,
        _ => {
            scope.error(inst.opcode.span.clone(), format!("`{opcode}` needs a geometry (`.1d`, `.2d`, `.3d`, `.a1d`, `.a2d`)"));
            return None;
        }
    };
    let clamp = match mods.one_of(&[".trap", ".clamp", ".zero"]) {
        Some(".clamp") => SurfaceClamp::Clamp,
        Some(".zero") => SurfaceClamp::Zero,
        _ => SurfaceClamp::Trap,
    };
    let vec: usize = match mods.one_of(&[".v2", ".v4"]) {
        Some(".v2") => 2,
        Some(_) => 4,
        None => 1,
    };
    mods.drop_hints();
    let types = mods.types();
    let [ty] = types[..] else {
        scope.error(inst.opcode.span.clone(), format!("`{opcode}` needs exactly one data type"));
        return None;
    };
    if !mods.finish() {
        return None;
    }
    if !expect_operands(scope, inst, &[2]) {
        return None;
    }
    if formatted && opcode == "suld" {
        return unsupported(scope, inst, guard, "`suld.p` (formatted surface loads)");
    }
    if formatted && ty != ScalarType::B32 && opcode == "sust" {
        scope.error(inst.opcode.span.clone(), "`sust.p` stores `.b32` components");
        return None;
    }
    if vec * ty.bytes() as usize > 32 || (opcode != "sured" && ty.kind() != ir::TypeKind::Bits) {
        scope.error(inst.opcode.span.clone(), format!("`{opcode}` cannot move `{}` elements", ty.name()));
        return None;
    }
    let (access, value) = if opcode == "suld" { (&ops[1], &ops[0]) } else { (&ops[0], &ops[1]) };
    let (s, c) = match &access.node {
        A::Vector(items) if items.len() == 2 => (&items[0], &items[1]),
        _ => {
            scope.error(access.span.clone(), format!("`{opcode}` expects a surface access `[surface, coordinates]`"));
            return None;
        }
    };
    let surf = handle(scope, s, &[HandleKind::Surface])?;
    let coords = coordinates(scope, c, geom, ScalarType::B32, opcode)?;
    if let Some(op) = red {
        if matches!(geom, TexGeom::A1d | TexGeom::A2d) {
            scope.error(inst.opcode.span.clone(), "`sured` takes `.1d`, `.2d` or `.3d`");
            return None;
        }
        let ok = match op {
            SurfaceRedOp::Add => matches!(ty, ScalarType::U32 | ScalarType::S32 | ScalarType::U64),
            SurfaceRedOp::Min | SurfaceRedOp::Max => {
                matches!(ty, ScalarType::U32 | ScalarType::S32 | ScalarType::U64 | ScalarType::S64 | ScalarType::B32 | ScalarType::B64)
            }
            SurfaceRedOp::And | SurfaceRedOp::Or => matches!(ty, ScalarType::B32 | ScalarType::B64),
        };
        if !ok {
            scope.error(inst.opcode.span.clone(), format!("`sured` cannot apply this operation to `{}`", ty.name()));
            return None;
        }
        let src = scope.src(value, ty, Width::Exact)?;
        let op = TextureOp::SurfaceReduce { op, formatted, geom, clamp, ty, surface: surf, coords, src };
        return done(guard, Op::Texture(op), inst);
    }
    let elems = scope.vector_elements(value);
    if elems.len() != vec {
        scope.error(value.span.clone(), format!("`{opcode}` with {vec} element(s) needs a vector of {vec} operands"));
        return None;
    }
    let op = if opcode == "suld" {
        let mut dst = vec![];
        for e in &elems {
            dst.push(match e.node {
                A::Sink => None,
                _ => Some(scope.dst(e, ty, Width::AllowWider)?),
            });
        }
        TextureOp::SurfaceLoad { geom, clamp, ty, dst, surface: surf, coords }
    } else {
        let mut src = vec![];
        for e in &elems {
            src.push(scope.src(e, ty, Width::AllowWider)?);
        }
        TextureOp::SurfaceStore { geom, clamp, formatted, ty, src, surface: surf, coords }
    };
    done(guard, Op::Texture(op), inst)
}

fn istypep(scope: &mut FnScope, inst: &ast::Instruction, mut mods: Mods, guard: Option<ir::PredRef>) -> Option<Converted> {
    let kind = match mods.one_of(&[".texref", ".samplerref", ".surfref"]) {
        Some(".texref") => HandleKind::Texture,
        Some(".samplerref") => HandleKind::Sampler,
        Some(_) => HandleKind::Surface,
        None => {
            scope.error(inst.opcode.span.clone(), "`istypep` needs `.texref`, `.samplerref` or `.surfref`");
            return None;
        }
    };
    if !mods.finish() || !expect_operands(scope, inst, &[2]) {
        return None;
    }
    let dst = scope.dst(&inst.operands[0], ScalarType::Pred, Width::Exact)?;
    let a = scope.src(&inst.operands[1], ScalarType::U64, Width::Exact)?;
    done(guard, Op::Texture(TextureOp::IsType { kind, dst, a }), inst)
}

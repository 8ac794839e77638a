#!/usr/bin/env python3
"""Generates ptx2llvm/src/check/forms_table.rs, the instruction-form table of the checker.

Usage:
    scripts/gen-forms.py SPEC_DIR > ptx2llvm/src/check/forms_table.rs

SPEC_DIR is the Markdown text of the PTX ISA 9.2 (the directory holding
`09-instruction-set/`). Two more texts are read when found next to it (or given with
`--video FILE` / `--isa14 FILE`): the video-instruction chapter 9.7.18 (missing from the
Markdown conversion) and the plain-text PTX ISA 1.4 manual, whose forms old code still uses.

What is read:
  * every `Syntax` section of chapter 9: the code blocks between a `Syntax` heading and the
    next `Description`. Statements (`shf.l.mode.b32 d, a, b, c;`) are followed by the
    definitions of their placeholders (`.mode = { .clamp, .wrap };`); a placeholder is looked
    up first in the definitions right after its statement, then in later ones, then in
    earlier ones (blocks such as `redux.sync` or `set` redefine names between statements).
  * the `PTX ISA Notes` / `Target ISA Notes` after each syntax section (and after each
    syntax paragraph of the 1.4 text). A sentence without a subject ("Introduced in PTX ISA
    version 3.1.", "Requires sm_32 or higher.") is the requirement of the whole section.
    A sentence whose subject names code ("`add.u16x2` and `add.s16x2` introduced in PTX
    ISA version 8.0.", "ld.volatile introduced in ...", "Support for `.volatile` qualifier
    with `.local` state space ...") becomes a rule: it applies to the forms that hold all of
    the named modifiers, and only when an instruction has them (an opcode alone names all
    of that opcode's forms). A subject that is not just code and a few known words
    ("Indirect texture access", "`min` with three input arguments") is left out rather
    than guessed at. A subject ending in "for sm_NN" makes a rule that holds only for files
    targeting exactly sm_NN ("cvt with `.e4m3x2` for sm_89 introduced in PTX ISA version
    8.1"); "for sm_NN or higher" is dropped from the subject. A note that lists
    architecture- or family-specific targets ("supported on sm_100a, sm_120a. And is
    supported on family-specific architectures: sm_100f or higher in the same family")
    makes the feature exist only on those targets (`specific_targets`). Without a subject-less
    "Introduced in", a section's opcode dates from the earliest version its notes introduce
    anything in (`bar.sync` 1.0, `barrier` 6.0).

Each statement becomes one or more forms: the opcode (first word), an ordered list of slots
(fixed text or a set of alternatives, required or optional), an operand-count range, the
base requirement (version, target), the rules, and the last version/target for forms later
dropped. Forms of the 1.4 text that the 9.2 text does not repeat are legacy forms: the
checker tries them only when no current form takes the modifiers.
Irregular spec text is fixed in the OVERRIDES section below (each entry says why).

Only the Python 3 standard library is used; the output is deterministic.
"""

import glob
import os
import re
import sys

# ----------------------------------------------------------------------------------------
# OVERRIDES (hand-written). Each entry is written in the spec's own syntax notation and is
# parsed like the spec text.
# ----------------------------------------------------------------------------------------

# Statements of the spec that are wrong or unparsable, replaced by corrected text.
# Key: the statement as written (whitespace-normalized); value: replacement statements.
STATEMENT_FIXES = {
    # `.{relu}` and an undefined `.type`: the prose says `.relu` is optional and the type
    # is one of the four half-precision types.
    "fma.rnd.oob.{relu}.type d, a, b, c;": [
        "fma.rnd.oob{.relu}.f16 d, a, b, c;",
        "fma.rnd.oob{.relu}.f16x2 d, a, b, c;",
        "fma.rnd.oob{.relu}.bf16 d, a, b, c;",
        "fma.rnd.oob{.relu}.bf16x2 d, a, b, c;",
    ],
    # `{.abs.}` has a stray dot.
    "redux.sync.op{.abs.}{.NaN}.f32 dst, src, membermask;": [
        "redux.sync.op{.abs}{.NaN}.f32 dst, src, membermask;",
    ],
    # `.fp16x2` is not a type; the description and the 9.1 notes name `.f16x2`/`.bf16x2`.
    "cvt.rn.satfinite{.relu}.f8x2type.fp16x2 d, a;": [
        "cvt.rn.satfinite{.relu}.f8x2type.f16x2 d, a;",
        "cvt.rn.satfinite{.relu}.f8x2type.bf16x2 d, a;",
    ],
    # The two generic `cvt` lines allow any rounding with any type pair; the description
    # says which conversions need which rounding (ptxas: "Rounding modifier required",
    # "Illegal rounding modifier"): none between integers, an integer rounding from float
    # to integer and between equal float types, a float rounding from integer to float and
    # for narrowing float conversions, none for widening ones.
    "cvt{.irnd}{.ftz}{.sat}.dtype.atype d, a;": [
        "cvt{.sat}.itype.itype d, a;",
        "cvt.irnd{.ftz}{.sat}.itype.ftype d, a;",
        "cvt{.irnd}{.ftz}{.sat}.f16.f16 d, a;",
        "cvt{.irnd}{.ftz}{.sat}.f32.f32 d, a;",
        "cvt{.irnd}{.ftz}{.sat}.f64.f64 d, a;",
        "cvt{.irnd}{.ftz}{.sat}.bf16.bf16 d, a;",
    ],
    "cvt{.frnd}{.ftz}{.sat}.dtype.atype d, a;": [
        "cvt.frnd{.ftz}{.sat}.ftype.itype d, a;",
        "cvt.frnd{.ftz}{.sat}{.relu}.f16.f32 d, a;",
        "cvt.frnd{.ftz}{.sat}.f16.f64 d, a;",
        "cvt.frnd{.ftz}{.sat}{.relu}.bf16.f32 d, a;",
        "cvt.frnd{.ftz}{.sat}.bf16.f64 d, a;",
        "cvt.frnd{.ftz}{.sat}.f32.f64 d, a;",
        "cvt.frnd{.ftz}{.sat}.f16.bf16 d, a;",
        "cvt.frnd{.ftz}{.sat}.bf16.f16 d, a;",
        "cvt{.ftz}{.sat}.f32.f16 d, a;",
        "cvt{.ftz}{.sat}.f64.f16 d, a;",
        "cvt{.ftz}{.sat}.f32.bf16 d, a;",
        "cvt{.ftz}{.sat}.f64.bf16 d, a;",
        "cvt{.ftz}{.sat}.f64.f32 d, a;",
    ],
    # The `.f64` description lists the rounding modifiers `.rn .rz .rm .rp` (the examples
    # write `.rn` last); the syntax line leaves them out. ptxas 12.9 takes each of them.
    "mma.sync.aligned.shape.row.col.f64.f64.f64.f64 d, a, b, c;": [
        "mma.sync.aligned.shape.row.col.f64.f64.f64.f64{.rnd} d, a, b, c;",
    ],
}

# Notes that name forms in prose or ambiguously: (text as written, text meant). The notes
# reader only takes requirements whose subject is code it understands (see SUBJECT_FILLERS);
# these rewrite the prose of requirements that are worth enforcing into that code.
NOTE_FIXES = [
    # `{.oob}` here names the modifier the requirement is about, not an optional part.
    ("`fma{.oob}.{f16, f16x2, bf16, bf16x2}` requires", "`fma.oob` requires"),
    # ld, st: the scope qualifier is the `.scope` placeholder; "cache operations" are `.cop`;
    # the target notes of `ld` misname `.level1::eviction_priority`.
    ("Support for scope qualifier, `", "Support for `.scope`, `"),
    ("Generic addressing and cache operations introduced in", "`.cop` introduced in"),
    ("Cache operations require sm_20", "`.cop` requires sm_20"),
    ("Support for `.level::eviction_priority` qualifier requires sm_70",
     "Support for `.level1::eviction_priority` qualifier requires sm_70"),
    # bar: register operands and thread counts are operands (not checked here).
    ("Register operands, thread count, and `bar.{arrive,red}` introduced", "`bar.{arrive,red}` introduced"),
    ("Register operands, thread count, and `bar{.cta}.{arrive,red}` require", "`bar{.cta}.{arrive,red}` require"),
    ("cvt to or from `.f64` requires", "`cvt` with `.f64` requires"),
    # `{.bf16x2}` is the source type the requirement is about, not an optional part.
    ("`cvt.rn.satfinite{.relu}{.e5m2x2/.e4m3x2}{.bf16x2}` introduced", "`cvt.rn.satfinite{.relu}{.e5m2x2/.e4m3x2}.bf16x2` introduced"),
    # atom, red
    ("Support for vector types", "Support for `.v2`, `.v4`, `.v8`"),
    # tex: features named in prose
    ("Texture arrays `tex.{a1d,a2d}` introduced", "`tex.{a1d,a2d}` introduced"),
    ("Cubemaps and cubemap arrays introduced", "`tex.{cube,acube}` introduced"),
    ("The cubemap array geometry (`.acube`) requires", "`tex.acube` requires"),
    ("Support for mipmaps introduced", "`tex.{level,grad}` introduced"),
    ("Mipmaps require", "`tex.{level,grad}` require"),
    ("Multi-sample textures and multi-sample texture arrays", "`tex.{2dms,a2dms}`"),
    # wmma: the kinds of wmma are its types
    ("Floating point wmma requires `sm_70` or higher.", "Requires `sm_70` or higher."),
    ("Integer wmma requires", "`wmma` with `.s8`/`.u8` requires"),
    ("Sub-byte and single-bit wmma requires", "`wmma` with `.s4`/`.u4`/`.b1` requires"),
    ("Double precision and alternate floating point precision wmma requires", "`wmma` with `.f64`/`.bf16`/`.tf32` requires"),
    ("Double precision, alternate floating point precision wmma require", "`wmma` with `.f64`/`.bf16`/`.tf32` require"),
    ("Double precision wmma and shape `.m16n16k8` requires", "`wmma` with `.f64`/`.m16n16k8` requires"),
    ("Integer, sub-byte integer and single-bit wmma introduced", "`wmma` with `.s8`/`.u8`/`.s4`/`.u4`/`.b1` introduced"),
    ("Double precision and alternate floating point precision wmma introduced", "`wmma` with `.f64`/`.bf16`/`.tf32` introduced"),
    ("Double precision wmma introduced", "`wmma` with `.f64` introduced"),
    # wmma: the form without `.aligned` is an old spelling (OLD_SPELLINGS)
    ("Modifier `.aligned` is required from PTX ISA version 6.3 onwards, and considered implicit in PTX ISA versions less than 6.3.",
     "Support for `.aligned` introduced in PTX ISA version 6.3."),
    # mma: the single-bit `.and` and the `.m8n8k128` target note lack code or a verb.
    ("Support for `.and` operation in single-bit mma introduced", "Support for `.and` introduced"),
    ("`.and` operation in single-bit mma requires", "`.and` requires"),
    ("with `.m8n8k128` shape `sm_75` or higher", "with `.m8n8k128` shape requires `sm_75` or higher"),
    # cvt: "sm89" is sm_89 (ptxas: "Feature 'cvt with .e4m3x2/.e5m2x2' requires .target sm_89").
    ("`.e5m2x2` requires sm89 or higher", "`.e5m2x2` requires sm_89 or higher"),
    # Architecture- and family-specific features where NVIDIA's ptxas 12.9 accepts more
    # than the notes say (the checker accepts what ptxas accepts):
    # - mma, mma.sp: `.kind::f8f6f4` with `.e4m3`/`.e5m2` also on sm_100a/sm_101a and their
    #   families ("Feature '.kind::f8f6f4' not supported on .target 'sm_100'"); block
    #   scaling only on sm_120a and its family ("'mma with block scale' not supported on
    #   .target 'sm_100a'"), `.kind::mxf4`/`.kind::mxf4nvf4` included (accepted on sm_120f).
    ("Support for `.kind`, `.block_scale`, `.scale_vec_size` qualifier requires `sm_120a` and are supported on `sm_120f` or higher in the same family from PTX ISA version 8.8.",
     "`.kind::f8f6f4` is supported on `sm_100a`, `sm_101a`, `sm_120a` and family-specific architectures. "
     "`.block_scale` requires `sm_120a` and is supported on `sm_120f` or higher in the same family."),
    ("Support for `.kind`, `.block_scale`, `.scale_vec_size` qualifier requires `sm_120a` and are supported on `sm_120f` and later generation targets in the same family from PTX ISA version 8.8 except for `.kind::mxf4nvf4`/`.kind::mxf4`.",
     "`.kind::f8f6f4` is supported on `sm_100a`, `sm_101a`, `sm_120a` and family-specific architectures. "
     "`.block_scale` requires `sm_120a` and is supported on `sm_120f` or higher in the same family."),
    ("Qualifiers `.kind::mxf4nvf4` and `.kind::mxf4` are supported on following architectures:",
     "Qualifiers `.kind::mxf4nvf4` and `.kind::mxf4` are supported on `sm_120f` or higher in the same family and on following architectures:"),
    # - cp.async.bulk.tensor: the requirement depends on the destination state space, and
    #   ptxas also takes `.shared::cluster` on sm_101a/sm_101f.
    ("Qualifiers `.tile::gather4` and `.im2col::w` require: sm_100a when destination state space is `.shared::cluster` and is supported on sm_100f from PTX ISA version 8.8; sm_100 or higher when destination state space is `.shared::cta`.",
     "`.tile::gather4`/`.im2col::w` with `.shared::cluster` is supported on sm_100a, sm_101a and family-specific architectures. "
     "`.tile::gather4`/`.im2col::w` with `.shared::cta` requires sm_100 or higher."),
    # - cvt: the note names the conversions from `.f32`; ptxas gates every `cvt` with these
    #   types ("Instruction 'cvt with .ue8m0x2' not supported on .target 'sm_100'"), also
    #   `.rz` and the conversions to `.f16x2`/`.bf16x2`.
    ("`cvt.rn.satfinite{.relu}.{e2m1x2/e2m3x2/e3m2x2/ue8m0x2}.f32` is supported on",
     "cvt with `.e2m1x2/.e2m3x2/.e3m2x2/.ue8m0x2` is supported on"),
    # video: `vavrg` is misspelled
    ("`varvg2`", "`vavrg2`"),
    ("`varvg4`", "`vavrg4`"),
]

# Type classes used by the `cvt` fixes above.
EXTRA_DEFINITIONS = {
    ".itype": [".u8", ".u16", ".u32", ".u64", ".s8", ".s16", ".s32", ".s64"],
    ".ftype": [".bf16", ".f16", ".f32", ".f64"],
    # Written in some blocks without a definition (`cp.reduce.async.bulk.tensor`).
    ".level::cache_hint": [".L2::cache_hint"],
}

# Forms that later PTX versions or targets no longer accept: statement -> list of (last PTX
# ISA version, last target) for which the form is valid; a form is valid when one of them
# holds (each becomes a form of its own).
FORM_LIMITS = {
    # "mad{.ftz}{.sat}.f32 d, a, b, c; // .target sm_1x": a rounding is required from sm_20
    # on, which (the notes say) ptxas enforces from PTX ISA 3.2 on.
    "mad{.ftz}{.sat}.f32 d, a, b, c;": [((99, 9), 13), ((3, 1), 999)],
    # shfl and vote without `.sync`: "Not supported in PTX ISA version 6.4 for .target sm_70
    # or higher" (sm_62 is the last target below sm_70).
    "shfl.mode.b32 d[|p], a, b, c;": [((6, 3), 999), ((99, 9), 62)],
    "vote.mode.pred d, {!}a;": [((6, 3), 999), ((99, 9), 62)],
    "vote.ballot.b32 d, {!}a;": [((6, 3), 999), ((99, 9), 62)],
}

# Spellings that older PTX versions accept and the 9.2 syntax no longer shows: (opcode, text
# to drop from its statements, last version and target). Each statement of the opcode that
# holds the text also makes a form without it, valid up to that version.
OLD_SPELLINGS = [
    # wmma: "Modifier `.aligned` is required from PTX ISA version 6.3 onwards, and
    # considered implicit in PTX ISA versions less than 6.3."
    ("wmma", ".aligned", ((6, 2), 999)),
]

# Requirements that the notes state about operands, which rules on modifiers cannot say:
# statement -> (version, target) its forms need.
STATEMENT_REQUIREMENTS = {
    # "`min` with three input arguments introduced in PTX ISA version 8.8", "... requires sm_100"
    "min{.ftz}{.NaN}{.abs}.f32 d, a, b, c;": ((8, 8), 100),
    "max{.ftz}{.NaN}{.abs}.f32 d, a, b, c;": ((8, 8), 100),
}

# Requirements that the notes state more broadly than they mean: (statement prefix,
# modifiers) -> the rule on exactly those modifiers does not apply to that statement's forms.
RULE_EXCEPTIONS = [
    # "`.acquire` and `.release` qualifiers for fence instruction introduced in PTX ISA
    # version 8.6" is about `fence{.sem}.scope`: `fence.mbarrier_init.release.cluster` (8.0)
    # and `fence.proxy.tensormap::generic.{release,acquire}` (8.3) always had them.
    ("fence.op_restrict.release.cluster", (".release",)),
    ("fence.proxy.to_proxykind::from_proxykind.release", (".release",)),
    ("fence.proxy.to_proxykind::from_proxykind.acquire", (".acquire",)),
]

# Placeholder definitions that are wrong in the spec text: (statement prefix, name) -> items.
DEFINITION_FIXES = {
    # `.m8n84` is a typo for `.m8n8k4`.
    ("mma.sync.aligned.shape.row.col.f64", ".shape"): [".m8n8k4", ".m16n8k4", ".m16n8k8", ".m16n8k16"],
    # The roundings of the `.f64` form added in STATEMENT_FIXES.
    ("mma.sync.aligned.shape.row.col.f64", ".rnd"): [".rn", ".rz", ".rm", ".rp"],
    # `.ctype` is defined twice in the block (for `sured.b` and for `sured.p`).
    ("sured.b", ".ctype"): [".u32", ".u64", ".s32", ".b32", ".s64"],
}

# The target notes of every tcgen05 instruction (ptxas 12.9 agrees: sm_100a, sm_101a, sm_103a
# and the family targets sm_100f, sm_101f, sm_103f; not sm_120a).
TCGEN05_TARGETS = ("Supported on sm_100a, sm_101a (Renamed to sm_110a from PTX ISA version 9.0). "
                   "And is supported on family-specific architectures from PTX ISA version 8.8.")

# Instructions whose chapters are missing from the Markdown conversion of the 9.2 text
# (miscellaneous, stack manipulation, tcgen05), and irregular forms written out by hand.
# Each entry: (PTX ISA notes line, target notes line, syntax text); an entry with a fourth
# element, the last (version, target) its forms are valid for, holds legacy forms.
EXTRA_SECTIONS = [
    # `mov` of a whole vector (`mov.v2.f32 %b, %a;`, `mov.v4.u32 {a, b, c, d}, %v;`): the 1.4
    # text shows it (6.4.3, Vectors as Operands) and ptxas 12.9 takes it at PTX 8.0; the
    # syntax lines of `mov` leave it out.
    ("Introduced in PTX ISA version 1.0.", "Supported on all target architectures.",
     "mov.vec.type d, a;\n.vec = { .v2, .v4 };\n"
     ".type = { .b16, .b32, .b64, .u16, .u32, .u64, .s16, .s32, .s64, .f16, .f32, .f64 };"),
    # 9.7.19 Miscellaneous instructions (not in the Markdown conversion).
    ("Introduced in PTX ISA version 1.0.", "Supported on all target architectures.", "trap;"),
    ("Introduced in PTX ISA version 1.0.", "Supported on all target architectures.", "brkpt;"),
    ("Introduced in PTX ISA version 1.0.", "Supported on all target architectures.",
     "pmevent a;\npmevent.mask a;"),
    ("Introduced in PTX ISA version 6.3.", "Requires sm_70 or higher.", "nanosleep.u32 t;"),
    # setmaxnreg: ptxas 12.9 takes it on sm_90a and on every `a`/`f` target of sm_100 to
    # sm_121, on no plain target ("Instruction 'setmaxnreg.inc' not supported on .target 'sm_100'").
    ("Introduced in PTX ISA version 8.0.",
     "Supported on sm_90a, sm_100a, sm_101a (Renamed to sm_110a from PTX ISA version 9.0), sm_120a. "
     "And is supported on family-specific architectures from PTX ISA version 8.8.",
     "setmaxnreg.action.sync.aligned.u32 imm-reg-count;\n.action = { .inc, .dec };"),
    # 9.7.17 Stack manipulation (not in the Markdown conversion).
    ("Introduced in PTX ISA version 7.3.", "Requires sm_52 or higher.",
     "alloca{.local}.type ptr, size{, immAlign};\n.type = { .u32, .u64 };"),
    ("Introduced in PTX ISA version 7.3.", "Requires sm_52 or higher.",
     "stacksave.type d;\n.type = { .u32, .u64 };"),
    ("Introduced in PTX ISA version 7.3.", "Requires sm_52 or higher.",
     "stackrestore.type a;\n.type = { .u32, .u64 };"),
    # `fence.proxy` and `membar.proxy`: `.proxykind` has multi-word items with a nested
    # brace (`.async.shared::{cta, cluster}`) that the generic reader does not expand.
    ("Introduced in PTX ISA version 7.5.", "Requires sm_70 or higher.",
     "fence.proxy.proxykind;\nmembar.proxy.proxykind;\n"
     ".proxykind = { .alias, .async, .async.global, .async.shared::cta, .async.shared::cluster };"),
    ("Introduced in PTX ISA version 8.3.", "Requires sm_90 or higher.",
     "fence.proxy.tensormap::generic.release.scope;\n"
     "fence.proxy.tensormap::generic.acquire.scope [addr], size;\n"
     ".scope = { .cta, .cluster, .gpu, .sys };"),
    ("Introduced in PTX ISA version 8.3.", "Requires sm_90 or higher.",
     "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.scope.sync.aligned [dst], [src], size;\n"
     ".scope = { .cta, .cluster, .gpu, .sys };"),
    # 9.7.16 tcgen05 (only the chapter's introduction is in the Markdown conversion).
    ("Introduced in PTX ISA version 8.6.", TCGEN05_TARGETS,
     "tcgen05.alloc.cta_group.sync.aligned{.shared::cta}.b32 [dst], nCols;\n"
     "tcgen05.dealloc.cta_group.sync.aligned.b32 taddr, nCols;\n"
     "tcgen05.relinquish_alloc_permit.cta_group.sync.aligned;\n"
     ".cta_group = { .cta_group::1, .cta_group::2 };"),
    ("Introduced in PTX ISA version 8.6.", TCGEN05_TARGETS,
     "tcgen05.ld.sync.aligned.shape1.num{.pack}.b32 r, [taddr];\n"
     "tcgen05.ld.sync.aligned.shape2.num{.pack}.b32 r, [taddr], immHalfSplitoff;\n"
     "tcgen05.st.sync.aligned.shape1.num{.unpack}.b32 [taddr], r;\n"
     "tcgen05.st.sync.aligned.shape2.num{.unpack}.b32 [taddr], immHalfSplitoff, r;\n"
     ".shape1 = { .16x64b, .16x128b, .16x256b, .32x32b };\n"
     ".shape2 = { .16x32bx2 };\n"
     ".num = { .x1, .x2, .x4, .x8, .x16, .x32, .x64, .x128 };\n"
     ".pack = { .pack::16b };\n"
     ".unpack = { .unpack::16b };"),
    ("Introduced in PTX ISA version 8.6.", TCGEN05_TARGETS,
     "tcgen05.wait_operation.sync.aligned;\n"
     ".wait_operation = { .wait::ld, .wait::st };"),
    ("Introduced in PTX ISA version 8.6.", TCGEN05_TARGETS,
     "tcgen05.commit.cta_group.completion_mechanism{.shared::cluster}{.multicast}.b64 [mbar]{, ctaMask};\n"
     ".cta_group = { .cta_group::1, .cta_group::2 };\n"
     ".completion_mechanism = { .mbarrier::arrive::one };\n"
     ".multicast = { .multicast::cluster };"),
    ("Introduced in PTX ISA version 8.6.", TCGEN05_TARGETS,
     "tcgen05.fence_kind;\n.fence_kind = { .fence::before_thread_sync, .fence::after_thread_sync };"),
    ("Introduced in PTX ISA version 8.6.", TCGEN05_TARGETS,
     "tcgen05.cp.cta_group.shape{.multicast}{.dst_fmt.src_fmt} [taddr], s-desc;\n"
     ".cta_group = { .cta_group::1, .cta_group::2 };\n"
     ".shape = { .128x256b, .4x256b, .128x128b, .64x128b, .32x128b };\n"
     ".multicast = { .warpx2::02_13, .warpx2::01_23, .warpx4 };\n"
     ".dst_fmt = { .b8x16 };\n"
     ".src_fmt = { .b6x16_p32, .b4x16_p64 };"),
    ("Introduced in PTX ISA version 8.6.", TCGEN05_TARGETS,
     "tcgen05.shift.cta_group.down [taddr];\n.cta_group = { .cta_group::1, .cta_group::2 };"),
    ("Introduced in PTX ISA version 8.6.", TCGEN05_TARGETS,
     "tcgen05.mma.cta_group.kind [d-tmem], a-desc, b-desc, idesc, {disable-output-lane}, enable-input-d {, scale-input-d};\n"
     "tcgen05.mma.cta_group.kind [d-tmem], [a-tmem], b-desc, idesc, {disable-output-lane}, enable-input-d {, scale-input-d};\n"
     "tcgen05.mma.cta_group.kind [d-tmem], a-desc, b-desc, idesc, enable-input-d {, scale-input-d};\n"
     "tcgen05.mma.cta_group.kind [d-tmem], [a-tmem], b-desc, idesc, enable-input-d {, scale-input-d};\n"
     "tcgen05.mma.cta_group.kind.ashift{.collector_usage} [d-tmem], [a-tmem], b-desc, idesc, {disable-output-lane}, enable-input-d {, scale-input-d};\n"
     "tcgen05.mma.cta_group.kind{.collector_usage} [d-tmem], a-desc, b-desc, idesc, enable-input-d {, scale-input-d};\n"
     "tcgen05.mma.cta_group.kind{.collector_usage} [d-tmem], [a-tmem], b-desc, idesc, enable-input-d {, scale-input-d};\n"
     "tcgen05.mma.cta_group.kind.block_scale{.scale_vectorsize}{.collector_usage} [d-tmem], a-desc, b-desc, idesc, [scale-A-tmem], [scale-B-tmem], enable-input-d;\n"
     "tcgen05.mma.cta_group.kind.block_scale{.scale_vectorsize}{.collector_usage} [d-tmem], [a-tmem], b-desc, idesc, [scale-A-tmem], [scale-B-tmem], enable-input-d;\n"
     "tcgen05.mma.ws.cta_group::1.kind{.collector_usage_ws} [d-tmem], a-desc, b-desc, idesc, enable-input-d {, zero-column-mask-desc};\n"
     "tcgen05.mma.ws.cta_group::1.kind{.collector_usage_ws} [d-tmem], [a-tmem], b-desc, idesc, enable-input-d {, zero-column-mask-desc};\n"
     "tcgen05.mma.sp.cta_group.kind [d-tmem], a-desc, b-desc, [sp-meta-tmem], idesc, {disable-output-lane}, enable-input-d {, scale-input-d};\n"
     "tcgen05.mma.sp.cta_group.kind [d-tmem], [a-tmem], b-desc, [sp-meta-tmem], idesc, {disable-output-lane}, enable-input-d {, scale-input-d};\n"
     "tcgen05.mma.sp.cta_group.kind{.collector_usage} [d-tmem], a-desc, b-desc, [sp-meta-tmem], idesc, enable-input-d {, scale-input-d};\n"
     "tcgen05.mma.sp.cta_group.kind{.collector_usage} [d-tmem], [a-tmem], b-desc, [sp-meta-tmem], idesc, enable-input-d {, scale-input-d};\n"
     "tcgen05.mma.sp.cta_group.kind.block_scale{.scale_vectorsize}{.collector_usage} [d-tmem], a-desc, b-desc, [sp-meta-tmem], idesc, [scale-A-tmem], [scale-B-tmem], enable-input-d;\n"
     "tcgen05.mma.sp.cta_group.kind.block_scale{.scale_vectorsize}{.collector_usage} [d-tmem], [a-tmem], b-desc, [sp-meta-tmem], idesc, [scale-A-tmem], [scale-B-tmem], enable-input-d;\n"
     "tcgen05.mma.ws.sp.cta_group::1.kind{.collector_usage_ws} [d-tmem], a-desc, b-desc, [sp-meta-tmem], idesc, enable-input-d {, zero-column-mask-desc};\n"
     "tcgen05.mma.ws.sp.cta_group::1.kind{.collector_usage_ws} [d-tmem], [a-tmem], b-desc, [sp-meta-tmem], idesc, enable-input-d {, zero-column-mask-desc};\n"
     ".cta_group = { .cta_group::1, .cta_group::2 };\n"
     ".kind = { .kind::f16, .kind::tf32, .kind::f8f6f4, .kind::i8, .kind::mxf8f6f4, .kind::mxf4, .kind::mxf4nvf4 };\n"
     ".scale_vectorsize = { .scale_vec::1X, .scale_vec::2X, .scale_vec::4X, .block16, .block32 };\n"
     ".collector_usage = { .collector::a::fill, .collector::a::use, .collector::a::lastuse, .collector::a::discard };\n"
     ".collector_usage_ws = { .collector::a::fill, .collector::a::use, .collector::a::lastuse, .collector::a::discard,"
     " .collector::b0::fill, .collector::b0::use, .collector::b0::lastuse, .collector::b0::discard,"
     " .collector::b1::fill, .collector::b1::use, .collector::b1::lastuse, .collector::b1::discard,"
     " .collector::b2::fill, .collector::b2::use, .collector::b2::lastuse, .collector::b2::discard,"
     " .collector::b3::fill, .collector::b3::use, .collector::b3::lastuse, .collector::b3::discard };"),
    # Legacy forms of PTX ISA 1.0-1.3 that later versions made stricter but that old code
    # (nvopencc output) still uses and that ptxas accepts for those versions: the
    # transcendental and division instructions without `.approx`/rounding.
    ("Introduced in PTX ISA version 1.0.",
     "`div.f64`, `rcp.f64`, `sqrt.f64`, `rsqrt.f64` and `mad.f64` require sm_13 or higher.",
     "div.f32 d, a, b;\ndiv.f64 d, a, b;\nrcp.f32 d, a;\nrcp.f64 d, a;\n"
     "sqrt.f32 d, a;\nsqrt.f64 d, a;\nrsqrt.f32 d, a;\nrsqrt.f64 d, a;\n"
     "sin.f32 d, a;\ncos.f32 d, a;\nlg2.f32 d, a;\nex2.f32 d, a;\n"
     "mad{.ftz}{.sat}.f64 d, a, b, c;",
     ((1, 3), 999)),
]

# ----------------------------------------------------------------------------------------
# Reading the notation
# ----------------------------------------------------------------------------------------

# Opcodes that the syntax blocks write without any modifier before their operands.
BARE_OPCODES = ("exit", "trap", "brkpt", "pmevent", "call", "bra", "ret", "vop", "vop2", "vop4")


def strip_comment(line):
    i = line.find("//")
    return line if i < 0 else line[:i]


def split_top(text, sep=","):
    """Splits at `sep` outside any bracket."""
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "{[(":
            depth += 1
        elif ch in "}])":
            depth -= 1
        if ch == sep and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    return out


DEF_RE = re.compile(r"^\s*((?:\.?[A-Za-z_:][A-Za-z0-9_:\-]*\s*=\s*)+)(\{.*)$", re.S)
STMT_RE = re.compile(r"^\s*(@\{?!?\}?\w+\s+)?([a-z][a-z0-9_]*)([.{][^\s;]*)?(\s.*|;.*)?$", re.S)


def is_definition(line):
    return bool(re.match(r"^\s*\.?[A-Za-z_:][A-Za-z0-9_:\-]*\s*=", line))


def parse_def_items(body):
    """`{ .a, .b{::x, ::y}, none, eq }` -> (items, has_none). Items are token sequences."""
    body = body.strip().rstrip(";").strip()
    if body.startswith("{"):
        body = body[1:]
    if body.endswith("}"):
        body = body[:-1]
    items, has_none = [], False
    # video: `.hxy, where x,y are from { 0, 1, 2, 3 }`
    m = re.match(r"\s*\.hxy\s*,\s*where x,y are from \{([^}]*)\}", body)
    if m:
        ds = [d.strip() for d in m.group(1).split(",")]
        return [[".h%s%s" % (x, y)] for x in ds for y in ds], False
    for raw in split_top(body):
        raw = raw.strip()
        if not raw:
            continue
        if raw == "none":
            has_none = True
            continue
        # `.param{::entry, ::func}` -> .param, .param::entry, .param::func
        m = re.match(r"^(\.?[\w:.]+)\{([^}]*)\}$", raw)
        if m:
            base = m.group(1)
            if not base.startswith(".") and not base.startswith("::"):
                base = "." + base
            items.append(split_tokens(base))
            for suf in m.group(2).split(","):
                items.append(split_tokens(base + suf.strip()))
            continue
        if re.match(r"^\d+$", raw):
            items.append([raw])
            continue
        if not raw.startswith(".") and not raw.startswith("::"):
            raw = "." + raw
        items.append(split_tokens(raw))
    return items, has_none


def split_tokens(text):
    """`.async.shared::cta` -> ['.async', '.shared::cta']; `::x` stays a suffix."""
    if text.startswith("::"):
        return [text]
    parts = re.findall(r"\.[A-Za-z0-9_]+(?:::[A-Za-z0-9_]+)*", text)
    return parts


def read_block(text, heading):
    """Splits a syntax section into groups of (statements, definitions); `.vec = { none,
    .v2, .v4 }` makes the placeholder optional."""
    lines = text.split("\n")
    groups = []
    stmts, defs = [], {}
    cur = None  # statement being collected
    cur_def = None  # (names, text) being collected
    in_defs = False

    def flush_def():
        nonlocal cur_def
        if cur_def:
            names, body = cur_def
            items, has_none = parse_def_items(body)
            for n in names:
                defs[n] = (items, has_none)
            cur_def = None

    for raw in lines:
        line = strip_comment(raw).rstrip()
        if not line.strip():
            continue
        if cur_def is not None:
            cur_def[1] += " " + line.strip()
            if cur_def[1].count("{") <= cur_def[1].count("}"):
                flush_def()
            continue
        if is_definition(line):
            if cur is not None:
                stmts.append(cur)
                cur = None
            in_defs = True
            m = re.match(r"^\s*((?:\.?[A-Za-z_:][A-Za-z0-9_:\-]*\s*=\s*)+)(.*)$", line)
            names = [n.strip() for n in m.group(1).split("=") if n.strip()]
            cur_def = [names, m.group(2).strip()]
            if cur_def[1].count("{") <= cur_def[1].count("}") and "{" in cur_def[1]:
                flush_def()
            elif "{" not in cur_def[1]:
                cur_def = None  # `.cp_qualifiers = ...` without braces: ignored
            continue
        s = line.strip()
        starts_statement = bool(
            re.match(r"^(@\{?!?\}?\w+\s+)?[a-z][a-z0-9_]*[.{;]", s)
            or re.match(r"^(@\{?!?\}?\w+\s+)?(%s)\s" % "|".join(BARE_OPCODES), s)
        ) and not (
            cur is not None and not cur.rstrip().endswith(";") and re.match(r"^[a-z][\w-]*\s*[,;]", s)
        )
        if starts_statement:
            if in_defs:
                groups.append((stmts, defs))
                stmts, defs = [], {}
                in_defs = False
            if cur is not None:
                stmts.append(cur)
            cur = s
        elif cur is not None:
            cur += " " + s
        # anything else (prose inside the block) is ignored
    flush_def()
    if cur is not None:
        stmts.append(cur)
    groups.append((stmts, defs))
    return groups


def lookup(groups, gi, name):
    order = list(range(gi, len(groups))) + list(range(gi - 1, -1, -1))
    for i in order:
        if name in groups[i][1]:
            return groups[i][1][name]
    return None


class Form:
    def __init__(self, opcode, slots, ops, src):
        self.opcode = opcode
        self.slots = slots  # list of (alternatives tuple, optional)
        self.ops = ops  # (min, max)
        self.src = src
        self.stmt = ""  # the statement, whitespace-normalized
        self.limit = NO_LIMIT  # last (version, target) the form is valid for
        self.base = ((1, 0), (10, ""))  # filled later: base requirement
        self.targets = ()  # filled later: the specific targets the form needs, if any
        self.rules = ()  # filled later: requirement rules
        self.legacy = False  # filled later: a form of the 1.x texts only


def parse_head(head, resolve):
    """Parses the modifier part (after the opcode) into a list of elements:
    ('slot', [token-seq alternatives], optional, has_none) or ('group', [elements], optional)."""
    elems = []
    i = 0
    n = len(head)

    def read_name(j):
        m = re.match(r"[A-Za-z0-9_]+(?:::[A-Za-z0-9_]+)*", head[j:])
        return m.group(0) if m else ""

    while i < n:
        c = head[i]
        if c == ".":
            if i + 1 < n and head[i + 1] == "{":
                # `.{1d,2d,3d}`: required inline alternatives
                j = head.index("}", i)
                alts = [["." + a.strip().lstrip(".")] for a in head[i + 2:j].split(",")]
                elems.append(("slot", alts, False))
                i = j + 1
                continue
            name = read_name(i + 1)
            i += 1 + len(name)
            tok = "." + name
            # `{::cta}` or `{::dimension}` suffix alternatives
            if i < n and head[i] == "{" and head[i + 1:i + 3] == "::":
                j = head.index("}", i)
                sufs = [s.strip() for s in head[i + 1:j].split(",")]
                alts = [[tok]]
                for s in sufs:
                    d = resolve(s)
                    if d is not None:
                        alts += [[tok + it[0]] for it in d[0]]
                    else:
                        alts.append([tok + s])
                i = j + 1
                elems.append(("slot", expand_alts(alts, resolve), False))
                continue
            d = resolve(tok)
            if d is not None:
                items, has_none = d
                elems.append(("slot", expand_alts(items, resolve), has_none))
            else:
                elems.append(("slot", [[tok]], False))
        elif c == "{":
            # find the matching brace
            depth, j = 0, i
            while j < n:
                if head[j] == "{":
                    depth += 1
                elif head[j] == "}":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            inner = head[i + 1:j]
            i = j + 1
            if "," in inner and "{" not in inner:
                # `{.hi,.lo}`: optional inline alternatives
                alts = [["." + a.strip().lstrip(".")] for a in inner.split(",") if a.strip()]
                elems.append(("slot", alts, True))
            else:
                sub = parse_head(inner, resolve)
                if len(sub) == 1 and sub[0][0] == "slot":
                    elems.append(("slot", sub[0][1], True))
                else:
                    elems.append(("group", sub, True))
        else:
            i += 1  # stray characters
    return elems


def expand_alts(items, resolve, seen=()):
    """Resolves placeholders inside multi-token items (`.to_proxy::from_proxy.release.scope`)."""
    out = []
    for seq in items:
        seqs = [[]]
        for tok in seq:
            d = resolve(tok) if len(seq) > 1 and tok not in seen else None
            if d is not None and d[0] != [[tok]]:
                subs = expand_alts(d[0], resolve, seen + (tok,))
                seqs = [s + sub for s in seqs for sub in subs]
            else:
                seqs = [s + [tok] for s in seqs]
        out += seqs
    return out


def elems_to_slot_lists(elems):
    """Expands optional multi-token groups and multi-token alternatives into separate forms.
    Returns a list of slot lists; a slot is (tuple of alternatives, optional)."""
    results = [[]]
    for e in elems:
        if e[0] == "group":
            inner = elems_to_slot_lists(e[1])
            new = []
            for r in results:
                new.append(r)  # group absent
                for sl in inner:
                    new.append(r + sl)
            results = new
            continue
        _, alts, optional = e[0], e[1], e[2]
        singles = tuple(a[0] for a in alts if len(a) == 1)
        multis = [a for a in alts if len(a) > 1]
        new = []
        for r in results:
            if singles:
                new.append(r + [(singles, optional)])
            for m in multis:
                new.append(r + [((t,), False) for t in m])
            if optional and not singles:
                new.append(r)
        results = new
    return results


def count_operands(text):
    """Operand text -> (min, max) count."""
    text = text.strip().rstrip(";").strip()
    if not text:
        return (0, 0)
    # drop operand modifiers such as `{.unified}`, `{.asel}`, `.dsel`, `{!}`, `{-}`, `[|p]`
    text = re.sub(r"\{\s*\.[^}]*\}", "", text)
    text = re.sub(r"\{\s*[!\-]\s*\}", "", text)
    text = re.sub(r"\[\|\w+\]", "", text)
    req, opt = 0, 0
    for part in split_top(text):
        p = part.strip()
        if not p:
            continue
        # optional groups `{, x}` may follow an operand: `[a] {, e} {, f}`
        while True:
            m = re.search(r"\{\s*,([^{}]*)\}\s*$", p)
            if not m:
                break
            opt += len([x for x in m.group(1).split(",") if x.strip()])
            p = p[:m.start()].strip()
        if p.startswith("{,"):
            opt += len([x for x in p[2:].rstrip("}").split(",") if x.strip()])
            continue
        if p:
            req += 1
    return (req, req + opt)


def split_statement(stmt):
    stmt = stmt.strip()
    stmt = re.sub(r"^@\{?!?\}?\w+\s+", "", stmt)
    # head = text up to the first whitespace outside braces
    depth, i = 0, 0
    while i < len(stmt):
        c = stmt[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif (c.isspace() or c == ";") and depth == 0:
            break
        i += 1
    head, rest = stmt[:i], stmt[i:]
    m = re.match(r"^([a-z][a-z0-9_]*)(.*)$", head)
    return m.group(1), m.group(2), rest


NO_LIMIT = ((99, 9), 999)


def with_old_spellings(statements):
    """Each statement paired with None, followed by its OLD_SPELLINGS variants paired with
    their limits."""
    out = []
    for st in statements:
        out.append((st, None))
        for opcode, part, limit in OLD_SPELLINGS:
            if st.startswith(opcode + ".") and part in st:
                out.append((st.replace(part, "", 1), limit))
    return out


def forms_of_block(text, heading, src, default_limit=NO_LIMIT):
    groups = read_block(text, heading)
    forms = []
    for gi, (stmts, _defs) in enumerate(groups):
        for stmt in stmts:
            norm = re.sub(r"\s+", " ", stmt.strip())
            norm = re.sub(r"\s+;", ";", norm)
            if norm in STATEMENT_FIXES:
                todo = STATEMENT_FIXES[norm]
            else:
                todo = [stmt]
            for st, spelling_limit in with_old_spellings(todo):
                if st.startswith("{") or st.startswith("@"):
                    continue
                opcode, head, rest = split_statement(st)

                def resolve(name, gi=gi, head=head, opcode=opcode):
                    for (prefix, dname), items in DEFINITION_FIXES.items():
                        if dname == name and (opcode + head).startswith(prefix):
                            return ([[x] for x in items], False)
                    found = lookup(groups, gi, name)
                    if found is None and name in EXTRA_DEFINITIONS:
                        return ([[x] for x in EXTRA_DEFINITIONS[name]], False)
                    return found

                opcodes = [opcode]
                d = resolve(opcode)  # video: `vop = { vadd, vsub, ... }`
                if d is not None:
                    opcodes = [it[0].lstrip(".") for it in d[0]]
                elems = parse_head(head, resolve)
                ops = count_operands(rest)
                limits = [spelling_limit] if spelling_limit else FORM_LIMITS.get(re.sub(r"\s+", " ", st.strip()), [default_limit])
                for slots in elems_to_slot_lists(elems):
                    for oc in opcodes:
                        for limit in limits:
                            f = Form(oc, slots, ops, src)
                            f.limit = limit
                            f.stmt = re.sub(r"\s+", " ", st.strip())
                            forms.append(f)
    return forms


# ----------------------------------------------------------------------------------------
# Requirements from the notes
# ----------------------------------------------------------------------------------------

VERSION_RE = re.compile(r"PTX ISA(?: version)?s? (\d+)\.(\d+)")
# `sm_1x` (a family, not a target) does not match.
SM_RE = re.compile(r"sm_(\d+)([af]?)\b")

# Words a requirement's subject may hold besides backquoted code: the subject is
# understood only when it is made of code and these words, so that a sentence about
# something the modifiers cannot express ("Indirect texture access", "with three input
# arguments", "Generic addressing") is left out instead of guessed at.
SUBJECT_GRAMMAR = {"a", "an", "and", "or", "are", "is", "were", "was", "be", "the", "of", "by", "its", "support",
                   "instruction", "instructions"}
# Words that describe the code next to them. A part of a subject made of these and a bare
# opcode is not understood: "Integer `wmma` requires sm_72" is not about every `wmma`.
SUBJECT_FILLERS = SUBJECT_GRAMMAR | {
    "qualifier", "qualifiers", "modifier", "modifiers", "sub-qualifier", "sub-qualifiers",
    "explicit", "type", "types", "shape", "shapes", "variant", "variants", "form", "forms",
    "scope", "scopes", "rounding", "mode", "modes", "state", "space", "spaces", "operation",
    "operations", "floating", "point", "alternate", "integer", "single-bit", "mma", "semantics",
    "source", "destination", "format", "formats",
}
# Words that join a subject's parts: `A with B`, `A on B`, `A for B` all mean A and B together.
SUBJECT_JOINERS = {"with", "on", "for"}
# Opcodes that are also English words: written without backquotes they are prose.
ENGLISH_OPCODES = {"and", "or", "not"}


def quote_code(text, opcodes):
    """Backquotes the code that a note writes as plain text (`ld.volatile introduced in`,
    `prmt requires sm_20`, `set with .f64 source type`): the section's opcodes with their
    modifiers, and bare modifiers."""
    parts = re.split(r"(`[^`]*`)", text)
    ops = sorted((o for o in opcodes if o not in ENGLISH_OPCODES), key=len, reverse=True)
    op_re = re.compile(r"(?<![\w.`/-])((?:%s)(?:\.\{[^}]*\}|\{\.[^}]*\}|\.[A-Za-z0-9_:]+)*)(?![\w`])" % "|".join(map(re.escape, ops))) if ops else None
    mod_re = re.compile(r"(?<![\w.`/])(\.[A-Za-z][A-Za-z0-9_:]*(?:\{[^}]*\})?)(?![\w`])")
    for i in range(0, len(parts), 2):
        p = parts[i]
        if op_re:
            p = op_re.sub(lambda m: "`%s`" % m.group(1), p)
        # bare modifiers, outside the code just quoted
        sub = re.split(r"(`[^`]*`)", p)
        for j in range(0, len(sub), 2):
            sub[j] = mod_re.sub(lambda m: "`%s`" % m.group(1), sub[j])
        parts[i] = "".join(sub)
    return "".join(parts)


def snippet_modifier_sets(snippet, resolve):
    """`min{.relu}.s16x2` -> [('min', ('.s16x2',))]; `fma.relu.{f16, f16x2}` -> two
    modifier lists; `div.{rz,rm,rp}.f64` -> three; `::cta` -> [(None, ('::cta',))] (a
    sub-qualifier, matched against the modifiers that end with it). The modifiers stay in
    the order written: type modifiers are positional (`cvt.f32.bf16` is not `cvt.bf16.f32`).
    Returns None when the snippet is not understood."""
    s = snippet.strip()
    if "..." in s:
        return None
    if re.match(r"^::[A-Za-z0-9_]+$", s):
        return [(None, (s,))]
    m = re.match(r"^([a-z][a-z0-9_]*)?(.*)$", s)
    if not m:
        return None
    opcode = m.group(1)
    rest = m.group(2)
    if re.search(r"[^A-Za-z0-9_:.{}/, ]", rest):
        return None
    # `.bf16/bf16x2` is `.{bf16,bf16x2}`
    rest = re.sub(r"\.([\w:]+(?:/\.?[\w:]+)+)", lambda m: ".{" + m.group(1).replace("/", ",") + "}", rest)
    rest = re.sub(r"\{\.[^{}/,]*\}", "", rest)  # optional parts do not condition
    rest = re.sub(r"\{(\.[^{}]*)\}", lambda m: ".{" + m.group(1).replace(".", "") + "}", rest)
    alts = [()]
    for tok in re.findall(r"\.\{[^}]*\}|\.[A-Za-z0-9_:]+", rest):
        if tok.startswith(".{"):
            choices = ["." + x.strip().lstrip(".") for x in re.split(r"[,/]", tok[2:-1]) if x.strip()]
        else:
            d = resolve(tok)
            if d is not None and d[0] != [[tok]]:
                choices = [it[0] for it in d[0] if len(it) == 1]
            else:
                choices = [tok]
        # a modifier given twice (`cvt.bf16.bf16`) is beyond what a rule can say: left out
        alts = [a + (c,) for a in alts for c in choices if c not in a]
    if not alts or (opcode is None and not any(alts)):
        return None
    return [(opcode, a) for a in alts]


def parse_subject(subject, resolve):
    """The forms a requirement's subject names, as (opcode or None, modifiers) pairs, or
    None when the subject is not understood. `A and B` gives the sets of A and of B; `A with
    B`, `A on B`, `A for B` give their unions; `64-bit X` gives X with each 64-bit type."""
    s = re.sub(r"^\s*(?:[Ss]upport for|[Ss]upports)\s+(?:the\s+)?", "", subject)
    s = re.sub(r"^Rounding modifiers have the following target requirements:\s*", "", s)
    parts = [[]]
    described = [False]  # whether each part has words that describe its code
    size = None
    for tok in re.findall(r"`[^`]*`|\d+-bit|[A-Za-z][A-Za-z0-9_\-]*|[^\sA-Za-z`]", s):
        if tok.startswith("`"):
            code = tok.strip("`").strip()
            # `.u64`/`.s64`/`.b64`, `.e4m3`/`.e5m2`: alternatives
            pieces = [code] if "{" in code else [p for p in re.split(r"/(?=\.)", code) if p]
            for piece in pieces:
                sets = snippet_modifier_sets(piece, resolve)
                if sets is None:
                    return None
                if size:
                    sets = [(o, a + ("." + t + size,)) for o, a in sets for t in "usb"]
                parts[-1].append(sets)
            size = None
        elif re.match(r"^\d+-bit$", tok):
            size = tok.split("-")[0]
        elif tok.lower() in SUBJECT_JOINERS:
            parts.append([])
            described.append(False)
        elif tok.lower() in SUBJECT_FILLERS or not re.match(r"[A-Za-z]", tok):
            described[-1] |= tok.lower() in SUBJECT_FILLERS and tok.lower() not in SUBJECT_GRAMMAR
        else:
            return None
    if any(not p for p in parts):
        return None
    for k, (part, desc) in enumerate(zip(parts, described)):
        bare = {op for sets in part for op, mods in sets if op and not mods}
        if desc and all(not mods for sets in part for _, mods in sets):
            return None
        # "`.f16` floating point type `mma` operation": an opcode among modifiers says
        # whose modifiers they are; it is not one more alternative.
        if bare and any(op is None and mods for sets in part for op, mods in sets):
            if len(bare) > 1:
                return None
            op = bare.pop()
            parts[k] = [[(op if o is None else o, m) for o, m in sets if m] for sets in part]
    combined = [(None, ())]
    for part in parts:
        alts = [x for sets in part for x in sets]
        new = []
        for op1, a in combined:
            for op2, b in alts:
                if op1 and op2 and op1 != op2:
                    continue
                both = a + tuple(m for m in b if m not in a)
                # `::entry` on `.param` is `.param::entry`
                subs = [m for m in both if m.startswith("::")]
                plain = [m for m in both if not m.startswith("::")]
                if subs and len(plain) == 1:
                    new.append((op1 or op2, tuple(plain[0] + x for x in subs)))
                else:
                    new.append((op1 or op2, both))
        combined = new
    return combined or None


def specific_targets(sentence):
    """The architecture- and family-specific targets a target note lists ("supported on
    sm_100a, sm_101a (Renamed to sm_110a ...), sm_120a. And is supported on family-specific
    architectures: sm_100f or higher in the same family, ..."), as a sorted tuple of
    (sm, family) pairs: (100, False) is `sm_100a`, (100, True) is `sm_100f` and the later
    members of its family. "and family-specific architectures" without a list names the
    families of the listed `a` targets (sm_90 has no family target). Empty when the note
    names no such target."""
    found = {(int(n), suffix == "f") for n, suffix in SM_RE.findall(sentence) if suffix}
    if found and re.search(r"family-specific architectures", sentence) and not any(f for _, f in found):
        found |= {(n, True) for n, _ in found if n >= 100}
    return tuple(sorted(found, key=lambda t: (t[1], t[0])))


def parse_requirements(ptx_notes, target_notes, resolve, opcodes):
    """Reads a section's `PTX ISA Notes` and `Target ISA Notes`. Returns (base version or
    None, base sm or None, base specific targets, every version mentioned as an
    introduction, rules); a rule is (opcode or None, modifiers, version, sm, only_on,
    specific targets) and applies to the forms that hold all of the modifiers (an opcode
    and no modifiers: every form of that opcode). Specific targets (`specific_targets`), when
    a note lists them, are the only targets that have the feature; its sm is then the
    lowest of their numbers."""
    base_v, base_sm, base_targets = None, None, ()
    introduced = []
    rules = []
    for wrong, meant in NOTE_FIXES:
        ptx_notes = ptx_notes.replace(wrong, meant)
        target_notes = target_notes.replace(wrong, meant)
    ptx_notes = quote_code(ptx_notes, opcodes)
    target_notes = quote_code(target_notes, opcodes)

    def add(sentence, version=None, sm=None, targets=()):
        nonlocal base_v, base_sm, base_targets
        kw = re.search(r"[Ii]ntroduced|\badded\b|[Rr]equires?\b|[Ss]upported on", sentence)
        if not kw:
            return
        subject = sentence[:kw.start()].strip().rstrip(":").strip()
        # "X for sm_90 or higher introduced in 7.8" is X's requirement; "X for sm_89
        # introduced in 8.1" holds only for files targeting exactly sm_89.
        only_on = 0
        target = re.match(r"^(.*\S)\s+for sm_(\d+)(\s+or higher)?$", subject)
        if target:
            subject = target.group(1)
            if not target.group(3):
                if not version:
                    return
                only_on = int(target.group(2))
        if not subject or re.match(r"^(This|The) instruction( is)?$", subject):
            if version:
                base_v = version if base_v is None else min(base_v, version)
            if sm:
                base_sm = sm if base_sm is None else min(base_sm, sm)
            if targets:
                base_targets = tuple(sorted(set(base_targets) | set(targets), key=lambda t: (t[1], t[0])))
            return
        sets = parse_subject(subject, resolve)
        if sets is None:
            return
        for opcode, mods in sets:
            rules.append((opcode, tuple(mods), version, sm, only_on, targets))

    for sentence in split_sentences(ptx_notes):
        m = VERSION_RE.search(sentence)
        if not m or not re.search(r"[Ii]ntroduced|\badded\b", sentence) or re.search(r"^\s*(In|For) PTX", sentence):
            continue
        version = (int(m.group(1)), int(m.group(2)))
        introduced.append(version)
        add(sentence, version=version)
    # "X is supported on: sm_100a, sm_120a. And is supported on family-specific
    # architectures: ..." is one requirement.
    target_sentences = []
    for sentence in split_sentences(target_notes):
        if target_sentences and sentence.startswith("And "):
            target_sentences[-1] += " " + sentence
        else:
            target_sentences.append(sentence)
    for sentence in target_sentences:
        if re.search(r"\bnot supported\b|\bdeprecated\b|\badvised\b", sentence, re.I):
            continue
        targets = specific_targets(sentence)
        if targets:
            add(sentence, sm=(min(n for n, _ in targets), ""), targets=targets)
            continue
        sms = [(int(a), b) for a, b in SM_RE.findall(sentence)]
        if not sms:
            continue
        if re.search(r"\bor\b.*\.target", sentence):
            sms = sms[:1]
        add(sentence, sm=min(sms))
    return base_v, base_sm, base_targets, introduced, rules


def split_sentences(text):
    text = re.sub(r"\n-\s*", " ", text)  # bullet lists continue the sentence
    text = text.replace("\n", " ")
    # A sentence may start with an opcode (`ld introduced in ... 1.0.  ld.volatile ...`).
    pieces = re.split(r"(?<=\.)\s+(?=[A-Za-z0-9`>])", text)
    out = []
    for p in pieces:
        if out and re.search(r"\b(e\.g|i\.e|etc)\.$", out[-1]):
            out[-1] += " " + p
        else:
            out.append(p)
    return [s.strip() for s in out if s.strip()]


# ----------------------------------------------------------------------------------------
# Reading the spec files
# ----------------------------------------------------------------------------------------

def sections_of_markdown(path):
    """Yields (heading, syntax text, ptx notes, target notes)."""
    lines = open(path, encoding="utf-8").read().split("\n")
    heading = ""
    i = 0
    out = []
    cur = None
    mode = None
    while i < len(lines):
        l = lines[i]
        st = l.strip()
        bare = re.sub(r"^(#+\s*|\*\*)|\*\*$", "", st).strip()
        if st.startswith("#") and not re.match(r"^#+\s*(Syntax|Description|Semantics|Notes|PTX ISA Notes|Target ISA Notes|Examples?|Example)\s*$", st):
            heading = st
        if bare == "Syntax" and (st.startswith("#") or st.startswith("**") or st == "Syntax"):
            cur = {"heading": heading, "syntax": "", "ptx": "", "target": ""}
            out.append(cur)
            mode = "syntax"
            i += 1
            in_code = False
            while i < len(lines):
                l2 = lines[i]
                b2 = re.sub(r"^(#+\s*|\*\*)|\*\*$", "", l2.strip()).strip()
                if not in_code and b2 in ("Description", "Semantics", "PTX ISA Notes"):
                    break
                if l2.strip().startswith("```"):
                    in_code = not in_code
                    cur["syntax"] += "\n\n"
                elif in_code:
                    cur["syntax"] += l2 + "\n"
                i += 1
            continue
        if cur is not None and bare in ("PTX ISA Notes", "Target ISA Notes"):
            key = "ptx" if bare.startswith("PTX") else "target"
            i += 1
            while i < len(lines):
                l2 = lines[i].strip()
                b2 = re.sub(r"^(#+\s*|\*\*)|\*\*$", "", l2).strip()
                if l2.startswith("#") or b2 in ("Target ISA Notes", "Examples", "Example", "Description", "Syntax", "Notes", "Semantics") or (l2.startswith("**") and l2.endswith("**")):
                    break
                cur[key] += lines[i] + "\n"
                i += 1
            continue
        i += 1
    return out


def isa14_sections(path):
    """The `Syntax` paragraphs of the PTX ISA 1.4 text, in the spec notation, each with its
    `PTX ISA Notes` and `Target ISA Notes`: (syntax, ptx notes, target notes)."""
    lines = open(path, encoding="latin-1").read().split("\n")
    out = []
    for i, l in enumerate(lines):
        if not re.match(r"^Syntax \S", l):
            continue
        body = []
        j = i
        while j < len(lines) and not lines[j].startswith("Description"):
            body.append(lines[j])
            j += 1
        text = "\n".join(body)[len("Syntax "):]
        if text.startswith((".", "{", "@", "(predefined)", "restrictions")):
            continue
        # The 1.4 text writes optional parts with [ ] in the modifiers and operands.
        conv = []
        for line in text.split("\n"):
            code = strip_comment(line)
            if is_definition(code) or not re.match(r"^\s*[a-z]", code):
                conv.append(code)
                continue
            m = re.match(r"^(\s*\S+)(.*)$", code)
            headp, ops = m.group(1), m.group(2)
            # `mul[.hi,.lo,.wide]` is one of the listed (ptxas requires one), `[.ftz]` optional
            headp = re.sub(r"\[(\.[^\]]*,[^\]]*)\]", lambda m: ".{" + m.group(1).replace(".", "") + "}", headp)
            headp = headp.replace("[", "{").replace("]", "}")
            ops = re.sub(r"\[!\]", "{!}", ops)
            ops = re.sub(r"\[\s*,([^\]]*)\]", r"{,\1}", ops)
            conv.append(headp + ops)
        text = "\n".join(conv)
        if text.strip() in ("trap", "brkpt"):
            continue
        # `cvt[.rnd][.ftz][.sat].dtype.atype`: the 1.4 text's description (and its list of
        # changes in 1.1) requires the rounding wherever it is legal, which the 9.2 forms
        # express; the bracketed syntax line would accept `cvt.f32.f64`.
        if text.lstrip().startswith("cvt"):
            continue
        out.append((text,) + isa14_notes(lines, j))
    return out


def isa14_notes(lines, start):
    """The `PTX ISA Notes` and `Target ISA Notes` paragraphs that follow line `start` (up to
    the next `Syntax`) of the 1.4 text."""
    notes = {"PTX ISA Notes": "", "Target ISA Notes": ""}
    key = None
    for line in lines[start:]:
        if line.startswith("Syntax "):
            break
        m = re.match(r"^(PTX ISA Notes|Target ISA Notes)\s*(.*)$", line)
        if m:
            key = m.group(1)
            notes[key] += m.group(2) + "\n"
        elif key and re.match(r"^(Examples|Release Notes|Notes|Table \d+|Description|Semantics)\b", line):
            key = None
        elif key:
            notes[key] += line + "\n"
    return notes["PTX ISA Notes"], notes["Target ISA Notes"]


def collect(spec_dir, video, isa14):
    """Every syntax section: (src, heading, syntax, ptx notes, target notes, limit, legacy)."""
    sections = []
    files = sorted(glob.glob(os.path.join(spec_dir, "09-instruction-set", "**", "*.md"), recursive=True))
    for f in files:
        rel = os.path.relpath(f, spec_dir)
        for s in sections_of_markdown(f):
            sections.append((rel, s["heading"], s["syntax"], s["ptx"], s["target"], NO_LIMIT, False))
    if video and os.path.exists(video):
        for s in sections_of_markdown(video):
            sections.append((os.path.basename(video), s["heading"], s["syntax"], s["ptx"], s["target"], NO_LIMIT, False))
    for k, entry in enumerate(EXTRA_SECTIONS):
        pn, tn, syn = entry[:3]
        legacy = len(entry) > 3
        sections.append(("override", "override %d" % k, syn, pn, tn, entry[3] if legacy else NO_LIMIT, legacy))
    if isa14 and os.path.exists(isa14):
        for syn, pn, tn in isa14_sections(isa14):
            sections.append(("ptx-isa-1.4", "1.4", syn, pn, tn, ((1, 4), 999), True))
    return sections


def build(spec_dir, video, isa14):
    all_forms = []
    for src, heading, syntax, ptx_notes, target_notes, limit, legacy in collect(spec_dir, video, isa14):
        if "{ instructionList }" in syntax or "@{!}p" in syntax:
            continue
        forms = forms_of_block(syntax, heading, src, limit)
        if not forms:
            continue
        groups = read_block(syntax, heading)

        def resolve(name):
            return lookup(groups, 0, name)

        opcodes = sorted(set(f.opcode for f in forms))
        base_v, base_sm, base_targets, introduced, rules = parse_requirements(ptx_notes, target_notes, resolve, opcodes)
        if base_v is None:
            # No unconditional "Introduced in": the opcode came with the earliest of the
            # things the notes introduce (`bar.sync` 1.0, `bar.red` 2.0, `barrier` 6.0).
            base_v = min(introduced) if introduced else (1, 0)
        if base_sm is None:
            base_sm = (10, "")
        for f in forms:
            v, sm = base_v, base_sm
            if f.stmt in STATEMENT_REQUIREMENTS:
                sv, ssm = STATEMENT_REQUIREMENTS[f.stmt]
                v, sm = max(v, sv), max(sm, (ssm, ""))
            kept = []
            for opcode, mods, rv, rsm, only_on, targets in rules:
                if opcode is not None and opcode != f.opcode:
                    continue
                for mods in expand_sub_qualifiers(mods, f):
                    # a rule only matters when the form can hold all of its modifiers
                    if not all(any(m in alts for alts, _ in f.slots) for m in mods):
                        continue
                    if any(f.stmt.startswith(prefix) and mods == ex for prefix, ex in RULE_EXCEPTIONS):
                        continue
                    if not types_fit_in_order(mods, f):
                        continue  # `cvt.f32.bf16` says nothing about `cvt.rn.bf16.f32`
                    if is_double_precision_rule(mods, rsm):
                        kept.append((mods, None, rsm, 0, ()))  # kept whole: `map_f64_to_f32` lifts it
                        continue
                    # modifiers that every instance of the form has do not condition
                    rest = tuple(m for m in mods if not any(alts == (m,) and not o for alts, o in f.slots))
                    if not rest and not only_on and not targets:
                        v = max(v, rv) if rv else v
                        sm = max(sm, rsm) if rsm else sm
                    else:
                        kept.append((rest, rv, rsm, only_on, targets))
            f.base = (v, sm)
            f.targets = base_targets
            f.rules = tuple(sorted(set(kept), key=str))
            f.src = src
            f.legacy = legacy
        all_forms += forms
    return all_forms


def types_fit_in_order(mods, form):
    """Whether the type modifiers among `mods` can fill the form's type slots in the order
    given (types are positional: the matcher keeps them in slot order)."""
    last = -1
    for m in mods:
        slots = [k for k, (alts, _) in enumerate(form.slots) if m in alts and is_type_slot(alts)]
        if not slots:
            continue
        later = [k for k in slots if k > last]
        if not later:
            return False
        last = later[0]
    return True


def expand_sub_qualifiers(mods, form):
    """A rule on a sub-qualifier (`::cta`) applies to each of the form's modifiers that end
    with it (`.shared::cta`)."""
    out = [()]
    for m in mods:
        if m.startswith("::"):
            choices = sorted({a for alts, _ in form.slots for a in alts if a.endswith(m) and a != m})
        else:
            choices = [m]
        out = [o + (c,) for o in out for c in choices]
    return out


def is_double_precision_rule(mods, sm):
    """`X.f64 requires sm_13`: sm_13 added double precision; before it `.f64` instructions
    need `.target map_f64_to_f32` (PTX ISA 1.4, `.target`), which lifts this requirement.
    forms.rs recognises these rules the same way."""
    return sm is not None and sm[0] == 13 and ".f64" in mods


# ----------------------------------------------------------------------------------------
# Output
# ----------------------------------------------------------------------------------------

TYPE_RE = re.compile(r"^\.(pred|[bsuf]\d+(x\d+)?|bf16(x2)?|tf32|e\dm\d(x\d)?|ue\dm\d(x\d)?|s2f6x2|b\dx16(_p\d+)?)$")


def is_type_slot(alts):
    """Type slots are positional: `cvt.f32.s32` is not `cvt.s32.f32`."""
    return all(TYPE_RE.match(a) for a in alts)


def rust_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def emit(forms, out):
    # Deduplicate identical forms. A legacy form (of the 1.4 text) that a current form
    # repeats is dropped: legacy forms are only matched when no current form has the
    # modifiers, and the current form carries the full history in its requirements.
    # Statements that differ only in their operands (`call`, `mov`) become one form that
    # takes the union of their operand counts.
    current = {(f.opcode, tuple(f.slots)) for f in forms if not f.legacy}
    seen = {}
    uniq = []
    for f in forms:
        if f.legacy and (f.opcode, tuple(f.slots)) in current:
            continue
        key = (f.opcode, tuple(f.slots), f.limit)
        if key in seen:
            first = seen[key]
            if f.src == first.src:
                first.ops = (min(first.ops[0], f.ops[0]), max(first.ops[1], f.ops[1]))
            continue
        seen[key] = f
        uniq.append(f)
    by_op = {}
    for f in uniq:
        by_op.setdefault(f.opcode, []).append(f)
    alt_sets = {}
    slot_lists = {}
    rule_lists = {}

    def alt_id(alts):
        if alts not in alt_sets:
            alt_sets[alts] = len(alt_sets)
        return alt_sets[alts]

    def slots_id(slots):
        key = tuple((alt_id(a), o) for a, o in slots)
        if key not in slot_lists:
            slot_lists[key] = len(slot_lists)
        return slot_lists[key]

    target_lists = {(): 0}

    def targets_id(targets):
        if targets not in target_lists:
            target_lists[targets] = len(target_lists)
        return target_lists[targets]

    def rules_id(rules):
        key = tuple((tuple(m), v, s, o, targets_id(t)) for m, v, s, o, t in rules)
        if key not in rule_lists:
            rule_lists[key] = len(rule_lists)
        return rule_lists[key]

    body = []
    total = 0
    for op in sorted(by_op):
        fl = by_op[op]
        rows = []
        for f in fl:
            if len(f.slots) > 64:
                raise SystemExit("form with more than 64 slots: " + f.opcode)
            sid = slots_id(f.slots)
            rid = rules_id(f.rules)
            (v, (sm, suffix)) = f.base
            (lv, lsm) = f.limit
            tid = targets_id(f.targets)
            rows.append("        Form { slots: SLOTS_%d, operands: (%d, %d), version: (%d, %d), sm: %d, targets: TARGETS_%d, rules: RULES_%d, until: ((%d, %d), %d), legacy: %s },"
                        % (sid, f.ops[0], min(f.ops[1], 255), v[0], v[1], sm, tid, rid, lv[0], lv[1], lsm, "true" if f.legacy else "false"))
            total += 1
        body.append("    OpcodeForms {\n        opcode: %s,\n        forms: &[\n%s\n        ],\n    }," % (rust_str(op), "\n".join("    " + r for r in rows)))

    w = out.write
    w("// @generated by scripts/gen-forms.py from the PTX ISA 9.2 text (chapter 9 `Syntax` blocks and\n")
    w("// `PTX ISA Notes`/`Target ISA Notes`), the video chapter 9.7.18, the PTX ISA 1.4 text and the\n")
    w("// script's hand-written overrides. Do not edit; rerun the script.\n")
    w("//\n// %d opcodes, %d forms, %d alternative sets, %d slot lists.\n\n" % (len(by_op), total, len(alt_sets), len(slot_lists)))
    w("use super::forms::{Form, OpcodeForms, Rule, Slot, SpecificTarget};\n\n")
    for alts, i in sorted(alt_sets.items(), key=lambda x: x[1]):
        w("const A%d: &[&str] = &[%s];\n" % (i, ", ".join(rust_str(a) for a in alts)))
    w("\n")
    alts_by_id = {i: alts for alts, i in alt_sets.items()}
    for key, i in sorted(slot_lists.items(), key=lambda x: x[1]):
        w("const SLOTS_%d: &[Slot] = &[%s];\n" % (i, ", ".join(
            "Slot { alts: A%d, optional: %s, typed: %s }" % (a, "true" if o else "false", "true" if is_type_slot(alts_by_id[a]) else "false")
            for a, o in key)))
    w("\n")
    for key, i in sorted(rule_lists.items(), key=lambda x: x[1]):
        items = []
        for mods, v, s, o, t in key:
            items.append("Rule { mods: &[%s], version: (%d, %d), sm: %d, only_on: %d, targets: TARGETS_%d }" % (
                ", ".join(rust_str(m) for m in mods), v[0] if v else 1, v[1] if v else 0, s[0] if s else 0, o, t))
        w("const RULES_%d: &[Rule] = &[%s];\n" % (i, ", ".join(items)))
    w("\n")
    for targets, i in sorted(target_lists.items(), key=lambda x: x[1]):
        w("const TARGETS_%d: &[SpecificTarget] = &[%s];\n" % (i, ", ".join(
            "SpecificTarget { sm: %d, family: %s }" % (n, "true" if fam else "false") for n, fam in targets)))
    w("\n/// Every opcode with its forms, sorted by opcode (binary search).\n")
    w("pub(super) static OPCODES: &[OpcodeForms] = &[\n%s\n];\n" % "\n".join(body))
    return len(by_op), total


def main(argv):
    args = list(argv[1:])
    video = isa14 = None
    if "--video" in args:
        i = args.index("--video")
        video = args[i + 1]
        del args[i:i + 2]
    if "--isa14" in args:
        i = args.index("--isa14")
        isa14 = args[i + 1]
        del args[i:i + 2]
    if len(args) != 1:
        sys.stderr.write(__doc__)
        return 2
    spec_dir = args[0]
    parent = os.path.dirname(os.path.abspath(spec_dir))
    video = video or os.path.join(parent, "9.7.18-video-instructions.md")
    isa14 = isa14 or os.path.join(parent, "ptx-isa-1.4.txt")
    forms = build(spec_dir, video, isa14)
    n_ops, n_forms = emit(forms, sys.stdout)
    sys.stderr.write("gen-forms: %d opcodes, %d forms\n" % (n_ops, n_forms))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

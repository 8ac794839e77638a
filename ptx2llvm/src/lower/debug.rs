//! `-g`: DWARF debug information for the generated code.
//!
//! Every LLVM function that runs a kernel's or a `.func`'s instructions gets a
//! `DISubprogram` named after the PTX function, and every instruction the source position
//! of its PTX instruction: the CUDA source line of the last `.loc` before it in the same
//! body (NVRTC and nvcc write `.file`/`.loc` with `-lineinfo` or `-G`), or else its line
//! and column in the PTX file itself. Code the execution model adds around instructions
//! (thread loops, region entry and exit) carries the position of the instruction before it.
//!
//! Registers are described as local variables of their function (the PTX name without
//! `%`), and so are the current thread's `tid_x/y/z` and the block's `ctaid_x/y/z`: in a
//! block function the registers hold the values of the thread the loop is running, so
//! `break k.cu:27 if tid_x == 5 && ctaid_x == 0` stops in one thread (README).

use super::ModuleLowerer;
use crate::ir::{self, ScalarType, TypeKind};
use inkwell::basic_block::BasicBlock;
use inkwell::context::Context;
use inkwell::debug_info::{
    AsDIScope, DIFile, DIFlags, DIFlagsConstants, DILocalVariable, DILocation, DIScope, DISubprogram, DIType, DWARFEmissionKind, DWARFSourceLanguage,
    DebugInfoBuilder,
};
use inkwell::module::{FlagBehavior, Module};
use inkwell::values::{FunctionValue, InstructionValue, PointerValue};
use std::collections::HashMap;
use std::path::Path;

/// What `-g` needs from the driver: the PTX file's name (for positions without `.loc`) and
/// its text (to turn byte offsets into lines and columns).
#[derive(Clone, Copy)]
pub struct DebugRequest<'a> {
    pub ptx_path: &'a str,
    pub source: &'a str,
    /// The code is optimized (recorded in the compile unit and subprograms).
    pub optimized: bool,
    /// `-g`: DWARF line tables, scopes and variables.
    pub line_tables: bool,
    /// `--check`: checked memory accesses (`ops::check`), whose reports name positions.
    pub check: bool,
}

/// PTX positions as text for messages: `file.ptx:12:5` and, where a `.loc` gives one, the
/// CUDA source position (`file.ptx:12:5 (particles.cu:27)`).
pub struct Positions {
    path: String,
    line_starts: Vec<usize>,
}

impl Positions {
    pub fn new(request: &DebugRequest<'_>) -> Positions {
        let line_starts = std::iter::once(0).chain(request.source.match_indices('\n').map(|(i, _)| i + 1)).collect();
        Positions { path: request.ptx_path.to_string(), line_starts }
    }

    /// Line and column (1-based) of a byte offset in the PTX text.
    fn line_col(&self, offset: usize) -> (usize, usize) {
        let line = self.line_starts.partition_point(|&s| s <= offset).max(1);
        (line, offset - self.line_starts[line - 1] + 1)
    }

    pub fn describe(&self, ir: &ir::Module, offset: usize) -> String {
        let (line, col) = self.line_col(offset);
        let mut text = format!("{}:{line}:{col}", self.path);
        if let Some(loc) = ir.lines.at(offset) {
            if let Some(file) = ir.lines.file(loc.file) {
                text += &format!(" ({file}:{})", loc.line);
            }
        }
        text
    }
}

/// The module's debug information builder and what every function shares.
pub struct DebugInfo<'ctx> {
    builder: DebugInfoBuilder<'ctx>,
    ptx_file: DIFile<'ctx>,
    /// `.file` index → its DWARF file.
    files: HashMap<u32, DIFile<'ctx>>,
    /// Byte offset of each line start in the PTX text.
    /// Lines and columns of the PTX text.
    ptx: Positions,
    optimized: bool,
}

/// Splits a path into the directory and file name DWARF records, with an absolute
/// directory so that tools find the file from any working directory: a relative path is
/// taken from `base` when the file is there (a `.file` next to its PTX file), else from the
/// working directory.
fn dir_and_name(path: &str, base: Option<&Path>) -> (String, String) {
    let p = Path::new(path);
    let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| path.to_string());
    let cwd = std::env::current_dir().unwrap_or_default();
    let full = if p.is_absolute() {
        p.to_path_buf()
    } else {
        match base.map(|b| if b.is_absolute() { b.join(p) } else { cwd.join(b).join(p) }) {
            Some(f) if f.exists() => f,
            _ => cwd.join(p),
        }
    };
    let dir = full.parent().map(|d| d.to_string_lossy().into_owned()).unwrap_or_default();
    (dir, name)
}

impl<'ctx> DebugInfo<'ctx> {
    pub fn new(cx: &'ctx Context, module: &Module<'ctx>, ir: &ir::Module, request: DebugRequest<'_>) -> DebugInfo<'ctx> {
        let optimized = request.optimized;
        // Variables are declared with debug records (`declare`), LLVM 19's new format.
        // SAFETY: a live module.
        unsafe { inkwell::llvm_sys::core::LLVMSetIsNewDbgInfoFormat(module.as_mut_ptr(), 1) };
        // DWARF 4: what every debugger and profiler in use reads (valgrind among them).
        module.add_basic_value_flag("Dwarf Version", FlagBehavior::Warning, cx.i32_type().const_int(4, false));
        module.add_basic_value_flag(
            "Debug Info Version",
            FlagBehavior::Warning,
            cx.i32_type().const_int(inkwell::debug_info::debug_metadata_version() as u64, false),
        );
        let (dir, name) = dir_and_name(request.ptx_path, None);
        let ptx_dir = Path::new(request.ptx_path).parent();
        // The compile unit is the PTX file; CUDA sources are further files of it.
        let producer = concat!("ptx2llvm ", env!("CARGO_PKG_VERSION"));
        let (builder, cu) = module.create_debug_info_builder(
            true,
            DWARFSourceLanguage::C,
            &name,
            &dir,
            producer,
            optimized,
            "",
            0,
            "",
            DWARFEmissionKind::Full,
            0,
            false,
            false,
            "",
            "",
        );
        let ptx_file = cu.get_file();
        let files = ir
            .lines
            .files
            .iter()
            .map(|(index, path)| {
                let (dir, name) = dir_and_name(path, ptx_dir);
                (*index, builder.create_file(&name, &dir))
            })
            .collect();
        DebugInfo { builder, ptx_file, files, ptx: Positions::new(&request), optimized }
    }

    /// The file, line and column of PTX text at `offset`: its `.loc` position, or its own.
    fn position(&self, ir: &ir::Module, offset: usize) -> (DIFile<'ctx>, u32, u32) {
        if let Some(loc) = ir.lines.at(offset) {
            if let Some(file) = self.files.get(&loc.file) {
                return (*file, loc.line, loc.col);
            }
        }
        let (line, col) = self.ptx.line_col(offset);
        (self.ptx_file, line as u32, col as u32)
    }

    /// Declares `storage` as variable `var`'s home. (Through the C API: inkwell wraps LLVM
    /// 19's debug records as instructions, which they are not.)
    fn declare(&self, storage: PointerValue<'ctx>, var: DILocalVariable<'ctx>, at: DILocation<'ctx>, place: DeclareAt<'ctx>) {
        use inkwell::llvm_sys::debuginfo::{LLVMDIBuilderInsertDeclareRecordAtEnd, LLVMDIBuilderInsertDeclareRecordBefore};
        use inkwell::values::AsValueRef;
        let expr = self.builder.create_expression(vec![]);
        // SAFETY: every reference is a live object of this module's context; the record
        // returned is owned by the block.
        unsafe {
            match place {
                DeclareAt::End(block) => {
                    LLVMDIBuilderInsertDeclareRecordAtEnd(
                        self.builder.as_mut_ptr(),
                        storage.as_value_ref(),
                        var.as_mut_ptr(),
                        expr.as_mut_ptr(),
                        at.as_mut_ptr(),
                        block.as_mut_ptr(),
                    );
                }
                DeclareAt::Before(inst) => {
                    LLVMDIBuilderInsertDeclareRecordBefore(
                        self.builder.as_mut_ptr(),
                        storage.as_value_ref(),
                        var.as_mut_ptr(),
                        expr.as_mut_ptr(),
                        at.as_mut_ptr(),
                        inst.as_value_ref(),
                    );
                }
            }
        }
    }

    /// Finishes the debug information (before the module is verified or optimized).
    pub fn finalize(&self) {
        self.builder.finalize();
    }

    fn basic_type(&self, ty: ScalarType) -> Option<DIType<'ctx>> {
        // DW_ATE_* encodings.
        const BOOLEAN: u32 = 0x02;
        const FLOAT: u32 = 0x04;
        const SIGNED: u32 = 0x05;
        const UNSIGNED: u32 = 0x07;
        let bits = ty.bits();
        // Packed pairs (`.f16x2`) show as their bits.
        let (name, encoding, size) = match ty.kind() {
            TypeKind::Pred => ("pred".to_string(), BOOLEAN, 8),
            TypeKind::Float if !matches!(ty, ScalarType::F16x2 | ScalarType::BF16x2) && ty != ScalarType::BF16 => {
                (ty.name().trim_start_matches('.').to_string(), FLOAT, bits as u64)
            }
            TypeKind::Signed => (format!("s{bits}"), SIGNED, bits as u64),
            _ => (format!("b{bits}"), UNSIGNED, bits as u64),
        };
        self.builder.create_basic_type(&name, size, encoding, DIFlags::ZERO).ok().map(|t| t.as_type())
    }
}

/// Where a variable declaration goes.
enum DeclareAt<'ctx> {
    End(BasicBlock<'ctx>),
    Before(InstructionValue<'ctx>),
}

/// The debug scope of one LLVM function: its subprogram, and lexical blocks for positions
/// in further source files (a location's file is its scope's) and for further copies of an
/// instruction's code.
///
/// The execution model emits some instructions more than once in one function (a narrowed
/// and a general thread loop, a converged and a per-thread region): each further copy gets
/// its own lexical block, because gdb sets a line's breakpoint at one address per block
/// and would otherwise miss the copies that run.
pub struct FnDebug<'ctx> {
    subprogram: DISubprogram<'ctx>,
    file: DIFile<'ctx>,
    /// (file, copy) → the scope of locations in `file` of the `copy`-th emission.
    blocks: Vec<((DIFile<'ctx>, u32), DIScope<'ctx>)>,
    /// How often each PTX offset has been given a location.
    emitted: HashMap<usize, u32>,
    /// The thread and block index variables, declared again in every copy's block (LLVM
    /// leaves out blocks without variables, and gdb's filter would see one block again),
    /// and the entry instruction the declarations go before.
    index_vars: Vec<(PointerValue<'ctx>, &'static str)>,
    declare_before: Option<InstructionValue<'ctx>>,
}

impl<'ctx> FnDebug<'ctx> {
    /// Gives `func`, the code of PTX function `f`, a subprogram named after `f` (the
    /// kernel's name in a backtrace; the versions of one kernel all have it), positioned at
    /// the first instruction of its body.
    pub fn new(ml: &ModuleLowerer<'ctx, '_>, func: FunctionValue<'ctx>, f: &ir::Function) -> Option<FnDebug<'ctx>> {
        let d = ml.debug.as_ref()?;
        let first = f.blocks.iter().flat_map(|b| b.insts.iter().map(|i| i.span.start)).next().unwrap_or(f.span.start);
        let (file, line, _) = d.position(ml.ir, first);
        let ty = d.builder.create_subroutine_type(file, None, &[], DIFlags::ZERO);
        // The kernel's own name (C++ names demangled) in backtraces, not the block
        // function's symbol.
        let name = cpp_demangle::Symbol::new(f.name.as_bytes()).ok().and_then(|s| s.demangle().ok()).unwrap_or_else(|| f.name.clone());
        let sp =
            d.builder.create_function(file.as_debug_info_scope(), &name, Some(&f.name), file, line, ty, true, true, line, DIFlags::PROTOTYPED, d.optimized);
        func.set_subprogram(sp);
        Some(FnDebug { subprogram: sp, file, blocks: vec![], emitted: HashMap::new(), index_vars: vec![], declare_before: None })
    }

    fn scope_for(&mut self, cx: &'ctx Context, d: &DebugInfo<'ctx>, file: DIFile<'ctx>, copy: u32) -> DIScope<'ctx> {
        if file == self.file && copy == 0 {
            return self.subprogram.as_debug_info_scope();
        }
        if let Some((_, s)) = self.blocks.iter().find(|(k, _)| *k == (file, copy)) {
            return *s;
        }
        let s = d.builder.create_lexical_block(self.subprogram.as_debug_info_scope(), file, 0, 0).as_debug_info_scope();
        self.blocks.push(((file, copy), s));
        if copy > 0 {
            if let (Some(before), Some(ty)) = (self.declare_before, d.basic_type(ScalarType::U32)) {
                let at = d.builder.create_debug_location(cx, 0, 0, s, None);
                for &(storage, name) in &self.index_vars {
                    let var = d.builder.create_auto_variable(s, name, file, 0, ty, true, DIFlags::ZERO, 0);
                    d.declare(storage, var, at, DeclareAt::Before(before));
                }
            }
        }
        s
    }

    /// The variables (`alloca`s of `u32`) that show the thread and block indices, declared
    /// in every scope; `before`: an entry instruction after their `alloca`s.
    pub fn set_index_vars(&mut self, vars: Vec<(PointerValue<'ctx>, &'static str)>, before: Option<InstructionValue<'ctx>>) {
        self.index_vars = vars;
        self.declare_before = before;
    }

    /// The location of one more emission of the PTX instruction at `offset`.
    pub fn location(&mut self, ml: &ModuleLowerer<'ctx, '_>, offset: usize) -> Option<DILocation<'ctx>> {
        let copy = self.emitted.get(&offset).copied().unwrap_or(0);
        self.emitted.insert(offset, copy + 1);
        self.location_in_copy(ml, offset, copy)
    }

    /// The location of PTX text at `offset` in the first copy (the function's entry code).
    pub fn entry_location(&mut self, ml: &ModuleLowerer<'ctx, '_>, offset: usize) -> Option<DILocation<'ctx>> {
        self.location_in_copy(ml, offset, 0)
    }

    fn location_in_copy(&mut self, ml: &ModuleLowerer<'ctx, '_>, offset: usize, copy: u32) -> Option<DILocation<'ctx>> {
        let d = ml.debug.as_ref()?;
        let (file, line, col) = d.position(ml.ir, offset);
        let scope = self.scope_for(ml.cx, d, file, copy);
        Some(d.builder.create_debug_location(ml.cx, line, col, scope, None))
    }

    /// Describes `storage` (an `alloca` in `block`, the function's entry) as the local
    /// variable `name` of PTX type `ty`.
    pub fn declare(
        &mut self,
        ml: &ModuleLowerer<'ctx, '_>,
        storage: PointerValue<'ctx>,
        name: &str,
        ty: ScalarType,
        at: DILocation<'ctx>,
        block: BasicBlock<'ctx>,
    ) {
        let Some(d) = ml.debug.as_ref() else { return };
        let Some(dty) = d.basic_type(ty) else { return };
        let var = d.builder.create_auto_variable(self.subprogram.as_debug_info_scope(), name, self.file, at.get_line(), dty, true, DIFlags::ZERO, 0);
        d.declare(storage, var, at, DeclareAt::End(block));
    }
}

//! Textures and surfaces: arrays, texture and surface objects, module texture/surface/
//! sampler references, and the sampling that generated code calls (`tex`, `tld4`, `txq`,
//! `suld`, `sust`, `sured`, `suq`, `istypep`).
//!
//! Handles are `u64` values: `kind << 32 | slot` for texture and surface objects (a slot of
//! a lock-free table, so a fetch validates its handle without locking), and
//! `SAMPLER_TAG | fields` for samplers, whose few fields fit in the value itself (the
//! compiler encodes `.samplerref` initializers the same way, see `ptxrt_abi.h`).
//!
//! Sampling rules (CUDA programming guide, "Texture Fetching"; PTX ISA 9.2 §9.7.10):
//! - a float coordinate `c` of a dimension of size `N` becomes `u = c * N` when coordinates
//!   are normalized, else `u = c` (f32 arithmetic);
//! - point filtering reads texel `floor(u)`; linear filtering reads texels `i = floor(u - 0.5)`
//!   and `i + 1` with weight `a = frac(u - 0.5)` rounded to 9-bit fixed point with 8
//!   fraction bits (`round(a * 256) / 256`, so 1.0 is representable), as the hardware does;
//!   `2^n` taps weighted `Π w_d` (exact) are summed in f32 in index order, x fastest;
//! - each tap index is mapped by its dimension's address mode: wrap (`i mod N`), mirror
//!   (period `2N`, reflected), clamp (to `0..N-1`), border (outside: the border colour);
//!   wrap and mirror need normalized coordinates (CUDA's rule): with unnormalized
//!   coordinates they act as clamp. `clamp_ogl` (PTX samplers) clamps `u` to `[0, N]`
//!   and then reads the border outside the texture;
//! - integer (`.s32`) coordinates are texel indices: no scaling, no filtering, the address
//!   mode maps them (`tex` with integer coordinates fetches like `tld`); on linear memory
//!   (`tex1Dfetch`) indices outside read 0;
//! - array geometries take the layer as the first coordinate (`.u32`, clamped to the layers);
//! - texels of 8/16-bit integer formats read with `NormalizedFloat` become `x / (2^n - 1)`
//!   (unsigned) or `max(x / (2^(n-1) - 1), -1)` (signed); channels a format lacks read as
//!   0, alpha as 1;
//! - mipmapped textures (`tex.level`, `tex.grad`) pick levels by the level of detail as
//!   ptxrt.h's "Mipmaps" rule says (gradient LOD in exact 1/256 steps, bias and clamps,
//!   point or linear mipmap filtering); multi-sample textures store sample `s` of layer `l`
//!   as slice `l * samples + s`;
//! - a depth-compare fetch (`tex`/`tld4` operand `f`) replaces every texel it reads (border
//!   texels too) by 1.0 where `f <compareFunc> first channel` holds, else 0.0, before the
//!   filtering (ptxrt.h's "Depth compare"); the compare function is sampler state.

use crate::error::Error;
use crate::registry;
use std::ffi::CStr;
use std::sync::atomic::{AtomicPtr, AtomicU32, AtomicU64, Ordering};
use std::sync::Mutex;

// ---------------------------------------------------------------------------------------
// Public C types (mirrors of ptxrt.h)

/// `ptxrtChannelFormatKind`.
pub const FORMAT_KIND_SIGNED: i32 = 0;
pub const FORMAT_KIND_UNSIGNED: i32 = 1;
pub const FORMAT_KIND_FLOAT: i32 = 2;

/// `ptxrtChannelFormatDesc` (as `cudaChannelFormatDesc`): bits per channel and the kind.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChannelFormatDesc {
    pub x: i32,
    pub y: i32,
    pub z: i32,
    pub w: i32,
    pub f: i32,
}

/// `ptxrtExtent` (as `cudaExtent`): width in elements (bytes for pitched memory), height, depth.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Extent {
    pub width: usize,
    pub height: usize,
    pub depth: usize,
}

/// `ptxrtArrayLayered`: the last dimension of `ptxrtMalloc3DArray`'s extent counts layers.
pub const ARRAY_LAYERED: u32 = 1;
/// `ptxrtArraySurfaceLoadStore`: accepted (every array can be bound to a surface).
pub const ARRAY_SURFACE_LOAD_STORE: u32 = 2;
/// `ptxrtArrayCubemap`: a square 2D array of 6 faces (with `ptxrtArrayLayered`, 6 per
/// cube of a cubemap array), stored as layers (face + 6 * cube).
pub const ARRAY_CUBEMAP: u32 = 4;

pub const RESOURCE_TYPE_ARRAY: i32 = 0;
pub const RESOURCE_TYPE_MIPMAPPED_ARRAY: i32 = 1;
pub const RESOURCE_TYPE_LINEAR: i32 = 2;
pub const RESOURCE_TYPE_PITCH2D: i32 = 3;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct ArrayRes {
    pub array: *mut Array,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct LinearRes {
    pub dev_ptr: *mut u8,
    pub desc: ChannelFormatDesc,
    pub size_in_bytes: usize,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct Pitch2DRes {
    pub dev_ptr: *mut u8,
    pub desc: ChannelFormatDesc,
    pub width: usize,
    pub height: usize,
    pub pitch_in_bytes: usize,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct MipmapRes {
    pub mipmap: *mut MipmappedArray,
}

#[repr(C)]
#[derive(Clone, Copy)]
pub union ResUnion {
    pub array: ArrayRes,
    pub mipmap: MipmapRes,
    pub linear: LinearRes,
    pub pitch2d: Pitch2DRes,
    /// Room for CUDA's 64-byte union.
    pub reserved: [u64; 8],
}

/// `ptxrtResourceDesc` (as `cudaResourceDesc`).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ResourceDesc {
    pub res_type: i32,
    pub res: ResUnion,
}

pub const ADDRESS_MODE_WRAP: i32 = 0;
pub const ADDRESS_MODE_CLAMP: i32 = 1;
pub const ADDRESS_MODE_MIRROR: i32 = 2;
pub const ADDRESS_MODE_BORDER: i32 = 3;
pub const FILTER_MODE_POINT: i32 = 0;
pub const FILTER_MODE_LINEAR: i32 = 1;
pub const READ_MODE_ELEMENT_TYPE: i32 = 0;
pub const READ_MODE_NORMALIZED_FLOAT: i32 = 1;

/// `ptxrtTextureDesc` (as `cudaTextureDesc`; the anisotropy, trilinear-optimization and
/// seamless-cubemap fields are accepted and have no effect).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct TextureDesc {
    pub address_mode: [i32; 3],
    pub filter_mode: i32,
    pub read_mode: i32,
    pub srgb: i32,
    pub border_color: [f32; 4],
    pub normalized_coords: i32,
    pub max_anisotropy: u32,
    pub mipmap_filter_mode: i32,
    pub mipmap_level_bias: f32,
    pub min_mipmap_level_clamp: f32,
    pub max_mipmap_level_clamp: f32,
    pub disable_trilinear_optimization: i32,
    pub seamless_cubemap: i32,
    /// `ptxrtTextureCompareFunc`: the comparison of depth-compare fetches.
    pub compare_func: i32,
}

// ---------------------------------------------------------------------------------------
// Formats and storage

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChannelType {
    U8,
    S8,
    U16,
    S16,
    U32,
    S32,
    F16,
    F32,
}

impl ChannelType {
    fn bytes(self) -> usize {
        match self {
            ChannelType::U8 | ChannelType::S8 => 1,
            ChannelType::U16 | ChannelType::S16 | ChannelType::F16 => 2,
            _ => 4,
        }
    }

    fn is_float(self) -> bool {
        matches!(self, ChannelType::F16 | ChannelType::F32)
    }

    fn is_signed(self) -> bool {
        matches!(self, ChannelType::S8 | ChannelType::S16 | ChannelType::S32)
    }
}

/// An element format: 1, 2 or 4 channels of one type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Format {
    pub channel: ChannelType,
    pub channels: u32,
}

impl Format {
    pub fn from_desc(d: &ChannelFormatDesc) -> Result<Format, Error> {
        let bits = [d.x, d.y, d.z, d.w];
        let channels = bits.iter().take_while(|&&b| b != 0).count();
        let bad = |why: &str| Error::invalid_value(format!("invalid channel format {{{}, {}, {}, {}, kind {}}}: {why}", d.x, d.y, d.z, d.w, d.f));
        if channels == 0 {
            return Err(bad("no channel has a size"));
        }
        if bits[channels..].iter().any(|&b| b != 0) {
            return Err(bad("channel sizes must be given from x on without gaps"));
        }
        if channels == 3 {
            return Err(bad("3-channel formats are not supported (use 4 channels)"));
        }
        if bits[..channels].iter().any(|&b| b != d.x) {
            return Err(bad("every channel must have the same size"));
        }
        let channel = match (d.f, d.x) {
            (FORMAT_KIND_UNSIGNED, 8) => ChannelType::U8,
            (FORMAT_KIND_UNSIGNED, 16) => ChannelType::U16,
            (FORMAT_KIND_UNSIGNED, 32) => ChannelType::U32,
            (FORMAT_KIND_SIGNED, 8) => ChannelType::S8,
            (FORMAT_KIND_SIGNED, 16) => ChannelType::S16,
            (FORMAT_KIND_SIGNED, 32) => ChannelType::S32,
            (FORMAT_KIND_FLOAT, 16) => ChannelType::F16,
            (FORMAT_KIND_FLOAT, 32) => ChannelType::F32,
            (FORMAT_KIND_SIGNED | FORMAT_KIND_UNSIGNED, _) => return Err(bad("integer channels are 8, 16 or 32 bits")),
            (FORMAT_KIND_FLOAT, _) => return Err(bad("float channels are 16 or 32 bits")),
            _ => return Err(bad("the kind must be ptxrtChannelFormatKindSigned, Unsigned or Float")),
        };
        Ok(Format { channel, channels: channels as u32 })
    }

    pub fn bytes(self) -> usize {
        self.channel.bytes() * self.channels as usize
    }

    /// The OpenCL channel data type (what `txq`/`suq .channel_data_type` return, PTX ISA Table 12).
    fn cl_data_type(self, normalized_read: bool) -> u32 {
        match (self.channel, normalized_read) {
            (ChannelType::S8, true) => 0x10D0,
            (ChannelType::S16, true) => 0x10D1,
            (ChannelType::U8, true) => 0x10D2,
            (ChannelType::U16, true) => 0x10D3,
            (ChannelType::S8, false) => 0x10D7,
            (ChannelType::S16, false) => 0x10D8,
            (ChannelType::S32, _) => 0x10D9,
            (ChannelType::U8, false) => 0x10DA,
            (ChannelType::U16, false) => 0x10DB,
            (ChannelType::U32, _) => 0x10DC,
            (ChannelType::F16, _) => 0x10DD,
            (ChannelType::F32, _) => 0x10DE,
        }
    }

    /// The OpenCL channel order (PTX ISA Table 13): `CL_R`, `CL_RG` or `CL_RGBA`.
    fn cl_order(self) -> u32 {
        match self.channels {
            1 => 0x10B0,
            2 => 0x10B2,
            _ => 0x10B5,
        }
    }
}

/// A ptxrt array (`ptxrtArray_t`): elements of one format in a 1D, 2D or 3D block,
/// optionally layered, rows packed without padding, 16-byte aligned.
#[derive(Debug)]
pub struct Array {
    pub format: Format,
    pub width: usize,
    /// 0 for 1D arrays (as CUDA reports it).
    pub height: usize,
    /// 0 for 1D and 2D arrays; the number of layers of layered arrays.
    pub depth: usize,
    pub layered: bool,
    /// Samples per texel of a multisample array (0: not multisample). Sample `s` of layer
    /// `l` is slice `l * samples + s`.
    pub samples: usize,
    /// A level of a mipmapped array: freed with it, not by ptxrtFreeArray.
    pub mip_level: bool,
    storage: Vec<u128>,
}

/// Most samples per texel of a multisample array.
pub const MAX_SAMPLES: usize = 32;

impl Array {
    pub fn new(desc: &ChannelFormatDesc, extent: Extent, flags: u32) -> Result<Array, Error> {
        Array::with_samples(desc, extent, flags, 0)
    }

    /// `ptxrtMallocMultisampleArray`: a 2D array (layered with `ptxrtArrayLayered`) of
    /// `samples` (1..=32) samples per texel.
    pub fn multisample(desc: &ChannelFormatDesc, extent: Extent, samples: usize, flags: u32) -> Result<Array, Error> {
        if samples == 0 || samples > MAX_SAMPLES {
            return Err(Error::invalid_value(format!("a multisample array has 1 to {MAX_SAMPLES} samples per texel, not {samples}")));
        }
        if flags & !(ARRAY_LAYERED) != 0 {
            return Err(Error::invalid_value(format!("multisample arrays take no flags but ptxrtArrayLayered, not {flags:#x}")));
        }
        if extent.height == 0 || (flags & ARRAY_LAYERED == 0 && extent.depth != 0) {
            return Err(Error::invalid_value(format!(
                "a multisample array is 2D (extent {{w, h, 0}}, or {{w, h, layers}} with ptxrtArrayLayered), not {}x{}x{}",
                extent.width, extent.height, extent.depth
            )));
        }
        Array::with_samples(desc, extent, flags, samples)
    }

    fn with_samples(desc: &ChannelFormatDesc, extent: Extent, flags: u32, samples: usize) -> Result<Array, Error> {
        let format = Format::from_desc(desc)?;
        if flags & !(ARRAY_LAYERED | ARRAY_SURFACE_LOAD_STORE | ARRAY_CUBEMAP) != 0 {
            return Err(Error::invalid_value(format!("unknown array flags {flags:#x}")));
        }
        let Extent { width, height, depth } = extent;
        if flags & ARRAY_CUBEMAP != 0 {
            let faces_ok = if flags & ARRAY_LAYERED != 0 { depth > 0 && depth % 6 == 0 } else { depth == 6 };
            if width != height || !faces_ok {
                return Err(Error::invalid_value(format!("a cubemap needs square faces and 6 (per cube) layers, not {width}x{height}x{depth}")));
            }
        }
        let layered = flags & (ARRAY_LAYERED | ARRAY_CUBEMAP) != 0;
        if width == 0 {
            return Err(Error::invalid_value("array width must not be 0"));
        }
        if height == 0 && depth != 0 && !layered {
            return Err(Error::invalid_value("a 3D array needs a height (extent {w, 0, d})"));
        }
        if layered && depth == 0 {
            return Err(Error::invalid_value("a layered array needs at least one layer (extent.depth)"));
        }
        const MAX_DIM: usize = 1 << 16;
        if width > MAX_DIM * 2 || height > MAX_DIM || depth > MAX_DIM {
            return Err(Error::invalid_value(format!("array extent {width}x{height}x{depth} is too large")));
        }
        let bytes = (format.bytes() as u128) * width as u128 * height.max(1) as u128 * depth.max(1) as u128 * samples.max(1) as u128;
        let bytes = usize::try_from(bytes).ok().filter(|b| *b <= isize::MAX as usize / 2).ok_or_else(|| Error::memory_allocation("array too large"))?;
        let mut storage = Vec::new();
        storage.try_reserve_exact(bytes.div_ceil(16)).map_err(|_| Error::memory_allocation(format!("cannot allocate {bytes} bytes for an array")))?;
        storage.resize(bytes.div_ceil(16), 0);
        Ok(Array { format, width, height, depth, layered, samples, mip_level: false, storage })
    }

    pub fn row_bytes(&self) -> usize {
        self.width * self.format.bytes()
    }

    pub fn rows(&self) -> usize {
        self.height.max(1) * self.depth.max(1) * self.samples.max(1)
    }

    pub fn byte_len(&self) -> usize {
        self.row_bytes() * self.rows()
    }

    pub fn data(&mut self) -> *mut u8 {
        self.storage.as_mut_ptr() as *mut u8
    }

    /// `(width, height, depth, layers)` as sampling sees them.
    fn dims(&self) -> ([usize; 3], usize) {
        match (self.layered, self.height) {
            (true, 0) => ([self.width, 1, 1], self.depth),
            (true, h) => ([self.width, h, 1], self.depth),
            (false, h) => ([self.width, h.max(1), self.depth.max(1)], 0),
        }
    }
}

/// A mipmapped array (`ptxrtMipmappedArray_t`, as `cudaMipmappedArray_t`): level `i` is an
/// array of `max(1, floor(n / 2^i))` texels in each of width, height and (3D) depth; layers
/// and cubemap faces are not reduced (PTX ISA 9.2 §9.7.10.2).
#[derive(Debug)]
pub struct MipmappedArray {
    /// The levels, finest first; boxed so that `ptxrtGetMipmappedArrayLevel` can hand out
    /// stable `ptxrtArray_t` pointers.
    pub levels: Vec<Box<Array>>,
}

impl MipmappedArray {
    /// `cudaMallocMipmappedArray`: `num_levels` is clamped to
    /// `[1, 1 + floor(log2(max(width, height, depth)))]` (depth of 3D arrays only), as CUDA does.
    pub fn new(desc: &ChannelFormatDesc, extent: Extent, num_levels: u32, flags: u32) -> Result<MipmappedArray, Error> {
        let layered = flags & (ARRAY_LAYERED | ARRAY_CUBEMAP) != 0;
        let Extent { width, height, depth } = extent;
        let largest = width.max(height).max(if layered { 0 } else { depth }).max(1);
        let complete = 1 + largest.ilog2();
        let levels = num_levels.clamp(1, complete);
        let mut out = Vec::with_capacity(levels as usize);
        for i in 0..levels {
            let shrink = |n: usize| if n == 0 { 0 } else { (n >> i).max(1) };
            let level_extent = Extent { width: shrink(width), height: shrink(height), depth: if layered { depth } else { shrink(depth) } };
            let mut a = Array::new(desc, level_extent, flags)?;
            a.mip_level = true;
            out.push(Box::new(a));
        }
        Ok(MipmappedArray { levels: out })
    }
}

/// What a texture or surface reads: a block of texels in memory.
#[derive(Clone, Copy, Debug)]
struct Image {
    data: *mut u8,
    format: Format,
    /// Texels per dimension (at least 1).
    size: [usize; 3],
    /// Layers of a layered array (0: not layered).
    layers: usize,
    /// Samples per texel of a multisample array (0: not multisample); layer `l`'s sample
    /// `s` is slice `l * samples + s`.
    samples: usize,
    /// Bytes between rows and between slices (layers are slices too).
    pitch: usize,
    slice: usize,
    /// Backed by linear or pitched memory rather than an array.
    linear_layout: bool,
    /// Linear (1D) memory: integer-coordinate fetches outside it read 0, as CUDA's
    /// `tex1Dfetch` does, whatever the address mode.
    zero_outside: bool,
}

// SAFETY: an image points at memory the program keeps alive while the object exists
// (as CUDA requires); it is read and written by several workers like any global memory.
unsafe impl Send for Image {}
unsafe impl Sync for Image {}

impl Image {
    fn from_resource(res: &ResourceDesc) -> Result<Image, Error> {
        match res.res_type {
            RESOURCE_TYPE_ARRAY => {
                // SAFETY: the union member selected by res_type.
                let a = unsafe { res.res.array.array };
                if a.is_null() {
                    return Err(Error::invalid_value("resource array is NULL"));
                }
                // SAFETY: arrays are created by ptxrtMallocArray and stay valid until freed.
                Ok(Image::of_array(unsafe { &mut *a }))
            }
            RESOURCE_TYPE_LINEAR => {
                // SAFETY: the union member selected by res_type.
                let l = unsafe { res.res.linear };
                let format = Format::from_desc(&l.desc)?;
                if l.dev_ptr.is_null() {
                    return Err(Error::invalid_value("linear resource pointer is NULL"));
                }
                let n = l.size_in_bytes / format.bytes();
                if n == 0 {
                    return Err(Error::invalid_value(format!("linear resource of {} bytes holds no element of {} bytes", l.size_in_bytes, format.bytes())));
                }
                Ok(Image {
                    data: l.dev_ptr,
                    format,
                    size: [n, 1, 1],
                    layers: 0,
                    samples: 0,
                    pitch: l.size_in_bytes,
                    slice: l.size_in_bytes,
                    linear_layout: true,
                    zero_outside: true,
                })
            }
            RESOURCE_TYPE_PITCH2D => {
                // SAFETY: the union member selected by res_type.
                let p = unsafe { res.res.pitch2d };
                let format = Format::from_desc(&p.desc)?;
                if p.dev_ptr.is_null() {
                    return Err(Error::invalid_value("pitch2D resource pointer is NULL"));
                }
                if p.width == 0 || p.height == 0 {
                    return Err(Error::invalid_value(format!("pitch2D resource of {}x{} texels is empty", p.width, p.height)));
                }
                if p.pitch_in_bytes < p.width * format.bytes() {
                    return Err(Error::invalid_value(format!("pitch {} is smaller than a row ({} bytes)", p.pitch_in_bytes, p.width * format.bytes())));
                }
                let slice = p.pitch_in_bytes * p.height;
                Ok(Image {
                    data: p.dev_ptr,
                    format,
                    size: [p.width, p.height, 1],
                    layers: 0,
                    samples: 0,
                    pitch: p.pitch_in_bytes,
                    slice,
                    linear_layout: true,
                    zero_outside: false,
                })
            }
            RESOURCE_TYPE_MIPMAPPED_ARRAY => {
                Err(Error::invalid_value("a mipmapped array cannot back a surface (use one of its levels, from ptxrtGetMipmappedArrayLevel)"))
            }
            t => Err(Error::invalid_value(format!("unknown resource type {t}"))),
        }
    }

    fn of_array(a: &mut Array) -> Image {
        let (size, layers) = a.dims();
        let pitch = a.row_bytes();
        Image { data: a.data(), format: a.format, size, layers, samples: a.samples, pitch, slice: pitch * size[1], linear_layout: false, zero_outside: false }
    }

    /// The images of a texture's resource, finest first (one unless it is a mipmapped array),
    /// and whether it is a mipmapped array.
    fn levels_of_resource(res: &ResourceDesc) -> Result<(Vec<Image>, bool), Error> {
        if res.res_type != RESOURCE_TYPE_MIPMAPPED_ARRAY {
            return Ok((vec![Image::from_resource(res)?], false));
        }
        // SAFETY: the union member selected by res_type.
        let m = unsafe { res.res.mipmap.mipmap };
        if m.is_null() {
            return Err(Error::invalid_value("resource mipmapped array is NULL"));
        }
        // SAFETY: created by ptxrtMallocMipmappedArray and valid until freed.
        let m = unsafe { &mut *m };
        Ok((m.levels.iter_mut().map(|a| Image::of_array(a)).collect(), true))
    }

    /// Address of texel `idx` of `layer` (indices in range).
    fn texel(&self, idx: [usize; 3], layer: usize) -> *mut u8 {
        let off = idx[0] * self.format.bytes() + idx[1] * self.pitch + (idx[2] + layer) * self.slice;
        // SAFETY (of the callers): indices are within the image, which lies in valid memory.
        unsafe { self.data.add(off) }
    }
}

// ---------------------------------------------------------------------------------------
// Samplers and objects

/// PTX's address modes (the `txq .addr_mode_N` values, ISA Table 10 order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum AddressMode {
    Wrap = 0,
    Mirror = 1,
    ClampOgl = 2,
    ClampToEdge = 3,
    ClampToBorder = 4,
}

impl AddressMode {
    fn from_bits(b: u64) -> AddressMode {
        match b & 7 {
            0 => AddressMode::Wrap,
            1 => AddressMode::Mirror,
            2 => AddressMode::ClampOgl,
            4 => AddressMode::ClampToBorder,
            _ => AddressMode::ClampToEdge,
        }
    }

    fn from_cuda(m: i32) -> Result<AddressMode, Error> {
        Ok(match m {
            ADDRESS_MODE_WRAP => AddressMode::Wrap,
            ADDRESS_MODE_CLAMP => AddressMode::ClampToEdge,
            ADDRESS_MODE_MIRROR => AddressMode::Mirror,
            ADDRESS_MODE_BORDER => AddressMode::ClampToBorder,
            m => return Err(Error::invalid_value(format!("unknown address mode {m}"))),
        })
    }
}

/// The comparison of depth-compare fetches (`ptxrtTextureCompareFunc`, in its order):
/// `f <op> texel`, the reference value on the left as in OpenGL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum CompareFunc {
    LessEqual = 0,
    GreaterEqual = 1,
    Less = 2,
    Greater = 3,
    Equal = 4,
    NotEqual = 5,
    Always = 6,
    Never = 7,
}

impl CompareFunc {
    const ALL: [CompareFunc; 8] = [
        CompareFunc::LessEqual,
        CompareFunc::GreaterEqual,
        CompareFunc::Less,
        CompareFunc::Greater,
        CompareFunc::Equal,
        CompareFunc::NotEqual,
        CompareFunc::Always,
        CompareFunc::Never,
    ];

    fn from_bits(b: u64) -> CompareFunc {
        CompareFunc::ALL[(b & 7) as usize]
    }

    fn from_desc(v: i32) -> Result<CompareFunc, Error> {
        usize::try_from(v).ok().and_then(|i| CompareFunc::ALL.get(i).copied()).ok_or_else(|| Error::invalid_value(format!("unknown compare function {v}")))
    }

    /// Whether `reference <op> value` holds; NaN on either side fails the ordered
    /// comparisons and `Equal`, and passes `NotEqual` (IEEE comparisons).
    fn passes(self, reference: f32, value: f32) -> bool {
        match self {
            CompareFunc::LessEqual => reference <= value,
            CompareFunc::GreaterEqual => reference >= value,
            CompareFunc::Less => reference < value,
            CompareFunc::Greater => reference > value,
            CompareFunc::Equal => reference == value,
            CompareFunc::NotEqual => reference != value,
            CompareFunc::Always => true,
            CompareFunc::Never => false,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sampler {
    pub address: [AddressMode; 3],
    pub linear: bool,
    /// Unified mode / texture objects: normalized coordinates. Samplers of the independent
    /// mode carry `force_unnormalized_coords` instead (see `SAMPLER_FORCE_UNNORMALIZED`).
    pub normalized: bool,
    pub force_unnormalized: bool,
    /// The comparison of depth-compare fetches (`compareFunc`).
    pub compare: CompareFunc,
}

// Sampler handles: the tag in bits 48..64 (no host pointer or object handle has it),
// address mode `d` at bits `3d..3d+3` (`AddressMode` values), linear filtering at bit 9,
// force_unnormalized_coords at bit 10, the compare function at bits 11..14 (`CompareFunc`
// values; 0, LessEqual, in `.samplerref` initializers). The values live in `ptx2llvm-abi`.
pub use ptx2llvm_abi::texture::{SAMPLER_COMPARE_SHIFT, SAMPLER_FORCE_UNNORMALIZED, SAMPLER_LINEAR, SAMPLER_TAG};

impl Sampler {
    pub fn encode(&self) -> u64 {
        let mut v = SAMPLER_TAG;
        for (d, m) in self.address.iter().enumerate() {
            v |= (*m as u64) << (3 * d);
        }
        if self.linear {
            v |= SAMPLER_LINEAR;
        }
        if self.force_unnormalized {
            v |= SAMPLER_FORCE_UNNORMALIZED;
        }
        v | (self.compare as u64) << SAMPLER_COMPARE_SHIFT
    }

    fn decode(v: u64) -> Option<Sampler> {
        if v & (0xFFFF << 48) != SAMPLER_TAG {
            return None;
        }
        Some(Sampler {
            address: [0, 1, 2].map(|d| AddressMode::from_bits(v >> (3 * d))),
            linear: v & SAMPLER_LINEAR != 0,
            normalized: false,
            force_unnormalized: v & SAMPLER_FORCE_UNNORMALIZED != 0,
            compare: CompareFunc::from_bits(v >> SAMPLER_COMPARE_SHIFT),
        })
    }
}

pub struct TextureObject {
    /// The image sampled (level 0 of a mipmapped texture).
    image: Image,
    sampler: Sampler,
    read_normalized: bool,
    border: [f32; 4],
    /// Levels 1.. of a mipmapped texture (empty otherwise).
    coarser: Vec<Image>,
    mip: Mipmap,
}

/// The mipmap fields of a texture (`ptxrtTextureDesc`).
#[derive(Clone, Copy, Debug)]
struct Mipmap {
    /// Backed by a mipmapped array (what `txq.num_mipmap_levels` tells apart).
    mipmapped: bool,
    /// `mipmapFilterMode` linear: blend the two nearest levels.
    linear: bool,
    bias: f32,
    min_clamp: f32,
    max_clamp: f32,
}

pub struct SurfaceObject {
    image: Image,
}

enum Object {
    Texture(TextureObject),
    Surface(SurfaceObject),
}

const KIND_TEXTURE: u64 = ptx2llvm_abi::texture::TEXTURE_HANDLE_KIND;
const KIND_SURFACE: u64 = 2;
/// Object slots: the inline descriptors' table has one per slot.
const SLOTS: usize = ptx2llvm_abi::texture::INLINE_SLOTS;

/// Live objects by slot (slot 0 unused so that no handle is 0).
static OBJECTS: [AtomicPtr<Object>; SLOTS] = [const { AtomicPtr::new(std::ptr::null_mut()) }; SLOTS];
/// Slots given out so far and slots freed since (guarded together).
static ALLOCATOR: Mutex<(usize, Vec<usize>)> = Mutex::new((1, Vec::new()));

fn insert(obj: Object, kind: u64) -> Result<u64, Error> {
    let mut a = registry::lock(&ALLOCATOR);
    let slot = match a.1.pop() {
        Some(s) => s,
        None if a.0 < SLOTS => {
            a.0 += 1;
            a.0 - 1
        }
        None => return Err(Error::memory_allocation(format!("too many live texture and surface objects (at most {})", SLOTS - 1))),
    };
    if let Object::Texture(t) = &obj {
        t.publish_inline(&__ptxrt_tex_inline[slot]);
    }
    OBJECTS[slot].store(Box::into_raw(Box::new(obj)), Ordering::Release);
    Ok(kind << 32 | slot as u64)
}

fn slot_of(handle: u64, kind: u64) -> Option<usize> {
    let slot = (handle & 0xFFFF_FFFF) as usize;
    (handle >> 32 == kind && slot != 0 && slot < SLOTS).then_some(slot)
}

fn remove(handle: u64, kind: u64) -> Result<(), Error> {
    let what = if kind == KIND_TEXTURE { "texture" } else { "surface" };
    let slot = slot_of(handle, kind).ok_or_else(|| Error::invalid_value(format!("{handle:#x} is not a {what} object")))?;
    let mut a = registry::lock(&ALLOCATOR);
    let p = OBJECTS[slot].swap(std::ptr::null_mut(), Ordering::AcqRel);
    if p.is_null() {
        return Err(Error::invalid_value(format!("{what} object {handle:#x} was already destroyed")));
    }
    // Fetches through a stale handle call the runtime again, which rejects it.
    __ptxrt_tex_inline[slot].kind.store(0, Ordering::Release);
    // SAFETY: created by Box::into_raw in `insert`; the swap made us its only owner.
    drop(unsafe { Box::from_raw(p) });
    a.1.push(slot);
    Ok(())
}

/// The object behind a handle. Destroying an object while a launch uses it is an error of
/// the program (as in CUDA).
fn object(handle: u64) -> Option<&'static Object> {
    let slot = (handle & 0xFFFF_FFFF) as usize;
    if !matches!(handle >> 32, KIND_TEXTURE | KIND_SURFACE) || slot == 0 || slot >= SLOTS {
        return None;
    }
    let p = OBJECTS[slot].load(Ordering::Acquire);
    // SAFETY: non-null slots hold live objects (see above).
    let obj = unsafe { p.as_ref()? };
    let kind_ok = match obj {
        Object::Texture(_) => handle >> 32 == KIND_TEXTURE,
        Object::Surface(_) => handle >> 32 == KIND_SURFACE,
    };
    kind_ok.then_some(obj)
}

fn texture(handle: u64) -> Option<&'static TextureObject> {
    match object(handle)? {
        Object::Texture(t) => Some(t),
        Object::Surface(_) => None,
    }
}

fn surface(handle: u64) -> Option<&'static SurfaceObject> {
    match object(handle)? {
        Object::Surface(s) => Some(s),
        Object::Texture(_) => None,
    }
}

/// The sampler of a texture descriptor.
pub fn sampler_from_desc(d: &TextureDesc) -> Result<Sampler, Error> {
    let address = [AddressMode::from_cuda(d.address_mode[0])?, AddressMode::from_cuda(d.address_mode[1])?, AddressMode::from_cuda(d.address_mode[2])?];
    let linear = match d.filter_mode {
        FILTER_MODE_POINT => false,
        FILTER_MODE_LINEAR => true,
        m => return Err(Error::invalid_value(format!("unknown filter mode {m}"))),
    };
    let compare = CompareFunc::from_desc(d.compare_func)?;
    Ok(Sampler { address, linear, normalized: d.normalized_coords != 0, force_unnormalized: false, compare })
}

pub fn create_texture(res: &ResourceDesc, desc: &TextureDesc) -> Result<u64, Error> {
    let (levels, mipmapped) = Image::levels_of_resource(res)?;
    let Some((&image, coarser)) = levels.split_first() else {
        return Err(Error::invalid_value("the resource has no image"));
    };
    let coarser = coarser.to_vec();
    let sampler = sampler_from_desc(desc)?;
    let read_normalized = match desc.read_mode {
        READ_MODE_ELEMENT_TYPE => false,
        READ_MODE_NORMALIZED_FLOAT => true,
        m => return Err(Error::invalid_value(format!("unknown read mode {m}"))),
    };
    let ch = image.format.channel;
    if read_normalized && !matches!(ch, ChannelType::U8 | ChannelType::S8 | ChannelType::U16 | ChannelType::S16) {
        return Err(Error::invalid_value("ptxrtReadModeNormalizedFloat needs 8- or 16-bit integer channels"));
    }
    let float_result = ch.is_float() || read_normalized;
    if sampler.linear && !float_result {
        return Err(Error::invalid_value("linear filtering needs a texture that returns floats (float channels or ptxrtReadModeNormalizedFloat)"));
    }
    if desc.srgb != 0 {
        return Err(Error::invalid_value("sRGB textures are not supported"));
    }
    if !float_result && desc.border_color.iter().any(|c| *c != 0.0) {
        return Err(Error::invalid_value("a non-zero border colour needs a texture that returns floats"));
    }
    let mip_linear = match desc.mipmap_filter_mode {
        FILTER_MODE_POINT => false,
        FILTER_MODE_LINEAR => true,
        m => return Err(Error::invalid_value(format!("unknown mipmap filter mode {m}"))),
    };
    let (bias, min_clamp, max_clamp) = (desc.mipmap_level_bias, desc.min_mipmap_level_clamp, desc.max_mipmap_level_clamp);
    if mipmapped {
        if mip_linear && !float_result {
            return Err(Error::invalid_value("linear mipmap filtering needs a texture that returns floats (float channels or ptxrtReadModeNormalizedFloat)"));
        }
        if !(bias.is_finite() && min_clamp.is_finite() && max_clamp.is_finite()) || min_clamp > max_clamp {
            return Err(Error::invalid_value(format!(
                "mipmapLevelBias ({bias}), minMipmapLevelClamp ({min_clamp}) and maxMipmapLevelClamp ({max_clamp}) must be finite, with min <= max"
            )));
        }
    }
    let mip = Mipmap { mipmapped, linear: mip_linear, bias, min_clamp, max_clamp };
    insert(Object::Texture(TextureObject { image, sampler, read_normalized, border: desc.border_color, coarser, mip }), KIND_TEXTURE)
}

pub fn destroy_texture(handle: u64) -> Result<(), Error> {
    remove(handle, KIND_TEXTURE)
}

pub fn create_surface(res: &ResourceDesc) -> Result<u64, Error> {
    if res.res_type != RESOURCE_TYPE_ARRAY {
        return Err(Error::invalid_value("surface objects need an array resource (ptxrtResourceTypeArray)"));
    }
    let image = Image::from_resource(res)?;
    if image.samples != 0 {
        return Err(Error::invalid_value("a multisample array cannot back a surface"));
    }
    insert(Object::Surface(SurfaceObject { image }), KIND_SURFACE)
}

pub fn destroy_surface(handle: u64) -> Result<(), Error> {
    remove(handle, KIND_SURFACE)
}

/// Whether `handle` is a live texture object.
pub fn is_texture(handle: u64) -> bool {
    texture(handle).is_some()
}

/// `Some(())` if `handle` is a live surface object.
pub fn surface_kind(handle: u64) -> Option<()> {
    surface(handle).map(|_| ())
}

/// Stores `value` into every module reference `name` of the given kind
/// (`.texref`, `.surfref`, `.samplerref`): what ptxrtBind*Ref do.
pub fn bind_reference(kind: &str, name: &CStr, value: u64) -> Result<(), Error> {
    let mut symbol = Vec::with_capacity(kind.len() + 1 + name.to_bytes().len() + 1);
    symbol.extend_from_slice(kind.as_bytes());
    symbol.push(b':');
    symbol.extend_from_slice(name.to_bytes());
    let symbol = std::ffi::CString::new(symbol).map_err(|_| Error::invalid_value("reference name contains NUL"))?;
    let slots = registry::get_symbols(&symbol);
    if slots.is_empty() {
        return Err(Error::not_found(format!("no registered module declares a {kind} named '{}'", name.to_string_lossy())));
    }
    for (addr, size) in slots {
        if size != 8 || addr.is_null() {
            return Err(Error::internal(&format!("{kind} '{}' has a malformed module slot", name.to_string_lossy())));
        }
        // SAFETY: the slot is the module's 8-byte, 8-aligned handle global; launches read
        // it atomically-enough (binding during a launch is a program error, as in CUDA).
        unsafe { (*(addr as *const AtomicU64)).store(value, Ordering::Release) };
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Inline fetches

/// `ptxrtTexInline` (ptxrt_abi.h; `ptx2llvm_abi::texture::TexInline`, whose documentation
/// has the rules of the inline path, the same as `sample_texel`'s): what generated code
/// needs to fetch texels of a texture object itself, one per object slot in
/// `__ptxrt_tex_inline`. Filled when the object is created, before its handle is returned;
/// `kind` goes back to 0 when it is destroyed. Generated code reads the fields with plain
/// loads (a launch orders them after the creation). The same layout as `TexInline`, with
/// atomics, as the table is shared.
#[repr(C, align(64))]
pub struct InlineTexture {
    pub kind: AtomicU32,
    pub layer_max: AtomicU32,
    pub data: AtomicPtr<u8>,
    pub width: AtomicU64,
    pub height: AtomicU64,
    pub pitch: AtomicU64,
    pub layer_stride: AtomicU64,
    pub border: [AtomicU32; 4],
}

pub use ptx2llvm_abi::texture::{
    INLINE_BORDER_X, INLINE_BORDER_Y, INLINE_CHANNELS_SHIFT, INLINE_CHANNEL_SHIFT, INLINE_FLOAT_RESULT, INLINE_FORMAT_MASK, INLINE_LINEAR, INLINE_NORMALIZED,
    INLINE_OK, INLINE_RAW32, INLINE_READ_NORMALIZED, INLINE_ZERO_OUTSIDE,
};

/// The inline descriptors, by object slot (see `InlineTexture`).
#[no_mangle]
#[allow(non_upper_case_globals)]
pub static __ptxrt_tex_inline: [InlineTexture; SLOTS] = [const { InlineTexture::EMPTY }; SLOTS];

impl InlineTexture {
    const EMPTY: InlineTexture = InlineTexture {
        kind: AtomicU32::new(0),
        layer_max: AtomicU32::new(0),
        data: AtomicPtr::new(std::ptr::null_mut()),
        width: AtomicU64::new(0),
        height: AtomicU64::new(0),
        pitch: AtomicU64::new(0),
        layer_stride: AtomicU64::new(0),
        border: [const { AtomicU32::new(0) }; 4],
    };
}

impl ChannelType {
    /// The channel type's number in `INLINE_CHANNEL_SHIFT`'s field.
    fn inline_code(self) -> u32 {
        match self {
            ChannelType::U8 => 0,
            ChannelType::S8 => 1,
            ChannelType::U16 => 2,
            ChannelType::S16 => 3,
            ChannelType::U32 => 4,
            ChannelType::S32 => 5,
            ChannelType::F16 => 6,
            ChannelType::F32 => 7,
        }
    }
}

impl TextureObject {
    /// The `kind` word of the texture's inline descriptor.
    fn inline_kind(&self) -> u32 {
        let f = self.image.format;
        let mut kind = INLINE_OK | f.channel.inline_code() << INLINE_CHANNEL_SHIFT | f.channels.trailing_zeros() << INLINE_CHANNELS_SHIFT;
        let flags = [
            (self.read_normalized, INLINE_READ_NORMALIZED),
            (self.float_result(), INLINE_FLOAT_RESULT),
            (self.sampler.address[0] == AddressMode::ClampToBorder, INLINE_BORDER_X),
            (self.sampler.address[1] == AddressMode::ClampToBorder, INLINE_BORDER_Y),
            (self.image.zero_outside, INLINE_ZERO_OUTSIDE),
            (self.sampler.normalized, INLINE_NORMALIZED),
            (self.sampler.linear, INLINE_LINEAR),
            (f.channel.bytes() == 4, INLINE_RAW32),
        ];
        for (on, bit) in flags {
            if on {
                kind |= bit;
            }
        }
        // Only the modes `address` maps to clamping or the border reach the inline path:
        // wrap and mirror act as clamp there (unnormalized or integer coordinates), and
        // clamp_ogl comes from samplers, whose fetches call the runtime.
        let plain = |m: AddressMode| !matches!(m, AddressMode::ClampOgl);
        if !(plain(self.sampler.address[0]) && plain(self.sampler.address[1])) {
            return 0;
        }
        kind
    }

    /// Fills the inline descriptor `d` for this texture (its slot is not in use yet).
    fn publish_inline(&self, d: &InlineTexture) {
        let img = &self.image;
        let border = match self.border() {
            Texel::Float(f) => f.map(f32::to_bits),
            Texel::Int(i) => i,
        };
        d.layer_max.store(img.layers.saturating_sub(1) as u32, Ordering::Relaxed);
        d.data.store(img.data, Ordering::Relaxed);
        d.width.store(img.size[0] as u64, Ordering::Relaxed);
        d.height.store(img.size[1] as u64, Ordering::Relaxed);
        d.pitch.store(img.pitch as u64, Ordering::Relaxed);
        d.layer_stride.store((img.slice * img.samples.max(1)) as u64, Ordering::Relaxed);
        for (w, b) in d.border.iter().zip(border) {
            w.store(b, Ordering::Relaxed);
        }
        d.kind.store(self.inline_kind(), Ordering::Release);
    }
}

// ---------------------------------------------------------------------------------------
// Sampling

// The status codes the device entry points return (generated code turns them into
// errors) and the `op` word of `__ptxrt_tex` (see ptxrt_abi.h; values in `ptx2llvm-abi`).
// `.2dms` coords: sample (`.u32`), x, y (`.s32`); `.a2dms`: layer (`.u32`), sample
// (`.u32`), x, y (`.s32`). Level-of-detail mode at bits 12..14: base level, `.level` or
// `.grad` (with either, `coords` holds 16 words: coordinates 0..4, offset 4..8, the level in
// word 8 or dPdx in 8..12 and dPdy in 12..16). A depth-compare fetch (`tex`/`tld4` with
// operand `f`): `coords` holds 17 words, the `.f32` compare value in word
// `DEPTH_COMPARE_WORD` (the coordinates, offset and level-of-detail words before it are laid
// out as without it).
pub use ptx2llvm_abi::texture::{
    DEPTH_COMPARE_WORD, DTYPE_F16, DTYPE_F32, DTYPE_S32, DTYPE_U32, GEOM_1D, GEOM_2D, GEOM_2DMS, GEOM_3D, GEOM_A1D, GEOM_A2D, GEOM_A2DMS, GEOM_ACUBE,
    GEOM_CUBE, LOD_BASE, LOD_GRAD, LOD_LEVEL, STATUS_BAD_HANDLE, STATUS_OK, STATUS_OUT_OF_BOUNDS, TEX_DEPTH_COMPARE, TEX_DTYPE_SHIFT, TEX_FLOAT_COORDS,
    TEX_GATHER_SHIFT, TEX_GEOM_MASK, TEX_HAS_OFFSET, TEX_HAS_SAMPLER, TEX_LOD_SHIFT,
};

/// The cubemap face a direction selects and the face's normalized coordinates (s, t),
/// per the CUDA cubemap table (OpenGL's): the major axis is the component of largest
/// magnitude (ties, which neither defines, go to z, then y, as in Direct3D); face
/// 0..5 = +x -x +y -y +z -z with (sc, tc) = (-z, -y) (z, -y) (x, z) (x, -z) (x, -y)
/// (-x, -y), and s = (sc / |ma| + 1) / 2, t = (tc / |ma| + 1) / 2.
fn cube_face(x: f32, y: f32, z: f32) -> (usize, f32, f32) {
    let (ax, ay, az) = (x.abs(), y.abs(), z.abs());
    let (face, sc, tc, ma) = if az >= ax && az >= ay {
        if z.is_sign_negative() {
            (5, -x, -y, az)
        } else {
            (4, x, -y, az)
        }
    } else if ay >= ax {
        if y.is_sign_negative() {
            (3, x, -z, ay)
        } else {
            (2, x, z, ay)
        }
    } else if x.is_sign_negative() {
        (1, z, -y, ax)
    } else {
        (0, -z, -y, ax)
    };
    (face, (sc / ma + 1.0) * 0.5, (tc / ma + 1.0) * 0.5)
}

/// A texel's channels: floats (float formats and normalized reads) or integers.
#[derive(Clone, Copy)]
enum Texel {
    Float([f32; 4]),
    Int([u32; 4]),
}

impl TextureObject {
    fn float_result(&self) -> bool {
        self.image.format.channel.is_float() || self.read_normalized
    }

    fn read(&self, idx: [usize; 3], layer: usize) -> Texel {
        let f = self.image.format;
        let p = self.image.texel(idx, layer);
        let mut ints = [0u32, 0, 0, 1];
        let mut floats = [0f32, 0.0, 0.0, 1.0];
        for c in 0..f.channels as usize {
            // SAFETY: the texel lies in the image; unaligned reads are fine for any pitch.
            unsafe {
                let q = p.add(c * f.channel.bytes());
                match f.channel {
                    ChannelType::U8 => ints[c] = q.read() as u32,
                    ChannelType::S8 => ints[c] = q.cast::<i8>().read() as i32 as u32,
                    ChannelType::U16 => ints[c] = q.cast::<u16>().read_unaligned() as u32,
                    ChannelType::S16 => ints[c] = q.cast::<i16>().read_unaligned() as i32 as u32,
                    ChannelType::U32 | ChannelType::S32 => ints[c] = q.cast::<u32>().read_unaligned(),
                    ChannelType::F16 => floats[c] = f16_to_f32(q.cast::<u16>().read_unaligned()),
                    ChannelType::F32 => floats[c] = q.cast::<f32>().read_unaligned(),
                }
            }
            if self.read_normalized {
                floats[c] = match f.channel {
                    ChannelType::U8 => ints[c] as f32 / 255.0,
                    ChannelType::U16 => ints[c] as f32 / 65535.0,
                    ChannelType::S8 => (ints[c] as i32 as f32 / 127.0).max(-1.0),
                    ChannelType::S16 => (ints[c] as i32 as f32 / 32767.0).max(-1.0),
                    _ => floats[c],
                };
            }
        }
        if self.float_result() {
            Texel::Float(floats)
        } else {
            Texel::Int(ints)
        }
    }

    fn border(&self) -> Texel {
        if self.float_result() {
            Texel::Float(self.border)
        } else {
            Texel::Int([0; 4])
        }
    }
}

/// Maps a texel index of a dimension of `n` texels by the address mode; `None`: border.
fn address(i: i64, n: usize, mode: AddressMode, normalized: bool) -> Option<usize> {
    let n = n as i64;
    let mode = match mode {
        AddressMode::Wrap | AddressMode::Mirror if !normalized => AddressMode::ClampToEdge,
        m => m,
    };
    Some(match mode {
        AddressMode::Wrap => i.rem_euclid(n),
        AddressMode::Mirror => {
            let m = i.rem_euclid(2 * n);
            if m >= n {
                2 * n - 1 - m
            } else {
                m
            }
        }
        AddressMode::ClampToEdge => i.clamp(0, n - 1),
        AddressMode::ClampToBorder | AddressMode::ClampOgl => {
            if i < 0 || i >= n {
                return None;
            }
            i
        }
    } as usize)
}

/// `floor(x)` as an index, saturated (NaN reads texel 0).
fn floor_index(x: f32) -> i64 {
    let f = x.floor();
    if f.is_nan() {
        0
    } else {
        f.clamp(-(1i64 << 40) as f32, (1i64 << 40) as f32) as i64
    }
}

/// The linear-filtering weight of the upper tap: `frac(x)` in 1/256 steps.
fn weight(x: f32) -> f32 {
    let a = x - x.floor();
    if a.is_nan() {
        return 0.0;
    }
    (a * 256.0).round() / 256.0
}

/// The footprint of one dimension: the lower tap index and the upper tap's weight.
struct Footprint {
    base: [i64; 3],
    weight: [f32; 3],
}

/// Resolves the coordinates of a fetch: scaled, unnormalized coordinates per dimension.
fn scaled(tex: &TextureObject, sampler: &Sampler, dims: usize, c: &[f32; 3]) -> [f32; 3] {
    let mut u = [0f32; 3];
    for d in 0..dims {
        let n = tex.image.size[d] as f32;
        let mut x = if sampler.normalized { c[d] * n } else { c[d] };
        if sampler.address[d] == AddressMode::ClampOgl {
            x = x.clamp(0.0, n);
        }
        u[d] = x;
    }
    u
}

fn footprint(u: &[f32; 3], dims: usize) -> Footprint {
    let mut f = Footprint { base: [0; 3], weight: [0.0; 3] };
    for d in 0..dims {
        let x = u[d] - 0.5;
        f.base[d] = floor_index(x);
        f.weight[d] = weight(x);
    }
    f
}

/// The texel at (possibly out-of-range) integer indices, through the address modes; with
/// a depth-compare value, its comparison result (see `depth_compared`).
fn fetch(tex: &TextureObject, sampler: &Sampler, dims: usize, idx: [i64; 3], layer: usize, depth: Option<f32>) -> Texel {
    let mut at = [0usize; 3];
    for d in 0..dims {
        match address(idx[d], tex.image.size[d], sampler.address[d], sampler.normalized) {
            Some(i) => at[d] = i,
            None => return depth_compared(tex, sampler, depth, tex.border()),
        }
    }
    depth_compared(tex, sampler, depth, tex.read(at, layer))
}

/// A texel of a depth-compare fetch (`depth` = the compare value `f`): 1.0 in every channel
/// where `f <compare> texel` holds for its first channel, else 0.0; these replace the texels
/// before filtering. Integer channels compare by value (signed formats as signed). Without
/// a compare value the texel itself.
fn depth_compared(tex: &TextureObject, sampler: &Sampler, depth: Option<f32>, t: Texel) -> Texel {
    let Some(reference) = depth else { return t };
    let value = match t {
        Texel::Float(f) => f[0],
        Texel::Int(i) if tex.image.format.channel.is_signed() => i[0] as i32 as f32,
        Texel::Int(i) => i[0] as f32,
    };
    Texel::Float([if sampler.compare.passes(reference, value) { 1.0 } else { 0.0 }; 4])
}

fn float_channels(t: Texel) -> [f32; 4] {
    match t {
        Texel::Float(f) => f,
        Texel::Int(i) => i.map(f32::from_bits),
    }
}

/// One `tex`/`tld4` fetch. `coords` are the PTX coordinate elements as bits.
/// `offset` is the `tex`/`tld4` offset operand (texels in each dimension): it moves the
/// integer texel indices (the nearest texel, or every tap of the filter footprint), so the
/// filter weights are those of the unshifted coordinates. `depth` is the depth-compare
/// value: each texel read is replaced by its comparison result (`depth_compared`).
fn sample_texel(tex: &TextureObject, sampler: &Sampler, op: u32, coords: &[u32; 4], offset: [i64; 3], depth: Option<f32>) -> Texel {
    let geom = op & TEX_GEOM_MASK;
    if geom == GEOM_2DMS || geom == GEOM_A2DMS {
        // Texel indices (through the address modes, as integer coordinates) in the slice of
        // the layer's sample; layer and sample are clamped to the array.
        let (layer, sample, x, y) = if geom == GEOM_A2DMS { (coords[0], coords[1], coords[2], coords[3]) } else { (0, coords[0], coords[1], coords[2]) };
        let samples = tex.image.samples.max(1);
        let layer = (layer as usize).min(tex.image.layers.max(1) - 1);
        let slice = layer * samples + (sample as usize).min(samples - 1);
        let point = Sampler { normalized: false, ..*sampler };
        let idx = [x as i32 as i64 + offset[0], y as i32 as i64 + offset[1], 0];
        return fetch(tex, &point, 2, idx, slice, depth);
    }
    if geom == GEOM_CUBE || geom == GEOM_ACUBE {
        // A 2D lookup (normalized coordinates, clamped to the face's edges: faces are not
        // filtered across) in layer face + 6 * cube.
        let (cube, d) = if geom == GEOM_ACUBE { (coords[0] as usize, [coords[1], coords[2], coords[3]]) } else { (0, [coords[0], coords[1], coords[2]]) };
        let [x, y, z] = d.map(f32::from_bits);
        let (face, s, t) = cube_face(x, y, z);
        let cube = cube.min((tex.image.layers / 6).max(1) - 1);
        let face_sampler = Sampler { normalized: true, address: [AddressMode::ClampToEdge; 3], ..*sampler };
        let op = (op & !TEX_GEOM_MASK) | GEOM_A2D | TEX_FLOAT_COORDS;
        return sample_texel(tex, &face_sampler, op, &[(6 * cube + face) as u32, s.to_bits(), t.to_bits(), 0], [0; 3], depth);
    }
    let (dims, arrayed) = match geom {
        GEOM_1D => (1, false),
        GEOM_2D => (2, false),
        GEOM_3D => (3, false),
        GEOM_A1D => (1, true),
        _ => (2, true),
    };
    let (layer, c) = if arrayed { (coords[0] as usize, &coords[1..]) } else { (0, &coords[..]) };
    // Multisample arrays read as other geometries: sample 0 of the layer.
    let layer = layer.min(tex.image.layers.saturating_sub(1)) * tex.image.samples.max(1);
    let float_coords = op & TEX_FLOAT_COORDS != 0;
    let gather = (op >> TEX_GATHER_SHIFT) & 7;
    if gather != 0 {
        // tld4: component `gather - 1` of the 2x2 footprint, counter-clockwise from the
        // lower left: (i0, j1), (i1, j1), (i1, j0), (i0, j0).
        let cf = [0, 1, 2].map(|d| if d < c.len() { f32::from_bits(c[d]) } else { 0.0 });
        let u = scaled(tex, sampler, 2, &cf);
        let f = footprint(&u, 2);
        let (i0, j0) = (f.base[0] + offset[0], f.base[1] + offset[1]);
        let comp = ((gather - 1) as usize).min(3);
        let taps = [(i0, j0 + 1), (i0 + 1, j0 + 1), (i0 + 1, j0), (i0, j0)];
        let texels = taps.map(|(i, j)| fetch(tex, sampler, 2, [i, j, 0], layer, depth));
        match texels[0] {
            Texel::Float(_) => Texel::Float(texels.map(|t| float_channels(t)[comp])),
            Texel::Int(_) => Texel::Int(texels.map(|t| match t {
                Texel::Int(v) => v[comp],
                Texel::Float(v) => v[comp].to_bits(),
            })),
        }
    } else if !float_coords {
        let idx = [0, 1, 2].map(|d| if d < dims { c[d] as i32 as i64 + offset[d] } else { 0 });
        let point = Sampler { normalized: false, ..*sampler };
        let outside = tex.image.zero_outside && (idx[0] < 0 || idx[0] >= tex.image.size[0] as i64);
        match (outside, tex.float_result()) {
            (true, true) => depth_compared(tex, sampler, depth, Texel::Float([0.0; 4])),
            (true, false) => depth_compared(tex, sampler, depth, Texel::Int([0; 4])),
            (false, _) => fetch(tex, &point, dims, idx, layer, depth),
        }
    } else {
        let cf = [0, 1, 2].map(|d| if d < dims { f32::from_bits(c[d]) } else { 0.0 });
        let u = scaled(tex, sampler, dims, &cf);
        if !sampler.linear {
            let idx = [0, 1, 2].map(|d| if d < dims { floor_index(u[d]) + offset[d] } else { 0 });
            fetch(tex, sampler, dims, idx, layer, depth)
        } else {
            let f = footprint(&u, dims);
            let mut acc = [0f32; 4];
            for k in 0..(1usize << dims) {
                let mut w = 1f32;
                let mut idx = [0i64; 3];
                for d in 0..dims {
                    let upper = (k >> d) & 1 == 1;
                    idx[d] = f.base[d] + offset[d] + upper as i64;
                    w *= if upper { f.weight[d] } else { 1.0 - f.weight[d] };
                }
                let t = float_channels(fetch(tex, sampler, dims, idx, layer, depth));
                for ch in 0..4 {
                    acc[ch] += w * t[ch];
                }
            }
            Texel::Float(acc)
        }
    }
}

/// The 4 result words of a fetch in the instruction's destination type.
fn result_words(result: Texel, op: u32) -> [u32; 4] {
    let dtype = (op >> TEX_DTYPE_SHIFT) & 3;
    match result {
        Texel::Float(f) if dtype == DTYPE_F16 => f.map(|x| f32_to_f16(x) as u32),
        Texel::Float(f) => f.map(f32::to_bits),
        Texel::Int(i) if dtype == DTYPE_F16 => i.map(|x| x & 0xFFFF),
        Texel::Int(i) => i,
    }
}

// ---------------------------------------------------------------------------------------
// Mipmaps

/// `2^((2j - 1) / 256)` for j = 1..=128 as f64 bit patterns, each rounded up: a positive
/// f64 `m` is at least the power exactly when `m.to_bits()` is at least the entry (the
/// powers are irrational, so no f64 lies between one and its rounding up).
const HALF_LOD_STEPS: [u64; 128] = [
    0x3FF00B1AFA5ABCBF,
    0x3FF02168143B0281,
    0x3FF037D42E11BBCD,
    0x3FF04E5F72F654B2,
    0x3FF0650A0E3C1F89,
    0x3FF07BD42B72A837,
    0x3FF092BDF66607E0,
    0x3FF0A9C79B1F391A,
    0x3FF0C0F145E46C86,
    0x3FF0D83B23395DEC,
    0x3FF0EFA55FDFA9C5,
    0x3FF1073028D7233F,
    0x3FF11EDBAB5E2AB6,
    0x3FF136A814F204AB,
    0x3FF14E95934F312E,
    0x3FF166A45471C3C3,
    0x3FF17ED48695BBC1,
    0x3FF1972658375D30,
    0x3FF1AF99F8138A1D,
    0x3FF1C82F95281C6C,
    0x3FF1E0E75EB44027,
    0x3FF1F9C18438CE4D,
    0x3FF212BE3578A81A,
    0x3FF22BDDA27912D2,
    0x3FF2451FFB82140B,
    0x3FF25E85711ECE76,
    0x3FF2780E341DDF2A,
    0x3FF291BA7591BB70,
    0x3FF2AB8A66D10F13,
    0x3FF2C57E39771B2F,
    0x3FF2DF961F64158A,
    0x3FF2F9D24ABD886B,
    0x3FF31432EDEEB2FE,
    0x3FF32EB83BA8EA32,
    0x3FF3496266E3FA2D,
    0x3FF36431A2DE883B,
    0x3FF37F26231E754A,
    0x3FF39A401B7140EF,
    0x3FF3B57FBFEC6CF5,
    0x3FF3D0E544EDE174,
    0x3FF3EC70DF1C5175,
    0x3FF40822C367A025,
    0x3FF423FB2709468A,
    0x3FF43FFA3F84B9D5,
    0x3FF45C2042A7D232,
    0x3FF4786D668B3237,
    0x3FF494E1E192AED2,
    0x3FF4B17DEA6DB7D7,
    0x3FF4CE41B817C115,
    0x3FF4EB2D81D8ABFF,
    0x3FF508417F4531EF,
    0x3FF5257DE83F4EEF,
    0x3FF542E2F4F6AD28,
    0x3FF56070DDE910D2,
    0x3FF57E27DBE2C4CF,
    0x3FF59C0827FF07CC,
    0x3FF5BA11FBA87A03,
    0x3FF5D84590998B93,
    0x3FF5F6A320DCEB71,
    0x3FF6152AE6CDF6F5,
    0x3FF633DD1D1929FE,
    0x3FF652B9FEBC8FB7,
    0x3FF671C1C70833F6,
    0x3FF690F4B19E9539,
    0x3FF6B052FA75173F,
    0x3FF6CFDCDDD47646,
    0x3FF6EF9298593AE5,
    0x3FF70F7466F42E88,
    0x3FF72F8286EAD08A,
    0x3FF74FBD35D7CBFE,
    0x3FF77024B1AB6E0A,
    0x3FF790B938AC1CF7,
    0x3FF7B17B0976CFDB,
    0x3FF7D26A62FF86F1,
    0x3FF7F3878491C491,
    0x3FF814D2ADD106DA,
    0x3FF8364C1EB941F8,
    0x3FF857F4179F5B21,
    0x3FF879CAD931A437,
    0x3FF89BD0A4785810,
    0x3FF8BE05BAD61779,
    0x3FF8E06A5E0866D9,
    0x3FF902FED0282C8B,
    0x3FF925C353AA2FE2,
    0x3FF948B82B5F98E5,
    0x3FF96BDD9A7670B3,
    0x3FF98F33E47A22A3,
    0x3FF9B2BB4D53FE0D,
    0x3FF9D674194BB8D5,
    0x3FF9FA5E8D07F29E,
    0x3FFA1E7AED8EB8BC,
    0x3FFA42C980460AD8,
    0x3FFA674A8AF46053,
    0x3FFA8BFE53C12E59,
    0x3FFAB0E521356EBB,
    0x3FFAD5FF3A3C2775,
    0x3FFAFB4CE622F2FF,
    0x3FFB20CE6C9A8953,
    0x3FFB468415B749B1,
    0x3FFB6C6E29F1C52B,
    0x3FFB928CF22749E4,
    0x3FFBB8E0B79A6F1F,
    0x3FFBDF69C3F3A207,
    0x3FFC06286141B33D,
    0x3FFC2D1CD9FA652C,
    0x3FFC544778FAFB23,
    0x3FFC7BA88988C933,
    0x3FFCA3405751C4DB,
    0x3FFCCB0F2E6D1675,
    0x3FFCF3155B5BAB74,
    0x3FFD1B532B08C969,
    0x3FFD43C8EACAA1D7,
    0x3FFD6C76E862E6D4,
    0x3FFD955D71FF6076,
    0x3FFDBE7CD63A8315,
    0x3FFDE7D5641C0658,
    0x3FFE11676B197D17,
    0x3FFE3B333B16EE12,
    0x3FFE653924676D76,
    0x3FFE8F7977CDB740,
    0x3FFEB9F4867CCA6F,
    0x3FFEE4AAA2188511,
    0x3FFF0F9C1CB6412A,
    0x3FFF3AC948DD7274,
    0x3FFF6632798844F9,
    0x3FFF91D802243C89,
    0x3FFFBDBA3692D514,
    0x3FFFE9D96B2A23DA,
];

/// `round(128 * log2(q))` for a normal f64 `q > 0`, exactly: `256 * log2(sqrt(q))`, the
/// level of detail of a gradient of squared length `q` in steps of 1/256.
fn lod_steps(q: f64) -> i64 {
    let bits = q.to_bits();
    let exponent = ((bits >> 52) & 0x7FF) as i64 - 1023;
    let mantissa = (bits & ((1 << 52) - 1)) | (1023 << 52);
    128 * exponent + HALF_LOD_STEPS.partition_point(|&t| mantissa >= t) as i64
}

/// Components (sc, tc, ma) of `v` for cubemap face `face` (the table of `cube_face`).
fn cube_select(face: usize, v: [f64; 3]) -> (f64, f64, f64) {
    let [x, y, z] = v;
    match face {
        0 => (-z, -y, x),
        1 => (z, -y, x),
        2 => (x, z, y),
        3 => (x, -z, y),
        4 => (x, -y, z),
        _ => (-x, -y, z),
    }
}

/// The level of detail of a `.grad` fetch: `log2(max(|du/dx|, |du/dy|))`, the gradients
/// `dPdx`, `dPdy` scaled to texels of level 0 (by the size when the coordinates are
/// normalized `.f32`; cubemaps project them onto the face first), in steps of 1/256.
fn grad_lod(tex: &TextureObject, sampler: &Sampler, op: u32, coords: &[u32; 4], dpdx: [f32; 3], dpdy: [f32; 3]) -> f32 {
    let geom = op & TEX_GEOM_MASK;
    let size = tex.image.size.map(|n| n as f64);
    let (dx, dy): ([f64; 3], [f64; 3]) = if geom == GEOM_CUBE || geom == GEOM_ACUBE {
        // s = (sc / |ma| + 1) / 2, so ds = (dsc * |ma| - sc * d|ma|) / (2 ma^2).
        let d = if geom == GEOM_ACUBE { [coords[1], coords[2], coords[3]] } else { [coords[0], coords[1], coords[2]] }.map(f32::from_bits);
        let (face, _, _) = cube_face(d[0], d[1], d[2]);
        let (sc, tc, ma) = cube_select(face, d.map(f64::from));
        let project = |g: [f32; 3]| {
            let (dsc, dtc, dma) = cube_select(face, g.map(f64::from));
            let dabs = if ma.is_sign_negative() { -dma } else { dma };
            let k = 2.0 * ma * ma;
            [(dsc * ma.abs() - sc * dabs) / k * size[0], (dtc * ma.abs() - tc * dabs) / k * size[1], 0.0]
        };
        (project(dpdx), project(dpdy))
    } else {
        let dims = match geom {
            GEOM_1D | GEOM_A1D => 1,
            GEOM_3D => 3,
            _ => 2,
        };
        let scale = |d: usize| {
            if d >= dims {
                0.0
            } else if sampler.normalized && op & TEX_FLOAT_COORDS != 0 {
                size[d]
            } else {
                1.0
            }
        };
        ([0, 1, 2].map(|d| dpdx[d] as f64 * scale(d)), [0, 1, 2].map(|d| dpdy[d] as f64 * scale(d)))
    };
    let length2 = |g: [f64; 3]| g[0] * g[0] + g[1] * g[1] + g[2] * g[2];
    let (qx, qy) = (length2(dx), length2(dy));
    let q = qx.max(qy);
    if qx.is_nan() || qy.is_nan() {
        f32::NAN
    } else if q < f64::MIN_POSITIVE {
        f32::NEG_INFINITY
    } else if q.is_infinite() {
        f32::INFINITY
    } else {
        lod_steps(q) as f32 / 256.0
    }
}

impl TextureObject {
    /// The levels a fetch at level of detail `lod` reads and the weight of the second:
    /// `lod + bias`, clamped to `[minMipmapLevelClamp, maxMipmapLevelClamp]` and to the
    /// levels there are (NaN: level 0); point mipmap filtering (or `blend` false) takes
    /// the nearest level (`ceil(lod + 0.5) - 1`, halves go to the finer level), linear
    /// levels `floor(lod)` and the next with weight `frac(lod)` in 1/256 steps.
    fn mip_levels(&self, lod: f32, blend: bool) -> (usize, usize, f32) {
        let last = self.coarser.len();
        let mut l = lod + self.mip.bias;
        if l.is_nan() {
            return (0, 0, 0.0);
        }
        if self.mip.mipmapped {
            l = l.max(self.mip.min_clamp).min(self.mip.max_clamp);
        }
        let l = l.clamp(0.0, last as f32);
        if !(blend && self.mip.linear) {
            let nearest = if l <= 0.5 { 0 } else { (l + 0.5).ceil() as usize - 1 };
            let nearest = nearest.min(last);
            return (nearest, nearest, 0.0);
        }
        let lower = (l.floor() as usize).min(last);
        match weight(l) {
            0.0 => (lower, lower, 0.0),
            w => (lower, (lower + 1).min(last), w),
        }
    }

    /// Level `k` as a texture of its own (same sampler and read mode).
    fn level(&self, k: usize) -> TextureObject {
        let image = if k == 0 { self.image } else { self.coarser.get(k - 1).copied().unwrap_or(self.image) };
        TextureObject { image, sampler: self.sampler, read_normalized: self.read_normalized, border: self.border, coarser: Vec::new(), mip: self.mip }
    }
}

/// A fetch at level of detail `lod` (`.level`, `.grad`): one level, or two blended as
/// `(1 - w) * T0 + w * T1` (f32, per channel).
fn sample_lod(tex: &TextureObject, sampler: &Sampler, op: u32, coords: &[u32; 4], offset: [i64; 3], lod: f32, depth: Option<f32>) -> Texel {
    let (d0, d1, w) = tex.mip_levels(lod, op & TEX_FLOAT_COORDS != 0);
    let t0 = sample_texel(&tex.level(d0), sampler, op, coords, offset, depth);
    if d1 == d0 || w == 0.0 {
        return t0;
    }
    let t1 = sample_texel(&tex.level(d1), sampler, op, coords, offset, depth);
    match (t0, t1) {
        (Texel::Float(a), Texel::Float(b)) => Texel::Float([0, 1, 2, 3].map(|c| a[c] * (1.0 - w) + b[c] * w)),
        _ => t0,
    }
}

/// The sampler a fetch uses: the explicit one (independent mode; the texture's
/// normalization unless forced off) or the texture's own.
fn effective_sampler(tex: &TextureObject, sampler: Option<u64>) -> Option<Sampler> {
    match sampler {
        None => Some(tex.sampler),
        Some(v) => {
            let s = Sampler::decode(v).or_else(|| texture(v).map(|t| t.sampler))?;
            Some(Sampler { normalized: tex.sampler.normalized && !s.force_unnormalized, ..s })
        }
    }
}

/// `tex`/`tld4` (see ptxrt_abi.h).
///
/// # Safety
/// `coords` points at 4 readable `u32` (8 with `TEX_HAS_OFFSET`, 16 with a level-of-detail
/// mode, 17 with `TEX_DEPTH_COMPARE`), `out` at 4 writable `u32`.
#[no_mangle]
pub unsafe extern "C" fn __ptxrt_tex(texture_handle: u64, sampler: u64, op: u32, coords: *const u32, out: *mut u32) -> i32 {
    let Some(tex) = texture(texture_handle) else {
        return STATUS_BAD_HANDLE;
    };
    let Some(s) = effective_sampler(tex, (op & TEX_HAS_SAMPLER != 0).then_some(sampler)) else {
        return STATUS_BAD_HANDLE;
    };
    // SAFETY: per the contract.
    let c = unsafe { coords.cast::<[u32; 4]>().read_unaligned() };
    let mut offset = [0i64; 3];
    if op & TEX_HAS_OFFSET != 0 {
        // SAFETY: per the contract (the offset words follow the coordinates).
        let o = unsafe { coords.add(4).cast::<[u32; 3]>().read_unaligned() };
        offset = o.map(|x| x as i32 as i64);
    }
    let depth = if op & TEX_DEPTH_COMPARE != 0 {
        // SAFETY: per the contract (17 words with a depth-compare value).
        Some(f32::from_bits(unsafe { coords.add(DEPTH_COMPARE_WORD).read_unaligned() }))
    } else {
        None
    };
    let texel = match (op >> TEX_LOD_SHIFT) & 3 {
        LOD_BASE => sample_texel(tex, &s, op, &c, offset, depth),
        mode => {
            // SAFETY: per the contract (16 words with a level-of-detail mode).
            let w = unsafe { coords.add(8).cast::<[u32; 8]>().read_unaligned() };
            let lod = if mode == LOD_LEVEL {
                if op & TEX_FLOAT_COORDS != 0 {
                    f32::from_bits(w[0])
                } else {
                    w[0] as i32 as f32
                }
            } else {
                let g = |i: usize| [w[i], w[i + 1], w[i + 2]].map(f32::from_bits);
                grad_lod(tex, &s, op, &c, g(0), g(4))
            };
            sample_lod(tex, &s, op, &c, offset, lod, depth)
        }
    };
    let r = result_words(texel, op);
    // SAFETY: per the contract.
    unsafe { out.cast::<[u32; 4]>().write_unaligned(r) };
    STATUS_OK
}

// ---------------------------------------------------------------------------------------
// Queries

/// `query` values of `__ptxrt_query` (txq and suq).
pub use ptx2llvm_abi::texture::{
    Q_ADDR_MODE_0, Q_ADDR_MODE_1, Q_ADDR_MODE_2, Q_ARRAY_SIZE, Q_CHANNEL_DATA_TYPE, Q_CHANNEL_ORDER, Q_DEPTH, Q_FILTER_MODE, Q_FORCE_UNNORMALIZED_COORDS,
    Q_HEIGHT, Q_MEMORY_LAYOUT, Q_NORMALIZED_COORDS, Q_NUM_MIPMAP_LEVELS, Q_NUM_SAMPLES, Q_WIDTH,
};

fn image_query(img: &Image, q: u32, normalized_read: bool) -> Option<u32> {
    // Sizes beyond the resource's dimensionality are 1 (a 1D texture has height 1).
    Some(match q {
        Q_WIDTH => img.size[0] as u32,
        Q_HEIGHT => img.size[1] as u32,
        Q_DEPTH => img.size[2] as u32,
        Q_CHANNEL_DATA_TYPE => img.format.cl_data_type(normalized_read),
        Q_CHANNEL_ORDER => img.format.cl_order(),
        Q_ARRAY_SIZE => img.layers as u32,
        Q_NUM_SAMPLES => img.samples as u32,
        Q_MEMORY_LAYOUT => img.linear_layout as u32,
        _ => return None,
    })
}

fn sampler_query(s: &Sampler, q: u32) -> Option<u32> {
    Some(match q {
        Q_NORMALIZED_COORDS => s.normalized as u32,
        Q_FILTER_MODE => s.linear as u32,
        Q_ADDR_MODE_0 => s.address[0] as u32,
        Q_ADDR_MODE_1 => s.address[1] as u32,
        Q_ADDR_MODE_2 => s.address[2] as u32,
        Q_FORCE_UNNORMALIZED_COORDS => s.force_unnormalized as u32,
        _ => return None,
    })
}

/// `txq`/`suq`: an attribute of a texture, sampler or surface handle.
///
/// # Safety
/// `out` points at a writable `u32`.
#[no_mangle]
pub unsafe extern "C" fn __ptxrt_query(handle: u64, query: u32, out: *mut u32) -> i32 {
    let v = if let Some(s) = Sampler::decode(handle) {
        sampler_query(&s, query)
    } else {
        match object(handle) {
            Some(Object::Texture(t)) if query == Q_NUM_MIPMAP_LEVELS => Some(if t.mip.mipmapped { t.coarser.len() as u32 + 1 } else { 0 }),
            Some(Object::Texture(t)) => image_query(&t.image, query, t.read_normalized).or_else(|| sampler_query(&t.sampler, query)),
            Some(Object::Surface(s)) => image_query(&s.image, query, false),
            None => return STATUS_BAD_HANDLE,
        }
    };
    // SAFETY: per the contract.
    unsafe { out.write_unaligned(v.unwrap_or(0)) };
    STATUS_OK
}

/// `txq.level`: the width, height or depth of level `level` of a texture (level 0 of a
/// texture without mipmaps is the texture; levels it does not have answer 0).
///
/// # Safety
/// `out` points at a writable `u32`.
#[no_mangle]
pub unsafe extern "C" fn __ptxrt_query_level(handle: u64, query: u32, level: i32, out: *mut u32) -> i32 {
    let Some(t) = texture(handle) else { return STATUS_BAD_HANDLE };
    let exists = usize::try_from(level).is_ok_and(|l| l <= t.coarser.len());
    let v = match query {
        Q_WIDTH | Q_HEIGHT | Q_DEPTH if exists => image_query(&t.level(level as usize).image, query, false).unwrap_or(0),
        _ => 0,
    };
    // SAFETY: per the contract.
    unsafe { out.write_unaligned(v) };
    STATUS_OK
}

/// `istypep`: 1 if `handle` is a live object of `kind` (0 texture, 1 sampler, 2 surface).
#[no_mangle]
pub extern "C" fn __ptxrt_istypep(handle: u64, kind: u32) -> u32 {
    (match kind {
        0 => texture(handle).is_some(),
        1 => Sampler::decode(handle).is_some(),
        _ => surface(handle).is_some(),
    }) as u32
}

// ---------------------------------------------------------------------------------------
// Surfaces

/// `op` word of the surface entry points (see ptxrt_abi.h).
pub use ptx2llvm_abi::texture::{
    CLAMP_CLAMP, CLAMP_TRAP, CLAMP_ZERO, RED_ADD, RED_AND, RED_MAX, RED_MIN, RED_OR, SURF_CLAMP_SHIFT, SURF_FORMATTED, SURF_RED_SHIFT, SURF_SIGNED,
    SURF_SIZE_SHIFT,
};

/// Resolves surface coordinates to the address of an access of `size` bytes, applying the
/// out-of-range mode. `x` is in bytes (`.b`) or elements (`.p`, scaled by `scale`).
/// `Ok(None)`: out of range with `.zero`.
fn surface_address(img: &Image, op: u32, coords: &[i32; 4], size: usize, scale: usize) -> Result<Option<*mut u8>, i32> {
    let geom = op & TEX_GEOM_MASK;
    let (dims, arrayed) = match geom {
        GEOM_1D => (1, false),
        GEOM_2D => (2, false),
        GEOM_3D => (3, false),
        GEOM_A1D => (1, true),
        _ => (2, true),
    };
    let (layer, c) = if arrayed { (coords[0] as u32 as i64, &coords[1..]) } else { (0, &coords[..]) };
    let clamp = (op >> SURF_CLAMP_SHIFT) & 3;
    let row = (img.size[0] * img.format.bytes()) as i64;
    // Misaligned byte offsets: the low address bits are masked off (the ISA leaves it undefined).
    let x = (c[0] as i64 * scale as i64) & !(size as i64 - 1);
    let mut at = [x, if dims > 1 { c[1] as i64 } else { 0 }, if dims > 2 { c[2] as i64 } else { 0 }];
    let limits = [row - size as i64, img.size[1] as i64 - 1, img.size[2] as i64 - 1];
    let mut layer = layer;
    let layer_limit = img.layers as i64 - 1;
    let out = (0..3).any(|d| at[d] < 0 || at[d] > limits[d]) || (arrayed && layer > layer_limit) || row < size as i64;
    if out {
        match clamp {
            CLAMP_CLAMP if row >= size as i64 => {
                for d in 0..3 {
                    at[d] = at[d].clamp(0, limits[d]);
                }
                at[0] &= !(size as i64 - 1);
                layer = layer.min(layer_limit.max(0));
            }
            CLAMP_ZERO => return Ok(None),
            _ => return Err(STATUS_OUT_OF_BOUNDS),
        }
    }
    let off = at[0] as usize + at[1] as usize * img.pitch + (at[2] + layer) as usize * img.slice;
    // SAFETY (of the callers): in range of the image.
    Ok(Some(unsafe { img.data.add(off) }))
}

/// `suld.b`: loads `size` bytes (`op` bits 4..8 = log2 size) into `data`.
///
/// # Safety
/// `coords` points at 4 readable `i32`, `data` at `size` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn __ptxrt_suld(handle: u64, op: u32, coords: *const i32, data: *mut u8) -> i32 {
    let Some(s) = surface(handle) else { return STATUS_BAD_HANDLE };
    let size = 1usize << ((op >> SURF_SIZE_SHIFT) & 0xF);
    // SAFETY: per the contract.
    let c = unsafe { coords.cast::<[i32; 4]>().read_unaligned() };
    match surface_address(&s.image, op, &c, size, 1) {
        // SAFETY: `p` addresses `size` bytes of the surface; `data` per the contract.
        Ok(Some(p)) => unsafe { std::ptr::copy_nonoverlapping(p, data, size) },
        // SAFETY: per the contract.
        Ok(None) => unsafe { std::ptr::write_bytes(data, 0, size) },
        Err(e) => return e,
    }
    STATUS_OK
}

/// `sust.b` (raw bytes) and `sust.p` (formatted: `size / 4` 32-bit components, converted
/// to the surface's element format; integer formats saturate, f16 rounds to nearest even).
///
/// # Safety
/// `coords` points at 4 readable `i32`, `data` at `size` readable bytes.
#[no_mangle]
pub unsafe extern "C" fn __ptxrt_sust(handle: u64, op: u32, coords: *const i32, data: *const u8) -> i32 {
    let Some(s) = surface(handle) else { return STATUS_BAD_HANDLE };
    let size = 1usize << ((op >> SURF_SIZE_SHIFT) & 0xF);
    // SAFETY: per the contract.
    let c = unsafe { coords.cast::<[i32; 4]>().read_unaligned() };
    let f = s.image.format;
    if op & SURF_FORMATTED == 0 {
        match surface_address(&s.image, op, &c, size, 1) {
            // SAFETY: `p` addresses `size` bytes of the surface; `data` per the contract.
            Ok(Some(p)) => unsafe { std::ptr::copy_nonoverlapping(data, p, size) },
            Ok(None) => {}
            Err(e) => return e,
        }
        return STATUS_OK;
    }
    let p = match surface_address(&s.image, op, &c, f.bytes(), f.bytes()) {
        Ok(Some(p)) => p,
        Ok(None) => return STATUS_OK,
        Err(e) => return e,
    };
    for ch in 0..(f.channels as usize).min(size / 4) {
        // SAFETY: component `ch` of the source and the element's channel `ch`.
        unsafe {
            let v = data.add(4 * ch).cast::<u32>().read_unaligned();
            let q = p.add(ch * f.channel.bytes());
            let sat = |lo: i64, hi: i64| if f.channel.is_signed() { (v as i32 as i64).clamp(lo, hi) } else { (v as i64).clamp(lo.max(0), hi) };
            match f.channel {
                ChannelType::U8 => q.write(sat(0, 255) as u8),
                ChannelType::S8 => q.cast::<i8>().write(sat(-128, 127) as i8),
                ChannelType::U16 => q.cast::<u16>().write_unaligned(sat(0, 65535) as u16),
                ChannelType::S16 => q.cast::<i16>().write_unaligned(sat(-32768, 32767) as i16),
                ChannelType::U32 | ChannelType::S32 | ChannelType::F32 => q.cast::<u32>().write_unaligned(v),
                ChannelType::F16 => q.cast::<u16>().write_unaligned(f32_to_f16(f32::from_bits(v))),
            }
        }
    }
    STATUS_OK
}

/// `sured`: an atomic reduction of `value` into a 32- or 64-bit surface location
/// (`op` size 4 or 8 bytes; `.b` byte addressing, `.p` element addressing).
///
/// # Safety
/// `coords` points at 4 readable `i32`.
#[no_mangle]
pub unsafe extern "C" fn __ptxrt_sured(handle: u64, op: u32, coords: *const i32, value: u64) -> i32 {
    let Some(s) = surface(handle) else { return STATUS_BAD_HANDLE };
    let size = 1usize << ((op >> SURF_SIZE_SHIFT) & 0xF);
    // SAFETY: per the contract.
    let c = unsafe { coords.cast::<[i32; 4]>().read_unaligned() };
    let scale = if op & SURF_FORMATTED != 0 { size } else { 1 };
    // `.p` forms take the signedness from the surface format.
    let signed = if op & SURF_FORMATTED != 0 { s.image.format.channel.is_signed() } else { op & SURF_SIGNED != 0 };
    let p = match surface_address(&s.image, op, &c, size, scale) {
        Ok(Some(p)) => p,
        Ok(None) => return STATUS_OK,
        Err(e) => return e,
    };
    let red = (op >> SURF_RED_SHIFT) & 0xF;
    if (p as usize) % size != 0 {
        return STATUS_OUT_OF_BOUNDS;
    }
    // SAFETY: aligned, in range; other workers access it only atomically or racily (as on a GPU).
    unsafe {
        if size == 8 {
            let a = &*(p as *const AtomicU64);
            let _ = match red {
                RED_ADD => a.fetch_add(value, Ordering::Relaxed),
                RED_AND => a.fetch_and(value, Ordering::Relaxed),
                RED_OR => a.fetch_or(value, Ordering::Relaxed),
                RED_MIN if signed => a.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |o| Some((o as i64).min(value as i64) as u64)).unwrap_or(0),
                RED_MAX if signed => a.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |o| Some((o as i64).max(value as i64) as u64)).unwrap_or(0),
                RED_MIN => a.fetch_min(value, Ordering::Relaxed),
                _ => a.fetch_max(value, Ordering::Relaxed),
            };
        } else {
            let a = &*(p as *const AtomicU32);
            let v = value as u32;
            let _ = match red {
                RED_ADD => a.fetch_add(v, Ordering::Relaxed),
                RED_AND => a.fetch_and(v, Ordering::Relaxed),
                RED_OR => a.fetch_or(v, Ordering::Relaxed),
                RED_MIN if signed => a.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |o| Some((o as i32).min(v as i32) as u32)).unwrap_or(0),
                RED_MAX if signed => a.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |o| Some((o as i32).max(v as i32) as u32)).unwrap_or(0),
                RED_MIN => a.fetch_min(v, Ordering::Relaxed),
                _ => a.fetch_max(v, Ordering::Relaxed),
            };
        }
    }
    STATUS_OK
}

// ---------------------------------------------------------------------------------------
// Half precision

fn f16_to_f32(h: u16) -> f32 {
    let sign = ((h as u32) & 0x8000) << 16;
    let exp = ((h >> 10) & 0x1F) as u32;
    let man = (h & 0x3FF) as u32;
    let bits = match (exp, man) {
        (0, 0) => sign,
        (0, m) => {
            // Subnormal: m * 2^-24, exact in f32.
            let v = m as f32 * f32::from_bits(0x3380_0000);
            return if sign != 0 { -v } else { v };
        }
        (0x1F, m) => sign | 0x7F80_0000 | (m << 13),
        (e, m) => sign | ((e + 112) << 23) | (m << 13),
    };
    f32::from_bits(bits)
}

/// f32 → f16 bits, rounding to nearest even.
fn f32_to_f16(x: f32) -> u16 {
    let b = x.to_bits();
    let sign = ((b >> 16) & 0x8000) as u16;
    let exp = ((b >> 23) & 0xFF) as i32;
    let man = b & 0x7F_FFFF;
    if exp == 0xFF {
        return sign | 0x7C00 | if man != 0 { 0x200 | (man >> 13) as u16 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1F {
        return sign | 0x7C00;
    }
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        let m = man | 0x80_0000;
        let shift = (14 - e) as u32;
        let half = 1u32 << (shift - 1);
        let rest = m & ((1 << shift) - 1);
        let mut r = m >> shift;
        if rest > half || (rest == half && r & 1 == 1) {
            r += 1;
        }
        return sign | r as u16;
    }
    let rest = man & 0x1FFF;
    let mut r = ((e as u32) << 10) | (man >> 13);
    if rest > 0x1000 || (rest == 0x1000 && r & 1 == 1) {
        r += 1;
    }
    sign | r as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    fn desc(x: i32, y: i32, z: i32, w: i32, f: i32) -> ChannelFormatDesc {
        ChannelFormatDesc { x, y, z, w, f }
    }

    /// The C layouts of ptxrt.h (sizes and offsets as a C compiler lays them out).
    #[test]
    fn c_layouts_match_the_header() {
        use std::mem::{offset_of, size_of};
        assert_eq!(size_of::<ChannelFormatDesc>(), 20);
        assert_eq!(size_of::<Extent>(), 24);
        assert_eq!(size_of::<ResourceDesc>(), 72);
        assert_eq!(size_of::<TextureDesc>(), 76);
        assert_eq!(offset_of!(TextureDesc, compare_func), 72);
        assert_eq!(offset_of!(ResourceDesc, res) + offset_of!(Pitch2DRes, pitch_in_bytes), 56);
        assert_eq!(offset_of!(ResourceDesc, res) + offset_of!(LinearRes, size_in_bytes), 40);
        assert_eq!(offset_of!(TextureDesc, normalized_coords), 40);
    }

    /// The table generated code reads has the ABI crate's layout and symbol.
    #[test]
    fn inline_descriptor_layout_is_the_abis() {
        use ptx2llvm_abi::texture::{TexInline, INLINE_TABLE_SYMBOL};
        use std::mem::{align_of, offset_of, size_of};
        assert_eq!((size_of::<InlineTexture>(), align_of::<InlineTexture>()), (size_of::<TexInline>(), align_of::<TexInline>()));
        let ours = [
            offset_of!(InlineTexture, kind),
            offset_of!(InlineTexture, layer_max),
            offset_of!(InlineTexture, data),
            offset_of!(InlineTexture, width),
            offset_of!(InlineTexture, height),
            offset_of!(InlineTexture, pitch),
            offset_of!(InlineTexture, layer_stride),
            offset_of!(InlineTexture, border),
        ];
        let abi = [
            offset_of!(TexInline, kind),
            offset_of!(TexInline, layer_max),
            offset_of!(TexInline, data),
            offset_of!(TexInline, width),
            offset_of!(TexInline, height),
            offset_of!(TexInline, pitch),
            offset_of!(TexInline, layer_stride),
            offset_of!(TexInline, border),
        ];
        assert_eq!(ours, abi);
        assert_eq!(size_of::<[AtomicU32; 4]>(), size_of::<[u32; 4]>());
        assert_eq!(std::mem::size_of_val(&__ptxrt_tex_inline), size_of::<TexInline>() * SLOTS);
        assert_eq!(INLINE_TABLE_SYMBOL, "__ptxrt_tex_inline");
    }

    #[test]
    fn inline_descriptors_describe_textures() {
        let slot = |h: u64| &__ptxrt_tex_inline[(h & 0xFFFF_FFFF) as usize];
        // f32 over linear memory with a partial element at the end, border addressing.
        let mut mem = [0f32; 8];
        let lin = ResourceDesc {
            res_type: RESOURCE_TYPE_LINEAR,
            res: ResUnion { linear: LinearRes { dev_ptr: mem.as_mut_ptr().cast(), desc: desc(32, 0, 0, 0, FORMAT_KIND_FLOAT), size_in_bytes: 27 } },
        };
        let td = TextureDesc { address_mode: [ADDRESS_MODE_BORDER; 3], border_color: [0.5, -1.0, 0.0, 2.0], ..Default::default() };
        let h = create_texture(&lin, &td).unwrap();
        let d = slot(h);
        let f32_code = 7 << INLINE_CHANNEL_SHIFT;
        let kind = INLINE_OK | f32_code | INLINE_FLOAT_RESULT | INLINE_BORDER_X | INLINE_BORDER_Y | INLINE_ZERO_OUTSIDE | INLINE_RAW32;
        assert_eq!(d.kind.load(Ordering::Relaxed), kind);
        assert_eq!(d.data.load(Ordering::Relaxed), mem.as_mut_ptr().cast());
        assert_eq!((d.width.load(Ordering::Relaxed), d.height.load(Ordering::Relaxed), d.layer_max.load(Ordering::Relaxed)), (6, 1, 0));
        assert_eq!(d.border.each_ref().map(|b| b.load(Ordering::Relaxed)), [0.5f32, -1.0, 0.0, 2.0].map(f32::to_bits));
        destroy_texture(h).unwrap();
        assert_eq!(d.kind.load(Ordering::Relaxed), 0);

        // Normalized u8x4 in a layered multisample array: normalized coordinates, linear
        // filtering; layers are `slice * samples` apart.
        let mut a = Array::multisample(&desc(8, 8, 8, 8, FORMAT_KIND_UNSIGNED), Extent { width: 3, height: 2, depth: 5 }, 4, ARRAY_LAYERED).unwrap();
        let res = ResourceDesc { res_type: RESOURCE_TYPE_ARRAY, res: ResUnion { array: ArrayRes { array: &mut a } } };
        let td = TextureDesc { filter_mode: FILTER_MODE_LINEAR, read_mode: READ_MODE_NORMALIZED_FLOAT, normalized_coords: 1, ..Default::default() };
        let h = create_texture(&res, &td).unwrap();
        let d = slot(h);
        let kind = INLINE_OK | 2 << INLINE_CHANNELS_SHIFT | INLINE_READ_NORMALIZED | INLINE_FLOAT_RESULT | INLINE_NORMALIZED | INLINE_LINEAR;
        assert_eq!(d.kind.load(Ordering::Relaxed), kind);
        assert_eq!((d.width.load(Ordering::Relaxed), d.height.load(Ordering::Relaxed), d.pitch.load(Ordering::Relaxed)), (3, 2, 12));
        assert_eq!((d.layer_max.load(Ordering::Relaxed), d.layer_stride.load(Ordering::Relaxed)), (4, 12 * 2 * 4));
        destroy_texture(h).unwrap();

        // Integer results read border texels as 0, whatever the (zero) border colour's sign.
        let mut a = Array::new(&desc(16, 16, 0, 0, FORMAT_KIND_SIGNED), Extent { width: 4, height: 0, depth: 0 }, 0).unwrap();
        let res = ResourceDesc { res_type: RESOURCE_TYPE_ARRAY, res: ResUnion { array: ArrayRes { array: &mut a } } };
        let td = TextureDesc { address_mode: [ADDRESS_MODE_BORDER; 3], border_color: [-0.0; 4], ..Default::default() };
        let h = create_texture(&res, &td).unwrap();
        let d = slot(h);
        assert_eq!(d.kind.load(Ordering::Relaxed), INLINE_OK | 3 << INLINE_CHANNEL_SHIFT | 1 << INLINE_CHANNELS_SHIFT | INLINE_BORDER_X | INLINE_BORDER_Y);
        assert_eq!(d.border.each_ref().map(|b| b.load(Ordering::Relaxed)), [0; 4]);
        destroy_texture(h).unwrap();
    }

    #[test]
    fn format_validation_rejects_bad_descriptors() {
        assert!(Format::from_desc(&desc(0, 0, 0, 0, FORMAT_KIND_FLOAT)).unwrap_err().message.contains("no channel"));
        assert!(Format::from_desc(&desc(32, 32, 32, 0, FORMAT_KIND_FLOAT)).unwrap_err().message.contains("3-channel"));
        assert!(Format::from_desc(&desc(8, 16, 0, 0, FORMAT_KIND_UNSIGNED)).unwrap_err().message.contains("same size"));
        assert!(Format::from_desc(&desc(8, 0, 8, 0, FORMAT_KIND_UNSIGNED)).unwrap_err().message.contains("without gaps"));
        assert!(Format::from_desc(&desc(8, 0, 0, 0, FORMAT_KIND_FLOAT)).unwrap_err().message.contains("float channels"));
        assert!(Format::from_desc(&desc(12, 0, 0, 0, FORMAT_KIND_SIGNED)).unwrap_err().message.contains("integer channels"));
        assert!(Format::from_desc(&desc(32, 0, 0, 0, 7)).unwrap_err().message.contains("kind"));
        let f = Format::from_desc(&desc(16, 16, 16, 16, FORMAT_KIND_FLOAT)).unwrap();
        assert_eq!((f.channel, f.channels, f.bytes()), (ChannelType::F16, 4, 8));
    }

    #[test]
    fn array_validation_rejects_empty_and_inconsistent_extents() {
        let d = desc(32, 0, 0, 0, FORMAT_KIND_FLOAT);
        let e = |w, h, dd| Extent { width: w, height: h, depth: dd };
        assert!(Array::new(&d, e(0, 4, 0), 0).unwrap_err().message.contains("width"));
        assert!(Array::new(&d, e(4, 0, 3), 0).unwrap_err().message.contains("height"));
        assert!(Array::new(&d, e(4, 4, 0), ARRAY_LAYERED).unwrap_err().message.contains("layer"));
        assert!(Array::new(&d, e(4, 4, 0), 0x80).unwrap_err().message.contains("flags"));
        assert!(Array::new(&d, e(1 << 40, 1 << 16, 1 << 16), 0).is_err());
        let a = Array::new(&d, e(5, 3, 2), 0).unwrap();
        assert_eq!((a.row_bytes(), a.rows(), a.byte_len()), (20, 6, 120));
    }

    #[test]
    fn texture_descriptor_validation() {
        let mut a = Array::new(&desc(8, 0, 0, 0, FORMAT_KIND_UNSIGNED), Extent { width: 4, height: 0, depth: 0 }, 0).unwrap();
        let res = ResourceDesc { res_type: RESOURCE_TYPE_ARRAY, res: ResUnion { array: ArrayRes { array: &mut a } } };
        let mut td = TextureDesc { filter_mode: FILTER_MODE_LINEAR, ..Default::default() };
        assert!(create_texture(&res, &td).unwrap_err().message.contains("linear filtering"));
        td.read_mode = READ_MODE_NORMALIZED_FLOAT;
        let h = create_texture(&res, &td).unwrap();
        assert!(is_texture(h));
        destroy_texture(h).unwrap();
        assert!(!is_texture(h));
        assert!(destroy_texture(h).is_err());
        td.compare_func = 8;
        assert!(create_texture(&res, &td).unwrap_err().message.contains("compare function"));
        td.compare_func = CompareFunc::Never as i32;
        destroy_texture(create_texture(&res, &td).unwrap()).unwrap();
        td.address_mode[1] = 9;
        assert!(create_texture(&res, &td).unwrap_err().message.contains("address mode"));
        let null = ResourceDesc { res_type: RESOURCE_TYPE_ARRAY, res: ResUnion { reserved: [0; 8] } };
        assert!(create_texture(&null, &TextureDesc::default()).unwrap_err().message.contains("NULL"));
        let bad = ResourceDesc { res_type: 42, res: ResUnion { reserved: [0; 8] } };
        assert!(create_texture(&bad, &TextureDesc::default()).unwrap_err().message.contains("resource type"));
        let mut mem = [0u8; 16];
        let lin = ResourceDesc {
            res_type: RESOURCE_TYPE_LINEAR,
            res: ResUnion { linear: LinearRes { dev_ptr: mem.as_mut_ptr(), desc: desc(32, 32, 32, 32, FORMAT_KIND_FLOAT), size_in_bytes: 8 } },
        };
        assert!(create_texture(&lin, &TextureDesc::default()).unwrap_err().message.contains("no element"));
        assert!(create_surface(&lin).unwrap_err().message.contains("array"));
    }

    #[test]
    fn cubemap_arrays_need_square_faces_and_six_layers_per_cube() {
        let d = desc(32, 0, 0, 0, FORMAT_KIND_FLOAT);
        let e = |w, h, dd| Extent { width: w, height: h, depth: dd };
        assert!(Array::new(&d, e(4, 4, 6), ARRAY_CUBEMAP).is_ok());
        assert!(Array::new(&d, e(4, 4, 12), ARRAY_CUBEMAP | ARRAY_LAYERED).is_ok());
        assert!(Array::new(&d, e(4, 5, 6), ARRAY_CUBEMAP).unwrap_err().message.contains("cubemap"));
        assert!(Array::new(&d, e(4, 4, 12), ARRAY_CUBEMAP).unwrap_err().message.contains("cubemap"));
        assert!(Array::new(&d, e(4, 4, 8), ARRAY_CUBEMAP | ARRAY_LAYERED).unwrap_err().message.contains("cubemap"));
    }

    #[test]
    fn cube_faces_follow_the_major_axis() {
        assert_eq!(cube_face(1.0, 0.5, -0.5), (0, 0.75, 0.25));
        assert_eq!(cube_face(-1.0, 0.5, -0.5), (1, 0.25, 0.25));
        assert_eq!(cube_face(0.5, 2.0, 1.0), (2, 0.625, 0.75));
        assert_eq!(cube_face(0.5, -2.0, 1.0), (3, 0.625, 0.25));
        assert_eq!(cube_face(0.5, 0.0, 1.0), (4, 0.75, 0.5));
        assert_eq!(cube_face(0.5, 0.0, -1.0), (5, 0.25, 0.5));
        // Ties go to z, then y.
        assert_eq!(cube_face(1.0, 1.0, 1.0).0, 4);
        assert_eq!(cube_face(-1.0, 1.0, 0.5).0, 2);
    }

    #[test]
    fn address_modes_map_indices() {
        assert_eq!(address(-1, 4, AddressMode::Wrap, true), Some(3));
        assert_eq!(address(5, 4, AddressMode::Mirror, true), Some(2));
        assert_eq!(address(-1, 4, AddressMode::Mirror, true), Some(0));
        assert_eq!(address(9, 4, AddressMode::ClampToEdge, true), Some(3));
        assert_eq!(address(4, 4, AddressMode::ClampToBorder, false), None);
        // Wrap needs normalized coordinates; otherwise it clamps.
        assert_eq!(address(-1, 4, AddressMode::Wrap, false), Some(0));
    }

    #[test]
    fn linear_weights_are_8_bit_fractions() {
        assert_eq!(weight(0.5), 0.5);
        assert_eq!(weight(0.1), 26.0 / 256.0);
        assert_eq!(weight(0.999), 1.0);
        assert_eq!(weight(-0.25), 0.75);
    }

    #[test]
    fn sampler_words_round_trip() {
        let s = Sampler {
            address: [AddressMode::Wrap, AddressMode::ClampToBorder, AddressMode::Mirror],
            linear: true,
            normalized: false,
            force_unnormalized: true,
            compare: CompareFunc::Never,
        };
        assert_eq!(Sampler::decode(s.encode()), Some(s));
        assert_eq!(Sampler::decode(0x1234), None);
        // `.samplerref` initializers leave the compare bits 0: LessEqual.
        assert_eq!(Sampler::decode(SAMPLER_TAG).map(|s| s.compare), Some(CompareFunc::LessEqual));
        for f in CompareFunc::ALL {
            assert_eq!(Sampler::decode(Sampler { compare: f, ..s }.encode()).map(|s| s.compare), Some(f));
        }
    }

    #[test]
    fn compare_functions_put_the_reference_on_the_left() {
        use CompareFunc::*;
        // (function, passes for f < texel, f == texel, f > texel, a NaN on either side)
        let table = [
            (LessEqual, [true, true, false], false),
            (GreaterEqual, [false, true, true], false),
            (Less, [true, false, false], false),
            (Greater, [false, false, true], false),
            (Equal, [false, true, false], false),
            (NotEqual, [true, false, true], true),
            (Always, [true, true, true], true),
            (Never, [false, false, false], false),
        ];
        for (f, order, nan) in table {
            assert_eq!([f.passes(0.25, 0.5), f.passes(0.5, 0.5), f.passes(0.75, 0.5)], order, "{f:?}");
            assert_eq!([f.passes(f32::NAN, 0.5), f.passes(0.5, f32::NAN), f.passes(f32::NAN, f32::NAN)], [nan; 3], "{f:?}");
            assert_eq!(f.passes(-0.0, 0.0), order[1], "{f:?}: -0 == +0");
            assert_eq!(CompareFunc::from_desc(f as i32).ok(), Some(f));
        }
        assert!(CompareFunc::from_desc(8).is_err() && CompareFunc::from_desc(-1).is_err());
    }

    /// tex with a depth-compare value: the comparison results of the footprint are filtered
    /// (here 2 of the 4 linear taps pass: 0.5); tld4 gathers the results per texel.
    #[test]
    fn depth_compare_filters_comparison_results() {
        let mut texels = [0.1f32, 0.9, 0.3, 0.7];
        let img = Image {
            data: texels.as_mut_ptr().cast(),
            format: Format { channel: ChannelType::F32, channels: 1 },
            size: [2, 2, 1],
            layers: 0,
            samples: 0,
            pitch: 8,
            slice: 16,
            linear_layout: false,
            zero_outside: false,
        };
        let sampler =
            Sampler { address: [AddressMode::ClampToEdge; 3], linear: true, normalized: false, force_unnormalized: false, compare: CompareFunc::GreaterEqual };
        let mip = Mipmap { mipmapped: false, linear: false, bias: 0.0, min_clamp: 0.0, max_clamp: 0.0 };
        let tex = TextureObject { image: img, sampler, read_normalized: false, border: [0.0; 4], coarser: Vec::new(), mip };
        let center = [1.0f32.to_bits(), 1.0f32.to_bits(), 0, 0];
        let op = GEOM_2D | TEX_FLOAT_COORDS | DTYPE_F32 << TEX_DTYPE_SHIFT;
        let floats = |t: Texel| match t {
            Texel::Float(f) => f,
            Texel::Int(_) => panic!("a depth-compare fetch returns floats"),
        };
        // 0.5 >= {0.1, 0.9, 0.3, 0.7}: taps 0 and 2 pass.
        assert_eq!(floats(sample_texel(&tex, &sampler, op, &center, [0; 3], Some(0.5))), [0.5; 4]);
        assert_eq!(floats(sample_texel(&tex, &sampler, op, &center, [0; 3], Some(f32::NAN))), [0.0; 4]);
        let point = Sampler { linear: false, ..sampler };
        assert_eq!(floats(sample_texel(&tex, &point, op, &center, [0; 3], Some(0.5))), [0.0; 4]); // texel (1, 1) = 0.7
                                                                                                  // tld4: (i0, j1), (i1, j1), (i1, j0), (i0, j0) = 0.3, 0.7, 0.9, 0.1.
        let gather = op | 1 << TEX_GATHER_SHIFT;
        assert_eq!(floats(sample_texel(&tex, &sampler, gather, &center, [0; 3], Some(0.5))), [1.0, 0.0, 0.0, 1.0]);
        // Without a compare value, the texels themselves.
        assert_eq!(floats(sample_texel(&tex, &sampler, gather, &center, [0; 3], None)), [0.3, 0.7, 0.9, 0.1]);
    }

    #[test]
    fn mipmap_levels_halve_and_keep_layers() {
        let d = desc(32, 0, 0, 0, FORMAT_KIND_FLOAT);
        let sizes = |m: &MipmappedArray| m.levels.iter().map(|a| (a.width, a.height, a.depth)).collect::<Vec<_>>();
        // Levels are clamped to the complete pyramid: 1 + floor(log2(10)) = 4.
        let m = MipmappedArray::new(&d, Extent { width: 10, height: 3, depth: 0 }, 9, 0).unwrap();
        assert_eq!(sizes(&m), [(10, 3, 0), (5, 1, 0), (2, 1, 0), (1, 1, 0)]);
        let m = MipmappedArray::new(&d, Extent { width: 4, height: 2, depth: 8 }, 0, 0).unwrap();
        assert_eq!(sizes(&m), [(4, 2, 8)]);
        let m = MipmappedArray::new(&d, Extent { width: 4, height: 2, depth: 8 }, 4, 0).unwrap();
        assert_eq!(sizes(&m), [(4, 2, 8), (2, 1, 4), (1, 1, 2), (1, 1, 1)]);
        let m = MipmappedArray::new(&d, Extent { width: 8, height: 0, depth: 3 }, 4, ARRAY_LAYERED).unwrap();
        assert_eq!(sizes(&m), [(8, 0, 3), (4, 0, 3), (2, 0, 3), (1, 0, 3)]);
        assert!(m.levels.iter().all(|a| a.mip_level));
        assert!(MipmappedArray::new(&d, Extent { width: 0, height: 2, depth: 0 }, 2, 0).is_err());
    }

    #[test]
    fn lod_steps_are_exact_roundings() {
        // round(128 * log2(q)) at powers of two and just around the half steps.
        assert_eq!(lod_steps(1.0), 0);
        assert_eq!(lod_steps(4.0), 256);
        assert_eq!(lod_steps(0.25), -256);
        for j in 1..=128i64 {
            let t = f64::from_bits(HALF_LOD_STEPS[j as usize - 1]);
            assert_eq!(lod_steps(t), j, "{t}");
            assert_eq!(lod_steps(f64::from_bits(t.to_bits() - 1)), j - 1, "{t}");
            // The table against the library's log2 (which may err by an ulp).
            let approx = 128.0 * t.log2();
            assert!((approx - (j as f64 - 0.5)).abs() < 1e-12, "{j}: {approx}");
        }
    }

    fn mip_texture(levels: usize, linear: bool, bias: f32, min_clamp: f32, max_clamp: f32) -> TextureObject {
        let img = Image {
            data: std::ptr::null_mut(),
            format: Format { channel: ChannelType::F32, channels: 1 },
            size: [1, 1, 1],
            layers: 0,
            samples: 0,
            pitch: 4,
            slice: 4,
            linear_layout: false,
            zero_outside: false,
        };
        let sampler =
            Sampler { address: [AddressMode::ClampToEdge; 3], linear: false, normalized: true, force_unnormalized: false, compare: CompareFunc::LessEqual };
        TextureObject {
            image: img,
            sampler,
            read_normalized: false,
            border: [0.0; 4],
            coarser: vec![img; levels - 1],
            mip: Mipmap { mipmapped: true, linear, bias, min_clamp, max_clamp },
        }
    }

    #[test]
    fn mip_level_selection() {
        let t = mip_texture(4, false, 0.0, 0.0, 10.0);
        assert_eq!(t.mip_levels(0.5, true), (0, 0, 0.0));
        assert_eq!(t.mip_levels(0.75, true), (1, 1, 0.0));
        assert_eq!(t.mip_levels(1.5, true), (1, 1, 0.0));
        assert_eq!(t.mip_levels(f32::INFINITY, true), (3, 3, 0.0));
        assert_eq!(t.mip_levels(f32::NEG_INFINITY, true), (0, 0, 0.0));
        assert_eq!(t.mip_levels(f32::NAN, true), (0, 0, 0.0));
        let t = mip_texture(4, true, 0.25, 0.0, 2.5);
        assert_eq!(t.mip_levels(1.0, true), (1, 2, 0.25));
        assert_eq!(t.mip_levels(9.0, true), (2, 3, 0.5));
        // Integer coordinates do not blend.
        assert_eq!(t.mip_levels(1.0, false), (1, 1, 0.0));
        // A zeroed descriptor clamps to level 0 (as CUDA).
        let t = mip_texture(4, true, 0.0, 0.0, 0.0);
        assert_eq!(t.mip_levels(2.0, true), (0, 0, 0.0));
    }

    #[test]
    fn gradients_are_scaled_to_texels_of_level_0() {
        let mut t = mip_texture(4, false, 0.0, 0.0, 3.0);
        t.image.size = [8, 4, 1];
        let normalized = t.sampler;
        let unnormalized = Sampler { normalized: false, ..normalized };
        let c = [0u32; 4];
        let op2d = GEOM_2D | TEX_FLOAT_COORDS;
        // Normalized .f32 coordinates: (0.25, 0) * (8, 4) = 2 texels; the longer gradient wins.
        assert_eq!(grad_lod(&t, &normalized, op2d, &c, [0.25, 0.0, 0.0], [0.0, 0.25, 0.0]), 1.0);
        assert_eq!(grad_lod(&t, &unnormalized, op2d, &c, [2.0, 0.0, 0.0], [0.0, 1.0, 0.0]), 1.0);
        // Integer coordinates are texels already; 1d ignores the second component.
        assert_eq!(grad_lod(&t, &normalized, GEOM_2D, &c, [4.0, 0.0, 0.0], [0.0, 0.0, 0.0]), 2.0);
        assert_eq!(grad_lod(&t, &normalized, GEOM_1D | TEX_FLOAT_COORDS, &c, [0.0, 9.0, 0.0], [0.0; 3]), f32::NEG_INFINITY);
        // sqrt(3^2 + 4^2) = 5 texels: log2(5) = 2.3219..., 594.4 / 256 rounds to 594 / 256.
        assert_eq!(grad_lod(&t, &unnormalized, op2d, &c, [3.0, 4.0, 0.0], [0.0; 3]), 594.0 / 256.0);
        assert!(grad_lod(&t, &unnormalized, op2d, &c, [f32::NAN, 0.0, 0.0], [0.0; 3]).is_nan());
        assert_eq!(grad_lod(&t, &unnormalized, op2d, &c, [f32::INFINITY, 0.0, 0.0], [0.0; 3]), f32::INFINITY);
    }

    #[test]
    fn multisample_arrays_are_2d() {
        let d = desc(32, 0, 0, 0, FORMAT_KIND_FLOAT);
        let e = |w, h, dd| Extent { width: w, height: h, depth: dd };
        let a = Array::multisample(&d, e(3, 2, 0), 4, 0).unwrap();
        assert_eq!((a.rows(), a.byte_len()), (8, 96));
        let a = Array::multisample(&d, e(3, 2, 5), 2, ARRAY_LAYERED).unwrap();
        assert_eq!(a.rows(), 20);
        assert!(Array::multisample(&d, e(3, 2, 0), 0, 0).unwrap_err().message.contains("samples"));
        assert!(Array::multisample(&d, e(3, 2, 0), 33, 0).is_err());
        assert!(Array::multisample(&d, e(3, 0, 0), 2, 0).unwrap_err().message.contains("2D"));
        assert!(Array::multisample(&d, e(3, 2, 2), 2, 0).unwrap_err().message.contains("2D"));
        assert!(Array::multisample(&d, e(3, 2, 0), 2, ARRAY_CUBEMAP).unwrap_err().message.contains("flags"));
        let mut a = Array::multisample(&d, e(3, 2, 0), 2, 0).unwrap();
        let res = ResourceDesc { res_type: RESOURCE_TYPE_ARRAY, res: ResUnion { array: ArrayRes { array: &mut a } } };
        assert!(create_surface(&res).unwrap_err().message.contains("multisample"));
    }

    #[test]
    fn mipmapped_texture_descriptors() {
        let d = desc(8, 0, 0, 0, FORMAT_KIND_UNSIGNED);
        let mut m = MipmappedArray::new(&d, Extent { width: 4, height: 4, depth: 0 }, 3, 0).unwrap();
        let res = ResourceDesc { res_type: RESOURCE_TYPE_MIPMAPPED_ARRAY, res: ResUnion { mipmap: MipmapRes { mipmap: &mut m } } };
        let mut td = TextureDesc { mipmap_filter_mode: FILTER_MODE_LINEAR, max_mipmap_level_clamp: 2.0, ..Default::default() };
        assert!(create_texture(&res, &td).unwrap_err().message.contains("linear mipmap"));
        td.read_mode = READ_MODE_NORMALIZED_FLOAT;
        td.min_mipmap_level_clamp = 3.0;
        assert!(create_texture(&res, &td).unwrap_err().message.contains("min <= max"));
        td.min_mipmap_level_clamp = 0.0;
        let h = create_texture(&res, &td).unwrap();
        let mut levels = 0u32;
        // SAFETY: a writable u32.
        assert_eq!(unsafe { __ptxrt_query(h, Q_NUM_MIPMAP_LEVELS, &mut levels) }, STATUS_OK);
        assert_eq!(levels, 3);
        let mut w = 0u32;
        // SAFETY: as above.
        unsafe {
            assert_eq!(__ptxrt_query_level(h, Q_WIDTH, 2, &mut w), STATUS_OK);
            assert_eq!(w, 1);
            assert_eq!(__ptxrt_query_level(h, Q_HEIGHT, 1, &mut w), STATUS_OK);
            assert_eq!(w, 2);
            assert_eq!(__ptxrt_query_level(h, Q_WIDTH, 3, &mut w), STATUS_OK);
            assert_eq!(w, 0);
            assert_eq!(__ptxrt_query_level(h, Q_WIDTH, -1, &mut w), STATUS_OK);
            assert_eq!(w, 0);
            assert_eq!(__ptxrt_query_level(0x1234, Q_WIDTH, 0, &mut w), STATUS_BAD_HANDLE);
        }
        destroy_texture(h).unwrap();
        let null = ResourceDesc { res_type: RESOURCE_TYPE_MIPMAPPED_ARRAY, res: ResUnion { reserved: [0; 8] } };
        assert!(create_texture(&null, &td).unwrap_err().message.contains("NULL"));
        assert!(create_surface(&res).is_err());
    }

    #[test]
    fn half_conversions() {
        for h in [0u16, 0x3C00, 0xC000, 0x0001, 0x03FF, 0x7BFF, 0x7C00] {
            assert_eq!(f32_to_f16(f16_to_f32(h)), h, "{h:#x}");
        }
        assert_eq!(f16_to_f32(0x0001), 2f32.powi(-24));
        assert_eq!(f16_to_f32(0x8001), -(2f32.powi(-24)));
    }
}

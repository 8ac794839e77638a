//! PTX fundamental types and state spaces.

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScalarType {
    Pred,
    B8,
    B16,
    B32,
    B64,
    B128,
    U8,
    U16,
    U32,
    U64,
    S8,
    S16,
    S32,
    S64,
    F16,
    F16x2,
    BF16,
    BF16x2,
    F32,
    F64,
}

/// How the bits of a type are interpreted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TypeKind {
    Pred,
    Bits,
    Unsigned,
    Signed,
    Float,
}

impl ScalarType {
    pub fn from_name(s: &str) -> Option<ScalarType> {
        use ScalarType::*;
        Some(match s {
            ".pred" => Pred,
            ".b8" => B8,
            ".b16" => B16,
            ".b32" => B32,
            ".b64" => B64,
            ".b128" => B128,
            ".u8" => U8,
            ".u16" => U16,
            ".u32" => U32,
            ".u64" => U64,
            ".s8" => S8,
            ".s16" => S16,
            ".s32" => S32,
            ".s64" => S64,
            ".f16" => F16,
            ".f16x2" => F16x2,
            ".bf16" => BF16,
            ".bf16x2" => BF16x2,
            ".f32" => F32,
            ".f64" => F64,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        use ScalarType::*;
        match self {
            Pred => ".pred",
            B8 => ".b8",
            B16 => ".b16",
            B32 => ".b32",
            B64 => ".b64",
            B128 => ".b128",
            U8 => ".u8",
            U16 => ".u16",
            U32 => ".u32",
            U64 => ".u64",
            S8 => ".s8",
            S16 => ".s16",
            S32 => ".s32",
            S64 => ".s64",
            F16 => ".f16",
            F16x2 => ".f16x2",
            BF16 => ".bf16",
            BF16x2 => ".bf16x2",
            F32 => ".f32",
            F64 => ".f64",
        }
    }

    /// Width in bits (1 for predicates).
    pub fn bits(self) -> u32 {
        use ScalarType::*;
        match self {
            Pred => 1,
            B8 | U8 | S8 => 8,
            B16 | U16 | S16 | F16 | BF16 => 16,
            B32 | U32 | S32 | F32 | F16x2 | BF16x2 => 32,
            B64 | U64 | S64 | F64 => 64,
            B128 => 128,
        }
    }

    /// Size in memory, in bytes (predicates are stored as one byte).
    pub fn bytes(self) -> u32 {
        self.bits().div_ceil(8)
    }

    pub fn kind(self) -> TypeKind {
        use ScalarType::*;
        match self {
            Pred => TypeKind::Pred,
            B8 | B16 | B32 | B64 | B128 => TypeKind::Bits,
            U8 | U16 | U32 | U64 => TypeKind::Unsigned,
            S8 | S16 | S32 | S64 => TypeKind::Signed,
            F16 | F16x2 | BF16 | BF16x2 | F32 | F64 => TypeKind::Float,
        }
    }

    pub fn is_signed(self) -> bool {
        self.kind() == TypeKind::Signed
    }

    pub fn is_float(self) -> bool {
        self.kind() == TypeKind::Float
    }

    pub fn is_int(self) -> bool {
        matches!(self.kind(), TypeKind::Bits | TypeKind::Unsigned | TypeKind::Signed)
    }

    /// The signed or unsigned integer type of the given width.
    pub fn int(bits: u32, signed: bool) -> Option<ScalarType> {
        use ScalarType::*;
        Some(match (bits, signed) {
            (8, false) => U8,
            (16, false) => U16,
            (32, false) => U32,
            (64, false) => U64,
            (8, true) => S8,
            (16, true) => S16,
            (32, true) => S32,
            (64, true) => S64,
            _ => return None,
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StateSpace {
    Reg,
    Const,
    Global,
    Local,
    Param,
    Shared,
    /// Generic addressing (no state space on ld/st).
    Generic,
    Tex,
}

impl StateSpace {
    pub fn from_name(s: &str) -> Option<StateSpace> {
        Some(match s {
            ".reg" => StateSpace::Reg,
            ".const" => StateSpace::Const,
            ".global" => StateSpace::Global,
            ".local" => StateSpace::Local,
            ".param" => StateSpace::Param,
            ".shared" | ".shared::cta" => StateSpace::Shared,
            ".tex" => StateSpace::Tex,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            StateSpace::Reg => ".reg",
            StateSpace::Const => ".const",
            StateSpace::Global => ".global",
            StateSpace::Local => ".local",
            StateSpace::Param => ".param",
            StateSpace::Shared => ".shared",
            StateSpace::Generic => "generic",
            StateSpace::Tex => ".tex",
        }
    }
}

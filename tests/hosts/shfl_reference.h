/* shfl_reference.h: the hosts' reference of shfl.sync's source lane (ISA 9.2 §9.7.9.6),
 * shared by the warp fixtures. */
#ifndef PTX2LLVM_SHFL_REFERENCE_H
#define PTX2LLVM_SHFL_REFERENCE_H

/* Modes as the instruction encodes them. */
enum { SHFL_UP = 0, SHFL_DOWN = 1, SHFL_BFLY = 2, SHFL_IDX = 3 };

/* The lane whose value lane `lane` receives from shfl.sync `mode` with operands `b` and `c`
 * (the clamp in bits 0-4 of `c`, the segment mask in bits 8-12), or the lane itself where
 * the source is out of range. */
static inline unsigned shfl_src(int mode, unsigned lane, unsigned b, unsigned c)
{
    int bval = (int)(b & 31), cval = (int)(c & 31), seg = (int)((c >> 8) & 31), l = (int)lane;
    int max_lane = (l & seg) | (cval & ~seg), min_lane = l & seg, j, ok;
    switch (mode) {
    case SHFL_UP: j = l - bval; ok = j >= max_lane; break;
    case SHFL_DOWN: j = l + bval; ok = j <= max_lane; break;
    case SHFL_BFLY: j = l ^ bval; ok = j <= max_lane; break;
    default: j = min_lane | (bval & ~seg); ok = j <= max_lane; break;
    }
    return ok ? (unsigned)j : lane;
}

#endif

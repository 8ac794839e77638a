// A kernel for the -g test: gdb stops on a CUDA source line of it (tests/e2e debug_info).
extern "C" __global__ void scale_particles(float *pos, const float *vel, float dt, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = vel[i];
        float moved = pos[i] + v * dt;   // line 7: the test's breakpoint
        pos[i] = moved;
    }
}

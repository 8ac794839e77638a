fn main() {
    ptx2llvm_build::Build::new()
        .file("saxpy.ptx")
        .cpu("native")
        .compile("kernels");
}

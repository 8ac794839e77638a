# -*- Python -*-
# lit configuration for ptx2llvm's lit + FileCheck tests.
#
# Environment:
#   PTX2LLVM_BIN_DIR        directory holding the ptx2llvm binary (default: target/debug
#                           of this workspace); `cargo test` sets it.
#   PTX2LLVM_LIT_EXEC_ROOT  where lit writes %t files (default: target/lit next to the
#                           binary directory's profile dirs).
#   LLVM_BINDIR             directory of FileCheck, not, llvm-readelf, ... (default:
#                           `llvm-config-19 --bindir`, else /usr/lib/llvm-19/bin).

import os
import shutil
import subprocess

import lit.formats

config.name = "ptx2llvm"
# RUN lines run under bash: they may use `cd`, `$?`, `test`, pipes and redirections.
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".ptx", ".test"]
config.excludes = ["Inputs", "lit.cfg.py"]
# `REQUIRES: host-x86_64`: tests whose messages name the machine's architecture.
import platform

if platform.machine() in ("x86_64", "AMD64"):
    config.available_features.add("host-x86_64")

config.test_source_root = os.path.dirname(os.path.abspath(__file__))
workspace_root = os.path.dirname(config.test_source_root)


def find_bin_dir():
    env = os.environ.get("PTX2LLVM_BIN_DIR")
    if env:
        return os.path.abspath(env)
    return os.path.join(workspace_root, "target", "debug")


bin_dir = find_bin_dir()
ptx2llvm = os.path.join(bin_dir, "ptx2llvm")
if not os.path.isfile(ptx2llvm):
    lit_config.fatal(
        "ptx2llvm not found at %s: build it (cargo build -p ptx2llvm) or set PTX2LLVM_BIN_DIR"
        % ptx2llvm
    )

config.test_exec_root = os.environ.get("PTX2LLVM_LIT_EXEC_ROOT") or os.path.join(
    os.path.dirname(bin_dir), "lit"
)


def find_llvm_bindir():
    env = os.environ.get("LLVM_BINDIR")
    if env:
        return env
    llvm_config = shutil.which("llvm-config-19")
    if llvm_config:
        try:
            out = subprocess.check_output([llvm_config, "--bindir"], text=True).strip()
            if out:
                return out
        except (OSError, subprocess.CalledProcessError):
            pass
    return "/usr/lib/llvm-19/bin"


llvm_bindir = find_llvm_bindir()
for tool in ["FileCheck", "not", "count", "llvm-readelf", "llvm-objdump", "llvm-dis"]:
    if not os.path.isfile(os.path.join(llvm_bindir, tool)):
        lit_config.fatal(
            "%s not found in %s (install llvm-19-tools and llvm-19, or set LLVM_BINDIR)"
            % (tool, llvm_bindir)
        )

# FileCheck, not, llvm-readelf, ... are found through PATH (first the LLVM 19 ones),
# ptx2llvm through %ptx2llvm.
config.environment["PATH"] = os.pathsep.join(
    [llvm_bindir, bin_dir, config.environment.get("PATH", os.environ.get("PATH", ""))]
)
# Diagnostics without color, whatever the terminal says.
config.environment["NO_COLOR"] = "1"
for var in ["HOME", "LANG", "LC_ALL"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]

config.substitutions.append(("%ptx2llvm", ptx2llvm))
config.substitutions.append(("%llvm_bindir", llvm_bindir))

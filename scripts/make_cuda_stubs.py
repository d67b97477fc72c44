#!/usr/bin/env python3
"""Stub shared libraries for the CUDA libraries a PyTorch wheel's libtorch needs,
so a binary linked against it can be loaded (and run on CPU) on a machine with no
CUDA libraries. Every stub function returns 100 (cudaErrorNoDevice; an error code
for the other libraries too), so CUDA reports no device.

usage: make_cuda_stubs.py TORCH_LIB_DIR OUT_DIR
"""
import os
import re
import subprocess
import sys

lib_dir, out_dir = sys.argv[1], sys.argv[2]
os.makedirs(out_dir, exist_ok=True)
torch_libs = [os.path.join(lib_dir, f) for f in sorted(os.listdir(lib_dir))
              if f.endswith(".so") and f != "libtorch_python.so"]
present = set(os.listdir(lib_dir))
system = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True).stdout
system_libs = set(re.findall(r"^\s*(\S+) \(", system, re.M))


def needed(path):
    out = subprocess.run(["readelf", "-d", "-W", path], capture_output=True, text=True).stdout
    return re.findall(r"\(NEEDED\)\s+Shared library: \[(.*)\]", out)


missing = set()
for lib in torch_libs:
    for n in needed(lib):
        if n not in present and n not in system_libs:
            missing.add(n)

# (file -> {version -> set(symbols)}), from each library's undefined symbols.
stubs = {m: {} for m in missing}
unversioned = set()
for lib in torch_libs:
    ver = subprocess.run(["readelf", "-V", "-W", lib], capture_output=True, text=True).stdout
    vfile = {}
    cur = None
    for line in ver.splitlines():
        m = re.search(r"File: (\S+)", line)
        if m:
            cur = m.group(1)
        m = re.search(r"Name: (\S+)\s+Flags", line)
        if m and cur:
            vfile[m.group(1)] = cur
    syms = subprocess.run(["readelf", "--dyn-syms", "-W", lib], capture_output=True, text=True).stdout
    for line in syms.splitlines():
        f = line.split()
        if len(f) < 8 or f[6] != "UND" or f[4] == "WEAK":
            continue
        name = f[7]
        if "@" in name:
            sym, v = name.split("@", 1)
            v = v.split(" ")[0].lstrip("@")
            file = vfile.get(v)
            if file in missing:
                stubs[file].setdefault(v, set()).add(sym)
        else:
            unversioned.add(name)

# Unversioned references that no present library defines go into a misc stub.
defined = set()
for lib in torch_libs + [p for p in
                         subprocess.run("ldconfig -p | awk '{print $NF}'", shell=True,
                                        capture_output=True, text=True).stdout.split()
                         if re.search(r"/lib(c|m|stdc\+\+|gcc_s|pthread|dl|rt)\.so", p)]:
    out = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True).stdout
    for line in out.splitlines():
        defined.add(line.split()[-1].split("@")[0])
misc = sorted(s for s in unversioned if s not in defined)


def build(soname, versions, plain):
    base = os.path.join(out_dir, soname)
    n = 0
    with open(base + ".c", "w") as c, open(base + ".map", "w") as m:
        for v, syms in sorted(versions.items()):
            m.write(v + " {\n  global:\n")
            for s in sorted(syms):
                c.write(f'int f{n}(void) __asm__("{s}");\nint f{n}(void) {{ return 100; }}\n')
                m.write(f"    {s};\n")
                n += 1
            m.write("};\n")
        for s in plain:
            c.write(f'int f{n}(void) __asm__("{s}");\nint f{n}(void) {{ return 100; }}\n')
            n += 1
        if not versions:
            m.write("{ global: *; };\n")
    subprocess.run(["cc", "-shared", "-fPIC", "-O0", "-o", base, base + ".c",
                    "-Wl,-soname," + soname, "-Wl,--version-script=" + base + ".map"], check=True)
    print(f"{soname}: {n} symbols")


for soname, versions in sorted(stubs.items()):
    build(soname, versions, [])
build("libdama_cuda_misc_stub.so", {}, misc)

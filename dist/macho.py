#!/usr/bin/env python3
"""Checks a macOS executable without a Mac: what nothing here can run is at least inspected.

    python3 dist/macho.py --arch arm64 --min-os 11.0 BINARY...

For each Mach-O file: it is a 64-bit executable of the architecture asked, position-independent,
its minimum macOS (LC_BUILD_VERSION, or LC_VERSION_MIN_MACOSX) is the one asked (what the
wheel's platform tag promises), with --signed it carries a code signature, and it loads only libraries every macOS has (/usr/lib/libSystem,
libc++, libiconv, libresolv, and the system frameworks), never one from a build machine's path.
Prints one line per file; exits non-zero on the first file that fails. Only the standard library.
"""

import argparse
import struct
import sys

MH_MAGIC_64 = 0xFEEDFACF
MH_EXECUTE = 0x2
MH_PIE = 0x200000
CPU = {"arm64": 0x0100000C, "x86_64": 0x01000007}
LC_LOAD_DYLIB = 0xC
LC_LOAD_WEAK_DYLIB = 0x80000018
LC_REEXPORT_DYLIB = 0x8000001F
LC_VERSION_MIN_MACOSX = 0x24
LC_BUILD_VERSION = 0x32
LC_CODE_SIGNATURE = 0x1D
# libcharset comes with libiconv (Rust's std links -liconv): both are in every macOS.
SYSTEM = (
    "/usr/lib/libSystem.B.dylib",
    "/usr/lib/libc++.1.dylib",
    "/usr/lib/libiconv.2.dylib",
    "/usr/lib/libcharset.1.dylib",
    "/usr/lib/libresolv.9.dylib",
)


def version(v):
    return f"{v >> 16}.{(v >> 8) & 0xFF}"


def inspect(path):
    with open(path, "rb") as f:
        data = f.read()
    magic, cputype, _sub, filetype, ncmds, _size, flags, _res = struct.unpack_from("<IiIIIIII", data, 0)
    if magic != MH_MAGIC_64:
        raise ValueError(f"not a 64-bit Mach-O file (magic {magic:#x})")
    arch = next((name for name, value in CPU.items() if value == cputype), f"cpu {cputype:#x}")
    dylibs, min_os, signed = [], None, False
    offset = 32
    for _ in range(ncmds):
        cmd, cmdsize = struct.unpack_from("<II", data, offset)
        if cmd in (LC_LOAD_DYLIB, LC_LOAD_WEAK_DYLIB, LC_REEXPORT_DYLIB):
            name_offset = struct.unpack_from("<I", data, offset + 8)[0]
            raw = data[offset + name_offset : offset + cmdsize]
            dylibs.append(raw.split(b"\0", 1)[0].decode())
        elif cmd == LC_BUILD_VERSION:
            _platform, minos = struct.unpack_from("<II", data, offset + 8)
            min_os = version(minos)
        elif cmd == LC_CODE_SIGNATURE:
            signed = True
        elif cmd == LC_VERSION_MIN_MACOSX:
            min_os = version(struct.unpack_from("<I", data, offset + 8)[0])
        offset += cmdsize
    return {"arch": arch, "executable": filetype == MH_EXECUTE, "pie": bool(flags & MH_PIE), "min_os": min_os,
            "dylibs": dylibs, "signed": signed}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arch", required=True, choices=sorted(CPU))
    parser.add_argument("--min-os", required=True)
    parser.add_argument("--signed", action="store_true", help="it must carry a code signature (LC_CODE_SIGNATURE)")
    parser.add_argument("binaries", nargs="+")
    args = parser.parse_args()
    for path in args.binaries:
        try:
            info = inspect(path)
        except (OSError, ValueError, struct.error) as error:
            print(f"FAIL {path}: {error}", file=sys.stderr)
            return 1
        problems = []
        if info["arch"] != args.arch:
            problems.append(f"architecture {info['arch']}, not {args.arch}")
        if not info["executable"] or not info["pie"]:
            problems.append("not a position-independent executable")
        if info["min_os"] != args.min_os:
            problems.append(f"minimum macOS {info['min_os']}, not {args.min_os}")
        foreign = [d for d in info["dylibs"] if d not in SYSTEM and not d.startswith("/System/Library/Frameworks/")]
        if foreign:
            problems.append(f"loads libraries macOS does not have: {foreign}")
        if args.signed and not info["signed"]:
            problems.append("no code signature")
        if problems:
            print(f"FAIL {path}: {'; '.join(problems)}", file=sys.stderr)
            return 1
        signature = ", code-signed" if info["signed"] else ""
        print(f"ok   {path}: {info['arch']}, macOS {info['min_os']}+{signature}, loads {', '.join(info['dylibs'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

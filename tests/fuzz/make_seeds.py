#!/usr/bin/env python3
"""Writes the tiny hand-made seed files of tests/fuzz/seeds/<format>/: a 2x1x1x1 lattice of unit
links (plaquette and link trace 1) in every variant each reader accepts, with correct checksums,
so that the fuzzers start from inputs that pass every check. Run from anywhere; rewrites the seeds."""
import os
import struct
import zlib

here = os.path.dirname(os.path.abspath(__file__))
dims = (2, 1, 1, 1)
volume = 2
unit = [1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0]  # re, im of a 3x3 identity, row-major


def words(rows, fmt):
    """The links, site by site, mu = 0..3, `rows` rows of complex pairs, packed with struct format fmt."""
    per_link = unit[: rows * 6]
    return b"".join(struct.pack(fmt, x) for _ in range(volume * 4) for x in per_link)


def rotl(x, r):
    return ((x << r) | (x >> (32 - r))) & 0xFFFFFFFF if r else x


def put(fmt, name, data):
    os.makedirs(os.path.join(here, "seeds", fmt), exist_ok=True)
    with open(os.path.join(here, "seeds", fmt, name), "wb") as f:
        f.write(data)


def nersc(datatype, fp, rows, fmt, order):
    data = words(rows, fmt)
    n = len(data) // 4
    checksum = sum(struct.unpack(order + "%dI" % n, data)) & 0xFFFFFFFF
    header = "BEGIN_HEADER\nHDR_VERSION = 1.0\nDATATYPE = %s\n" % datatype
    for mu in range(4):
        header += "DIMENSION_%d = %d\n" % (mu + 1, dims[mu])
    header += "LINK_TRACE = 1.0000000000\nPLAQUETTE = 1.0000000000\nCHECKSUM = %x\n" % checksum
    header += "FLOATING_POINT = %s\nEND_HEADER\n" % fp
    return header.encode() + data


put("nersc", "unit-3x3-ieee64big", nersc("4D_SU3_GAUGE_3x3", "IEEE64BIG", 3, ">d", ">"))
put("nersc", "unit-2row-ieee32little", nersc("4D_SU3_GAUGE", "IEEE32LITTLE", 2, "<f", "<"))
put("nersc", "unit-2row-ieee32big", nersc("4D_SU3_GAUGE", "IEEE32BIG", 2, ">f", ">"))


def milc(order):
    data = words(3, order + "f")
    n = len(data) // 4
    sum29 = sum31 = 0
    for i, w in enumerate(struct.unpack(order + "%dI" % n, data)):
        sum29 ^= rotl(w, i % 29)
        sum31 ^= rotl(w, i % 31)
    header = struct.pack(order + "i4i", 20103, *dims) + b"fuzz seed".ljust(64, b"\0")
    header += struct.pack(order + "iII", 0, sum29, sum31)
    assert len(header) == 96
    return header + data


put("milc", "unit-little", milc("<"))
put("milc", "unit-big", milc(">"))


def lime_record(rtype, data, flags):
    rec = struct.pack(">IHHQ", 0x456789AB, 1, flags, len(data)) + rtype.encode().ljust(128, b"\0") + data
    return rec + b"\0" * ((8 - len(data) % 8) % 8)


def ildg(precision, checksum=True):
    data = words(3, ">f" if precision == 32 else ">d")
    site_bytes = len(data) // volume
    suma = sumb = 0
    for site in range(volume):
        crc = zlib.crc32(data[site * site_bytes:(site + 1) * site_bytes])
        suma ^= rotl(crc, site % 29)
        sumb ^= rotl(crc, site % 31)
    fmt = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?><ildgFormat><version>1.0</version><field>su3gauge</field>"
           "<precision>%d</precision><lx>%d</lx><ly>%d</ly><lz>%d</lz><lt>%d</lt></ildgFormat>" % ((precision,) + dims))
    out = lime_record("ildg-format", fmt.encode(), 0x8000)
    out += lime_record("ildg-binary-data", data, 0 if checksum else 0x4000)
    if checksum:
        xml = "<scidacChecksum><version>1.0</version><suma>%x</suma><sumb>%x</sumb></scidacChecksum>" % (suma, sumb)
        out += lime_record("scidac-checksum", xml.encode(), 0x4000)
    return out


put("ildg", "unit-64", ildg(64))
put("ildg", "unit-32", ildg(32))
put("ildg", "unit-32-no-checksum", ildg(32, checksum=False))

"""The zip archive around a checkpoint: ``PyTorchStreamWriter`` and ``PyTorchStreamReader``.

Mirrors PyTorch's C++ ``caffe2/serialize/inline_container.cc``, which writes and reads the records
of a checkpoint (``data.pkl``, ``data/0`` ...) with the miniz zip library. The writer produces the
bytes miniz produces, record for record (all but 20 digits of the serialization id, see
``write_end_of_file``), so a file of ``glasstorch.save`` is laid out exactly as a file of
``torch.save``:

- Every record is stored (not compressed), in a folder named after the archive (``archive/`` or
  the file's name): ``archive/data.pkl``.
- A record's bytes start at a multiple of 64 bytes: its local header carries an "extra field" of
  padding (id ``FB``, filled with ``Z``) that pushes the data to the next boundary. PyTorch relies on
  it to map a file into memory (``torch.load(mmap=True)``) and view each storage in place.
- Headers are written before the data is known: flag bit 3 says "sizes and CRC-32 follow the data",
  in a 16-byte data descriptor (24 bytes when a size or an offset needs 64 bits; an empty record
  has neither the flag nor the descriptor).
- The end: the central directory (one entry per record), then zip64's end records and the classic
  end-of-central-directory record.

The reader is the other half, and the place where a damaged or hostile file is stopped. Python's
``zipfile`` parses the central directory; then every entry is checked before anything is read:
stored, not encrypted, named once, its local header present and agreeing with the directory, and
its bytes inside the file without overlapping another entry's. Only then are records read, each by
its exact name, with its size checked before memory is allocated and its CRC-32 checked after.
Names are only ever looked up, never used as paths on disk.
"""
from __future__ import annotations

import io
import struct
import zipfile
import zlib
from typing import IO, Any

import numpy as np

ALIGNMENT = 64  # PyTorch's kFieldAlignment: where each record's data starts
ZIP64_LIMIT = 0xFFFFFFFF  # miniz's MZ_UINT32_MAX: sizes and offsets from here on need zip64's 8 bytes
_UTF8 = 0x0800  # flag bit 11: names are UTF-8
_FLAGS = 0x0808  # and bit 3: CRC-32 and sizes follow the data, in a data descriptor
_LOCAL_HEADER = struct.Struct("<4sHHHHHIIIHH")  # signature, version, flags, method, time, date, crc, sizes, lengths
_CENTRAL_HEADER = struct.Struct("<4sHHHHHHIIIHHHHHII")


def _field32(value: int) -> int:
    """A size or offset in a 4-byte field: itself, or 0xFFFFFFFF for "see the zip64 field"."""
    return 0xFFFFFFFF if value >= ZIP64_LIMIT else value


def hash_combine(seed: int, value: int) -> int:
    """c10::hash_combine (boost's), on 64-bit unsigned integers."""
    mask = 2**64 - 1
    return (seed ^ ((value + 0x9E3779B9 + (seed << 6) + (seed >> 2)) & mask)) & mask


class PyTorchStreamWriter:
    """Writes records one after the other to ``file``, which is never asked to seek (a pipe will do)."""

    def __init__(self, file: IO[bytes], archive_name: str) -> None:
        self.file = file
        self.prefix = archive_name + "/"
        self.offset = 0  # bytes written so far: the offset of the next local header
        self.central_directory: list[bytes] = []
        self.names: list[str] = []
        self.combined_crc32 = 0  # every record's CRC-32, combined: the second half of the serialization id

    def write_record(self, name: str, data: Any) -> None:
        """Write one record: local header (with the padding), the data, the data descriptor."""
        if name in self.names:
            raise RuntimeError(f"Tried to serialize file twice: {name}")
        full_name = (self.prefix + name).encode("utf-8")
        size = memoryview(data).nbytes
        offset = self.offset
        zip64_fields = (struct.pack("<QQ", size, size) if size >= ZIP64_LIMIT else b"") + (
            struct.pack("<Q", offset) if offset >= ZIP64_LIMIT else b"")
        zip64_extra = struct.pack("<HH", 0x0001, len(zip64_fields)) + zip64_fields if zip64_fields else b""
        # the data would start here with an empty padding field (its 4-byte header included) ...
        start = offset + _LOCAL_HEADER.size + len(full_name) + len(zip64_extra) + 4
        padding = -start % ALIGNMENT  # ... and the padding moves it to the next multiple of 64
        extra = zip64_extra + b"FB" + struct.pack("<H", padding) + b"Z" * padding
        crc = zlib.crc32(data)
        # An empty record has nothing to follow: miniz writes it with neither bit 3 nor a descriptor.
        flags = _FLAGS if size else _UTF8
        # version 0, method 0 (stored), time and date 0, CRC-32 and sizes 0: they come after the data
        self._write(_LOCAL_HEADER.pack(b"PK\x03\x04", 0, flags, 0, 0, 0, 0, 0, 0, len(full_name), len(extra)))
        self._write(full_name + extra)
        if size:
            self._write(data)
            self._write(struct.pack("<4sIQQ" if zip64_fields else "<4sIII", b"PK\x07\x08", crc, size, size))
            self.combined_crc32 = hash_combine(self.combined_crc32, crc)  # (PyTorch combines each descriptor's)
        central_fields = (struct.pack("<QQ", size, size) if size >= ZIP64_LIMIT else b"") + (
            struct.pack("<Q", offset) if offset >= ZIP64_LIMIT else b"")
        central_extra = struct.pack("<HH", 0x0001, len(central_fields)) + central_fields if central_fields else b""
        self.central_directory.append(_CENTRAL_HEADER.pack(
            b"PK\x01\x02", 0, 0, flags, 0, 0, 0, crc, _field32(size), _field32(size),
            len(full_name), len(central_extra), 0, 0, 0, 0, _field32(offset)) + full_name + central_extra)
        self.names.append(name)

    def write_end_of_file(self) -> None:
        """The serialization id record, the central directory, and the end records."""
        # PyTorch's id: 20 digits from the record names, 20 from the records' CRC-32s. PyTorch hashes
        # the names with C++'s std::hash, in the order of an unordered_set; glasstorch combines their
        # CRC-32s in sorted order, so those 20 digits differ. Nothing reads the id but PyTorch's usage
        # logging (torch.load logs it); the second 20 digits are PyTorch's.
        names_hash = 0
        for name in sorted(self.names):
            names_hash = hash_combine(names_hash, zlib.crc32(name.encode("utf-8")))
        self.write_record(".data/serialization_id", f"{names_hash:020d}{self.combined_crc32:020d}".encode("ascii"))
        directory = b"".join(self.central_directory)
        count, directory_offset = len(self.central_directory), self.offset
        self._write(directory)
        end_of_directory = self.offset
        self._write(struct.pack("<4sQHHIIQQQQ", b"PK\x06\x06", 44, 0x031E, 0x002D, 0, 0, count, count,
                                len(directory), directory_offset))  # zip64's end of central directory
        self._write(struct.pack("<4sIQI", b"PK\x06\x07", 0, end_of_directory, 1))  # where to find it
        self._write(struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, min(count, 0xFFFF), min(count, 0xFFFF),
                                _field32(len(directory)), _field32(directory_offset), 0))

    def _write(self, data: Any) -> None:
        view = memoryview(data).cast("B")
        while view:  # a raw stream may take part of it; PyTorch's writer assumes all (as does None here)
            written = self.file.write(view)
            if written is None or written >= len(view):
                break
            view = view[written:]
        self.offset += memoryview(data).nbytes


# What zipfile and a file object raise on a damaged archive: truncation, flipped bytes and hostile
# headers surface as any of these, and the reader turns each into one RuntimeError.
ARCHIVE_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError, ValueError, NotImplementedError,
                  struct.error, OverflowError, UnicodeDecodeError)


class FileProblem(RuntimeError):
    """What is wrong with a whole file, phrased to follow its name ("is damaged ..."): ``load``
    puts the name in front."""


class PyTorchStreamReader:
    """Opens ``file`` (seekable, the archive starting at offset 0) and checks every entry."""

    def __init__(self, file: IO[bytes]) -> None:
        self.file = file
        try:
            self.records = self._check_entries()
        except ARCHIVE_ERRORS as error:
            raise FileProblem(
                f"is damaged (truncated or corrupted): PytorchStreamReader failed reading zip archive: {error}. "
                "Save the checkpoint again, or use an intact copy."
            ) from error

    def _check_entries(self) -> dict[str, tuple[int, int, int]]:
        file_size = self.file.seek(0, io.SEEK_END)
        try:
            archive = zipfile.ZipFile(self.file)
        except ARCHIVE_ERRORS:
            raise zipfile.BadZipFile("failed finding central directory") from None
        infos = archive.infolist()
        if not infos:
            raise zipfile.BadZipFile("archive does not contain any files")
        # All records live in one folder, named by the first entry (as PyTorch's reader finds it).
        first = infos[0].filename
        if "/" not in first:
            raise zipfile.BadZipFile(f"file in archive is not in a subdirectory: {first[:100]!r}")
        self.prefix = first[:first.index("/") + 1]
        if self.prefix in ("/", "./", "../"):
            raise zipfile.BadZipFile(f"the archive's folder is named {self.prefix!r}")
        records: dict[str, tuple[int, int, int]] = {}  # full name -> (data offset, size, CRC-32)
        spans = []
        for info in infos:
            name = info.filename
            if name in records:
                raise zipfile.BadZipFile(f"the entry {name[:100]!r} appears twice")
            if info.flag_bits & 0x1:
                raise zipfile.BadZipFile(f"the entry {name[:100]!r} is encrypted")
            if info.compress_type != zipfile.ZIP_STORED:
                raise zipfile.BadZipFile(f"the entry {name[:100]!r} is compressed, and torch.save never compresses")
            start = self._data_offset(info)
            spans.append((info.header_offset, start + info.file_size, name))
            records[name] = (start, info.file_size, info.CRC)
        # Each entry's bytes (local header and data) inside the file, before the central directory,
        # and apart from every other entry's: entries that overlap or share bytes are refused.
        end_of_previous, previous = 0, None
        for start, end, name in sorted(spans):
            if start < end_of_previous:
                raise zipfile.BadZipFile(f"the entries {previous[:100]!r} and {name[:100]!r} overlap")
            end_of_previous, previous = end, name
        if end_of_previous > min(archive.start_dir, file_size):
            raise zipfile.BadZipFile(f"the entry {previous[:100]!r} runs past the end of the data")
        return records

    def _data_offset(self, info: zipfile.ZipInfo) -> int:
        """Where the entry's data starts, from its local header, which must agree with the directory."""
        if info.header_offset < 0:
            raise zipfile.BadZipFile(f"the entry {info.filename[:100]!r} has a negative offset")
        self.file.seek(info.header_offset)
        header = self.file.read(_LOCAL_HEADER.size)
        if len(header) != _LOCAL_HEADER.size:
            raise EOFError(f"the local header of {info.filename[:100]!r} is cut off")
        signature, _, flags, _, _, _, _, _, _, name_length, extra_length = _LOCAL_HEADER.unpack(header)
        if signature != b"PK\x03\x04":
            raise zipfile.BadZipFile(f"bad magic number for the entry {info.filename[:100]!r}")
        raw_name = self.file.read(name_length)
        if raw_name.decode("utf-8" if flags & 0x800 else "cp437", errors="replace") != info.orig_filename:
            raise zipfile.BadZipFile(f"file name in directory {info.orig_filename[:100]!r} and header differ")
        return info.header_offset + _LOCAL_HEADER.size + name_length + extra_length

    def has_record(self, name: str) -> bool:
        return self.prefix + name in self.records

    def get_record(self, name: str) -> bytes:
        """The record's bytes (its size is known to fit in the file, its CRC-32 is checked)."""
        start, size, crc = self._locate(name)
        data = self._read_at(start, size, name)
        self._check_crc(zlib.crc32(data), crc, name)
        return data

    def get_record_as_array(self, name: str, nbytes: int) -> np.ndarray:
        """The record's bytes in a new numpy array of uint8, after checking that the record holds
        exactly ``nbytes`` (what the tensors need): nothing is allocated for a size the file lacks."""
        start, size, crc = self._locate(name)
        if size != nbytes:
            raise FileProblem(
                f"is damaged: record size {size} mismatch with dst size {nbytes} for {self.prefix + name!r}")
        array = np.empty(nbytes, dtype=np.uint8)
        view = memoryview(array)
        self.file.seek(start)
        filled = 0
        while filled < nbytes:
            count = self.file.readinto(view[filled:])
            if not count:
                raise FileProblem(f"is damaged (truncated): the record {self.prefix + name!r} is cut off")
            filled += count
        self._check_crc(zlib.crc32(view), crc, name)
        return array

    def _locate(self, name: str) -> tuple[int, int, int]:
        try:
            return self.records[self.prefix + name]
        except KeyError:
            raise FileProblem(f"is damaged or not a checkpoint: file not found: {self.prefix + name}") from None

    def _read_at(self, start: int, size: int, name: str) -> bytes:
        self.file.seek(start)
        data = self.file.read(size)
        if len(data) != size:
            raise FileProblem(f"is damaged (truncated): the record {self.prefix + name!r} is cut off")
        return data

    def _check_crc(self, got: int, want: int, name: str) -> None:
        if got != want:
            raise FileProblem(
                f"is damaged (corrupted): the CRC-32 of the record {self.prefix + name!r} does not match its "
                "contents. Save the checkpoint again, or use an intact copy."
            )

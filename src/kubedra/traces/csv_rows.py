"""Reading a CSV file into checked rows: every problem names the file, the line and the column.

The Alibaba trace files are plain CSV with a header line; a row's line number is the line of
the file it ends on (the header is line 1), so that a reader can open the file there.
"""

from __future__ import annotations

import csv
import io
import re
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kubedra.traces.errors import TraceInputError

MAX_FIELD_CHARS = 4096
"""No field of these traces is longer than a name or a list of GPU models; a longer one is
a sign of a wrong file (csv's own limit, 128 KiB, would accept it)."""

MAX_FILE_BYTES = 1024 * 2**20
"""The release's largest CSV is under 1 MiB; a file beyond 1 GiB is not a trace of this kind
(and would not fit in memory as objects)."""

_WHOLE = re.compile(r"-?[0-9]{1,18}")
"""An integer that fits in 64 bits (the sign is checked separately, for its own message)."""


@dataclass(frozen=True)
class CsvRow:
    """One data row: its values by column, where it came from, and checked accessors."""

    source: str
    line: int
    values: dict[str, str]
    label: str = ""
    """A name for messages (the row's ``name`` or ``sn``), shown after the line number."""

    def where(self, column: str) -> str:
        named = f" ({self.label})" if self.label else ""
        return f"{self.source}: line {self.line}{named}, column {column}"

    def error(self, column: str, reason: str) -> TraceInputError:
        return TraceInputError(f"{self.where(column)}: {reason}")

    def text(self, column: str) -> str:
        return self.values[column].strip()

    def whole(self, column: str) -> int:
        """A whole number of at least zero; an empty or other value is an error."""
        value = self.whole_or_none(column)
        if value is None:
            raise self.error(column, "required (empty)")
        return value

    def whole_or_none(self, column: str) -> int | None:
        """A whole number of at least zero, or None for an empty field."""
        text = self.text(column)
        if not text:
            return None
        if not _WHOLE.fullmatch(text):
            raise self.error(column, f"not a whole number: {text!r}")
        value = int(text)
        if value < 0:
            raise self.error(column, f"must not be negative: {value}")
        return value


def read_rows(path: Path, columns: Sequence[str], label_column: str) -> list[CsvRow]:
    """The data rows of ``path``, which must have at least ``columns`` in its header (others
    are ignored); raises :class:`TraceInputError` naming the file, line and column."""
    source = str(path)
    try:
        mode = path.stat().st_mode
        if stat.S_ISDIR(mode):
            raise TraceInputError(f"{source}: is a directory, not a CSV file")
        if not stat.S_ISREG(mode):  # a FIFO or a device could block or never end
            raise TraceInputError(f"{source}: not a regular file: refusing to read it")
        with path.open("rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError as error:
        raise TraceInputError(f"{source}: cannot read: {error.strerror or error}") from None
    if len(data) > MAX_FILE_BYTES:
        raise TraceInputError(f"{source}: larger than {MAX_FILE_BYTES} bytes: not read")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise TraceInputError(
            f"{source}: line {line}: not UTF-8 text (byte {error.start})"
        ) from None
    return _rows(csv.reader(io.StringIO(text, newline="")), source, columns, label_column)


def _rows(reader: Any, source: str, columns: Sequence[str], label_column: str) -> list[CsvRow]:
    try:
        header = next(reader, None)
        if header is None:
            raise TraceInputError(f"{source}: empty file (expected a header line)")
        header = [name.strip().lstrip("\ufeff") for name in header]
        missing = [column for column in columns if column not in header]
        if missing:
            raise TraceInputError(
                f"{source}: line 1: missing column(s) {', '.join(missing)} "
                f"(the header has {', '.join(header) or 'nothing'})"
            )
        rows: list[CsvRow] = []
        for fields in reader:
            if not fields or fields == [""]:
                continue  # blank lines, as at the end of many files
            line = reader.line_num
            if len(fields) != len(header):
                raise TraceInputError(
                    f"{source}: line {line}: {len(fields)} fields where the header has "
                    f"{len(header)}"
                )
            for column, value in zip(header, fields, strict=True):
                if len(value) > MAX_FIELD_CHARS:
                    raise TraceInputError(
                        f"{source}: line {line}, column {column}: longer than "
                        f"{MAX_FIELD_CHARS} characters"
                    )
            values = dict(zip(header, fields, strict=True))
            rows.append(CsvRow(source, line, values, _label(values[label_column])))
        return rows
    except csv.Error as error:
        raise TraceInputError(f"{source}: line {reader.line_num}: CSV error: {error}") from None


def _label(value: str) -> str:
    """A row's name as messages show it: on one line, at most 80 characters."""
    value = value.strip()[:80]
    return value if value.isprintable() else ascii(value)

"""Hide IPython-only syntax from the Python parser, keeping line numbers.

A cell may contain ``%magic`` / ``!shell`` lines, ``x = !ls``, ``obj?`` help
requests or a leading ``%%cell_magic`` line.  Each such line is replaced by a
placeholder statement on the *same line* (``pass  # msnb-masked:N``), so
every finding's line number is still right for the original cell, and
``unmask`` puts the original text back after a rewrite (the marker carries
the original line index, so it survives rewrites that add or drop lines).

Masking only happens when the cell does not parse as Python, so a ``%``
that is the modulo operator on a continuation line is never touched.
"""

from __future__ import annotations

import re

__all__ = ["mask", "unmask", "cell_magic", "PYTHON_CELL_MAGICS", "MARKER"]

MARKER = "msnb-masked"
_MARK_RE = re.compile(r"#\s*" + MARKER + r":(\d+)\s*$")
_ASSIGN_MAGIC = re.compile(r"^(\s*)([A-Za-z_][\w.,\s]*?)\s*=\s*[!%]")
_HELP = re.compile(r"^\s*[\w.\[\]()'\"*]+\?\??\s*$|^\s*\?\??[\w.*]+\s*$")  # ``torch.*Tensor?`` too

#: Cell magics whose body is Python that msnb should analyze.
PYTHON_CELL_MAGICS = frozenset(
    {"torch_on_ascend", "time", "timeit", "capture", "prun", "debug", "ms_graph"}
)


def cell_magic(source: str) -> str | None:
    """Name of the leading ``%%magic`` of a cell, or None."""
    stripped = source.lstrip()
    if not stripped.startswith("%%"):
        return None
    first = stripped.splitlines()[0][2:].strip()
    return first.split()[0] if first else ""


def _is_ipython_line(line: str) -> bool:
    s = line.lstrip()
    return bool(s) and (s[0] in "%!" or bool(_HELP.match(line)) or bool(_ASSIGN_MAGIC.match(line)))


_LINE = re.compile(r"([^\r\n]*)(\r\n|\r|\n|$)")


def _split(source: str) -> tuple[list[str], list[str]]:
    """Line texts and their endings (``\n``, ``\r\n``, ``\r`` or ``""``)."""
    texts, ends = [], []
    for m in _LINE.finditer(source):
        if m.start() == len(source) and texts and not m.group(0):
            break
        texts.append(m.group(1))
        ends.append(m.group(2))
    return texts, ends


def mask(source: str) -> tuple[str, dict[int, str]]:
    """Return ``(masked_source, originals)``; ``originals`` maps 0-based line
    index to the original text of each masked line.  Line endings are kept."""
    lines, ends = _split(source)
    originals: dict[int, str] = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        if _is_ipython_line(line):
            indent = line[: len(line) - len(line.lstrip())]
            m = _ASSIGN_MAGIC.match(line)
            stmt = f"{m.group(2).strip()} = None" if m else "pass"
            j = i
            while True:  # backslash continuations belong to the same magic
                originals[j] = lines[j]
                lines[j] = f"{indent}{stmt}  # {MARKER}:{j}" if j == i else f"{indent}pass  # {MARKER}:{j}"
                if not originals[j].endswith("\\") or j + 1 >= len(lines):
                    break
                j += 1
            i = j
        i += 1
    return "".join(t + e for t, e in zip(lines, ends)), originals


def unmask(source: str, originals: dict[int, str]) -> str:
    """Undo :func:`mask` on (possibly rewritten) masked source."""
    if not originals:
        return source
    out = []
    for line, end in zip(*_split(source)):
        m = _MARK_RE.search(line)
        if m and int(m.group(1)) in originals:
            out.append(originals[int(m.group(1))] + end)
        else:
            out.append(line + end)
    return "".join(out)

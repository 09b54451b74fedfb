"""``Compare``: measurements laid out as a table (rows: sub-labels per thread
count, columns: descriptions, one table per label), as PyTorch prints it."""

from __future__ import annotations

import enum

from .common import Measurement, select_unit, trim_sigfig, unit_to_english

__all__ = ["Compare", "Colorize"]

_BEST = "\033[92m\033[1m"
_GOOD = "\033[34m\033[1m"
_BAD = "\033[2m\033[91m"
_END = "\033[0m\033[0m"


class Colorize(enum.Enum):
    NONE = "none"
    COLUMNWISE = "columnwise"
    ROWWISE = "rowwise"


class Compare:
    """msnb implementation of ``torch.utils.benchmark.Compare``."""

    def __init__(self, results):
        self._results = []
        self.extend_results(results)
        self._trim = False
        self._colorize = Colorize.NONE
        self._highlight_warnings = False

    def extend_results(self, results):
        for r in results:
            if not isinstance(r, Measurement):
                raise ValueError(f"Expected an instance of `Measurement`, got {type(r)} instead.")
        self._results.extend(results)

    def trim_significant_figures(self):
        self._trim = True

    def colorize(self, rowwise=False):
        self._colorize = Colorize.ROWWISE if rowwise else Colorize.COLUMNWISE

    def highlight_warnings(self):
        self._highlight_warnings = True

    def print(self):
        print(str(self))

    def __str__(self):
        return "\n".join(self._render(label, ms) for label, ms in self._by_label().items())

    def _by_label(self):
        groups = {}
        for m in Measurement.merge(self._results):
            groups.setdefault(m.task_spec.label, []).append(m)
        return groups

    def _render(self, label, ms):
        cols = list(dict.fromkeys(m.task_spec.description for m in ms))
        threads = sorted({m.task_spec.num_threads for m in ms})
        unit, scale = select_unit(min(m.median for m in ms))
        cell = {}
        for m in ms:
            s = m.task_spec
            cell[(s.num_threads, s.sub_label, s.description)] = m

        def value(m):
            v = m.median / scale
            if self._trim:
                v = trim_sigfig(v, m.significant_figures)
                text = f"{v:.{max(0, m.significant_figures - len(str(int(v))))}f}" if v >= 1 else f"{v}"
            else:
                text = f"{v:.1f}"
            if self._highlight_warnings and m.has_warnings:
                text += f" (! {100 * m.iqr / m.median:.0f}%)"
            return text

        rows = []
        for t in threads:
            subs = list(dict.fromkeys(m.task_spec.sub_label for m in ms if m.task_spec.num_threads == t))
            rows.append((t, [(sub, [cell.get((t, sub, c)) for c in cols]) for sub in subs]))
        texts = {id(m): value(m) for m in ms}
        label_w = max([len(str(sub or "")) for _, rs in rows for sub, _ in rs] + [1])
        col_w = [max([len(str(c or ""))] + [len(texts[id(m)]) for m in ms if m.task_spec.description == c]) + 4
                 for c in cols]
        # every column is padded by two on both sides; the line then drops the last column's right padding
        header = " " * (label_w + 8) + "|" + "|".join(str(c or "").center(w) for c, w in zip(cols, col_w))
        header = header[:-2]
        width = len(header)
        title = f" {label} " if label else ""
        out = ["[" + title.center(width - 2, "-") + "]", header]
        for t, rs in rows:
            lead = f"{t} threads: "
            out.append(lead + "-" * max(width - len(lead), 0))
            for sub, cells in rs:
                best = self._best(cells)
                parts = []
                for m, w in zip(cells, col_w):
                    text = texts[id(m)] if m is not None else ""
                    padded = text.center(w)
                    if m is not None and self._colorize is not Colorize.NONE:
                        color = _BEST if m.median == best.get(id(m), (None,))[0] else ""
                        padded = padded.replace(text, f"{color}{text}{_END}") if color else padded
                    parts.append(padded)
                out.append((f"      {str(sub or ''):<{label_w}}  |" + "|".join(parts))[:-2])
        out += ["", f"Times are in {unit_to_english(unit)}s ({unit}).", ""]
        return "\n".join(out)

    def _best(self, cells):
        """The fastest median each cell is compared with (its row, or its column)."""
        if self._colorize is Colorize.ROWWISE:
            present = [m for m in cells if m is not None]
            best = min(m.median for m in present) if present else None
            return {id(m): (best,) for m in present}
        out = {}
        for m in cells:
            if m is None:
                continue
            same_col = [r for r in self._results_in_label(m) if r.task_spec.description == m.task_spec.description
                        and r.task_spec.num_threads == m.task_spec.num_threads]
            out[id(m)] = (min(r.median for r in same_col),)
        return out

    def _results_in_label(self, m):
        return [r for r in Measurement.merge(self._results) if r.task_spec.label == m.task_spec.label]

"""The restricted unpickler behind ``torch.load(weights_only=True)``.

It interprets pickle opcodes itself (never ``pickle.Unpickler``), so every
step that could run code or change an object is checked here:

* ``GLOBAL`` resolves only the allow-list (tensor rebuilders, storage types,
  dtypes, ``torch.Size``, ``torch.device``, ``OrderedDict``, ``Counter``,
  ``set``, ``complex``, ``bytearray``, ``_codecs.encode``) and what the user
  marked safe with ``torch.serialization.add_safe_globals``; modules ``os``,
  ``sys``, ``posix``, ``nt`` never resolve.
* ``REDUCE`` / ``NEWOBJ`` call only allow-listed callables; ``list``,
  ``range``, ``dict`` ... are not callables here (a pickle builds those with
  its own opcodes).
* ``BUILD`` (state setting) only applies to ``OrderedDict`` / ``Counter``
  instances and to instances of user-allowed classes, never to a class or a
  function: a file cannot change ``torch.Size`` or any other type.
* ``APPEND*`` only extends lists, ``SETITEM*`` only fills dicts.

Every refusal is a ``pickle.UnpicklingError`` naming the opcode or global;
a pickle cut short is reported as truncated.  Reading is bounded by the
pickle's own bytes (no opcode allocates more than the file declares and
holds).
"""

from __future__ import annotations

import _compat_pickle

import _codecs
import collections
import struct
from pickle import UnpicklingError

__all__ = ["WeightsUnpickler", "add_safe_globals", "get_safe_globals", "clear_safe_globals",
           "remove_safe_globals", "user_globals", "BLOCKED_MODULES"]

BLOCKED_MODULES = frozenset({"sys", "os", "posix", "nt"})
_MAX_SIZE_DIMS = 1024  # torch.Size built from a file: longer than any tensor's shape

_user_safe: set = set()


def add_safe_globals(items):
    global _user_safe
    _user_safe = _user_safe | set(items)


def remove_safe_globals(items):
    global _user_safe
    _user_safe = _user_safe - set(items)


def get_safe_globals():
    return list(_user_safe)


def clear_safe_globals():
    global _user_safe
    _user_safe = set()


def user_globals():
    """``{'module.qualname': object}`` of the user's safe globals (checked as PyTorch checks them)."""
    out = {}
    for item in _user_safe:
        if isinstance(item, tuple):
            if len(item) != 2:
                raise ValueError(f"Expected tuple of length 2 (global, str of callable full path), but got "
                                 f"tuple of length: {len(item)}")
            if type(item[1]) is not str:
                raise TypeError(f"Expected second item in tuple to be str of callable full path, but got: "
                                f"{type(item[1])}")
            out[item[1]] = item[0]
        else:
            out[f"{item.__module__}.{item.__qualname__}"] = item
    return out


def _bytearray(*args):
    if not args or not all(isinstance(a, (str, bytes, bytearray)) for a in args):
        raise UnpicklingError("bytearray() in a weights-only file takes bytes or a string, not a length")
    return bytearray(*args)


def _encode(obj, encoding="utf-8", errors="strict"):
    if not isinstance(obj, str) or encoding not in ("latin1", "latin-1", "utf-8", "utf8", "ascii"):
        raise UnpicklingError("_codecs.encode in a weights-only file only encodes a string as latin1/utf-8")
    return _codecs.encode(obj, encoding, errors)


def _size(dims=()):
    from ._tensor import Size
    if not isinstance(dims, (tuple, list)) or len(dims) > _MAX_SIZE_DIMS or not all(
            type(d) is int for d in dims):
        raise UnpicklingError(f"torch.Size in the file is not a short sequence of ints (got "
                              f"{type(dims).__name__} of length {len(dims) if hasattr(dims, '__len__') else '?'})")
    return Size(dims)


def _device(*args):
    from ._device import device
    if not all(isinstance(a, (str, int)) and (not isinstance(a, str) or len(a) < 64) for a in args):
        raise UnpicklingError("torch.device in the file is not a device name")
    return device(*args)


# what a built-in global name resolves to, and whether REDUCE/NEWOBJ may call it
_BUILTIN_CALLABLES = {
    "collections.OrderedDict": collections.OrderedDict,
    "collections.Counter": collections.Counter,
    "builtins.set": set,
    "builtins.complex": complex,
    "builtins.bytearray": _bytearray,
    "_codecs.encode": _encode,
    "torch.Size": _size,
    "torch.device": _device,
}
_BUILDABLE = (collections.OrderedDict, collections.Counter)


class _Mark:
    pass


class WeightsUnpickler:
    """Unpickle ``data`` (bytes) allowing only weights.

    ``torch_global(module, name)`` returns msnb's object for an allowed
    ``torch.*`` name and whether it is callable from the file (or None);
    ``persistent_load(pid)`` turns a storage id into a storage."""

    def __init__(self, data, torch_global, persistent_load, encoding="utf-8"):
        self._data = memoryview(data)
        self._pos = 0
        self._torch_global = torch_global
        self._persistent_load = persistent_load
        self._encoding = encoding
        self._user = user_globals()
        self._user_values = list(self._user.values())
        self._callables = []  # objects GLOBAL produced that REDUCE may call

    # --- reading ---------------------------------------------------------
    def _read(self, n):
        end = self._pos + n
        if n < 0 or end > len(self._data):
            raise UnpicklingError("the pickle (data.pkl) is truncated: it ends in the middle of an opcode")
        out = self._data[self._pos:end]
        self._pos = end
        return out.tobytes()

    def _line(self):
        data = self._data
        for i in range(self._pos, min(len(data), self._pos + 512)):
            if data[i] == 0x0A:
                out = data[self._pos:i].tobytes()
                self._pos = i + 1
                return out.decode("utf-8", "strict")
        raise UnpicklingError("the pickle (data.pkl) has a GLOBAL name that is truncated or too long")

    # --- globals ---------------------------------------------------------
    def _is_user(self, obj):
        return any(obj is v for v in self._user_values)

    def _is_callable(self, obj):
        return any(obj is c for c in self._callables) or self._is_user(obj)

    def _global(self, module, name):
        full = f"{module}.{name}"
        if module.split(".")[0] in BLOCKED_MODULES:
            raise UnpicklingError(f"Trying to load unsupported GLOBAL {full} whose module {module} is blocked.")
        obj = _BUILTIN_CALLABLES.get(full)
        if obj is not None:
            self._callables.append(obj)
            return obj
        if module == "torch" or module.startswith("torch."):
            got = self._torch_global(module, name)
            if got is not None:
                obj, callable_ = got
                if callable_:
                    self._callables.append(obj)
                return obj
        if full in self._user:
            return self._user[full]
        shown = name if module == "builtins" else full
        raise UnpicklingError(
            f"Unsupported global: GLOBAL {shown} was not an allowed global by default. Please use "
            f"`torch.serialization.add_safe_globals([{shown}])` or the "
            f"`torch.serialization.safe_globals([{shown}])` context manager to allowlist this global if you "
            "trust this class/function.")

    # --- the opcode loop -------------------------------------------------
    def load(self):
        stack, marks, memo = [], [], {}
        read, push = self._read, stack.append

        def pop_mark():
            if not marks:
                raise UnpicklingError("the pickle (data.pkl) is corrupt: no MARK before a collection opcode")
            items = stack[marks[-1] + 1:]
            del stack[marks.pop():]
            return items

        def top(op):
            if not stack:
                raise UnpicklingError(f"the pickle (data.pkl) is corrupt: {op} on an empty stack")
            return stack[-1]

        def pop(op):
            if not stack or stack[-1] is _MARK:
                raise UnpicklingError(f"the pickle (data.pkl) is corrupt: {op} on an empty stack")
            return stack.pop()

        while True:
            if self._pos >= len(self._data):
                raise UnpicklingError("the pickle (data.pkl) is truncated: it ends before its STOP opcode")
            key = self._data[self._pos]
            self._pos += 1
            if key == 0x80:  # PROTO
                if read(1)[0] > 5:
                    raise UnpicklingError("the pickle (data.pkl) declares an unknown protocol")
            elif key == 0x95:  # FRAME
                read(8)
            elif key == 0x2E:  # STOP
                return pop("STOP")
            elif key == 0x63:  # GLOBAL
                module = self._line()
                name = self._line()
                # protocol 2 (torch.save's) writes Python 2 names (``__builtin__ set``): map them, as PyTorch does
                if (module, name) in _compat_pickle.NAME_MAPPING:
                    module, name = _compat_pickle.NAME_MAPPING[(module, name)]
                elif module in _compat_pickle.IMPORT_MAPPING:
                    module = _compat_pickle.IMPORT_MAPPING[module]
                push(self._global(module, name))
            elif key == 0x93:  # STACK_GLOBAL
                name, module = pop("STACK_GLOBAL"), pop("STACK_GLOBAL")
                if type(name) is not str or type(module) is not str:
                    raise UnpicklingError("STACK_GLOBAL needs two strings")
                push(self._global(module, name))
            elif key == 0x81:  # NEWOBJ
                args, cls = pop("NEWOBJ"), pop("NEWOBJ")
                if type(args) is not tuple:
                    raise UnpicklingError("NEWOBJ needs a tuple of arguments")
                if cls in _BUILDABLE or cls is set:
                    push(cls(*args))
                elif isinstance(cls, type) and self._is_user(cls):
                    push(cls.__new__(cls, *args))
                else:
                    raise UnpicklingError("Can only create new object for classes allowlisted via "
                                          f"`add_safe_globals` but got {cls!r}")
            elif key == 0x52:  # REDUCE
                args, func = pop("REDUCE"), pop("REDUCE")
                if type(args) is not tuple:
                    raise UnpicklingError("REDUCE needs a tuple of arguments")
                if not self._is_callable(func):
                    raise UnpicklingError(f"Trying to call reduce for unrecognized function {func!r}")
                push(func(*args))
            elif key == 0x62:  # BUILD
                state = pop("BUILD")
                inst = top("BUILD")
                self._build(inst, state)
            elif key == 0x61:  # APPEND
                item = pop("APPEND")
                lst = top("APPEND")
                if type(lst) is not list:
                    raise UnpicklingError(f"Can only append to lists, but got {type(lst)}")
                lst.append(item)
            elif key == 0x65:  # APPENDS
                items = pop_mark()
                _extend(top("APPENDS"), list, items, "extend lists")
            elif key == 0x73:  # SETITEM
                value, k = pop("SETITEM"), pop("SETITEM")
                self._setitems(top("SETITEM"), [k, value], "SETITEM")
            elif key == 0x75:  # SETITEMS
                items = pop_mark()
                self._setitems(top("SETITEMS"), items, "SETITEMS")
            elif key == 0x90:  # ADDITEMS
                items = pop_mark()
                _extend(top("ADDITEMS"), set, items, "add items to sets")
            elif key == 0x91:  # FROZENSET
                push(frozenset(pop_mark()))
            elif key == 0x28:  # MARK
                marks.append(len(stack))
                push(_MARK)
            elif key == 0x74:  # TUPLE
                push(tuple(pop_mark()))
            elif key == 0x85:  # TUPLE1
                push((pop("TUPLE1"),))
            elif key == 0x86:  # TUPLE2
                b, a = pop("TUPLE2"), pop("TUPLE2")
                push((a, b))
            elif key == 0x87:  # TUPLE3
                c, b, a = pop("TUPLE3"), pop("TUPLE3"), pop("TUPLE3")
                push((a, b, c))
            elif key == 0x29:
                push(())
            elif key == 0x5D:
                push([])
            elif key == 0x7D:
                push({})
            elif key == 0x8F:  # EMPTY_SET
                push(set())
            elif key == 0x6C:  # LIST
                push(pop_mark())
            elif key == 0x4E:
                push(None)
            elif key == 0x88:
                push(True)
            elif key == 0x89:
                push(False)
            elif key == 0x4A:  # BININT
                push(struct.unpack("<i", read(4))[0])
            elif key == 0x4B:  # BININT1
                push(read(1)[0])
            elif key == 0x4D:  # BININT2
                push(struct.unpack("<H", read(2))[0])
            elif key == 0x8A:  # LONG1
                n = read(1)[0]
                push(int.from_bytes(read(n), "little", signed=True))
            elif key == 0x47:  # BINFLOAT
                push(struct.unpack(">d", read(8))[0])
            elif key == 0x58:  # BINUNICODE
                push(self._text(read(struct.unpack("<I", read(4))[0])))
            elif key == 0x8C:  # SHORT_BINUNICODE
                push(self._text(read(read(1)[0])))
            elif key == 0x8D:  # BINUNICODE8
                push(self._text(read(struct.unpack("<Q", read(8))[0])))
            elif key == 0x55:  # SHORT_BINSTRING
                raw = read(read(1)[0])
                push(raw if self._encoding == "bytes" else self._decode(raw))
            elif key == 0x43:  # SHORT_BINBYTES
                push(read(read(1)[0]))
            elif key == 0x42:  # BINBYTES
                push(read(struct.unpack("<I", read(4))[0]))
            elif key == 0x51:  # BINPERSID
                pid = pop("BINPERSID")
                if type(pid) is not tuple:
                    raise UnpicklingError(f"persistent_load id must be tuple, but got {type(pid)}")
                push(self._persistent_load(pid))
            elif key == 0x68:  # BINGET
                push(self._memo_get(memo, read(1)[0]))
            elif key == 0x6A:  # LONG_BINGET
                push(self._memo_get(memo, struct.unpack("<I", read(4))[0]))
            elif key == 0x71:  # BINPUT
                memo[read(1)[0]] = top("BINPUT")
            elif key == 0x72:  # LONG_BINPUT
                memo[struct.unpack("<I", read(4))[0]] = top("LONG_BINPUT")
            elif key == 0x94:  # MEMOIZE
                memo[len(memo)] = top("MEMOIZE")
            elif key == 0x30:  # POP
                if stack and stack[-1] is _MARK:
                    pop_mark()
                else:
                    pop("POP")
            else:
                raise UnpicklingError(f"Unsupported operand {key}")

    def _text(self, raw):
        try:
            return raw.decode("utf-8", "surrogatepass")
        except UnicodeDecodeError:
            raise UnpicklingError("the pickle (data.pkl) is corrupt: a string is not valid UTF-8") from None

    def _decode(self, raw):
        try:
            return raw.decode(self._encoding, "strict")
        except (UnicodeDecodeError, LookupError):
            raise UnpicklingError(f"the pickle (data.pkl) has a string that is not valid {self._encoding}") \
                from None

    @staticmethod
    def _memo_get(memo, idx):
        try:
            return memo[idx]
        except KeyError:
            raise UnpicklingError(f"the pickle (data.pkl) is corrupt: memo entry {idx} was never stored") \
                from None

    @staticmethod
    def _setitems(target, items, op):
        if type(target) not in (dict, collections.OrderedDict, collections.Counter):
            raise UnpicklingError(f"Can only {op} for dict, collections.OrderedDict, collections.Counter, "
                                  f"but got {type(target)}")
        if len(items) % 2:
            raise UnpicklingError(f"the pickle (data.pkl) is corrupt: {op} with an odd number of items")
        try:
            for i in range(0, len(items), 2):
                target[items[i]] = items[i + 1]
        except TypeError as e:  # an unhashable key
            raise UnpicklingError(f"the pickle (data.pkl) is corrupt: {op}: {e}") from None

    def _build(self, inst, state):
        cls = type(inst)
        if isinstance(inst, type) or callable(inst) and not self._is_user(cls):
            raise UnpicklingError(f"Can only build OrderedDict or instances of types allowlisted via "
                                  f"`add_safe_globals`, but got {inst!r} (state setting on a class or "
                                  "function is refused)")
        if cls in _BUILDABLE:
            if not isinstance(state, dict) or not all(type(k) is str for k in state):
                raise UnpicklingError("BUILD state of an OrderedDict must be a dict of attribute names")
            inst.__dict__.update(state)
            return
        if not self._is_user(cls):
            raise UnpicklingError(f"Can only build OrderedDict or instances of types allowlisted via "
                                  f"`add_safe_globals`, but got {cls}")
        setstate = getattr(inst, "__setstate__", None)
        if setstate is not None and not _is_default_setstate(cls):
            setstate(state)
            return
        slotstate = None
        if isinstance(state, tuple) and len(state) == 2:
            state, slotstate = state
        if state:
            inst.__dict__.update(state)
        if slotstate:
            for k, v in slotstate.items():
                setattr(inst, k, v)


def _extend(target, kind, items, what):
    if type(target) is not kind:
        raise UnpicklingError(f"Can only {what}, but got {type(target)}")
    if kind is list:
        target.extend(items)
    else:
        target.update(items)


def _is_default_setstate(cls):
    return getattr(cls, "__setstate__", None) is getattr(object, "__setstate__", None)


_MARK = _Mark()

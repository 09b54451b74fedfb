"""msnb implementation of ``torch.export.graph_signature``: which placeholders
of an exported graph are parameters, buffers, constants or user inputs, and
which outputs are the user's (printed as PyTorch prints them)."""

from __future__ import annotations

import dataclasses
import enum
from typing import Any

from .._missing import module_getattr

__all__ = ["InputKind", "OutputKind", "InputSpec", "OutputSpec", "TensorArgument", "ConstantArgument",
           "ExportGraphSignature"]


class InputKind(enum.Enum):
    USER_INPUT = 1
    PARAMETER = 2
    BUFFER = 3
    CONSTANT_TENSOR = 4
    CUSTOM_OBJ = 5
    TOKEN = 6


class OutputKind(enum.Enum):
    USER_OUTPUT = 1
    LOSS_OUTPUT = 2
    BUFFER_MUTATION = 3
    GRADIENT_TO_PARAMETER = 4
    GRADIENT_TO_USER_INPUT = 5
    USER_INPUT_MUTATION = 6
    TOKEN = 7
    PARAMETER_MUTATION = 8


@dataclasses.dataclass
class TensorArgument:
    name: str


@dataclasses.dataclass
class ConstantArgument:
    name: str
    value: Any


@dataclasses.dataclass
class InputSpec:
    kind: InputKind
    arg: Any
    target: str | None
    persistent: bool | None = None


@dataclasses.dataclass
class OutputSpec:
    kind: OutputKind
    arg: Any
    target: str | None


@dataclasses.dataclass
class ExportGraphSignature:
    """The input and output specs of an exported graph, in placeholder / output order."""

    input_specs: list
    output_specs: list

    def _names(self, kind):
        return tuple(s.arg.name for s in self.input_specs if s.kind == kind)

    @property
    def parameters(self):
        return tuple(s.target for s in self.input_specs if s.kind == InputKind.PARAMETER)

    @property
    def buffers(self):
        return tuple(s.target for s in self.input_specs if s.kind == InputKind.BUFFER)

    @property
    def non_persistent_buffers(self):
        return tuple(s.target for s in self.input_specs if s.kind == InputKind.BUFFER and s.persistent is False)

    @property
    def lifted_tensor_constants(self):
        return tuple(s.target for s in self.input_specs if s.kind == InputKind.CONSTANT_TENSOR)

    @property
    def user_inputs(self):
        return tuple(s.arg.name if isinstance(s.arg, TensorArgument) else s.arg.value
                     for s in self.input_specs if s.kind == InputKind.USER_INPUT)

    @property
    def user_outputs(self):
        return tuple(s.arg.name if isinstance(s.arg, TensorArgument) else s.arg.value
                     for s in self.output_specs if s.kind == OutputKind.USER_OUTPUT)

    @property
    def inputs_to_parameters(self):
        return {s.arg.name: s.target for s in self.input_specs if s.kind == InputKind.PARAMETER}

    @property
    def inputs_to_buffers(self):
        return {s.arg.name: s.target for s in self.input_specs if s.kind == InputKind.BUFFER}

    @property
    def inputs_to_lifted_tensor_constants(self):
        return {s.arg.name: s.target for s in self.input_specs if s.kind == InputKind.CONSTANT_TENSOR}

    @property
    def buffers_to_mutate(self):
        return {}

    @property
    def backward_signature(self):
        return None

    def __str__(self):
        def line(spec):
            name = spec.arg.name
            if spec.target is None:
                return f"{name}: {spec.kind.name}"
            persistent = f" persistent={spec.persistent}" if spec.persistent is not None else ""
            return f"{name}: {spec.kind.name} target='{spec.target}'{persistent}"
        ins = "\n".join(line(s) for s in self.input_specs)
        outs = "\n".join(line(s) for s in self.output_specs)
        return f"\n# inputs\n{ins}\n\n# outputs\n{outs}\n"


__getattr__ = module_getattr("torch.export.graph_signature")

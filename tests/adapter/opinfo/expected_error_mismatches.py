"""OpInfo error inputs on which msnb does not raise PyTorch's exception type (with a
message PyTorch's ``error_regex`` matches), each with why.

Like PyTorch's ``xfail`` decorators, in one place: ``test_error_inputs``
fails when a case listed here matches (remove the entry) or when a case not
listed does not.  Keys are ``"<op>[.<variant>]:error:<index>"`` (the index in
``op.error_inputs("cpu")``); the reason says what PyTorch raises and what msnb
did.  Regenerate with ``python tools/opinfo_report.py --write-expected-errors``
after fixing ops.
"""

__all__ = ["EXPECTED_ERROR_MISMATCHES"]

EXPECTED_ERROR_MISMATCHES = {
    'clamp_max:error:0': 'not replayable: real torch returns a value (PyTorch expects Exception)',
    'clamp_min:error:0': 'not replayable: real torch returns a value (PyTorch expects Exception)',
    'gradient:error:3': 'not replayable: input not convertible: NotImplementedError: Cannot copy out of meta tensor; no data!',
    'gradient:error:10': 'not replayable: input not convertible: NotImplementedError: Cannot copy out of meta tensor; no data!',
    'gradient:error:17': 'not replayable: input not convertible: NotImplementedError: Cannot copy out of meta tensor; no data!',
    'kthvalue:error:0': 'not replayable: not posable: out= shares memory with an input; msnb is given separate copies',
    'masked_select:error:0': 'not replayable: not posable: out= is an expanded tensor (elements sharing memory); msnb is given copies',
    'masked_select:error:1': 'not replayable: not posable: out= shares memory with an input; msnb is given separate copies',
    'masked_select:error:2': 'not replayable: not posable: out= shares memory with an input; msnb is given separate copies',
    'aminmax:error:1': 'not replayable: input not convertible: ValueError: number of dimensions must be within [0, 32]',
    'aminmax:error:2': 'not replayable: input not convertible: ValueError: number of dimensions must be within [0, 32]',
    'gather:error:5': 'not replayable: not posable: out= is an expanded tensor (elements sharing memory); msnb is given copies',
    'gather:error:6': 'not replayable: not posable: out= shares memory with an input; msnb is given separate copies',
    'gather:error:7': 'not replayable: not posable: out= shares memory with an input; msnb is given separate copies',
    'index_select:error:0': 'not replayable: not posable: out= is an expanded tensor (elements sharing memory); msnb is given copies',
    'take:error:0': 'not replayable: not posable: out= is an expanded tensor (elements sharing memory); msnb is given copies',
    'take:error:1': 'not replayable: not posable: out= shares memory with an input; msnb is given separate copies',
    'take:error:2': 'not replayable: not posable: out= shares memory with an input; msnb is given separate copies',
    'bernoulli:error:0': 'not replayable: not posable: out= is an expanded tensor (elements sharing memory); msnb is given copies',
    'cat:error:0': 'not replayable: not posable: out= is an expanded tensor (elements sharing memory); msnb is given copies',
    'cat:error:6': 'not replayable: not posable: out= shares memory with an input; msnb is given separate copies',
    'cat:error:7': 'not replayable: not posable: out= shares memory with an input; msnb is given separate copies',
    'cat:error:8': 'not replayable: not posable: out= shares memory with an input; msnb is given separate copies',
    'amax:error:1': 'not replayable: input not convertible: ValueError: number of dimensions must be within [0, 32]',
    'amax:error:2': 'not replayable: input not convertible: ValueError: number of dimensions must be within [0, 32]',
    'amin:error:1': 'not replayable: input not convertible: ValueError: number of dimensions must be within [0, 32]',
    'amin:error:2': 'not replayable: input not convertible: ValueError: number of dimensions must be within [0, 32]',
}

"""Every ``torch.nn`` name the support registry lists has a differential test
in this folder (declared in the case tables below), a replay of PyTorch's
ModuleInfo / OpInfo samples (``tests/adapter/opinfo``), or a stated reason."""

from __future__ import annotations

from msnb.adapter.support import load_registry

from . import test_functional as tf, test_init_and_utils as ti, test_layers as tl, test_lazy as tz, \
    test_more_layers as tm, \
    test_nn_additions as ta, test_packed_sequence as tp, test_parametrize as tpz, \
    test_rnn_attention as tr
from .attention import test_sdpa_kernel as tsk

#: names exercised by tests that register them directly (not via a table)
DIRECT = {
    "torch.nn.Sequential", "torch.nn.ModuleList", "torch.nn.ModuleDict", "torch.nn.ParameterList",
    "torch.nn.Parameter", "torch.nn.TransformerEncoder", "torch.nn.functional.multi_head_attention_forward",
    "torch.nn.utils.clip_grad_norm_", "torch.nn.utils.clip_grad_value_", "torch.nn.utils.parameters_to_vector",
    "torch.nn.utils.vector_to_parameters", "torch.nn.init.constant_", "torch.nn.init.ones_",
    "torch.nn.init.zeros_", "torch.nn.init.eye_", "torch.nn.init.dirac_", "torch.nn.init.calculate_gain",
    "torch.nn.init.orthogonal_",
    # random layers and init draws compared value for value in ../random/test_diff_nn_random.py
    "torch.nn.AlphaDropout", "torch.nn.FeatureAlphaDropout", "torch.nn.functional.alpha_dropout",
    "torch.nn.functional.feature_alpha_dropout", "torch.nn.init.sparse_",
    # the pruning methods and functions, against real PyTorch in utils/test_diff_prune.py
    "torch.nn.utils.prune",
}
#: registry names that are not numeric layers, with the reason they are exempt here
EXEMPT = {
    "torch.nn.Module": "its own behaviour tests (registration, hooks, state_dict) live with module.py",
    "torch.nn.Buffer": "a marker class; covered with Module",
    "torch.nn.UninitializedParameter": "placeholder of lazy modules; tested with them (test_lazy.py)",
    "torch.nn.parallel": "namespace",
    "torch.nn.ParameterDict": "container; covered with Module",
    "torch.nn.RNNBase": "base class of RNN/LSTM/GRU",
    "torch.nn.RNNCellBase": "base class of the cells",
    "torch.nn.functional": "namespace", "torch.nn.init": "namespace", "torch.nn.utils": "namespace",
    "torch.nn.utils.rnn": "namespace", "torch.nn.utils.parametrize": "namespace",
    "torch.nn.utils.clip_grad_norm": "deprecated alias of clip_grad_norm_",
    "torch.nn.init._calculate_fan_in_and_fan_out": "helper exercised by every default initialisation",
}


def declared():
    names = set(DIRECT) | set(tm.NAMES) | set(ta.NAMES) | set(tp.NAMES) | set(tpz.NAMES) | set(tsk.NAMES)
    for _cid, ns, *_ in tl.CASES:
        names.update(f"torch.nn.{n}" for n in ns)
    names.update(f"torch.nn.{c[1]}" for c in tr.RNN_CASES)
    names.update({"torch.nn.MultiheadAttention", "torch.nn.TransformerEncoderLayer", "torch.nn.TransformerDecoderLayer",
                  "torch.nn.TransformerDecoder", "torch.nn.Transformer"})
    names.update(f"torch.nn.functional.{c[0]}" for c in tf.F_CASES)
    names.update(f"torch.nn.{c[0]}" for c in tf.LOSS_CASES)
    names.update(f"torch.nn.{c[0]}" for c in ti.INIT_LAYERS)
    names.update(f"torch.nn.init.{c[0]}" for c in ti.INIT_FNS)
    names.update(f"torch.nn.Lazy{n}" for n in tz.LAZY_CLASSES)
    names.add("torch.nn.UninitializedBuffer")  # test_lazy.py: LazyBatchNorm's statistics
    names.update({"torch.nn.DataParallel", "torch.nn.parallel.DataParallel", "torch.nn.parallel.data_parallel",
                  "torch.nn.parallel.DistributedDataParallel"})  # test_parallel.py
    return names


#: ``torch.nn.Module.*`` methods are tested with module.py, not here
EXEMPT_PREFIXES = ("torch.nn.Module.",)


def replayed():
    """Names the OpInfo / ModuleInfo replay (``tests/adapter/opinfo``) compares with real torch."""
    return {n for n, e in load_registry().items() if e.opinfo}


def test_every_registered_nn_name_has_a_differential_test():
    reg = {n for n in load_registry() if n.startswith("torch.nn.") and not n.startswith(EXEMPT_PREFIXES)}
    missing = sorted(reg - declared() - replayed() - set(EXEMPT))
    assert not missing, f"torch.nn names without a differential test: {missing}"
    stale = sorted((declared() | set(EXEMPT)) - reg)
    assert not stale, f"tests name APIs the registry does not list: {stale}"

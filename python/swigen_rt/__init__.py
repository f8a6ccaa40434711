"""swigen_rt: launch swigen kernels from Python, from their manifest and cubin alone.

Pure Python over the CUDA driver (ctypes on libcuda.so.1): no CUDA toolkit
and no compiled extension. Everything but Kernel's launch path is pure and
needs neither a GPU nor torch; torch is imported only by Kernel.launch and
by the torch modules, ops (torch.ops.swigen.*), mlp (SwiGLUMLP) and moe
(SwiGLUExperts, torch.ops.swigen.moe_*), which
load on first use of their names here.

    from swigen_rt import Kernel
    k = Kernel.from_files("kernels/bwd_dswiglu_sm90a_....json")
    k.launch({"dy": dy, "W_down": w_down, "de": de, "grad_de": grad_de})

    import kernels                    # a package of swigen emit --py-package kernels
    from swigen_rt import SwiGLUMLP   # torch.ops.swigen.* registered too
"""

from typing import Any

from .dispatch import DispatchPlan, PlanError, choose_path
from .expr import ExprError, check as check_expr, evaluate as eval_expr
from .files import FileError
from .kernel import ARCH_CC, Kernel, LoadError
from .manifest import Device, Launch, Manifest, ManifestError, ShapeError
from .package import REGISTRY, PackageError, load_dir
from .plan import Plan, make_plan
from .tensormap import EncodeArgs, TensorMapError, encode_args
from .tensors import check_tensors, infer_sizes

__version__ = "0.2.0"

_TORCH_NAMES = {"SwiGLUMLP": "mlp", "swiglu_mlp": "mlp", "convert_gate_up": "mlp", "convert_state_dict": "mlp", "ops": "ops",
               "SwiGLUExperts": "moe", "swiglu_experts": "moe", "convert_experts": "moe",
               "convert_experts_state_dict": "moe", "moe": "moe"}


def __getattr__(name: str) -> Any:
    """The torch-backed names, imported on first use (they need torch)."""
    mod = _TORCH_NAMES.get(name)
    if mod is None:
        raise AttributeError("module 'swigen_rt' has no attribute %r" % name)
    import importlib

    m = importlib.import_module("." + mod, __name__)
    return m if name == mod else getattr(m, name)


__all__ = [
    "ARCH_CC", "Device", "DispatchPlan", "EncodeArgs", "ExprError", "FileError", "Kernel", "Launch", "LoadError", "Manifest",
    "ManifestError", "PackageError", "Plan", "PlanError", "REGISTRY", "ShapeError", "TensorMapError", "check_expr",
    "check_tensors", "choose_path", "encode_args", "eval_expr", "infer_sizes", "load_dir", "make_plan",
]

"""swigen_rt: launch swigen kernels from Python, from their manifest and cubin alone.

Pure Python over the CUDA driver (ctypes on libcuda.so.1): no CUDA toolkit
and no compiled extension. Everything but Kernel's launch path is pure and
needs neither a GPU nor torch; torch is imported only by Kernel.launch.

    from swigen_rt import Kernel
    k = Kernel.from_files("kernels/bwd_dswiglu_sm90a_....json")
    k.launch({"dy": dy, "W_down": w_down, "de": de, "grad_de": grad_de})
"""

from .expr import ExprError, check as check_expr, evaluate as eval_expr
from .kernel import ARCH_CC, Kernel, LoadError
from .manifest import Device, Launch, Manifest, ManifestError, ShapeError
from .plan import Plan, make_plan
from .tensormap import EncodeArgs, TensorMapError, encode_args
from .tensors import check_tensors, infer_sizes

__version__ = "0.1.0"

__all__ = [
    "ARCH_CC", "Device", "EncodeArgs", "ExprError", "Kernel", "Launch", "LoadError", "Manifest", "ManifestError",
    "Plan", "ShapeError", "TensorMapError", "check_expr", "check_tensors", "encode_args", "eval_expr",
    "infer_sizes", "make_plan",
]

"""Why scalargrad refuses a part of PyTorch: one reason per area, by PyTorch's name.

``Unsupported(feature)`` without a hint of its own takes its reason from here (``reason``): the
longest entry that is the feature's name or a dotted prefix of it. An area listed here is one
scalargrad does not do by design (a GPU, several processes, a compiled graph, complex numbers,
sparse layouts, quantised kernels, C++ extensions...); a PyTorch name that is missing for no such
reason stays without one (``Unsupported`` then names it alone), and the API census
(``tools/api_census.py``) lists it as missing.
"""

from __future__ import annotations

__all__ = ["reason"]

GPU = "it needs a GPU: scalargrad computes on the CPU, as PyTorch's CPU build does"
PROCESSES = ("it needs several processes and a communication backend: scalargrad runs a program in one Python "
             "process")
COMPILED = "it builds a compiled graph ({}), which scalargrad does not: it runs a program eagerly, op by op"
COMPLEX = ("it needs complex numbers beyond what scalargrad's complex64/complex128 tensors do (creation, parts, "
           "conj, abs, angle, + - * /, sum, mean) or complex32")
SPARSE = ("scalargrad's sparse tensors are built, converted, printed, added, scaled, summed and multiplied with a "
          "dense matrix, and no more")
NATIVE = "it loads or defines native (C++/CUDA) code, which scalargrad, pure Python, cannot run"
QUANTIZED = ("it needs quantised (int8) kernels, which scalargrad does not have: its quantized tensors are made, "
             "dequantized, read, printed, compared, viewed, indexed and concatenated, and no more")
PROFILER = "it measures PyTorch's kernels (time, memory), which scalargrad does not have"
TRANSFORMS = ("it is one of functorch's transforms scalargrad does not implement (torch.func has grad, vjp, jvp, "
              "jacrev, jacfwd, hessian, vmap and functional_call)")
AUTOCAST = "it runs ops in lower precision (float16/bfloat16 autocast kernels), which scalargrad does not"
NESTED = "it needs nested (ragged) tensors"
AS_STRIDED = ("it views a tensor's memory with arbitrary sizes and strides, and scalargrad does not implement its "
              "gradient, as_strided_backward, which handles elements that overlap: use view, expand, unfold or "
              "indexing")
SVD = ("the signs of the singular vectors are whatever LAPACK's gesdd (MKL, OpenBLAS) leaves them, which "
       "scalargrad cannot reproduce machine-independently, so U and V would silently differ from PyTorch's")
NUMPY = "it shares memory with a raw buffer; scalargrad keeps its own elements: use torch.tensor(list(buffer))"

_REASONS: dict[str, str] = {
    # a GPU or another accelerator
    "torch.cuda": GPU, "torch.accelerator": GPU, "torch.mps": GPU, "torch.xpu": GPU, "torch.mtia": GPU,
    "torch.backends.cudnn.is_available": GPU,
    "torch.Tensor.cuda": GPU, "torch.Tensor.pin_memory": GPU, "torch.Tensor.is_pinned": GPU,
    "torch.nn.Module.cuda": GPU, "torch.nn.Module.xpu": GPU, "torch.nn.Module.ipu": GPU, "torch.nn.Module.mtia": GPU,
    "torch.nn.parallel.scatter": GPU, "torch.nn.parallel.gather": GPU, "torch.nn.parallel.replicate": GPU,
    "torch.nn.parallel.parallel_apply": GPU, "torch.nn.parallel.data_parallel": GPU, "torch.nn.SyncBatchNorm": GPU,
    "torch.Stream": GPU, "torch.Event": GPU,
    # several processes
    "torch.distributed": PROCESSES, "torch.nn.parallel.DistributedDataParallel": PROCESSES,
    "torch.multiprocessing": PROCESSES, "torch.utils.data.distributed": PROCESSES,
    "torch.utils.data.DistributedSampler": PROCESSES, "torch.Tensor.share_memory_": PROCESSES,
    "torch.nn.Module.share_memory": PROCESSES,
    # compiled graphs
    "torch.compile": COMPILED.format("TorchDynamo and Inductor"), "torch.nn.Module.compile":
        COMPILED.format("TorchDynamo and Inductor"), "torch._dynamo": COMPILED.format("TorchDynamo"),
    "torch._inductor": COMPILED.format("Inductor"), "torch.compiler": COMPILED.format("TorchDynamo and Inductor"),
    "torch.jit": COMPILED.format("TorchScript"), "torch.fx": COMPILED.format("torch.fx"),
    "torch.export": COMPILED.format("torch.export"), "torch._export": COMPILED.format("torch.export"),
    "torch.onnx": COMPILED.format("an ONNX export"), "torch.cond": COMPILED.format("a control-flow operator"),
    "torch._check": COMPILED.format("a symbolic shape check"),
    # complex numbers
    # (complex64/complex128 tensors exist: _tensor/complex_numbers.py; these need more of them)
    "torch.fft": COMPLEX, "torch.stft": COMPLEX, "torch.istft": COMPLEX, "torch.Tensor.chalf": COMPLEX,
    "torch.complex32": COMPLEX, "torch.chalf": COMPLEX,
    # sparse layouts
    "torch.sparse": SPARSE, "torch.Tensor.sparse_resize_": SPARSE,
    "torch.Tensor.to_sparse_semi_structured": SPARSE, "torch.optim.SparseAdam": SPARSE,
    # native code
    "torch.utils.cpp_extension": NATIVE, "torch.library": NATIVE, "torch.ops": NATIVE, "torch.classes": NATIVE,
    "torch._C": NATIVE, "torch.hub": "it downloads code and weights from the network",
    "torch.utils.model_zoo": "it downloads weights from the network",
    # quantisation
    "torch.ao": QUANTIZED, "torch.quantization": QUANTIZED, "torch.backends.quantized": QUANTIZED,
    "torch.quantized_batch_norm": QUANTIZED,
    "torch.quantized_max_pool1d": QUANTIZED, "torch.quantized_max_pool2d": QUANTIZED,
    # measuring kernels
    "torch.profiler": PROFILER, "torch.autograd.profiler": PROFILER, "torch.utils.benchmark": PROFILER,
    "torch.cuda.memory": PROFILER, "torch._logging": "it configures the logs of TorchDynamo and Inductor",
    "torch.utils.tensorboard": "it writes TensorBoard event files (the tensorboard package)",
    # function transforms
    "torch.func": TRANSFORMS,
    # lower precision
    "torch.autocast": AUTOCAST, "torch.amp": AUTOCAST, "torch.cpu.amp": AUTOCAST, "torch.GradScaler": AUTOCAST,
    # other layouts and memory
    "torch.nested": NESTED, "torch.Tensor.to_padded_tensor": NESTED,
    "torch.Tensor.name": "it needs named tensors (a prototype feature of PyTorch's): scalargrad's dimensions have "
                         "no names", "torch.Tensor.names": "it needs named tensors (a prototype feature of PyTorch's)",
    "torch.Tensor.refine_names": "it needs named tensors (a prototype feature of PyTorch's)",
    "torch.futures": "it serves asynchronous RPC and TorchScript's fork: scalargrad runs a program synchronously, "
                     "in one process",
    "torch.nn.utils.skip_init": "it leaves the parameters as uninitialised memory, whose values PyTorch does not "
                                "specify: initialise them (or load a state_dict) instead",
    "torch.frombuffer": NUMPY,
    "torch.set_flush_denormal": "it sets the processor's flush-denormal mode, which scalargrad's emulated float "
                                "arithmetic does not model: it keeps subnormal numbers, as PyTorch does by default",
    **dict.fromkeys(("torch.as_strided", "torch.as_strided_copy", "torch.Tensor.as_strided",
                     "torch.Tensor.as_strided_"), AS_STRIDED),
    "torch.from_dlpack": NUMPY.replace("a raw buffer", "another library's array (DLPack)"),
    "torch.utils.dlpack": NUMPY.replace("a raw buffer", "another library's array (DLPack)"),
    **dict.fromkeys(("torch.svd", "torch.Tensor.svd", "torch.linalg.svd", "torch.svd_lowrank", "torch.pca_lowrank"),
                    SVD),
    # a general matrix's eigenvalues and eigenvectors are complex
    "torch.linalg.eig": COMPLEX, "torch.linalg.eigvals": COMPLEX,
    # a symmetric matrix's eigenvectors: their signs are LAPACK's choice, as the singular vectors'
    "torch.linalg.eigh": SVD.replace("singular vectors are whatever LAPACK's gesdd", "eigenvectors are whatever "
                                     "LAPACK's syevd").replace("U and V", "they") + "; torch.linalg.eigvalsh gives "
                                     "the eigenvalues",
    "torch.jagged": NESTED,
    "torch._higher_order_ops": COMPILED.format("a higher-order operator"),
}


def reason(feature: str) -> str:
    """The reason scalargrad refuses ``feature`` (``torch.cuda.set_device``, ``Tensor.cfloat``,
    ``torch.distributed.init_process_group``...), or "" when no area is listed."""
    name = feature.split("(", 1)[0].strip()
    if name.startswith(("Tensor.", "nn.Module.", "nn.")):
        name = "torch." + name
    while name:
        found = _REASONS.get(name)
        if found is not None:
            return found
        name = name.rpartition(".")[0]
    return ""
